/* spmv.h -- the SpMV backend interface and its registry.
 *
 * A backend turns a host CSR matrix into its own storage on an executor at
 * create() and then computes y = alpha*A*x + beta*y on that executor's
 * vectors.  beta == 0 means y is not read (it may hold garbage or NaN).
 * Backends are looked up by name in one table (spmv.c); a new format is one
 * new entry there. */
#ifndef SPK_SPMV_H
#define SPK_SPMV_H

#include <stddef.h>

#include "core/csr.h"
#include "core/exec.h"

/* The precision a backend stores its values in and computes with
 * (spk_spmv_opts.precision). */
enum { SPK_SPMV_DOUBLE = 0, SPK_SPMV_FLOAT = 1 };

/* Options a backend may read at create(); zero means "the backend's default". */
typedef struct spk_spmv_opts {
    int hmec_parts;   /* HMEC: most ELL parts before the CSR rest (0: 2) */
    int hyb_width;    /* HYB: ELL width K (0: chosen from the row lengths, see hyb.c) */
    double tile_te;   /* tile, tile-dcoo: row-length variation up to which a tile is ELL (0: 0.2) */
    double tile_th;   /* tile, tile-dcoo: variation from which a tile is HYB (0: 1.0) */
    long long tile_defer_nnz; /* tile: defer COO entries above this many nonzeros
                                 (0: 1.8M as in the paper; < 0: never) */
    int sell_c;       /* sell, cusparse-sell: rows per slice (0: 32) */
    int sell_sigma;   /* sell: sorting window in rows (0: 256; 1: none; else a multiple of sell_c) */
    int bcsr_block;   /* bcsr, cusparse-bsr, sbcsr: block size b (0: 4) */
    int precision;    /* SPK_SPMV_DOUBLE (0) or SPK_SPMV_FLOAT: the matrix values stored in float
                         (the index arrays unchanged) and the products formed in float through
                         apply_float; such an instance refuses apply() and the reverse */
} spk_spmv_opts;

/* What a backend reports about itself. */
typedef struct spk_spmv_stats {
    size_t bytes;          /* storage held on the executor (matrix arrays only) */
    double setup_seconds;  /* conversion + upload at create() */
    double upload_seconds; /* of which the upload of the matrix from the host (0: none, or not
                              measured apart) */
    char detail[512];      /* format-specific description (split, widths, ...) */
} spk_spmv_stats;

struct spk_spmv_ops {
    const char *name;      /* "csr", "cusparse", ... */
    const char *exec;      /* executor it runs on: "host" or "cuda" */
    const char *summary;   /* one line for --help */
    int (*create)(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl);
    /* y = alpha*A*x + beta*y.  On the GPU it queues its work on the
     * executor's stream without waiting, and the same work for the same
     * arguments on every call: SPK_VECTOR_GRAPH records one call into a CUDA
     * graph and replays it (a call that waits or allocates cannot be
     * recorded, and the solve then goes on without graphs). */
    int (*apply)(void *impl, double alpha, const double *x, double beta, double *y);
    /* new values, same pattern as at create() (NULL: destroy + create) */
    int (*update)(void *impl, const spk_csr *A);
    void (*destroy)(void *impl);
    void (*stats)(const void *impl, spk_spmv_stats *s);
    /* Optional (GPU formats): the same as create, built on the device from
     * dA, A's CSR arrays already in device memory (A on the host gives the
     * sizes and row lengths); NULL when the format has no device builder.
     * "auto" uploads A once and builds its candidates this way. */
    int (*create_dev)(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_spmv_opts *o, void **impl);
    /* y = alpha*A*x + beta*y in single precision, x and y float vectors on
     * the executor, for an instance created with precision SPK_SPMV_FLOAT.
     * On the GPU the kernel accumulates in float; the host references form
     * the products of the float values in double and round y once. */
    int (*apply_float)(void *impl, float alpha, const float *x, float beta, float *y);
};

/* The message of an apply in the precision the instance was not created in. */
int spk_spmv_wrong_precision(spk_exec *e, const char *name, int created_float);

/* Find a backend by name for executor e.  NULL or "" gives the executor's
 * default ("auto" on the GPU, "csr" on the host); "auto" gives the auto
 * format on the GPU and "csr" on the host (whose "auto" entry is reached
 * through the registry or spk_spmv_auto_host).  Unknown names and backends for another executor fail
 * with a message listing what is available. */
int spk_spmv_find(const char *name, const spk_exec *e, const struct spk_spmv_ops **ops, spk_err *err);
/* All registered backends, NULL-terminated. */
const struct spk_spmv_ops *const *spk_spmv_list(void);

/* The "auto" format (auto.c): the fastest of the candidates of
 * spk_auto_candidates, by the rule or by timed trials. */
extern const struct spk_spmv_ops spk_spmv_auto_host, spk_spmv_auto_cuda;
/* For tests: an "auto" backend (destroyed through spk_spmv_auto_host's or
 * _cuda's ops) choosing among the n backends given, in that order, instead
 * of spk_auto_candidates' (those for another executor are skipped): by
 * timed trials, or (timed = 0) the first that accepts the matrix. */
int spk_auto_create_with(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o,
                         const struct spk_spmv_ops *const *cands, int n, int timed, void **impl);
/* The candidate formats auto considers for A (at most max names); returns the
 * count.  *timed (when not NULL) is 1 when trials decide among them, 0 when
 * the first one the executor has and accepts is the choice (the others
 * stand by in case it refuses the matrix). */
int spk_auto_candidates(const spk_csr *A, const char **names, int max, int *timed);
/* The format an "auto" backend chose. */
const char *spk_auto_choice(const void *impl);

/* The host reference backend over spk_csr. */
extern const struct spk_spmv_ops spk_spmv_csr_host;
/* cusparseSpMV on CSR (built with CUDA). */
extern const struct spk_spmv_ops spk_spmv_cusparse;
/* cusparseSpMV on cuSPARSE's sliced ELL (built with CUDA). */
extern const struct spk_spmv_ops spk_spmv_cusparse_sell;
/* cusparseSpMV on BSR, the blocks of bcsr (built with CUDA). */
extern const struct spk_spmv_ops spk_spmv_cusparse_bsr;
/* Storage formats: *_host runs the host reference over the format's own
 * arrays, *_cuda the kernel (built with CUDA). */
extern const struct spk_spmv_ops spk_spmv_csr_scalar_host, spk_spmv_csr_scalar_cuda;
extern const struct spk_spmv_ops spk_spmv_csr_vector_host, spk_spmv_csr_vector_cuda;
extern const struct spk_spmv_ops spk_spmv_ell_host, spk_spmv_ell_cuda;
extern const struct spk_spmv_ops spk_spmv_bell_host, spk_spmv_bell_cuda;
extern const struct spk_spmv_ops spk_spmv_coo_host, spk_spmv_coo_cuda;
extern const struct spk_spmv_ops spk_spmv_hyb_host, spk_spmv_hyb_cuda;
extern const struct spk_spmv_ops spk_spmv_hmec_host, spk_spmv_hmec_cuda;
extern const struct spk_spmv_ops spk_spmv_teb_host, spk_spmv_teb_cuda;
extern const struct spk_spmv_ops spk_spmv_teb_fast_host, spk_spmv_teb_fast_cuda;
extern const struct spk_spmv_ops spk_spmv_tile_csr_host, spk_spmv_tile_csr_cuda;
extern const struct spk_spmv_ops spk_spmv_tile_host, spk_spmv_tile_cuda;
extern const struct spk_spmv_ops spk_spmv_tile_dcoo_host, spk_spmv_tile_dcoo_cuda;
extern const struct spk_spmv_ops spk_spmv_dia_host, spk_spmv_dia_cuda;
extern const struct spk_spmv_ops spk_spmv_csc_host, spk_spmv_csc_cuda;
extern const struct spk_spmv_ops spk_spmv_rgcsr_host, spk_spmv_rgcsr_cuda;
extern const struct spk_spmv_ops spk_spmv_cmrs_host, spk_spmv_cmrs_cuda;
extern const struct spk_spmv_ops spk_spmv_amf_csr_host, spk_spmv_amf_csr_cuda;
extern const struct spk_spmv_ops spk_spmv_pbc_host, spk_spmv_pbc_cuda;
extern const struct spk_spmv_ops spk_spmv_scsr_host, spk_spmv_scsr_cuda;
extern const struct spk_spmv_ops spk_spmv_sbcsr_host, spk_spmv_sbcsr_cuda;
extern const struct spk_spmv_ops spk_spmv_qcsr_host, spk_spmv_qcsr_cuda;
extern const struct spk_spmv_ops spk_spmv_mqt_host, spk_spmv_mqt_cuda;
extern const struct spk_spmv_ops spk_spmv_csr5_host, spk_spmv_csr5_cuda;
extern const struct spk_spmv_ops spk_spmv_merge_host, spk_spmv_merge_cuda;
extern const struct spk_spmv_ops spk_spmv_csr_adaptive_host, spk_spmv_csr_adaptive_cuda;
extern const struct spk_spmv_ops spk_spmv_sell_host, spk_spmv_sell_cuda;
extern const struct spk_spmv_ops spk_spmv_bcsr_host, spk_spmv_bcsr_cuda;

#endif
