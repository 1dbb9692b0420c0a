/* cli.c -- option parsing and output helpers shared by the subcommands. */
#include "cli.h"

#include "spk.h"
#include "spmv/spmv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "spk %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'spk %s --help'.\n", cmd);
    return CLI_USAGE;
}

int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, n) != 0) return 0;
    if (a[2 + n] == '=') {
        *val = a + 3 + n;
        return 1;
    }
    if (a[2 + n] != '\0') return 0;
    if (*i + 1 >= argc) return -1;
    *val = argv[++*i];
    return 1;
}

int cli_flag(const char *arg, const char *name)
{
    return strncmp(arg, "--", 2) == 0 && strcmp(arg + 2, name) == 0;
}

int cli_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) return 1;
    *out = v;
    return 0;
}

int cli_parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX) return 1;
    *out = (int)v;
    return 0;
}

int cli_reorder_option(const char *cmd, int argc, char **argv, int *i, int *reorder, int *block)
{
    static const struct {
        const char *name;
        int value;
    } kinds[] = {{"none", SPK_REORDER_NONE},
                 {"multicolor", SPK_REORDER_MULTICOLOR},
                 {"block-multicolor", SPK_REORDER_BLOCK_MULTICOLOR}};
    const char *v = NULL;
    int r;
    if ((r = cli_opt_value(argc, argv, i, "reorder", &v))) {
        for (size_t k = 0; r > 0 && k < sizeof kinds / sizeof kinds[0]; k++)
            if (strcmp(v, kinds[k].name) == 0) {
                *reorder = kinds[k].value;
                return 1;
            }
        cli_usage_error(cmd, "--reorder needs none, multicolor or block-multicolor");
        return -1;
    }
    if ((r = cli_opt_value(argc, argv, i, "reorder-block", &v))) {
        if (r < 0 || cli_parse_int(v, block) || *block < 1 || *block > 1000000) {
            cli_usage_error(cmd, "--reorder-block needs an integer in [1, 1000000]");
            return -1;
        }
        return 1;
    }
    return 0;
}

int cli_precision_of(const char *v)
{
    return !strcmp(v, "auto")     ? SPK_PRECISION_AUTO
           : !strcmp(v, "double") ? SPK_PRECISION_DOUBLE
           : !strcmp(v, "float")  ? SPK_PRECISION_FLOAT
                                  : -1;
}

const char *cli_precision_name(int p)
{
    return p == SPK_PRECISION_FLOAT ? "float" : p == SPK_PRECISION_DOUBLE ? "double" : "auto";
}

const char *cli_vector_ops_name(int ops)
{
    return ops == SPK_VECTOR_BLOCK   ? "block"
           : ops == SPK_VECTOR_GRAPH ? "graph"
           : ops == SPK_VECTOR_FUSED ? "fused"
                                     : "classic";
}

int cli_vector_ops_option(const char *cmd, int argc, char **argv, int *i, int *ops)
{
    const char *v = NULL;
    int r = cli_opt_value(argc, argv, i, "vector-ops", &v);
    if (!r) return 0;
    if (r > 0 && strcmp(v, "fused") == 0) {
        *ops = SPK_VECTOR_FUSED;
        return 1;
    }
    if (r > 0 && strcmp(v, "graph") == 0) {
        *ops = SPK_VECTOR_GRAPH;
        return 1;
    }
    if (r > 0 && strcmp(v, "block") == 0) {
        *ops = SPK_VECTOR_BLOCK;
        return 1;
    }
    if (r > 0 && (strcmp(v, "classic") == 0 || strcmp(v, "cublas") == 0)) {
        *ops = SPK_VECTOR_CLASSIC;
        return 1;
    }
    cli_usage_error(cmd, "--vector-ops needs block, graph, fused or classic (cublas)");
    return -1;
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void cli_json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

int cli_tile_option(const char *cmd, int argc, char **argv, int *i, cli_tile_opts *t)
{
    const char *v = NULL;
    int r;
    double d;
    static const char *const thr[2] = {"tile-te", "tile-th"};
    for (int k = 0; k < 2; k++) {
        if (!(r = cli_opt_value(argc, argv, i, thr[k], &v))) continue;
        if (r < 0 || cli_parse_double(v, &d) || !(d > 0) || !isfinite(d)) {
            cli_usage_error(cmd, "--%s needs a number > 0", thr[k]);
            return -1;
        }
        *(k == 0 ? &t->te : &t->th) = d;
        t->given = 1;
        return 1;
    }
    static const char *const ints[3] = {"sell-c", "sell-sigma", "bcsr-block"};
    static const int lo[3] = {1, 1, 1}, hi[3] = {1024, 1 << 24, 32};
    for (int k = 0; k < 3; k++) {
        if (!(r = cli_opt_value(argc, argv, i, ints[k], &v))) continue;
        int n = 0;
        if (r < 0 || cli_parse_int(v, &n) || n < lo[k] || n > hi[k]) {
            cli_usage_error(cmd, "--%s needs an integer in [%d, %d]", ints[k], lo[k], hi[k]);
            return -1;
        }
        *(k == 0 ? &t->sell_c : k == 1 ? &t->sell_sigma : &t->bcsr_block) = n;
        return 1;
    }
    if ((r = cli_opt_value(argc, argv, i, "tile-defer-nnz", &v))) {
        char *end = NULL;
        long long n = r < 0 ? 0 : strtoll(v, &end, 10);
        if (r < 0 || !end || *end || end == v || n == 0) {
            cli_usage_error(cmd, "--tile-defer-nnz needs a nonzero count (< 0: never defer)");
            return -1;
        }
        t->defer_nnz = n;
        t->given = 1;
        return 1;
    }
    return 0;
}

void cli_tile_help(void)
{
    printf("  --tile-te X         formats tile, tile-dcoo: a tile is ELL when its row-length\n"
           "                      variation (std/mean) is <= X (default 0.2)\n"
           "  --tile-th X         ... and HYB when it is >= X (default 1.0); CSR in between\n"
           "  --tile-defer-nnz N  format tile: move COO entries to a separate CSR matrix above N\n"
           "                      nonzeros (default 1800000; < 0: never)\n"
           "  --sell-c C          formats sell, cusparse-sell: rows per slice (default 32)\n"
           "  --sell-sigma S      format sell: rows sorted by length inside windows of S rows\n"
           "                      (default 256; 1: not sorted; else a multiple of C)\n"
           "  --bcsr-block B      formats bcsr, cusparse-bsr, sbcsr: B x B blocks (1..32, default 4)\n");
}

void cli_tile_to_options(const cli_tile_opts *t, spk_options *o)
{
    o->tile_te = t->te;
    o->tile_th = t->th;
    o->tile_defer_nnz = t->defer_nnz;
    o->sell_c = t->sell_c;
    o->sell_sigma = t->sell_sigma;
    o->bcsr_block = t->bcsr_block;
}

void cli_tile_to_spmv(const cli_tile_opts *t, spk_spmv_opts *o)
{
    o->tile_te = t->te;
    o->tile_th = t->th;
    o->tile_defer_nnz = t->defer_nnz;
    o->sell_c = t->sell_c;
    o->sell_sigma = t->sell_sigma;
    o->bcsr_block = t->bcsr_block;
}
