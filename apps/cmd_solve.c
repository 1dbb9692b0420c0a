/* cmd_solve.c -- `spk solve`: read A (and b), solve, report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spk.h"
#include "io/gen.h"
#include "io/rhs.h"
#include "spmv/spmv.h"

static void help(void)
{
    printf("usage: spk solve (A.mtx[.gz] | gen:SPEC) [options]\n"
           "\n"
           "Solve A x = b.  gen:SPEC makes a model problem in memory (see spk gen --help),\n"
           "e.g. gen:poisson3d-27:100.  Without --rhs, b = A*1 and the error ||x - 1||_inf is reported too\n"
           "(when A*1 = 0, b = A*r for a fixed pseudo-random r, and the error is against r).\n"
           "\n"
           "options:\n"
           "  --rhs FILE          right-hand side b (Matrix Market array or n x 1 coordinate)\n"
           "  --solver S          auto | cg | bicgstab (default auto: CG for a symmetric matrix\n"
           "                      with a positive diagonal, BiCGStab otherwise; when CG finds the\n"
           "                      matrix indefinite, auto switches to BiCGStab + ILU(0))\n"
           "  --precond P         auto | factor | ic0 | ilu0 | jacobi | none (factor: IC(0) with\n"
           "                      CG, ILU(0) with BiCGStab; auto, the default: the same, but on\n"
           "                      the GPU none for a matrix shaped like a Laplacian (constant\n"
           "                      diagonal, weakly diagonally dominant rows), where they do not\n"
           "                      pay for their apply)\n"
           "  --format NAME       SpMV format (default auto: on the GPU the fastest format by a rule\n"
           "                      on the row lengths and, where it leaves several, short trials;\n"
           "                      on the host the reference csr)\n");
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
        int seen = 0; /* a format with a host and a CUDA entry is listed once */
        for (const struct spk_spmv_ops *const *q = spk_spmv_list(); q != p; q++)
            seen |= strcmp((*q)->name, (*p)->name) == 0;
        if (!seen) printf("                        %-11s %s\n", (*p)->name, (*p)->summary);
    }
    printf(""
           "  --hmec-parts P      format hmec: ELL parts before the CSR rest (1..8, default 2)\n");
    cli_tile_help();
    printf(""
           "  --device D          auto | cpu | cuda (default auto: the GPU when usable)\n"
           "  --rtol R            stop when ||r|| <= R ||b|| (default 1e-8)\n"
           "  --dtol D            stop as diverged when ||r|| > D max(||b||, ||r0||) (default 1e8;\n"
           "                      0: never)\n"
           "  --atol A            or when ||r|| <= A (default 0)\n"
           "  --maxit N           iteration limit (default 10000)\n"
           "  --no-shift          fail on a bad IC(0)/ILU(0) pivot instead of shifting the diagonal\n"
           "  --precond-sweeps K  IC(0)/ILU(0): replace each triangular solve by K Jacobi sweeps\n"
           "                      (1..1000; on the GPU factorization and sweeps on the device);\n"
           "                      0: exact solves (on the GPU cuSPARSE csric02/csrilu02 +\n"
           "                      cusparseSpSV, the reference); auto (default): on the GPU the\n"
           "                      device's factor with the fewest sweeps (2..16) that pass a\n"
           "                      check on a probe vector (beyond 12288 rows fewer, where the\n"
           "                      preconditioner they apply stays close to the exact one), exact\n"
           "                      solves with it where none does or where they cost as much (on\n"
           "                      the host: exact); the output names the sweeps taken\n"
           "  --precond-precision P  the factor's values in the sweeps: auto (default: float with\n"
           "                      --precond-sweeps auto on the GPU, else double), double, or\n"
           "                      float (rounded to float, on the GPU stored so; sums in double)\n"
           "  --race on|cg|off    on: on the GPU, where auto gives CG + IC(0) on a system\n"
           "                      of at most 12288 rows and 524288 entries, run CG without a\n"
           "                      preconditioner and CG with Jacobi alongside; the first to\n"
           "                      converge answers (default on); cg: CG without one only\n"
           "  --precond-isai      IC(0)/ILU(0): apply each factor's incomplete sparse approximate\n"
           "                      inverse (one SpMV each) instead of solving\n"
           "  --reorder R         none | multicolor | block-multicolor (default none): solve the\n"
           "                      system with its rows ordered by a greedy coloring of A + A^T,\n"
           "                      one triangular-solve level per color; block-multicolor colors\n"
           "                      blocks of B rows (--reorder-block B, default 16) instead, each\n"
           "                      block kept in order (x is in the file's order)\n"
           "  --vector-ops V      fused: each iteration's updates and reductions in a\n"
           "                      few fused steps with the scalars on the device, read once per\n"
           "                      CG iteration (twice per BiCGStab iteration); classic (also\n"
           "                      'cublas'): one operation per dot product, norm and update, each\n"
           "                      scalar back on the host; graph: the fused steps between two\n"
           "                      reads, with the SpMV and the preconditioner, recorded once as\n"
           "                      CUDA graphs and replayed (CG with a preconditioner, BiCGStab;\n"
           "                      elsewhere as fused); block (default): on the GPU, systems of at\n"
           "                      most 12288 rows and 14336 entries (16384 with IC(0)/ILU(0)) run\n"
           "                      whole iterations in one thread block, up to 524288 entries (131072\n"
           "                      with IC(0)/ILU(0) sweeps) in a cluster of 16 blocks (sm_90),\n"
           "                      elsewhere as graph; same iterations and outcome (to rounding)\n"
           "  --out FILE          write x (Matrix Market array, .gz compresses)\n"
           "  --monitor           print the residual of every iteration\n"
           "  --json              print one JSON object instead of text\n"
           "\n"
           "Exit status: 0 converged, 1 not converged or failed, 2 usage error.\n");
}

typedef struct solve_args {
    const char *matrix, *rhs, *out, *format;
    spk_solver_kind solver;
    spk_precond_kind precond;
    spk_device device;
    const char *device_name;
    spk_options o;
    int monitor, json;
} solve_args;

static int parse_kind(const char *v, const char *const *names, int count, int *out)
{
    for (int k = 0; k < count; k++)
        if (strcmp(v, names[k]) == 0) {
            *out = k;
            return 0;
        }
    return 1;
}

/* Parse argv into a; returns CLI_OK, CLI_USAGE, or -1 for --help. */
static int parse(int argc, char **argv, solve_args *a)
{
    static const char *const solvers[] = {"auto", "cg", "bicgstab"};
    static const char *const preconds[] = {"auto", "none", "jacobi", "ilu0", "ic0", "factor"};
    memset(a, 0, sizeof *a);
    spk_options_default(&a->o);
    a->device_name = "auto";
    cli_tile_opts tile = {0};
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r, k;
        if (cli_flag(argv[i], "help") || strcmp(argv[i], "-h") == 0) return -1;
        if (cli_flag(argv[i], "monitor")) {
            a->monitor = 1;
        } else if (cli_flag(argv[i], "json")) {
            a->json = 1;
        } else if (cli_flag(argv[i], "no-shift")) {
            a->o.allow_shift = 0;
        } else if ((r = cli_opt_value(argc, argv, &i, "rhs", &v))) {
            if (r < 0) return cli_usage_error("solve", "--rhs needs a file");
            a->rhs = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "out", &v))) {
            if (r < 0) return cli_usage_error("solve", "--out needs a file");
            a->out = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "format", &v))) {
            if (r < 0) return cli_usage_error("solve", "--format needs a name");
            a->format = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "solver", &v))) {
            if (r < 0 || parse_kind(v, solvers, 3, &k))
                return cli_usage_error("solve", "--solver must be auto, cg or bicgstab");
            a->solver = (spk_solver_kind)k;
        } else if ((r = cli_opt_value(argc, argv, &i, "precond", &v))) {
            if (r < 0 || parse_kind(v, preconds, 6, &k))
                return cli_usage_error("solve", "--precond must be auto, factor, ic0, ilu0, jacobi or none");
            a->precond = (spk_precond_kind)k;
        } else if ((r = cli_opt_value(argc, argv, &i, "device", &v))) {
            if (r < 0) return cli_usage_error("solve", "--device needs auto, cpu or cuda");
            if (strcmp(v, "auto") == 0)
                a->device = SPK_DEVICE_AUTO;
            else if (strcmp(v, "cpu") == 0 || strcmp(v, "host") == 0)
                a->device = SPK_DEVICE_HOST;
            else if (strcmp(v, "cuda") == 0 || strcmp(v, "gpu") == 0)
                a->device = SPK_DEVICE_CUDA;
            else
                return cli_usage_error("solve", "--device must be auto, cpu or cuda (got '%s')", v);
            a->device_name = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "dtol", &v))) {
            if (r < 0 || cli_parse_double(v, &a->o.dtol) || a->o.dtol < 0)
                return cli_usage_error("solve", "--dtol needs a number >= 0");
        } else if ((r = cli_opt_value(argc, argv, &i, "rtol", &v))) {
            if (r < 0 || cli_parse_double(v, &a->o.rtol) || a->o.rtol < 0)
                return cli_usage_error("solve", "--rtol needs a number >= 0");
        } else if ((r = cli_opt_value(argc, argv, &i, "atol", &v))) {
            if (r < 0 || cli_parse_double(v, &a->o.atol) || a->o.atol < 0)
                return cli_usage_error("solve", "--atol needs a number >= 0");
        } else if ((r = cli_opt_value(argc, argv, &i, "hmec-parts", &v))) {
            if (r < 0 || cli_parse_int(v, &a->o.hmec_parts) || a->o.hmec_parts < 1 || a->o.hmec_parts > 8)
                return cli_usage_error("solve", "--hmec-parts needs an integer in [1, 8]");
        } else if ((r = cli_tile_option("solve", argc, argv, &i, &tile))) {
            if (r < 0) return CLI_USAGE;
        } else if ((r = cli_opt_value(argc, argv, &i, "precond-precision", &v))) {
            if (r < 0 || (a->o.precond_precision = cli_precision_of(v)) < 0)
                return cli_usage_error("solve", "--precond-precision needs auto, double or float");
        } else if ((r = cli_opt_value(argc, argv, &i, "race", &v))) {
            if (r < 0 || (strcmp(v, "on") != 0 && strcmp(v, "off") != 0 && strcmp(v, "cg") != 0))
                return cli_usage_error("solve", "--race needs on, cg or off");
            a->o.race = strcmp(v, "on") == 0 ? 1 : strcmp(v, "cg") == 0 ? 2 : 0;
        } else if (cli_flag(argv[i], "precond-isai")) {
            a->o.precond_isai = 1;
        } else if ((r = cli_vector_ops_option("solve", argc, argv, &i, &a->o.vector_ops))) {
            if (r < 0) return CLI_USAGE;
        } else if ((r = cli_reorder_option("solve", argc, argv, &i, &a->o.reorder, &a->o.reorder_block))) {
            if (r < 0) return CLI_USAGE;
        } else if ((r = cli_opt_value(argc, argv, &i, "precond-sweeps", &v))) {
            if (r > 0 && strcmp(v, "auto") == 0)
                a->o.precond_sweeps = SPK_PRECOND_SWEEPS_AUTO;
            else if (r < 0 || cli_parse_int(v, &a->o.precond_sweeps) || a->o.precond_sweeps < 0 ||
                     a->o.precond_sweeps > 1000)
                return cli_usage_error("solve", "--precond-sweeps needs an integer in [0, 1000] or auto");
        } else if ((r = cli_opt_value(argc, argv, &i, "maxit", &v))) {
            if (r < 0 || cli_parse_int(v, &a->o.maxit) || a->o.maxit < 0)
                return cli_usage_error("solve", "--maxit needs an integer >= 0");
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("solve", "unknown option '%s'", argv[i]);
        } else if (!a->matrix) {
            a->matrix = argv[i];
        } else {
            return cli_usage_error("solve", "unexpected argument '%s' (one matrix file only)", argv[i]);
        }
    }
    if (!a->matrix) return cli_usage_error("solve", "missing the matrix file");
    if (a->format) a->o.format = a->format;
    cli_tile_to_options(&tile, &a->o);
    return CLI_OK;
}

/* ", K sweeps per triangular solve" where the preconditioner has them */
static const char *sweeps_note(const spk_solver *s)
{
    static char sw[48];
    sw[0] = 0;
    if (spk_solver_precond_sweeps(s) > 0)
        snprintf(sw, sizeof sw, ", %d sweeps per triangular solve", spk_solver_precond_sweeps(s));
    return sw;
}

static void monitor_print(void *user, int it, double rnorm, double relres)
{
    FILE *f = user;
    fprintf(f, "  iteration %5d  ||r|| %.6e  ||r||/||b|| %.6e\n", it, rnorm, relres);
}

int cmd_solve(int argc, char **argv)
{
    solve_args a;
    int pr = parse(argc, argv, &a);
    if (pr < 0) {
        help();
        return CLI_OK;
    }
    if (pr) return pr;

    int rc = CLI_FAIL, st, n = 0, nnz = 0, ncols = 0;
    spk_context *ctx = NULL;
    spk_matrix *A = NULL;
    spk_solver *s = NULL;
    double *b = NULL, *x = NULL, *xstar = NULL;
    const char *rhs_note = "file";
    const char *device_note = "";
    spk_result res;
    memset(&res, 0, sizeof res);
    FILE *out = a.json ? stderr : stdout;

    st = spk_context_create(&ctx, a.device);
    if (st) {
        /* an automatic context says why the GPU could not be used */
        spk_context *probe = NULL;
        spk_context_create(&probe, SPK_DEVICE_AUTO);
        fprintf(stderr, "spk solve: cannot use device '%s': %s\n", a.device_name,
                st == SPK_ERR_DEVICE && probe ? spk_context_note(probe) : spk_status_name(st));
        spk_context_destroy(probe);
        goto done;
    }
    char device_buf[300] = "";
    if (a.device == SPK_DEVICE_AUTO)
        snprintf(device_buf, sizeof device_buf, " (auto: %s)", spk_context_note(ctx));
    device_note = device_buf;

    if (strncmp(a.matrix, "gen:", 4) == 0) { /* a model problem made in memory */
        spk_csr G = {0};
        spk_err ge;
        spk_err_clear(&ge);
        if (spk_gen_spec(a.matrix + 4, &G, &ge)) {
            fprintf(stderr, "spk solve: %s: %s\n", a.matrix, ge.msg);
            goto done;
        }
        st = spk_matrix_from_csr(ctx, G.nrows, G.ncols, G.rowptr, G.colind, G.val, &A);
        spk_csr_free(&G);
        if (st) {
            fprintf(stderr, "spk solve: %s: %s\n", a.matrix, spk_last_error(ctx));
            goto done;
        }
    } else if (spk_matrix_read(ctx, a.matrix, &A)) {
        fprintf(stderr, "spk solve: %s\n", spk_last_error(ctx));
        goto done;
    }
    spk_matrix_csr(A, &n, &ncols, &nnz, NULL, NULL, NULL);
    if (n != ncols) {
        fprintf(stderr, "spk solve: %s: the matrix is %d x %d; a linear system needs a square "
                        "matrix\n", a.matrix, n, ncols);
        goto done;
    }
    x = calloc((size_t)n + 1, sizeof(double));
    if (!x) {
        fprintf(stderr, "spk solve: out of memory for the solution vector (%d entries)\n", n);
        goto done;
    }
    if (a.rhs) {
        int nb;
        if (spk_vector_read(ctx, a.rhs, &nb, &b)) {
            fprintf(stderr, "spk solve: %s\n", spk_last_error(ctx));
            goto done;
        }
        if (nb != n) {
            fprintf(stderr, "spk solve: %s has %d entries but the matrix has %d rows\n", a.rhs, nb, n);
            goto done;
        }
    } else {
        b = malloc(((size_t)n + 1) * sizeof(double));
        xstar = malloc(((size_t)n + 1) * sizeof(double));
        if (!b || !xstar) {
            fprintf(stderr, "spk solve: out of memory for the right-hand side (%d entries)\n", n);
            goto done;
        }
        const int *rp, *ci;
        const double *va;
        spk_matrix_csr(A, NULL, NULL, NULL, &rp, &ci, &va);
        rhs_note = spk_rhs_known_solution_arrays(n, n, rp, ci, va, xstar, b)
                       ? "A*r (A*1 = 0: rows sum to zero; r pseudo-random in [0,1))"
                       : "A*1";
    }

    if (a.monitor) {
        a.o.monitor = monitor_print;
        a.o.monitor_user = out;
    }
    st = spk_solver_create(ctx, A, a.solver, a.precond, &a.o, &s);
    if (st) {
        fprintf(stderr, "spk solve: %s: %s\n", a.matrix, spk_last_error(ctx));
        goto done;
    }
    if (!a.json) {
        fprintf(out, "matrix    %s: %d x %d, %d nonzeros\n", a.matrix, n, n, nnz);
        fprintf(out, "device    %s%s\n", spk_context_device(ctx), device_note);
        fprintf(out, "method    %s + %s%s%s, SpMV format %s\n", spk_solver_method(s), spk_solver_precond(s),
                a.solver == SPK_SOLVER_AUTO ? " (auto)" : "", sweeps_note(s), spk_solver_format(s));
        if (strcmp(spk_solver_format(s), "auto") == 0)
            fprintf(out, "format    %s\n", spk_solver_format_detail(s));
        int lv[4] = {0, 0, 0, 0};
        if (spk_solver_colors(s) && spk_solver_levels(s, &lv[0], &lv[1], &lv[2], &lv[3]) == SPK_OK)
            fprintf(out, "reorder   %s: %d colors; triangular-solve levels %d (lower) and %d (upper), "
                         "%d and %d in the file's order\n",
                    a.o.reorder == SPK_REORDER_MULTICOLOR ? "multicolor" : "block-multicolor", spk_solver_colors(s),
                    lv[0], lv[1], lv[2], lv[3]);
        fprintf(out, "rhs       b = %s\n", a.rhs ? a.rhs : rhs_note);
    }
    st = spk_solve(s, b, x, &res);
    int ran = st == SPK_OK || st == SPK_ERR_NOT_CONVERGED || st == SPK_ERR_BREAKDOWN ||
              st == SPK_ERR_INDEFINITE;
    if (!ran) {
        fprintf(stderr, "spk solve: %s: %s\n", a.matrix, spk_last_error(ctx));
        goto done;
    }
    double err = NAN;
    if (xstar) {
        err = 0;
        for (int i = 0; i < n; i++) err = fmax(err, fabs(x[i] - xstar[i]));
    }
    if (a.json) {
        printf("{\"matrix\": ");
        cli_json_string(stdout, a.matrix);
        printf(", \"rows\": %d, \"nnz\": %d, \"device\": ", n, nnz);
        cli_json_string(stdout, spk_context_device(ctx));
        printf(", \"solver\": ");
        cli_json_string(stdout, spk_solver_method(s));
        printf(", \"precond\": ");
        cli_json_string(stdout, spk_solver_precond(s));
        printf(", \"precond_sweeps\": %d, \"format\": ", spk_solver_precond_sweeps(s));
        cli_json_string(stdout, spk_solver_format(s));
        printf(", \"format_detail\": ");
        cli_json_string(stdout, spk_solver_format_detail(s));
        int lv[4] = {0, 0, 0, 0};
        spk_solver_levels(s, &lv[0], &lv[1], &lv[2], &lv[3]);
        printf(", \"colors\": %d, \"levels_lower\": %d, \"levels_upper\": %d", spk_solver_colors(s), lv[0], lv[1]);
        printf(", \"switched\": %s, \"rhs\": ", res.switched ? "true" : "false");
        cli_json_string(stdout, a.rhs ? a.rhs : rhs_note);
        printf(", \"status\": ");
        cli_json_string(stdout, st == SPK_OK ? "converged" : spk_status_name(st));
        printf(", \"reason\": ");
        cli_json_string(stdout, spk_reason_name(res.reason));
        printf(", \"converged\": %s, \"iterations\": %d", st == SPK_OK ? "true" : "false",
               res.iterations);
        printf(", \"residual0\": ");
        cli_json_number(stdout, res.rnorm0);
        printf(", \"relres\": ");
        cli_json_number(stdout, res.relres);
        printf(", \"true_relres\": ");
        cli_json_number(stdout, res.true_relres);
        printf(", \"error_inf\": ");
        cli_json_number(stdout, err);
        printf(", \"restarts\": %d, \"shift\": ", res.restarts);
        cli_json_number(stdout, res.shift);
        printf(", \"rtol\": ");
        cli_json_number(stdout, a.o.rtol);
        printf(", \"vector_ops\": \"%s\", \"graph_iterations\": %d, \"block_iterations\": %d, "
               "\"block_cluster\": %d, \"race\": %d",
               cli_vector_ops_name(a.o.vector_ops), res.graph_iterations, res.block_iterations, res.block_cluster,
               res.race);
        printf(", \"time_ms\": {\"setup\": %.6f, \"spmv\": %.6f, \"precond\": %.6f, \"vector\": %.6f, "
               "\"sync\": %.6f, \"total\": %.6f, \"setup_upload\": %.6f, \"setup_check\": %.6f, "
               "\"setup_format\": %.6f, \"setup_precond\": %.6f}",
               1e3 * res.t_setup, 1e3 * res.t_spmv, 1e3 * res.t_precond, 1e3 * res.t_vector, 1e3 * res.t_sync,
               1e3 * res.t_total, 1e3 * res.t_setup_upload, 1e3 * res.t_setup_check, 1e3 * res.t_setup_format,
               1e3 * res.t_setup_precond);
        if (st != SPK_OK) {
            printf(", \"message\": ");
            cli_json_string(stdout, spk_last_error(ctx));
        }
        printf("}\n");
    } else {
        if (res.switched)
            fprintf(out, "note      CG found the matrix indefinite (p'Ap <= 0); switched to "
                         "BiCGStab + ILU(0)\n");
        if (res.race == 2)
            fprintf(out, "race      CG without a preconditioner, run alongside, converged first: its "
                         "answer\n");
        else if (res.race == 3)
            fprintf(out, "race      CG with Jacobi, run alongside, converged first: its answer\n");
        else if (res.race == 1)
            fprintf(out, "race      %s converged first%s; the CGs alongside were stopped\n",
                    spk_solver_precond(s), sweeps_note(s));
        if (res.shift > 0)
            fprintf(out, "shift     %s needed A + alpha*diag(A) with alpha = %g\n",
                    spk_solver_precond(s), res.shift);
        if (res.restarts > 0)
            fprintf(out, "restart   BiCGStab restarted %d time%s with a fresh shadow residual after "
                         "a breakdown\n",
                    res.restarts, res.restarts == 1 ? "" : "s");
        fprintf(out, "result    %s after %d iterations\n", spk_reason_name(res.reason), res.iterations);
        fprintf(out, "residual  ||r||/||b||: recurrence %.3e, true %.3e (rtol %.1e)\n", res.relres,
                res.true_relres, a.o.rtol);
        if (xstar) fprintf(out, "error     ||x - x*||_inf = %.3e\n", err);
        if (a.o.vector_ops != SPK_VECTOR_CLASSIC) {
            char how[64] = "fused vector steps"; /* graphs: where some ran */
            if (res.graph_iterations > 0)
                snprintf(how, sizeof how, "fused vector steps, %d iterations replayed as graphs", res.graph_iterations);
            if (res.block_iterations > 0 && res.block_cluster > 1)
                snprintf(how, sizeof how, "%d iterations in a cluster of %d thread blocks", res.block_iterations,
                         res.block_cluster);
            else if (res.block_iterations > 0)
                snprintf(how, sizeof how, "%d iterations in one thread block", res.block_iterations);
            fprintf(out, "time      setup %.3f ms, solve %.3f ms (spmv %.3f, precond %.3f, vector %.3f, "
                         "launches and waits %.3f; %s)\n",
                    1e3 * res.t_setup, 1e3 * res.t_total, 1e3 * res.t_spmv, 1e3 * res.t_precond,
                    1e3 * res.t_vector, 1e3 * res.t_sync, how);
        }
        else
            fprintf(out, "time      setup %.3f ms, solve %.3f ms (spmv %.3f, precond %.3f, vector %.3f)\n",
                    1e3 * res.t_setup, 1e3 * res.t_total, 1e3 * res.t_spmv, 1e3 * res.t_precond,
                    1e3 * res.t_vector);
        fprintf(out, "setup     upload %.3f ms, checks %.3f, format %.3f, preconditioner %.3f\n",
                1e3 * res.t_setup_upload, 1e3 * res.t_setup_check, 1e3 * res.t_setup_format,
                1e3 * res.t_setup_precond);
        if (st != SPK_OK) fprintf(stderr, "spk solve: %s: %s\n", a.matrix, spk_last_error(ctx));
    }
    if (a.out && spk_vector_write(ctx, a.out, n, x)) {
        fprintf(stderr, "spk solve: %s\n", spk_last_error(ctx));
        goto done;
    }
    rc = st == SPK_OK ? CLI_OK : CLI_FAIL;
done:
    free(b);
    free(x);
    free(xstar);
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
    spk_context_destroy(ctx);
    return rc;
}
