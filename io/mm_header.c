/* mm_header.c -- the Matrix Market banner and size line (mm_parse.h). */
#include "io/mm_parse.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Are the n bytes at w the start of lit, ignoring case? */
static int mm_prefix_ci(const char *w, size_t n, const char *lit)
{
    for (size_t i = 0; i < n; i++) {
        if (!lit[i]) return 0;
        const char a = w[i] >= 'A' && w[i] <= 'Z' ? (char)(w[i] - 'A' + 'a') : w[i];
        const char b = lit[i] >= 'A' && lit[i] <= 'Z' ? (char)(lit[i] - 'A' + 'a') : lit[i];
        if (a != b) return 0;
    }
    return 1;
}

/* Parse line 1: %%MatrixMarket matrix FORMAT FIELD SYMMETRY. */
int spk_mm_parse_banner(mm_parser *ps, spk_mm_info *info, spk_err *e)
{
    const char *p = ps->p, *end = ps->end, *w[6];
    size_t wn[6];
    int nw = 0;
    char tok[64];
    /* a UTF-8 byte order mark, which some editors write, is no part of the banner */
    if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        ps->p = p += 3;
    if (p == end)
        return spk_err_set(e, SPK_ERR_PARSE, "%s:1: empty file (no %%%%MatrixMarket banner)",
                           ps->name);
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const int cut = !eol && ps->more; /* the banner line fills the whole window */
    if (!eol) eol = end;
    while (nw < 6) {
        while (p < eol && mm_blank(*p)) p++;
        if (p == eol) break;
        w[nw] = p;
        while (p < eol && !mm_blank(*p)) p++;
        wn[nw] = (size_t)(p - w[nw]);
        nw++;
    }
    /* the window ends before the first word does, and what it holds may still be the banner's */
    if (cut && (nw == 0 || (w[0] + wn[0] == end && wn[0] < 14 && mm_prefix_ci(w[0], wn[0], "%%MatrixMarket"))))
        return spk_err_set(e, SPK_ERR_PARSE, "%s:1: a line longer than %zu bytes", ps->name, ps->line_max);
    if (nw == 0 || !spk_mm_word_is(w[0], wn[0], "%%MatrixMarket")) {
        if (end - ps->p >= 2 && (unsigned char)ps->p[0] == 0x1f && (unsigned char)ps->p[1] == 0x8b)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:1: missing %%%%MatrixMarket banner (the file looks "
                               "gzip-compressed: name it *.gz)",
                               ps->name);
        return spk_err_set(e, SPK_ERR_PARSE, "%s:1: missing %%%%MatrixMarket banner", ps->name);
    }
    if (cut) return spk_err_set(e, SPK_ERR_PARSE, "%s:1: a line longer than %zu bytes", ps->name, ps->line_max);
    if (nw < 2)
        return spk_err_set(e, SPK_ERR_PARSE, "%s:1: banner is missing the object ('matrix')",
                           ps->name);
    if (!spk_mm_word_is(w[1], wn[1], "matrix"))
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: unsupported object '%s' in banner (expected 'matrix')", ps->name,
                           spk_mm_token(w[1], eol, tok, sizeof tok));
    if (nw < 3)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: banner is missing the format (coordinate or array)", ps->name);
    if (spk_mm_word_is(w[2], wn[2], "coordinate"))
        info->format = SPK_MM_COORDINATE;
    else if (spk_mm_word_is(w[2], wn[2], "array"))
        info->format = SPK_MM_ARRAY;
    else
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: unknown qualifier '%s' in banner (format must be coordinate or "
                           "array)",
                           ps->name, spk_mm_token(w[2], eol, tok, sizeof tok));
    if (nw < 4)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: banner is missing the field (real, integer or pattern)",
                           ps->name);
    if (spk_mm_word_is(w[3], wn[3], "real"))
        info->field = SPK_MM_REAL;
    else if (spk_mm_word_is(w[3], wn[3], "integer"))
        info->field = SPK_MM_INTEGER;
    else if (spk_mm_word_is(w[3], wn[3], "pattern"))
        info->field = SPK_MM_PATTERN;
    else if (spk_mm_word_is(w[3], wn[3], "complex"))
        info->field = SPK_MM_COMPLEX;
    else
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: unknown qualifier '%s' in banner (field must be real, integer, "
                           "pattern or complex)",
                           ps->name, spk_mm_token(w[3], eol, tok, sizeof tok));
    if (nw < 5)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: banner is missing the symmetry (general, symmetric, "
                           "skew-symmetric or hermitian)",
                           ps->name);
    if (spk_mm_word_is(w[4], wn[4], "general"))
        info->symmetry = SPK_MM_GENERAL;
    else if (spk_mm_word_is(w[4], wn[4], "symmetric"))
        info->symmetry = SPK_MM_SYMMETRIC;
    else if (spk_mm_word_is(w[4], wn[4], "skew-symmetric"))
        info->symmetry = SPK_MM_SKEW;
    else if (spk_mm_word_is(w[4], wn[4], "hermitian"))
        info->symmetry = SPK_MM_HERMITIAN;
    else
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: unknown qualifier '%s' in banner (symmetry must be general, "
                           "symmetric, skew-symmetric or hermitian)",
                           ps->name, spk_mm_token(w[4], eol, tok, sizeof tok));
    if (nw > 5)
        return spk_err_set(e, SPK_ERR_PARSE, "%s:1: extra word '%s' in banner", ps->name,
                           spk_mm_token(w[5], eol, tok, sizeof tok));
    /* the conjugate of a real value is itself: a real hermitian file would be a symmetric one */
    if (info->symmetry == SPK_MM_HERMITIAN && info->field != SPK_MM_COMPLEX)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: hermitian symmetry goes with the complex field only (a real "
                           "hermitian matrix is symmetric)",
                           ps->name);
    if (info->format == SPK_MM_ARRAY && info->field == SPK_MM_PATTERN)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: the pattern field is not allowed with the array format",
                           ps->name);
    ps->p = eol < end ? eol + 1 : end;
    ps->line = 2;
    return SPK_OK;
}

/* The buffer that holds `bytes`: a power of two from 256 (at most
 * SPK_MM_COMMENTS_MAX, itself one). */
static size_t mm_comment_cap(size_t bytes)
{
    size_t cap = 256;
    while (cap < bytes) cap *= 2;
    return cap;
}

/* Append the n bytes at q and a newline to c where they fit in
 * SPK_MM_COMMENTS_MAX bytes; count the line as dropped where not. */
static int mm_keep_comment(spk_mm_comments *c, const char *q, size_t n, const char *name, spk_err *e)
{
    const size_t need = c->len + n + 2; /* the newline and the NUL */
    c->lines++;
    if (need > SPK_MM_COMMENTS_MAX) {
        c->dropped++;
        return SPK_OK;
    }
    if (!c->text || mm_comment_cap(need) > mm_comment_cap(c->len + 1)) {
        char *t = realloc(c->text, mm_comment_cap(need));
        if (!t) return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (comments)", name);
        c->text = t;
    }
    memcpy(c->text + c->len, q, n);
    c->len += n;
    c->text[c->len++] = '\n';
    c->text[c->len] = '\0';
    return SPK_OK;
}

/* The comment lines between the banner and the size line ('%' after any
 * blanks), kept from their '%' without the line end; blank lines are
 * skipped.  Stops at the size line, at the end of the input, or at a line
 * longer than the window holds (left to the size line's reader to report). */
int spk_mm_parse_comments(mm_parser *ps, spk_mm_comments *c, spk_err *e)
{
    const char *p = ps->p, *end = ps->end;
    for (;;) {
        if (ps->more && (size_t)(end - p) < ps->line_max) SPK_TRY(spk_mm_refill(ps, &p, &end, e));
        const char *q = p;
        while (q < end && mm_blank(*q)) q++;
        if (q == end) break;
        if (*q == '\n') {
            p = q + 1;
            ps->line++;
            continue;
        }
        if (*q != '%') break; /* the size line */
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        if (!nl && ps->more) break;
        const char *stop = nl ? nl : end;
        const size_t n = (size_t)(stop - q) - (stop > q && stop[-1] == '\r');
        SPK_TRY(mm_keep_comment(c, q, n, ps->name, e));
        if (!nl) {
            p = end;
            break;
        }
        p = nl + 1;
        ps->line++;
    }
    ps->p = p;
    return SPK_OK;
}

/* Parse the size line: "M N L" (coordinate) or "M N" (array). */
int spk_mm_parse_size(mm_parser *ps, spk_mm_info *info, spk_err *e)
{
    const int want = info->format == SPK_MM_COORDINATE ? 3 : 2;
    const char *what = want == 3 ? "rows columns entries" : "rows columns";
    const char *p = ps->p, *end = ps->end;
    long long v[3] = {0, 0, 0};
    char tok[64];
    int found = 0;
    SPK_TRY(spk_mm_next_content(ps, &p, &end, &ps->line, &found, e));
    if (!found)
        return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: missing size line (%s)", ps->name,
                           mm_last_line(ps, ps->line), what);
    if (!mm_line_whole(ps, p, end))
        return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: a line longer than %zu bytes", ps->name, ps->line,
                           ps->line_max);
    for (int k = 0;; k++) {
        if (k == want)
            return spk_err_set(
                e, SPK_ERR_PARSE,
                "%s:%lld: bad size line: expected %d numbers (%s), found more ('%s')", ps->name,
                ps->line, want, what, spk_mm_token(p, end, tok, sizeof tok));
        const char *q = spk_mm_scan_int(p, end, &v[k]);
        if (!q || v[k] < 0)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: bad size line: '%s' is not a non-negative integer",
                               ps->name, ps->line, spk_mm_token(p, end, tok, sizeof tok));
        p = q;
        while (p < end && mm_blank(*p)) p++;
        if (p == end || *p == '\n') {
            if (k + 1 < want)
                return spk_err_set(e, SPK_ERR_PARSE,
                                   "%s:%lld: bad size line: expected %d numbers (%s), found %d",
                                   ps->name, ps->line, want, what, k + 1);
            break;
        }
    }
    if (v[0] >= INT_MAX || v[1] >= INT_MAX)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:%lld: matrix size %lld x %lld exceeds 32-bit index limits", ps->name,
                           ps->line, v[0], v[1]);
    info->nrows = (int)v[0];
    info->ncols = (int)v[1];
    if (info->symmetry != SPK_MM_GENERAL && v[0] != v[1])
        return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: a %s matrix must be square, the size line says %lld x %lld",
                           ps->name, ps->line,
                           info->symmetry == SPK_MM_SYMMETRIC ? "symmetric"
                           : info->symmetry == SPK_MM_SKEW    ? "skew-symmetric"
                                                              : "hermitian",
                           v[0], v[1]);
    if (info->format == SPK_MM_COORDINATE) {
        if (info->symmetry == SPK_MM_GENERAL && v[2] > INT_MAX)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: entry count %lld exceeds 32-bit index limits", ps->name,
                               ps->line, v[2]);
        if (info->symmetry != SPK_MM_GENERAL && 2 * v[2] > INT_MAX)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: entry count %lld (up to %lld after mirroring) exceeds "
                               "32-bit index limits",
                               ps->name, ps->line, v[2], 2 * v[2]);
        info->entries = v[2];
    } else {
        long long total = v[0] * v[1];
        if (total > INT_MAX)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: array size %lld x %lld (%lld values) exceeds 32-bit "
                               "index limits",
                               ps->name, ps->line, v[0], v[1], total);
        if (info->symmetry == SPK_MM_SYMMETRIC || info->symmetry == SPK_MM_HERMITIAN)
            info->entries = v[0] * (v[0] + 1) / 2;
        else if (info->symmetry == SPK_MM_SKEW)
            info->entries = v[0] * (v[0] - 1) / 2;
        else
            info->entries = total;
    }
    if (p < end) {
        p++;
        ps->line++;
    }
    ps->p = p;
    return SPK_OK;
}
