/* error.h -- status codes with messages a person can act on.
 *
 * Every internal routine that can fail takes an spk_err* and returns a status;
 * on failure it records the code and a sentence naming the cause.  The
 * innermost routine writes the specific message; callers may add context in
 * front of it with spk_err_prefix(). */
#ifndef SPK_CORE_ERROR_H
#define SPK_CORE_ERROR_H

#include "spk.h"

#define SPK_ERR_MSG_MAX 1024

typedef struct spk_err {
    int code;
    char msg[SPK_ERR_MSG_MAX];
} spk_err;

#if defined(__GNUC__)
#define SPK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SPK_PRINTF(a, b)
#endif

/* Record code and message in e (e may be NULL); returns code. */
int spk_err_set(spk_err *e, int code, const char *fmt, ...) SPK_PRINTF(3, 4);
/* Prepend "context: " to the message already in e; returns e->code. */
int spk_err_prefix(spk_err *e, const char *fmt, ...) SPK_PRINTF(2, 3);
/* Reset e to SPK_OK with an empty message. */
void spk_err_clear(spk_err *e);

/* Propagate a non-zero status: the message is already in the spk_err. */
#define SPK_TRY(call)                    \
    do {                                 \
        int spk_try_st_ = (call);        \
        if (spk_try_st_) return spk_try_st_; \
    } while (0)

/* Propagate a status by jumping to the function's single cleanup label. */
#define SPK_CHECK(st, call)              \
    do {                                 \
        (st) = (call);                   \
        if (st) goto cleanup;            \
    } while (0)

#endif
