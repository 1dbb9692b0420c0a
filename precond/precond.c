/* precond.c -- default options and the registry of preconditioners.
 *
 * One table lists every (name, executor) implementation; a device variant is
 * a new entry with the same name and exec "cuda". */
#include "precond/precond.h"
#include "spmv/options.h"

#include <stdio.h>
#include <string.h>

/* Every implementation, in the order messages list them. */
static const struct spk_precond_ops *const registry[] = {
    &spk_precond_none_host,
    &spk_precond_jacobi_host,
    &spk_precond_ilu0_host,
    &spk_precond_ic0_host,
    &spk_precond_ilu0_sweeps_host,
    &spk_precond_ic0_sweeps_host,
    &spk_precond_ilu0_isai_host,
    &spk_precond_ic0_isai_host,
    &spk_precond_user_host,
#ifdef SPK_HAVE_CUDA
    &spk_precond_none_cuda,
    &spk_precond_jacobi_cuda,
    &spk_precond_ilu0_cuda,
    &spk_precond_ic0_cuda,
    &spk_precond_ilu0_sweeps_cuda,
    &spk_precond_ic0_sweeps_cuda,
    &spk_precond_ilu0_isai_cuda,
    &spk_precond_ic0_isai_cuda,
    &spk_precond_user_cuda,
#endif
    NULL,
};

int spk_precond_pivot(spk_exec *e, const spk_csr *A, const struct spk_precond_ops *inner, const spk_precond_opts *o,
                      const struct spk_precond_ops **ops, void **impl)
{
    SPK_TRY(spk_precond_pivoted_create(e, A, inner, o, impl));
    *ops = &spk_precond_pivoted;
    return SPK_OK;
}

int spk_precond_rows_moved(const struct spk_precond_ops *ops, const void *impl)
{
    return ops == &spk_precond_pivoted && impl ? spk_precond_pivoted_moved(impl) : -1;
}

/* Shifting allowed, alpha = 1e-3, 2e-3, ... up to 1. */
void spk_precond_opts_default(spk_precond_opts *o)
{
    if (!o) return;
    spk_opt_defaults(&spk_precond_options, SPK_OPT_OWN, o);
    o->sweeps = 3;
    o->sweeps_check = 0;
    o->sweeps_rho = 0;
    o->sweeps_float = 0;
    o->dev_apply = 0;
    o->build = 0;
    o->block = 0;
    o->stop = NULL;
    o->stop_arg = NULL;
    o->stop_dev = NULL;
    o->stop_value = 0;
    o->format[0] = '\0';
    memset(&o->spmv, 0, sizeof o->spmv);
}

void spk_precond_opts_of(const spk_options *o, spk_precond_opts *po)
{
    memset(po, 0, sizeof *po);
    spk_opt_copy(&spk_precond_options, SPK_OPT_PUBLIC, o, SPK_OPT_OWN, po);
    snprintf(po->format, sizeof po->format, "%s", o->format ? o->format : "");
    po->user_apply = o->precond_apply;
    po->user_arg = o->precond_user;
    spk_spmv_opts_of(o, &po->spmv);
}

/* Append s to the ", "-separated list buf unless it is already there. */
static void list_add(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf), sl = strlen(s);
    for (const char *p = buf; (p = strstr(p, s)) != NULL; p += sl)
        if ((p == buf || p[-1] == ' ') && (p[sl] == ',' || p[sl] == '\0')) return;
    if (used + 2 + sl + 1 > len) return;
    snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s);
}

/* *ops = the entry named name whose exec is e's executor. */
int spk_precond_find(const char *name, const spk_exec *e, const struct spk_precond_ops **ops,
                     spk_err *err)
{
    char names[256] = "", execs[64] = "";
    if (!name || !e || !e->ops || !e->ops->name || !ops)
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "spk_precond_find: name, executor and ops must not be NULL");
    *ops = NULL;
    const char *exec = e->ops->name;
    int known = 0;
    for (int i = 0; registry[i]; i++) {
        list_add(names, sizeof names, registry[i]->name);
        if (strcmp(registry[i]->name, name) != 0) continue;
        if (strcmp(registry[i]->exec, exec) == 0) {
            *ops = registry[i];
            return SPK_OK;
        }
        known = 1;
        list_add(execs, sizeof execs, registry[i]->exec);
    }
    if (known)
        return spk_err_set(err, SPK_ERR_NOT_FOUND,
                           "preconditioner '%s' has no implementation for the '%s' executor "
                           "(it runs on: %s)",
                           name, exec, execs);
    return spk_err_set(err, SPK_ERR_NOT_FOUND, "unknown preconditioner '%s' (available: %s)", name,
                       names);
}
