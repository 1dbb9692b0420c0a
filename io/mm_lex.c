/* mm_lex.c -- the Matrix Market reader's tokens and numbers (mm_parse.h).
 *
 * Integers are scanned digit by digit (eight at a time where a word can hold
 * them); reals go through an exactly rounded fast path (Clinger's for
 * mantissas <= 2^53 and |exponent| <= 22, 128-bit integer arithmetic for
 * 19-digit mantissas and |exponent| <= 27) with strtod as the fallback. */
#include "io/mm_parse.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SIZEOF_INT128__)
#define MM_HAVE_U128 1
__extension__ typedef unsigned __int128 mm_u128;
#endif

/* ---- tokens ------------------------------------------------------------- */

/* Copy the token at p into out for a message: at most cap-1 characters,
 * non-printable bytes shown as '?', "..." appended when cut. */
const char *spk_mm_token(const char *p, const char *end, char *out, size_t cap)
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
int spk_mm_word_is(const char *w, size_t n, const char *lit)
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
    if (spk_mm_word_is(p, n, "inf") || spk_mm_word_is(p, n, "infinity") ||
        spk_mm_word_is(p, n, "nan"))
        return 1;
    return n > 4 && spk_mm_word_is(p, 4, "nan(");
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
const char *spk_mm_scan_int(const char *p, const char *end, long long *v)
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
    char small[512];
    size_t n = (size_t)(p - s);
    /* a long token (hundreds of digits are valid) gets a copy of its own; a
     * token is at most a line, and lines are bounded by the reader's window */
    char *tmp = n < sizeof small ? small : malloc(n + 1);
    if (!tmp) return MM_NUM_BAD;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *q;
    double x = strtod(tmp, &q);
    const int whole = q == tmp + n; /* not: a locale whose decimal point is not '.' */
    if (tmp != small) free(tmp);
    if (!whole) return MM_NUM_BAD;
    if (!isfinite(x)) return MM_NUM_NONFINITE;
    *v = x;
    return MM_NUM_OK;
}

/* Scan a real token [+-]digits[.digits][(e|E)[+-]digits] at *pp (up to the
 * next whitespace) into an exactly rounded *v.  *integral is set when the
 * token has neither a point nor an exponent.  Returns MM_NUM_OK (and moves
 * *pp past the token), MM_NUM_BAD or MM_NUM_NONFINITE. */
int spk_mm_scan_real(const char **pp, const char *end, double *v, int *integral)
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
