/* zspmv_formats.c -- the names of the complex formats on each executor, in
 * a file of their own: the dispatch (zspmv.c) and the GPU's formats
 * (zspmv_cuda.c) both name them in their messages. */
#include <string.h>

#include "zspmv.h"

const char *spk_zspmv_formats(const spk_exec *e)
{
    if (e && e->ops && e->ops->name && strcmp(e->ops->name, "cuda") == 0) return "cusparse, csr-vector, auto";
    return "csr, auto";
}
