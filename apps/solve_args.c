/* solve_args.c -- `spk solve`'s options, help and parsing (solve_args.h). */
#include "solve_args.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "spmv/spmv.h"

static const spk_opt_name partition_names[] = {{"rows", 0}, {"metis", 1}, {NULL, 0}};

static const spk_opt solve_keys[] = {
    {.key = "rhs", CLI_ARG(solve_args, rhs), .type = SPK_OPT_STRING, .meta = "FILE",
     .help = "right-hand side b (Matrix Market array or n x 1 coordinate)"},
    {.key = "rhs-kind", CLI_ARG(solve_args, rhs_kind), .type = SPK_OPT_STRING, .meta = "K",
     .help = "without --rhs, b = A x* for a known x*: ones (x* = 1, the default) or random[:SEED] (x* uniform "
             "in [-1, 1) from SEED, 1 by default); the error against x* is reported"},
    {.key = "solver", CLI_ARG(solve_args, solver), .type = SPK_OPT_ENUM, .names = cli_solver_names, .meta = "S",
     .help = "auto: CG for a symmetric matrix with a positive diagonal, BiCGStab otherwise; when CG finds the "
             "matrix indefinite, auto switches to BiCGStab + ILU(0).  A complex matrix: CG if Hermitian with a "
             "positive real diagonal, cocg (conjugate orthogonal CG) if complex symmetric, else BiCGStab"},
    {.key = "precond", CLI_ARG(solve_args, precond), .type = SPK_OPT_ENUM, .names = cli_precond_names,
     .meta = "P",
     .help = "factor: IC(0) with CG, ILU(0) with BiCGStab; auto: the same, but on the GPU none for a matrix "
             "shaped like a Laplacian (constant diagonal, weakly diagonally dominant rows), where they do not "
             "pay for their apply; for a complex matrix none (on the GPU Jacobi where the diagonal varies)"},
    {.key = "device", CLI_ARG(solve_args, device), .type = SPK_OPT_ENUM, .names = cli_device_names, .meta = "D",
     .help = "where to solve (auto: the GPU when usable)"},
    {.key = "out", CLI_ARG(solve_args, out), .type = SPK_OPT_STRING, .meta = "FILE",
     .help = "write x (Matrix Market array, .gz compresses) where the solve converged; checked before A "
             "is read (its folder exists and is writable, it is not an input)"},
    {.key = "out-failed", CLI_ARG(solve_args, out_failed), .type = SPK_OPT_FLAG,
     .help = "with --out: write the last iterate also where the solve did not converge (default: write "
             "nothing then)"},
    {.key = "max-memory", CLI_ARG(solve_args, max_memory), .type = SPK_OPT_STRING, .meta = "SIZE",
     .help = "the most memory reading A and b may hold (e.g. 4G, 512M): beyond it the read stops with an "
             "error (default: no limit)"},
    {.key = "threads", CLI_ARG(solve_args, threads), .type = SPK_OPT_INT, .min = 0, .max = 4096, .def = 0,
     .meta = "N",
     .help = "the host threads (OpenMP) the setup and the solve run on; 0: OMP_NUM_THREADS, else every core "
             "(under mpirun: the node's cores shared among its ranks); x has the same bits whatever N"},
    {.key = "monitor", CLI_ARG(solve_args, monitor), .type = SPK_OPT_FLAG,
     .help = "print the residual of every iteration"},
    {.key = "json", CLI_ARG(solve_args, json), .type = SPK_OPT_FLAG, .help = "print one JSON object instead of text"},
    {.key = "partition", CLI_ARG(solve_args, partition), .type = SPK_OPT_ENUM, .names = partition_names,
     .meta = "P",
     .help = "under mpirun with several ranks: how A's rows are shared out: rows, contiguous blocks balanced "
             "by nonzeros; metis, METIS's graph parts (fewer halo entries where the numbering does not "
             "follow the geometry); ignored by a single process"},
};
static const spk_opt_table solve_options = {"solve", solve_keys, (int)(sizeof solve_keys / sizeof *solve_keys), NULL};

static void help(const cli_parser *p)
{
    printf("usage: spk solve (A.mtx[.gz] | gen:SPEC) [options]\n"
           "\n"
           "Solve A x = b.  gen:SPEC makes a model problem in memory (see spk gen --help),\n"
           "e.g. gen:poisson3d-27:100.  Without --rhs, b = A*1 and the error ||x - 1||_inf is reported too\n"
           "(when A*1 = 0, b = A*r for a fixed pseudo-random r, and the error is against r);\n"
           "--rhs-kind random makes b = A*x* for x* uniform in [-1, 1) instead.\n"
           "Every option is --KEY VALUE or --KEY=VALUE.\n"
           "\n"
           "options:\n");
    cli_print_options(p);
    printf("\nSpMV formats (--format NAME):\n");
    for (const struct spk_spmv_ops *const *q = spk_spmv_list(); *q; q++) {
        int seen = 0; /* a format with a host and a CUDA entry is listed once */
        for (const struct spk_spmv_ops *const *r = spk_spmv_list(); r != q; r++)
            seen |= strcmp((*r)->name, (*q)->name) == 0;
        if (!seen) printf("  %-19s %s\n", (*q)->name, (*q)->summary);
    }
    printf("\nUnder mpirun with several ranks (a build with MPI), rank 0 reads A and b and shares out\n"
           "their rows (gen:SPEC: each rank makes its own rows), CG or BiCGStab run on the host ranks\n"
           "with factor, ic0 and ilu0 meaning block-Jacobi (each rank's IC(0)/ILU(0) of its diagonal block;\n"
           "the default), the report is printed once and --out gathered on rank 0.\n");
    printf("\nExit status: 0 converged, 1 not converged or failed, 2 usage error.\n");
}

/* A word that is no option: the matrix file or gen:SPEC (one only). */
static int solve_word(cli_parser *p, const char *word, void *arg)
{
    solve_args *a = arg;
    (void)p;
    if (!word) return CLI_OK;
    if (a->matrix) return cli_usage_error("solve", "unexpected argument '%s' (one matrix file only)", word);
    a->matrix = word;
    return CLI_OK;
}

int solve_args_parse(int argc, char **argv, solve_args *a)
{
    memset(a, 0, sizeof *a);
    spk_options_default(&a->o);
    cli_parser p = {.cmd = "solve", .own = &solve_options, .args = a, .o = &a->o, .owners = "solver,precond,spmv"};
    const int r = cli_parse_args(&p, argc, argv, solve_word, a);
    if (r == CLI_HELP) help(&p);
    if (r) return r == CLI_HELP ? -1 : r;
    if (!a->matrix) return cli_usage_error("solve", "missing the matrix file");
    spk_err e;
    spk_err_clear(&e);
    if (spk_rhs_kind_parse(a->rhs_kind, &a->kind, &e)) return cli_usage_error("solve", "--rhs-kind: %s", e.msg);
    if (a->rhs && a->rhs_kind)
        return cli_usage_error("solve", "--rhs-kind makes b from a known solution; it does not go with --rhs");
    return cli_check_options(&p);
}

