/* cmd_info.c -- `spk info`: what a matrix looks like (size, symmetry,
 * diagonal, dominance, row lengths), which method spk would pick, and with
 * --format how a storage format holds it (split, widths, bytes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/csr.h"
#include "core/exec.h"
#include "io/mmio.h"
#include "spmv/spmv.h"
#include "spmv/tile.h"

static void help(void)
{
    printf("usage: spk info A.mtx[.gz] [--format NAME [--hmec-parts P | --tile-... | --sell-... |\n"
           "                      --bcsr-block B]] [--json]\n"
           "\n"
           "Print the size, the stored and expanded nonzeros, the header's field and symmetry,\n"
           "the measured pattern and value symmetry, the diagonal (missing, positive, zero,\n"
           "negative entries), diagonal dominance, row-length statistics, the method\n"
           "'spk solve' would choose, and the formats the GPU's 'auto' format would consider.\n"
           "\n"
           "options:\n"
           "  --format NAME       also convert A to this SpMV format (on the host) and print how\n"
           "                      it holds A (hmec: K, rows and nonzeros of each ELL part and\n"
           "                      the CSR rest; tile formats: tiles and nonzeros of each of the\n"
           "                      seven tile formats) and the bytes of its arrays; JSON:\n"
           "                      \"format\", \"format_detail\", \"format_bytes\" (and\n"
           "                      \"tile_formats\").  Formats on the host:\n"
           "                      ");
    int n = 0;
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++)
        if (strcmp((*p)->exec, "host") == 0) printf("%s%s", n++ ? ", " : "", (*p)->name);
    printf("\n"
           "  --hmec-parts P      with --format hmec: most ELL parts before the CSR rest\n"
           "                      (1..8, default 2)\n");
    cli_tile_help();
    printf("  --json              print one JSON object instead of text\n");
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
        for (int k = 0; k < SPK_TILE_NKINDS; k++)
            printf("%s{\"format\": \"%s\", \"tiles\": %d, \"tiles_share\": %.6g, \"nnz\": %lld,"
                   " \"nnz_share\": %.6g}",
                   k ? ", " : "", spk_tile_kind_names[k], s->tiles[k], s->tiles[k] / tt, s->nnz[k],
                   s->nnz[k] / nn);
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
    return f == SPK_MM_REAL ? "real" : f == SPK_MM_INTEGER ? "integer" : "pattern";
}

static const char *sym_name(spk_mm_symmetry s)
{
    return s == SPK_MM_GENERAL ? "general" : s == SPK_MM_SYMMETRIC ? "symmetric" : "skew-symmetric";
}

int cmd_info(int argc, char **argv)
{
    const char *path = NULL, *format = NULL, *v = NULL;
    int json = 0, hmec_parts = 0, r;
    cli_tile_opts tile = {0};
    for (int i = 1; i < argc; i++) {
        if (cli_flag(argv[i], "help") || strcmp(argv[i], "-h") == 0) {
            help();
            return CLI_OK;
        } else if (cli_flag(argv[i], "json")) {
            json = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "format", &v))) {
            if (r < 0) return cli_usage_error("info", "--format needs a name");
            format = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "hmec-parts", &v))) {
            if (r < 0 || cli_parse_int(v, &hmec_parts) || hmec_parts < 1 || hmec_parts > 8)
                return cli_usage_error("info", "--hmec-parts needs an integer in [1, 8]");
        } else if ((r = cli_tile_option("info", argc, argv, &i, &tile))) {
            if (r < 0) return CLI_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("info", "unknown option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return cli_usage_error("info", "unexpected argument '%s' (one matrix file only)", argv[i]);
        }
    }
    if (!path) return cli_usage_error("info", "missing the matrix file");
    if (hmec_parts && (!format || strcmp(format, "hmec") != 0))
        return cli_usage_error("info", "--hmec-parts goes with --format hmec");
    if (tile.given && !is_tile_format(format))
        return cli_usage_error("info", "--tile-te, --tile-th and --tile-defer-nnz go with --format tile, "
                                       "tile-csr or tile-dcoo");

    spk_err e;
    spk_err_clear(&e);
    spk_csr A = {0};
    spk_mm_info mi;
    int *pos = NULL, rc = CLI_FAIL;
    if (spk_mm_read_csr(path, &A, &mi, &e)) {
        fprintf(stderr, "spk info: %s\n", e.msg);
        return CLI_FAIL;
    }
    int psym = 0, vsym = 0;
    if (spk_csr_symmetry(&A, 1e-12, &psym, &vsym, &e)) goto fail;
    int nd = A.nrows < A.ncols ? A.nrows : A.ncols;
    pos = spk_malloc((size_t)nd, sizeof(int), "diagonal positions", &e);
    if (!pos) goto fail;
    spk_csr sq = A;
    sq.nrows = nd;
    int missing = spk_csr_diag_pos(&sq, pos), dpos = 0, dzero = 0, dneg = 0;
    double dmin = INFINITY, dmax = -INFINITY, fro = 0;
    for (int i = 0; i < nd; i++) {
        if (pos[i] < 0) continue;
        double d = A.val[pos[i]];
        dpos += d > 0;
        dzero += d == 0;
        dneg += d < 0;
        dmin = fmin(dmin, d);
        dmax = fmax(dmax, d);
    }
    for (int k = 0; k < A.nnz; k++) fro += A.val[k] * A.val[k];
    fro = sqrt(fro);
    int dom = spk_csr_diag_dominant_rows(&A);
    spk_csr_rowstats rs;
    spk_csr_row_stats(&A, &rs);
    int square = A.nrows == A.ncols;
    int cg = square && vsym && missing == 0 && dpos == nd && nd > 0;
    const char *method = !square ? "none (not square)" : cg ? "cg + ic0" : "bicgstab + ilu0";
    /* the triangular solves' levels (IC(0)/ILU(0) keep A's pattern) */
    int lev_lo = square ? spk_csr_tri_levels(&A, 0) : 0, lev_up = square ? spk_csr_tri_levels(&A, 1) : 0;
    if (lev_lo < 0 || lev_up < 0) {
        spk_err_set(&e, SPK_ERR_NOMEM, "out of host memory (triangular levels)");
        goto fail;
    }
    /* what the GPU's "auto" format would consider */
    const char *cands[16];
    int timed = 0, ncand = spk_auto_candidates(&A, cands, 16, &timed);
    char autoc[256] = "";
    for (int i = 0, used = 0; i < ncand && used < (int)sizeof autoc; i++) {
        int w = snprintf(autoc + used, sizeof autoc - (size_t)used, "%s%s", i ? "," : "", cands[i]);
        if (w > 0) used += w;
    }
    char detail[512] = "";
    size_t fbytes = 0;
    spk_tile_stats ts;
    memset(&ts, 0, sizeof ts);
    spk_spmv_opts so;
    memset(&so, 0, sizeof so);
    so.hmec_parts = hmec_parts;
    cli_tile_to_spmv(&tile, &so);
    if (format && describe_format(&A, format, &so, detail, sizeof detail, &fbytes, &ts, &e)) goto fail;
    if (json) {
        printf("{\"file\": ");
        cli_json_string(stdout, path);
        printf(", \"rows\": %d, \"cols\": %d, \"entries_in_file\": %lld, \"nnz\": %d, \"field\": \"%s\","
               " \"header_symmetry\": \"%s\", \"pattern_symmetric\": %s, \"value_symmetric\": %s,"
               " \"diag_missing\": %d, \"diag_positive\": %d, \"diag_zero\": %d, \"diag_negative\": %d,",
               A.nrows, A.ncols, mi.entries, A.nnz, field_name(mi.field), sym_name(mi.symmetry),
               psym ? "true" : "false", vsym ? "true" : "false", missing, dpos, dzero, dneg);
        printf(" \"diag_min\": ");
        cli_json_number(stdout, dmin);
        printf(", \"diag_max\": ");
        cli_json_number(stdout, dmax);
        printf(", \"frobenius\": ");
        cli_json_number(stdout, fro);
        printf(", \"diag_dominant_rows\": %d, \"row_min\": %d, \"row_max\": %d, \"row_mean\": %.6g,"
               " \"row_std\": %.6g, \"empty_rows\": %d, \"method\": \"%s\"",
               dom, rs.min, rs.max, rs.mean, rs.std, rs.empty, method);
        if (square) printf(", \"levels_lower\": %d, \"levels_upper\": %d", lev_lo, lev_up);
        printf(", \"auto_candidates\": ");
        cli_json_string(stdout, autoc);
        printf(", \"auto_trials\": %s", timed ? "true" : "false");
        if (format) {
            printf(", \"format\": ");
            cli_json_string(stdout, format);
            printf(", \"format_detail\": ");
            cli_json_string(stdout, detail);
            printf(", \"format_bytes\": %zu", fbytes);
            if (is_tile_format(format)) print_tile_stats(&ts, 1);
        }
        printf("}\n");
    } else {
        printf("file        %s\n", path);
        printf("size        %d x %d%s\n", A.nrows, A.ncols, square ? "" : " (not square)");
        printf("nonzeros    %d (%lld entries in the file, %s %s)\n", A.nnz, mi.entries,
               field_name(mi.field), sym_name(mi.symmetry));
        printf("symmetry    pattern %s, values %s\n", psym ? "symmetric" : "nonsymmetric",
               vsym ? "symmetric" : "nonsymmetric");
        printf("diagonal    %d missing, %d positive, %d zero, %d negative", missing, dpos, dzero, dneg);
        if (nd - missing > 0) printf("; range [%.6g, %.6g]", dmin, dmax);
        printf("\n");
        printf("dominance   %d of %d rows diagonally dominant (|a_ii| >= sum |a_ij|)\n", dom, A.nrows);
        printf("rows        length min %d, max %d, mean %.2f, std %.2f; %d empty\n", rs.min, rs.max,
               rs.mean, rs.std, rs.empty);
        printf("norm        ||A||_F = %.6g\n", fro);
        printf("method      spk solve would use %s\n", method);
        if (square)
            printf("levels      triangular solves: %d steps with the lower triangle, %d with the upper "
                   "(%.1f rows per step)\n",
                   lev_lo, lev_up, A.nrows / (double)(lev_lo > lev_up ? lev_lo : lev_up > 0 ? lev_up : 1));
        if (timed)
            printf("auto        on the GPU, timed trials among %s\n", autoc);
        else
            printf("auto        on the GPU, %s by the rule on the row lengths%s%s%s\n", cands[0],
                   ncand > 1 ? " (then " : "", ncand > 1 ? strchr(autoc, ',') + 1 : "", ncand > 1 ? " if refused)" : "");
        if (format) {
            printf("format      %s%s%s\n", format, detail[0] ? ": " : "", detail);
            printf("            %zu bytes of arrays on the host\n", fbytes);
            if (is_tile_format(format)) print_tile_stats(&ts, 0);
        }
    }
    rc = CLI_OK;
    goto done;
fail:
    fprintf(stderr, "spk info: %s: %s\n", path, e.msg);
done:
    free(pos);
    spk_csr_free(&A);
    return rc;
}
