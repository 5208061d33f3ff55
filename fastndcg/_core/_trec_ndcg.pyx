# trec_eval's prefix NDCG measures: ndcg_rel, Rndcg and ndcg_p, per topic.
#
# One parallel pass over topics (CSR). Each topic's documents are ranked with
# the package's one comparator (_rank.pxd: score descending, then tie key,
# then position; trec_eval's docno-descending order is key_desc on the docno
# rank), then walked once in rank order against the topic's ideal walk (the
# gains of trec_eval's ideal ranking, resolved in Python by
# fastndcg.measures.trec_gains). The sums are trec_eval's, in its order and with its
# arithmetic (gain / log2(rank + 1), C division, so a zero ideal gives inf or
# NaN where trec_eval's does). Each topic writes only its own output slots;
# nothing reduces across topics, so results do not depend on the threads.
# The pure-Python spec is fastndcg/reference/_trec_ndcg.py.
from cython.parallel cimport parallel, prange
from libc.math cimport log2
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from fastndcg._core._rank cimport RankedDoc, make_doc, ranked_score, sort_docs


cdef void _rank_gains(const double* scores, const int64_t* keys, bint key_desc, bint round_f32,
                      const double* gains, Py_ssize_t n, RankedDoc* docs, double* ranked) noexcept nogil:
    """The topic's gains in rank order."""
    cdef Py_ssize_t i
    for i in range(n):
        make_doc(&docs[i], ranked_score(scores[i], round_f32), keys, key_desc, i)
    sort_docs(docs, n)
    for i in range(n):
        ranked[i] = gains[docs[i].idx]


cdef double _ndcg_rel(const double* g, Py_ssize_t n, const double* walk, Py_ssize_t L) noexcept nogil:
    """m_ndcg_rel.c: NDCG at each retrieved document with gain > 0, the
    unretrieved ones at the end of the list, averaged over the walk's length."""
    cdef double dcg = 0.0, idcg = 0.0, s = 0.0
    cdef Py_ssize_t i, n_rel_ret = 0
    for i in range(n):
        if g[i] != 0:
            dcg = dcg + g[i] / log2(<double>(i + 2))
        if i < L:
            idcg = idcg + walk[i] / log2(<double>(i + 2))
        if g[i] > 0:
            s = s + dcg / idcg
            n_rel_ret += 1
    for i in range(n, L):
        idcg = idcg + walk[i] / log2(<double>(i + 2))
    s = s + (<double>(L - n_rel_ret)) * dcg / idcg
    if s > 0.0:
        return s / <double>L
    return 0.0


cdef double _rndcg(const double* g, Py_ssize_t n, const double* walk, Py_ssize_t L) noexcept nogil:
    """m_Rndcg.c: NDCG averaged at the boundaries b where the ideal gain
    changes (and the walk's end b = L), plus b = n when n > L + 1; a
    boundary counts when the ideal DCG there is > 0 (0/0 when none does)."""
    cdef double dcg = 0.0, idcg = 0.0, s = 0.0
    cdef Py_ssize_t i, m = 0, top = n if n > L else L
    cdef bint last = n > L + 1
    for i in range(top + 1):
        # boundary before position i (prefix of i documents)
        if i >= 1 and ((i < L and walk[i] != walk[i - 1]) or i == L or (last and i == n)):
            if idcg > 0.0:
                s = s + dcg / idcg
                m += 1
        if i < n and g[i] != 0:
            dcg = dcg + g[i] / log2(<double>(i + 2))
        if i < L:
            idcg = idcg + walk[i] / log2(<double>(i + 2))
    return s / <double>m


cdef double _ndcg_p(const double* g, Py_ssize_t n, const double* walk, Py_ssize_t L,
                    int64_t rel_ret) noexcept nogil:
    """m_ndcg_p.c: discount 1 at rank 1, 1/log2(r) after."""
    cdef double dcg = 0.0, idcg = 0.0
    cdef Py_ssize_t i
    for i in range(n):
        if g[i] != 0:
            if i > 0:
                dcg = dcg + g[i] / log2(<double>(i + 1))
            else:
                dcg = dcg + g[i]
    for i in range(L):
        if i == 0:
            idcg = idcg + walk[i]
        else:
            idcg = idcg + walk[i] / log2(<double>(i + 1))
    if rel_ret > 0:
        return dcg / idcg
    return 0.0


def prefix_measures(const double[::1] scores, tie_key, bint key_desc, bint round_f32,
                    const double[::1] gains, const int64_t[::1] offsets,
                    const double[::1] walk, const int64_t[::1] walk_offsets,
                    const double[::1] walk_p, const int64_t[::1] walk_p_offsets,
                    const int64_t[::1] n_rel, const int64_t[::1] rel_ret,
                    double[::1] ndcg_rel, double[::1] rndcg, double[::1] ndcg_p,
                    bint want_rel, bint want_r, bint want_p, Py_ssize_t max_n, int n_threads):
    """ndcg_rel, Rndcg and ndcg_p of every topic (those asked for).

    ``scores`` (float64), ``tie_key`` (int64 or None: input order) and the
    documents' trec_eval ``gains`` over ``offsets``; ``walk`` /
    ``walk_offsets`` the gains of each topic's ideal walk (``walk_p``: that of
    ndcg_p); ``n_rel``: the judged documents at or above the relevance level
    (Rndcg is 0 without any); ``rel_ret``: the retrieved ones (ndcg_p is 0
    without any). Inputs are trusted (checked in Python). Returns False, or
    True when per-thread scratch could not be allocated.
    """
    cdef Py_ssize_t nq = offsets.shape[0] - 1, q, n, a
    cdef const int64_t[::1] kv
    cdef const int64_t* keys = NULL
    cdef const double* sp = &scores[0] if scores.shape[0] > 0 else NULL
    cdef const double* gp = &gains[0] if gains.shape[0] > 0 else NULL
    cdef const double* wp = &walk[0] if walk.shape[0] > 0 else NULL
    cdef const double* wpp = &walk_p[0] if walk_p.shape[0] > 0 else NULL
    cdef RankedDoc* docs
    cdef double* ranked
    cdef int failed = 0
    cdef int* failed_flag = &failed
    if tie_key is not None:
        kv = tie_key
        keys = &kv[0] if kv.shape[0] > 0 else NULL
    if nq <= 0:
        return False
    with nogil, parallel(num_threads=n_threads, use_threads_if=n_threads > 1):
        docs = <RankedDoc*>malloc((max_n + 1) * sizeof(RankedDoc))
        ranked = <double*>malloc((max_n + 1) * sizeof(double))
        if docs == NULL or ranked == NULL:
            failed_flag[0] = 1
        else:
            for q in prange(nq, schedule="dynamic", chunksize=16):
                a = offsets[q]
                n = offsets[q + 1] - a
                _rank_gains(sp + a, keys + a if keys != NULL else NULL, key_desc, round_f32, gp + a, n,
                            docs, ranked)
                if want_rel:
                    ndcg_rel[q] = _ndcg_rel(ranked, n, wp + walk_offsets[q],
                                            walk_offsets[q + 1] - walk_offsets[q])
                if want_r:
                    if n_rel[q] == 0:
                        rndcg[q] = 0.0
                    else:
                        rndcg[q] = _rndcg(ranked, n, wp + walk_offsets[q], walk_offsets[q + 1] - walk_offsets[q])
                if want_p:
                    ndcg_p[q] = _ndcg_p(ranked, n, wpp + walk_p_offsets[q],
                                        walk_p_offsets[q + 1] - walk_p_offsets[q], rel_ret[q])
        free(docs)
        free(ranked)
    return failed != 0
