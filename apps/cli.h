/* cli.h -- what the spk subcommands share: option parsing, usage errors,
 * number parsing, JSON string output. */
#ifndef SPK_APPS_CLI_H
#define SPK_APPS_CLI_H

#include <stdio.h>

/* Exit codes: 0 success, 1 failure (bad file, no convergence), 2 usage error. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Print "spk CMD: message" and a hint to stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* If argv[*i] is "--name" or "--name=value": for options with a value, set
 * *val (taken from "=value" or the next argument, advancing *i) and return 1;
 * return -1 when the value is missing; 0 when argv[*i] is another word. */
int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **val);
/* 1 if argv[i] is exactly "--name". */
int cli_flag(const char *arg, const char *name);

/* Strict number parsing: the whole string must be a number; 0 on success. */
int cli_parse_double(const char *s, double *out);
int cli_parse_int(const char *s, int *out);
/* --reorder none|multicolor|block-multicolor and --reorder-block B at argv[*i]
 * for subcommand cmd: 1 when one was taken (into *reorder, *block), 0 when
 * argv[*i] is neither, -1 after a usage error (printed). */
int cli_reorder_option(const char *cmd, int argc, char **argv, int *i, int *reorder, int *block);
/* --vector-ops block|graph|fused|classic (cublas: classic) for solve and bench: 1 when
 * argv[*i] was it (into *ops), 0 when not, -1 after a usage error. */
int cli_vector_ops_option(const char *cmd, int argc, char **argv, int *i, int *ops);
/* "classic", "fused", "graph" or "block" */
const char *cli_vector_ops_name(int ops);
/* spk_options.precond_precision of "auto", "double" or "float" (-1: none of
 * them), and the name of one */
int cli_precision_of(const char *v);
const char *cli_precision_name(int p);

/* The format options shared by solve, info and bench: the tile formats'
 * (--tile-te, --tile-th, --tile-defer-nnz; `given`), SELL-C-sigma's
 * (--sell-c, --sell-sigma) and the block size of the blocked CSR formats
 * (--bcsr-block); zero means the format's default. */
typedef struct cli_tile_opts {
    double te, th;
    long long defer_nnz;
    int given;
    int sell_c, sell_sigma, bcsr_block;
} cli_tile_opts;
/* 1 when argv[*i] is one of those options (stored in t), 0 when not, -1
 * after printing a usage error for a bad value. */
int cli_tile_option(const char *cmd, int argc, char **argv, int *i, cli_tile_opts *t);
/* Their lines of --help. */
void cli_tile_help(void);
/* Those options into the solver's options and into a backend's. */
struct spk_options;
struct spk_spmv_opts;
void cli_tile_to_options(const cli_tile_opts *t, struct spk_options *o);
void cli_tile_to_spmv(const cli_tile_opts *t, struct spk_spmv_opts *o);

/* Write s as a JSON string literal (quotes and escapes included). */
void cli_json_string(FILE *f, const char *s);
/* Write a double as JSON (null for NaN/Inf). */
void cli_json_number(FILE *f, double v);

int cmd_solve(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
