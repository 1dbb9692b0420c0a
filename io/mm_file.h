/* mm_file.h -- files out for the Matrix Market writers (private to io/;
 * mm_file.c; the reader's window is in mm_parse.h). */
#ifndef SPK_IO_MM_FILE_H
#define SPK_IO_MM_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <zlib.h>

#include "io/mmio.h"


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
int spk_mm_out_open(mm_out *o, const char *path, spk_err *e);
/* Write out the buffered bytes. */
int spk_mm_out_flush(mm_out *o, spk_err *e);
/* Append a string of any length. */
int spk_mm_out_puts(mm_out *o, const char *s, size_t n, spk_err *e);
/* Flush and close; st is the status so far.  On success the temporary file
 * replaces path; on any error it is removed and path is left as it was. */
int spk_mm_out_close(mm_out *o, int st, spk_err *e);

#endif
