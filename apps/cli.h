/* cli.h -- what the spk subcommands share: usage errors, and options parsed,
 * checked and described through the option tables (core/options.h): each
 * command's own table over its arguments struct, and the library's keys
 * into an spk_options. */
#ifndef SPK_APPS_CLI_H
#define SPK_APPS_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "core/options.h"
#include "json.h"

/* Exit codes: 0 success, 1 failure (bad file, no convergence), 2 usage error. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };
/* cli_parse_args' answer when --help was asked (the caller prints it). */
#define CLI_HELP (-1)

/* Print "spk cmd: message" and a hint to stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* 1 if arg is exactly "--name". */
int cli_flag(const char *arg, const char *name);
/* 1 if arg asks for help: --help or -h. */
int cli_is_help(const char *arg);

/* The names of --device (spk_device), --solver (spk_solver_kind) and
 * --precond (spk_precond_kind). */
extern const spk_opt_name cli_device_names[], cli_solver_names[], cli_precond_names[];

/* A command's own option stored in its arguments struct T, member f. */
#define CLI_ARG(T, f) .field = #f, .at = {offsetof(T, f), offsetof(T, f)}

/* A command's options: its own table over args, and the library's keys of
 * the components named in owners ("solver,precond,spmv") into *o. */
typedef struct cli_parser {
    const char *cmd;          /* "solve", for messages */
    const spk_opt_table *own; /* the command's own options (NULL: none) */
    void *args;               /* ... stored here */
    spk_options *o;           /* the library's keys (NULL: none) */
    const char *owners;       /* which components' keys, comma-separated */
    const spk_opt *last;      /* the option argv's last one was */
    const spk_opt *given[64]; /* the library keys given, in order (repeats once) */
    int ngiven;
} cli_parser;

/* argv[*i] as an option of p: --KEY VALUE, --KEY=VALUE, --SWITCH,
 * --no-SWITCH.  Returns 1 when taken (*i past its value, p->last the option),
 * 0 for an argument that is not an option, CLI_USAGE after printing why it
 * is refused (an unknown option with the close ones, a bad value with the
 * accepted ones). */
int cli_parse_option(cli_parser *p, int argc, char **argv, int *i);
/* Every argument of argv through p: an option into its table, then
 * each(p, NULL, arg) with p->last that option; another word to each(p,
 * word, arg).  CLI_OK; CLI_USAGE for a refused option or each's nonzero
 * status; CLI_HELP when --help was asked. */
int cli_parse_args(cli_parser *p, int argc, char **argv, int (*each)(cli_parser *p, const char *word, void *arg),
                   void *arg);
/* Was the library key `key` given on the command line? */
int cli_given(const cli_parser *p, const char *key);
/* Check the library's keys together (their combinations); CLI_USAGE after
 * printing why not. */
int cli_check_options(const cli_parser *p);
/* The help lines of p's own options, then the library's, by component. */
void cli_print_options(const cli_parser *p);
/* The value of library key `key` in o as text ("block", "1e-8"). */
const char *cli_option_text(const spk_options *o, const char *key, char *buf, size_t len);

/* --max-memory's text ("4G", "512M", "100k", "1000000"; binary units, a
 * trailing B allowed) as bytes in *out (NULL text: 0, no limit); CLI_USAGE
 * after printing why it is not a size. */
int cli_parse_bytes(const char *cmd, const char *text, size_t *out);

/* An output file checked before the work whose result it will hold
 * (cli_output.c): its folder exists and takes new files, it is no folder,
 * and it is none of the inputs (NULL or gen:SPEC inputs are skipped).
 * CLI_OK, or CLI_FAIL after printing why ("spk CMD: --OPT PATH: ..."). */
int cli_check_output(const char *cmd, const char *opt, const char *path, const char *const *inputs, int ninputs);

/* A progress line on stderr for long work, rewritten in place with "\r",
 * only where stderr is a terminal (never into a pipe or a file, so logs and
 * JSON stay clean), at most 4 times a second (cli_output.c). */
typedef struct cli_progress {
    int on;         /* wanted, and stderr is a terminal */
    double t0;      /* when the work began (spk_time_now) */
    double last;    /* when the line was last written (< 0: never) */
    double after;   /* seconds of work before a solve shows it (SPK_PROGRESS_AFTER, default 2) */
    int shown;      /* characters of the line on the screen (0: none) */
} cli_progress;
/* Start the clock; the line is shown only where want and isatty(stderr). */
void cli_progress_start(cli_progress *p, int want);
double cli_progress_elapsed(const cli_progress *p);
/* Rewrite the line (printf-style), unless it was written under 0.25 s ago and not force. */
void cli_progress_show(cli_progress *p, int force, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Erase the line: before other output to stderr, and when the work ends. */
void cli_progress_clear(cli_progress *p);
/* s seconds as "4.2 s", "3 min 07 s" or "2 h 05 min" ("?" when unknown). */
void cli_progress_duration(double s, char *buf, size_t len);

int cmd_solve(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* The only format spk writes a matrix in is Matrix Market: an output name
 * that says otherwise (s3.csv) is a usage error (printed; CLI_USAGE), an
 * existing device or FIFO (/dev/stdout) is written as it is. */
int cli_check_mtx_name(const char *cmd, const char *path);
/* 1 (and a message naming the command and the input) where name is a
 * complex Matrix Market file or complex gen: spec, which the command cmd,
 * working on real matrices, cannot take; else 0. */
int cli_complex_input(const char *cmd, const char *name);
/* The number of MPI ranks this process was started as one of (mpirun's,
 * or another launcher's, environment; 0: not started by one, or SPK_MPI=0). */
int cli_mpi_ranks(void);
/* `spk solve` across MPI ranks (cmd_solve_dist.c; a build with MPI). */
int cmd_solve_dist(int argc, char **argv);

#endif
