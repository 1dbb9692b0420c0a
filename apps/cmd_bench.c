/* cmd_bench.c -- `spk bench`: SpMV (and with --solve, solve) time of every
 * format on each matrix, next to the baseline format from the same run.
 *
 * For each matrix and format: the conversion (setup) time and device bytes;
 * the product checked against the host CSR product; its time as the median
 * of at least --repeat samples, and of as many as fit in --min-time seconds
 * of measuring (CUDA events on the GPU), once back to back ("hot": each
 * sample a batch of calls taking about 50 us, timed together and divided,
 * as a solver issues them, so that one call's launch latency and the
 * timestamps' jitter do not swamp a product of a few microseconds) and once
 * with the caches evicted before every call, each timed alone ("cold");
 * GFLOP/s (2 nnz); the effective bandwidth by the CSR traffic model
 * 12 nnz + 4 (rows+1) + 8 cols + 8 rows and by the format's own bytes +
 * 8 cols + 8 rows; its fraction of the copy bandwidth measured at the start
 * of the run; the speedup over the baseline ("cusparse" on the GPU, "csr" on
 * the host).  A matrix whose CSR traffic fits in the last-level cache (the
 * GPU's L2) is in the "cache" regime: its hot times measure latency, and its
 * cold times are the ones to set against memory bandwidth; otherwise the
 * regime is "memory".
 *
 * With --solve, each format is the SpMV of a solve with spk's automatic
 * choice (CG + IC(0) for a symmetric matrix with a positive diagonal,
 * BiCGStab + ILU(0) otherwise), b = A*1 (or A x* for a random x*,
 * --rhs-kind): iterations, true residual, setup,
 * solve, time per iteration and its split, speedup over the baseline's
 * solve. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "core/parallel.h"
#include "io/gen.h"
#include "io/mmio.h"
#include "io/rhs.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#endif

static const spk_opt_name precision_names[] = {{"double", 0}, {"float", 1}, {NULL, 0}};

/* The command's own options, stored in struct bench. */
static const spk_opt bench_keys[] = {
    {.key = "formats", CLI_ARG(bench, formats), .type = SPK_OPT_STRING, .meta = "LIST",
     .help = "all (the default) or a comma-separated list; the baseline always runs"},
    {.key = "solve", CLI_ARG(bench, solve), .type = SPK_OPT_FLAG,
     .help = "also solve A x = b (b = A*1 or per --rhs-kind) with each format as the SpMV (CG + IC(0) or BiCGStab + ILU(0), as spk solve "
             "chooses; the race only with --race), with the solver options below"},
    {.key = "repeat", CLI_ARG(bench, repeat), .type = SPK_OPT_INT, .min = 1, .max = 1e9, .def = 10, .meta = "N",
     .help = "at least N timed samples per measurement"},
    {.key = "min-time", CLI_ARG(bench, min_time), .type = SPK_OPT_DOUBLE, .min = 0, .max = 3600, .def = 0.2,
     .meta = "S", .help = "and as many as S seconds of measuring allow"},
    {.key = "solve-repeat", CLI_ARG(bench, solve_repeat), .type = SPK_OPT_INT, .min = 1, .max = 15, .def = 1,
     .meta = "N", .help = "set up and solve each system N times and report the run with the median time to solution"},
    {.key = "solve-config", CLI_ARG(bench, arg), .type = SPK_OPT_STRING, .meta = "C", .help = bench_cfg_keys_help},
    {.key = "device", CLI_ARG(bench, device), .type = SPK_OPT_ENUM, .names = cli_device_names, .meta = "D",
     .help = "where to run (auto: the GPU when usable)"},
    {.key = "threads", CLI_ARG(bench, threads), .type = SPK_OPT_INT, .min = 0, .max = 4096, .def = 0, .meta = "N",
     .help = "the host threads (OpenMP) of the host's products and solves and of the copy bandwidth's "
             "measure; 0: OMP_NUM_THREADS, else every core"},
    {.key = "dir", CLI_ARG(bench, arg), .type = SPK_OPT_STRING, .meta = "DIR",
     .help = "every .mtx / .mtx.gz file in DIR, in name order"},
    {.key = "list", CLI_ARG(bench, arg), .type = SPK_OPT_STRING, .meta = "FILE",
     .help = "the matrices named in FILE, one a line: a file (relative to FILE's folder) or gen:SPEC as the "
             "first word, other words free; blank lines and lines starting with # skipped (e.g. "
             "bench/corpus.txt)"},
    {.key = "list-tag", CLI_ARG(bench, list_tag), .type = SPK_OPT_STRING, .meta = "WORD",
     .help = "only the lines of --list files that carry WORD after the matrix (e.g. train or test)"},
    {.key = "rhs-kind", CLI_ARG(bench, rhs_kind), .type = SPK_OPT_STRING, .meta = "K",
     .help = "the solves' b = A x*: ones (x* = 1, the default) or random[:SEED] (x* uniform in [-1, 1) from "
             "SEED, 1 by default)"},
    {.key = "floors", CLI_ARG(bench, floors), .type = SPK_OPT_FLAG,
     .help = "also measure the executor's fixed costs (alone: without matrices): an empty kernel back to back, "
             "queueing one, one with a synchronize, with an 8-byte readback, inside a CUDA graph, and uploads "
             "from pageable, pinned and registered memory"},
    {.key = "precision", CLI_ARG(bench, single), .type = SPK_OPT_ENUM, .names = precision_names, .meta = "P",
     .help = "float: the products in single precision, every format storing its values in float (indices "
             "unchanged), x and y float, cuSPARSE in CUDA_R_32F; each product is checked against the double CSR "
             "product row by row with the bound of float summation, (row length + 5) 2^-24 sum_j |a_ij x_j|, "
             "and the CSR traffic model counts 4-byte values (no solves in float)"},
    {.key = "csv", CLI_ARG(bench, csv), .type = SPK_OPT_STRING, .meta = "FILE",
     .help = "one row per matrix and format"},
    {.key = "json", CLI_ARG(bench, json), .type = SPK_OPT_STRING, .meta = "FILE",
     .help = "everything, for scripts/bench_plots.py"},
    {.key = "quiet", CLI_ARG(bench, quiet), .type = SPK_OPT_FLAG, .help = "no progress lines on stderr"},
};
static const spk_opt_table bench_options = {"bench", bench_keys, (int)(sizeof bench_keys / sizeof *bench_keys),
                                            NULL};

static void help(const cli_parser *p)
{
    printf("usage: spk bench [options] (MATRIX.mtx[.gz] | gen:SPEC | --dir DIR | --list FILE)...\n"
           "\n"
           "Time the SpMV of every format (and with --solve, a solve with each format as the\n"
           "SpMV) on each matrix, next to the baseline format (cusparse on the GPU, csr on the\n"
           "host) from the same run.  gen:SPEC makes a model problem in memory (see spk gen\n"
           "--help), e.g. gen:poisson3d-27:120 or gen:powerlaw:1000000.  --dir, --list and\n"
           "--solve-config may be given several times.\n"
           "\n"
           "options:\n");
    cli_print_options(p);
    printf("\n"
           "Per format: setup (conversion) ms, device MB, the median ms of a product back to\n"
           "back (hot: batches of products of about 50 us each, timed together) and with the\n"
           "caches flushed before each product (cold, timed alone), GFLOP/s, GB/s by\n"
           "the CSR traffic model and by the format's own bytes, their fraction of the copy\n"
           "bandwidth measured at the start, and the speedup over the baseline.  A matrix in the\n"
           "'cache' regime fits in the cache (the GPU's L2): hot times measure latency there.\n");
}

/* The matrices to run: files, gen: specs, --dir folders and --list files, in order. */
typedef struct sources {
    const char **src;
    int *isdir; /* 0: a matrix, 1: a folder, 2: a list file */
    int n;
} sources;

/* What bench takes from argv besides its options' values. */
typedef struct bench_words {
    bench *b;
    sources *s;
    const char *specs[MAX_CONFIGS];
} bench_words;

/* A word that is no option: a matrix or gen:SPEC; after --dir its folder,
 * after --solve-config its specification. */
static int bench_word(cli_parser *p, const char *word, void *arg)
{
    bench_words *w = arg;
    if (word) {
        w->s->src[w->s->n++] = word;
    } else if (strcmp(p->last->key, "dir") == 0 || strcmp(p->last->key, "list") == 0) {
        w->s->isdir[w->s->n] = strcmp(p->last->key, "dir") == 0 ? 1 : 2;
        w->s->src[w->s->n++] = w->b->arg;
    } else if (strcmp(p->last->key, "solve-config") == 0) {
        if (w->b->ncfg == MAX_CONFIGS) return cli_usage_error("bench", "at most %d --solve-config", MAX_CONFIGS);
        w->specs[w->b->ncfg++] = w->b->arg;
    }
    return CLI_OK;
}

/* Parse argv into b and s; CLI_OK, CLI_USAGE, or -1 after --help. */
static int parse(int argc, char **argv, bench *b, sources *s)
{
    cli_parser p = {.cmd = "bench", .own = &bench_options, .args = b, .o = &b->o, .owners = "solver,precond,spmv"};
    bench_words w = {.b = b, .s = s};
    const char **specs = w.specs;
    const int r = cli_parse_args(&p, argc, argv, bench_word, &w);
    if (r == CLI_HELP) help(&p);
    if (r) return r == CLI_HELP ? -1 : r;
    if (cli_check_options(&p)) return CLI_USAGE;
    b->race_given = cli_given(&p, "race");
    /* the configurations change the run's options, all of them read by now */
    for (int k = 0; k < b->ncfg; k++)
        if (bench_parse_cfg(&b->o, specs[k], &b->cfg[k])) return CLI_USAGE;
    if (b->single && (b->solve || b->ncfg))
        return cli_usage_error("bench", "--precision float times the products only: the solvers run in double "
                                        "(drop --solve and --solve-config, or bench the solves in another run)");
    if (!s->n && !b->floors)
        return cli_usage_error("bench", "no matrix: give files, gen:SPEC, --dir DIR or --list FILE (or --floors "
                                        "alone)");
    if (spk_rhs_kind_parse(b->rhs_kind, &b->rhs, &b->err))
        return cli_usage_error("bench", "--rhs-kind: %s", b->err.msg);
    return CLI_OK;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), c = strlen(suf);
    return a >= c && strcmp(s + a - c, suf) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of dir, sorted; *n of them (caller frees each and the array). */
static char **list_dir(const char *dir, int *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **v = NULL;
    int cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!has_suffix(de->d_name, ".mtx") && !has_suffix(de->d_name, ".mtx.gz")) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            char **w = realloc(v, (size_t)cap * sizeof *v);
            if (!w) break;
            v = w;
        }
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        v[*n] = malloc(len);
        if (!v[*n]) break;
        snprintf(v[*n], len, "%s/%s", dir, de->d_name);
        (*n)++;
    }
    closedir(d);
    if (v) qsort(v, (size_t)*n, sizeof *v, cmp_str);
    return v;
}

/* Append the matrix named by the line's first word to v (a file relative to
 * the list's folder, the first dlen bytes of path); 0, or -1 out of memory. */
static int list_add(char ***v, int *n, int *cap, const char *path, size_t dlen, const char *word, size_t wlen)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        char **w = realloc(*v, (size_t)*cap * sizeof **v);
        if (!w) return -1;
        *v = w;
    }
    const int rel = word[0] != '/' && strncmp(word, "gen:", 4) != 0;
    const size_t len = (rel ? dlen : 0) + wlen + 1;
    char *m = malloc(len);
    if (!m) return -1;
    snprintf(m, len, "%.*s%.*s", rel ? (int)dlen : 0, path, (int)wlen, word);
    (*v)[(*n)++] = m;
    return 0;
}

/* The matrices of a list file, in its order, those of lines carrying tag
 * only (NULL: all); *n of them (caller frees each and the array).  NULL
 * with *n = -1 when the file cannot be read. */
static char **list_file(const char *path, const char *tag, int *n)
{
    *n = -1;
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    const char *slash = strrchr(path, '/');
    const size_t dlen = slash ? (size_t)(slash - path + 1) : 0;
    char **v = NULL, line[4096];
    int cap = 0;
    *n = 0;
    while (fgets(line, sizeof line, f)) {
        const char *sep = " \t\r\n";
        char *w = line + strspn(line, sep);
        if (!*w || *w == '#') continue;
        const size_t wlen = strcspn(w, sep);
        int want = !tag;
        for (char *t = w + wlen; !want && *(t += strspn(t, sep)); t += strcspn(t, sep))
            want = strcspn(t, sep) == strlen(tag) && strncmp(t, tag, strlen(tag)) == 0;
        if (want && list_add(&v, n, &cap, path, dlen, w, wlen)) break;
    }
    fclose(f);
    return v ? v : calloc(1, sizeof *v);
}

/* The matrices of source i: a folder's files or a list's entries. */
static char **expand_source(const bench *b, const sources *s, int i, int *n)
{
    return s->isdir[i] == 1 ? list_dir(s->src[i], n) : list_file(s->src[i], b->list_tag, n);
}

/* Select the formats of LIST ("all" or a,b,c) for the executor, baseline first. */
static int select_formats(bench *b, const char *list)
{
    const char *base = bench_baseline(b);
    b->nfmts = 0;
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++)
        if (strcmp((*p)->exec, b->ex->ops->name) == 0 && strcmp((*p)->name, base) == 0) b->fmts[b->nfmts++] = *p;
    int all = !list || strcmp(list, "all") == 0;
    if (!all) { /* every listed name must exist here */
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", list);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            const struct spk_spmv_ops *ops = NULL;
            int found = 0;
            for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++)
                found |= strcmp((*p)->exec, b->ex->ops->name) == 0 && strcmp((*p)->name, tok) == 0;
            if (!found) {
                spk_spmv_find(tok, b->ex, &ops, &b->err);
                return cli_usage_error("bench", "--formats: %s", b->err.msg[0] ? b->err.msg : tok);
            }
        }
    }
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p && b->nfmts < 64; p++) {
        if (strcmp((*p)->exec, b->ex->ops->name) != 0 || strcmp((*p)->name, base) == 0) continue;
        int want = all;
        if (!all) {
            size_t n = strlen((*p)->name);
            for (const char *q = list; (q = strstr(q, (*p)->name)) != NULL; q++)
                if ((q == list || q[-1] == ',') && (q[n] == ',' || q[n] == '\0')) want = 1;
        }
        if (want) b->fmts[b->nfmts++] = *p;
    }
    return CLI_OK;
}


/* The context of the solves (it decides the device), the executor of the
 * products on the same device, its timer, copy bandwidth and cache, and the
 * formats; CLI_OK, or the exit code after printing why not. */
static int start(bench *b)
{
    b->host_threads = spk_host_set_threads(b->threads); /* the products here and the solves' context */
    int st = spk_context_create(&b->ctx, (spk_device)b->device);
    if (!st) st = spk_context_set_threads(b->ctx, b->threads);
    if (st) {
        fprintf(stderr, "spk bench: %s\n",
                st == SPK_ERR_DEVICE ? "no usable CUDA device (use --device cpu)" : spk_status_name(st));
        return CLI_FAIL;
    }
    if (strcmp(spk_context_device(b->ctx), "cuda") == 0) {
#ifdef SPK_HAVE_CUDA
        st = spk_exec_cuda_create(&b->err, &b->ex);
#else
        st = SPK_ERR_DEVICE;
#endif
    } else {
        st = spk_exec_host_create(&b->err, &b->ex);
    }
    if (!st) st = spk_timer_create(b->ex, 1, &b->timer);
    if (!st) st = spk_exec_copy_bandwidth(b->ex, &b->copy_gbs);
    if (st) {
        fprintf(stderr, "spk bench: %s\n", b->err.msg);
        return CLI_FAIL;
    }
    if ((st = select_formats(b, b->formats))) return st;
    b->cache = spk_exec_cache_bytes(b->ex);
    spk_exec_device_name(b->ex, b->devname, sizeof b->devname);
    return CLI_OK;
}

/* Count the matrices for the progress lines; CLI_FAIL for a folder that cannot be read. */
static int count_matrices(bench *b, const sources *s)
{
    for (int i = 0; i < s->n; i++) {
        if (!s->isdir[i]) {
            b->total++;
            continue;
        }
        int n = 0;
        char **files = expand_source(b, s, i, &n);
        if (!files) {
            fprintf(stderr, "spk bench: cannot read the %s %s\n", s->isdir[i] == 1 ? "folder" : "list file",
                    s->src[i]);
            return CLI_FAIL;
        }
        b->total += n;
        for (int k = 0; k < n; k++) free(files[k]);
        free(files);
    }
    return CLI_OK;
}

/* Read and bench every matrix; 1 when one could not be read or run.  Over
 * a folder or a list, a progress line on a terminal (bench_status). */
static int run_sources(bench *b, const sources *s)
{
    int bad = 0, many = 0;
    for (int i = 0; i < s->n; i++) many |= s->isdir[i] != 0;
    cli_progress_start(&b->prog, many && !b->quiet);
    for (int i = 0; i < s->n; i++) {
        int n = 1;
        char **files = s->isdir[i] ? expand_source(b, s, i, &n) : NULL;
        for (int k = 0; k < n; k++) {
            const char *name = s->isdir[i] ? files[k] : s->src[i];
            const int gen = strncmp(name, "gen:", 4) == 0;
            spk_csr A = {0};
            spk_err_clear(&b->err);
            b->at++;
            b->cur = name;
            bench_status(b, 1);
            const int cplx = cli_complex_input("bench", name);
            int st = cplx ? SPK_ERR_UNSUPPORTED
                     : gen ? spk_gen_spec(name + 4, &A, &b->err)
                           : spk_mm_read_csr(name, &A, NULL, &b->err);
            if (cplx) {
                bad = 1;
                b->total--;
                b->at--;
            } else if (st) {
                cli_progress_clear(&b->prog);
                fprintf(stderr, "spk bench: %s: %s\n", name, b->err.msg);
                bad = 1;
                b->total--;
                b->at--;
            } else if (bench_matrix(b, gen ? name + 4 : name, &A)) {
                cli_progress_clear(&b->prog);
                fprintf(stderr, "spk bench: %s: %s\n", name, b->err.msg);
                bad = 1;
            }
            spk_csr_free(&A);
            if (s->isdir[i]) free(files[k]);
        }
        free(files);
    }
    cli_progress_clear(&b->prog);
    b->cur = NULL;
    return bad;
}

int cmd_bench(int argc, char **argv)
{
    bench b;
    memset(&b, 0, sizeof b);
    spk_opt_defaults(&bench_options, SPK_OPT_PUBLIC, &b);
    spk_options_default(&b.o);
    sources s = {calloc((size_t)argc + 1, sizeof *s.src), calloc((size_t)argc + 1, sizeof *s.isdir), 0};
    int rc = CLI_FAIL;
    if (!s.src || !s.isdir) {
        fprintf(stderr, "spk bench: out of host memory\n");
        goto out;
    }
    if ((rc = parse(argc, argv, &b, &s)) != CLI_OK) {
        rc = rc < 0 ? CLI_OK : rc;
        goto out;
    }
    if ((rc = start(&b)) != CLI_OK || (rc = count_matrices(&b, &s)) != CLI_OK) goto out;
    bench_add_ref(&b);
    printf("spk bench on %s (%s executor, %d host threads): copy bandwidth %.0f GB/s (read + write), cache %.1f MB, "
           "baseline %s, products in %s\n",
           b.devname, b.ex->ops->name, b.host_threads, b.copy_gbs, (double)b.cache / 1e6, bench_baseline(&b),
           b.single ? "float" : "double");
    if (bench_has_ref(&b))
        printf("solves against ref: CG + IC(0) or BiCGStab + ILU(0) directly on cuSPARSE and cuBLAS, A uploaded "
               "once and timed apart; every time to solution leaves out the upload of A\n");
    else if (b.ref_absent)
        printf("no baseline ref (the cuSPARSE + cuBLAS solve): %s\n", b.ref_absent);
    printf("\n");
    if (b.floors) {
        if (spk_exec_floors(b.ex, &b.fl)) {
            fprintf(stderr, "spk bench: floors: %s\n", b.err.msg);
            rc = CLI_FAIL;
            goto out;
        }
        bench_print_floors(&b);
    }
    int bad = run_sources(&b, &s);
    if (b.nm || s.n) bench_print_summary(&b);
    if (b.ncfg) bench_print_config_summary(&b);
    if (b.json && bench_write_json(&b, b.json, argc, argv)) {
        fprintf(stderr, "spk bench: %s\n", b.err.msg);
        bad = 1;
    }
    if (b.csv && bench_write_csv(&b, b.csv)) {
        fprintf(stderr, "spk bench: %s\n", b.err.msg);
        bad = 1;
    }
    rc = bad ? CLI_FAIL : CLI_OK;
out:
    free(s.src);
    free(s.isdir);
    free(b.m);
    spk_timer_destroy(b.timer);
    spk_exec_destroy(b.ex);
    spk_context_destroy(b.ctx);
    return rc;
}
