/* cmd_info.c -- `spk info`: what a matrix looks like (size, symmetry,
 * diagonal, dominance, row lengths), which method spk would pick, and with
 * --format how a storage format holds it (split, widths, bytes); of a
 * complex matrix its size, symmetry class, diagonal and row lengths. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "core/csr.h"
#include "core/exec.h"
#include "core/zcsr.h"
#include "io/mmio.h"
#include "spmv/options.h"
#include "spmv/spmv.h"
#include "spmv/tile.h"

/* The command's own arguments (the formats' knobs go into o). */
typedef struct info_args {
    const char *path, *format, *max_memory;
    int json;
    spk_options o;
} info_args;

static const spk_opt info_keys[] = {
    {.key = "format", CLI_ARG(info_args, format), .type = SPK_OPT_STRING, .meta = "NAME",
     .help = "also convert A to this SpMV format (on the host) and print how it holds A (hmec: K, rows and "
             "nonzeros of each ELL part and the CSR rest; tile formats: tiles and nonzeros of each of the seven "
             "tile formats) and the bytes of its arrays; JSON: \"format\", \"format_detail\", \"format_bytes\" "
             "(and \"tile_formats\")"},
    {.key = "json", CLI_ARG(info_args, json), .type = SPK_OPT_FLAG, .help = "print one JSON object instead of text"},
    {.key = "max-memory", CLI_ARG(info_args, max_memory), .type = SPK_OPT_STRING, .meta = "SIZE",
     .help = "the most memory reading A may hold (e.g. 4G, 512M): beyond it the read stops with an error "
             "(default: no limit)"},
};
static const spk_opt_table info_options = {"info", info_keys, 3, NULL};

static void help(const cli_parser *p)
{
    printf("usage: spk info A.mtx[.gz] [--format NAME [its options]] [--json]\n"
           "\n"
           "Print the size, the stored and expanded nonzeros, the header's field and symmetry,\n"
           "the measured pattern and value symmetry, the diagonal (missing, positive, zero,\n"
           "negative entries), diagonal dominance, row-length statistics, the method\n"
           "'spk solve' would choose, and the formats the GPU's 'auto' format would consider.\n"
           "Of a complex file: the size, nonzeros, symmetry class (complex symmetric A = A^T,\n"
           "Hermitian A = A^H, both, or general), diagonal, row lengths and norm.\n"
           "\n"
           "options:\n");
    cli_print_options(p);
    printf("\nFormats on the host (--format NAME): ");
    int n = 0;
    for (const struct spk_spmv_ops *const *q = spk_spmv_list(); *q; q++)
        if (strcmp((*q)->exec, "host") == 0) printf("%s%s", n++ ? ", " : "", (*q)->name);
    printf("\n");
}

static int is_tile_format(const char *name)
{
    return name && (strcmp(name, "tile") == 0 || strcmp(name, "tile-csr") == 0 || strcmp(name, "tile-dcoo") == 0);
}

/* Convert A to the host format `name` with options o and describe it (tile
 * formats: also their per-format counts in *ts); an unknown name or a refused
 * conversion leaves the message in e. */
static int describe_format(const spk_csr *A, const char *name, const spk_spmv_opts *o, char *detail,
                           size_t len, size_t *bytes, spk_tile_stats *ts, spk_err *e)
{
    spk_exec *ex = NULL;
    const struct spk_spmv_ops *ops = NULL;
    void *impl = NULL;
    int st;
    if (is_tile_format(name)) {
        spk_tile_params p;
        spk_fmt_tile T;
        spk_csr D = {0};
        SPK_TRY(spk_tile_params_for(name, o, A, &p, e));
        SPK_TRY(spk_tile_build(A, &p, &T, &D, e));
        *ts = T.stats;
        spk_tile_describe(&T.stats, T.ntiles, &p, detail, len);
        *bytes = T.stats.bytes;
        spk_tile_free(&T);
        spk_csr_free(&D);
        return SPK_OK;
    }
    SPK_CHECK(st, spk_exec_host_create(e, &ex));
    SPK_CHECK(st, spk_spmv_find(name, ex, &ops, e));
    SPK_CHECK(st, ops->create(ex, A, o, &impl));
    spk_spmv_stats s;
    ops->stats(impl, &s);
    snprintf(detail, len, "%s", s.detail);
    *bytes = s.bytes;
cleanup:
    if (impl) ops->destroy(impl);
    spk_exec_destroy(ex);
    return st;
}

/* The tile formats' shares (the paper's Fig. 7) as text or JSON. */
static void print_tile_stats(const spk_tile_stats *s, int json)
{
    long long tiles = 0, nnz = 0;
    for (int k = 0; k < SPK_TILE_NKINDS; k++) tiles += s->tiles[k], nnz += s->nnz[k];
    double tt = tiles ? (double)tiles : 1, nn = nnz ? (double)nnz : 1;
    if (json) {
        printf(", \"tile_formats\": [");
        for (int k = 0; k < SPK_TILE_NKINDS; k++) {
            printf("%s{\"format\": \"%s\", \"tiles\": %d", k ? ", " : "", spk_tile_kind_names[k], s->tiles[k]);
            cli_json_field(stdout, "tiles_share", s->tiles[k] / tt);
            printf(", \"nnz\": %lld", s->nnz[k]);
            cli_json_field(stdout, "nnz_share", s->nnz[k] / nn);
            printf("}");
        }
        printf("], \"tile_deferred_nnz\": %lld, \"csr_bytes\": %zu", s->deferred, s->csr_bytes);
        return;
    }
    printf("            tile format      tiles   share     nonzeros   share\n");
    for (int k = 0; k < SPK_TILE_NKINDS; k++)
        printf("            %-11s %10d  %5.1f%%  %11lld  %5.1f%%\n", spk_tile_kind_names[k], s->tiles[k],
               100.0 * s->tiles[k] / tt, s->nnz[k], 100.0 * s->nnz[k] / nn);
    printf("            %-11s %10lld  100.0%%  %11lld  100.0%%\n", "all", tiles, nnz);
    if (s->deferred)
        printf("            deferred COO: %lld nonzeros (%.1f%%) in a separate CSR matrix, %lld tiles emptied\n",
               s->deferred, 100.0 * s->deferred / nn, s->dropped_tiles);
    printf("            bytes: %zu, %.3f x CSR (%zu = 12 nnz + 4 (rows + 1))\n", s->bytes,
           s->csr_bytes ? (double)s->bytes / (double)s->csr_bytes : 0.0, s->csr_bytes);
}

static const char *field_name(spk_mm_field f)
{
    return f == SPK_MM_REAL ? "real" : f == SPK_MM_INTEGER ? "integer" : f == SPK_MM_PATTERN ? "pattern" : "complex";
}

static const char *sym_name(spk_mm_symmetry s)
{
    return s == SPK_MM_GENERAL     ? "general"
           : s == SPK_MM_SYMMETRIC ? "symmetric"
           : s == SPK_MM_SKEW      ? "skew-symmetric"
                                   : "hermitian";
}

/* Is name one of the comma-separated list? */
static int in_scope(const char *scope, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = scope; p && (p = strstr(p, name)) != NULL; p += n)
        if ((p == scope || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

/* Parse argv into a; CLI_OK, CLI_USAGE, or -1 after --help. */
/* A word that is no option: the matrix file (one only). */
static int info_word(cli_parser *p, const char *word, void *arg)
{
    info_args *a = arg;
    (void)p;
    if (!word) return CLI_OK;
    if (a->path) return cli_usage_error("info", "unexpected argument '%s' (one matrix file only)", word);
    a->path = word;
    return CLI_OK;
}

static int parse(int argc, char **argv, info_args *a)
{
    memset(a, 0, sizeof *a);
    spk_options_default(&a->o);
    cli_parser p = {.cmd = "info", .own = &info_options, .args = a, .o = &a->o, .owners = "spmv"};
    const int r = cli_parse_args(&p, argc, argv, info_word, a);
    if (r == CLI_HELP) help(&p);
    if (r) return r == CLI_HELP ? -1 : r;
    if (!a->path) return cli_usage_error("info", "missing the matrix file");
    for (int k = 0; k < p.ngiven; k++) { /* a knob only with a format that reads it */
        const char *sc = p.given[k]->scope;
        if (!sc || (a->format && in_scope(sc, a->format))) continue;
        char names[128] = ""; /* "a, b or c" */
        for (size_t j = 0, u = 0; sc[j] && u + 4 < sizeof names; j++)
            if (sc[j] != ',')
                names[u++] = sc[j], names[u] = '\0';
            else
                u += (size_t)snprintf(names + u, sizeof names - u, "%s", strchr(sc + j + 1, ',') ? ", " : " or ");
        return cli_usage_error("info", "--%s goes with --format %s", p.given[k]->key, names);
    }
    return cli_check_options(&p);
}

/* What spk info reports about A. */
typedef struct info_facts {
    spk_mm_info mi;
    int psym, vsym, nd, missing, dpos, dzero, dneg, dom, square, lev_lo, lev_up;
    double dmin, dmax, fro;
    spk_csr_rowstats rs;
    const char *method;
    const char *cands[16];   /* what the GPU's auto would consider */
    int ncand, timed;
    char autoc[256];         /* ... as a comma-separated list */
    char detail[512];        /* --format: how it holds A */
    size_t fbytes;
    spk_tile_stats ts;
} info_facts;

/* The diagonal: missing, positive, zero, negative entries and their range. */
static int diagonal(const spk_csr *A, info_facts *f, spk_err *e)
{
    f->nd = A->nrows < A->ncols ? A->nrows : A->ncols;
    int *pos = spk_malloc((size_t)f->nd, sizeof(int), "diagonal positions", e);
    if (!pos) return SPK_ERR_NOMEM;
    spk_csr sq = *A;
    sq.nrows = f->nd;
    f->missing = spk_csr_diag_pos(&sq, pos);
    f->dmin = INFINITY;
    f->dmax = -INFINITY;
    for (int i = 0; i < f->nd; i++) {
        if (pos[i] < 0) continue;
        double d = A->val[pos[i]];
        f->dpos += d > 0;
        f->dzero += d == 0;
        f->dneg += d < 0;
        f->dmin = fmin(f->dmin, d);
        f->dmax = fmax(f->dmax, d);
    }
    free(pos);
    return SPK_OK;
}

static int gather(const info_args *a, const spk_csr *A, info_facts *f, spk_err *e)
{
    SPK_TRY(spk_csr_symmetry(A, 1e-12, &f->psym, &f->vsym, e));
    SPK_TRY(diagonal(A, f, e));
    for (int k = 0; k < A->nnz; k++) f->fro += A->val[k] * A->val[k];
    f->fro = sqrt(f->fro);
    f->dom = spk_csr_diag_dominant_rows(A);
    spk_csr_row_stats(A, &f->rs);
    f->square = A->nrows == A->ncols;
    int cg = f->square && f->vsym && f->missing == 0 && f->dpos == f->nd && f->nd > 0;
    f->method = !f->square ? "none (not square)" : cg ? "cg + ic0" : "bicgstab + ilu0";
    /* the triangular solves' levels (IC(0)/ILU(0) keep A's pattern) */
    f->lev_lo = f->square ? spk_csr_tri_levels(A, 0) : 0;
    f->lev_up = f->square ? spk_csr_tri_levels(A, 1) : 0;
    if (f->lev_lo < 0 || f->lev_up < 0) return spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (triangular levels)");
    f->ncand = spk_auto_candidates(A, f->cands, 16, &f->timed);
    for (int i = 0, used = 0; i < f->ncand && used < (int)sizeof f->autoc; i++) {
        int w = snprintf(f->autoc + used, sizeof f->autoc - (size_t)used, "%s%s", i ? "," : "", f->cands[i]);
        if (w > 0) used += w;
    }
    if (!a->format) return SPK_OK;
    spk_spmv_opts so;
    spk_spmv_opts_of(&a->o, &so);
    return describe_format(A, a->format, &so, f->detail, sizeof f->detail, &f->fbytes, &f->ts, e);
}

static void print_json(const info_args *a, const spk_csr *A, const info_facts *f)
{
    cli_json_begin(stdout);
    printf(", \"file\": ");
    cli_json_string(stdout, a->path);
    printf(", \"rows\": %d, \"cols\": %d, \"entries_in_file\": %lld, \"nnz\": %d, \"field\": \"%s\","
           " \"header_symmetry\": \"%s\", \"pattern_symmetric\": %s, \"value_symmetric\": %s,"
           " \"diag_missing\": %d, \"diag_positive\": %d, \"diag_zero\": %d, \"diag_negative\": %d,",
           A->nrows, A->ncols, f->mi.entries, A->nnz, field_name(f->mi.field), sym_name(f->mi.symmetry),
           f->psym ? "true" : "false", f->vsym ? "true" : "false", f->missing, f->dpos, f->dzero, f->dneg);
    printf(" \"diag_min\": ");
    cli_json_number(stdout, f->dmin);
    printf(", \"diag_max\": ");
    cli_json_number(stdout, f->dmax);
    printf(", \"frobenius\": ");
    cli_json_number(stdout, f->fro);
    printf(", \"diag_dominant_rows\": %d, \"row_min\": %d, \"row_max\": %d", f->dom, f->rs.min, f->rs.max);
    cli_json_field(stdout, "row_mean", f->rs.mean);
    cli_json_field(stdout, "row_std", f->rs.std);
    printf(", \"empty_rows\": %d, \"method\": \"%s\"", f->rs.empty, f->method);
    if (f->square) printf(", \"levels_lower\": %d, \"levels_upper\": %d", f->lev_lo, f->lev_up);
    printf(", \"auto_candidates\": ");
    cli_json_string(stdout, f->autoc);
    printf(", \"auto_trials\": %s", f->timed ? "true" : "false");
    if (a->format) {
        printf(", \"format\": ");
        cli_json_string(stdout, a->format);
        printf(", \"format_detail\": ");
        cli_json_string(stdout, f->detail);
        printf(", \"format_bytes\": %zu", f->fbytes);
        if (is_tile_format(a->format)) print_tile_stats(&f->ts, 1);
    }
    printf("}\n");
}

static void print_text(const info_args *a, const spk_csr *A, const info_facts *f)
{
    printf("file        %s\n", a->path);
    printf("size        %d x %d%s\n", A->nrows, A->ncols, f->square ? "" : " (not square)");
    printf("nonzeros    %d (%lld entries in the file, %s %s)\n", A->nnz, f->mi.entries, field_name(f->mi.field),
           sym_name(f->mi.symmetry));
    printf("symmetry    pattern %s, values %s\n", f->psym ? "symmetric" : "nonsymmetric",
           f->vsym ? "symmetric" : "nonsymmetric");
    printf("diagonal    %d missing, %d positive, %d zero, %d negative", f->missing, f->dpos, f->dzero, f->dneg);
    if (f->nd - f->missing > 0) printf("; range [%.6g, %.6g]", f->dmin, f->dmax);
    printf("\n");
    printf("dominance   %d of %d rows diagonally dominant (|a_ii| >= sum |a_ij|)\n", f->dom, A->nrows);
    printf("rows        length min %d, max %d, mean %.2f, std %.2f; %d empty\n", f->rs.min, f->rs.max, f->rs.mean,
           f->rs.std, f->rs.empty);
    printf("norm        ||A||_F = %.6g\n", f->fro);
    printf("method      spk solve would use %s\n", f->method);
    if (f->square)
        printf("levels      triangular solves: %d steps with the lower triangle, %d with the upper "
               "(%.1f rows per step)\n",
               f->lev_lo, f->lev_up,
               A->nrows / (double)(f->lev_lo > f->lev_up ? f->lev_lo : f->lev_up > 0 ? f->lev_up : 1));
    if (f->timed)
        printf("auto        on the GPU, timed trials among %s\n", f->autoc);
    else
        printf("auto        on the GPU, %s by the rule on the row lengths%s%s%s\n", f->cands[0],
               f->ncand > 1 ? " (then " : "", f->ncand > 1 ? strchr(f->autoc, ',') + 1 : "",
               f->ncand > 1 ? " if refused)" : "");
    if (a->format) {
        printf("format      %s%s%s\n", a->format, f->detail[0] ? ": " : "", f->detail);
        printf("            %zu bytes of arrays on the host\n", f->fbytes);
        if (is_tile_format(a->format)) print_tile_stats(&f->ts, 0);
    }
}

/* ---- complex matrices ---------------------------------------------------- */

/* What spk info reports about a complex A. */
typedef struct zinfo_facts {
    spk_mm_info mi;
    spk_zsym sym;
    int nd, missing, dreal; /* the diagonal: its length, entries not stored, stored ones that are real */
    double remin, remax, immin, immax, fro;
    spk_csr_rowstats rs;
} zinfo_facts;

static const char *const zsym_json[4] = {"general", "symmetric", "hermitian", "both"};
static const char *const zsym_text[4] = {"general (neither A = A^T nor A = A^H)",
                                         "complex symmetric (A = A^T), not Hermitian",
                                         "Hermitian (A = A^H), not symmetric",
                                         "symmetric and Hermitian (A = A^T = A^H: the values are real)"};

static int zgather(const spk_zcsr *A, zinfo_facts *f, spk_err *e)
{
    int *pos = NULL;
    f->sym = spk_zcsr_symmetry(A);
    SPK_TRY(spk_zcsr_diag_pos(A, &pos, e));
    f->nd = A->nrows < A->ncols ? A->nrows : A->ncols;
    f->remin = f->immin = INFINITY;
    f->remax = f->immax = -INFINITY;
    for (int i = 0; i < f->nd; i++) {
        if (pos[i] < 0) {
            f->missing++;
            continue;
        }
        const double re = A->val[2 * (size_t)pos[i]], im = A->val[2 * (size_t)pos[i] + 1];
        f->dreal += im == 0;
        f->remin = fmin(f->remin, re);
        f->remax = fmax(f->remax, re);
        f->immin = fmin(f->immin, im);
        f->immax = fmax(f->immax, im);
    }
    free(pos);
    for (size_t k = 0; k < 2 * (size_t)A->nnz; k++) f->fro += A->val[k] * A->val[k];
    f->fro = sqrt(f->fro);
    const spk_csr pattern = {A->nrows, A->ncols, A->nnz, A->rowptr, A->colind, NULL};
    spk_csr_row_stats(&pattern, &f->rs);
    return SPK_OK;
}

static void zprint_json(const info_args *a, const spk_zcsr *A, const zinfo_facts *f)
{
    cli_json_begin(stdout);
    printf(", \"file\": ");
    cli_json_string(stdout, a->path);
    printf(", \"rows\": %d, \"cols\": %d, \"entries_in_file\": %lld, \"nnz\": %d, \"field\": \"%s\","
           " \"header_symmetry\": \"%s\", \"complex\": true, \"symmetry\": \"%s\", \"diag_missing\": %d,"
           " \"diag_real\": %d",
           A->nrows, A->ncols, f->mi.entries, A->nnz, field_name(f->mi.field), sym_name(f->mi.symmetry),
           zsym_json[f->sym], f->missing, f->dreal);
    const double v[4] = {f->remin, f->remax, f->immin, f->immax};
    const char *const k[4] = {"diag_re_min", "diag_re_max", "diag_im_min", "diag_im_max"};
    for (int i = 0; i < 4; i++) {
        printf(", \"%s\": ", k[i]);
        cli_json_number(stdout, v[i]);
    }
    printf(", \"frobenius\": ");
    cli_json_number(stdout, f->fro);
    printf(", \"row_min\": %d, \"row_max\": %d", f->rs.min, f->rs.max);
    cli_json_field(stdout, "row_mean", f->rs.mean);
    cli_json_field(stdout, "row_std", f->rs.std);
    printf(", \"empty_rows\": %d}\n", f->rs.empty);
}

static void zprint_text(const info_args *a, const spk_zcsr *A, const zinfo_facts *f)
{
    printf("file        %s\n", a->path);
    printf("size        %d x %d%s\n", A->nrows, A->ncols, A->nrows == A->ncols ? "" : " (not square)");
    printf("nonzeros    %d (%lld entries in the file, %s %s)\n", A->nnz, f->mi.entries, field_name(f->mi.field),
           sym_name(f->mi.symmetry));
    printf("values      complex\n");
    printf("symmetry    %s\n", zsym_text[f->sym]);
    printf("diagonal    %d missing, %d real", f->missing, f->dreal);
    if (f->nd - f->missing > 0)
        printf("; real parts [%.6g, %.6g], imaginary parts [%.6g, %.6g]", f->remin, f->remax, f->immin, f->immax);
    printf("\n");
    printf("rows        length min %d, max %d, mean %.2f, std %.2f; %d empty\n", f->rs.min, f->rs.max, f->rs.mean,
           f->rs.std, f->rs.empty);
    printf("norm        ||A||_F = %.6g\n", f->fro);
}

/* spk info of a complex file (its banner says so): read as complex, reported. */
static int info_complex(const info_args *a, size_t limit)
{
    spk_err e;
    spk_err_clear(&e);
    if (a->format) {
        fprintf(stderr, "spk info: %s: a complex matrix (--format describes how a real one is stored)\n", a->path);
        return CLI_FAIL;
    }
    spk_zcsr A = {0};
    zinfo_facts f;
    memset(&f, 0, sizeof f);
    if (spk_mm_read_zcsr(a->path, limit, &A, &f.mi, &e)) {
        fprintf(stderr, "spk info: %s\n", e.msg);
        return CLI_FAIL;
    }
    if (f.mi.warnings)
        fprintf(stderr, "spk info: warning: %s%s\n", f.mi.warning, f.mi.warnings > 1 ? " (and more such notes)" : "");
    int rc = CLI_OK;
    if (zgather(&A, &f, &e)) {
        fprintf(stderr, "spk info: %s: %s\n", a->path, e.msg);
        rc = CLI_FAIL;
    } else if (a->json) {
        zprint_json(a, &A, &f);
    } else {
        zprint_text(a, &A, &f);
    }
    spk_zcsr_free(&A);
    return rc;
}

/* Does the banner of the regular file path name the complex field?  (Not tried on a device or a
 * pipe, whose bytes a first look would take from the read.) */
static int is_complex_file(const char *path)
{
    struct stat sb;
    spk_mm_field field;
    spk_err e;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && spk_mm_peek_field(path, &field, &e) == SPK_OK &&
           field == SPK_MM_COMPLEX;
}

int cmd_info(int argc, char **argv)
{
    info_args a;
    int pr = parse(argc, argv, &a);
    if (pr) return pr < 0 ? CLI_OK : pr;
    spk_err e;
    spk_err_clear(&e);
    spk_csr A = {0};
    info_facts f;
    memset(&f, 0, sizeof f);
    size_t limit = 0;
    const int lr = cli_parse_bytes("info", a.max_memory, &limit);
    if (lr) return lr;
    if (is_complex_file(a.path)) return info_complex(&a, limit);
    if (spk_mm_read_csr_limit(a.path, limit, &A, &f.mi, &e)) {
        fprintf(stderr, "spk info: %s\n", e.msg);
        return CLI_FAIL;
    }
    if (f.mi.warnings)
        fprintf(stderr, "spk info: warning: %s%s\n", f.mi.warning, f.mi.warnings > 1 ? " (and more such notes)" : "");
    int rc = CLI_OK;
    if (gather(&a, &A, &f, &e)) {
        fprintf(stderr, "spk info: %s: %s\n", a.path, e.msg);
        rc = CLI_FAIL;
    } else if (a.json) {
        print_json(&a, &A, &f);
    } else {
        print_text(&a, &A, &f);
    }
    spk_csr_free(&A);
    return rc;
}
