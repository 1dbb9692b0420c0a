/*
 * spk.h -- the public C API of spk, the sparse Krylov kit.
 *
 * spk solves sparse linear systems A x = b with preconditioned Krylov methods:
 * CG (with IC(0), Jacobi or no preconditioner) for symmetric positive definite
 * matrices and BiCGStab (with ILU(0), Jacobi or none) for general ones.  The
 * sparse matrix-vector product inside every iteration is a pluggable backend
 * chosen by name ("csr" on the host; GPU formats where CUDA is available).
 *
 * Conventions
 *  - Every function that can fail returns an int status: SPK_OK (0) on success,
 *    one of the positive spk_status codes otherwise.  spk_last_error(ctx) then
 *    holds a sentence that names the cause (file and line, row, value, call).
 *  - Nothing in the library prints or exits on its own.
 *  - Indices are 32-bit and 0-based; matrices are given in CSR.
 *  - Objects are opaque; *_destroy accepts NULL.
 *  - A context is not thread-safe; use one context per thread.
 *
 * Typical use:
 *
 *     spk_context *ctx;  spk_context_create(&ctx, SPK_DEVICE_AUTO);
 *     spk_matrix *A;     spk_matrix_from_csr(ctx, n, n, rowptr, colind, val, &A);
 *     spk_options o;     spk_options_default(&o);
 *     spk_solver *s;     spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_IC0, &o, &s);
 *     spk_result r;      int st = spk_solve(s, b, x, &r);     // x: initial guess in, solution out
 *     if (st) fprintf(stderr, "%s\n", spk_last_error(ctx));
 *     spk_matrix_update_values(A, newval);                   // next spk_solve refactors
 *     spk_solver_destroy(s); spk_matrix_destroy(A); spk_context_destroy(ctx);
 */
#ifndef SPK_H
#define SPK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define SPK_API
#elif defined(__GNUC__)
#define SPK_API __attribute__((visibility("default")))
#else
#define SPK_API
#endif

#define SPK_VERSION_MAJOR 0
#define SPK_VERSION_MINOR 1
#define SPK_VERSION_PATCH 0

/* The binary interface of this header: bumped whenever a public struct (spk_options,
 * spk_result, spk_option_desc, spk_matrix_info) changes its members or layout, or an enum
 * or #define'd value changes its numbers.  Bindings that mirror them (python/spk) compare
 * it, and the sizes, with the library's (spk_abi_info) before they call anything. */
#define SPK_ABI_VERSION 2

/* Status codes returned by every fallible function. */
typedef enum spk_status {
    SPK_OK = 0,
    SPK_ERR_INVALID_ARG = 1,   /* a NULL pointer, a bad size, an unknown option value */
    SPK_ERR_IO = 2,            /* a file could not be opened, read or written */
    SPK_ERR_PARSE = 3,         /* malformed Matrix Market input (message names file and line) */
    SPK_ERR_UNSUPPORTED = 4,   /* valid input spk does not handle (complex data, ...) */
    SPK_ERR_NOMEM = 5,         /* host or device memory exhausted */
    SPK_ERR_INVALID_MATRIX = 6,/* bad CSR arrays, non-square system, size mismatch */
    SPK_ERR_ZERO_PIVOT = 7,    /* ILU(0)/IC(0) met a zero or non-positive pivot (row named) */
    SPK_ERR_NOT_FOUND = 8,     /* unknown format, preconditioner or solver name, or option key */
    SPK_ERR_DEVICE = 9,        /* a CUDA / cuBLAS / cuSPARSE call failed, or no device */
    SPK_ERR_NOT_CONVERGED = 10,/* the solve ran but reached maxit (see spk_result) */
    SPK_ERR_BREAKDOWN = 11,    /* the solve stopped on a breakdown or NaN (see spk_result) */
    SPK_ERR_INDEFINITE = 12,   /* CG found p'Ap <= 0 or r'z <= 0: A (or M) is not SPD */
    SPK_ERR_INTERNAL = 13
} spk_status;

/* Why a solve ended (spk_result.reason). */
typedef enum spk_reason {
    SPK_CONVERGED_RTOL = 0,    /* ||r|| <= rtol * ||b|| */
    SPK_CONVERGED_ATOL = 1,    /* ||r|| <= atol */
    SPK_CONVERGED_ZERO_RHS = 2,/* b = 0: x = 0 is the exact solution */
    SPK_DIVERGED_MAXIT = 3,    /* maxit iterations without meeting the test */
    SPK_BREAKDOWN_RHO = 4,     /* BiCGStab: rho = r0'r = 0 */
    SPK_BREAKDOWN_R0V = 5,     /* BiCGStab: r0'v = 0 (alpha undefined) */
    SPK_BREAKDOWN_OMEGA = 6,   /* BiCGStab: omega = 0 or t't = 0 */
    SPK_BREAKDOWN_INDEFINITE = 7, /* CG: p'Ap <= 0 (A not SPD) */
    SPK_BREAKDOWN_PRECOND = 8, /* CG: r'z <= 0 (preconditioner not SPD) */
    SPK_DIVERGED_NAN = 9,      /* a NaN or Inf appeared in a scalar */
    SPK_INVALID_INPUT = 10,    /* b or x0 contains NaN/Inf */
    SPK_DIVERGED_DTOL = 11,    /* ||r|| > dtol * max(||b||, ||r0||): the iteration blew up */
    SPK_SOLVE_ERROR = 12,      /* an error ended the solve (a failed refactorization, bad
                                  arguments, a device error): the status spk_solve returned and
                                  spk_last_error say which */
    SPK_PRECISION_FLOOR = 13,  /* a breakdown with the residual already at the floor of double
                                  precision (relative residual <= 1e-13; rtol asked for less):
                                  SPK_ERR_NOT_CONVERGED, x as good as double precision gives */
    SPK_BREAKDOWN_SINGULAR = 14 /* GMRES: the least-squares problem became singular (A or M
                                  singular, b outside the range): SPK_ERR_BREAKDOWN */
} spk_reason;

typedef enum spk_device {
    SPK_DEVICE_AUTO = 0,       /* the GPU when one is usable, the host otherwise */
    SPK_DEVICE_HOST = 1,
    SPK_DEVICE_CUDA = 2
} spk_device;

typedef enum spk_solver_kind {
    SPK_SOLVER_AUTO = 0,       /* CG for a symmetric matrix with a positive diagonal, else BiCGStab */
    SPK_SOLVER_CG = 1,
    SPK_SOLVER_BICGSTAB = 2,
    SPK_SOLVER_GMRES = 3,      /* restarted GMRES(m), right-preconditioned (spk_options.gmres_restart) */
    SPK_SOLVER_COCG = 4        /* complex systems only: conjugate orthogonal CG for a complex
                                  symmetric A = A^T (see "complex systems" below) */
} spk_solver_kind;

typedef enum spk_precond_kind {
    SPK_PRECOND_AUTO = 0,      /* IC(0) with CG, ILU(0) with BiCGStab; on the GPU none for a
                                  matrix shaped like a discretized Laplacian (every diagonal
                                  entry within 5 % of a_00 and every row weakly diagonally
                                  dominant), where they seldom pay for their apply (see also
                                  spk_options.race) */
    SPK_PRECOND_NONE = 1,
    SPK_PRECOND_JACOBI = 2,
    SPK_PRECOND_ILU0 = 3,
    SPK_PRECOND_IC0 = 4,
    SPK_PRECOND_FACTOR = 5,    /* IC(0) with CG, ILU(0) with BiCGStab, always */
    SPK_PRECOND_USER = 6       /* the caller's: spk_options.precond_apply (SPK_SOLVER_AUTO then
                                  chooses CG or BiCGStab by the matrix alone) */
} spk_precond_kind;

typedef struct spk_context spk_context;
typedef struct spk_matrix spk_matrix;
typedef struct spk_solver spk_solver;

/* Called once per iteration (iteration 0 is the initial residual) when set. */
typedef void (*spk_monitor_fn)(void *user, int iteration, double rnorm, double relres);
/* A preconditioner of the caller's (SPK_PRECOND_USER): z = M^-1 r, both host arrays of n
 * entries in the caller's order; nonzero stops the solve with SPK_ERR_INVALID_ARG and
 * that value in the message.  On the GPU r is copied to the host and z back at each call.
 * CG needs M symmetric positive definite; BiCGStab applies it on the right. */
typedef int (*spk_precond_fn)(void *user, int n, const double *r, double *z);
/* Called after each iteration k >= 1 with the iterate x_k (a host array of n entries in the
 * caller's order, valid during the call), when set; on the GPU x_k is copied to the host at
 * each call.  Like the monitor, it turns the probe and the race off. */
typedef void (*spk_iterate_fn)(void *user, int iteration, const double *x);

/*
 * Solver options.  Fill with spk_options_default() and change what you need,
 * by field or by key (spk_options_set below: "rtol", "sell-c", ...; the key
 * of each field is in its comment).  The ranges, defaults and help of the
 * keys are in one table (spk_option_info); spk_solver_create refuses values
 * outside it with a message naming the field.  0 in a format's knob leaves
 * the choice to the format.
 *
 * Stopping test (both solvers test the same quantity, the residual estimate of
 * the recurrence, which for CG and right-preconditioned BiCGStab estimates the
 * unpreconditioned residual b - A x):
 *     ||r_k||_2 <= max(rtol * ||b||_2, atol)      or  k = maxit.
 * After the loop the true residual ||b - A x||_2 / ||b||_2 is recomputed and
 * reported in spk_result.true_relres.
 */
typedef struct spk_options {
    double rtol;               /* "rtol": relative tolerance */
    double atol;               /* "atol": absolute tolerance */
    int maxit;                 /* "maxit": iteration limit */
    const char *format;        /* "format": SpMV backend name; NULL: "auto" on the GPU (a rule on
                                  the row lengths, then short trials), "csr" on the host.  The
                                  string is copied by spk_solver_create */
    int hmec_parts;            /* "hmec-parts": format hmec's ELL parts before the CSR rest */
    double tile_te;            /* "tile-te": formats tile, tile-dcoo: a tile with a row-length
                                  variation (std/mean) up to this is ELL */
    double tile_th;            /* "tile-th": ... and from this on HYB */
    long long tile_defer_nnz;  /* "tile-defer-nnz": format tile moves its COO entries to a separate
                                  CSR matrix above this many nonzeros (< 0: never) */
    int allow_shift;           /* "shift": IC(0)/ILU(0) retry on A + alpha*diag(A) after a zero or
                                  negative pivot, instead of failing */
    double shift_init;         /* "shift-init": the first alpha, doubled after each failure */
    double shift_max;          /* "shift-max": the largest alpha tried */
    int keep_history;          /* "keep-history": record ||r_k|| of every iteration */
    spk_monitor_fn monitor;    /* optional callback (no key), default NULL */
    void *monitor_user;
    double dtol;               /* "dtol": stop as diverged when ||r|| > dtol * max(||b||, ||b - A x0||),
                                  an iteration that blew up (0: never) */
    int precond_sweeps;        /* "precond-sweeps": how IC(0)/ILU(0) apply their triangular solves:
                                  0 exactly (substitution on the host; on the GPU cuSPARSE
                                  csric02/csrilu02 + cusparseSpSV, the reference recipe); k in
                                  [1, 1000] by k Jacobi sweeps each ("ic0-sweeps"/"ilu0-sweeps"),
                                  more parallel than a solve; SPK_PRECOND_SWEEPS_AUTO: on the GPU the
                                  device's factor with the fewest sweeps that pass a check on a probe
                                  vector, exact solves where none does; on the host exact solves */
    int precond_isai;          /* "precond-isai": 1 applies each factor's incomplete sparse
                                  approximate inverse, one SpMV per factor ("ic0-isai",
                                  "ilu0-isai"), instead of solving.  Not with precond_sweeps > 0 */
    int reorder;               /* "reorder": SPK_REORDER_MULTICOLOR solves P A P^T (P b) with the rows
                                  ordered by a greedy coloring of A + A^T, so that each triangular
                                  solve has one level per color (more parallel; often more
                                  iterations); SPK_REORDER_BLOCK_MULTICOLOR colors blocks of
                                  reorder_block rows, each kept in order (closer to the natural
                                  order's iterations).  x is returned in the caller's order */
    int reorder_block;         /* "reorder-block": rows per block of SPK_REORDER_BLOCK_MULTICOLOR */
    int vector_ops;            /* "vector-ops": how an iteration's vector work runs.
                                  SPK_VECTOR_CLASSIC: one executor operation per dot product, norm
                                  and update, each scalar back on the host (cuBLAS on the GPU, the
                                  reference recipe).  SPK_VECTOR_FUSED: the updates and reductions
                                  fused into a few steps, the scalars read once per CG iteration
                                  (twice per BiCGStab iteration).  SPK_VECTOR_GRAPH: the fused steps
                                  between two reads, with the SpMV and the preconditioner, recorded
                                  once as CUDA graphs and replayed (where they cannot be: fused).
                                  SPK_VECTOR_BLOCK: on the GPU, a small system whose preconditioner
                                  one thread block can apply runs whole iterations in one block or
                                  a cluster of blocks (sm_90), saving the launches; elsewhere graph.
                                  All give the same iterations and outcome (on the host the same
                                  numbers to the bit) */
    int precond_precision;     /* "precond-precision": the factor's values in the sweeps:
                                  SPK_PRECISION_AUTO (float where the sweeps are chosen
                                  automatically on the GPU, else double), SPK_PRECISION_DOUBLE, or
                                  SPK_PRECISION_FLOAT (half the bytes per sweep on the GPU; sums
                                  and vectors in double) */
    int race;                  /* "race": whether IC(0) pays for itself is not known before it
                                  runs.  1: on the GPU, where SPK_PRECOND_AUTO gives CG + IC(0) on
                                  a small system (not reordered, no history, no monitor), each
                                  solve also runs CG without a preconditioner and CG with Jacobi
                                  alongside, and the first to converge answers (spk_result.race);
                                  the first solve builds IC(0) while they iterate.  2: CG without
                                  a preconditioner only.  0: never */
    int sell_c;                /* "sell-c": formats sell, cusparse-sell: rows per slice C */
    int sell_sigma;            /* "sell-sigma": format sell sorts rows by length inside windows of
                                  sigma rows (1: not sorted; else a multiple of C) */
    int bcsr_block;            /* "bcsr-block": formats bcsr, cusparse-bsr, sbcsr: b x b blocks */
    int probe;                 /* "probe": 1 (the default): SPK_PRECOND_AUTO, where the race does not
                                  run and no history or monitor is asked, is chosen by measuring
                                  the first solve: it starts with the cheap preconditioner (none,
                                  or Jacobi where the diagonal varies), and where its rate predicts
                                  a long solve, builds IC(0)/ILU(0), measures a few of its
                                  iterations, and finishes with the one predicted faster, from the
                                  latest iterate; later solves keep the choice
                                  (spk_solver_choice says it).  0: IC(0)/ILU(0) from the start */
    int probe_iters;           /* "probe-iters": the cheap preconditioner's iterations before its
                                  first look (then looks at twice the predicted rest) */
    int probe_factor_iters;    /* "probe-factor-iters": the factor's iterations measured */
    double probe_keep;         /* "probe-keep": once built, the factor finishes unless the cheap
                                  one's predicted rest is this many times shorter (below 1: unless the
                                  factor's is 1/K times shorter); 0 (default): 0.5 on the GPU, 2 on
                                  the host.  After the factor lost, the cheap run is watched and
                                  hands over where the factor's predicted rest becomes the shorter */
    int factorization;         /* "factorization": how IC(0)/ILU(0) compute their factor:
                                  SPK_FACTORIZATION_EXACT in dependency order (row by row),
                                  SPK_FACTORIZATION_ITERATIVE by fixed-point sweeps over all entries
                                  at once (Chow and Patel), SPK_FACTORIZATION_AUTO: iterative where
                                  the GPU builds the factor, else exact (the default) */
    int factor_sweeps;         /* "factor-sweeps": the most sweeps of the iterative factorization */
    double factor_tol;         /* "factor-tol": ... which stops once its relative residual
                                  ||A - LU|| on the pattern (diagonally scaled) is at most this */
    double probe_try;          /* "probe-try": the factor is measured only where the cheap run's rate
                                  predicts more than this many times probe_iters iterations to go;
                                  0 (default): 16 on the GPU, 2 on the host */
    double probe_budget;       /* "probe-budget": measuring the factor (its build and its iterations)
                                  may cost at most this fraction of the cheap run's predicted rest;
                                  a build stopped there is tried again only where that rest has
                                  grown so that twice the budget spent is allowed.  0 (default):
                                  0.1 on the GPU, unbounded on the host */
    int gmres_restart;         /* "gmres-restart": GMRES's basis size m, the iterations between restarts */
    int pivot;                 /* "pivot": static pivoting: ILU(0) or Jacobi (BiCGStab, GMRES; not
                                  reordered) built on P A, P the rows of a maximum product matching
                                  (every diagonal entry one of its column's largest), and applied
                                  to P r; A stays the operator, x and rtol keep their meaning.
                                  SPK_PIVOT_AUTO: where they meet a zero pivot or diagonal entry
                                  (the default's probe too); _ON: always (refused with CG, IC(0),
                                  reorder or the caller's preconditioner); _OFF: never */
    spk_precond_fn precond_apply; /* SPK_PRECOND_USER's apply (no key; spk_options_set_precond) */
    void *precond_user;
    spk_iterate_fn iterate;    /* optional callback (no key; spk_options_set_iterate) */
    void *iterate_user;
    spk_monitor_fn progress;   /* optional callback (no key; spk_options_set_progress): the
                                  iterations of whichever run of the solve is iterating, counted
                                  over the whole solve, for a progress display.  Unlike the
                                  monitor it changes nothing (the probe and the race stay on), so
                                  a residual may jump where the probe changes preconditioner */
    void *progress_user;
} spk_options;

#define SPK_VECTOR_CLASSIC 0
#define SPK_VECTOR_FUSED 1
#define SPK_VECTOR_GRAPH 2
#define SPK_VECTOR_BLOCK 3
#define SPK_PRECOND_SWEEPS_AUTO (-1)

#define SPK_PRECISION_AUTO 0
#define SPK_PRECISION_DOUBLE 1
#define SPK_PRECISION_FLOAT 2

#define SPK_FACTORIZATION_AUTO 0
#define SPK_FACTORIZATION_EXACT 1
#define SPK_FACTORIZATION_ITERATIVE 2

#define SPK_PIVOT_AUTO 0
#define SPK_PIVOT_ON 1
#define SPK_PIVOT_OFF 2

#define SPK_REORDER_NONE 0
#define SPK_REORDER_MULTICOLOR 1
#define SPK_REORDER_BLOCK_MULTICOLOR 2

/* Outcome of one spk_solve. */
typedef struct spk_result {
    spk_reason reason;
    int iterations;            /* BiCGStab counts a half step as a full iteration */
    double rnorm0;             /* ||b - A x0||_2 */
    double rnorm;              /* final recurrence residual ||r_k||_2 */
    double relres;             /* rnorm / ||b||_2 */
    double true_relres;        /* ||b - A x||_2 / ||b||_2, recomputed after the loop */
    int restarts;              /* BiCGStab: restarts with a fresh shadow residual r0 = b - A x
                                  after a rho = 0 or r0'v = 0 breakdown (at most 10 per solve);
                                  GMRES: its restarts from the true residual */
    double shift;              /* alpha of A + alpha*diag(A) used by the factorization (0: none) */
    int switched;              /* 2 when SPK_SOLVER_AUTO's BiCGStab broke down and restarted GMRES
                                  finished from its iterate (the solver keeps GMRES);
                                  1 when SPK_SOLVER_AUTO chose CG, found A indefinite and solved
                                  again from x0 with BiCGStab + ILU(0); times cover both attempts */
    double t_setup;            /* seconds: format conversion, factorization, analysis */
    double t_spmv;             /* seconds spent in SpMV during this solve */
    double t_precond;          /* seconds spent applying the preconditioner */
    double t_vector;           /* seconds in vector operations (dot, axpy, norms, ...) */
    double t_total;            /* seconds for this spk_solve, including any refactorization */
    int history_len;           /* entries in history (keep_history), else 0 */
    const double *history;     /* ||r_k||_2, k = 0..history_len-1; owned by the solver,
                                  valid until the next spk_solve or spk_solver_destroy */
    double t_sync;             /* SPK_VECTOR_FUSED: seconds of the iteration loop outside the
                                  three phases above (launches, waits for the device, host
                                  work), whose times then come from the device's clock;
                                  0 with SPK_VECTOR_CLASSIC, whose phases include their waits */
    /* The parts of t_setup (seconds, wall clock, the device synchronized at
     * each boundary; 0 for a part that did not run): the upload of the matrix
     * to the device, the symmetry and diagonal checks, the SpMV format, the
     * preconditioner. */
    double t_setup_upload, t_setup_check, t_setup_format, t_setup_precond;
    int graph_iterations;      /* SPK_VECTOR_GRAPH: the iterations whose steps ran as a replayed
                                  CUDA graph (0: none, e.g. on the host) */
    int block_iterations;      /* SPK_VECTOR_BLOCK: the iterations run inside one thread block
                                  or one cluster of thread blocks */
    int block_cluster;         /* ... the blocks that ran them: 1 one block, 2-16 a cluster
                                  (0: none ran) */
    int race;                  /* spk_options.race: 0 none ran; 1 the preconditioned solve gave
                                  the answer; 2 CG without a preconditioner alongside did, 3 CG
                                  with Jacobi alongside did (the iterations, residuals and
                                  phase times are then its; it ran from the start of
                                  spk_solve) */
} spk_result;

/* Properties of a matrix, as spk_matrix_info reports them. */
typedef struct spk_matrix_info {
    int nrows, ncols, nnz;
    int pattern_symmetric;     /* 1 if (i,j) stored implies (j,i) stored */
    int value_symmetric;       /* 1 if A = A^T (relative tolerance 1e-12) */
    int positive_diagonal;     /* 1 if every diagonal entry is present and > 0 */
    int missing_diagonal;      /* rows without a stored diagonal entry */
    int diag_dominant_rows;    /* rows with |a_ii| >= sum_{j!=i} |a_ij| */
    int empty_rows;
    int row_min, row_max;      /* shortest and longest row (entries) */
    double row_mean, row_std;
} spk_matrix_info;

/* ---- library ---------------------------------------------------------- */

/* Version string "MAJOR.MINOR.PATCH". */
SPK_API const char *spk_version(void);
/* The binary interface as the library was compiled: sizeof(spk_options), sizeof(spk_result),
 * sizeof(spk_option_desc) and SPK_ABI_VERSION, for bindings that mirror the structs (ctypes,
 * iso_c_binding) to check them before use.  Any pointer may be NULL.  Returns SPK_OK. */
SPK_API int spk_abi_info(size_t *sizeof_options, size_t *sizeof_result, size_t *sizeof_option_desc,
                         int *abi_version);
/* Name of a status code, e.g. "SPK_ERR_PARSE". */
SPK_API const char *spk_status_name(int status);
/* A short description of a solve outcome, e.g. "converged (rtol)". */
SPK_API const char *spk_reason_name(spk_reason reason);

/* ---- context ---------------------------------------------------------- */

/* Create a context on the given device.  SPK_DEVICE_AUTO picks the GPU when
 * the library was built with CUDA and a device is usable, else the host.
 * SPK_DEVICE_CUDA fails with SPK_ERR_DEVICE when no GPU can be used. */
SPK_API int spk_context_create(spk_context **ctx, spk_device device);
/* Contexts, matrices and solvers may be destroyed in any order: a matrix
 * keeps its context, and a solver its matrix and context, alive until it
 * is destroyed itself (the handle destroyed must not be used again). */
SPK_API void spk_context_destroy(spk_context *ctx);
/* The most bytes reading a file (spk_matrix_read, spk_vector_read) may hold:
 * the entries as they arrive, then the matrix made of them; beyond it the
 * read stops with SPK_ERR_NOMEM and a message naming the limit (0, the
 * default: no limit). */
SPK_API int spk_context_set_memory_limit(spk_context *ctx, size_t bytes);
/* The host threads this context's solver setups and solves run on (n >= 1),
 * or 0 (the default): OMP_NUM_THREADS, else every core.  Results have the
 * same bits whatever the count. */
SPK_API int spk_context_set_threads(spk_context *ctx, int n);
/* The host threads the context's work runs on now: 1 in a build without OpenMP. */
SPK_API int spk_context_threads(const spk_context *ctx);
/* The device the context runs on: "host" or "cuda". */
SPK_API const char *spk_context_device(const spk_context *ctx);
/* For SPK_DEVICE_AUTO: why that device was chosen ("" otherwise). */
SPK_API const char *spk_context_note(const spk_context *ctx);
/* 1 when this build of spk has the CUDA path, else 0. */
SPK_API int spk_have_cuda(void);
/* The message of the last failed call on this context ("" if none).  The
 * string stays valid until the next call on the context. */
SPK_API const char *spk_last_error(const spk_context *ctx);

/* ---- matrices --------------------------------------------------------- */

/* Copy a CSR matrix (0-based; rowptr has nrows+1 entries).  Column indices
 * need not be sorted; duplicates are summed.  The arrays are not kept. */
SPK_API int spk_matrix_from_csr(spk_context *ctx, int nrows, int ncols, const int *rowptr,
                                const int *colind, const double *val, spk_matrix **A);
/* Read a Matrix Market file (.mtx or .mtx.gz; coordinate real, integer or
 * pattern; general, symmetric or skew-symmetric).  Symmetric files are
 * expanded to both triangles; pattern values are 1.  A "complex" file gives
 * a complex matrix (see "complex systems" below). */
SPK_API int spk_matrix_read(spk_context *ctx, const char *path, spk_matrix **A);
/* What spk_matrix_read read but may not be what the file meant ("" none):
 * "FILE:LINE: ..." -- an integer of magnitude 2^53 or more (a double may round it), or a symmetric file
 * listing entries on both sides of the diagonal (each mirrored: one given
 * at both (i,j) and (j,i) is counted twice).  The first such note. */
SPK_API const char *spk_matrix_warning(const spk_matrix *A);
/* Write a matrix as Matrix Market coordinate real general, values with 17
 * significant digits (exact round trip).  A name ending in ".gz" is compressed. */
SPK_API int spk_matrix_write(const spk_matrix *A, const char *path);
/* Replace the values, keeping the pattern: val has the layout of the arrays
 * given to spk_matrix_from_csr (or of the file's expanded CSR for a matrix that
 * was read; see spk_matrix_csr).  Solvers built on A refactor on their next
 * solve without redoing their symbolic setup. */
SPK_API int spk_matrix_update_values(spk_matrix *A, const double *val);
/* Borrow the matrix's host CSR arrays (sorted columns, no duplicates).  Any
 * pointer may be NULL.  Valid until the matrix is destroyed. */
SPK_API int spk_matrix_csr(const spk_matrix *A, int *nrows, int *ncols, int *nnz,
                           const int **rowptr, const int **colind, const double **val);
/* Structure and value properties (symmetry, diagonal, row lengths). */
SPK_API int spk_matrix_get_info(const spk_matrix *A, spk_matrix_info *info);
/* y = A x on the host (x has ncols entries, y has nrows). */
SPK_API int spk_matrix_multiply(const spk_matrix *A, const double *x, double *y);
SPK_API void spk_matrix_destroy(spk_matrix *A);

/* ---- dense vectors ---------------------------------------------------- */

/* Read a vector from a Matrix Market file: array format n x 1 (or 1 x n), or
 * coordinate n x 1.  *v is allocated with malloc; release it with spk_free. */
SPK_API int spk_vector_read(spk_context *ctx, const char *path, int *n, double **v);
/* Write a vector in Matrix Market array format, 17 significant digits. */
SPK_API int spk_vector_write(spk_context *ctx, const char *path, int n, const double *v);
SPK_API void spk_free(void *p);

/* ---- complex systems -------------------------------------------------- */
/*
 * A complex matrix holds complex double values; each value, and each entry of
 * a complex vector, is a (real, imaginary) pair of doubles: the layout of C's
 * double _Complex, C++'s std::complex<double>, Fortran's complex(c_double_complex)
 * and NumPy's complex128.  A vector of n entries is 2n doubles.
 *
 * spk_matrix_read gives a complex matrix for a Matrix Market "complex" file
 * (general, symmetric, hermitian or skew-symmetric); spk_matrix_write writes
 * one back.  spk_solver_create on a complex matrix makes a complex solver:
 *   SPK_SOLVER_AUTO      CG for a Hermitian matrix with a positive real diagonal,
 *                        COCG for a complex symmetric one, else BiCGStab
 *   SPK_SOLVER_CG        Hermitian positive definite A (M Hermitian positive definite)
 *   SPK_SOLVER_COCG      complex symmetric A = A^T (M = M^T)
 *   SPK_SOLVER_BICGSTAB  any nonsingular A
 * with SPK_PRECOND_AUTO (none; on the GPU Jacobi where the diagonal varies),
 * FACTOR (IC(0) with CG and COCG: L D L^H and L D L^T in A's pattern; ILU(0)
 * with BiCGStab), NONE, JACOBI, ILU0 or IC0.  The
 * factors are computed on the host; on the GPU the products (format
 * "cusparse", the default, or "csr-vector") and the triangular solves run
 * there; a zero or tiny pivot is met by factoring A + alpha diag(A) (alpha
 * from 1e-3, doubled up to 1; spk_result.shift).  Options used: rtol, atol,
 * maxit, dtol, format, keep_history, monitor, progress; the others (the
 * probe, the race, sweeps, reordering, pivoting, vector-ops) apply to real
 * systems only.
 * The calls that take real arrays (spk_solve, spk_matrix_csr,
 * spk_matrix_multiply, spk_matrix_update_values) refuse a complex matrix
 * (SPK_ERR_INVALID_ARG), and these refuse a real one.
 */

/* Copy a complex CSR matrix: val holds 2*rowptr[nrows] doubles (re, im);
 * otherwise as spk_matrix_from_csr. */
SPK_API int spk_matrix_from_csr_complex(spk_context *ctx, int nrows, int ncols, const int *rowptr,
                                        const int *colind, const double *val, spk_matrix **A);
/* 1 for a complex matrix, 0 for a real one (or NULL). */
SPK_API int spk_matrix_is_complex(const spk_matrix *A);
/* How a complex matrix relates to its transpose: 1 symmetric (A = A^T), 2
 * Hermitian (A = A^H), 3 both (real values), 0 neither; -1 for a real matrix. */
SPK_API int spk_matrix_complex_symmetry(const spk_matrix *A);
/* Borrow a complex matrix's host CSR arrays (val: 2*nnz doubles). */
SPK_API int spk_matrix_csr_complex(const spk_matrix *A, int *nrows, int *ncols, int *nnz, const int **rowptr,
                                   const int **colind, const double **val);
/* y = A x on the host (2*ncols and 2*nrows doubles). */
SPK_API int spk_matrix_multiply_complex(const spk_matrix *A, const double *x, double *y);
/* New values (2 doubles per entry of the caller's arrays), as spk_matrix_update_values. */
SPK_API int spk_matrix_update_values_complex(spk_matrix *A, const double *val);
/* Solve A x = b for a complex matrix: b and x hold 2n doubles; otherwise as spk_solve. */
SPK_API int spk_solve_complex(spk_solver *s, const double *b, double *x, spk_result *res);
/* Read a complex vector (array or coordinate, complex, real or integer; n
 * entries, 2n doubles in *v, released with spk_free); write one (array complex). */
SPK_API int spk_vector_read_complex(spk_context *ctx, const char *path, int *n, double **v);
SPK_API int spk_vector_write_complex(spk_context *ctx, const char *path, int n, const double *v);

/* ---- solvers ---------------------------------------------------------- */

/* Fill o with the defaults of the options' table (o NULL: nothing). */
SPK_API void spk_options_default(spk_options *o);

/* ---- options by key ----------------------------------------------------- */

/* Every field of spk_options but the callbacks has a key: "rtol", "maxit",
 * "vector-ops", "sell-c", ... (the command line's --KEY, Python's keyword
 * arguments; '_' and '-' are alike).  Values are text: numbers, names
 * ("auto", "fused", "block-multicolor"), on/off for switches.  Functions
 * that can fail write a sentence naming the key and the cause into msg (len
 * bytes; msg may be NULL), e.g. "rtol must be a number in [0, 1) (got '2')";
 * an unknown key is SPK_ERR_NOT_FOUND (the message names the close keys), a
 * bad value SPK_ERR_INVALID_ARG. */
SPK_API int spk_options_set(spk_options *o, const char *key, const char *value, char *msg, size_t len);
/* Set "key=value, key=value, ..." (';' separates too; a switch alone means
 * on, "no-KEY" off), then check the combinations as spk_options_check; o is
 * changed only when all of it is accepted. */
SPK_API int spk_options_parse(spk_options *o, const char *config, char *msg, size_t len);
/* The value of key in o as text that spk_options_set reads back. */
SPK_API int spk_options_get(const spk_options *o, const char *key, char *value, size_t len);
/* Check o as spk_solver_create does: every value in range, the combinations. */
SPK_API int spk_options_check(const spk_options *o, char *msg, size_t len);
/* sizeof(spk_options), for front ends that hold one as opaque memory. */
SPK_API size_t spk_options_size(void);
/* The callbacks, which have no keys, for front ends that hold spk_options as opaque memory:
 * the monitor, SPK_PRECOND_USER's apply, the iterate and the progress callbacks (fn NULL:
 * none). */
SPK_API void spk_options_set_monitor(spk_options *o, spk_monitor_fn fn, void *user);
SPK_API void spk_options_set_precond(spk_options *o, spk_precond_fn fn, void *user);
SPK_API void spk_options_set_iterate(spk_options *o, spk_iterate_fn fn, void *user);
SPK_API void spk_options_set_progress(spk_options *o, spk_monitor_fn fn, void *user);

/* One key of the table, for front ends that generate their help. */
typedef struct spk_option_desc {
    const char *key;           /* "rtol" */
    const char *alias;         /* another key accepted for it, or NULL */
    const char *field;         /* its member of spk_options ("rtol") */
    const char *type;          /* "int", "long", "double", "enum", "switch" or "name" */
    const char *owner;         /* the component that reads it: "solver", "precond" or "spmv" */
    const char *meta;          /* the value's placeholder in help ("R"; NULL for a switch) */
    const char *help;          /* what it does, in a sentence */
    const char *scope;         /* the formats that read it ("sell,cusparse-sell"), or NULL: all */
    size_t offset, size;       /* where spk_options holds it */
    char range[512];           /* the values accepted, e.g. "a number in [0, 1)" */
    char def[64];              /* the default, e.g. "1e-8" */
} spk_option_desc;
/* The number of keys, and key i (0 <= i < count) described in d. */
SPK_API int spk_option_count(void);
SPK_API int spk_option_info(int i, spk_option_desc *d);

/* Set up a solver for A: choose and convert the SpMV format, compute the
 * preconditioner.  SPK_SOLVER_AUTO and SPK_PRECOND_AUTO choose as documented
 * above.  IC(0) and CG require a square symmetric matrix, every solver a
 * square one.  A must outlive the solver.  opts may be NULL (defaults). */
SPK_API int spk_solver_create(spk_context *ctx, spk_matrix *A, spk_solver_kind solver,
                              spk_precond_kind precond, const spk_options *opts,
                              spk_solver **s);
/* Solve A x = b.  x holds the initial guess on entry and the solution on
 * return.  Returns SPK_OK when converged, SPK_ERR_NOT_CONVERGED at maxit,
 * SPK_ERR_INDEFINITE or SPK_ERR_BREAKDOWN on breakdown; res (may be NULL) is
 * filled in every case in which the iteration ran. */
SPK_API int spk_solve(spk_solver *s, const double *b, double *x, spk_result *res);
/* spk_solve with b and x in the memory of the context's GPU (device or
 * managed memory of that device, e.g. CuPy or PyTorch arrays): they are
 * copied on the device, never through the host.  The call first waits for
 * the device's work (the caller's kernels writing b and x0, on any stream)
 * and returns with x written.  A context on the host, other memory, a
 * complex matrix or the reorder option are refused with a message. */
SPK_API int spk_solve_device(spk_solver *s, const double *b, double *x, spk_result *res);
/* The solver and preconditioner actually used ("cg", "ic0-sweeps", ...), the
 * SpMV format, and the shift the factorization needed.  With the race
 * (spk_options.race) the preconditioner is built by a solve: until one has
 * built it, spk_solver_precond gives its kind only ("ic0") and
 * spk_solver_precond_sweeps 0. */
SPK_API const char *spk_solver_method(const spk_solver *s);
SPK_API const char *spk_solver_precond(const spk_solver *s);
/* The Jacobi sweeps per triangular solve of IC(0)/ILU(0) applied by sweeps
 * (on the GPU chosen at setup unless precond_sweeps fixes them); 0 where the
 * triangular solves are exact, or there are none. */
SPK_API int spk_solver_precond_sweeps(const spk_solver *s);
/* With spk_options.probe: the preconditioner the first solve chose and why,
 * in one line (the measured rates, times per iteration and the predicted
 * rest); "" where no choice by measuring applies. */
SPK_API const char *spk_solver_choice(const spk_solver *s);
/* How the IC(0)/ILU(0) factor in use was computed (spk_options.factorization):
 * "exact", "by K sweeps, relative residual R", or exact after sweeps that
 * did not converge; "" without such a factor (or where it is not told). */
SPK_API const char *spk_solver_factorization(const spk_solver *s);
/* Where the GPU build of that factor spent its time: up to cap phases'
 * milliseconds in ms and, where names is not NULL, their names ("pattern",
 * "prepare", "factor", "slice", "check", "mode"); returns the number of
 * phases (0 where the factor was built on the host or is not told). */
SPK_API int spk_solver_factor_phases(const spk_solver *s, int cap, double *ms, const char **names);
SPK_API const char *spk_solver_format(const spk_solver *s);
/* How the SpMV format holds the matrix, in one line; for "auto" the format it
 * chose, the trial times and what the choice cost. */
SPK_API const char *spk_solver_format_detail(const spk_solver *s);
/* With SPK_REORDER_(BLOCK_)MULTICOLOR: the number of colors (0 without reordering). */
SPK_API int spk_solver_colors(const spk_solver *s);
/* Static pivoting (spk_options.pivot): the rows it moved, 0 where the matching kept them all,
 * -1 where it did not run. */
SPK_API int spk_solver_pivoted(const spk_solver *s);
/* The levels of a level-by-level triangular solve with the lower and the upper
 * triangle of the matrix solved (P A P^T when reordered, else A), and of A in
 * its own order (natural_lower, natural_upper); any pointer may be NULL.
 * O(nnz) each call. */
SPK_API int spk_solver_levels(const spk_solver *s, int *lower, int *upper, int *natural_lower, int *natural_upper);
SPK_API void spk_solver_destroy(spk_solver *s);

/* Names of the solver and preconditioner kinds, for messages. */
SPK_API const char *spk_solver_kind_name(spk_solver_kind k);
SPK_API const char *spk_precond_kind_name(spk_precond_kind k);

#ifdef __cplusplus
}
#endif
#endif /* SPK_H */
