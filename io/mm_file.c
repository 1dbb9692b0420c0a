/* mm_file.c -- Matrix Market files in, a window at a time (mm_parse.h),
 * and files out (mm_file.h): names ending in ".gz" go through zlib both
 * ways; writes go to a temporary file renamed over the target once
 * complete. */
#define _XOPEN_SOURCE 700 /* realpath (XSI), on top of the POSIX 2008 the build asks for */
#include "io/mm_file.h"
#include "io/mm_parse.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- loading files ------------------------------------------------------ */

/* Does s end with suffix? */
static int mm_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* A file read a window at a time (mm_parse.h): plain through stdio, or
 * through zlib (which also passes plain content through unchanged). */
struct mm_source {
    const char *path;
    FILE *f;
    gzFile gz;
    char *buf;
    size_t cap; /* the window's bytes */
    int eof;
};

static size_t window_next = MM_WINDOW, line_max_next = MM_LINE_MAX;

void spk_mm_set_window(size_t window, size_t line_max)
{
    const int ok = window >= 2 && line_max >= 1 && line_max <= window / 2;
    window_next = ok ? window : MM_WINDOW;
    line_max_next = ok ? line_max : MM_LINE_MAX;
}

/* zlib's state after a read: an error naming the file, or SPK_OK. */
static int mm_gz_status(gzFile gz, const char *path, spk_err *e)
{
    int zerr = Z_OK;
    const char *zmsg = gzerror(gz, &zerr);
    if (zerr == Z_ERRNO) return spk_err_set(e, SPK_ERR_IO, "error reading '%s': %s", path, strerror(errno));
    if (zerr == Z_MEM_ERROR) return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory in zlib", path);
    if (zerr != Z_OK) { /* Z_BUF_ERROR: the data ended inside a member */
        size_t n = strlen(path); /* zlib puts "path: " in front of its message */
        if (strncmp(zmsg, path, n) == 0 && zmsg[n] == ':' && zmsg[n + 1] == ' ') zmsg += n + 2;
        return spk_err_set(e, SPK_ERR_IO, "%s: truncated or corrupt gzip data (zlib: %s)", path, zmsg);
    }
    return SPK_OK;
}

/* Read up to want bytes into to: *got, and s->eof at the end of the file. */
static int mm_read_some(mm_source *s, char *to, size_t want, size_t *got, spk_err *e)
{
    *got = 0;
    if (s->gz) {
        const int n = gzread(s->gz, to, (unsigned)want);
        if (n < 0) return mm_gz_status(s->gz, s->path, e);
        *got = (size_t)n;
        if (n == 0) {
            s->eof = 1;
            return mm_gz_status(s->gz, s->path, e);
        }
        return SPK_OK;
    }
    *got = fread(to, 1, want, s->f);
    if (*got == 0) {
        if (ferror(s->f)) return spk_err_set(e, SPK_ERR_IO, "error reading '%s': %s", s->path, strerror(errno));
        s->eof = 1;
    }
    return SPK_OK;
}

int spk_mm_refill(mm_parser *ps, const char **pp, const char **pend, spk_err *e)
{
    mm_source *s = ps->src;
    if (!s || s->eof) return SPK_OK;
    size_t len = (size_t)(*pend - *pp);
    memmove(s->buf, *pp, len);
    while (len < s->cap && !s->eof) {
        size_t got = 0;
        SPK_TRY(mm_read_some(s, s->buf + len, s->cap - len, &got, e));
        len += got;
    }
    ps->begin = *pp = s->buf;
    ps->end = *pend = s->buf + len;
    ps->more = !s->eof;
    if (len > 0) ps->last_nl = s->buf[len - 1] == '\n'; /* the window ends with the last byte read */
    return SPK_OK;
}

int spk_mm_next_content(mm_parser *ps, const char **pp, const char **pend, long long *line, int *found, spk_err *e)
{
    for (;;) {
        if (ps->more && (size_t)(*pend - *pp) < ps->line_max) SPK_TRY(spk_mm_refill(ps, pp, pend, e));
        const int r = mm_next_line(pp, *pend, line, ps->more);
        if (r == 1 && ps->more && (size_t)(*pend - *pp) < ps->line_max) {
            SPK_TRY(spk_mm_refill(ps, pp, pend, e)); /* the content line whole in the window */
        }
        if (r >= 0) {
            *found = r;
            return SPK_OK;
        }
        if ((size_t)(*pend - *pp) >= ps->line_max) /* a blank or comment line that fills the window */
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: a line longer than %zu bytes", ps->name, *line,
                               ps->line_max);
    }
}

int spk_mm_open(const char *path, mm_parser *ps, spk_err *e)
{
    memset(ps, 0, sizeof *ps);
    ps->name = path;
    ps->line = 1;
    mm_source *s = calloc(1, sizeof *s);
    char *buf = malloc(window_next);
    if (!s || !buf) {
        free(s);
        free(buf);
        return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory", path);
    }
    s->path = path;
    s->buf = buf;
    s->cap = window_next;
    ps->line_max = line_max_next;
    errno = 0;
    if (mm_ends_with(path, ".gz")) {
        s->gz = gzopen(path, "rb");
        if (s->gz) gzbuffer(s->gz, 1u << 18);
    } else {
        s->f = fopen(path, "rb");
    }
    if (!s->gz && !s->f) {
        const int err = errno;
        free(buf);
        free(s);
        return spk_err_set(e, SPK_ERR_IO, "cannot open '%s': %s", path, err ? strerror(err) : "out of memory");
    }
    ps->src = s;
    ps->more = 1;
    ps->begin = ps->p = ps->end = buf;
    const int st = spk_mm_refill(ps, &ps->p, &ps->end, e);
    if (st) spk_mm_close(ps);
    return st;
}

void spk_mm_close(mm_parser *ps)
{
    mm_source *s = ps ? ps->src : NULL;
    if (!s) return;
    if (s->gz) gzclose_r(s->gz);
    if (s->f) fclose(s->f);
    free(s->buf);
    free(s);
    ps->src = NULL;
    ps->more = 0;
    ps->begin = ps->p = ps->end = NULL;
}

/* ---- files out ---------------------------------------------------------- */

/* The temporary file being written now, for spk_mm_remove_pending (a
 * signal handler's): the path is copied before the flag is set, and the
 * flag cleared after the file was renamed or removed, so the handler sees
 * a whole path or none. */
static char pending_path[4096];
static volatile sig_atomic_t pending_set;

static void pending_begin(const char *tmp)
{
    pending_set = 0;
    if (strlen(tmp) >= sizeof pending_path) return;
    memcpy(pending_path, tmp, strlen(tmp) + 1);
    pending_set = 1;
}

void spk_mm_remove_pending(void)
{
    if (pending_set) unlink(pending_path); /* async-signal-safe */
}

/* Open path for writing (gzip when it ends in ".gz") with an empty buffer. */
int spk_mm_out_open(mm_out *o, const char *path, spk_err *e)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->cap = MM_OUT_BUF;
    o->buf = malloc(o->cap + MM_OUT_SLACK);
    if (!o->buf) return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory", path);
    struct stat sb, lsb;
    const int exists = stat(path, &sb) == 0;
    int fd = -1, in_place = exists && !S_ISREG(sb.st_mode);
    errno = 0;
    if (in_place) {
        fd = open(path, O_WRONLY | O_TRUNC);
    } else {
        /* through a symbolic link the file it names is replaced, not the link */
        const int link = exists && lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode);
        o->target = link ? realpath(path, NULL) : strdup(path);
        static unsigned serial;
        size_t n = (o->target ? strlen(o->target) : 0) + 48;
        o->tmp = o->target ? malloc(n) : NULL;
        for (int k = 0; o->tmp && k < 100; k++) {
            snprintf(o->tmp, n, "%s.tmp-%ld-%u", o->target, (long)getpid(), serial++);
            pending_begin(o->tmp); /* before the file exists: a signal at any time after finds it */
            fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666); /* umask applies, as for fopen */
            if (fd >= 0 || errno != EEXIST) break;
        }
        if (fd >= 0 && exists) (void)fchmod(fd, sb.st_mode & 07777); /* keep the old file's mode */
        if (fd < 0) pending_set = 0;
    }
    if (fd >= 0) {
        if (mm_ends_with(path, ".gz")) {
            o->gz = gzdopen(fd, "wb");
            if (o->gz) gzbuffer(o->gz, 1u << 18);
        } else {
            o->f = fdopen(fd, "wb");
        }
        if (!o->gz && !o->f) close(fd);
    }
    if (!o->gz && !o->f) {
        int err = errno;
        if (fd >= 0 && o->tmp) unlink(o->tmp);
        pending_set = 0;
        free(o->buf);
        free(o->tmp);
        free(o->target);
        o->buf = o->tmp = o->target = NULL;
        return spk_err_set(e, SPK_ERR_IO, "cannot open '%s' for writing: %s", path,
                           err ? strerror(err) : "out of memory");
    }
    return SPK_OK;
}

/* Write out the buffered bytes. */
int spk_mm_out_flush(mm_out *o, spk_err *e)
{
    if (o->len == 0) return SPK_OK;
    if (o->f) {
        if (fwrite(o->buf, 1, o->len, o->f) != o->len)
            return spk_err_set(e, SPK_ERR_IO, "error writing '%s': %s", o->path, strerror(errno));
    } else {
        if (gzwrite(o->gz, o->buf, (unsigned)o->len) != (int)o->len) {
            int zerr = Z_OK;
            const char *zmsg = gzerror(o->gz, &zerr);
            return spk_err_set(e, SPK_ERR_IO, "error writing '%s': %s", o->path,
                               zerr == Z_ERRNO ? strerror(errno) : zmsg);
        }
    }
    o->len = 0;
    return SPK_OK;
}

/* Append a string of any length. */
int spk_mm_out_puts(mm_out *o, const char *s, size_t n, spk_err *e)
{
    if (o->len >= o->cap) SPK_TRY(spk_mm_out_flush(o, e));
    while (n) {
        size_t k = o->cap - o->len < n ? o->cap - o->len : n;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
        if (o->len == o->cap) SPK_TRY(spk_mm_out_flush(o, e));
    }
    return SPK_OK;
}

/* Flush and close; st is the status so far.  On success the temporary file
 * replaces path; on any error it is removed and path is left as it was. */
int spk_mm_out_close(mm_out *o, int st, spk_err *e)
{
    if (!st) st = spk_mm_out_flush(o, e);
    if (o->f) {
        if (fclose(o->f) != 0 && !st)
            st = spk_err_set(e, SPK_ERR_IO, "error writing '%s': %s", o->path, strerror(errno));
    } else if (o->gz) {
        int zst = gzclose_w(o->gz);
        if (zst != Z_OK && !st)
            st = spk_err_set(e, SPK_ERR_IO, "error writing '%s': %s", o->path,
                             zst == Z_ERRNO ? strerror(errno) : zError(zst));
    }
    if (o->tmp) {
        if (!st && rename(o->tmp, o->target) != 0)
            st = spk_err_set(e, SPK_ERR_IO, "cannot replace '%s': %s", o->path, strerror(errno));
        if (st) unlink(o->tmp);
        pending_set = 0;
        free(o->tmp);
    }
    free(o->target);
    free(o->buf);
    memset(o, 0, sizeof *o);
    return st;
}
