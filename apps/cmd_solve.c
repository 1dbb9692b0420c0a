/* cmd_solve.c -- `spk solve`: read A (and b), solve, report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "solve_args.h"
#include "spk.h"
#include "io/gen.h"
#include "io/gen_complex.h"
#include "io/rhs.h"

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

/* The progress line of a long solve (a terminal only; cli_progress). */
static void monitor_progress(void *user, int it, double rnorm, double relres)
{
    cli_progress *p = user;
    (void)rnorm;
    const double t = cli_progress_elapsed(p);
    if (t < p->after) return;
    char el[32];
    cli_progress_duration(t, el, sizeof el);
    cli_progress_show(p, 0, "spk solve: iteration %d, ||r||/||b|| %.3e, %s", it, relres, el);
}

/* Watch the iterations for the progress line, where stderr is a terminal,
 * through the progress callback, which leaves the solve as it is (the
 * default's probe and race included); --monitor prints every iteration
 * already. */
static void watch_progress(solve_args *a, cli_progress *p)
{
    cli_progress_start(p, !a->monitor);
    if (p->on) spk_options_set_progress(&a->o, monitor_progress, p);
}

/* What one run holds. */
typedef struct solve_run {
    spk_context *ctx;
    spk_matrix *A;
    spk_solver *s;
    double *b, *x, *xstar;   /* xstar: the known solution (no --rhs) */
    int n, nnz;
    int complex;             /* a complex system: b, x, xstar hold 2n doubles */
    const char *rhs_note;
    char rhs_buf[80];
    char device_note[300];
    spk_result res;
    int st;                  /* spk_solve's status */
    double err;              /* ||x - xstar||_inf (NaN: no xstar) */
} solve_run;

static int open_context(const solve_args *a, solve_run *r)
{
    int st = spk_context_create(&r->ctx, (spk_device)a->device);
    if (st) {
        /* an automatic context says why the GPU could not be used */
        spk_context *probe = NULL;
        spk_context_create(&probe, SPK_DEVICE_AUTO);
        fprintf(stderr, "spk solve: cannot use device '%s': %s\n", a->device == SPK_DEVICE_CUDA ? "cuda" : "cpu",
                st == SPK_ERR_DEVICE && probe ? spk_context_note(probe) : spk_status_name(st));
        spk_context_destroy(probe);
        return CLI_FAIL;
    }
    if (a->device == SPK_DEVICE_AUTO)
        snprintf(r->device_note, sizeof r->device_note, " (auto: %s)", spk_context_note(r->ctx));
    return CLI_OK;
}

/* A complex model problem (gen:SPEC of a complex family). */
static int load_complex_gen(const char *spec, solve_run *r)
{
    spk_zcsr G = {0};
    spk_err ge;
    spk_err_clear(&ge);
    if (spk_gen_zspec(spec, &G, &ge)) {
        fprintf(stderr, "spk solve: gen:%s: %s\n", spec, ge.msg);
        return CLI_FAIL;
    }
    int st = spk_matrix_from_csr_complex(r->ctx, G.nrows, G.ncols, G.rowptr, G.colind, G.val, &r->A);
    spk_zcsr_free(&G);
    if (st) fprintf(stderr, "spk solve: gen:%s: %s\n", spec, spk_last_error(r->ctx));
    return st ? CLI_FAIL : CLI_OK;
}

/* A from the file or the generator (gen:SPEC), square. */
static int load_matrix(const solve_args *a, solve_run *r)
{
    if (strncmp(a->matrix, "gen:", 4) == 0 && spk_gen_spec_is_complex(a->matrix + 4)) {
        if (load_complex_gen(a->matrix + 4, r)) return CLI_FAIL;
    } else if (strncmp(a->matrix, "gen:", 4) == 0) { /* a model problem made in memory */
        spk_csr G = {0};
        spk_err ge;
        spk_err_clear(&ge);
        if (spk_gen_spec(a->matrix + 4, &G, &ge)) {
            fprintf(stderr, "spk solve: %s: %s\n", a->matrix, ge.msg);
            return CLI_FAIL;
        }
        int st = spk_matrix_from_csr(r->ctx, G.nrows, G.ncols, G.rowptr, G.colind, G.val, &r->A);
        spk_csr_free(&G);
        if (st) {
            fprintf(stderr, "spk solve: %s: %s\n", a->matrix, spk_last_error(r->ctx));
            return CLI_FAIL;
        }
    } else if (spk_matrix_read(r->ctx, a->matrix, &r->A)) {
        fprintf(stderr, "spk solve: %s\n", spk_last_error(r->ctx));
        return CLI_FAIL;
    } else if (spk_matrix_warning(r->A)[0]) {
        fprintf(stderr, "spk solve: warning: %s\n", spk_matrix_warning(r->A));
    }
    int ncols = 0;
    r->complex = spk_matrix_is_complex(r->A);
    if (r->complex)
        spk_matrix_csr_complex(r->A, &r->n, &ncols, &r->nnz, NULL, NULL, NULL);
    else
        spk_matrix_csr(r->A, &r->n, &ncols, &r->nnz, NULL, NULL, NULL);
    if (r->n != ncols) {
        fprintf(stderr, "spk solve: %s: the matrix is %d x %d; a linear system needs a square "
                        "matrix\n", a->matrix, r->n, ncols);
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* A complex system's b: from --rhs, or A x* with x* = 1 or random (real
 * and imaginary parts each uniform in [-1, 1) from the seed). */
static int make_complex_rhs(const solve_args *a, solve_run *r)
{
    const int n = r->n;
    if (a->rhs) {
        int nb;
        if (spk_vector_read_complex(r->ctx, a->rhs, &nb, &r->b)) {
            fprintf(stderr, "spk solve: %s\n", spk_last_error(r->ctx));
            return CLI_FAIL;
        }
        if (nb == n) return CLI_OK;
        fprintf(stderr, "spk solve: %s has %d entries but the matrix has %d rows\n", a->rhs, nb, n);
        return CLI_FAIL;
    }
    r->b = malloc(((size_t)n + 1) * 2 * sizeof(double));
    r->xstar = malloc(((size_t)n + 1) * 2 * sizeof(double));
    if (!r->b || !r->xstar) {
        fprintf(stderr, "spk solve: out of memory for the right-hand side (%d entries)\n", n);
        return CLI_FAIL;
    }
    for (long long j = 0; j < 2LL * n; j++)
        r->xstar[j] = a->kind.random ? spk_rhs_xstar_at(&a->kind, 0, j) : (j % 2 ? 0.0 : 1.0);
    spk_matrix_multiply_complex(r->A, r->xstar, r->b);
    if (a->kind.random) {
        snprintf(r->rhs_buf, sizeof r->rhs_buf, "A*x* (x* complex, parts uniform in [-1,1), seed %llu)",
                 (unsigned long long)a->kind.seed);
        r->rhs_note = r->rhs_buf;
    } else {
        r->rhs_note = "A*1";
    }
    return CLI_OK;
}

/* x = 0, and b from --rhs or made from a known solution xstar. */
static int make_vectors(const solve_args *a, solve_run *r)
{
    const int n = r->n;
    r->x = calloc(((size_t)n + 1) * (r->complex ? 2 : 1), sizeof(double));
    if (!r->x) {
        fprintf(stderr, "spk solve: out of memory for the solution vector (%d entries)\n", n);
        return CLI_FAIL;
    }
    r->rhs_note = "file";
    if (r->complex) return make_complex_rhs(a, r);
    if (a->rhs) {
        int nb;
        if (spk_vector_read(r->ctx, a->rhs, &nb, &r->b)) {
            fprintf(stderr, "spk solve: %s\n", spk_last_error(r->ctx));
            return CLI_FAIL;
        }
        if (nb != n) {
            fprintf(stderr, "spk solve: %s has %d entries but the matrix has %d rows\n", a->rhs, nb, n);
            return CLI_FAIL;
        }
        return CLI_OK;
    }
    r->b = malloc(((size_t)n + 1) * sizeof(double));
    r->xstar = malloc(((size_t)n + 1) * sizeof(double));
    if (!r->b || !r->xstar) {
        fprintf(stderr, "spk solve: out of memory for the right-hand side (%d entries)\n", n);
        return CLI_FAIL;
    }
    const int *rp, *ci;
    const double *va;
    spk_matrix_csr(r->A, NULL, NULL, NULL, &rp, &ci, &va);
    if (a->kind.random) {
        spk_rhs_random_solution_arrays(n, n, rp, ci, va, a->kind.seed, r->xstar, r->b);
        snprintf(r->rhs_buf, sizeof r->rhs_buf, "A*x* (x* uniform in [-1,1), seed %llu)",
                 (unsigned long long)a->kind.seed);
        r->rhs_note = r->rhs_buf;
        return CLI_OK;
    }
    r->rhs_note = spk_rhs_known_solution_arrays(n, n, rp, ci, va, r->xstar, r->b)
                      ? "A*r (A*1 = 0: rows sum to zero; r pseudo-random in [0,1))"
                      : "A*1";
    return CLI_OK;
}

/* The lines before the solve: matrix, device, method, format, reordering, b. */
static void print_setup(const solve_args *a, const solve_run *r, FILE *out)
{
    static const char *const zsym[] = {"general", "symmetric", "Hermitian", "real"};
    const int zs = spk_matrix_complex_symmetry(r->A);
    fprintf(out, "matrix    %s: %d x %d, %d nonzeros%s%s\n", a->matrix, r->n, r->n, r->nnz,
            zs >= 0 ? ", complex " : "", zs >= 0 ? zsym[zs] : "");
    fprintf(out, "device    %s%s, %d host threads\n", spk_context_device(r->ctx), r->device_note,
            spk_context_threads(r->ctx));
    fprintf(out, "method    %s + %s%s%s, SpMV format %s\n", spk_solver_method(r->s), spk_solver_precond(r->s),
            a->solver == SPK_SOLVER_AUTO ? " (auto)" : "", sweeps_note(r->s), spk_solver_format(r->s));
    if (strcmp(spk_solver_format(r->s), "auto") == 0)
        fprintf(out, "format    %s\n", spk_solver_format_detail(r->s));
    int lv[4] = {0, 0, 0, 0};
    if (spk_solver_colors(r->s) && spk_solver_levels(r->s, &lv[0], &lv[1], &lv[2], &lv[3]) == SPK_OK)
        fprintf(out, "reorder   %s: %d colors; triangular-solve levels %d (lower) and %d (upper), "
                     "%d and %d in the file's order\n",
                a->o.reorder == SPK_REORDER_MULTICOLOR ? "multicolor" : "block-multicolor", spk_solver_colors(r->s),
                lv[0], lv[1], lv[2], lv[3]);
    fprintf(out, "rhs       b = %s\n", a->rhs ? a->rhs : r->rhs_note);
}

static void print_json(const solve_args *a, const solve_run *r)
{
    const spk_options *o = &a->o;
    char vec[32];
    cli_json_begin(stdout);
    printf(", \"matrix\": ");
    cli_json_string(stdout, a->matrix);
    printf(", \"rows\": %d, \"nnz\": %d, \"complex\": %s, \"device\": ", r->n, r->nnz,
           r->complex ? "true" : "false");
    cli_json_string(stdout, spk_context_device(r->ctx));
    printf(", \"host_threads\": %d, \"solver\": ", spk_context_threads(r->ctx));
    cli_json_string(stdout, spk_solver_method(r->s));
    printf(", \"precond\": ");
    cli_json_string(stdout, spk_solver_precond(r->s));
    printf(", \"precond_sweeps\": %d, \"format\": ", spk_solver_precond_sweeps(r->s));
    cli_json_string(stdout, spk_solver_format(r->s));
    printf(", \"format_detail\": ");
    cli_json_string(stdout, spk_solver_format_detail(r->s));
    int lv[4] = {0, 0, 0, 0};
    spk_solver_levels(r->s, &lv[0], &lv[1], &lv[2], &lv[3]);
    printf(", \"colors\": %d, \"levels_lower\": %d, \"levels_upper\": %d", spk_solver_colors(r->s), lv[0], lv[1]);
    printf(", \"choice\": ");
    cli_json_string(stdout, spk_solver_choice(r->s));
    printf(", \"factorization\": ");
    cli_json_string(stdout, spk_solver_factorization(r->s));
    printf(", \"pivoted\": %d", spk_solver_pivoted(r->s));
    printf(", \"switched\": %s, \"switched_to\": \"%s\", \"rhs\": ", r->res.switched ? "true" : "false",
           r->res.switched == 2 ? "gmres" : r->res.switched ? "bicgstab" : "");
    cli_json_string(stdout, a->rhs ? a->rhs : r->rhs_note);
    char kind[40];
    spk_rhs_kind_text(&a->kind, kind, sizeof kind);
    printf(", \"rhs_kind\": ");
    cli_json_string(stdout, a->rhs ? "file" : kind);
    printf(", \"status\": ");
    cli_json_string(stdout, r->st == SPK_OK ? "converged" : spk_status_name(r->st));
    printf(", \"reason\": ");
    cli_json_string(stdout, spk_reason_name(r->res.reason));
    printf(", \"converged\": %s, \"iterations\": %d", r->st == SPK_OK ? "true" : "false",
           r->res.iterations);
    printf(", \"residual0\": ");
    cli_json_number(stdout, r->res.rnorm0);
    printf(", \"relres\": ");
    cli_json_number(stdout, r->res.relres);
    printf(", \"true_relres\": ");
    cli_json_number(stdout, r->res.true_relres);
    printf(", \"error_inf\": ");
    cli_json_number(stdout, r->err);
    printf(", \"restarts\": %d, \"shift\": ", r->res.restarts);
    cli_json_number(stdout, r->res.shift);
    printf(", \"rtol\": ");
    cli_json_number(stdout, o->rtol);
    printf(", \"vector_ops\": \"%s\", \"graph_iterations\": %d, \"block_iterations\": %d, "
           "\"block_cluster\": %d, \"race\": %d",
           cli_option_text(o, "vector-ops", vec, sizeof vec), r->res.graph_iterations, r->res.block_iterations,
           r->res.block_cluster, r->res.race);
    printf(", \"time_ms\": {\"setup\": ");
    cli_json_number(stdout, 1e3 * r->res.t_setup);
    cli_json_field(stdout, "spmv", 1e3 * r->res.t_spmv);
    cli_json_field(stdout, "precond", 1e3 * r->res.t_precond);
    cli_json_field(stdout, "vector", 1e3 * r->res.t_vector);
    cli_json_field(stdout, "sync", 1e3 * r->res.t_sync);
    cli_json_field(stdout, "total", 1e3 * r->res.t_total);
    cli_json_field(stdout, "setup_upload", 1e3 * r->res.t_setup_upload);
    cli_json_field(stdout, "setup_check", 1e3 * r->res.t_setup_check);
    cli_json_field(stdout, "setup_format", 1e3 * r->res.t_setup_format);
    cli_json_field(stdout, "setup_precond", 1e3 * r->res.t_setup_precond);
    printf("}");
    if (r->res.history_len > 0) { /* --monitor or --keep-history: ||r_k||, k = 0, 1, ... */
        printf(", \"history\": [");
        for (int k = 0; k < r->res.history_len; k++) {
            if (k) printf(", ");
            cli_json_number(stdout, r->res.history[k]);
        }
        printf("]");
    }
    if (r->st != SPK_OK) {
        printf(", \"message\": ");
        cli_json_string(stdout, spk_last_error(r->ctx));
    }
    printf("}\n");
}

static void print_text(const solve_args *a, const solve_run *r, FILE *out)
{
    const spk_options *o = &a->o;
    if (r->res.switched == 2)
        fprintf(out, "note      BiCGStab broke down; restarted GMRES(%d) finished from its iterate\n",
                o->gmres_restart);
    else if (r->res.switched)
        fprintf(out, "note      CG found the matrix indefinite (p'Ap <= 0); switched to BiCGStab + %s\n",
                spk_solver_precond(r->s));
    if (r->res.race == 2)
        fprintf(out, "race      CG without a preconditioner, run alongside, converged first: its "
                     "answer\n");
    else if (r->res.race == 3)
        fprintf(out, "race      CG with Jacobi, run alongside, converged first: its answer\n");
    else if (r->res.race == 1)
        fprintf(out, "race      %s converged first%s; the CGs alongside were stopped\n",
                spk_solver_precond(r->s), sweeps_note(r->s));
    if (spk_solver_choice(r->s)[0]) fprintf(out, "choice    %s\n", spk_solver_choice(r->s));
    if (spk_solver_factorization(r->s)[0]) fprintf(out, "factor    %s\n", spk_solver_factorization(r->s));
    if (spk_solver_pivoted(r->s) >= 0)
        fprintf(out, "pivot     static pivoting moved %d of %d rows (maximum product matching) for a nonzero diagonal\n",
                spk_solver_pivoted(r->s), r->n);
    if (r->res.shift > 0)
        fprintf(out, "shift     %s needed A + alpha*diag(A) with alpha = %g\n",
                spk_solver_precond(r->s), r->res.shift);
    const int gmres = strcmp(spk_solver_method(r->s), "gmres") == 0;
    if (r->res.restarts > 0 && gmres)
        fprintf(out, "restart   GMRES restarted %d time%s from the true residual (every %d iterations)\n",
                r->res.restarts, r->res.restarts == 1 ? "" : "s", o->gmres_restart);
    else if (r->res.restarts > 0)
        fprintf(out, "restart   BiCGStab restarted %d time%s with a fresh shadow residual after "
                     "a breakdown\n",
                r->res.restarts, r->res.restarts == 1 ? "" : "s");
    fprintf(out, "result    %s after %d iterations\n", spk_reason_name(r->res.reason), r->res.iterations);
    fprintf(out, "residual  ||r||/||b||: recurrence %.3e, true %.3e (rtol %.1e)\n", r->res.relres,
            r->res.true_relres, o->rtol);
    if (r->xstar) fprintf(out, "error     ||x - x*||_inf = %.3e\n", r->err);
    if (o->vector_ops != SPK_VECTOR_CLASSIC && !gmres && !r->complex) { /* GMRES and complex systems: one
                                                                             operation at a time */
        char how[64] = "fused vector steps"; /* graphs: where some ran */
        if (r->res.graph_iterations > 0)
            snprintf(how, sizeof how, "fused vector steps, %d iterations replayed as graphs", r->res.graph_iterations);
        if (r->res.block_iterations > 0 && r->res.block_cluster > 1)
            snprintf(how, sizeof how, "%d iterations in a cluster of %d thread blocks", r->res.block_iterations,
                     r->res.block_cluster);
        else if (r->res.block_iterations > 0)
            snprintf(how, sizeof how, "%d iterations in one thread block", r->res.block_iterations);
        fprintf(out, "time      setup %.3f ms, solve %.3f ms (spmv %.3f, precond %.3f, vector %.3f, "
                     "launches and waits %.3f; %s)\n",
                1e3 * r->res.t_setup, 1e3 * r->res.t_total, 1e3 * r->res.t_spmv, 1e3 * r->res.t_precond,
                1e3 * r->res.t_vector, 1e3 * r->res.t_sync, how);
    }
    else
        fprintf(out, "time      setup %.3f ms, solve %.3f ms (spmv %.3f, precond %.3f, vector %.3f)\n",
                1e3 * r->res.t_setup, 1e3 * r->res.t_total, 1e3 * r->res.t_spmv, 1e3 * r->res.t_precond,
                1e3 * r->res.t_vector);
    fprintf(out, "setup     upload %.3f ms, checks %.3f, format %.3f, preconditioner %.3f\n",
            1e3 * r->res.t_setup_upload, 1e3 * r->res.t_setup_check, 1e3 * r->res.t_setup_format,
            1e3 * r->res.t_setup_precond);
    if (r->st != SPK_OK) fprintf(stderr, "spk solve: %s: %s\n", a->matrix, spk_last_error(r->ctx));
}

int cmd_solve(int argc, char **argv)
{
    solve_args a;
    int pr = solve_args_parse(argc, argv, &a);
    if (pr < 0) return CLI_OK;
    if (pr) return pr;

    solve_run r;
    memset(&r, 0, sizeof r);
    int rc = CLI_FAIL;
    FILE *out = a.json ? stderr : stdout;
    const char *inputs[2] = {a.matrix, a.rhs};
    size_t limit = 0;
    if ((rc = cli_parse_bytes("solve", a.max_memory, &limit)) != CLI_OK) goto done;
    rc = CLI_FAIL;
    if (cli_check_output("solve", "out", a.out, inputs, 2)) goto done;
    if (a.out_failed && !a.out) {
        rc = cli_usage_error("solve", "--out-failed needs --out FILE");
        goto done;
    }
    if (open_context(&a, &r)) goto done;
    spk_context_set_memory_limit(r.ctx, limit);
    spk_context_set_threads(r.ctx, a.threads);
    if (load_matrix(&a, &r) || make_vectors(&a, &r)) goto done;
    if (a.monitor) {
        a.o.monitor = monitor_print;
        a.o.monitor_user = out;
        if (a.json) a.o.keep_history = 1; /* the residuals go into the JSON too */
    }
    cli_progress progress;
    watch_progress(&a, &progress);
    if (spk_solver_create(r.ctx, r.A, (spk_solver_kind)a.solver, (spk_precond_kind)a.precond, &a.o, &r.s)) {
        fprintf(stderr, "spk solve: %s: %s\n", a.matrix, spk_last_error(r.ctx));
        goto done;
    }
    /* the setup's lines after the solve, which may change the preconditioner
     * (the probe's choice), except where a monitor prints during it */
    if (!a.json && a.monitor) print_setup(&a, &r, out);
    r.st = r.complex ? spk_solve_complex(r.s, r.b, r.x, &r.res) : spk_solve(r.s, r.b, r.x, &r.res);
    cli_progress_clear(&progress);
    if (!a.json && !a.monitor) print_setup(&a, &r, out);
    if (r.st != SPK_OK && r.st != SPK_ERR_NOT_CONVERGED && r.st != SPK_ERR_BREAKDOWN && r.st != SPK_ERR_INDEFINITE) {
        fprintf(stderr, "spk solve: %s: %s\n", a.matrix, spk_last_error(r.ctx));
        goto done;
    }
    r.err = NAN;
    if (r.xstar) {
        r.err = 0;
        for (int i = 0; i < r.n; i++)
            r.err = fmax(r.err, r.complex ? hypot(r.x[2 * i] - r.xstar[2 * i], r.x[2 * i + 1] - r.xstar[2 * i + 1])
                                          : fabs(r.x[i] - r.xstar[i]));
    }
    if (a.json)
        print_json(&a, &r);
    else
        print_text(&a, &r, out);
    if (a.out && r.st != SPK_OK && !a.out_failed) {
        fprintf(stderr, "spk solve: %s not written: the solve did not converge (--out-failed writes the last "
                        "iterate)\n", a.out);
    } else if (a.out && (r.complex ? spk_vector_write_complex(r.ctx, a.out, r.n, r.x)
                                   : spk_vector_write(r.ctx, a.out, r.n, r.x))) {
        fprintf(stderr, "spk solve: %s\n", spk_last_error(r.ctx));
        goto done;
    }
    rc = r.st == SPK_OK ? CLI_OK : CLI_FAIL;
done:
    free(r.b);
    free(r.x);
    free(r.xstar);
    spk_solver_destroy(r.s);
    spk_matrix_destroy(r.A);
    spk_context_destroy(r.ctx);
    return rc;
}
