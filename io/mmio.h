/* mmio.h -- Matrix Market reading and writing (.mtx and .mtx.gz).
 *
 * Reads coordinate real / integer / pattern x general / symmetric /
 * skew-symmetric into canonical CSR (symmetric parts mirrored, duplicates
 * summed, pattern values 1), and array (dense, column-major) files.
 * Every malformed input fails with SPK_ERR_PARSE and a message
 * "FILE:LINE: cause".  Complex files (also hermitian) are read by the
 * spk_mm_read_z* functions into complex matrices (which read real, integer
 * and pattern files too, imaginary parts 0); the real readers refuse them
 * with SPK_ERR_UNSUPPORTED.  Hermitian symmetry goes with the complex field
 * only.  Files named *.gz are read through zlib (a plain file with a .gz
 * name is read as is). */
#ifndef SPK_IO_MMIO_H
#define SPK_IO_MMIO_H

#include <stddef.h>

#include "core/csr.h"
#include "core/zcsr.h"

typedef enum { SPK_MM_COORDINATE, SPK_MM_ARRAY } spk_mm_format;
typedef enum { SPK_MM_REAL, SPK_MM_INTEGER, SPK_MM_PATTERN, SPK_MM_COMPLEX } spk_mm_field;
/* hermitian: complex files only (the mirror of an entry is its conjugate) */
typedef enum { SPK_MM_GENERAL, SPK_MM_SYMMETRIC, SPK_MM_SKEW, SPK_MM_HERMITIAN } spk_mm_symmetry;

/* What the banner and size line said. */
typedef struct spk_mm_info {
    spk_mm_format format;
    spk_mm_field field;
    spk_mm_symmetry symmetry;
    int nrows, ncols;
    long long entries;     /* entries stored in the file (size line) */
    int warnings;          /* what was read but may not be what the file meant (0: none) ... */
    char warning[256];     /* ... the first of them, "FILE:LINE: ..." */
} spk_mm_info;

/* Read a sparse matrix.  An array (dense) file is accepted too and keeps its
 * nonzeros.  info may be NULL. */
int spk_mm_read_csr(const char *path, spk_csr *A, spk_mm_info *info, spk_err *e);
/* ... holding at most limit bytes while reading (the entries, then the CSR
 * made from them; 0: no limit): SPK_ERR_NOMEM naming the limit beyond it. */
int spk_mm_read_csr_limit(const char *path, size_t limit, spk_csr *A, spk_mm_info *info, spk_err *e);
/* The same from a buffer in memory (name is used in messages). */
int spk_mm_read_csr_mem(const char *name, const char *buf, size_t len, spk_csr *A,
                        spk_mm_info *info, spk_err *e);

/* The comment lines of a file's header, between the banner and the size
 * line, as written (from their '%', each ending in '\n'; '%' lines among
 * the entries are not kept): at most SPK_MM_COMMENTS_MAX bytes of them, the
 * lines beyond counted, not kept, so a file of comments costs no more. */
enum { SPK_MM_COMMENTS_MAX = 1 << 16 };
typedef struct spk_mm_comments {
    char *text;        /* the lines kept, NUL-terminated (malloc; NULL: none) */
    size_t len;        /* ... their bytes */
    long long lines;   /* comment lines in the header */
    long long dropped; /* ... of them not kept (beyond SPK_MM_COMMENTS_MAX bytes) */
} spk_mm_comments;
/* spk_mm_read_csr_limit that also hands back the header's comments in *c
 * (release with spk_mm_comments_free, also after a failed read). */
int spk_mm_read_csr_comments(const char *path, size_t limit, spk_csr *A, spk_mm_info *info, spk_mm_comments *c,
                             spk_err *e);
void spk_mm_comments_free(spk_mm_comments *c);

/* Read a dense matrix (array format, or coordinate with zeros filled in) as a
 * column-major nrows x ncols array allocated with malloc. */
int spk_mm_read_dense(const char *path, int *nrows, int *ncols, double **v, spk_err *e);
int spk_mm_read_dense_limit(const char *path, size_t limit, int *nrows, int *ncols, double **v, spk_err *e);
int spk_mm_read_dense_mem(const char *name, const char *buf, size_t len, int *nrows, int *ncols,
                          double **v, spk_err *e);

/* Write A as coordinate real general (or, with symmetric = 1, as symmetric:
 * only the lower triangle, A must be value-symmetric), %.17g values.  comment
 * (may be NULL) becomes "%"-prefixed lines after the banner.  A path ending in
 * ".gz" is written compressed. */
int spk_mm_write_csr(const char *path, const spk_csr *A, int symmetric, const char *comment,
                     spk_err *e);
/* ... with lines (may be NULL) first after the banner, verbatim: a line that
 * starts with '%' as it is, another after "% " (spk_mm_comments.text). */
int spk_mm_write_csr_lines(const char *path, const spk_csr *A, int symmetric, const char *lines,
                           const char *comment, spk_err *e);
/* Write a column-major nrows x ncols array in array real general format. */
int spk_mm_write_dense(const char *path, int nrows, int ncols, const double *v,
                       const char *comment, spk_err *e);

/* ---- complex matrices (values as (re, im) pairs, core/zcsr.h) ----------- */

/* The field a file's banner names (only the banner is read; .gz too). */
int spk_mm_peek_field(const char *path, spk_mm_field *field, spk_err *e);
/* Read a sparse matrix as complex: coordinate complex general, symmetric
 * (mirrored), hermitian (mirrored with the conjugate; a diagonal entry with a
 * nonzero imaginary part is an error) or skew-symmetric (mirrored negated;
 * no diagonal entries); real, integer and pattern files too (imaginary parts
 * 0), and array files, keeping their nonzeros.  limit as for
 * spk_mm_read_csr_limit (0: none); info may be NULL. */
int spk_mm_read_zcsr(const char *path, size_t limit, spk_zcsr *A, spk_mm_info *info, spk_err *e);
int spk_mm_read_zcsr_mem(const char *name, const char *buf, size_t len, spk_zcsr *A, spk_mm_info *info,
                         spk_err *e);
/* Read a dense complex matrix (array complex or real/integer, or coordinate
 * with zeros filled in) as a column-major nrows x ncols array of (re, im)
 * pairs, 2 * nrows * ncols doubles allocated with malloc. */
int spk_mm_read_zdense(const char *path, size_t limit, int *nrows, int *ncols, double **v, spk_err *e);
int spk_mm_read_zdense_mem(const char *name, const char *buf, size_t len, int *nrows, int *ncols, double **v,
                           spk_err *e);
/* Write A as coordinate complex: symmetry 0 general, 1 symmetric, 2 hermitian
 * (1 and 2 write the lower triangle; A must be exactly symmetric, or exactly
 * Hermitian with a real diagonal).  %.17g values, comment and ".gz" as
 * spk_mm_write_csr. */
int spk_mm_write_zcsr(const char *path, const spk_zcsr *A, int symmetry, const char *comment, spk_err *e);
/* Write a column-major nrows x ncols array of (re, im) pairs as array complex
 * general. */
int spk_mm_write_zdense(const char *path, int nrows, int ncols, const double *v, spk_err *e);

/* Write len bytes to path as the writers above write (every file spk writes):
 * into a temporary file beside it, renamed over path once complete, so that
 * a failed write leaves a previous file of that name as it was; ".gz"
 * compresses.  For reports (bench JSON and CSV). */
int spk_write_file(const char *path, const char *data, size_t len, spk_err *e);

/* Remove the temporary file of the write in progress, if any (writes go to
 * PATH.tmp-PID-N, renamed over PATH when whole): async-signal-safe, for a
 * handler of SIGINT or SIGTERM, so an interrupted write leaves nothing
 * behind. */
void spk_mm_remove_pending(void);

#endif
