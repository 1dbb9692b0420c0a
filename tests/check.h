/* check.h -- a minimal assertion kit for spk's C tests.
 *
 * CHECK(cond, fmt, ...) counts a failure and prints where and why, and the
 * test goes on; CHECK_OK(call) checks for status 0; main returns
 * check_exit() which is 1 when anything failed.  SKIP() exits 77, which CTest
 * reports as skipped (SKIP_RETURN_CODE).  CASE() selects a part of a long
 * test's cases (check_parts). */
#ifndef SPK_TESTS_CHECK_H
#define SPK_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures_ = 0;
static int check_count_ = 0;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        check_count_++;                                                      \
        if (!(cond)) {                                                       \
            check_failures_++;                                               \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

#define CHECK_OK(call, err)                                                  \
    do {                                                                     \
        int check_st_ = (call);                                              \
        CHECK(check_st_ == 0, "%s returned %d: %s", #call, check_st_, (err)); \
    } while (0)

/* |a - b| <= tol * max(1, |b|) */
#define CHECK_NEAR(a, b, tol)                                                \
    do {                                                                     \
        double check_a_ = (a), check_b_ = (b);                               \
        double check_s_ = fabs(check_b_) > 1 ? fabs(check_b_) : 1;           \
        CHECK(fabs(check_a_ - check_b_) <= (tol) * check_s_,                 \
              "%s = %.17g, expected %.17g (tol %g)", #a, check_a_, check_b_, (double)(tol)); \
    } while (0)

#define SKIP(...)                                                            \
    do {                                                                     \
        fprintf(stderr, "SKIP: " __VA_ARGS__);                               \
        fputc('\n', stderr);                                                 \
        exit(77);                                                            \
    } while (0)

static inline int check_exit(void)
{
    if (check_failures_)
        fprintf(stderr, "%d of %d checks FAILED\n", check_failures_, check_count_);
    else
        printf("all %d checks passed\n", check_count_);
    return check_failures_ ? 1 : 0;
}

/* A long test in parts (a sanitizer run of each part in its own call):
 * with "I/N" given to check_parts, CASE() is true for every N-th case from
 * the I-th (cases counted in the order of the CASE() calls, which must not
 * depend on the selection); without it, for every case. */
typedef struct check_sel {
    int part, nparts, next;
} check_sel;

static inline check_sel *check_sel_(void)
{
    static check_sel sel = {0, 1, 0};
    return &sel;
}

static inline int check_case(void)
{
    check_sel *s = check_sel_();
    return s->next++ % s->nparts == s->part;
}

#define CASE() check_case()

/* Parse "I/N" (0 <= I < N): 0, or -1 for anything else. */
static inline int check_parts(const char *arg)
{
    int i = -1, n = 0;
    char tail;
    if (!arg || sscanf(arg, "%d/%d%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n) return -1;
    check_sel_()->part = i;
    check_sel_()->nparts = n;
    return 0;
}

/* Does a message contain a substring? (for asserting error texts) */
static inline int check_contains(const char *msg, const char *part)
{
    return msg && part && strstr(msg, part) != NULL;
}

#endif
