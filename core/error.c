/* error.c -- recording and prefixing error messages. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int spk_err_set(spk_err *e, int code, const char *fmt, ...)
{
    if (!e) return code;
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

int spk_err_prefix(spk_err *e, const char *fmt, ...)
{
    if (!e) return SPK_ERR_INTERNAL;
    char old[SPK_ERR_MSG_MAX];
    memcpy(old, e->msg, sizeof old);
    old[sizeof old - 1] = '\0';
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    size_t used = len < 0 ? 0 : (size_t)len;
    if (used + 2 < sizeof e->msg) {
        memcpy(e->msg + used, ": ", 3);
        used += 2;
        size_t room = sizeof e->msg - used - 1, olen = strlen(old);
        if (olen > room) olen = room;
        memcpy(e->msg + used, old, olen);
        e->msg[used + olen] = '\0';
    }
    return e->code;
}

void spk_err_clear(spk_err *e)
{
    if (!e) return;
    e->code = SPK_OK;
    e->msg[0] = '\0';
}
