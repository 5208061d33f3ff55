# The aggregate of per-query NDCG: one rule, one summation.
#
# Per query q and cutoff j the aggregate adds num[q, j] / den[q, j]:
#   mean:  num = w'_q NDCG_q, den = w_q    (0 and 0 when NDCG_q is NaN, i.e. skipped;
#          w'_q = 1 for an empty query when empty queries count unweighted)
#   ratio: num = w_q DCG_q (0 where the short rule zeroes the query), den = w_q IDCG_q
# and the sums are exact and correctly rounded (fastndcg._core._exact), so every
# front-end (in memory, streamed, distributed, any thread count) that sums the
# same terms gets the same bits.
from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from fastndcg._core._exact cimport Expansion, exp_add, exp_free, exp_init, exp_merge, exp_round

import numpy as np

DEF BLOCK_QUERIES = 8192


cdef inline void _term(Py_ssize_t q, Py_ssize_t j, Py_ssize_t n_cut, const double* ndcg, const double* dcg,
                       const double* idcg, const int64_t* off, const int64_t* short_limit,
                       const double* weights, bint ratio, bint unweighted_empty,
                       double* num, double* den) noexcept nogil:
    cdef Py_ssize_t i = q * n_cut + j
    cdef double w = weights[q] if weights != NULL else 1.0
    cdef double nd = ndcg[i]
    cdef bint counted = nd == nd
    cdef double wc = w if counted else 0.0
    cdef bint short = (off[q + 1] - off[q]) < short_limit[j]
    if not ratio:
        if unweighted_empty and idcg[i] <= 0.0 and not short:
            num[0] = 1.0 * (nd if counted else 0.0)
        else:
            num[0] = wc * (nd if counted else 0.0)
        den[0] = wc
    else:
        num[0] = wc * (0.0 if short else dcg[i])
        den[0] = wc * idcg[i]


def terms(const double[:, ::1] ndcg, const double[:, ::1] dcg, const double[:, ::1] idcg,
          const int64_t[::1] offsets, const int64_t[::1] short_limit, weights,
          bint ratio, bint unweighted_empty, double[:, ::1] num_out, double[:, ::1] den_out):
    """Fill the per-query terms (n_queries, n_cutoffs) of the aggregate."""
    cdef Py_ssize_t q, j, nq = offsets.shape[0] - 1, nc = short_limit.shape[0]
    cdef const double[::1] w
    cdef const double* wp = NULL
    if weights is not None:
        w = weights
        wp = &w[0] if w.shape[0] > 0 else NULL
    if nq <= 0 or nc == 0:
        return
    with nogil:
        for q in range(nq):
            for j in range(nc):
                _term(q, j, nc, &ndcg[0, 0], &dcg[0, 0], &idcg[0, 0], &offsets[0], &short_limit[0], wp,
                      ratio, unweighted_empty, &num_out[q, j], &den_out[q, j])


cdef void _sum_block(Py_ssize_t q0, Py_ssize_t q1, Py_ssize_t nc, const double* ndcg, const double* dcg,
                     const double* idcg, const int64_t* off, const int64_t* short_limit,
                     const double* weights, bint ratio, bint unweighted_empty,
                     Expansion* acc) noexcept nogil:
    # acc[j] sums num, acc[nc + j] sums den
    cdef Py_ssize_t q, j
    cdef double num, den
    for q in range(q0, q1):
        for j in range(nc):
            _term(q, j, nc, ndcg, dcg, idcg, off, short_limit, weights, ratio, unweighted_empty, &num, &den)
            exp_add(&acc[j], num)
            exp_add(&acc[nc + j], den)


def sums(const double[:, ::1] ndcg, const double[:, ::1] dcg, const double[:, ::1] idcg,
         const int64_t[::1] offsets, const int64_t[::1] short_limit, weights,
         bint ratio, bint unweighted_empty, int n_threads=1):
    """Exact, correctly rounded (sum_q num, sum_q den) per cutoff, two float64
    arrays of n_cutoffs, without materialising the terms. Queries are summed
    in fixed blocks (in parallel with ``n_threads`` > 1); exact partial sums
    merge without rounding, so any thread count gives the same bits."""
    cdef Py_ssize_t nq = offsets.shape[0] - 1, nc = short_limit.shape[0]
    cdef Py_ssize_t n_blocks = (nq + BLOCK_QUERIES - 1) // BLOCK_QUERIES if nq > 0 else 0
    cdef Py_ssize_t b, j, q1, width = 2 * nc
    cdef const double[::1] w
    cdef const double* wp = NULL
    cdef Expansion* acc
    cdef int failed = 0
    num = np.zeros(nc, dtype=np.float64)
    den = np.zeros(nc, dtype=np.float64)
    cdef double[::1] num_v = num
    cdef double[::1] den_v = den
    if weights is not None:
        w = weights
        wp = &w[0] if w.shape[0] > 0 else NULL
    if n_blocks == 0 or nc == 0:
        return num, den
    acc = <Expansion*>malloc(n_blocks * width * sizeof(Expansion))
    if acc == NULL:
        raise MemoryError("fastndcg: could not allocate exact-sum accumulators")
    for b in range(n_blocks * width):
        exp_init(&acc[b])
    with nogil:
        if n_blocks > 1 and n_threads > 1:
            with parallel(num_threads=n_threads):
                for b in prange(n_blocks, schedule="static"):
                    q1 = (b + 1) * BLOCK_QUERIES
                    _sum_block(b * BLOCK_QUERIES, q1 if q1 < nq else nq, nc, &ndcg[0, 0], &dcg[0, 0],
                               &idcg[0, 0], &offsets[0], &short_limit[0], wp, ratio, unweighted_empty,
                               &acc[b * width])
        else:
            for b in range(n_blocks):
                q1 = (b + 1) * BLOCK_QUERIES
                _sum_block(b * BLOCK_QUERIES, q1 if q1 < nq else nq, nc, &ndcg[0, 0], &dcg[0, 0],
                           &idcg[0, 0], &offsets[0], &short_limit[0], wp, ratio, unweighted_empty,
                           &acc[b * width])
        for b in range(1, n_blocks):
            for j in range(width):
                exp_merge(&acc[j], &acc[b * width + j])
        for j in range(nc):
            num_v[j] = exp_round(&acc[j])
            den_v[j] = exp_round(&acc[nc + j])
        for b in range(n_blocks * width):
            failed |= acc[b].failed
            exp_free(&acc[b])
    free(acc)
    if failed:
        raise MemoryError("fastndcg: could not allocate the partials of an exact sum")
    return num, den
