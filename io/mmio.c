/* mmio.c -- Matrix Market reading and writing (.mtx and .mtx.gz).
 *
 * Reading loads the whole (decompressed) file into memory and parses it in one
 * pass with hand-written scanners: integers digit by digit, reals through an
 * exactly rounded fast path (Clinger's for mantissas <= 2^53 and |exponent| <=
 * 22, 128-bit integer arithmetic for 19-digit mantissas and |exponent| <= 27)
 * with strtod as the fallback.  Capacity for entries grows as entries are
 * parsed and is never larger than what the rest of the input could hold, so a
 * size line claiming billions of entries costs nothing until data backs it.
 *
 * Choices: array files may be general, symmetric or skew-symmetric (packed
 * lower triangle, column by column); pattern skew-symmetric files are read with
 * +1 for stored and -1 for mirrored entries; non-finite values are rejected by
 * the reader and by the writers. */
#define _XOPEN_SOURCE 700 /* realpath (XSI), on top of the POSIX 2008 the build asks for */
#include "io/mmio.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#if defined(__SIZEOF_INT128__)
#define MM_HAVE_U128 1
__extension__ typedef unsigned __int128 mm_u128;
#endif

enum { MM_NUM_OK = 0, MM_NUM_BAD = 1, MM_NUM_NONFINITE = 2 };

/* The input being parsed. */
typedef struct mm_parser {
    const char *name; /* file name for messages */
    const char *begin, *p, *end;
    long long line; /* 1-based number of the line p is on */
} mm_parser;

/* What a file holds once parsed: the header, and either coordinate entries
 * (0-based row, col, val; val NULL for pattern; mirrored parts not yet added)
 * or the values of an array file (row and col NULL, column-major, packed lower
 * triangle for symmetric and skew-symmetric). */
typedef struct mm_data {
    spk_mm_info info;
    size_t n, cap, max; /* entries stored, allocated, announced */
    int *row, *col;
    double *val;
} mm_data;

/* ---- small helpers ------------------------------------------------------ */

/* Is c a blank inside a line: ' ', '\t' or '\r' (bits 32, 9, 13 of a mask)? */
static int mm_blank(char c)
{
    unsigned u = (unsigned char)c;
    return u <= 32 && ((0x100002200ULL >> u) & 1);
}

/* Does a token end at p (blank, newline or end of input)? */
static int mm_delim(const char *p, const char *end)
{
    unsigned u;
    return p == end || ((u = (unsigned char)*p) <= 32 && ((0x100002600ULL >> u) & 1));
}

/* Is c one of '0'..'9'? */
static int mm_digit(char c)
{
    return (unsigned)(c - '0') < 10u;
}

/* Copy the token at p into out for a message: at most cap-1 characters,
 * non-printable bytes shown as '?', "..." appended when cut. */
static const char *mm_token(const char *p, const char *end, char *out, size_t cap)
{
    size_t n = 0;
    while (p < end && !mm_delim(p, end) && n + 4 < cap) {
        unsigned char c = (unsigned char)*p++;
        out[n++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    if (p < end && !mm_delim(p, end)) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

/* Case-insensitive equality of the n bytes at w with the literal lit. */
static int mm_word_is(const char *w, size_t n, const char *lit)
{
    size_t k = 0;
    for (; k < n && lit[k]; k++) {
        char a = w[k], b = lit[k];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
        if (a != b) return 0;
    }
    return k == n && lit[k] == '\0';
}

/* Is the token at p a spelling of NaN or infinity (as strtod would accept)? */
static int mm_nonfinite_word(const char *p, const char *end)
{
    if (p < end && (*p == '+' || *p == '-')) p++;
    const char *q = p;
    while (q < end && !mm_delim(q, end)) q++;
    size_t n = (size_t)(q - p);
    if (mm_word_is(p, n, "inf") || mm_word_is(p, n, "infinity") || mm_word_is(p, n, "nan"))
        return 1;
    return n > 4 && mm_word_is(p, 4, "nan(");
}

/* Skip blank and comment lines: on return p is at the first token of a
 * content line (returns 1) or at the end of input (returns 0). */
static int mm_next_line(const char **pp, const char *end, long long *line)
{
    const char *p = *pp;
    for (;;) {
        while (p < end && mm_blank(*p)) p++;
        if (p == end) break;
        if (*p == '\n') {
            p++;
            (*line)++;
            continue;
        }
        if (*p == '%') {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl) {
                p = end;
                break;
            }
            p = nl + 1;
            (*line)++;
            continue;
        }
        *pp = p;
        return 1;
    }
    *pp = p;
    return 0;
}

/* The line to name when the input ended: the last line that has content. */
static long long mm_last_line(const mm_parser *ps, long long line)
{
    if (ps->end > ps->begin && ps->end[-1] == '\n' && line > 1) return line - 1;
    return line;
}

/* ---- number scanners ---------------------------------------------------- */

#if defined(__GNUC__)
#define MM_INLINE __attribute__((always_inline)) inline
#else
#define MM_INLINE inline
#endif

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&            \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Count the leading decimal digits (0..8) of the 8 bytes at p and put their
 * value in *v.  SWAR on a little-endian word: a byte is a digit when its high
 * nibble is 3 and stays 3 after adding 6 (a carry out of a byte only comes
 * from a non-digit, so bytes after the first non-digit do not matter).  The
 * n digits are moved to the top, '0's fill the bottom, and the value is formed
 * from digit pairs, then pairs of pairs, with three multiplications. */
static MM_INLINE int mm_digits8(const char *p, uint64_t *v)
{
    const uint64_t hi = 0xF0F0F0F0F0F0F0F0ULL, zeros = 0x3030303030303030ULL;
    uint64_t x;
    memcpy(&x, p, 8);
    uint64_t bad = ((x & hi) ^ zeros) | (((x + 0x0606060606060606ULL) & hi) ^ zeros);
    int n = bad ? __builtin_ctzll(bad) >> 3 : 8;
    if (n == 0) {
        *v = 0;
        return 0;
    }
    if (n < 8) x = (x << (64 - 8 * n)) | (zeros >> (8 * n));
    x -= zeros;
    x = x * 10 + (x >> 8); /* byte 2i: 10 d_2i + d_2i+1 */
    x = (x & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)) +
        ((x >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32));
    *v = x >> 32;
    return n;
}
#define MM_HAVE_SWAR 1
#endif

/* Accumulate a run of digits into *m (m = 10 m + d; wraps past 19 digits,
 * which the caller detects by the count); returns the end of the run. */
static MM_INLINE const char *mm_digits(const char *p, const char *end, uint64_t *m)
{
    uint64_t x = *m;
#ifdef MM_HAVE_SWAR
    static const uint64_t p10u[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    while (end - p >= 8) {
        uint64_t v;
        int n = mm_digits8(p, &v);
        x = x * p10u[n] + v;
        p += n;
        if (n < 8) {
            *m = x;
            return p;
        }
    }
#endif
    for (; p < end && mm_digit(*p); p++) x = x * 10 + (uint64_t)(*p - '0');
    *m = x;
    return p;
}

/* Scan an integer token [+-]digits into *v (saturating at 1e18); returns the
 * end of the token, or NULL when the token is not an integer. */
static const char *mm_scan_int(const char *p, const char *end, long long *v)
{
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    const char *d0 = p;
    uint64_t x = 0;
    p = mm_digits(p, end, &x);
    if (p == d0 || !mm_delim(p, end)) return NULL;
    if (p - d0 > 18) x = 1000000000000000000ULL; /* x may have wrapped */
    *v = neg ? -(long long)x : (long long)x;
    return p;
}

#ifdef MM_HAVE_U128
/* Number of significant bits of q (0 for q = 0). */
static int mm_bitlen128(mm_u128 q)
{
    uint64_t hi = (uint64_t)(q >> 64), lo = (uint64_t)q;
    if (hi) return 128 - __builtin_clzll(hi);
    return lo ? 64 - __builtin_clzll(lo) : 0;
}

/* (q + a nonzero fraction below it when sticky) * 2^scale rounded to nearest
 * even; the result must be a normal double, which the callers ensure. */
static double mm_round128(mm_u128 q, int sticky, int scale)
{
    int b = mm_bitlen128(q);
    if (b < 56) { /* room for a guard bit and the sticky bit */
        q <<= 56 - b;
        scale -= 56 - b;
        b = 56;
    }
    int sh = b - 53;
    uint64_t mant = (uint64_t)(q >> sh);
    mm_u128 rem = q & (((mm_u128)1 << sh) - 1), half = (mm_u128)1 << (sh - 1);
    if (rem > half || (rem == half && (sticky || (mant & 1)))) mant++;
    int e2 = scale + sh + 52; /* value = (mant / 2^52) * 2^e2, 2^52 <= mant <= 2^53 */
    if (mant >> 53) {
        mant >>= 1;
        e2++;
    }
    uint64_t bits = ((uint64_t)(e2 + 1023) << 52) | (mant & ((1ULL << 52) - 1));
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* m * 10^e10 exactly rounded for 0 < m < 2^64 and |e10| <= 27:
 * m * 5^e * 2^e as a 128-bit product, or m / 5^k / 2^k as a quotient in
 * (2^62, 2^64) (so one hardware division) with the remainder as sticky bit. */
static double mm_exact_pow10(uint64_t m, int e10)
{
    static const uint64_t pow5[28] = {
        1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL, 1953125ULL,
        9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL, 6103515625ULL, 30517578125ULL,
        152587890625ULL, 762939453125ULL, 3814697265625ULL, 19073486328125ULL,
        95367431640625ULL, 476837158203125ULL, 2384185791015625ULL, 11920928955078125ULL,
        59604644775390625ULL, 298023223876953125ULL, 1490116119384765625ULL,
        7450580596923828125ULL}; /* 5^27 < 2^63 */
    int k = e10 < 0 ? -e10 : e10;
    uint64_t p5 = pow5[k];
    if (e10 >= 0) return mm_round128((mm_u128)m * p5, 0, e10);
    int s = (64 - __builtin_clzll(p5)) + 63 - (64 - __builtin_clzll(m));
    mm_u128 num = (mm_u128)m << s; /* 2^(62+bits(5^k)) <= num < 2^(63+bits(5^k)) */
    uint64_t q = (uint64_t)(num / p5), r = (uint64_t)(num % p5);
    return mm_round128(q, r != 0, -s - k);
}
#endif

/* The slow, general conversion of the token [s, p): strtod on a
 * NUL-terminated copy (the input need not be terminated). */
static int mm_strtod(const char *s, const char *p, double *v)
{
    char tmp[512];
    size_t n = (size_t)(p - s);
    if (n >= sizeof tmp) return MM_NUM_BAD;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *q;
    double x = strtod(tmp, &q);
    if (q != tmp + n) return MM_NUM_BAD; /* a locale whose decimal point is not '.' */
    if (!isfinite(x)) return MM_NUM_NONFINITE;
    *v = x;
    return MM_NUM_OK;
}

/* Scan a real token [+-]digits[.digits][(e|E)[+-]digits] at *pp (up to the
 * next whitespace) into an exactly rounded *v.  *integral is set when the
 * token has neither a point nor an exponent.  Returns MM_NUM_OK (and moves
 * *pp past the token), MM_NUM_BAD or MM_NUM_NONFINITE. */
static int mm_scan_real(const char **pp, const char *end, double *v, int *integral)
{
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *s = *pp, *p = s, *d0, *z;
    int neg = 0, intg = 1;
    long nd, e10 = 0;
    uint64_t m = 0;
    if (p < end && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    /* mantissa: leading zeros, then nd significant digits accumulated in m */
    d0 = p;
    while (p < end && *p == '0') p++;
    z = p;
    p = mm_digits(p, end, &m);
    nd = p - z;
    int any = p > d0;
    if (p < end && *p == '.') {
        const char *f0 = ++p;
        intg = 0;
        if (nd == 0)
            while (p < end && *p == '0') p++;
        z = p;
        p = mm_digits(p, end, &m);
        nd += p - z;
        e10 = -(long)(p - f0);
        any |= p > f0;
    }
    if (!any) return mm_nonfinite_word(s, end) ? MM_NUM_NONFINITE : MM_NUM_BAD;
    if (p < end && (*p == 'e' || *p == 'E')) {
        int eneg = 0;
        long x = 0;
        intg = 0;
        p++;
        if (p < end && (*p == '-' || *p == '+')) {
            eneg = *p == '-';
            p++;
        }
        const char *x0 = p;
        for (; p < end && mm_digit(*p); p++)
            if (x < 100000) x = x * 10 + (*p - '0');
        if (p == x0) return MM_NUM_BAD;
        e10 += eneg ? -x : x;
    }
    if (!mm_delim(p, end)) return MM_NUM_BAD;
    *integral = intg;
    double x;
    if (nd == 0) {
        x = 0.0;
    } else if (nd <= 19 && m <= (1ULL << 53) && e10 >= -22 && e10 <= 22) {
        x = e10 >= 0 ? (double)m * p10[e10] : (double)m / p10[-e10];
#ifdef MM_HAVE_U128
    } else if (nd <= 19 && e10 >= -27 && e10 <= 27) {
        x = mm_exact_pow10(m, (int)e10);
#endif
    } else {
        int st = mm_strtod(s, p, v);
        if (st == MM_NUM_OK) *pp = p;
        return st;
    }
    *v = neg ? -x : x;
    *pp = p;
    return MM_NUM_OK;
}

/* ---- header ------------------------------------------------------------- */

/* Parse line 1: %%MatrixMarket matrix FORMAT FIELD SYMMETRY. */
static int mm_parse_banner(mm_parser *ps, spk_mm_info *info, spk_err *e)
{
    const char *p = ps->p, *end = ps->end, *w[6];
    size_t wn[6];
    int nw = 0, complex = 0, hermitian = 0;
    char tok[64];
    if (p == end)
        return spk_err_set(e, SPK_ERR_PARSE, "%s:1: empty file (no %%%%MatrixMarket banner)",
                           ps->name);
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    while (nw < 6) {
        while (p < eol && mm_blank(*p)) p++;
        if (p == eol) break;
        w[nw] = p;
        while (p < eol && !mm_blank(*p)) p++;
        wn[nw] = (size_t)(p - w[nw]);
        nw++;
    }
    if (nw == 0 || !mm_word_is(w[0], wn[0], "%%MatrixMarket")) {
        if (end - ps->p >= 2 && (unsigned char)ps->p[0] == 0x1f && (unsigned char)ps->p[1] == 0x8b)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:1: missing %%%%MatrixMarket banner (the file looks "
                               "gzip-compressed: name it *.gz)",
                               ps->name);
        return spk_err_set(e, SPK_ERR_PARSE, "%s:1: missing %%%%MatrixMarket banner", ps->name);
    }
    if (nw < 2)
        return spk_err_set(e, SPK_ERR_PARSE, "%s:1: banner is missing the object ('matrix')",
                           ps->name);
    if (!mm_word_is(w[1], wn[1], "matrix"))
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: unsupported object '%s' in banner (expected 'matrix')", ps->name,
                           mm_token(w[1], eol, tok, sizeof tok));
    if (nw < 3)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: banner is missing the format (coordinate or array)", ps->name);
    if (mm_word_is(w[2], wn[2], "coordinate"))
        info->format = SPK_MM_COORDINATE;
    else if (mm_word_is(w[2], wn[2], "array"))
        info->format = SPK_MM_ARRAY;
    else
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: unknown qualifier '%s' in banner (format must be coordinate or "
                           "array)",
                           ps->name, mm_token(w[2], eol, tok, sizeof tok));
    if (nw < 4)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: banner is missing the field (real, integer or pattern)",
                           ps->name);
    if (mm_word_is(w[3], wn[3], "real"))
        info->field = SPK_MM_REAL;
    else if (mm_word_is(w[3], wn[3], "integer"))
        info->field = SPK_MM_INTEGER;
    else if (mm_word_is(w[3], wn[3], "pattern"))
        info->field = SPK_MM_PATTERN;
    else if (mm_word_is(w[3], wn[3], "complex"))
        complex = 1;
    else
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: unknown qualifier '%s' in banner (field must be real, integer, "
                           "pattern or complex)",
                           ps->name, mm_token(w[3], eol, tok, sizeof tok));
    if (nw < 5)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: banner is missing the symmetry (general, symmetric or "
                           "skew-symmetric)",
                           ps->name);
    if (mm_word_is(w[4], wn[4], "general"))
        info->symmetry = SPK_MM_GENERAL;
    else if (mm_word_is(w[4], wn[4], "symmetric"))
        info->symmetry = SPK_MM_SYMMETRIC;
    else if (mm_word_is(w[4], wn[4], "skew-symmetric"))
        info->symmetry = SPK_MM_SKEW;
    else if (mm_word_is(w[4], wn[4], "hermitian"))
        hermitian = 1;
    else
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: unknown qualifier '%s' in banner (symmetry must be general, "
                           "symmetric, skew-symmetric or hermitian)",
                           ps->name, mm_token(w[4], eol, tok, sizeof tok));
    if (nw > 5)
        return spk_err_set(e, SPK_ERR_PARSE, "%s:1: extra word '%s' in banner", ps->name,
                           mm_token(w[5], eol, tok, sizeof tok));
    if (complex || hermitian)
        return spk_err_set(e, SPK_ERR_UNSUPPORTED, "%s:1: complex matrices are not supported%s",
                           ps->name, complex ? "" : " (hermitian symmetry)");
    if (info->format == SPK_MM_ARRAY && info->field == SPK_MM_PATTERN)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:1: the pattern field is not allowed with the array format",
                           ps->name);
    ps->p = eol < end ? eol + 1 : end;
    ps->line = 2;
    return SPK_OK;
}

/* Parse the size line: "M N L" (coordinate) or "M N" (array). */
static int mm_parse_size(mm_parser *ps, spk_mm_info *info, spk_err *e)
{
    const int want = info->format == SPK_MM_COORDINATE ? 3 : 2;
    const char *what = want == 3 ? "rows columns entries" : "rows columns";
    const char *p = ps->p, *end = ps->end;
    long long v[3] = {0, 0, 0};
    char tok[64];
    if (!mm_next_line(&p, end, &ps->line))
        return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: missing size line (%s)", ps->name,
                           mm_last_line(ps, ps->line), what);
    for (int k = 0;; k++) {
        if (k == want)
            return spk_err_set(
                e, SPK_ERR_PARSE,
                "%s:%lld: bad size line: expected %d numbers (%s), found more ('%s')", ps->name,
                ps->line, want, what, mm_token(p, end, tok, sizeof tok));
        const char *q = mm_scan_int(p, end, &v[k]);
        if (!q || v[k] < 0)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: bad size line: '%s' is not a non-negative integer",
                               ps->name, ps->line, mm_token(p, end, tok, sizeof tok));
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
        return spk_err_set(
            e, SPK_ERR_PARSE, "%s:%lld: a %s matrix must be square, the size line says %lld x %lld",
            ps->name, ps->line, info->symmetry == SPK_MM_SYMMETRIC ? "symmetric" : "skew-symmetric",
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
        if (info->symmetry == SPK_MM_SYMMETRIC)
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

/* ---- entries ------------------------------------------------------------ */

/* Make room for one more entry in d (doubling, capped by the announced count). */
static int mm_grow(mm_data *d, const char *name, spk_err *e)
{
    size_t cap = d->cap * 2 + 1024;
    if (cap > d->max) cap = d->max;
    if (d->row) {
        int *r = realloc(d->row, cap * sizeof *r);
        if (!r) goto nomem;
        d->row = r;
        int *c = realloc(d->col, cap * sizeof *c);
        if (!c) goto nomem;
        d->col = c;
    }
    if (d->val || d->info.field != SPK_MM_PATTERN) {
        double *v = realloc(d->val, cap * sizeof *v);
        if (!v) goto nomem;
        d->val = v;
    }
    d->cap = cap;
    return SPK_OK;
nomem:
    return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu entries)", name, cap);
}

/* Allocate the first block of entries: no more than the announced count, and
 * no more than the rest of the input could hold at min_bytes per entry. */
static int mm_reserve(mm_data *d, size_t remaining, size_t min_bytes, const char *name, spk_err *e)
{
    size_t cap = remaining / min_bytes + 16;
    if (cap > d->max) cap = d->max;
    if (cap == 0) cap = 1;
    if (d->info.format == SPK_MM_COORDINATE) {
        d->row = malloc(cap * sizeof *d->row);
        d->col = malloc(cap * sizeof *d->col);
        if (!d->row || !d->col) goto nomem;
    }
    if (d->info.field != SPK_MM_PATTERN) {
        d->val = malloc(cap * sizeof *d->val);
        if (!d->val) goto nomem;
    }
    d->cap = cap;
    return SPK_OK;
nomem:
    return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu entries)", name, cap);
}

/* Report a bad value token at p on the given line. */
static int mm_bad_value(mm_parser *ps, const char *p, long long line, int status, int integer,
                        spk_err *e)
{
    char tok[64];
    mm_token(p, ps->end, tok, sizeof tok);
    if (status == MM_NUM_NONFINITE)
        return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: value is not finite: '%s'", ps->name, line,
                           tok);
    if (integer)
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:%lld: bad value '%s' (not an integer, the field is integer)",
                           ps->name, line, tok);
    return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: bad value '%s' (not a real number)", ps->name,
                       line, tok);
}

/* Parse the L coordinate entries "i j [v]" into d (1-based in, 0-based out). */
static int mm_parse_coordinate(mm_parser *ps, mm_data *d, spk_err *e)
{
    const spk_mm_info *in = &d->info;
    const int pattern = in->field == SPK_MM_PATTERN, integer = in->field == SPK_MM_INTEGER;
    const int skew = in->symmetry == SPK_MM_SKEW;
    const long long M = in->nrows, N = in->ncols;
    const char *expect = pattern ? "2 (row column)" : "3 (row column value)";
    const char *p = ps->p, *end = ps->end, *q;
    long long line = ps->line, r, c;
    char tok[64];
    int st;
    d->max = (size_t)in->entries;
    SPK_TRY(mm_reserve(d, (size_t)(end - p), 4, ps->name, e));
    for (size_t k = 0; k < d->max; k++) {
        if (!mm_next_line(&p, end, &line))
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: file ends after %zu of %lld entries",
                               ps->name, mm_last_line(ps, line), k, in->entries);
        if (!(q = mm_scan_int(p, end, &r)))
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: bad row index '%s'", ps->name, line,
                               mm_token(p, end, tok, sizeof tok));
        if (r < 1 || r > M)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: row index out of range: %lld not in 1..%lld", ps->name,
                               line, r, M);
        p = q;
        while (p < end && mm_blank(*p)) p++;
        if (p == end || *p == '\n') goto too_few;
        if (!(q = mm_scan_int(p, end, &c)))
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: bad column index '%s'", ps->name, line,
                               mm_token(p, end, tok, sizeof tok));
        if (c < 1 || c > N)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: column index out of range: %lld not in 1..%lld", ps->name,
                               line, c, N);
        p = q;
        while (p < end && mm_blank(*p)) p++;
        if (!pattern) {
            double v;
            int intg;
            const char *t0 = p;
            if (p == end || *p == '\n') goto too_few;
            st = mm_scan_real(&p, end, &v, &intg);
            if (st || (integer && !intg)) return mm_bad_value(ps, t0, line, st, integer, e);
            while (p < end && mm_blank(*p)) p++;
            if (k == d->cap) SPK_TRY(mm_grow(d, ps->name, e));
            d->val[k] = v;
        } else if (k == d->cap) {
            SPK_TRY(mm_grow(d, ps->name, e));
        }
        if (p < end && *p != '\n')
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: too many tokens, expected %s", ps->name,
                               line, expect);
        if (skew && r == c)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: diagonal entry (%lld,%lld) in a skew-symmetric matrix",
                               ps->name, line, r, c);
        d->row[k] = (int)(r - 1);
        d->col[k] = (int)(c - 1);
        d->n = k + 1;
        if (p < end) {
            p++;
            line++;
        }
    }
    if (mm_next_line(&p, end, &line))
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:%lld: more entries than the %lld announced in the size line",
                           ps->name, line, in->entries);
    ps->p = p;
    ps->line = line;
    return SPK_OK;
too_few:
    return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: too few tokens, expected %s", ps->name, line,
                       expect);
}

/* Parse the values of an array file, one per line, column by column. */
static int mm_parse_array(mm_parser *ps, mm_data *d, spk_err *e)
{
    const int integer = d->info.field == SPK_MM_INTEGER;
    const char *p = ps->p, *end = ps->end;
    long long line = ps->line;
    d->max = (size_t)d->info.entries;
    SPK_TRY(mm_reserve(d, (size_t)(end - p), 2, ps->name, e));
    for (size_t k = 0; k < d->max; k++) {
        double v;
        int intg, st;
        if (!mm_next_line(&p, end, &line))
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: file ends after %zu of %lld values",
                               ps->name, mm_last_line(ps, line), k, d->info.entries);
        const char *t0 = p;
        st = mm_scan_real(&p, end, &v, &intg);
        if (st || (integer && !intg)) return mm_bad_value(ps, t0, line, st, integer, e);
        while (p < end && mm_blank(*p)) p++;
        if (p < end && *p != '\n')
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: too many tokens, expected 1 value per line in an array "
                               "file",
                               ps->name, line);
        if (k == d->cap) SPK_TRY(mm_grow(d, ps->name, e));
        d->val[k] = v;
        d->n = k + 1;
        if (p < end) {
            p++;
            line++;
        }
    }
    if (mm_next_line(&p, end, &line))
        return spk_err_set(e, SPK_ERR_PARSE,
                           "%s:%lld: more values than the %lld announced by the size line",
                           ps->name, line, d->info.entries);
    ps->p = p;
    ps->line = line;
    return SPK_OK;
}

/* Release the arrays of d (the header stays). */
static void mm_data_free(mm_data *d)
{
    free(d->row);
    free(d->col);
    free(d->val);
    d->row = d->col = NULL;
    d->val = NULL;
    d->n = d->cap = 0;
}

/* Parse a whole Matrix Market text into d. */
static int mm_parse(const char *name, const char *buf, size_t len, mm_data *d, spk_err *e)
{
    mm_parser ps;
    int st;
    memset(d, 0, sizeof *d);
    ps.name = name ? name : "(memory)";
    ps.line = 1;
    if (!buf && len) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: NULL buffer", ps.name);
    if (!buf) buf = "";
    ps.begin = ps.p = buf;
    ps.end = buf + len;
    SPK_CHECK(st, mm_parse_banner(&ps, &d->info, e));
    SPK_CHECK(st, mm_parse_size(&ps, &d->info, e));
    if (d->info.format == SPK_MM_COORDINATE)
        SPK_CHECK(st, mm_parse_coordinate(&ps, d, e));
    else
        SPK_CHECK(st, mm_parse_array(&ps, d, e));
cleanup:
    if (st) mm_data_free(d);
    return st;
}

/* ---- conversions -------------------------------------------------------- */

/* Append the mirror (j,i) of every off-diagonal coordinate entry (i,j),
 * negated for skew-symmetric; pattern skew files get values +1 / -1. */
static int mm_mirror(mm_data *d, const char *name, spk_err *e)
{
    const int skew = d->info.symmetry == SPK_MM_SKEW;
    size_t off = 0, n = d->n;
    for (size_t k = 0; k < n; k++) off += d->row[k] != d->col[k];
    if (skew && !d->val) {
        d->val = malloc((n ? n : 1) * sizeof *d->val);
        if (!d->val) goto nomem;
        for (size_t k = 0; k < n; k++) d->val[k] = 1.0;
    }
    if (off == 0) return SPK_OK;
    int *r = realloc(d->row, (n + off) * sizeof *r);
    if (!r) goto nomem;
    d->row = r;
    int *c = realloc(d->col, (n + off) * sizeof *c);
    if (!c) goto nomem;
    d->col = c;
    if (d->val) {
        double *v = realloc(d->val, (n + off) * sizeof *v);
        if (!v) goto nomem;
        d->val = v;
    }
    size_t t = n;
    for (size_t k = 0; k < n; k++) {
        if (d->row[k] == d->col[k]) continue;
        d->row[t] = d->col[k];
        d->col[t] = d->row[k];
        if (d->val) d->val[t] = skew ? -d->val[k] : d->val[k];
        t++;
    }
    d->n = t;
    d->cap = t;
    return SPK_OK;
nomem:
    return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory mirroring %zu entries", name, off);
}

/* Turn array values into coordinate entries of the nonzeros (mirrored parts
 * included), replacing d's contents. */
static int mm_array_to_coo(mm_data *d, const char *name, spk_err *e)
{
    const int M = d->info.nrows, N = d->info.ncols;
    const spk_mm_symmetry sym = d->info.symmetry;
    size_t nz = 0, k = 0, t = 0;
    int *r = NULL, *c = NULL;
    double *v = NULL;
    for (int j = 0; j < N; j++)
        for (int i = sym == SPK_MM_GENERAL ? 0 : j + (sym == SPK_MM_SKEW); i < M; i++)
            if (d->val[k++] != 0) nz += (sym == SPK_MM_GENERAL || i == j) ? 1 : 2;
    r = malloc((nz ? nz : 1) * sizeof *r);
    c = malloc((nz ? nz : 1) * sizeof *c);
    v = malloc((nz ? nz : 1) * sizeof *v);
    if (!r || !c || !v) {
        free(r);
        free(c);
        free(v);
        return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu entries)", name, nz);
    }
    k = 0;
    for (int j = 0; j < N; j++)
        for (int i = sym == SPK_MM_GENERAL ? 0 : j + (sym == SPK_MM_SKEW); i < M; i++) {
            double x = d->val[k++];
            if (x == 0) continue;
            r[t] = i;
            c[t] = j;
            v[t++] = x;
            if (sym != SPK_MM_GENERAL && i != j) {
                r[t] = j;
                c[t] = i;
                v[t++] = sym == SPK_MM_SKEW ? -x : x;
            }
        }
    mm_data_free(d);
    d->row = r;
    d->col = c;
    d->val = v;
    d->n = d->cap = nz;
    return SPK_OK;
}

/* Build canonical CSR from parsed data (d's arrays are consumed). */
static int mm_data_to_csr(mm_data *d, const char *name, spk_csr *A, spk_err *e)
{
    spk_csr T = {0};
    int st;
    if (d->info.format == SPK_MM_ARRAY)
        SPK_CHECK(st, mm_array_to_coo(d, name, e));
    else if (d->info.symmetry != SPK_MM_GENERAL)
        SPK_CHECK(st, mm_mirror(d, name, e));
    st = spk_csr_from_coo(d->info.nrows, d->info.ncols, d->n, d->row, d->col, d->val, &T, e);
    if (st) {
        spk_err_prefix(e, "%s", name);
        goto cleanup;
    }
    *A = T;
cleanup:
    mm_data_free(d);
    return st;
}

/* Build a column-major dense array from parsed data (d's arrays are consumed). */
static int mm_data_to_dense(mm_data *d, const char *name, double **out, spk_err *e)
{
    const spk_mm_info *in = &d->info;
    const size_t M = (size_t)in->nrows, N = (size_t)in->ncols;
    const int skew = in->symmetry == SPK_MM_SKEW;
    double *a = NULL;
    int st = SPK_OK;
    if (in->format == SPK_MM_ARRAY && in->symmetry == SPK_MM_GENERAL) {
        a = d->val ? d->val : malloc(1); /* M*N values, already in place */
        d->val = NULL;
        if (!a) st = spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory", name);
        goto cleanup;
    }
    if (M * N > INT_MAX) {
        st =
            spk_err_set(e, SPK_ERR_UNSUPPORTED,
                        "%s: a %zu x %zu matrix is too large to read as a dense array", name, M, N);
        goto cleanup;
    }
    a = calloc(M * N > 0 ? M * N : 1, sizeof *a);
    if (!a) {
        st = spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu x %zu dense array)", name,
                         M, N);
        goto cleanup;
    }
    if (in->format == SPK_MM_ARRAY) { /* packed lower triangle */
        size_t k = 0;
        for (size_t j = 0; j < N; j++)
            for (size_t i = j + (size_t)skew; i < M; i++) {
                double x = d->val[k++];
                a[i + j * M] = x;
                a[j + i * M] = skew ? -x : x;
            }
    } else {
        for (size_t k = 0; k < d->n; k++) {
            size_t i = (size_t)d->row[k], j = (size_t)d->col[k];
            double x = d->val ? d->val[k] : 1.0;
            a[i + j * M] += x;
            if (in->symmetry != SPK_MM_GENERAL && i != j) a[j + i * M] += skew ? -x : x;
        }
    }
cleanup:
    mm_data_free(d);
    if (st) {
        free(a);
        a = NULL;
    }
    *out = a;
    return st;
}

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
static int mm_load(const char *path, char **out, size_t *outlen, spk_err *e)
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

/* ---- public readers ----------------------------------------------------- */

/* Read a Matrix Market text held in memory as canonical CSR. */
int spk_mm_read_csr_mem(const char *name, const char *buf, size_t len, spk_csr *A,
                        spk_mm_info *info, spk_err *e)
{
    mm_data d;
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_read_csr_mem: A is NULL");
    if (!name) name = "(memory)";
    SPK_TRY(mm_parse(name, buf, len, &d, e));
    if (info) *info = d.info;
    return mm_data_to_csr(&d, name, A, e);
}

/* Read a Matrix Market file (.mtx or .mtx.gz) as canonical CSR. */
int spk_mm_read_csr(const char *path, spk_csr *A, spk_mm_info *info, spk_err *e)
{
    char *buf = NULL;
    size_t len = 0;
    mm_data d;
    int st;
    if (!path || !A)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_read_csr: %s is NULL",
                           path ? "A" : "path");
    SPK_TRY(mm_load(path, &buf, &len, e));
    st = mm_parse(path, buf, len, &d, e);
    free(buf); /* the parsed entries no longer need the text */
    if (st) return st;
    if (info) *info = d.info;
    return mm_data_to_csr(&d, path, A, e);
}

/* Read a Matrix Market text held in memory as a column-major dense array. */
int spk_mm_read_dense_mem(const char *name, const char *buf, size_t len, int *nrows, int *ncols,
                          double **v, spk_err *e)
{
    mm_data d;
    double *a = NULL;
    if (!nrows || !ncols || !v)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_read_dense_mem: NULL output argument");
    if (!name) name = "(memory)";
    SPK_TRY(mm_parse(name, buf, len, &d, e));
    int M = d.info.nrows, N = d.info.ncols;
    SPK_TRY(mm_data_to_dense(&d, name, &a, e));
    *nrows = M;
    *ncols = N;
    *v = a;
    return SPK_OK;
}

/* Read a Matrix Market file as a column-major dense array. */
int spk_mm_read_dense(const char *path, int *nrows, int *ncols, double **v, spk_err *e)
{
    char *buf = NULL;
    size_t len = 0;
    mm_data d;
    double *a = NULL;
    int st;
    if (!path || !nrows || !ncols || !v)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_read_dense: NULL argument");
    SPK_TRY(mm_load(path, &buf, &len, e));
    st = mm_parse(path, buf, len, &d, e);
    free(buf);
    if (st) return st;
    int M = d.info.nrows, N = d.info.ncols;
    SPK_TRY(mm_data_to_dense(&d, path, &a, e));
    *nrows = M;
    *ncols = N;
    *v = a;
    return SPK_OK;
}

/* ---- writing ------------------------------------------------------------ */

/* A buffered output file, plain or gzip.  A regular file (or a new one) is
 * written to a temporary file beside it and renamed over it only when every
 * byte is written, so a failed write leaves the previous file intact;
 * anything else (a device such as /dev/stdout, a FIFO) is written in place. */
typedef struct mm_out {
    const char *path;
    char *tmp;    /* the temporary file, or NULL when writing in place */
    char *target; /* what tmp is renamed to: path, or the file a symbolic link names */
    FILE *f;
    gzFile gz;
    char *buf;
    size_t len, cap;
} mm_out;

enum { MM_OUT_BUF = 1 << 18, MM_OUT_SLACK = 256 };

/* Open path for writing (gzip when it ends in ".gz") with an empty buffer. */
static int mm_out_open(mm_out *o, const char *path, spk_err *e)
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
static int mm_out_flush(mm_out *o, spk_err *e)
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

/* Make sure MM_OUT_SLACK bytes fit at o->buf + o->len. */
static int mm_out_room(mm_out *o, spk_err *e)
{
    return o->len >= o->cap ? mm_out_flush(o, e) : SPK_OK;
}

/* Append a string of any length. */
static int mm_out_puts(mm_out *o, const char *s, size_t n, spk_err *e)
{
    if (o->len >= o->cap) SPK_TRY(mm_out_flush(o, e));
    while (n) {
        size_t k = o->cap - o->len < n ? o->cap - o->len : n;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
        if (o->len == o->cap) SPK_TRY(mm_out_flush(o, e));
    }
    return SPK_OK;
}

/* Flush and close; st is the status so far.  On success the temporary file
 * replaces path; on any error it is removed and path is left as it was. */
static int mm_out_close(mm_out *o, int st, spk_err *e)
{
    if (!st) st = mm_out_flush(o, e);
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

/* Append the decimal digits of x at s; returns the end. */
static char *mm_fmt_uint(char *s, unsigned long long x)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    while (n) *s++ = tmp[--n];
    return s;
}

/* Append v as printf("%.17g") prints it (17 significant digits round-trip
 * exactly); integral values below 1e15 take a fast path. */
static char *mm_fmt_real(char *s, double v)
{
    if (v == 0) {
        if (signbit(v)) *s++ = '-';
        *s++ = '0';
        return s;
    }
    if (fabs(v) < 1e15) {
        long long iv = (long long)v;
        if ((double)iv == v) {
            if (iv < 0) *s++ = '-';
            return mm_fmt_uint(s, (unsigned long long)(iv < 0 ? -iv : iv));
        }
    }
    int n = snprintf(s, 40, "%.17g", v);
    for (int k = 0; k < n; k++)
        if (s[k] == ',') s[k] = '.'; /* a locale with a decimal comma */
    return s + n;
}

/* Write the banner, the comment lines ("% " + each line) and nothing else. */
static int mm_out_header(mm_out *o, const char *banner, const char *comment, spk_err *e)
{
    SPK_TRY(mm_out_puts(o, banner, strlen(banner), e));
    for (const char *c = comment; c && *c;) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        if (n && c[n - 1] == '\r') n--;
        SPK_TRY(mm_out_puts(o, n ? "% " : "%", n ? 2 : 1, e));
        SPK_TRY(mm_out_puts(o, c, n, e));
        SPK_TRY(mm_out_puts(o, "\n", 1, e));
        c = nl ? nl + 1 : c + strlen(c);
    }
    return SPK_OK;
}

/* Write A as coordinate real general, or symmetric (lower triangle only). */
int spk_mm_write_csr(const char *path, const spk_csr *A, int symmetric, const char *comment,
                     spk_err *e)
{
    mm_out o;
    int st, sym = 0;
    long long count = 0;
    if (!path || !A)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_write_csr: %s is NULL",
                           path ? "A" : "path");
    if ((st = spk_csr_validate(A, symmetric != 0, e)))
        return spk_err_prefix(e, "cannot write '%s'", path);
    if (A->nnz > 0 && !A->val)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': the values are NULL", path);
    if (symmetric) {
        if (A->nrows != A->ncols)
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "cannot write '%s' as symmetric: the matrix is %d x %d, not square",
                               path, A->nrows, A->ncols);
        if ((st = spk_csr_symmetry(A, 0.0, NULL, &sym, e)))
            return spk_err_prefix(e, "cannot write '%s'", path);
        if (!sym)
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "cannot write '%s' as symmetric: the matrix is not symmetric", path);
    }
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (!isfinite(A->val[k]))
                return spk_err_set(e, SPK_ERR_INVALID_ARG,
                                   "cannot write '%s': the value at (%d,%d) is not finite", path,
                                   i + 1, A->colind[k] + 1);
            count += !symmetric || A->colind[k] <= i;
        }
    SPK_TRY(mm_out_open(&o, path, e));
    SPK_CHECK(st, mm_out_header(&o,
                                symmetric ? "%%MatrixMarket matrix coordinate real symmetric\n"
                                          : "%%MatrixMarket matrix coordinate real general\n",
                                comment, e));
    char *s = o.buf + o.len;
    s = mm_fmt_uint(s, (unsigned long long)A->nrows);
    *s++ = ' ';
    s = mm_fmt_uint(s, (unsigned long long)A->ncols);
    *s++ = ' ';
    s = mm_fmt_uint(s, (unsigned long long)count);
    *s++ = '\n';
    o.len = (size_t)(s - o.buf);
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (symmetric && A->colind[k] > i) continue;
            SPK_CHECK(st, mm_out_room(&o, e));
            s = o.buf + o.len;
            s = mm_fmt_uint(s, (unsigned long long)i + 1);
            *s++ = ' ';
            s = mm_fmt_uint(s, (unsigned long long)A->colind[k] + 1);
            *s++ = ' ';
            s = mm_fmt_real(s, A->val[k]);
            *s++ = '\n';
            o.len = (size_t)(s - o.buf);
        }
cleanup:
    return mm_out_close(&o, st, e);
}

/* Write a column-major nrows x ncols array as array real general. */
int spk_mm_write_dense(const char *path, int nrows, int ncols, const double *v, const char *comment,
                       spk_err *e)
{
    mm_out o;
    int st;
    if (!path) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_write_dense: path is NULL");
    if (nrows < 0 || ncols < 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': bad size %d x %d", path,
                           nrows, ncols);
    size_t total = (size_t)nrows * (size_t)ncols;
    if (total && !v)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': values are NULL", path);
    for (size_t k = 0; k < total; k++)
        if (!isfinite(v[k]))
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "cannot write '%s': the value at (%zu,%zu) is not finite", path,
                               k % (size_t)nrows + 1, k / (size_t)nrows + 1);
    SPK_TRY(mm_out_open(&o, path, e));
    SPK_CHECK(st, mm_out_header(&o, "%%MatrixMarket matrix array real general\n", comment, e));
    char *s = o.buf + o.len;
    s = mm_fmt_uint(s, (unsigned long long)nrows);
    *s++ = ' ';
    s = mm_fmt_uint(s, (unsigned long long)ncols);
    *s++ = '\n';
    o.len = (size_t)(s - o.buf);
    for (size_t k = 0; k < total; k++) {
        SPK_CHECK(st, mm_out_room(&o, e));
        s = mm_fmt_real(o.buf + o.len, v[k]);
        *s++ = '\n';
        o.len = (size_t)(s - o.buf);
    }
cleanup:
    return mm_out_close(&o, st, e);
}

int spk_write_file(const char *path, const char *data, size_t len, spk_err *e)
{
    mm_out o;
    if (!path || (len && !data)) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_write_file: NULL argument");
    SPK_TRY(mm_out_open(&o, path, e));
    return mm_out_close(&o, mm_out_puts(&o, data, len, e), e);
}
