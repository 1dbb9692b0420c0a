/* spk.c -- the spk command: dispatch to the subcommands. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "io/mmio.h"
#include "spk.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: spk COMMAND [options]\n"
            "\n"
            "Solve sparse linear systems Ax = b with preconditioned Krylov methods.\n"
            "\n"
            "commands:\n"
            "  solve    solve A x = b from a Matrix Market file (CG+IC(0) or BiCGStab+ILU(0))\n"
            "  info     size, symmetry, diagonal and row statistics of a matrix\n"
            "  gen      write a model problem (2D/3D Poisson, 3D convection-diffusion)\n"
            "  convert  rewrite a Matrix Market file (compress, expand or fold symmetry)\n"
            "  bench    time the SpMV (and solve) of every format against the baseline\n"
            "\n"
            "'spk COMMAND --help' describes a command.  Exit codes: 0 success, 1 failure,\n"
            "2 usage error.\n");
}

/* SIGINT, SIGTERM, SIGHUP: the write in progress leaves no temporary file;
 * then the signal's default action, so the exit status says it. */
static void on_signal(int sig)
{
    spk_mm_remove_pending();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_signals(void)
{
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction old, sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        /* a signal the caller ignores (nohup) stays ignored */
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN) sigaction(sigs[k], &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    catch_signals();
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("spk %s\n", spk_version());
        return CLI_OK;
    }
    if (strcmp(cmd, "solve") == 0) {
        const int ranks = cli_mpi_ranks();
        if (ranks > 1) {
#ifdef SPK_HAVE_MPI
            return cmd_solve_dist(argc - 1, argv + 1);
#else
            fprintf(stderr, "spk solve: started as one of %d MPI ranks, but this spk was built without MPI, so each "
                            "rank would solve the whole system alone: run one process, or build spk where MPI "
                            "is found (Debian/Ubuntu: apt-get install libopenmpi-dev)\n", ranks);
            return CLI_FAIL;
#endif
        }
        return cmd_solve(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "info") == 0) return cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "gen") == 0) return cmd_gen(argc - 1, argv + 1);
    if (strcmp(cmd, "convert") == 0) return cmd_convert(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 1, argv + 1);
    fprintf(stderr, "spk: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return CLI_USAGE;
}
