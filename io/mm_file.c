/* mm_file.c -- whole Matrix Market files in, and files out (mm_file.h):
 * names ending in ".gz" go through zlib both ways; writes go to a temporary
 * file renamed over the target once complete. */
#define _XOPEN_SOURCE 700 /* realpath (XSI), on top of the POSIX 2008 the build asks for */
#include "io/mm_file.h"

#include <errno.h>
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

/* Grow buf to at least need bytes (doubling). */
static int mm_buf_grow(char **buf, size_t *cap, size_t need, const char *path, spk_err *e)
{
    size_t c = *cap ? *cap : 65536;
    while (c < need) c = c > SIZE_MAX / 2 ? need : c * 2;
    char *b = realloc(*buf, c);
    if (!b)
        return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu bytes to read the file)",
                           path, c);
    *buf = b;
    *cap = c;
    return SPK_OK;
}

/* Read the whole file into a malloc'd buffer; names ending in ".gz" are read
 * through zlib (which passes plain content through unchanged). */
int spk_mm_load(const char *path, char **out, size_t *outlen, spk_err *e)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int st = SPK_OK;
    struct stat sb;
    long long fsize = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (long long)sb.st_size : -1;
    if (!mm_ends_with(path, ".gz")) {
        FILE *f = fopen(path, "rb");
        if (!f) return spk_err_set(e, SPK_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
        SPK_CHECK(st, mm_buf_grow(&buf, &cap, fsize >= 0 ? (size_t)fsize + 1 : 65536, path, e));
        for (;;) {
            if (len == cap) {
                st = mm_buf_grow(&buf, &cap, cap + 1, path, e);
                if (st) break;
            }
            size_t got = fread(buf + len, 1, cap - len, f);
            len += got;
            if (got == 0) {
                if (ferror(f))
                    st =
                        spk_err_set(e, SPK_ERR_IO, "error reading '%s': %s", path, strerror(errno));
                break;
            }
        }
        fclose(f);
        goto cleanup;
    }
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return spk_err_set(e, SPK_ERR_IO, "cannot open '%s': %s", path,
                           errno ? strerror(errno) : "out of memory");
    gzbuffer(gz, 1u << 18);
    st = mm_buf_grow(&buf, &cap,
                     fsize > 0 && fsize < (1LL << 40) ? 4 * (size_t)fsize + 65536 : 65536, path, e);
    while (!st) {
        if (len == cap && (st = mm_buf_grow(&buf, &cap, cap + 1, path, e))) break;
        size_t want = cap - len;
        if (want > (1u << 30)) want = 1u << 30;
        int got = gzread(gz, buf + len, (unsigned)want);
        if (got <= 0) break;
        len += (size_t)got;
    }
    if (!st) {
        int zerr = Z_OK;
        const char *zmsg = gzerror(gz, &zerr);
        if (zerr == Z_ERRNO)
            st = spk_err_set(e, SPK_ERR_IO, "error reading '%s': %s", path, strerror(errno));
        else if (zerr == Z_MEM_ERROR)
            st = spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory in zlib", path);
        else if (zerr != Z_OK) {
            size_t n = strlen(path); /* zlib puts "path: " in front of its message */
            if (strncmp(zmsg, path, n) == 0 && zmsg[n] == ':' && zmsg[n + 1] == ' ') zmsg += n + 2;
            st = spk_err_set(e, SPK_ERR_IO, "%s: truncated or corrupt gzip data (zlib: %s)", path,
                             zmsg);
        }
    }
    gzclose_r(gz);
cleanup:
    if (st) {
        free(buf);
        return st;
    }
    *out = buf;
    *outlen = len;
    return SPK_OK;
}

/* ---- files out ---------------------------------------------------------- */

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
            fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666); /* umask applies, as for fopen */
            if (fd >= 0 || errno != EEXIST) break;
        }
        if (fd >= 0 && exists) (void)fchmod(fd, sb.st_mode & 07777); /* keep the old file's mode */
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
        free(o->tmp);
    }
    free(o->target);
    free(o->buf);
    memset(o, 0, sizeof *o);
    return st;
}
