/* options.c -- the option table engine (options.h): parse and check values,
 * store and load them by offset, and write their help and messages. */
#include "core/options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append to the string in buf (len bytes), truncating. */
static void cat(char *buf, size_t len, const char *fmt, ...) SPK_PRINTF(3, 4);
static void cat(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static char norm(char c)
{
    return c == '_' ? '-' : c;
}

size_t spk_opt_size(const spk_opt *o)
{
    switch (o->type) {
    case SPK_OPT_LLONG:
        return sizeof(long long);
    case SPK_OPT_DOUBLE:
        return sizeof(double);
    case SPK_OPT_STRING:
        return sizeof(const char *);
    default:
        return sizeof(int);
    }
}

static int name_is(const char *name, const char *key, size_t n)
{
    if (!name || strlen(name) != n) return 0;
    for (size_t k = 0; k < n; k++)
        if (norm(name[k]) != norm(key[k])) return 0;
    return 1;
}

int spk_opt_is(const spk_opt *o, const char *key, size_t n)
{
    return name_is(o->key, key, n) || name_is(o->alias, key, n);
}

const spk_opt *spk_opt_find(const spk_opt_table *const *t, const char *key, size_t n, const spk_opt_table **tab)
{
    for (; t && *t; t++)
        for (int k = 0; k < (*t)->n; k++)
            if (spk_opt_is(&(*t)->opts[k], key, n)) {
                if (tab) *tab = *t;
                return &(*t)->opts[k];
            }
    return NULL;
}

/* Edit distance between a (n characters) and b, '_' and '-' alike; capped. */
static int distance(const char *a, size_t n, const char *b)
{
    enum { MAX = 48 };
    size_t m = strlen(b);
    if (n >= MAX || m >= MAX) return MAX;
    int prev[MAX + 1], cur[MAX + 1];
    for (size_t j = 0; j <= m; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int best = prev[j - 1] + (norm(a[i - 1]) != norm(b[j - 1]));
            if (prev[j] + 1 < best) best = prev[j] + 1;
            if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
            cur[j] = best;
        }
        memcpy(prev, cur, sizeof prev);
    }
    return prev[m];
}

/* Is key (n characters) close to name: a few edits away, or its start? */
static int close_to(const char *key, size_t n, const char *name)
{
    if (n >= 3 && strlen(name) > n) {
        size_t k = 0;
        while (k < n && norm(key[k]) == norm(name[k])) k++;
        if (k == n) return 1;
    }
    return distance(key, n, name) <= 1 + (int)n / 5;
}

int spk_opt_unknown(const spk_opt_table *const *t, const char *pre, const char *key, size_t n, int all,
                    spk_err *e)
{
    char msg[SPK_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "unknown option '%s%.*s'", pre, (int)(n > 200 ? 200 : n), key);
    const char *close[4];
    int nc = 0;
    for (const spk_opt_table *const *p = t; p && *p; p++)
        for (int k = 0; k < (*p)->n && nc < 4; k++)
            if (close_to(key, n, (*p)->opts[k].key)) close[nc++] = (*p)->opts[k].key;
    for (int k = 0; k < nc; k++)
        cat(msg, sizeof msg, "%s%s%s", k == 0 ? "; did you mean " : k == nc - 1 ? " or " : ", ", pre, close[k]);
    if (nc) cat(msg, sizeof msg, "?");
    if (!nc && all) {
        cat(msg, sizeof msg, "; the options are");
        int first = 1;
        for (const spk_opt_table *const *p = t; p && *p; p++)
            for (int k = 0; k < (*p)->n; k++, first = 0)
                cat(msg, sizeof msg, "%s%s%s", first ? ": " : ", ", pre, (*p)->opts[k].key);
    }
    return spk_err_set(e, SPK_ERR_NOT_FOUND, "%s", msg);
}

/* ---- values ----------------------------------------------------------------------- */

static int parse_ll(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE) return 1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) return 1;
    *out = v;
    return 0;
}

/* 1 or 0 for a switch's words (any case), -1 for anything else. */
static int flag_word(const char *s)
{
    static const char *const on[] = {"1", "on", "true", "yes"}, *const off[] = {"0", "off", "false", "no"};
    char w[8];
    size_t n = strlen(s);
    if (n >= sizeof w) return -1;
    for (size_t k = 0; k <= n; k++) w[k] = (char)(s[k] >= 'A' && s[k] <= 'Z' ? s[k] - 'A' + 'a' : s[k]);
    for (int k = 0; k < 4; k++) {
        if (strcmp(w, on[k]) == 0) return 1;
        if (strcmp(w, off[k]) == 0) return 0;
    }
    return -1;
}

static const spk_opt_name *name_of(const spk_opt *o, const char *s)
{
    for (const spk_opt_name *p = o->names; p && p->name; p++)
        if (strcmp(p->name, s) == 0) return p;
    return NULL;
}

static const spk_opt_name *name_with(const spk_opt *o, long long v)
{
    for (const spk_opt_name *p = o->names; p && p->name; p++)
        if (p->value == v) return p;
    return NULL;
}

static int in_range(const spk_opt *o, double x)
{
    if (o->unset && x == 0) return 1;
    if ((o->flags & SPK_OPT_MIN_OPEN) ? !(x > o->min) : !(x >= o->min)) return 0;
    if ((o->flags & SPK_OPT_MAX_OPEN) ? !(x < o->max) : !(x <= o->max)) return 0;
    return 1;
}

/* Is the integer v a value o takes? */
static int int_ok(const spk_opt *o, long long v)
{
    if (o->type == SPK_OPT_FLAG) return v == 0 || v == 1;
    if (name_with(o, v)) return 1;
    if (o->type == SPK_OPT_ENUM) return 0;
    if (o->type == SPK_OPT_INT && (v < INT_MIN || v > INT_MAX)) return 0;
    return in_range(o, (double)v);
}

static int bad_text(const spk_opt *o, const char *label, const char *text, spk_err *e)
{
    char range[512] = "";
    spk_opt_range(o, range, sizeof range);
    return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s must be %s (got '%.200s')", label, range, text);
}

int spk_opt_parse(const spk_opt *o, const char *text, const char *label, spk_opt_value *v, spk_err *e)
{
    memset(v, 0, sizeof *v);
    if (o->type == SPK_OPT_FLAG) {
        v->i = text ? flag_word(text) : 1;
        return v->i < 0 ? bad_text(o, label, text, e) : SPK_OK;
    }
    if (o->type == SPK_OPT_STRING && o->unset && text && !*text) return SPK_OK; /* "": unset, the default */
    if (!text || !*text) {
        char range[512] = "";
        spk_opt_range(o, range, sizeof range);
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s needs a value: %s", label, range);
    }
    if (o->type == SPK_OPT_STRING) {
        if (!o->lookup) {
            v->s = text;
            return SPK_OK;
        }
        if ((v->s = o->lookup(text, NULL, 0)) != NULL) return SPK_OK;
        char alts[768] = "";
        o->lookup(NULL, alts, sizeof alts);
        return spk_err_set(e, SPK_ERR_NOT_FOUND, "%s: unknown name '%.200s' (the names: %s)", label, text, alts);
    }
    if (o->type == SPK_OPT_DOUBLE) {
        if (parse_double(text, &v->d) || !in_range(o, v->d)) return bad_text(o, label, text, e);
        return SPK_OK;
    }
    const spk_opt_name *nm = name_of(o, text);
    if (nm) {
        v->i = nm->value;
        return SPK_OK;
    }
    /* a value spelled by name (INT's "auto") only by that name */
    if (parse_ll(text, &v->i) || !int_ok(o, v->i) || (o->type != SPK_OPT_ENUM && !in_range(o, (double)v->i)))
        return bad_text(o, label, text, e);
    return SPK_OK;
}

int spk_opt_check(const spk_opt *o, const spk_opt_value *v, const char *label, spk_err *e)
{
    if (o->type == SPK_OPT_STRING) return SPK_OK;
    if (o->type == SPK_OPT_DOUBLE ? isfinite(v->d) && in_range(o, v->d) : int_ok(o, v->i)) return SPK_OK;
    char range[512] = "", got[64] = "";
    spk_opt_range(o, range, sizeof range);
    if (o->type == SPK_OPT_DOUBLE)
        snprintf(got, sizeof got, "%g", v->d);
    else
        snprintf(got, sizeof got, "%lld", v->i);
    return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s must be %s (got %s)", label, range, got);
}

void spk_opt_load(const spk_opt *o, int view, const void *base, spk_opt_value *v)
{
    const char *p = (const char *)base + o->at[view];
    memset(v, 0, sizeof *v);
    if (o->type == SPK_OPT_LLONG) {
        memcpy(&v->i, p, sizeof v->i);
    } else if (o->type == SPK_OPT_DOUBLE) {
        memcpy(&v->d, p, sizeof v->d);
    } else if (o->type == SPK_OPT_STRING) {
        memcpy(&v->s, p, sizeof v->s);
    } else {
        int x;
        memcpy(&x, p, sizeof x);
        v->i = x;
    }
}

void spk_opt_store(const spk_opt *o, int view, void *base, const spk_opt_value *v)
{
    char *p = (char *)base + o->at[view];
    if (o->type == SPK_OPT_LLONG) {
        memcpy(p, &v->i, sizeof v->i);
    } else if (o->type == SPK_OPT_DOUBLE) {
        memcpy(p, &v->d, sizeof v->d);
    } else if (o->type == SPK_OPT_STRING) {
        memcpy(p, &v->s, sizeof v->s);
    } else {
        const int x = (int)v->i;
        memcpy(p, &x, sizeof x);
    }
}

void spk_opt_default(const spk_opt *o, spk_opt_value *v)
{
    memset(v, 0, sizeof *v);
    v->i = (long long)o->def;
    v->d = o->def;
}

/* ---- text ------------------------------------------------------------------------- */

/* The shortest decimal that reads back as v ("1e-8", "0.2", "1000", "1e9"). */
static void number(double v, char *buf, size_t len)
{
    char e[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*g", p, v);
        if (strtod(e, NULL) == v) break;
    }
    char *x = strchr(e, 'e');
    if (x) { /* the exponent without '+' and leading zeros */
        char *d = x + 1 + (x[1] == '-'), *q = d + (*d == '+');
        while (*q == '0' && q[1] != '\0') q++;
        memmove(d, q, strlen(q) + 1);
    }
    if (x && fabs(v) < 1e15 && v == floor(v)) { /* an integer: its digits, unless longer */
        char f[40];
        snprintf(f, sizeof f, "%.0f", v);
        if (strlen(f) <= strlen(e)) memcpy(e, f, strlen(f) + 1);
    }
    snprintf(buf, len, "%s", e);
}

void spk_opt_text(const spk_opt *o, const spk_opt_value *v, char *buf, size_t len)
{
    const spk_opt_name *nm = NULL;
    switch (o->type) {
    case SPK_OPT_FLAG:
        snprintf(buf, len, "%s", v->i ? "on" : "off");
        break;
    case SPK_OPT_DOUBLE:
        number(v->d, buf, len);
        break;
    case SPK_OPT_STRING:
        snprintf(buf, len, "%s", v->s ? v->s : "");
        break;
    default:
        if ((nm = name_with(o, v->i)) != NULL)
            snprintf(buf, len, "%s", nm->name);
        else
            snprintf(buf, len, "%lld", v->i);
    }
}

/* " in [1, 1024]", " > 0", " >= 0" or "" */
static void interval(const spk_opt *o, char *buf, size_t len)
{
    char lo[32], hi[32];
    if (o->type == SPK_OPT_DOUBLE) {
        number(o->min, lo, sizeof lo);
        number(o->max, hi, sizeof hi);
    } else { /* integers in full */
        snprintf(lo, sizeof lo, "%.0f", isfinite(o->min) ? o->min : 0.0);
        snprintf(hi, sizeof hi, "%.0f", isfinite(o->max) ? o->max : 0.0);
    }
    const int has_lo = isfinite(o->min), has_hi = isfinite(o->max);
    const int lo_open = (o->flags & SPK_OPT_MIN_OPEN) != 0, hi_open = (o->flags & SPK_OPT_MAX_OPEN) != 0;
    if (has_lo && has_hi)
        cat(buf, len, " in %c%s, %s%c", lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']');
    else if (has_lo)
        cat(buf, len, " %s %s", lo_open ? ">" : ">=", lo);
    else if (has_hi)
        cat(buf, len, " %s %s", hi_open ? "<" : "<=", hi);
}

void spk_opt_range(const spk_opt *o, char *buf, size_t len)
{
    buf[0] = '\0';
    if (o->type == SPK_OPT_FLAG) {
        cat(buf, len, "on or off");
        return;
    }
    if (o->type == SPK_OPT_STRING) {
        char alts[768] = "";
        if (o->lookup) o->lookup(NULL, alts, sizeof alts);
        if (alts[0])
            cat(buf, len, "one of %s", alts);
        else
            cat(buf, len, "a name");
        return;
    }
    int k = 0;
    for (const spk_opt_name *p = o->names; p && p->name; p++, k++)
        cat(buf, len, "%s%s", k == 0 ? (o->type == SPK_OPT_ENUM ? "one of " : "") : ", ", p->name);
    if (o->type == SPK_OPT_ENUM) return;
    cat(buf, len, "%s%s", k ? ", or " : "", o->type == SPK_OPT_DOUBLE ? "a number" : "an integer");
    interval(o, buf, len);
    if (o->unset) cat(buf, len, " (0: %s)", o->unset);
}

void spk_opt_default_text(const spk_opt *o, char *buf, size_t len)
{
    spk_opt_value v;
    spk_opt_default(o, &v);
    if (o->unset && o->def == 0)
        snprintf(buf, len, "%s", o->unset);
    else
        spk_opt_text(o, &v, buf, len);
}

void spk_opt_describe(const spk_opt *o, char *buf, size_t len)
{
    char range[512] = "", def[128] = "";
    if (o->type != SPK_OPT_STRING && o->type != SPK_OPT_FLAG) spk_opt_range(o, range, sizeof range);
    if (o->type != SPK_OPT_FLAG || o->def) spk_opt_default_text(o, def, sizeof def); /* a switch: when on */
    if (!range[0] && !def[0])
        snprintf(buf, len, "%s", o->help);
    else
        snprintf(buf, len, "%s (%s%s%s%s)", o->help, range, range[0] && def[0] ? "; " : "", def[0] ? "default " : "",
                 def);
}

/* ---- tables ----------------------------------------------------------------------- */

void spk_opt_defaults(const spk_opt_table *t, int view, void *base)
{
    for (int k = 0; k < t->n; k++) {
        spk_opt_value v;
        spk_opt_default(&t->opts[k], &v);
        spk_opt_store(&t->opts[k], view, base, &v);
    }
}

void spk_opt_copy(const spk_opt_table *t, int from, const void *src, int to, void *dst)
{
    for (int k = 0; k < t->n; k++) {
        spk_opt_value v;
        spk_opt_load(&t->opts[k], from, src, &v);
        spk_opt_store(&t->opts[k], to, dst, &v);
    }
}

int spk_opt_validate(const spk_opt_table *t, int view, const void *base, const char *pre, spk_err *e)
{
    for (int k = 0; k < t->n; k++) {
        const spk_opt *o = &t->opts[k];
        spk_opt_value v;
        char label[160];
        if (pre && *pre)
            snprintf(label, sizeof label, "%s%s (%s)", pre, o->field ? o->field : o->key, o->key);
        else
            snprintf(label, sizeof label, "%s", o->key);
        spk_opt_load(o, view, base, &v);
        SPK_TRY(spk_opt_check(o, &v, label, e));
    }
    return SPK_OK;
}

int spk_opt_set(const spk_opt_table *const *t, int view, void *base, const char *key, size_t n,
                const char *text, const char *pre, spk_err *e)
{
    const spk_opt *o = spk_opt_find(t, key, n, NULL);
    spk_opt_value v;
    if (!o && !text && n > 3 && key[0] == 'n' && key[1] == 'o' && norm(key[2]) == '-') {
        o = spk_opt_find(t, key + 3, n - 3, NULL); /* "no-KEY": a switch off */
        if (o && o->type != SPK_OPT_FLAG) o = NULL;
        text = "off";
    }
    if (!o) return spk_opt_unknown(t, pre, key, n, 1, e);
    char label[96];
    snprintf(label, sizeof label, "%s%s", pre, o->key);
    SPK_TRY(spk_opt_parse(o, text, label, &v, e));
    spk_opt_store(o, view, base, &v);
    return SPK_OK;
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n')) p++;
    return p;
}

static const char *trim_end(const char *start, const char *p)
{
    while (p > start && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n')) p--;
    return p;
}

int spk_opt_parse_list(const spk_opt_table *const *t, int view, void *base, const char *config,
                       const char *pre, spk_err *e)
{
    const char *p = config;
    while (*p) {
        const char *end = p + strcspn(p, ",;");
        const char *k0 = skip_space(p, end), *eq = memchr(k0, '=', (size_t)(end - k0));
        const char *k1 = trim_end(k0, eq ? eq : end);
        if (k1 > k0 || eq) {
            char value[256];
            if (k1 == k0)
                return spk_err_set(e, SPK_ERR_INVALID_ARG, "'%.*s': a value without a key (key=value)",
                                   (int)(end - p > 100 ? 100 : end - p), p);
            if (eq) {
                const char *v0 = skip_space(eq + 1, end), *v1 = trim_end(v0, end);
                if ((size_t)(v1 - v0) >= sizeof value)
                    return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s%.*s: the value is too long", pre,
                                       (int)(k1 - k0), k0);
                memcpy(value, v0, (size_t)(v1 - v0));
                value[v1 - v0] = '\0';
            }
            SPK_TRY(spk_opt_set(t, view, base, k0, (size_t)(k1 - k0), eq ? value : NULL, pre, e));
        }
        p = *end ? end + 1 : end;
    }
    return SPK_OK;
}
