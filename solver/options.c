/* options.c -- the solver's keys, read by solver/setup.c, and the options API
 * of include/spk.h over every component's table (core/options.h). */
#include "solver/options.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "precond/precond.h"
#include "spmv/options.h"
#include "spmv/spmv.h"

/* A key the solver reads where the front ends fill it: spk_options.f. */
#define SOLVER_KEY(f) .field = #f, .at = {offsetof(spk_options, f), offsetof(spk_options, f)}

/* "format": a registered SpMV format's name (its static string), or with
 * name NULL the names in alts. */
static const char *format_lookup(const char *name, char *alts, size_t len)
{
    size_t used = 0;
    if (alts && len) alts[0] = '\0';
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
        if (name && strcmp(name, (*p)->name) == 0) return (*p)->name;
        int seen = 0; /* a format with a host and a CUDA entry is listed once */
        for (const struct spk_spmv_ops *const *q = spk_spmv_list(); q != p; q++)
            seen |= strcmp((*q)->name, (*p)->name) == 0;
        if (!name && alts && !seen && used + strlen((*p)->name) + 3 < len)
            used += (size_t)snprintf(alts + used, len - used, "%s%s", used ? ", " : "", (*p)->name);
    }
    return NULL;
}

static const spk_opt_name sweeps_names[] = {{"auto", SPK_PRECOND_SWEEPS_AUTO}, {NULL, 0}};
static const spk_opt_name precision_names[] = {
    {"auto", SPK_PRECISION_AUTO}, {"double", SPK_PRECISION_DOUBLE}, {"float", SPK_PRECISION_FLOAT}, {NULL, 0}};
static const spk_opt_name reorder_names[] = {{"none", SPK_REORDER_NONE},
                                             {"multicolor", SPK_REORDER_MULTICOLOR},
                                             {"block-multicolor", SPK_REORDER_BLOCK_MULTICOLOR},
                                             {NULL, 0}};
static const spk_opt_name pivot_names[] = {
    {"auto", SPK_PIVOT_AUTO}, {"on", SPK_PIVOT_ON}, {"off", SPK_PIVOT_OFF}, {NULL, 0}};
static const spk_opt_name vector_names[] = {{"classic", SPK_VECTOR_CLASSIC}, {"cublas", SPK_VECTOR_CLASSIC},
                                            {"fused", SPK_VECTOR_FUSED},     {"graph", SPK_VECTOR_GRAPH},
                                            {"block", SPK_VECTOR_BLOCK},     {NULL, 0}};
static const spk_opt_name onoff_names[] = {{"off", 0}, {"on", 1}, {NULL, 0}};
static const spk_opt_name race_names[] = {{"off", 0}, {"on", 1}, {"cg", 2}, {NULL, 0}};

static const spk_opt solver_keys[] = {
    {.key = "rtol", SOLVER_KEY(rtol), .type = SPK_OPT_DOUBLE, .min = 0, .max = 1, .flags = SPK_OPT_MAX_OPEN,
     .def = 1e-8, .meta = "R", .help = "stop when ||r|| <= R ||b||"},
    {.key = "atol", SOLVER_KEY(atol), .type = SPK_OPT_DOUBLE, .min = 0, .max = INFINITY, .def = 0, .meta = "A",
     .help = "or when ||r|| <= A"},
    {.key = "maxit", SOLVER_KEY(maxit), .type = SPK_OPT_INT, .min = 0, .max = 1e9, .def = 10000, .meta = "N",
     .help = "iteration limit"},
    {.key = "dtol", SOLVER_KEY(dtol), .type = SPK_OPT_DOUBLE, .min = 0, .max = INFINITY, .def = 1e8,
     .meta = "D", .help = "stop as diverged when ||r|| > D max(||b||, ||r0||) (0: never)"},
    {.key = "format", SOLVER_KEY(format), .type = SPK_OPT_STRING, .lookup = format_lookup, .meta = "NAME",
     .unset = "auto on the GPU, csr on the host",
     .help = "the SpMV format (auto: on the GPU the fastest by a rule on the row lengths and, where it "
             "leaves several, short trials)"},
    {.key = "gmres-restart", SOLVER_KEY(gmres_restart), .type = SPK_OPT_INT, .min = 1, .max = 1000, .def = 30,
     .meta = "M", .help = "GMRES: the basis of M vectors (M + 1 stored), restarted from the true residual after M iterations"},
    {.key = "keep-history", SOLVER_KEY(keep_history), .type = SPK_OPT_FLAG,
     .help = "record ||r|| of every iteration (spk_result.history)"},
    {.key = "precond-sweeps", SOLVER_KEY(precond_sweeps), .type = SPK_OPT_INT, .min = 0, .max = 1000,
     .def = SPK_PRECOND_SWEEPS_AUTO, .names = sweeps_names, .meta = "K",
     .help = "IC(0)/ILU(0): replace each triangular solve by K Jacobi sweeps; 0: exact solves; auto: on "
             "the GPU the device's factor with the fewest sweeps (2..16) that pass a check on a probe "
             "vector, exact solves where none does or where they cost as much; on the host exact solves"},
    {.key = "precond-isai", SOLVER_KEY(precond_isai), .type = SPK_OPT_FLAG,
     .help = "IC(0)/ILU(0): apply each factor's incomplete sparse approximate inverse (one SpMV each) "
             "instead of solving"},
    {.key = "precond-precision", SOLVER_KEY(precond_precision), .type = SPK_OPT_ENUM, .names = precision_names,
     .def = SPK_PRECISION_AUTO, .meta = "P",
     .help = "the factor's values in the sweeps: auto is float with precond-sweeps auto on the GPU, else "
             "double; float rounds them (on the GPU stored so; sums in double)"},
    {.key = "reorder", SOLVER_KEY(reorder), .type = SPK_OPT_ENUM, .names = reorder_names,
     .def = SPK_REORDER_NONE, .meta = "R",
     .help = "solve with the rows ordered by a greedy coloring of A + A^T, one triangular-solve level per "
             "color (multicolor), or with blocks of reorder-block rows colored, each kept in order "
             "(block-multicolor); x comes back in A's order"},
    {.key = "pivot", SOLVER_KEY(pivot), .type = SPK_OPT_ENUM, .names = pivot_names, .def = SPK_PIVOT_AUTO,
     .meta = "P",
     .help = "static pivoting: A's rows permuted by a maximum product matching so that ILU(0) and Jacobi "
             "find a large diagonal; auto: where ILU(0) meets a zero pivot or Jacobi a zero diagonal entry "
             "(not with CG), that preconditioner is built on the permuted rows and applied to P r; on: "
             "always; A stays the operator (x keeps its order, rtol its meaning)"},
    {.key = "reorder-block", SOLVER_KEY(reorder_block), .type = SPK_OPT_INT, .min = 1, .max = 1e6,
     .unset = "16", .meta = "B", .help = "rows per block of reorder block-multicolor"},
    {.key = "vector-ops", SOLVER_KEY(vector_ops), .type = SPK_OPT_ENUM, .names = vector_names,
     .def = SPK_VECTOR_BLOCK, .meta = "V",
     .help = "an iteration's vector work: classic (cublas), one operation per dot product and update, each "
             "scalar back on the host; fused, a few steps with the scalars on the device; graph, the fused "
             "steps recorded once as CUDA graphs and replayed; block, on the GPU small systems' whole "
             "iterations in one thread block or a cluster, elsewhere graph"},
    {.key = "race", SOLVER_KEY(race), .type = SPK_OPT_ENUM, .names = race_names, .def = 1, .meta = "R",
     .help = "on the GPU, where auto gives CG + IC(0) on a small system, also run CG without a "
             "preconditioner (cg) and with Jacobi (on) alongside: the first to converge answers"},
    {.key = "probe", SOLVER_KEY(probe), .type = SPK_OPT_ENUM, .names = onoff_names, .def = 1, .meta = "P",
     .help = "with the preconditioner auto (and no race): start with none or Jacobi, measure its rate, "
             "and where it predicts a long solve build IC(0)/ILU(0), measure it and finish with the one "
             "predicted faster (on, the default; off: IC(0)/ILU(0) from the start)"},
    {.key = "probe-iters", SOLVER_KEY(probe_iters), .type = SPK_OPT_INT, .min = 4, .max = 60, .def = 16,
     .meta = "N", .help = "probe: the cheap preconditioner's iterations measured before the factor is "
                          "tried (where they predict more than probe-try times N to go)"},
    {.key = "probe-factor-iters", SOLVER_KEY(probe_factor_iters), .type = SPK_OPT_INT, .min = 4, .max = 60,
     .def = 10, .meta = "N", .help = "probe: the factor's iterations measured before the choice"},
    {.key = "probe-keep", SOLVER_KEY(probe_keep), .type = SPK_OPT_DOUBLE, .min = 0, .max = 100, .def = 0,
     .meta = "K", .help = "probe: the factor, once built, finishes unless the cheap preconditioner's "
                          "predicted rest is K times shorter (K < 1: unless the factor's is 1/K times shorter; "
                          "0: by the device, 0.5 on the GPU, 2 on the host)"},
    {.key = "probe-try", SOLVER_KEY(probe_try), .type = SPK_OPT_DOUBLE, .min = 0, .max = 10000, .def = 0,
     .meta = "T", .help = "probe: the factor is measured only where the cheap run predicts more than T times "
                          "probe-iters iterations to go (0: by the device, 16 on the GPU, 2 on the host)"},
    {.key = "probe-budget", SOLVER_KEY(probe_budget), .type = SPK_OPT_DOUBLE, .min = 0, .max = 1000, .def = 0,
     .meta = "B", .help = "probe: measuring the factor (build and iterations) may cost at most B times the "
                          "cheap run's predicted rest; a build stopped there is tried again where that rest "
                          "allows twice what it cost (0: by the device, 0.1 on the GPU, "
                          "unbounded on the host)"},
};

/* Combinations of the solver's keys. */
static int solver_check(const void *own, spk_err *e)
{
    const spk_options *o = own;
    if (o->precond_isai && o->precond_sweeps > 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "precond-isai and precond-sweeps are two ways to apply IC(0)/ILU(0): choose one");
    return SPK_OK;
}

static const spk_opt_table solver_options = {"solver", solver_keys, (int)(sizeof solver_keys / sizeof *solver_keys),
                                             solver_check};

int spk_options_tables(const spk_opt_table **t, int max)
{
    int n = 0;
    if (n + 1 < max) t[n++] = &solver_options;
    if (n + 1 < max) t[n++] = &spk_precond_options;
    for (const spk_opt_table *const *p = spk_spmv_option_tables; *p && n + 1 < max; p++) t[n++] = *p;
    t[n] = NULL;
    return n;
}

enum { MAX_TABLES = 32 };

void spk_options_fill_defaults(spk_options *o)
{
    const spk_opt_table *t[MAX_TABLES];
    memset(o, 0, sizeof *o);
    spk_options_tables(t, MAX_TABLES);
    for (int k = 0; t[k]; k++) spk_opt_defaults(t[k], SPK_OPT_PUBLIC, o);
}

int spk_options_validate(const spk_options *o, const char *pre, spk_err *e)
{
    const spk_opt_table *t[MAX_TABLES];
    spk_options_tables(t, MAX_TABLES);
    for (int k = 0; t[k]; k++) SPK_TRY(spk_opt_validate(t[k], SPK_OPT_PUBLIC, o, pre, e));
    /* the combinations, each in the struct its component reads */
    SPK_TRY(solver_check(o, e));
    spk_precond_opts po;
    spk_precond_opts_of(o, &po);
    SPK_TRY(spk_precond_options.check(&po, e));
    spk_spmv_opts so;
    spk_spmv_opts_of(o, &so);
    for (const spk_opt_table *const *p = spk_spmv_option_tables; *p; p++)
        if ((*p)->check) SPK_TRY((*p)->check(&so, e));
    return SPK_OK;
}

/* ---- the public API ------------------------------------------------------------ */

static int answer(int st, const spk_err *e, char *msg, size_t len)
{
    if (msg && len) snprintf(msg, len, "%s", st ? e->msg : "");
    return st;
}

int spk_options_set(spk_options *o, const char *key, const char *value, char *msg, size_t len)
{
    spk_err e;
    spk_err_clear(&e);
    if (!o || !key)
        return answer(spk_err_set(&e, SPK_ERR_INVALID_ARG, "spk_options_set: NULL options or key"), &e, msg, len);
    const spk_opt_table *t[MAX_TABLES];
    spk_options_tables(t, MAX_TABLES);
    return answer(spk_opt_set(t, SPK_OPT_PUBLIC, o, key, strlen(key), value, "", &e), &e, msg, len);
}

int spk_options_parse(spk_options *o, const char *config, char *msg, size_t len)
{
    spk_err e;
    spk_err_clear(&e);
    if (!o || !config)
        return answer(spk_err_set(&e, SPK_ERR_INVALID_ARG, "spk_options_parse: NULL options or text"), &e, msg,
                      len);
    const spk_opt_table *t[MAX_TABLES];
    spk_options_tables(t, MAX_TABLES);
    spk_options c = *o;
    int st = spk_opt_parse_list(t, SPK_OPT_PUBLIC, &c, config, "", &e);
    if (!st) st = spk_options_validate(&c, NULL, &e);
    if (!st) *o = c;
    return answer(st, &e, msg, len);
}

int spk_options_check(const spk_options *o, char *msg, size_t len)
{
    spk_err e;
    spk_err_clear(&e);
    if (!o) return answer(spk_err_set(&e, SPK_ERR_INVALID_ARG, "spk_options_check: NULL options"), &e, msg, len);
    return answer(spk_options_validate(o, "spk_options.", &e), &e, msg, len);
}

int spk_options_get(const spk_options *o, const char *key, char *value, size_t len)
{
    const spk_opt_table *t[MAX_TABLES];
    spk_options_tables(t, MAX_TABLES);
    const spk_opt *opt = o && key ? spk_opt_find(t, key, strlen(key), NULL) : NULL;
    if (!o || !key || !value || !len) return SPK_ERR_INVALID_ARG;
    if (!opt) return SPK_ERR_NOT_FOUND;
    spk_opt_value v;
    spk_opt_load(opt, SPK_OPT_PUBLIC, o, &v);
    char buf[256];
    spk_opt_text(opt, &v, buf, sizeof buf);
    if (strlen(buf) >= len) return SPK_ERR_INVALID_ARG;
    memcpy(value, buf, strlen(buf) + 1);
    return SPK_OK;
}

size_t spk_options_size(void)
{
    return sizeof(spk_options);
}

/* the callbacks' setters: the function and its argument (none with the function) */
#define SPK_OPTIONS_SETTER(name, fn_type, field, user_field) \
    void name(spk_options *o, fn_type fn, void *user)        \
    {                                                        \
        if (!o) return;                                      \
        o->field = fn;                                       \
        o->user_field = fn ? user : NULL;                    \
    }
SPK_OPTIONS_SETTER(spk_options_set_monitor, spk_monitor_fn, monitor, monitor_user)
SPK_OPTIONS_SETTER(spk_options_set_precond, spk_precond_fn, precond_apply, precond_user)
SPK_OPTIONS_SETTER(spk_options_set_iterate, spk_iterate_fn, iterate, iterate_user)
SPK_OPTIONS_SETTER(spk_options_set_progress, spk_monitor_fn, progress, progress_user)

int spk_option_count(void)
{
    const spk_opt_table *t[MAX_TABLES];
    int n = 0;
    spk_options_tables(t, MAX_TABLES);
    for (int k = 0; t[k]; k++) n += t[k]->n;
    return n;
}

int spk_option_info(int i, spk_option_desc *d)
{
    static const char *const types[] = {"int", "long", "double", "enum", "switch", "name"};
    const spk_opt_table *t[MAX_TABLES];
    spk_options_tables(t, MAX_TABLES);
    if (!d || i < 0) return SPK_ERR_INVALID_ARG;
    for (int k = 0; t[k]; i -= t[k]->n, k++) {
        if (i >= t[k]->n) continue;
        const spk_opt *o = &t[k]->opts[i];
        memset(d, 0, sizeof *d);
        d->key = o->key;
        d->alias = o->alias;
        d->field = o->field;
        d->type = types[o->type];
        d->owner = t[k]->owner;
        d->meta = o->meta;
        d->help = o->help;
        d->scope = o->scope;
        d->offset = o->at[SPK_OPT_PUBLIC];
        d->size = spk_opt_size(o);
        spk_opt_range(o, d->range, sizeof d->range);
        spk_opt_default_text(o, d->def, sizeof d->def);
        return SPK_OK;
    }
    return SPK_ERR_INVALID_ARG;
}

void spk_options_default(spk_options *o)
{
    if (o) spk_options_fill_defaults(o);
}
