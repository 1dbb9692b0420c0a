/* bench.h -- what the files of `spk bench` share: the run's settings, the
 * results of each matrix and format, and the functions of each part:
 *   cmd_bench.c     the command: its options, the matrices, the run
 *   bench_config.c  the solve configurations (--solve-config NAME:key=value,...)
 *   bench_run.c     the harness: each format's product and solve, measured
 *   bench_report.c  the text report and the figures derived from the results
 *   bench_json.c    the JSON and CSV files
 *   bench_ref.c     the baseline "ref" on cuSPARSE and cuBLAS (built with CUDA only) */
#ifndef SPK_APPS_BENCH_H
#define SPK_APPS_BENCH_H

#include <stddef.h>

#include "cli.h"
#include "core/csr.h"
#include "core/exec.h"
#include "core/timing.h"
#include "io/rhs.h"
#include "spk.h"
#include "spmv/spmv.h"

/* One format on one matrix (or one configuration's solve). */
typedef struct fmt_result {
    const struct spk_spmv_ops *ops;
    int status;              /* SPK_OK, or why it did not run */
    char note[512];          /* the format's description, or the refusal / failure */
    double setup_ms, upload_ms, mbytes, rel_err; /* upload_ms: of setup_ms, the upload of A (0: unknown) */
    double hot_ms, cold_ms;
    int hot_calls, cold_calls, hot_batch;
    char chose[32];          /* auto: the format it chose */
    int solved;              /* a solve was attempted */
    int solve_status, iterations;
    int colors, levels_lower, levels_upper; /* of the matrix solved (reordered or not) */
    char method[16], precond[16], solve_note[256];
    char choice[512];        /* spk_solver_choice: why the probe chose the preconditioner ("" none) */
    char factorization[96];  /* spk_solver_factorization ("" none) */
    int phases;              /* spk_solver_factor_phases: how many, their names and ms */
    const char *phase_name[8];
    double phase_ms[8];
    int sweeps; /* spk_solver_precond_sweeps */
    double true_relres, s_setup_ms, s_ms, s_spmv_ms, s_precond_ms, s_vector_ms;
    double s_sync_ms;        /* fused vector steps: the solve's launches and waits */
    double s_format_ms;      /* of s_setup_ms, the SpMV format's (spk_result.t_setup_format) */
    double s_pc_setup_ms;    /* ... and the preconditioner's (spk_result.t_setup_precond) */
    int graph_iterations;    /* spk_result.graph_iterations */
    int block_iterations;    /* spk_result.block_iterations */
    int block_cluster;       /* spk_result.block_cluster */
    int race;                /* spk_result.race */
    double s_upload_ms;      /* the upload of A: in s_setup_ms (spk_result.t_setup_upload), or for
                                the baseline ref timed apart, not in s_setup_ms (s_upload_apart) */
    int s_upload_apart;
} fmt_result;

#define MAX_CONFIGS 8 /* given by --solve-config; the baseline ref comes in addition */

/* A solve configuration (--solve-config NAME:key=value,...): the run's
 * options with some keys changed, compared in one run. */
typedef struct solve_cfg {
    char name[32];
    spk_options o;           /* o.format: NULL, the executor's default */
    int precond;             /* spk_precond_kind (SPK_PRECOND_AUTO: as spk solve chooses) */
    int builtin;             /* the baseline ref (bench_ref.c), not spk's solver */
} solve_cfg;

typedef struct mat_result {
    char name[256];
    int rows, cols, nnz;
    double traffic;          /* the CSR traffic model, bytes */
    int cache_regime;
    int nf;
    fmt_result f[64];
    fmt_result c[MAX_CONFIGS + 1]; /* the solves of the configurations (ops unused) */
} mat_result;

typedef struct bench {
    /* the command's own options (cmd_bench.c's table) */
    const char *formats, *csv, *json, *arg; /* arg: the last --dir, --list or --solve-config */
    const char *list_tag, *rhs_kind;
    spk_rhs_kind rhs;        /* --rhs-kind parsed */
    int solve, repeat, solve_repeat, single, floors, quiet, device;
    double min_time;
    /* the solves' options (the library's keys on the command line) */
    spk_options o;
    int race_given;          /* --race given: the per-format solves race too */
    solve_cfg cfg[MAX_CONFIGS + 1]; /* --solve-config: solves compared by configuration,
                                       after the baseline ref where it runs */
    int ncfg;
    const char *ref_absent;  /* why the baseline ref does not run (NULL: it runs, or no solves) */
    /* the run */
    spk_exec *ex;
    spk_err err;
    spk_context *ctx;        /* the solves */
    spk_timer *timer;
    const struct spk_spmv_ops *fmts[64];
    int nfmts;
    spk_floors fl;
    double copy_gbs;
    int threads;             /* --threads: the host's threads (0: the default); in use: host_threads */
    int host_threads;
    size_t cache;
    char devname[128];
    mat_result *m;
    int nm, cap, total;
    cli_progress prog;       /* the progress line over a folder or list (a terminal only) */
    int at;                  /* ... the matrix being run, 1-based */
    const char *cur;         /* ... its name */
} bench;

/* bench_config.c: NAME[:key=value,...] into c, from the run's options; 0,
 * or CLI_USAGE after printing why not. */
int bench_parse_cfg(const spk_options *base, const char *spec, solve_cfg *c);
/* The help lines of --solve-config's keys beyond the library's. */
extern const char bench_cfg_keys_help[];
/* With solves on the GPU, the baseline ref as configuration 0; otherwise
 * b->ref_absent says why not. */
void bench_add_ref(bench *b);
/* Has the run the baseline ref (configuration 0)? */
int bench_has_ref(const bench *b);

/* bench_run.c: measure every format (and solve) on A, print its report. */
int bench_matrix(bench *b, const char *name, spk_csr *A);

/* bench_report.c */
const char *bench_baseline(const bench *b);
const fmt_result *bench_find(const mat_result *m, const char *name);
/* What one measured product time means (hot or cold). */
typedef struct rates {
    double ms, gflops, gbs_csr, gbs_own, frac, speedup;
} rates;
rates bench_rates(const bench *b, const mat_result *m, const fmt_result *f, int cold);
/* What auto's selection cost and whether its solve paid for it. */
typedef struct payback {
    double cost_ms;      /* auto's setup beyond the baseline's: in the solves, where both are made from
                            the solver's device copy of A, the format setups; otherwise (no solve) in
                            the SpMV run, neither counting the upload of A from the host (the same
                            bytes for both; a pageable copy of a large matrix varies by a quarter from
                            one copy to the next) */
    double spmv_cost_ms; /* the SpMV run's cost as above, also when cost_ms comes from the solves */
    int in_solve;        /* cost_ms is the solves' */
    double gain_ms;      /* the baseline's hot product time minus auto's */
    double products;     /* products after which the cost is paid back (0: no cost; inf: never) */
    int solve_products;  /* products in auto's converged solve (CG: one an iteration, BiCGStab: two,
                            and the initial and final residuals); -1: no such solve */
    int paid;            /* products <= solve_products */
} payback;
int bench_payback(const bench *b, const mat_result *m, payback *p);
/* The hot time of the format auto chose, as measured on its own in this run. */
double bench_chosen_hot(const mat_result *m, const fmt_result *au);
/* setup + solve without the upload of A of a converged solve (NAN otherwise) */
double bench_cfg_total(const fmt_result *f);
/* Configuration k against the first (see bench_report.c). */
int bench_cfg_summary(const bench *b, int k, double *geo, double *least, double *least_big, int *big,
                      double *iter_ratio);
/* Geometric mean of format fmt's speedup over the baseline: what 0 hot, 1 cold, 2 solve. */
double bench_geomean(const bench *b, const char *fmt, int what, int *count);
void bench_auto_accuracy(const bench *b, int *ok, int *of);
void bench_auto_paid(const bench *b, int *ok, int *of);
void bench_progress(bench *b, const mat_result *m, const fmt_result *f, const char *what);
/* The progress line (b->prog): matrix b->at of b->total, its name, the time
 * so far and an estimate of the rest; force: now, not at most 4 a second. */
void bench_status(bench *b, int force);
void bench_print_matrix(const bench *b, const mat_result *m);
void bench_print_floors(const bench *b);
void bench_print_summary(const bench *b);
void bench_print_config_summary(const bench *b);

/* bench_json.c: the files; the message in b->err. */
int bench_write_json(bench *b, const char *path, int argc, char **argv);
int bench_write_csv(bench *b, const char *path);

#endif
