/* cli_output.c -- what the commands write besides their report: an output
 * file checked before the work whose result it holds (a solve that runs for
 * minutes must not end on a folder that does not exist or on the input it
 * would overwrite), and the progress line of long work on a terminal. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "core/exec.h"

/* The folder of path in buf ("." where it names none). */
static void folder_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(buf, len, ".");
    } else if (slash == path) {
        snprintf(buf, len, "/");
    } else {
        const size_t n = (size_t)(slash - path);
        snprintf(buf, len, "%.*s", (int)(n < len - 1 ? n : len - 1), path);
    }
}

int cli_check_output(const char *cmd, const char *opt, const char *path, const char *const *inputs, int ninputs)
{
    if (!path) return CLI_OK;
    if (!*path) {
        fprintf(stderr, "spk %s: --%s: the file name is empty\n", cmd, opt);
        return CLI_FAIL;
    }
    char dir[4096];
    folder_of(path, dir, sizeof dir);
    struct stat sd, so;
    if (stat(dir, &sd) != 0 || !S_ISDIR(sd.st_mode)) {
        fprintf(stderr, "spk %s: --%s %s: the folder %s %s\n", cmd, opt, path, dir,
                stat(dir, &sd) != 0 ? "does not exist" : "is not a folder");
        return CLI_FAIL;
    }
    /* the file is written next to itself and renamed: the folder must take it */
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "spk %s: --%s %s: the folder %s is not writable (%s)\n", cmd, opt, path, dir,
                strerror(errno));
        return CLI_FAIL;
    }
    if (stat(path, &so) != 0) return CLI_OK; /* a new file */
    if (S_ISDIR(so.st_mode)) {
        fprintf(stderr, "spk %s: --%s %s: that is a folder, not a file\n", cmd, opt, path);
        return CLI_FAIL;
    }
    for (int i = 0; i < ninputs; i++) {
        struct stat si;
        if (!inputs[i] || stat(inputs[i], &si) != 0) continue; /* gen:SPEC, or no such input */
        if (si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            fprintf(stderr, "spk %s: --%s %s is the input %s: refusing to replace it\n", cmd, opt, path, inputs[i]);
            return CLI_FAIL;
        }
    }
    return CLI_OK;
}

/* ---- the progress line ------------------------------------------------- */

void cli_progress_start(cli_progress *p, int want)
{
    memset(p, 0, sizeof *p);
    p->on = want && isatty(STDERR_FILENO);
    p->t0 = spk_time_now();
    p->last = -1;
    const char *after = getenv("SPK_PROGRESS_AFTER");
    p->after = after && *after ? atof(after) : 2.0;
}

double cli_progress_elapsed(const cli_progress *p)
{
    return spk_time_now() - p->t0;
}

void cli_progress_show(cli_progress *p, int force, const char *fmt, ...)
{
    if (!p->on) return;
    const double now = spk_time_now();
    if (!force && p->last >= 0 && now - p->last < 0.25) return; /* at most 4 a second */
    p->last = now;
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n >= (int)sizeof line) n = (int)sizeof line - 1;
    /* spaces over the rest of a longer line before */
    fprintf(stderr, "\r%s%*s", line, p->shown > n ? p->shown - n : 0, "");
    fflush(stderr);
    p->shown = n;
}

void cli_progress_clear(cli_progress *p)
{
    if (!p->on || !p->shown) return;
    fprintf(stderr, "\r%*s\r", p->shown, "");
    fflush(stderr);
    p->shown = 0;
}

void cli_progress_duration(double s, char *buf, size_t len)
{
    if (!(s >= 0) || s > 1e7)
        snprintf(buf, len, "?");
    else if (s < 60)
        snprintf(buf, len, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, len, "%d min %02d s", (int)s / 60, (int)s % 60);
    else
        snprintf(buf, len, "%d h %02d min", (int)s / 3600, (int)s % 3600 / 60);
}
