/* test_signal.c -- an interrupted write leaves nothing behind: `spk gen`
 * writing a large .gz is sent SIGTERM (and SIGINT) while its temporary file
 * exists; it must die of that signal with the temporary file removed and
 * the target never created.  argv: the spk binary, a scratch folder. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* Is a file whose name holds ".tmp-" in dir? */
static int has_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *de; d && !found && (de = readdir(d));) found = strstr(de->d_name, ".tmp-") != NULL;
    if (d) closedir(d);
    return found;
}

static void interrupted_write(const char *spk, const char *dir, int sig)
{
    char target[1024];
    snprintf(target, sizeof target, "%s/big-%d.mtx.gz", dir, sig);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        signal(sig, SIG_DFL); /* a test run in the background inherits SIGINT ignored */
        execl(spk, spk, "gen", "poisson3d-7:90", target, (char *)NULL);
        _exit(127);
    }
    CHECK(pid > 0, "fork");
    if (pid <= 0) return;
    /* wait (at most 60 s) for the temporary file, then interrupt the write */
    int seen = 0, ws = 0, done = 0;
    for (int k = 0; k < 60000 && !seen && !done; k++) {
        seen = has_tmp(dir);
        if (!seen) {
            done = waitpid(pid, &ws, WNOHANG) == pid;
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
    }
    CHECK(seen, "signal %d: the temporary file of the write never appeared (done %d)", sig, done);
    if (!done) {
        kill(pid, sig);
        CHECK(waitpid(pid, &ws, 0) == pid, "waitpid");
    }
    CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == sig, "signal %d: the write did not end by it (status %#x)", sig, ws);
    CHECK(!has_tmp(dir), "signal %d: the temporary file was left behind", sig);
    struct stat sb;
    CHECK(stat(target, &sb) != 0, "signal %d: %s was created by an interrupted write", sig, target);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SPK DIR\n", argv[0]);
        return 2;
    }
    mkdir(argv[2], 0777);
    char dir[1024]; /* a fresh folder: nothing left from another run counts */
    snprintf(dir, sizeof dir, "%s/run-XXXXXX", argv[2]);
    CHECK(mkdtemp(dir) != NULL, "mkdtemp %s", dir);
    interrupted_write(argv[1], dir, SIGTERM);
    interrupted_write(argv[1], dir, SIGINT);
    rmdir(dir); /* empty where every check passed */
    return check_exit();
}
