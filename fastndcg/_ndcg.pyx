# NDCG kernels over CSR queries.
#
# Layers: per-query `cdef ... noexcept nogil` functions that take base
# pointers plus a length and write only their own query's output row; `def`
# batch drivers that run `prange` over queries with per-thread scratch; the
# Python wrappers in `_api.py` that validate, resolve the convention into
# tables, and allocate outputs. Nothing here reduces across queries, so
# results are bit-identical for any thread count. Inputs are assumed valid.
#
# Cutoffs arrive sorted ascending and unique; "the whole list" is a cutoff
# larger than any query. All sums are in double, in rank order.
from cython cimport floating
from cython.parallel cimport parallel, prange
from libc.math cimport NAN, log2
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc


cdef extern from *:
    # GCC/Clang builtin; a hint only, it never faults.
    void __builtin_prefetch(const void* addr, int rw, int locality) noexcept nogil

from fastndcg._rank cimport (RankedDoc, gain_of, label_t, ranked_score, select_top,
                             sort_docs)

# Tie modes (kept in sync with _api.TIE_CODES).
cdef enum:
    TIES_INPUT = 0      # stable or by key: the comparator decides
    TIES_AVERAGE = 1
    TIES_WORST = 2
    TIES_BEST = 3

# Empty-query values (kept in sync with _api.EMPTY_CODES).
cdef enum:
    EMPTY_ZERO = 0
    EMPTY_ONE = 1
    EMPTY_NAN = 2


def discount_table(int kind, Py_ssize_t n):
    """D(r) for r = 1..n with libc log2 (so LambdaMART can match C++ bit for bit).

    kind: 0 log2 (1/log2(r+1)), 1 letor (1 for r <= 2, then 1/log2 r), 2 reciprocal (1/r).
    """
    import numpy as np
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] d = out
    cdef Py_ssize_t i
    for i in range(n):
        if kind == 0:
            d[i] = 1.0 / log2(2.0 + <double>i)
        elif kind == 1:
            d[i] = 1.0 if i < 2 else 1.0 / log2(1.0 + <double>i)
        else:
            d[i] = 1.0 / (1.0 + <double>i)
    return out


cdef inline void _cumulate(const double* ranked, Py_ssize_t n, bint whole,
                           const double* disc, const int64_t* cutoffs, Py_ssize_t n_cut,
                           double* out_row) noexcept nogil:
    # out_row[j] = sum_{r < min(cutoffs[j], n)} ranked[r] * disc[r]  (or all n when whole)
    cdef Py_ssize_t j, r = 0, depth
    cdef double acc = 0.0
    for j in range(n_cut):
        depth = n if whole or cutoffs[j] > n else cutoffs[j]
        while r < depth:
            acc = acc + ranked[r] * disc[r]
            r += 1
        out_row[j] = acc


cdef void _ideal_one_query(const label_t* labels, Py_ssize_t n,
                           const double* table, bint linear,
                           const int64_t* levels_desc, Py_ssize_t n_levels, int64_t* counts,
                           const double* disc, const int64_t* cutoffs, Py_ssize_t n_cut,
                           bint whole, double* out_row,
                           double* gbuf, RankedDoc* docs) noexcept nogil:
    cdef Py_ssize_t i, p, li, depth
    cdef int64_t c, lv
    cdef double g
    if n == 0:
        for i in range(n_cut):
            out_row[i] = 0.0
        return
    depth = n if whole or cutoffs[n_cut - 1] > n else cutoffs[n_cut - 1]
    if counts != NULL:
        # Integer labels with a small gain table: count per level, then emit
        # levels in gain-descending order (no sort). Two interleaved counter
        # banks avoid a store-to-load stall on runs of equal labels.
        i = 0
        while i + 1 < n:
            counts[<Py_ssize_t>labels[i]] += 1
            counts[n_levels + <Py_ssize_t>labels[i + 1]] += 1
            i += 2
        if i < n:
            counts[<Py_ssize_t>labels[i]] += 1
        p = 0
        for li in range(n_levels):
            lv = levels_desc[li]
            c = counts[lv] + counts[n_levels + lv]
            counts[lv] = 0
            counts[n_levels + lv] = 0
            g = table[lv]
            while c > 0 and p < depth:
                gbuf[p] = g
                p += 1
                c -= 1
    else:
        for i in range(n):
            gbuf[i] = gain_of(labels[i], table, linear)
        select_top(gbuf, <const int64_t*>NULL, False, False, n, depth, docs)
        for p in range(depth):
            gbuf[p] = docs[p].score
    _cumulate(gbuf, depth, whole, disc, cutoffs, n_cut, out_row)


cdef void _resolve_ties(const floating* scores, const label_t* labels, Py_ssize_t n, Py_ssize_t m,
                        bint round_f32, const double* table, bint linear, int tie_mode,
                        RankedDoc* docs, RankedDoc* group, double* gbuf) noexcept nogil:
    # Rewrites gbuf[0..m) for average / worst / best ties. Every document
    # scoring above docs[m-1] is among the m selected, so only the last group
    # can have members beyond the selection; those are gathered by a scan.
    cdef Py_ssize_t r = 0, e, t, cnt, i
    cdef double s, total, g
    while r < m:
        s = docs[r].score
        e = r + 1
        while e < m and docs[e].score == s:
            e += 1
        if e == m and m < n:
            cnt = 0
            for i in range(n):
                if ranked_score(scores[i], round_f32) == s:
                    g = gain_of(labels[i], table, linear)
                    group[cnt].score = -g if tie_mode == TIES_WORST else g
                    group[cnt].key = i
                    group[cnt].idx = i
                    cnt += 1
        elif e - r > 1:
            cnt = e - r
            for t in range(cnt):
                g = gbuf[r + t]
                group[t].score = -g if tie_mode == TIES_WORST else g
                group[t].key = t
                group[t].idx = t
        else:
            r = e
            continue
        if tie_mode == TIES_AVERAGE:
            total = 0.0
            for t in range(cnt):
                total = total + group[t].score
            total = total / cnt
            for t in range(r, e):
                gbuf[t] = total
        else:
            sort_docs(group, cnt)
            for t in range(r, e):
                g = group[t - r].score
                gbuf[t] = -g if tie_mode == TIES_WORST else g
        r = e


cdef void _dcg_one_query(const floating* scores, const label_t* labels, const int64_t* keys,
                         bint key_desc, Py_ssize_t n, bint round_f32,
                         const double* table, bint linear, int tie_mode,
                         const double* disc, const int64_t* cutoffs, Py_ssize_t n_cut,
                         double* out_row, RankedDoc* docs, RankedDoc* group,
                         double* gbuf) noexcept nogil:
    cdef Py_ssize_t r, m
    if n == 0:
        for r in range(n_cut):
            out_row[r] = 0.0
        return
    m = n if cutoffs[n_cut - 1] > n else cutoffs[n_cut - 1]
    # The labels of the top m are gathered at scattered rows after the
    # selection; ask for the query's label lines now, so that their cache
    # misses overlap the selection instead of following it.
    for r in range(0, n * sizeof(label_t), 64):
        __builtin_prefetch((<const char*>labels) + r, 0, 3)
    select_top(scores, keys, key_desc, round_f32, n, m, docs)
    for r in range(m):
        gbuf[r] = gain_of(labels[docs[r].idx], table, linear)
    if tie_mode != TIES_INPUT:
        _resolve_ties(scores, labels, n, m, round_f32, table, linear, tie_mode, docs, group, gbuf)
    _cumulate(gbuf, m, False, disc, cutoffs, n_cut, out_row)


cdef int64_t* _new_counts(Py_ssize_t n_levels) noexcept nogil:
    # Zeroed per-thread counters for the counting ideal (two banks); NULL when
    # there are no levels (or on allocation failure, which callers check).
    cdef Py_ssize_t i
    cdef int64_t* counts = NULL
    if n_levels > 0:
        counts = <int64_t*>malloc(2 * n_levels * sizeof(int64_t))
        if counts != NULL:
            for i in range(2 * n_levels):
                counts[i] = 0
    return counts


def ideal_dcg_batch(const label_t[::1] labels,              # IN
                    const int64_t[::1] offsets,             # IN
                    const double[::1] table,                # IN gain table (unused if linear)
                    bint linear,
                    const int64_t[::1] levels_desc,         # IN table levels by gain desc; empty: no counting
                    const double[::1] disc,                 # IN D(r), r = 1..
                    const int64_t[::1] cutoffs,             # IN sorted, unique
                    bint whole,                             # ideal not cut at k
                    double[:, ::1] out,                     # OUT (n_queries, n_cutoffs)
                    Py_ssize_t max_n, int n_threads):
    cdef Py_ssize_t q, n_queries = offsets.shape[0] - 1
    cdef Py_ssize_t n_cut = cutoffs.shape[0], n_levels = levels_desc.shape[0]
    cdef const label_t* lab = &labels[0] if labels.shape[0] > 0 else NULL
    cdef const double* tab = &table[0] if table.shape[0] > 0 else NULL
    cdef const int64_t* lev = &levels_desc[0] if n_levels > 0 else NULL
    cdef const double* dsc = &disc[0] if disc.shape[0] > 0 else NULL
    cdef const int64_t* cut = &cutoffs[0]
    cdef const int64_t* off = &offsets[0]
    cdef double* gbuf
    cdef RankedDoc* docs
    cdef int64_t* counts
    cdef int failed = 0
    cdef int* failed_flag = &failed   # written through a pointer: shared, not thread-private
    cdef Py_ssize_t i
    if n_queries == 0:
        return
    with nogil, parallel(num_threads=n_threads):
        gbuf = <double*>malloc((max_n + 1) * sizeof(double))
        docs = <RankedDoc*>malloc((max_n + 1) * sizeof(RankedDoc))
        counts = _new_counts(n_levels)
        if gbuf == NULL or docs == NULL or (n_levels > 0 and counts == NULL):
            failed_flag[0] = 1
        else:
            for q in prange(n_queries, schedule="dynamic", chunksize=32):
                _ideal_one_query(lab + off[q], off[q + 1] - off[q], tab, linear, lev, n_levels,
                                 counts, dsc, cut, n_cut, whole, &out[q, 0], gbuf, docs)
        free(gbuf)
        free(docs)
        free(counts)
    if failed:
        raise MemoryError("fastndcg: could not allocate per-thread scratch")


def ndcg_batch(const floating[::1] scores,                  # IN
               const label_t[::1] labels,                   # IN
               const int64_t[::1] offsets,                  # IN
               const int64_t[::1] tie_key,                  # IN empty unless ties by key
               bint key_desc, bint round_f32,
               const double[::1] table, bint linear, int tie_mode,
               const double[::1] disc,                      # IN
               const int64_t[::1] cutoffs,                  # IN sorted, unique
               const int64_t[::1] short_limit,              # IN per cutoff: n < limit -> 0
               double[:, ::1] idcg,                         # IN (n_queries, n_cutoffs), OUT if fuse_ideal;
                                                            #    empty: DCG only
               int empty_code,
               double[:, ::1] dcg_out,                      # OUT (n_queries, n_cutoffs)
               double[:, ::1] ndcg_out,                     # OUT same, unused when idcg is empty
               Py_ssize_t max_n, int n_threads,
               bint fuse_ideal=False,                       # compute idcg here, query by query
               const int64_t[::1] levels_desc=None,         # IN as ideal_dcg_batch (fuse_ideal only)
               bint ideal_whole=False,                      # ideal not cut at k (fuse_ideal only)
               const double[::1] ideal_disc=None):          # IN D(r) deep enough for the ideal
    """DCG and NDCG per query; with ``fuse_ideal`` also the ideal DCG (exactly
    as ``ideal_dcg_batch``), computed just before the query is ranked, while
    its labels are in cache: a one-shot call then reads its inputs once."""
    cdef Py_ssize_t q, j, n, n_queries = offsets.shape[0] - 1
    cdef Py_ssize_t n_cut = cutoffs.shape[0]
    cdef bint with_ndcg = idcg.shape[0] > 0
    cdef const floating* sc = &scores[0] if scores.shape[0] > 0 else NULL
    cdef const label_t* lab = &labels[0] if labels.shape[0] > 0 else NULL
    cdef const int64_t* keys = &tie_key[0] if tie_key.shape[0] > 0 else NULL
    cdef const double* tab = &table[0] if table.shape[0] > 0 else NULL
    cdef const double* dsc = &disc[0] if disc.shape[0] > 0 else NULL
    cdef const int64_t* cut = &cutoffs[0]
    cdef const int64_t* lim = &short_limit[0]
    cdef const int64_t* off = &offsets[0]
    cdef Py_ssize_t n_levels = 0
    cdef const int64_t* lev = NULL
    cdef const double* idsc = NULL
    cdef double empty_value = 0.0 if empty_code == EMPTY_ZERO else (1.0 if empty_code == EMPTY_ONE else NAN)
    cdef double* gbuf
    cdef RankedDoc* docs
    cdef RankedDoc* group
    cdef int64_t* counts
    cdef double ideal
    cdef int failed = 0
    cdef int* failed_flag = &failed   # written through a pointer: shared, not thread-private
    if n_queries == 0:
        return
    if fuse_ideal:
        if not with_ndcg or levels_desc is None or ideal_disc is None:
            raise ValueError("fuse_ideal needs idcg, levels_desc and ideal_disc")
        n_levels = levels_desc.shape[0]
        lev = &levels_desc[0] if n_levels > 0 else NULL
        idsc = &ideal_disc[0] if ideal_disc.shape[0] > 0 else NULL
    with nogil, parallel(num_threads=n_threads):
        gbuf = <double*>malloc((max_n + 1) * sizeof(double))
        docs = <RankedDoc*>malloc((max_n + 1) * sizeof(RankedDoc))
        group = NULL
        if tie_mode != TIES_INPUT:
            group = <RankedDoc*>malloc((max_n + 1) * sizeof(RankedDoc))
        counts = _new_counts(n_levels)
        if (gbuf == NULL or docs == NULL or (tie_mode != TIES_INPUT and group == NULL)
                or (n_levels > 0 and counts == NULL)):
            failed_flag[0] = 1
        else:
            for q in prange(n_queries, schedule="dynamic", chunksize=32):
                n = off[q + 1] - off[q]
                if fuse_ideal:
                    _ideal_one_query(lab + off[q], n, tab, linear, lev, n_levels, counts, idsc,
                                     cut, n_cut, ideal_whole, &idcg[q, 0], gbuf, docs)
                _dcg_one_query(sc + off[q], lab + off[q], keys + off[q] if keys != NULL else NULL,
                               key_desc, n, round_f32, tab, linear, tie_mode, dsc, cut, n_cut,
                               &dcg_out[q, 0], docs, group, gbuf)
                if with_ndcg:
                    for j in range(n_cut):
                        ideal = idcg[q, j]
                        if n < lim[j]:
                            ndcg_out[q, j] = 0.0
                        elif ideal > 0.0:
                            ndcg_out[q, j] = dcg_out[q, j] / ideal
                        else:
                            ndcg_out[q, j] = empty_value
        free(gbuf)
        free(docs)
        free(group)
        free(counts)
    if failed:
        raise MemoryError("fastndcg: could not allocate per-thread scratch")
