/* dist_spmv.c -- row partition and the distributed SpMV with halo exchange (dist.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

struct spk_dist {
    spk_exec *e;
    MPI_Comm comm;
    int size, rank, n, nloc, row_begin;
    spk_csr loc, halo;                       /* local block (nloc x nloc), halo block (nloc x nh) */
    const struct spk_spmv_ops *lops, *hops;
    void *L, *H;                             /* their SpMV backends (H NULL when there is no halo) */
    int nh;                                  /* halo entries */
    int nrecv, *recv_rank, *recv_off;        /* neighbours sending to us; their halo ranges */
    int nsend, *send_rank, *send_off, *send_idx; /* neighbours we send to; local indices to send */
    double *xh, *sbuf;
    MPI_Request *req;
};

void spk_dist_partition_rows(const int *rowptr, int n, int nparts, int *row0)
{
    const long long nnz = rowptr[n];
    row0[0] = 0;
    int r = 0;
    for (int p = 1; p < nparts; p++) {
        /* the first row where the nonzeros before it reach p/nparts of all,
         * leaving at least one row for each part after it */
        const long long target = nnz * p / nparts;
        while (r < n && (long long)rowptr[r] < target) r++;
        if (r < row0[p - 1] + 1 && row0[p - 1] < n) r = row0[p - 1] + 1;
        if (r > n - (nparts - p) && n >= nparts) r = n - (nparts - p);
        if (r > n) r = n;
        row0[p] = r;
    }
    row0[nparts] = n;
}

static int mpi_fail(spk_err *err, const char *call, int rc)
{
    return spk_err_set(err, SPK_ERR_DEVICE, "%s failed (MPI error %d)", call, rc);
}

#define MPI_CHECK(st, err, call)                                                                                     \
    do {                                                                                                             \
        int rc_ = (call);                                                                                            \
        if (rc_ != MPI_SUCCESS) {                                                                                    \
            (st) = mpi_fail((err), #call, rc_);                                                                      \
            goto done;                                                                                               \
        }                                                                                                            \
    } while (0)
#define MPI_TRY(err, call)                                                                                           \
    do {                                                                                                             \
        int rc_ = (call);                                                                                            \
        if (rc_ != MPI_SUCCESS) return mpi_fail((err), #call, rc_);                                                  \
    } while (0)

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int spk_dist_owner(const int *starts, int nparts, int row)
{
    int lo = 0, hi = nparts - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (starts[mid] <= row)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Split the rows into the local and halo blocks and agree the exchange. */
static int plan(spk_dist *d, const spk_csr *rows)
{
    spk_err *err = d->e->err;
    const int size = d->size, nloc = d->nloc, r0 = d->row_begin, r1 = r0 + nloc;
    int st = SPK_OK;
    int *starts = calloc((size_t)size + 1, sizeof(int)), *cols = NULL, *rcnt = calloc((size_t)size, sizeof(int));
    int *scnt = calloc((size_t)size, sizeof(int)), *sdisp = calloc((size_t)size, sizeof(int));
    int *rdisp = calloc((size_t)size, sizeof(int));
    int nl = 0, nhe = 0, nh = 0, m = 0; /* before the first goto: every path has them set */
    if (!starts || !rcnt || !scnt || !sdisp || !rdisp)
        st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (distributed matrix)");
    /* a failure on one rank is every rank's before each collective call: none is left waiting */
    if ((st = spk_dist_agree(d->comm, st, err))) goto done;
    /* every rank's first row, to find the owner of a column */
    MPI_CHECK(st, err, MPI_Allgather(&r0, 1, MPI_INT, starts, 1, MPI_INT, d->comm));
    starts[size] = d->n;
    for (int k = 0; k < rows->nnz && !st; k++) {
        const int c = rows->colind[k];
        if (c < 0 || c >= d->n)
            st = spk_err_set(err, SPK_ERR_INVALID_MATRIX, "distributed matrix: column %d outside 0..%d", c, d->n - 1);
        else if (c >= r0 && c < r1)
            nl++;
        else
            nhe++;
    }
    /* the halo columns, sorted and unique: sorted by owner too */
    if (!st && !(cols = malloc(((size_t)nhe + 1) * sizeof(int))))
        st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (distributed matrix)");
    if (st) goto agree;
    for (int k = 0; k < rows->nnz; k++) {
        const int c = rows->colind[k];
        if (c < r0 || c >= r1) cols[m++] = c;
    }
    qsort(cols, (size_t)m, sizeof(int), cmp_int);
    for (int k = 0; k < m; k++)
        if (nh == 0 || cols[k] != cols[nh - 1]) cols[nh++] = cols[k];
    d->nh = nh;
    /* the two blocks in local numbering */
    st = spk_csr_alloc(&d->loc, nloc, nloc, nl, err);
    if (!st) st = spk_csr_alloc(&d->halo, nloc, nh, nhe, err);
    if (st) goto agree;
    for (int i = 0, ql = 0, qh = 0; i < nloc; i++) {
        for (int k = rows->rowptr[i]; k < rows->rowptr[i + 1]; k++) {
            const int c = rows->colind[k];
            if (c >= r0 && c < r1) {
                d->loc.colind[ql] = c - r0;
                d->loc.val[ql++] = rows->val[k];
            } else {
                const int *at = bsearch(&c, cols, (size_t)nh, sizeof(int), cmp_int);
                d->halo.colind[qh] = (int)(at - cols); /* columns stay sorted: cols is sorted */
                d->halo.val[qh++] = rows->val[k];
            }
        }
        d->loc.rowptr[i + 1] = ql;
        d->halo.rowptr[i + 1] = qh;
    }
agree:
    if ((st = spk_dist_agree(d->comm, st, err))) goto done;
    /* what we receive from whom, then tell the owners what to send */
    for (int k = 0; k < nh; k++) rcnt[spk_dist_owner(starts, size, cols[k])]++;
    MPI_CHECK(st, err, MPI_Alltoall(rcnt, 1, MPI_INT, scnt, 1, MPI_INT, d->comm));
    int ns = 0;
    for (int r = 0; r < size; r++) {
        rdisp[r] = r ? rdisp[r - 1] + rcnt[r - 1] : 0;
        sdisp[r] = r ? sdisp[r - 1] + scnt[r - 1] : 0;
        ns += scnt[r];
    }
    d->send_idx = malloc(((size_t)ns + 1) * sizeof(int));
    d->recv_rank = malloc((size_t)size * sizeof(int));
    d->recv_off = malloc(((size_t)size + 1) * sizeof(int));
    d->send_rank = malloc((size_t)size * sizeof(int));
    d->send_off = malloc(((size_t)size + 1) * sizeof(int));
    d->xh = malloc(((size_t)nh + 1) * sizeof(double));
    d->sbuf = malloc(((size_t)ns + 1) * sizeof(double));
    d->req = malloc(2 * (size_t)size * sizeof(MPI_Request));
    if (!d->send_idx || !d->recv_rank || !d->recv_off || !d->send_rank || !d->send_off || !d->xh || !d->sbuf ||
        !d->req)
        st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (distributed matrix)");
    if ((st = spk_dist_agree(d->comm, st, err))) goto done;
    MPI_CHECK(st, err, MPI_Alltoallv(cols, rcnt, rdisp, MPI_INT, d->send_idx, scnt, sdisp, MPI_INT, d->comm));
    for (int k = 0; k < ns; k++) {
        if (d->send_idx[k] < r0 || d->send_idx[k] >= r1) {
            st = spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                             "distributed matrix: a rank asked rank %d for column %d, which it does not own "
                             "(are the row blocks contiguous and in rank order?)",
                             d->rank, d->send_idx[k]);
            goto done;
        }
        d->send_idx[k] -= r0;
    }
    for (int r = 0; r < size; r++) {
        if (rcnt[r]) {
            d->recv_rank[d->nrecv] = r;
            d->recv_off[d->nrecv++] = rdisp[r];
        }
        if (scnt[r]) {
            d->send_rank[d->nsend] = r;
            d->send_off[d->nsend++] = sdisp[r];
        }
    }
    d->recv_off[d->nrecv] = nh;
    d->send_off[d->nsend] = ns;
done:
    free(starts);
    free(cols);
    free(rcnt);
    free(scnt);
    free(sdisp);
    free(rdisp);
    return st;
}

void spk_dist_destroy(spk_dist *d)
{
    if (!d) return;
    if (d->L) d->lops->destroy(d->L);
    if (d->H) d->hops->destroy(d->H);
    spk_csr_free(&d->loc);
    spk_csr_free(&d->halo);
    free(d->recv_rank);
    free(d->recv_off);
    free(d->send_rank);
    free(d->send_off);
    free(d->send_idx);
    free(d->xh);
    free(d->sbuf);
    free(d->req);
    free(d);
}

int spk_dist_create(spk_exec *e, int n, int row_begin, const spk_csr *rows, const char *format, spk_dist **out)
{
    if (!out || !e) return SPK_ERR_INVALID_ARG;
    *out = NULL;
    spk_err *err = e->err;
    MPI_Comm comm = spk_exec_mpi_comm(e);
    if (comm == MPI_COMM_NULL)
        return spk_err_set(err, SPK_ERR_INVALID_ARG, "spk_dist_create: the executor is not the MPI executor");
    /* a bad argument or matrix on one rank fails every rank (collectives follow) */
    int st = SPK_OK;
    spk_dist *d = NULL;
    if (!rows || n < 0 || row_begin < 0 || rows->nrows < 0 || row_begin > n - rows->nrows || rows->ncols != n)
        st = spk_err_set(err, SPK_ERR_INVALID_ARG,
                         "spk_dist_create: rows %d.. of a %d x %d matrix do not fit (the rows have %d columns)",
                         row_begin, n, n, rows ? rows->ncols : -1);
    if (!st) st = spk_csr_validate(rows, 1, err);
    if (!st && !(d = calloc(1, sizeof *d))) st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (distributed matrix)");
    if ((st = spk_dist_agree(comm, st, err))) {
        free(d);
        return st;
    }
    d->e = e;
    d->comm = comm;
    MPI_Comm_size(comm, &d->size);
    MPI_Comm_rank(comm, &d->rank);
    d->n = n;
    d->nloc = rows->nrows;
    d->row_begin = row_begin;
    st = plan(d, rows);
    spk_spmv_opts so;
    memset(&so, 0, sizeof so);
    if (!st) st = spk_spmv_find(format, e, &d->lops, err);
    if (!st) st = d->lops->create(e, &d->loc, &so, &d->L);
    if (!st && d->nh > 0) st = spk_spmv_find(format, e, &d->hops, err);
    if (!st && d->nh > 0) st = d->hops->create(e, &d->halo, &so, &d->H);
    st = spk_dist_agree(comm, st, err); /* a format refused on one rank: on every rank */
    if (st) {
        spk_dist_destroy(d);
        return st;
    }
    *out = d;
    return SPK_OK;
}

int spk_dist_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    spk_dist *d = impl;
    spk_err *err = d->e->err;
    int nr = 0;
    for (int k = 0; k < d->nrecv; k++)
        MPI_TRY(err, MPI_Irecv(d->xh + d->recv_off[k], d->recv_off[k + 1] - d->recv_off[k], MPI_DOUBLE,
                               d->recv_rank[k], 17, d->comm, &d->req[nr++]));
    for (int k = 0; k < d->nsend; k++) {
        for (int q = d->send_off[k]; q < d->send_off[k + 1]; q++) d->sbuf[q] = x[d->send_idx[q]];
        MPI_TRY(err, MPI_Isend(d->sbuf + d->send_off[k], d->send_off[k + 1] - d->send_off[k], MPI_DOUBLE,
                               d->send_rank[k], 17, d->comm, &d->req[nr++]));
    }
    /* the local block while the halo travels */
    int st = d->lops->apply(d->L, alpha, x, beta, y);
    int rc = MPI_Waitall(nr, d->req, MPI_STATUSES_IGNORE);
    SPK_TRY(st);
    if (rc != MPI_SUCCESS) return mpi_fail(err, "MPI_Waitall", rc);
    if (d->H) SPK_TRY(d->hops->apply(d->H, alpha, d->xh, 1.0, y));
    return SPK_OK;
}

static void dist_destroy_impl(void *impl)
{
    spk_dist_destroy(impl);
}

static void dist_stats(const void *impl, spk_spmv_stats *s)
{
    const spk_dist *d = impl;
    memset(s, 0, sizeof *s);
    snprintf(s->detail, sizeof s->detail, "distributed: %d local rows, %d halo entries from %d ranks", d->nloc, d->nh,
             d->nrecv);
}

const spk_csr *spk_dist_local_block(const spk_dist *d)
{
    return d ? &d->loc : NULL;
}

spk_exec *spk_dist_exec(const spk_dist *d)
{
    return d ? d->e : NULL;
}

void spk_dist_halo(const spk_dist *d, int *entries, int *neighbours)
{
    if (entries) *entries = d ? d->nh : 0;
    if (neighbours) *neighbours = d ? d->nrecv : 0;
}

/* create is NULL: a distributed matrix is made by spk_dist_create; the
 * distributed solves run in double (no apply_float) */
const struct spk_spmv_ops spk_dist_spmv = {
    "dist", "host", "distributed rows with halo exchange (MPI)", NULL, spk_dist_apply, NULL, dist_destroy_impl,
    dist_stats, NULL, NULL,
};
