/* mmio.c -- Matrix Market reading (.mtx and .mtx.gz), the public readers.
 *
 * Reading parses a file in one pass through a window of MM_WINDOW bytes
 * (mm_file.c; never the whole text in memory, so a file of gigabytes of
 * blanks or a compressed bomb costs the window) with hand-written scanners
 * (mm_lex.c): the banner and size line (mm_header.c), then the entries
 * (mm_entries.c), which become CSR or a dense array (mm_convert.c).  Writing is in mm_write.c.
 *
 * Choices: array files may be general, symmetric, skew-symmetric or
 * hermitian (packed lower triangle, column by column); pattern skew-symmetric
 * files are read with +1 for stored and -1 for mirrored entries; non-finite
 * values are rejected by the reader and by the writers.  The complex readers
 * run the same steps with each value a (re, im) pair (mm_data.cplx); the
 * real ones refuse a complex file at its banner. */
#include "io/mmio.h"

#include <stdlib.h>
#include <string.h>

#include "io/mm_file.h"
#include "io/mm_parse.h"

/* Parse the text of ps (a whole text, or a file's window) into d, holding
 * at most limit bytes (0: no limit); the header's comments into c (NULL:
 * skipped with the blank lines, as the size line's reader does).  cplx: the
 * values as complex pairs (the complex readers); without it a complex file
 * is refused at its banner. */
static int mm_parse_from(mm_parser *ps, size_t limit, int cplx, mm_data *d, spk_mm_comments *c, spk_err *e)
{
    int st;
    memset(d, 0, sizeof *d);
    d->limit = limit;
    d->cplx = cplx;
    SPK_CHECK(st, spk_mm_parse_banner(ps, &d->info, e));
    if (!cplx && d->info.field == SPK_MM_COMPLEX)
        SPK_CHECK(st, spk_err_set(e, SPK_ERR_UNSUPPORTED,
                                  "%s:1: complex matrix: read it as a complex system (spk_matrix_read gives a "
                                  "complex matrix)",
                                  ps->name));
    if (c) SPK_CHECK(st, spk_mm_parse_comments(ps, c, e));
    SPK_CHECK(st, spk_mm_parse_size(ps, &d->info, e));
    if (d->info.format == SPK_MM_COORDINATE)
        SPK_CHECK(st, spk_mm_parse_coordinate(ps, d, e));
    else
        SPK_CHECK(st, spk_mm_parse_array(ps, d, e));
cleanup:
    if (st) spk_mm_data_free(d);
    return st;
}

/* Parse a whole Matrix Market text into d. */
static int mm_parse(const char *name, const char *buf, size_t len, int cplx, mm_data *d, spk_err *e)
{
    mm_parser ps;
    memset(&ps, 0, sizeof ps);
    ps.name = name ? name : "(memory)";
    ps.line = 1;
    if (!buf && len) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: NULL buffer", ps.name);
    if (!buf) buf = "";
    ps.begin = ps.p = buf;
    ps.end = buf + len;
    return mm_parse_from(&ps, 0, cplx, d, NULL, e);
}

/* Parse a file through a window (never its whole text in memory). */
static int mm_parse_file(const char *path, size_t limit, int cplx, mm_data *d, spk_mm_comments *c, spk_err *e)
{
    mm_parser ps;
    memset(d, 0, sizeof *d);
    SPK_TRY(spk_mm_open(path, &ps, e));
    const int st = mm_parse_from(&ps, limit, cplx, d, c, e);
    spk_mm_close(&ps);
    return st;
}

/* ---- public readers ----------------------------------------------------- */

/* Read a Matrix Market text held in memory as canonical CSR. */
int spk_mm_read_csr_mem(const char *name, const char *buf, size_t len, spk_csr *A,
                        spk_mm_info *info, spk_err *e)
{
    mm_data d;
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_read_csr_mem: A is NULL");
    if (!name) name = "(memory)";
    SPK_TRY(mm_parse(name, buf, len, 0, &d, e));
    if (info) *info = d.info;
    return spk_mm_data_to_csr(&d, name, A, e);
}

/* Read a Matrix Market file (.mtx or .mtx.gz) as canonical CSR. */
int spk_mm_read_csr(const char *path, spk_csr *A, spk_mm_info *info, spk_err *e)
{
    return spk_mm_read_csr_limit(path, 0, A, info, e);
}

int spk_mm_read_csr_limit(const char *path, size_t limit, spk_csr *A, spk_mm_info *info, spk_err *e)
{
    return spk_mm_read_csr_comments(path, limit, A, info, NULL, e);
}

int spk_mm_read_csr_comments(const char *path, size_t limit, spk_csr *A, spk_mm_info *info, spk_mm_comments *c,
                             spk_err *e)
{
    mm_data d;
    if (c) memset(c, 0, sizeof *c);
    if (!path || !A)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_read_csr: %s is NULL",
                           path ? "A" : "path");
    SPK_TRY(mm_parse_file(path, limit, 0, &d, c, e));
    if (info) *info = d.info;
    return spk_mm_data_to_csr(&d, path, A, e);
}

void spk_mm_comments_free(spk_mm_comments *c)
{
    if (!c) return;
    free(c->text);
    memset(c, 0, sizeof *c);
}

/* A column-major dense array from d: *v and its size (d's arrays are consumed). */
static int mm_dense_out(mm_data *d, const char *name, int *nrows, int *ncols, double **v, spk_err *e)
{
    const int M = d->info.nrows, N = d->info.ncols;
    double *a = NULL;
    SPK_TRY(spk_mm_data_to_dense(d, name, &a, e));
    *nrows = M;
    *ncols = N;
    *v = a;
    return SPK_OK;
}

/* The dense readers of a text in memory and of a file, real or (cplx) complex. */
static int mm_read_dense_mem(const char *name, const char *buf, size_t len, int cplx, int *nrows, int *ncols,
                             double **v, spk_err *e)
{
    mm_data d;
    if (!nrows || !ncols || !v)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_read_%sdense_mem: NULL output argument", cplx ? "z" : "");
    if (!name) name = "(memory)";
    SPK_TRY(mm_parse(name, buf, len, cplx, &d, e));
    return mm_dense_out(&d, name, nrows, ncols, v, e);
}

static int mm_read_dense_file(const char *path, size_t limit, int cplx, int *nrows, int *ncols, double **v,
                              spk_err *e)
{
    mm_data d;
    if (!path || !nrows || !ncols || !v)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_read_%sdense: NULL argument", cplx ? "z" : "");
    SPK_TRY(mm_parse_file(path, limit, cplx, &d, NULL, e));
    return mm_dense_out(&d, path, nrows, ncols, v, e);
}

/* Read a Matrix Market text held in memory as a column-major dense array. */
int spk_mm_read_dense_mem(const char *name, const char *buf, size_t len, int *nrows, int *ncols,
                          double **v, spk_err *e)
{
    return mm_read_dense_mem(name, buf, len, 0, nrows, ncols, v, e);
}

/* Read a Matrix Market file as a column-major dense array. */
int spk_mm_read_dense(const char *path, int *nrows, int *ncols, double **v, spk_err *e)
{
    return spk_mm_read_dense_limit(path, 0, nrows, ncols, v, e);
}

int spk_mm_read_dense_limit(const char *path, size_t limit, int *nrows, int *ncols, double **v, spk_err *e)
{
    return mm_read_dense_file(path, limit, 0, nrows, ncols, v, e);
}

/* ---- complex readers ---------------------------------------------------- */

int spk_mm_read_zdense(const char *path, size_t limit, int *nrows, int *ncols, double **v, spk_err *e)
{
    return mm_read_dense_file(path, limit, 1, nrows, ncols, v, e);
}

int spk_mm_read_zdense_mem(const char *name, const char *buf, size_t len, int *nrows, int *ncols, double **v,
                           spk_err *e)
{
    return mm_read_dense_mem(name, buf, len, 1, nrows, ncols, v, e);
}

int spk_mm_read_zcsr_mem(const char *name, const char *buf, size_t len, spk_zcsr *A, spk_mm_info *info,
                         spk_err *e)
{
    mm_data d;
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_read_zcsr_mem: A is NULL");
    memset(A, 0, sizeof *A);
    if (!name) name = "(memory)";
    SPK_TRY(mm_parse(name, buf, len, 1, &d, e));
    if (info) *info = d.info;
    return spk_mm_data_to_zcsr(&d, name, A, e);
}

int spk_mm_read_zcsr(const char *path, size_t limit, spk_zcsr *A, spk_mm_info *info, spk_err *e)
{
    mm_data d;
    if (!path || !A)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_read_zcsr: %s is NULL", path ? "A" : "path");
    memset(A, 0, sizeof *A);
    SPK_TRY(mm_parse_file(path, limit, 1, &d, NULL, e));
    if (info) *info = d.info;
    return spk_mm_data_to_zcsr(&d, path, A, e);
}

/* The banner alone, through the file's first window. */
int spk_mm_peek_field(const char *path, spk_mm_field *field, spk_err *e)
{
    mm_parser ps;
    spk_mm_info info;
    if (!path || !field)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_peek_field: %s is NULL", path ? "field" : "path");
    memset(&info, 0, sizeof info);
    SPK_TRY(spk_mm_open(path, &ps, e));
    const int st = spk_mm_parse_banner(&ps, &info, e);
    spk_mm_close(&ps);
    if (!st) *field = info.field;
    return st;
}
