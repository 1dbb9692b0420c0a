/* mm_entries.c -- Matrix Market coordinate entries and array values
 * (mm_parse.h), in one pass over the text or the file's window.  Capacity for entries grows as
 * entries are parsed and is never larger than what the rest of the input could
 * hold, so a size line claiming billions of entries costs nothing until data
 * backs it. */
#include "io/mm_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Make room for one more entry in d (doubling, capped by the announced count). */
/* Bytes an entry takes while read: row and column (coordinate), value (a pair
 * for the complex readers). */
static double mm_entry_bytes(const mm_data *d)
{
    return (d->info.format == SPK_MM_COORDINATE ? 8.0 : 0.0) +
           (d->info.field != SPK_MM_PATTERN ? 8.0 * (double)mm_width(d) : 0.0);
}

static int mm_grow(mm_data *d, const char *name, spk_err *e)
{
    size_t cap = d->cap * 2 + 1024;
    if (cap > d->max) cap = d->max;
    if (d->limit && (double)cap * mm_entry_bytes(d) > (double)d->limit) { /* the last step up to the limit */
        const size_t most = (size_t)((double)d->limit / mm_entry_bytes(d));
        if (most <= d->cap) {
            char what[96];
            snprintf(what, sizeof what, "reading more than %zu entries", d->cap);
            return spk_mm_within_limit(d, (double)(d->cap + 1) * mm_entry_bytes(d), name, what, e);
        }
        cap = most;
    }
    if (d->row) {
        int *r = realloc(d->row, cap * sizeof *r);
        if (!r) goto nomem;
        d->row = r;
        int *c = realloc(d->col, cap * sizeof *c);
        if (!c) goto nomem;
        d->col = c;
    }
    if (d->val || d->info.field != SPK_MM_PATTERN) {
        double *v = realloc(d->val, cap * mm_width(d) * sizeof *v);
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
    if (d->limit && (double)cap * mm_entry_bytes(d) > (double)d->limit)
        cap = (size_t)((double)d->limit / mm_entry_bytes(d));
    if (cap == 0) cap = 1;
    if (d->info.format == SPK_MM_COORDINATE) {
        d->row = malloc(cap * sizeof *d->row);
        d->col = malloc(cap * sizeof *d->col);
        if (!d->row || !d->col) goto nomem;
    }
    if (d->info.field != SPK_MM_PATTERN) {
        d->val = malloc(cap * mm_width(d) * sizeof *d->val);
        if (!d->val) goto nomem;
    }
    d->cap = cap;
    return SPK_OK;
nomem:
    return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu entries)", name, cap);
}

/* Note what was read but may not be what the file meant (the first one
 * is kept, all are counted). */
static void mm_warn(mm_parser *ps, mm_data *d, long long line, const char *what)
{
    if (d->info.warnings++ == 0)
        snprintf(d->info.warning, sizeof d->info.warning, "%s:%lld: %s", ps->name, line, what);
}

/* The next content line, whole: in the window without a refill where it
 * can be (the common case, inline), else through spk_mm_next_content. */
static inline int mm_next_entry(mm_parser *ps, const char **p, const char **end, long long *line, int *found,
                                spk_err *e)
{
    if (!ps->more || (size_t)(*end - *p) >= ps->line_max) {
        *found = mm_next_line(p, *end, line, ps->more);
        if (*found == 0 || (*found == 1 && (!ps->more || (size_t)(*end - *p) >= ps->line_max))) return SPK_OK;
    }
    return spk_mm_next_content(ps, p, end, line, found, e);
}

/* Content after the last announced entry (or value) at p: more entries,
 * or binary data (a control byte such as NUL where text should be). */
static int mm_after_last(const mm_parser *ps, const char *p, long long line, const char *what, long long count,
                         spk_err *e)
{
    const unsigned char c = (unsigned char)*p;
    if (c == 127 || (c < 32 && !mm_blank((char)c) && c != '\n'))
        return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: binary data (byte 0x%02x) after the last of the %lld %s",
                           ps->name, line, c, count, what);
    return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: more %s than the %lld announced in the size line", ps->name,
                       line, what, count);
}

/* Report a bad value token at p on the given line. */
static int mm_bad_value(mm_parser *ps, const char *p, long long line, int status, int integer,
                        spk_err *e)
{
    char tok[64];
    spk_mm_token(p, ps->end, tok, sizeof tok);
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

/* Scan an entry's value at *pp into v[0] and, for the complex field, its
 * imaginary part into v[1] (else 0), with the blanks after them: "too few
 * tokens, expected EXPECT" where the line ends first. */
static inline int mm_scan_value(mm_parser *ps, mm_data *d, const char **pp, const char *end, long long line,
                                const char *expect, double v[2], spk_err *e)
{
    const int integer = d->info.field == SPK_MM_INTEGER, parts = d->info.field == SPK_MM_COMPLEX ? 2 : 1;
    const char *p = *pp;
    v[1] = 0;
    for (int k = 0; k < parts; k++) {
        int intg;
        const char *t0 = p;
        if (p == end || *p == '\n')
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: too few tokens, expected %s", ps->name, line, expect);
        const int st = spk_mm_scan_real(&p, end, &v[k], &intg);
        if (st || (integer && !intg)) return mm_bad_value(ps, t0, line, st, integer, e);
        if (integer && fabs(v[k]) >= 0x1p53)
            mm_warn(ps, d, line, "an integer of magnitude 2^53 or more, which a double may round");
        while (p < end && mm_blank(*p)) p++;
    }
    *pp = p;
    return SPK_OK;
}

/* The diagonal of a Hermitian matrix is real. */
static int mm_hermitian_diagonal(const mm_parser *ps, long long line, long long i, double im, spk_err *e)
{
    return spk_err_set(e, SPK_ERR_PARSE,
                       "%s:%lld: diagonal entry (%lld,%lld) of a hermitian matrix is not real (imaginary part %.17g)",
                       ps->name, line, i, i, im);
}

/* Parse the L coordinate entries "i j [v]" into d (1-based in, 0-based out). */
int spk_mm_parse_coordinate(mm_parser *ps, mm_data *d, spk_err *e)
{
    const spk_mm_info *in = &d->info;
    const int pattern = in->field == SPK_MM_PATTERN, cplx = d->cplx;
    const int skew = in->symmetry == SPK_MM_SKEW, herm = in->symmetry == SPK_MM_HERMITIAN;
    const long long M = in->nrows, N = in->ncols;
    const char *expect = pattern                        ? "2 (row column)"
                         : in->field == SPK_MM_COMPLEX ? "4 (row column real imaginary)"
                                                        : "3 (row column value)";
    const char *p = ps->p, *end = ps->end, *q;
    long long line = ps->line, r, c;
    char tok[64];
    int found = 0;
    long long above = 0, below = 0; /* the first line of an entry above / below the diagonal */
    d->max = (size_t)in->entries;
    SPK_TRY(mm_reserve(d, ps->more ? MM_WINDOW : (size_t)(end - p), 4, ps->name, e));
    for (size_t k = 0; k < d->max; k++) {
        SPK_TRY(mm_next_entry(ps, &p, &end, &line, &found, e));
        if (!found)
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: file ends after %zu of %lld entries",
                               ps->name, mm_last_line(ps, line), k, in->entries);
        if (!mm_line_whole(ps, p, end)) goto too_long;
        if (!(q = spk_mm_scan_int(p, end, &r)))
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: bad row index '%s'", ps->name, line,
                               spk_mm_token(p, end, tok, sizeof tok));
        if (r < 1 || r > M)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: row index out of range: %lld not in 1..%lld", ps->name,
                               line, r, M);
        p = q;
        while (p < end && mm_blank(*p)) p++;
        if (p == end || *p == '\n') goto too_few;
        if (!(q = spk_mm_scan_int(p, end, &c)))
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: bad column index '%s'", ps->name, line,
                               spk_mm_token(p, end, tok, sizeof tok));
        if (c < 1 || c > N)
            return spk_err_set(e, SPK_ERR_PARSE,
                               "%s:%lld: column index out of range: %lld not in 1..%lld", ps->name,
                               line, c, N);
        p = q;
        while (p < end && mm_blank(*p)) p++;
        double v[2] = {0, 0};
        if (!pattern) {
            SPK_TRY(mm_scan_value(ps, d, &p, end, line, expect, v, e));
            if (k == d->cap) SPK_TRY(mm_grow(d, ps->name, e));
            if (cplx) {
                d->val[2 * k] = v[0];
                d->val[2 * k + 1] = v[1];
            } else {
                d->val[k] = v[0];
            }
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
        if (herm && r == c && v[1] != 0) return mm_hermitian_diagonal(ps, line, r, v[1], e);
        if (in->symmetry != SPK_MM_GENERAL && r != c) { /* the spec stores one triangle */
            if (r < c && !above) above = line;
            if (r > c && !below) below = line;
        }
        d->row[k] = (int)(r - 1);
        d->col[k] = (int)(c - 1);
        d->n = k + 1;
        if (p < end) {
            p++;
            line++;
        }
    }
    SPK_TRY(spk_mm_next_content(ps, &p, &end, &line, &found, e));
    if (found) return mm_after_last(ps, p, line, "entries", in->entries, e);
    if (above && below)
        mm_warn(ps, d, above > below ? above : below,
                "a symmetric file with entries on both sides of the diagonal: each is mirrored, so an entry "
                "listed at both (i,j) and (j,i) is counted twice");
    ps->p = p;
    ps->line = line;
    return SPK_OK;
too_few:
    return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: too few tokens, expected %s", ps->name, line,
                       expect);
too_long:
    return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: a line longer than %zu bytes", ps->name, line, ps->line_max);
}

/* Parse the values of an array file, one per line, column by column. */
int spk_mm_parse_array(mm_parser *ps, mm_data *d, spk_err *e)
{
    const int cplx = d->cplx, herm = d->info.symmetry == SPK_MM_HERMITIAN;
    const char *expect = d->info.field == SPK_MM_COMPLEX ? "2 values (real imaginary) per line in a complex array file"
                                                         : "1 value per line in an array file";
    const char *p = ps->p, *end = ps->end;
    long long line = ps->line;
    long long jcol = 0, left = d->info.nrows; /* hermitian: the packed column and its values still to come */
    int found = 0;
    d->max = (size_t)d->info.entries;
    SPK_TRY(mm_reserve(d, ps->more ? MM_WINDOW : (size_t)(end - p), 2, ps->name, e));
    for (size_t k = 0; k < d->max; k++) {
        double v[2];
        SPK_TRY(mm_next_entry(ps, &p, &end, &line, &found, e));
        if (!found)
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: file ends after %zu of %lld values",
                               ps->name, mm_last_line(ps, line), k, d->info.entries);
        if (!mm_line_whole(ps, p, end))
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: a line longer than %zu bytes", ps->name, line,
                               ps->line_max);
        SPK_TRY(mm_scan_value(ps, d, &p, end, line, expect, v, e));
        if (p < end && *p != '\n')
            return spk_err_set(e, SPK_ERR_PARSE, "%s:%lld: too many tokens, expected %s", ps->name, line, expect);
        if (herm) { /* the first value of each packed column is its diagonal */
            if (left == d->info.nrows - jcol && v[1] != 0) return mm_hermitian_diagonal(ps, line, jcol + 1, v[1], e);
            if (--left == 0) left = d->info.nrows - ++jcol;
        }
        if (k == d->cap) SPK_TRY(mm_grow(d, ps->name, e));
        if (cplx) {
            d->val[2 * k] = v[0];
            d->val[2 * k + 1] = v[1];
        } else {
            d->val[k] = v[0];
        }
        d->n = k + 1;
        if (p < end) {
            p++;
            line++;
        }
    }
    SPK_TRY(spk_mm_next_content(ps, &p, &end, &line, &found, e));
    if (found) return mm_after_last(ps, p, line, "values", d->info.entries, e);
    ps->p = p;
    ps->line = line;
    return SPK_OK;
}
