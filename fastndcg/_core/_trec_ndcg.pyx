# trec_eval's prefix NDCG measures: ndcg_rel, Rndcg and ndcg_p, per topic.
#
# One parallel pass over topics (CSR). Each topic's documents are ranked with
# the package's one comparator (_rank.pxd: score descending, then tie key,
# then position; trec_eval's docno-descending order is key_desc on the docno
# rank), then walked once in rank order against the topic's ideal walk (the
# gains of trec_eval's ideal ranking, resolved in Python by
# fastndcg.measures._trec_gain_resolution). The sums are trec_eval's, in its order and with its
# arithmetic (gain / log2(rank + 1), C division, so a zero ideal gives inf or
# NaN where trec_eval's does). Each topic writes only its own output slots;
# nothing reduces across topics, so results do not depend on the threads.
# The pure-Python spec is fastndcg/reference/_trec_ndcg.py.
from cython.parallel cimport parallel, prange
from libc.math cimport log2
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from fastndcg._core._kernel_plan cimport CompiledPlan, ConventionPlan, plan_score
from fastndcg._core._rank cimport RankedDoc, make_doc, sort_docs


cdef void _rank_gains(const double* scores, const int64_t* keys, const ConventionPlan* c,
                      const double* gains, Py_ssize_t n, RankedDoc* docs, double* ranked) noexcept nogil:
    """The topic's gains in rank order."""
    cdef Py_ssize_t i
    for i in range(n):
        make_doc(&docs[i], plan_score(scores[i], c), keys, c.key_desc, i)
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


cdef class PrefixTopics:
    """The topics of the prefix measures, set up once: the compiled kernel plan of the
    convention (its tie direction and float32 ranking), each topic's documents (scores,
    ``tie_key`` int64 or None for input order, trec_eval ``gains``) over ``offsets``, then
    (:meth:`set_walks`) the ideal walks. Inputs are trusted (checked in Python)."""

    cdef const double[::1] scores
    cdef const double[::1] gains
    cdef const int64_t[::1] offsets
    cdef const int64_t[::1] tie_key
    cdef CompiledPlan plan
    cdef bint has_key
    cdef Py_ssize_t max_n, n_topics
    cdef const double[::1] walk
    cdef const int64_t[::1] walk_offsets
    cdef const double[::1] walk_p
    cdef const int64_t[::1] walk_p_offsets
    cdef const int64_t[::1] n_rel
    cdef const int64_t[::1] rel_ret
    cdef bint has_walks

    def __init__(self, CompiledPlan plan not None, const double[::1] scores, tie_key, const double[::1] gains,
                 const int64_t[::1] offsets):
        cdef Py_ssize_t q
        self.scores = scores
        self.gains = gains
        self.offsets = offsets
        self.has_key = tie_key is not None
        if self.has_key:
            self.tie_key = tie_key
        self.plan = plan
        self.n_topics = offsets.shape[0] - 1
        self.max_n = 0
        for q in range(self.n_topics):
            if offsets[q + 1] - offsets[q] > self.max_n:
                self.max_n = offsets[q + 1] - offsets[q]
        self.has_walks = False

    def set_walks(self, const double[::1] walk, const int64_t[::1] walk_offsets, const double[::1] walk_p,
                  const int64_t[::1] walk_p_offsets, const int64_t[::1] n_rel, const int64_t[::1] rel_ret):
        """The gains of each topic's ideal walk (``walk_p``: that of ndcg_p); ``n_rel``: the
        judged documents at or above the relevance level (Rndcg is 0 without any);
        ``rel_ret``: the retrieved ones (ndcg_p is 0 without any)."""
        self.walk = walk
        self.walk_offsets = walk_offsets
        self.walk_p = walk_p
        self.walk_p_offsets = walk_p_offsets
        self.n_rel = n_rel
        self.rel_ret = rel_ret
        self.has_walks = True


def prefix_measures(PrefixTopics topics, double[::1] ndcg_rel, double[::1] rndcg, double[::1] ndcg_p,
                    int n_threads):
    """ndcg_rel, Rndcg and ndcg_p of every topic of ``topics`` (each output of length
    0 is not computed). Returns False, or True when per-thread scratch could not be
    allocated."""
    cdef Py_ssize_t nq = topics.n_topics, q, n, a
    cdef bint want_rel = ndcg_rel.shape[0] > 0, want_r = rndcg.shape[0] > 0, want_p = ndcg_p.shape[0] > 0
    if not topics.has_walks:
        raise ValueError("prefix_measures: call topics.set_walks(...) first")
    for name, out in (("ndcg_rel", ndcg_rel), ("rndcg", rndcg), ("ndcg_p", ndcg_p)):
        if out.shape[0] not in (0, nq):
            raise ValueError(f"prefix_measures: {name} must have 0 or {nq} entries; got {out.shape[0]}")
    cdef const int64_t* keys = &topics.tie_key[0] if topics.has_key and topics.tie_key.shape[0] > 0 else NULL
    cdef const double* sp = &topics.scores[0] if topics.scores.shape[0] > 0 else NULL
    cdef const double* gp = &topics.gains[0] if topics.gains.shape[0] > 0 else NULL
    cdef const double* wp = &topics.walk[0] if topics.walk.shape[0] > 0 else NULL
    cdef const double* wpp = &topics.walk_p[0] if topics.walk_p.shape[0] > 0 else NULL
    cdef const int64_t[::1] offsets = topics.offsets
    cdef const int64_t[::1] walk_offsets = topics.walk_offsets
    cdef const int64_t[::1] walk_p_offsets = topics.walk_p_offsets
    cdef const int64_t[::1] n_rel = topics.n_rel
    cdef const int64_t[::1] rel_ret = topics.rel_ret
    cdef const ConventionPlan* c = &topics.plan.c
    cdef Py_ssize_t max_n = topics.max_n
    cdef RankedDoc* docs
    cdef double* ranked
    cdef int failed = 0
    cdef int* failed_flag = &failed
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
                _rank_gains(sp + a, keys + a if keys != NULL else NULL, c, gp + a, n,
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
