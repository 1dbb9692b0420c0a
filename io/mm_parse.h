/* mm_parse.h -- the Matrix Market reader's internals, shared by its files
 * (private to io/): the input being parsed, the parsed data, the byte tests
 * every scanner makes (inline: they run per byte), and the steps of a parse.
 *
 *   mm_lex.c      tokens for messages, keywords, integer and real scanners
 *   mm_header.c   the banner line and the size line
 *   mm_entries.c  coordinate entries and array values
 *   mm_convert.c  parsed data -> canonical CSR or a dense array
 *   mmio.c        the public readers, which run the steps in that order */
#ifndef SPK_IO_MM_PARSE_H
#define SPK_IO_MM_PARSE_H

#include <stddef.h>
#include <string.h>

#include "io/mmio.h"

enum { MM_NUM_OK = 0, MM_NUM_BAD = 1, MM_NUM_NONFINITE = 2 };

/* A file read through a window (mm_file.c): the parser holds only the
 * window's bytes, never the whole text.  Lines are at most line_max bytes
 * (MM_LINE_MAX unless a test set others); the window is refilled when less
 * than that is left after the line being parsed. */
typedef struct mm_source mm_source;
enum { MM_LINE_MAX = 1 << 16, MM_WINDOW = 1 << 20 };
/* Tests: the window and line limit of the files opened next (line_max at
 * most window / 2; 0, 0: the defaults), to cross windows on small files. */
void spk_mm_set_window(size_t window, size_t line_max);

/* The input being parsed: the whole text, or (src) the window [begin, end)
 * of a file, more of which follows while `more` is set. */
typedef struct mm_parser {
    const char *name; /* file name for messages */
    const char *begin, *p, *end;
    long long line; /* 1-based number of the line p is on */
    mm_source *src; /* NULL: [begin, end) is the whole text */
    int more;       /* 1: the file goes on after end */
    size_t line_max; /* with src: the longest line the window holds whole */
    int last_nl;     /* with src: the last byte read from the file is a newline */
} mm_parser;

/* What a file holds once parsed: the header, and either coordinate entries
 * (0-based row, col, val; val NULL for pattern; mirrored parts not yet added)
 * or the values of an array file (row and col NULL, column-major, packed lower
 * triangle for symmetric, hermitian and skew-symmetric).  With cplx (the
 * complex readers) each value is a (re, im) pair, val[2k], val[2k + 1];
 * the imaginary parts of a real or integer file are 0. */
typedef struct mm_data {
    spk_mm_info info;
    size_t n, cap, max; /* entries stored, allocated, announced */
    size_t limit;       /* bytes the read may hold (spk_mm_read_*_limit; 0: no limit) */
    int cplx;           /* 1: values as complex pairs (set before the parse) */
    int *row, *col;
    double *val;
} mm_data;

/* Doubles a value takes in d->val: 2 for complex pairs, else 1. */
static inline size_t mm_width(const mm_data *d)
{
    return d->cplx ? 2 : 1;
}

/* ---- bytes and lines ---------------------------------------------------- */

/* Is c a blank inside a line: ' ', '\t' or '\r' (bits 32, 9, 13 of a mask)? */
static inline int mm_blank(char c)
{
    unsigned u = (unsigned char)c;
    return u <= 32 && ((0x100002200ULL >> u) & 1);
}

/* Does a token end at p (blank, newline or end of input)? */
static inline int mm_delim(const char *p, const char *end)
{
    unsigned u;
    return p == end || ((u = (unsigned char)*p) <= 32 && ((0x100002600ULL >> u) & 1));
}

/* Is c one of '0'..'9'? */
static inline int mm_digit(char c)
{
    return (unsigned)(c - '0') < 10u;
}

/* Skip blank and comment lines: on return p is at the first token of a
 * content line (returns 1) or at the end of input (returns 0); where more
 * input follows end (more), a blank or comment line cut by end returns -1
 * with p at its start. */
static inline int mm_next_line(const char **pp, const char *end, long long *line, int more)
{
    const char *p = *pp;
    for (;;) {
        const char *start = p;
        while (p < end && mm_blank(*p)) p++;
        if (p == end) {
            if (more) {
                *pp = start;
                return -1;
            }
            break;
        }
        if (*p == '\n') {
            p++;
            (*line)++;
            continue;
        }
        if (*p == '%') {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl) {
                if (more) {
                    *pp = start;
                    return -1;
                }
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
static inline long long mm_last_line(const mm_parser *ps, long long line)
{
    const int nl = ps->src ? ps->last_nl : ps->end > ps->begin && ps->end[-1] == '\n';
    if (nl && line > 1) return line - 1;
    return line;
}

/* ---- tokens and numbers (mm_lex.c) -------------------------------------- */

/* Copy the token at p into out for a message: at most cap-1 characters,
 * non-printable bytes shown as '?', "..." appended when cut. */
const char *spk_mm_token(const char *p, const char *end, char *out, size_t cap);
/* Case-insensitive equality of the n bytes at w with the literal lit. */
int spk_mm_word_is(const char *w, size_t n, const char *lit);
/* Scan an integer token [+-]digits into *v (saturating at 1e18); returns the
 * end of the token, or NULL when the token is not an integer. */
const char *spk_mm_scan_int(const char *p, const char *end, long long *v);
/* Scan a real token at *pp into an exactly rounded *v (*integral: neither a
 * point nor an exponent); MM_NUM_OK (*pp moved past it), _BAD or _NONFINITE. */
int spk_mm_scan_real(const char **pp, const char *end, double *v, int *integral);

/* ---- the window (mm_file.c) -------------------------------------------- */

/* Move [*p, *end) to the window's start and fill the rest from the file;
 * *p, *end and ps's window follow.  Nothing to do for a whole text or at the
 * end of the file. */
int spk_mm_refill(mm_parser *ps, const char **p, const char **end, spk_err *e);
/* mm_next_line through the window: *found 1 at a content line, whole in the
 * window (up to line_max bytes), 0 at the end of the input; an error
 * for a line longer than line_max. */
int spk_mm_next_content(mm_parser *ps, const char **p, const char **end, long long *line, int *found, spk_err *e);
/* A content line read from a file ends within line_max bytes of p (checked
 * before it is parsed, so that no message names a token cut by the window's
 * end; the same limit wherever the line falls in the window). */
static inline int mm_line_whole(const mm_parser *ps, const char *p, const char *end)
{
    if (!ps->more) return 1;
    const size_t n = (size_t)(end - p) < ps->line_max ? (size_t)(end - p) : ps->line_max;
    return memchr(p, '\n', n) != NULL;
}
/* Open path as a source for a parser (plain, or gzip when the name ends in
 * ".gz"), its first window read; spk_mm_close releases it. */
int spk_mm_open(const char *path, mm_parser *ps, spk_err *e);
void spk_mm_close(mm_parser *ps);

/* ---- the steps of a parse ----------------------------------------------- */

/* mm_header.c: line 1, "%%MatrixMarket matrix FORMAT FIELD SYMMETRY" */
int spk_mm_parse_banner(mm_parser *ps, spk_mm_info *info, spk_err *e);
/* mm_header.c: the comment lines after the banner into c (mmio.h's
 * spk_mm_comments; at most SPK_MM_COMMENTS_MAX bytes kept), up to the size line */
int spk_mm_parse_comments(mm_parser *ps, spk_mm_comments *c, spk_err *e);
/* mm_header.c: the size line, "M N L" (coordinate) or "M N" (array) */
int spk_mm_parse_size(mm_parser *ps, spk_mm_info *info, spk_err *e);
/* mm_entries.c: the L coordinate entries "i j [v]" into d (0-based) */
int spk_mm_parse_coordinate(mm_parser *ps, mm_data *d, spk_err *e);
/* mm_entries.c: the values of an array file, one per line, column by column */
int spk_mm_parse_array(mm_parser *ps, mm_data *d, spk_err *e);

/* mm_convert.c: SPK_OK when holding `bytes` stays within d->limit, else
 * SPK_ERR_NOMEM naming the file, the limit and what needed it */
int spk_mm_within_limit(const mm_data *d, double bytes, const char *name, const char *what, spk_err *e);
/* mm_convert.c: release d's arrays (the header stays) */
void spk_mm_data_free(mm_data *d);
/* mm_convert.c: canonical CSR from d (d's arrays are consumed) */
int spk_mm_data_to_csr(mm_data *d, const char *name, spk_csr *A, spk_err *e);
/* mm_convert.c: a column-major dense array from d (d's arrays are consumed;
 * with d->cplx, (re, im) pairs) */
int spk_mm_data_to_dense(mm_data *d, const char *name, double **out, spk_err *e);
/* mm_convert.c: canonical complex CSR from d (d->cplx; d's arrays are consumed) */
int spk_mm_data_to_zcsr(mm_data *d, const char *name, spk_zcsr *A, spk_err *e);

#endif
