/* spmv.c -- the registry of SpMV backends, looked up by name and executor:
 * a storage format has a host entry (its reference product) and a CUDA one. */
#include "spmv.h"

#include <stdio.h>
#include <string.h>

/* Every backend, in the order `spk solve --help` lists them. */
static const struct spk_spmv_ops *const registry[] = {
    &spk_spmv_csr_host,
    &spk_spmv_csr_scalar_host,
    &spk_spmv_csr_vector_host,
    &spk_spmv_ell_host,
    &spk_spmv_bell_host,
    &spk_spmv_coo_host,
    &spk_spmv_hyb_host,
    &spk_spmv_hmec_host,
    &spk_spmv_teb_host,
    &spk_spmv_teb_fast_host,
    &spk_spmv_tile_csr_host,
    &spk_spmv_tile_host,
    &spk_spmv_tile_dcoo_host,
    &spk_spmv_dia_host,
    &spk_spmv_csc_host,
    &spk_spmv_rgcsr_host,
    &spk_spmv_cmrs_host,
    &spk_spmv_amf_csr_host,
    &spk_spmv_pbc_host,
    &spk_spmv_scsr_host,
    &spk_spmv_sbcsr_host,
    &spk_spmv_qcsr_host,
    &spk_spmv_mqt_host,
    &spk_spmv_csr5_host,
    &spk_spmv_merge_host,
    &spk_spmv_csr_adaptive_host,
    &spk_spmv_sell_host,
    &spk_spmv_auto_host,
#ifdef SPK_HAVE_CUDA
    &spk_spmv_cusparse,
    &spk_spmv_cusparse_sell,
    &spk_spmv_bcsr_host,
    &spk_spmv_cusparse_bsr,
    &spk_spmv_csr_scalar_cuda,
    &spk_spmv_csr_vector_cuda,
    &spk_spmv_ell_cuda,
    &spk_spmv_bell_cuda,
    &spk_spmv_coo_cuda,
    &spk_spmv_hyb_cuda,
    &spk_spmv_hmec_cuda,
    &spk_spmv_teb_cuda,
    &spk_spmv_teb_fast_cuda,
    &spk_spmv_tile_csr_cuda,
    &spk_spmv_tile_cuda,
    &spk_spmv_tile_dcoo_cuda,
    &spk_spmv_dia_cuda,
    &spk_spmv_csc_cuda,
    &spk_spmv_rgcsr_cuda,
    &spk_spmv_cmrs_cuda,
    &spk_spmv_amf_csr_cuda,
    &spk_spmv_pbc_cuda,
    &spk_spmv_scsr_cuda,
    &spk_spmv_sbcsr_cuda,
    &spk_spmv_qcsr_cuda,
    &spk_spmv_mqt_cuda,
    &spk_spmv_csr5_cuda,
    &spk_spmv_merge_cuda,
    &spk_spmv_csr_adaptive_cuda,
    &spk_spmv_sell_cuda,
    &spk_spmv_bcsr_cuda,
    &spk_spmv_auto_cuda,
#endif
    NULL,
};

const struct spk_spmv_ops *const *spk_spmv_list(void)
{
    return registry;
}

/* The default format of each executor: "auto" on the GPU, which picks a
 * format for the matrix; "csr" on the host, the reference every format is
 * checked against. */
static const char *default_for(const char *exec)
{
    if (strcmp(exec, "cuda") == 0) return "auto";
    return "csr";
}

int spk_spmv_find(const char *name, const spk_exec *e, const struct spk_spmv_ops **ops, spk_err *err)
{
    const char *exec = e->ops->name, *other = NULL;
    if (!name || !*name) name = default_for(exec);
    else if (strcmp(name, "auto") == 0 && strcmp(exec, "cuda") != 0) name = "csr"; /* the host keeps the reference */
    char avail[1024] = "";
    size_t used = 0;
    for (int i = 0; registry[i]; i++) {
        if (strcmp(registry[i]->exec, exec) != 0) {
            if (strcmp(registry[i]->name, name) == 0) other = registry[i]->exec;
            continue;
        }
        if (strcmp(registry[i]->name, name) == 0) {
            *ops = registry[i];
            return SPK_OK;
        }
        if (used < sizeof avail) {
            int w = snprintf(avail + used, sizeof avail - used, "%s%s", used ? ", " : "",
                             registry[i]->name);
            if (w > 0) used += (size_t)w;
        }
    }
    if (other)
        return spk_err_set(err, SPK_ERR_NOT_FOUND,
                           "SpMV format '%s' runs on the %s device, but this context runs on %s",
                           name, other, exec);
    return spk_err_set(err, SPK_ERR_NOT_FOUND, "unknown SpMV format '%s' (available on %s: %s)",
                       name, exec, avail);
}

int spk_spmv_wrong_precision(spk_exec *e, const char *name, int created_float)
{
    return spk_err_set(e->err, SPK_ERR_INVALID_ARG,
                       created_float ? "format '%s' was created in single precision: use apply_float"
                                     : "format '%s' was created in double precision: apply_float needs an "
                                       "instance created with precision float",
                       name);
}
