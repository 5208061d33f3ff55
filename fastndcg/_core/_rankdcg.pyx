# RankDCG (Katerenchuk & Rosenberg 2018) over CSR queries.
#
# Same layers as _ndcg.pyx: a per-query `noexcept nogil` function on base
# pointers, a `def` batch driver running `prange` over queries with
# per-thread scratch, and the Python wrapper in rankdcg.py (validation, the
# empty-query rule, allocation). One query per thread, own output slot only:
# bit-identical for any thread count. Inputs are assumed valid.
#
# Per query (n documents, reference y, predictions h), as the original code:
#   ideal order = y descending; rev[p] = dense rank (1 = largest) of the value
#   at position p, D = number of distinct values; relative rank of a document
#   rr = D - dense_rank + 1; s(order) = sum_p rr(order[p]) / rev[p];
#   s_max = s(ideal), s_min = s(reversed ideal); the predicted order is h
#   descending with ties by rr ascending (worst case); value =
#   (s - s_min) / (s_max - s_min), clamped to [0, 1]. All sums in position
#   order, in double, so values equal the original's bit for bit (but for that
#   clamp of a few ulps). O(n log n) per query.
from cython cimport floating
from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from fastndcg._core._rank cimport RankedDoc, sort_docs
from fastndcg._core._kernel_plan cimport CompiledPlan


cdef double _rankdcg_one_query(const double* ref, const floating* pred, Py_ssize_t n,
                               double empty_value, RankedDoc* docs, double* rev,
                               double* rr) noexcept nogil:
    cdef Py_ssize_t i, p
    cdef double dense, distinct, s_max, s_min, s
    if n < 2:
        return empty_value
    # Ideal order: reference descending (the order among equal values is irrelevant).
    for i in range(n):
        docs[i].score = ref[i]
        docs[i].key = i
        docs[i].idx = i
    sort_docs(docs, n)
    dense = 1.0
    rev[0] = 1.0
    for p in range(1, n):
        if docs[p].score != docs[p - 1].score:
            dense += 1.0
        rev[p] = dense
    distinct = dense
    if distinct < 2.0:
        return empty_value
    for p in range(n):
        rr[docs[p].idx] = distinct - rev[p] + 1.0
    s_max = 0.0
    s_min = 0.0
    for p in range(n):
        s_max = s_max + (distinct - rev[p] + 1.0) / rev[p]
    for p in range(n):
        s_min = s_min + (distinct - rev[n - 1 - p] + 1.0) / rev[p]
    # Predicted order: predictions descending, ties by relative rank ascending
    # (the lower reference value first: the worst case).
    for i in range(n):
        docs[i].score = <double>pred[i]
        docs[i].key = <int64_t>rr[i]
        docs[i].idx = i
    sort_docs(docs, n)
    s = 0.0
    for p in range(n):
        s = s + rr[docs[p].idx] / rev[p]
    # s can round a few ulps past s_min or s_max when its terms come in
    # another order (equal rev[p] make such orders equivalent): clamp to
    # [0, 1], the documented range (the original can print -5.9e-16).
    s = (s - s_min) / (s_max - s_min)
    return 0.0 if s < 0.0 else (1.0 if s > 1.0 else s)


def rankdcg_batch(CompiledPlan plan not None,               # the kernel plan (its empty value)
                  const double[::1] reference,              # IN
                  const floating[::1] predictions,          # IN
                  const int64_t[::1] offsets,               # IN
                  double[::1] out,                          # OUT (n_queries,)
                  Py_ssize_t max_n, int n_threads):
    """RankDCG per query; degenerate queries (n < 2 or one distinct reference value) get the plan's
    empty value (RankDCG discounts by its own ranks)."""
    cdef double empty_value = plan.c.empty_value
    cdef Py_ssize_t q, n_queries = offsets.shape[0] - 1
    cdef const double* ref = &reference[0] if reference.shape[0] > 0 else NULL
    cdef const floating* pred = &predictions[0] if predictions.shape[0] > 0 else NULL
    cdef const int64_t* off = &offsets[0]
    cdef RankedDoc* docs = NULL
    cdef double* rev = NULL
    cdef double* rr = NULL
    cdef int failed = 0
    cdef int* failed_flag = &failed   # written through a pointer: shared, not thread-private
    if n_queries == 0:
        return
    with nogil, parallel(num_threads=n_threads, use_threads_if=n_threads > 1):
        docs = <RankedDoc*>malloc((max_n + 1) * sizeof(RankedDoc))
        rev = <double*>malloc((max_n + 1) * sizeof(double))
        rr = <double*>malloc((max_n + 1) * sizeof(double))
        if docs == NULL or rev == NULL or rr == NULL:
            failed_flag[0] = 1
        else:
            for q in prange(n_queries, schedule="dynamic", chunksize=32):
                out[q] = _rankdcg_one_query(ref + off[q] if ref != NULL else NULL,
                                            pred + off[q] if pred != NULL else NULL,
                                            off[q + 1] - off[q], empty_value, docs, rev, rr)
        free(docs)
        free(rev)
        free(rr)
    if failed:
        raise MemoryError("fastndcg: could not allocate per-thread RankDCG scratch")
