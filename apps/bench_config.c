/* bench_config.c -- `spk bench --solve-config NAME[:key=value,...]`: a solve
 * configuration is the run's options with some keys changed.  The keys are
 * the library's, set through spk_options_set (the names, ranges and
 * messages of the command line's options), precond=KIND, and the short
 * names the command took before: vector, sweeps, factor, isai, block. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli.h"

/* The short keys and the library's keys they stand for. */
static const char *const short_keys[][2] = {
    {"vector", "vector-ops"}, {"sweeps", "precond-sweeps"}, {"factor", "precond-precision"},
    {"isai", "precond-isai"}, {"block", "reorder-block"},
};

const char bench_cfg_keys_help[] =
    "NAME[:key=value,...]: solve each matrix also in this configuration (at most 8): the run's "
    "options with these keys changed, any solver, preconditioner or format option below (format=NAME, "
    "rtol=R, vector-ops=V, precond-sweeps=K, ...; also vector, sweeps, factor, isai and block for "
    "vector-ops, precond-sweeps, precond-precision, precond-isai and reorder-block), and "
    "precond=auto|factor|ic0|ilu0|jacobi|none; each one's time to solution (setup + solve), iterations, "
    "true residual and split are reported with its speedup over the first configuration, and a summary "
    "(geometric mean, least, least above 1M nonzeros, largest ratio of iterations); times to solution "
    "leave out the upload of A.  With solves on the GPU the first configuration is the baseline ref: "
    "CG + IC(0) or BiCGStab + ILU(0) written directly on cuSPARSE and cuBLAS, its upload timed apart "
    "(the name ref is taken)";

/* precond=KIND: the preconditioner of spk_solver_create, not an option of spk_options. */
static const spk_opt precond_key = {.key = "precond", CLI_ARG(solve_cfg, precond), .type = SPK_OPT_ENUM,
                                    .names = cli_precond_names, .help = "the preconditioner"};

/* key=val into c; a status, the message in msg. */
static int set_key(solve_cfg *c, const char *key, const char *val, char *msg, size_t len)
{
    if (strcmp(key, "precond") == 0) {
        spk_err e;
        spk_opt_value v;
        spk_err_clear(&e);
        if (spk_opt_parse(&precond_key, val, "precond", &v, &e)) {
            snprintf(msg, len, "%s", e.msg);
            return e.code;
        }
        spk_opt_store(&precond_key, SPK_OPT_PUBLIC, c, &v);
        return SPK_OK;
    }
    for (size_t k = 0; k < sizeof short_keys / sizeof short_keys[0]; k++)
        if (strcmp(key, short_keys[k][0]) == 0) key = short_keys[k][1];
    return spk_options_set(&c->o, key, val, msg, len);
}

int bench_parse_cfg(const spk_options *base, const char *spec, solve_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->o = *base;
    c->precond = SPK_PRECOND_AUTO;
    const char *colon = strchr(spec, ':');
    size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);
    if (nl == 0 || nl >= sizeof c->name)
        return cli_usage_error("bench", "--solve-config needs NAME[:key=value,...] with a name of 1-31 characters");
    memcpy(c->name, spec, nl);
    if (strcmp(c->name, "ref") == 0)
        return cli_usage_error("bench", "--solve-config ref: the name ref is the cuSPARSE + cuBLAS baseline, which "
                                        "runs with every solve on the GPU; name this configuration otherwise "
                                        "(e.g. recipe)");
    if (!colon) return CLI_OK;
    char buf[256], msg[SPK_ERR_MSG_MAX];
    if (strlen(colon + 1) >= sizeof buf)
        return cli_usage_error("bench", "--solve-config %s: longer than %zu characters", c->name, sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", colon + 1);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) return cli_usage_error("bench", "--solve-config %s: '%s' is not key=value", c->name, kv);
        *eq = '\0';
        if (set_key(c, kv, eq + 1, msg, sizeof msg))
            return cli_usage_error("bench", "--solve-config %s: bad '%s=%s': %s", c->name, kv, eq + 1, msg);
    }
    if (spk_options_check(&c->o, msg, sizeof msg))
        return cli_usage_error("bench", "--solve-config %s: %s", c->name, msg);
    return CLI_OK;
}

void bench_add_ref(bench *b)
{
    b->ref_absent = NULL;
    if (!b->solve && !b->ncfg) return;
#ifdef SPK_HAVE_CUDA
    if (spk_exec_is_host(b->ex)) {
        b->ref_absent = "the solves run on the host; the baseline runs on the GPU only";
        return;
    }
    memmove(&b->cfg[1], &b->cfg[0], (size_t)b->ncfg * sizeof b->cfg[0]);
    memset(&b->cfg[0], 0, sizeof b->cfg[0]);
    snprintf(b->cfg[0].name, sizeof b->cfg[0].name, "ref");
    b->cfg[0].o = b->o;
    b->cfg[0].precond = SPK_PRECOND_FACTOR;
    b->cfg[0].builtin = 1;
    b->ncfg++;
#else
    b->ref_absent = "this spk is built without CUDA";
#endif
}

int bench_has_ref(const bench *b)
{
    return b->ncfg > 0 && b->cfg[0].builtin;
}
