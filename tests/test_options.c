/* test_options.c -- the options' table against the structs it stores into:
 * every field of spk_options (and the component structs' knobs) covered by a
 * key of the same offset and size, the defaults those spk_options_default
 * always gave, every key round-tripping through spk_options_set and
 * spk_options_get, bad values and unknown keys refused with messages naming
 * the key and the range, and spk_options_parse all or nothing. */
#include <limits.h>
#include <stddef.h>

#include "check.h"
#include "core/options.h"
#include "precond/precond.h"
#include "solver/options.h"
#include "spk.h"
#include "spmv/options.h"

typedef struct field {
    const char *name;
    size_t offset, size;
} field;

#define FIELD(T, f) {#f, offsetof(T, f), sizeof(((T *)0)->f)}

/* Every member of spk_options; the monitor's two have no key (a callback
 * cannot be text). */
static const field options_fields[] = {
    FIELD(spk_options, rtol),           FIELD(spk_options, atol),          FIELD(spk_options, maxit),
    FIELD(spk_options, format),         FIELD(spk_options, hmec_parts),    FIELD(spk_options, tile_te),
    FIELD(spk_options, tile_th),        FIELD(spk_options, tile_defer_nnz), FIELD(spk_options, allow_shift),
    FIELD(spk_options, shift_init),     FIELD(spk_options, shift_max),     FIELD(spk_options, keep_history),
    FIELD(spk_options, dtol),           FIELD(spk_options, precond_sweeps), FIELD(spk_options, precond_isai),
    FIELD(spk_options, reorder),        FIELD(spk_options, reorder_block), FIELD(spk_options, vector_ops),
    FIELD(spk_options, precond_precision), FIELD(spk_options, race),       FIELD(spk_options, sell_c),
    FIELD(spk_options, sell_sigma),     FIELD(spk_options, bcsr_block),    FIELD(spk_options, probe),
    FIELD(spk_options, probe_iters),   FIELD(spk_options, probe_factor_iters), FIELD(spk_options, probe_keep),
    FIELD(spk_options, factorization),
    FIELD(spk_options, factor_sweeps),  FIELD(spk_options, factor_tol), FIELD(spk_options, probe_try), FIELD(spk_options, probe_budget),
    FIELD(spk_options, gmres_restart), FIELD(spk_options, pivot),
};
static const field no_key[] = {FIELD(spk_options, monitor),      FIELD(spk_options, monitor_user),
                               FIELD(spk_options, precond_apply), FIELD(spk_options, precond_user),
                               FIELD(spk_options, iterate),       FIELD(spk_options, iterate_user),
                               FIELD(spk_options, progress),      FIELD(spk_options, progress_user)};

/* The formats' knobs in spk_spmv_opts (hyb_width and precision are set by
 * code: the benchmark and the tests, never by a user's key). */
static const field spmv_fields[] = {
    FIELD(spk_spmv_opts, hmec_parts), FIELD(spk_spmv_opts, tile_te),    FIELD(spk_spmv_opts, tile_th),
    FIELD(spk_spmv_opts, tile_defer_nnz), FIELD(spk_spmv_opts, sell_c), FIELD(spk_spmv_opts, sell_sigma),
    FIELD(spk_spmv_opts, bcsr_block),
};
static const field precond_fields[] = {FIELD(spk_precond_opts, allow_shift), FIELD(spk_precond_opts, shift_init),
                                       FIELD(spk_precond_opts, shift_max),   FIELD(spk_precond_opts, factorization),
                                       FIELD(spk_precond_opts, factor_sweeps), FIELD(spk_precond_opts, factor_tol)};

#define COUNT(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* The key of the table's tables (view) at this offset and size, or NULL. */
static const spk_opt *key_at(const spk_opt_table *const *t, int view, const field *f)
{
    for (; *t; t++)
        for (int k = 0; k < (*t)->n; k++) {
            const spk_opt *o = &(*t)->opts[k];
            if (o->at[view] == f->offset && spk_opt_size(o) == f->size) return o;
        }
    return NULL;
}

static void test_coverage(void)
{
    const spk_opt_table *t[32];
    spk_options_tables(t, 32);
    int n = spk_option_count();
    CHECK(n == COUNT(options_fields), "%d keys for %d fields of spk_options", n, COUNT(options_fields));
    CHECK(sizeof(spk_options) == spk_options_size(), "spk_options_size %zu", spk_options_size());
    size_t covered = 0;
    for (int k = 0; k < COUNT(options_fields); k++) {
        const field *f = &options_fields[k];
        const spk_opt *o = key_at(t, SPK_OPT_PUBLIC, f);
        CHECK(o && strcmp(o->field, f->name) == 0, "spk_options.%s (offset %zu, %zu bytes) has no key", f->name,
              f->offset, f->size);
        covered += f->size;
    }
    for (int k = 0; k < COUNT(no_key); k++) covered += no_key[k].size;
    /* the list above names every member: their bytes and the padding make the struct */
    CHECK(covered <= sizeof(spk_options) && sizeof(spk_options) - covered < 32,
          "spk_options has %zu bytes, its listed members %zu: a member without a key?", sizeof(spk_options), covered);
    for (int k = 0; k < COUNT(spmv_fields); k++) {
        const spk_opt *o = key_at(spk_spmv_option_tables, SPK_OPT_OWN, &spmv_fields[k]);
        CHECK(o && strcmp(o->field, spmv_fields[k].name) == 0, "spk_spmv_opts.%s has no key", spmv_fields[k].name);
    }
    const spk_opt_table *pt[2] = {&spk_precond_options, NULL};
    for (int k = 0; k < COUNT(precond_fields); k++)
        CHECK(key_at(pt, SPK_OPT_OWN, &precond_fields[k]), "spk_precond_opts.%s has no key", precond_fields[k].name);
    /* every description names its field, at the same place */
    for (int i = 0; i < n; i++) {
        spk_option_desc d;
        CHECK_OK(spk_option_info(i, &d), "");
        int found = 0;
        for (int k = 0; k < COUNT(options_fields); k++)
            found |= strcmp(d.field, options_fields[k].name) == 0 && d.offset == options_fields[k].offset &&
                     d.size == options_fields[k].size;
        CHECK(found, "key %s: field %s at %zu", d.key, d.field, d.offset);
        CHECK(d.help && d.help[0] && d.range[0] && d.def[0], "key %s: help, range, default", d.key);
    }
    spk_option_desc d;
    CHECK(spk_option_info(n, &d) == SPK_ERR_INVALID_ARG && spk_option_info(-1, &d) == SPK_ERR_INVALID_ARG,
          "info out of range");
}

/* The defaults spk_options_default has always filled in. */
static void test_defaults(void)
{
    spk_options o;
    memset(&o, 0x5a, sizeof o);
    spk_options_default(&o);
    CHECK(o.rtol == 1e-8 && o.atol == 0 && o.maxit == 10000 && o.dtol == 1e8 && !o.format, "tolerances");
    CHECK(o.hmec_parts == 2 && o.tile_te == 0 && o.tile_th == 0 && o.tile_defer_nnz == 0, "format knobs");
    CHECK(o.sell_c == 0 && o.sell_sigma == 0 && o.bcsr_block == 0, "format knobs");
    CHECK(o.allow_shift == 1 && o.shift_init == 1e-3 && o.shift_max == 1.0, "shift");
    CHECK(!o.keep_history && !o.monitor && !o.monitor_user, "history, monitor");
    CHECK(o.precond_sweeps == SPK_PRECOND_SWEEPS_AUTO && !o.precond_isai &&
              o.precond_precision == SPK_PRECISION_AUTO,
          "preconditioner");
    CHECK(o.reorder == SPK_REORDER_NONE && o.reorder_block == 0 && o.vector_ops == SPK_VECTOR_BLOCK && o.race == 1,
          "reorder, vector ops, race");
    CHECK_OK(spk_options_check(&o, NULL, 0), "defaults refused");
    /* the table's defaults, key by key, as spk_options_get gives them */
    const spk_opt_table *t[32];
    spk_options_tables(t, 32);
    for (int k = 0; t[k]; k++)
        for (int i = 0; i < t[k]->n; i++) {
            const spk_opt *opt = &t[k]->opts[i];
            spk_opt_value v;
            char want[128], got[128];
            spk_opt_default(opt, &v);
            spk_opt_text(opt, &v, want, sizeof want);
            CHECK_OK(spk_options_get(&o, opt->key, got, sizeof got), opt->key);
            CHECK(strcmp(want, got) == 0, "%s: default '%s', spk_options_default gave '%s'", opt->key, want, got);
        }
    /* the precond's own struct starts from the same table */
    spk_precond_opts po;
    spk_precond_opts_default(&po);
    CHECK(po.allow_shift == 1 && po.shift_init == 1e-3 && po.shift_max == 1.0, "spk_precond_opts_default");
    CHECK(o.factorization == SPK_FACTORIZATION_AUTO && o.factor_sweeps >= 1 && o.factor_tol > 0 && o.factor_tol < 1,
          "factorization");
    CHECK(po.factorization == o.factorization && po.factor_sweeps == o.factor_sweeps && po.factor_tol == o.factor_tol,
          "spk_precond_opts_default: factorization");
}

/* A value other than the default that key o takes, as text. */
static const char *other_value(const spk_opt *o, char *buf, size_t len)
{
    switch (o->type) {
    case SPK_OPT_FLAG:
        return o->def ? "off" : "on";
    case SPK_OPT_STRING:
        return "csr";
    case SPK_OPT_ENUM:
        for (const spk_opt_name *n = o->names; n->name; n++)
            if (n->value != (int)o->def) return n->name;
        return NULL;
    case SPK_OPT_DOUBLE:
        snprintf(buf, len, "%.17g", isfinite(o->max) ? (o->min + o->max) / 2 : o->min + 0.375);
        return buf;
    default:
        snprintf(buf, len, "%lld", isfinite(o->min) ? (long long)o->min + (o->min == o->def) : 7);
        return buf;
    }
}

static void test_round_trip(void)
{
    const spk_opt_table *t[32];
    spk_options_tables(t, 32);
    char msg[256];
    for (int k = 0; t[k]; k++)
        for (int i = 0; i < t[k]->n; i++) {
            const spk_opt *opt = &t[k]->opts[i];
            spk_options o, o2, d;
            spk_options_default(&o);
            spk_options_default(&d);
            char buf[64], text[128], again[128];
            const char *val = other_value(opt, buf, sizeof buf);
            int st = spk_options_set(&o, opt->key, val, msg, sizeof msg);
            CHECK(st == SPK_OK, "%s=%s: %s", opt->key, val, msg);
            CHECK(memcmp((char *)&o + opt->at[0], (char *)&d + opt->at[0], spk_opt_size(opt)) != 0,
                  "%s=%s left spk_options.%s at its default", opt->key, val, opt->field);
            CHECK_OK(spk_options_get(&o, opt->key, text, sizeof text), opt->key);
            o2 = d;
            CHECK_OK(spk_options_set(&o2, opt->key, text, msg, sizeof msg), msg);
            CHECK(memcmp((char *)&o + opt->at[0], (char *)&o2 + opt->at[0], spk_opt_size(opt)) == 0,
                  "%s: '%s' read back differently", opt->key, text);
            CHECK_OK(spk_options_get(&o2, opt->key, again, sizeof again), opt->key);
            CHECK(strcmp(text, again) == 0, "%s: '%s' then '%s'", opt->key, text, again);
            /* the field name is a key too ('_' and '-' alike) */
            o2 = d;
            CHECK_OK(spk_options_set(&o2, opt->field, text, msg, sizeof msg), msg);
            CHECK(memcmp(&o2, &o, sizeof o) == 0 || opt->type == SPK_OPT_STRING, "%s by its field name %s", opt->key,
                  opt->field);
        }
    spk_options o;
    spk_options_default(&o);
    CHECK_OK(spk_options_set(&o, "rtol", "1e-10", NULL, 0), "rtol");
    CHECK(o.rtol == 1e-10, "rtol %g", o.rtol);
    CHECK_OK(spk_options_set(&o, "precond-sweeps", "auto", NULL, 0), "sweeps auto");
    CHECK(o.precond_sweeps == SPK_PRECOND_SWEEPS_AUTO, "sweeps %d", o.precond_sweeps);
    CHECK_OK(spk_options_set(&o, "vector-ops", "cublas", NULL, 0), "cublas");
    CHECK(o.vector_ops == SPK_VECTOR_CLASSIC, "cublas is classic");
    CHECK_OK(spk_options_set(&o, "race", "cg", NULL, 0), "race cg");
    CHECK(o.race == 2, "race %d", o.race);
    CHECK_OK(spk_options_set(&o, "race", "0", NULL, 0), "race 0");
    CHECK(o.race == 0, "race %d", o.race);
    CHECK_OK(spk_options_set(&o, "allow_shift", "false", NULL, 0), "allow_shift");
    CHECK(o.allow_shift == 0, "allow_shift %d", o.allow_shift);
    CHECK_OK(spk_options_set(&o, "precond-isai", NULL, NULL, 0), "a switch alone");
    CHECK(o.precond_isai == 1, "isai %d", o.precond_isai);
    CHECK_OK(spk_options_set(&o, "tile-defer-nnz", "-1", NULL, 0), "defer never");
    CHECK(o.tile_defer_nnz == -1, "defer %lld", o.tile_defer_nnz);
    CHECK_OK(spk_options_set(&o, "sell-c", "0", NULL, 0), "0: the format's choice");
    CHECK_OK(spk_options_set(&o, "format", "ell", NULL, 0), "format ell");
    CHECK(o.format && strcmp(o.format, "ell") == 0, "format %s", o.format ? o.format : "(null)");
    CHECK_OK(spk_options_set(&o, "format", "", NULL, 0), "format unset");
    CHECK(o.format == NULL, "format \"\" is the default (NULL)");
    char v[64];
    CHECK(spk_options_get(&o, "rtol", v, 3) == SPK_ERR_INVALID_ARG, "a value longer than the buffer");
    CHECK(spk_options_get(&o, "nosuch", v, sizeof v) == SPK_ERR_NOT_FOUND, "get of an unknown key");
    CHECK_OK(spk_options_get(&o, "rtol", v, sizeof v), "rtol");
    CHECK(strcmp(v, "1e-10") == 0, "rtol as text: %s", v);
}

/* key=value is refused with st, the message holding every part. */
static void refused(const char *key, const char *value, int st, const char *part1, const char *part2)
{
    spk_options o, d;
    spk_options_default(&o);
    d = o;
    char msg[1024];
    int got = spk_options_set(&o, key, value, msg, sizeof msg);
    CHECK(got == st, "%s=%s: status %d, expected %d (%s)", key, value ? value : "(none)", got, st, msg);
    CHECK(strstr(msg, part1) && (!part2 || strstr(msg, part2)), "%s=%s: message '%s' lacks '%s' / '%s'", key,
          value ? value : "(none)", msg, part1, part2 ? part2 : "");
    CHECK(memcmp(&o, &d, sizeof o) == 0, "%s=%s changed the options", key, value ? value : "(none)");
}

static void test_refused(void)
{
    refused("rtol", "2", SPK_ERR_INVALID_ARG, "rtol must be a number in [0, 1)", "'2'");
    refused("rtol", "-1e-3", SPK_ERR_INVALID_ARG, "rtol", "[0, 1)");
    refused("rtol", "nan", SPK_ERR_INVALID_ARG, "rtol", "[0, 1)");
    refused("rtol", "1e-8x", SPK_ERR_INVALID_ARG, "rtol", "'1e-8x'");
    refused("rtol", "", SPK_ERR_INVALID_ARG, "rtol needs a value", "[0, 1)");
    refused("maxit", "1e3", SPK_ERR_INVALID_ARG, "maxit must be an integer in [0, 1000000000]", NULL);
    refused("maxit", "99999999999", SPK_ERR_INVALID_ARG, "maxit", NULL);
    refused("dtol", "-1", SPK_ERR_INVALID_ARG, "dtol must be a number >= 0", NULL);
    refused("precond-sweeps", "1001", SPK_ERR_INVALID_ARG, "precond-sweeps must be auto, or an integer in [0, 1000]",
            NULL);
    refused("precond-sweeps", "-1", SPK_ERR_INVALID_ARG, "precond-sweeps", NULL);
    refused("vector-ops", "turbo", SPK_ERR_INVALID_ARG,
            "vector-ops must be one of classic, cublas, fused, graph, block", "'turbo'");
    refused("vector-ops", "4", SPK_ERR_INVALID_ARG, "vector-ops", NULL);
    refused("race", "maybe", SPK_ERR_INVALID_ARG, "race must be one of off, on, cg", NULL);
    refused("reorder", "rcm", SPK_ERR_INVALID_ARG, "reorder must be one of none, multicolor, block-multicolor", NULL);
    refused("reorder-block", "-2", SPK_ERR_INVALID_ARG, "reorder-block must be an integer in [1, 1000000] (0: 16)",
            NULL);
    refused("precond-isai", "2", SPK_ERR_INVALID_ARG, "precond-isai must be on or off", NULL);
    refused("sell-c", "2000", SPK_ERR_INVALID_ARG, "sell-c must be an integer in [1, 1024] (0: 32)", NULL);
    refused("bcsr-block", "33", SPK_ERR_INVALID_ARG, "bcsr-block must be an integer in [1, 32] (0: 4)", NULL);
    refused("hmec-parts", "9", SPK_ERR_INVALID_ARG, "hmec-parts must be an integer in [1, 8]", NULL);
    refused("tile-te", "-0.5", SPK_ERR_INVALID_ARG, "tile-te must be a number > 0 (0: 0.2)", NULL);
    refused("shift-init", "0", SPK_ERR_INVALID_ARG, "shift-init must be a number > 0", NULL);
    refused("maxit", NULL, SPK_ERR_INVALID_ARG, "maxit needs a value", NULL);
    refused("format", "nosuch", SPK_ERR_NOT_FOUND, "format: unknown name 'nosuch'", "csr");
    refused("sel-c", "8", SPK_ERR_NOT_FOUND, "unknown option 'sel-c'", "did you mean sell-c?");
    refused("precond", "2", SPK_ERR_NOT_FOUND, "did you mean precond-sweeps, precond-isai or precond-precision?",
            NULL);
    refused("bogus", "1", SPK_ERR_NOT_FOUND, "unknown option 'bogus'; the options are: rtol, atol", "bcsr-block");
    refused("no-maxit", NULL, SPK_ERR_NOT_FOUND, "unknown option 'no-maxit'", NULL);
    char msg[64];
    CHECK(spk_options_set(NULL, "rtol", "1", msg, sizeof msg) == SPK_ERR_INVALID_ARG, "NULL options");
}

static void test_parse_and_check(void)
{
    spk_options o, d;
    spk_options_default(&o);
    char msg[1024];
    CHECK_OK(spk_options_parse(&o, " rtol = 1e-6, maxit=50; vector_ops=fused ,precond-isai, no-shift,,", msg,
                               sizeof msg),
             msg);
    CHECK(o.rtol == 1e-6 && o.maxit == 50 && o.vector_ops == SPK_VECTOR_FUSED && o.precond_isai == 1 &&
              o.allow_shift == 0,
          "parsed: rtol %g maxit %d vector %d isai %d shift %d", o.rtol, o.maxit, o.vector_ops, o.precond_isai,
          o.allow_shift);
    d = o;
    CHECK(spk_options_parse(&o, "rtol=1e-3, maxit=-1", msg, sizeof msg) == SPK_ERR_INVALID_ARG &&
              strstr(msg, "maxit must be") && memcmp(&o, &d, sizeof o) == 0,
          "all or nothing: %s", msg);
    CHECK(spk_options_parse(&o, "precond-sweeps=2", msg, sizeof msg) == SPK_ERR_INVALID_ARG &&
              strstr(msg, "choose one") && memcmp(&o, &d, sizeof o) == 0,
          "isai with sweeps: %s", msg);
    CHECK(spk_options_parse(&o, "sell-c=16, sell-sigma=40", msg, sizeof msg) == SPK_ERR_INVALID_ARG &&
              strstr(msg, "multiple of sell-c (16)"),
          "sigma not a multiple of C: %s", msg);
    CHECK(spk_options_parse(&o, "=3", msg, sizeof msg) == SPK_ERR_INVALID_ARG && strstr(msg, "without a key"),
          "no key: %s", msg);
    CHECK_OK(spk_options_parse(&o, "shift-init=2", msg, sizeof msg), msg); /* shifting off: not compared */
    spk_options_default(&o);
    CHECK(spk_options_parse(&o, "shift-init=2", msg, sizeof msg) == SPK_ERR_INVALID_ARG && strstr(msg, "shift_max"),
          "shift_init above shift_max: %s", msg);
    /* a struct filled by hand: its fields named */
    spk_options_default(&o);
    o.tile_te = -0.5;
    CHECK(spk_options_check(&o, msg, sizeof msg) == SPK_ERR_INVALID_ARG &&
              strstr(msg, "spk_options.tile_te (tile-te) must be a number > 0"),
          "struct check: %s", msg);
    spk_options_default(&o);
    o.vector_ops = 7;
    CHECK(spk_options_check(&o, msg, sizeof msg) == SPK_ERR_INVALID_ARG && strstr(msg, "spk_options.vector_ops") &&
              strstr(msg, "(got 7)"),
          "struct check: %s", msg);
    spk_options_default(&o);
    o.keep_history = 2;
    CHECK(spk_options_check(&o, msg, sizeof msg) == SPK_ERR_INVALID_ARG, "keep_history 2: %s", msg);
    spk_options_default(&o);
    o.format = "not checked here"; /* spk_solver_create names it with the executor's formats */
    CHECK_OK(spk_options_check(&o, msg, sizeof msg), msg);
}

/* The engine's text: shortest numbers, ranges, help lines. */
static void test_text(void)
{
    const spk_opt o = {.key = "x", .type = SPK_OPT_DOUBLE, .min = 0, .max = 1, .flags = SPK_OPT_MAX_OPEN,
                       .def = 1e-8, .help = "h"};
    char buf[256];
    spk_opt_default_text(&o, buf, sizeof buf);
    CHECK(strcmp(buf, "1e-8") == 0, "default text %s", buf);
    spk_opt_describe(&o, buf, sizeof buf);
    CHECK(strcmp(buf, "h (a number in [0, 1); default 1e-8)") == 0, "describe: %s", buf);
    spk_opt_value v = {0, 0.1, NULL};
    spk_opt_text(&o, &v, buf, sizeof buf);
    CHECK(strcmp(buf, "0.1") == 0, "0.1 as %s", buf);
    v.d = 1.0 / 3;
    spk_opt_text(&o, &v, buf, sizeof buf);
    CHECK(strtod(buf, NULL) == 1.0 / 3, "1/3 as %s", buf);
    const spk_opt l = {.key = "n", .type = SPK_OPT_LLONG, .min = -INFINITY, .max = INFINITY, .unset = "9"};
    spk_err e;
    CHECK_OK(spk_opt_parse(&l, "-9223372036854775808", "n", &v, &e), e.msg);
    CHECK(v.i == LLONG_MIN, "LLONG_MIN parsed as %lld", v.i);
    spk_opt_range(&l, buf, sizeof buf);
    CHECK(strcmp(buf, "an integer (0: 9)") == 0, "range %s", buf);
}

int main(void)
{
    test_coverage();
    test_defaults();
    test_round_trip();
    test_refused();
    test_parse_and_check();
    test_text();
    return check_exit();
}
