# SoftNDCG (SoftRank, Taylor et al. 2008) kernels over CSR queries.
#
# Layers, as in _ndcg.pyx: a per-query core on double arrays
# (`noexcept nogil`), `def` batch drivers that run `prange` over queries with
# per-thread malloc scratch, and the Python wrappers in softrank.py that
# validate, resolve the convention (gain table, discount table, ideal DCG)
# and allocate outputs. A query is handled by one thread from start to end
# and writes only its own rows, so results are bit-identical for any thread
# count. Inputs are assumed valid.
#
# For one query (m documents taking part, cut K = min(k, m)):
#   pi_ij  = P(S_i > S_j) = erfc((s_j - s_i) / (2 sigma)) / 2, S ~ N(s, sigma^2)
#            (the smaller of pi_ij, pi_ji by erfc, the other as 1 minus it)
#   p_j    = rank-binomial distribution of j's 0-based rank, truncated to r < K
#            (exact: r < K only ever reads r' <= r);
#   SoftDCG = sum_j g_j sum_{r<K} D[r] p_j(r),  D[r] = D(r + 1).
# The gradient differentiates the recursion in reverse mode: the forward pass
# keeps every prefix distribution p_j^(t) (m rows of K), the backward pass
# carries the adjoint a(r) = d(g_j sum D p_j) / d p_j^(t)(r) down the steps and
# reads off d/d pi_ij = sum_r p_j^(t-1)(r) (a(r+1) - a(r)). Cost O(m^2 K) time
# and O(m K) memory per query (plus O(m^2) for the hessian approximation).
from cython cimport floating
from cython.parallel cimport parallel, prange
from libc.math cimport erfc, exp, fabs
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from fastndcg._core._kernel_plan cimport CompiledPlan, ConventionPlan, plan_gain, plan_short
from fastndcg._core._rank cimport RankedDoc, label_t, select_top

cdef double SQRT_PI = 1.7724538509055160272981674833411
# pi for every pair is cached (one erfc per unordered pair) when the longest
# query's m*m doubles fit this budget per thread (16 MiB); else per row.
cdef Py_ssize_t PAIR_CACHE_DOUBLES = 1 << 21


def _set_pair_cache_limit(Py_ssize_t doubles):
    """Test hook: set the pair-cache budget (doubles per thread); returns the old one.

    Both paths compute every pi with the same sign-symmetric formula, so
    results are bit-identical with and without the cache.
    """
    global PAIR_CACHE_DOUBLES
    old = PAIR_CACHE_DOUBLES
    PAIR_CACHE_DOUBLES = doubles
    return old


ctypedef struct Scratch:
    RankedDoc* docs       # max_n: top-max_docs selection (NULL when no cap bites)
    unsigned char* keep   # max_n: kept flags (NULL when no cap bites)
    Py_ssize_t* pos       # M: position in the query of each kept document
    double* s             # M: kept scores
    double* g             # M: kept gains
    double* pin           # M: pi_ij for the current j
    double* pout          # M: pi_ji = 1 - pi_ij for the current j
    double* rows          # M*K prefix distributions (2*K without gradient)
    double* adj           # K + 1 adjoint
    double* gacc          # M: gradient accumulator
    double* hacc          # M: hessian accumulator (NULL without hessian)
    double* amat          # M*M: A_ij = d(g_j sum D p_j)/d pi_ij (NULL without hessian)
    double* pmat          # M*M: pi_ij cache (NULL when M*M > PAIR_CACHE_DOUBLES)


cdef void _free_scratch(Scratch* w) noexcept nogil:
    free(w.docs)
    free(w.keep)
    free(w.pos)
    free(w.s)
    free(w.g)
    free(w.pin)
    free(w.pout)
    free(w.rows)
    free(w.adj)
    free(w.gacc)
    free(w.hacc)
    free(w.amat)
    free(w.pmat)


cdef bint _alloc_scratch(Scratch* w, Py_ssize_t max_n, Py_ssize_t big_m, Py_ssize_t big_k,
                         bint select, bint store_rows, bint want_hess) noexcept nogil:
    """Allocate per-thread scratch; False if any allocation failed (free with _free_scratch)."""
    cdef Py_ssize_t nrows = big_m if store_rows else 2
    w.docs = NULL
    w.keep = NULL
    w.hacc = NULL
    w.amat = NULL
    w.pmat = NULL
    if select:
        w.docs = <RankedDoc*>malloc((max_n + 1) * sizeof(RankedDoc))
        w.keep = <unsigned char*>malloc(max_n + 1)
    w.pos = <Py_ssize_t*>malloc((big_m + 1) * sizeof(Py_ssize_t))
    w.s = <double*>malloc((big_m + 1) * sizeof(double))
    w.g = <double*>malloc((big_m + 1) * sizeof(double))
    w.pin = <double*>malloc((big_m + 1) * sizeof(double))
    w.pout = <double*>malloc((big_m + 1) * sizeof(double))
    w.rows = <double*>malloc((nrows * big_k + 1) * sizeof(double))
    w.adj = <double*>malloc((big_k + 2) * sizeof(double))
    w.gacc = <double*>malloc((big_m + 1) * sizeof(double))
    if want_hess:
        w.hacc = <double*>malloc((big_m + 1) * sizeof(double))
        w.amat = <double*>malloc((big_m * big_m + 1) * sizeof(double))
    if big_m * big_m <= PAIR_CACHE_DOUBLES:
        w.pmat = <double*>malloc((big_m * big_m + 1) * sizeof(double))
        if w.pmat == NULL:
            return False
    if select and (w.docs == NULL or w.keep == NULL):
        return False
    if want_hess and (w.hacc == NULL or w.amat == NULL):
        return False
    return not (w.pos == NULL or w.s == NULL or w.g == NULL or w.pin == NULL or w.pout == NULL
                or w.rows == NULL or w.adj == NULL or w.gacc == NULL)


cdef Py_ssize_t _gather(const floating* scores, Py_ssize_t n, Py_ssize_t max_docs,
                        Scratch* w) noexcept nogil:
    """Fill w.pos / w.s with the documents taking part, in input order; return their count.

    All n documents, or (n > max_docs) the max_docs best by the engine
    comparator (score descending, ties in input order).
    """
    cdef Py_ssize_t i, m = 0
    if n <= max_docs:
        for i in range(n):
            w.pos[i] = i
            w.s[i] = <double>scores[i]
        return n
    select_top(scores, <const int64_t*>NULL, False, False, n, max_docs, w.docs)
    memset(w.keep, 0, n)
    for i in range(max_docs):
        w.keep[w.docs[i].idx] = 1
    for i in range(n):
        if w.keep[i]:
            w.pos[m] = i
            w.s[m] = <double>scores[i]
            m += 1
    return m


cdef inline void _pair(double si, double sj, double c, double* pij, double* pji) noexcept nogil:
    """pi_ij = P(S_i > S_j) = erfc((s_j - s_i) c) / 2 (c = 1 / (2 sigma)) and pi_ji = 1 - pi_ij.

    The smaller of the two comes from erfc of a non-negative argument (full
    relative precision in the tail), the larger as 1 minus it: one erfc.
    """
    cdef double z = (sj - si) * c, t
    if z >= 0.0:
        t = 0.5 * erfc(z)
        pij[0] = t
        pji[0] = 1.0 - t
    else:
        t = 0.5 * erfc(-z)
        pji[0] = t
        pij[0] = 1.0 - t


cdef inline Py_ssize_t _forward(Py_ssize_t m, Py_ssize_t j, Py_ssize_t K, bint store,
                                Scratch* w) noexcept nogil:
    """The forward pass of document j (w.pin, w.pout hold its pi): row t of w.rows holds p_j
    after t of the other documents, support r < min(t + 1, K); every row is kept with
    ``store`` (the backward pass reads them), else two rows alternate. Returns the support
    of the last row, row m - 1."""
    cdef Py_ssize_t i, r, t = 0, L = 1
    cdef double a, b
    cdef double* rows = w.rows
    cdef double* prev
    cdef double* nxt
    rows[0] = 1.0
    for i in range(m):
        if i == j:
            continue
        if store:
            prev = rows + t * K
            nxt = rows + (t + 1) * K
        else:
            prev = rows + (t & 1) * K
            nxt = rows + ((t + 1) & 1) * K
        a = w.pin[i]
        b = w.pout[i]
        nxt[0] = prev[0] * b
        for r in range(1, L):
            nxt[r] = prev[r - 1] * a + prev[r] * b
        if L < K:
            nxt[L] = prev[L - 1] * a
            L += 1
        t += 1
    return L


cdef inline void _soft_hessian(Py_ssize_t m, double c, double norm, Scratch* w) noexcept nogil:
    """w.hacc[i] = sum_u |B_iu| psi_iu^2 / (pi_iu pi_ui), from the A_iu the backward passes
    left in w.amat (B_iu = A_iu - A_ui)."""
    cdef Py_ssize_t i, j
    cdef double h, bij, z, psi, both, a, b
    cdef double* s = w.s
    cdef double* pmat = w.pmat
    for i in range(m):
        h = 0.0
        for j in range(m):
            if j == i:
                continue
            bij = w.amat[i * m + j] - w.amat[j * m + i]
            if s[i] == s[j] and w.g[i] == w.g[j]:
                bij = 0.0                    # interchangeable (see the gradient)
            z = (s[i] - s[j]) * c
            psi = norm * exp(-z * z)
            if pmat != NULL:
                both = pmat[i * m + j] * pmat[j * m + i]
            else:
                _pair(s[i], s[j], c, &a, &b)
                both = a * b
            if both > 0.0 and psi > 0.0:
                # left to right, as the reference: |B| = 0 gives 0 even where
                # psi * psi overflows (tiny sigma), not 0 * inf = NaN
                h = h + fabs(bij) * psi * psi / both
        w.hacc[i] = h


cdef double _soft_core(Py_ssize_t m, bint with_gain, double sigma, const double* disc,
                       Py_ssize_t big_k, bint want_grad, bint want_hess,
                       double* dist, Py_ssize_t dist_stride, Scratch* w) noexcept nogil:
    """SoftDCG of the m gathered documents (w.s, w.g), cut at big_k ranks.

    With want_grad, w.gacc[t] = d SoftDCG / d s_t; with want_hess,
    w.hacc[t] = sum_u |B_tu| psi_tu^2 / (pi_tu pi_ut). With dist != NULL, the
    rank distribution of document t goes to dist[pos[t] * dist_stride + r].
    Time O(m^2 K); no allocation.
    """
    cdef Py_ssize_t K = big_k if big_k < m else m
    cdef Py_ssize_t i, j, r, t, L, lp
    cdef double c = 0.5 / sigma
    cdef double norm = 1.0 / (2.0 * sigma * SQRT_PI)
    cdef double total = 0.0, v, a, b, d, sj, z, psi
    cdef double* prev
    cdef double* last
    cdef bint store = want_grad
    cdef double* s = w.s
    cdef double* rows = w.rows
    cdef double* adj = w.adj
    cdef double* pmat = w.pmat
    if m == 0 or K == 0:
        return 0.0
    if want_grad:
        for t in range(m):
            w.gacc[t] = 0.0
    if want_hess:
        memset(w.amat, 0, m * m * sizeof(double))
    if pmat != NULL:
        for j in range(m):
            for i in range(j + 1, m):
                _pair(s[i], s[j], c, &pmat[i * m + j], &pmat[j * m + i])
    for j in range(m):
        sj = s[j]
        if pmat != NULL:
            for i in range(m):
                if i != j:
                    w.pin[i] = pmat[i * m + j]
                    w.pout[i] = pmat[j * m + i]
        else:
            for i in range(m):
                if i != j:
                    _pair(s[i], sj, c, &w.pin[i], &w.pout[i])
        L = _forward(m, j, K, store, w)
        t = m - 1         # one step per other document
        last = rows + (t * K if store else (t & 1) * K)
        if dist != NULL:
            for r in range(L):
                dist[w.pos[j] * dist_stride + r] = last[r]
        if not with_gain:
            continue
        v = 0.0
        for r in range(L):
            v = v + disc[r] * last[r]
        total = total + w.g[j] * v
        if not want_grad or w.g[j] == 0.0:
            continue
        # Backward: adjoint of the last row, then undo the steps in reverse.
        # The adjoint is taken for a unit gain and d scaled by G_j afterwards
        # (as the spec does): G_j D(r) can overflow where G_j d does not.
        for r in range(L):
            adj[r] = disc[r]
        adj[K] = 0.0      # mass pushed past the cut weighs nothing
        for i in range(m - 1, -1, -1):
            if i == j:
                continue
            # step t maps row t-1 (support lp) to row t through document i
            prev = rows + (t - 1) * K
            lp = t if t < K else K
            a = w.pin[i]
            b = w.pout[i]
            d = 0.0
            for r in range(lp):
                d = d + prev[r] * (adj[r + 1] - adj[r])
            d = w.g[j] * d
            for r in range(lp):
                adj[r] = adj[r + 1] * a + adj[r] * b
            z = (s[i] - sj) * c
            psi = norm * exp(-z * z)
            # Equal score and gain: i and j are interchangeable, so B_ij = A_ij - A_ji
            # is exactly 0; their two terms are left out rather than cancelled
            # (rounding times psi ~ 1 / sigma would not cancel for a tiny sigma).
            if not (s[i] == sj and w.g[i] == w.g[j]):
                w.gacc[i] += d * psi
                w.gacc[j] -= d * psi
            if want_hess:
                w.amat[i * m + j] = d
            t -= 1
    if want_hess:
        _soft_hessian(m, c, norm, w)
    return total


cdef class SoftNDCGTables:
    """What SoftNDCG reads besides the scores and labels, resolved once per
    dataset (softrank._SoftPlan) and reused by every call: the compiled kernel
    plan (gains, D(r) scaled as Convention.unit_discount, the cut k as its one
    column with its short limit, the empty value) and the ideal DCG."""
    cdef CompiledPlan plan
    cdef Py_ssize_t max_docs          # cap on documents taking part
    cdef const double[::1] idcg       # (n_queries,)
    cdef Py_ssize_t max_n             # the longest query

    def __init__(self, CompiledPlan plan not None, Py_ssize_t max_docs, const double[::1] idcg,
                 Py_ssize_t max_n):
        self.plan = plan
        self.max_docs = max_docs
        self.idcg = idcg
        self.max_n = max_n


def soft_ndcg_batch(SoftNDCGTables tables not None,
                    const floating[::1] scores,             # IN
                    const label_t[::1] labels,              # IN
                    const int64_t[::1] offsets,             # IN
                    double sigma,
                    double[::1] values,                     # OUT (n_queries,)
                    floating[::1] grad,                     # OUT (n_docs,) or empty: no gradient
                    floating[::1] hess,                     # OUT (n_docs,) or empty: no hessian
                    int n_threads):
    """SoftNDCG per query; optionally d SoftNDCG / d s and the hessian approximation."""
    cdef const ConventionPlan* c = &tables.plan.c
    cdef const double[::1] idcg = tables.idcg
    cdef Py_ssize_t kcut = c.cutoffs[0], max_docs = tables.max_docs, max_n = tables.max_n
    cdef Py_ssize_t q, t, n, m, start, n_queries = offsets.shape[0] - 1
    cdef bint want_grad = grad.shape[0] > 0
    cdef bint want_hess = hess.shape[0] > 0
    cdef Py_ssize_t big_m = max_n if max_n < max_docs else max_docs
    cdef Py_ssize_t big_k = kcut if kcut < big_m else big_m
    cdef bint select = max_docs < max_n
    cdef const floating* sc = &scores[0] if scores.shape[0] > 0 else NULL
    cdef const label_t* lab = &labels[0] if labels.shape[0] > 0 else NULL
    cdef const double* dsc = c.disc
    cdef const int64_t* off = &offsets[0]
    cdef floating* gout = &grad[0] if want_grad else NULL
    cdef floating* hout = &hess[0] if want_hess else NULL
    cdef double soft, ideal
    cdef Scratch* w = NULL
    cdef int failed = 0
    cdef int* failed_flag = &failed   # written through a pointer: shared, not thread-private
    if want_hess:
        want_grad = True
    if n_queries == 0:
        return
    if big_k < 1:
        big_k = 1
    with nogil, parallel(num_threads=n_threads, use_threads_if=n_threads > 1):
        w = <Scratch*>malloc(sizeof(Scratch))
        if w == NULL:
            failed_flag[0] = 1
        elif not _alloc_scratch(w, max_n, big_m, big_k, select, want_grad, want_hess):
            failed_flag[0] = 1
        else:
            for q in prange(n_queries, schedule="dynamic", chunksize=1):
                start = off[q]
                n = off[q + 1] - start
                ideal = idcg[q]
                if want_grad:
                    for t in range(n):
                        gout[start + t] = 0.0
                if want_hess:
                    for t in range(n):
                        hout[start + t] = 0.0
                if plan_short(n, 0, c):
                    values[q] = 0.0
                elif not (ideal > 0.0):
                    values[q] = c.empty_value
                else:
                    m = _gather(sc + start, n, max_docs, w)
                    for t in range(m):
                        w.g[t] = plan_gain(lab[start + w.pos[t]], c)
                    soft = _soft_core(m, True, sigma, dsc, kcut, want_grad, want_hess,
                                      <double*>NULL, 0, w)
                    values[q] = soft / ideal
                    if want_grad:
                        for t in range(m):
                            gout[start + w.pos[t]] = <floating>(w.gacc[t] / ideal)
                    if want_hess:
                        for t in range(m):
                            hout[start + w.pos[t]] = <floating>(w.hacc[t] / ideal)
        if w != NULL:
            _free_scratch(w)
            free(w)
    if failed:
        raise MemoryError("fastndcg: could not allocate per-thread SoftNDCG scratch")


def rank_distribution_batch(const floating[::1] scores,     # IN
                            const int64_t[::1] offsets,     # IN
                            double sigma,
                            double[:, ::1] out,             # OUT (n_docs, depth), zero-filled
                            Py_ssize_t max_n, int n_threads):
    """SoftRank rank distributions p_j(r), r < depth, of every document."""
    cdef Py_ssize_t q, n, start, n_queries = offsets.shape[0] - 1
    cdef Py_ssize_t depth = out.shape[1]
    cdef Py_ssize_t big_k = depth if depth < max_n else max_n
    cdef const floating* sc = &scores[0] if scores.shape[0] > 0 else NULL
    cdef const int64_t* off = &offsets[0]
    cdef double* dst = &out[0, 0] if out.shape[0] > 0 and depth > 0 else NULL
    cdef Scratch* w = NULL
    cdef int failed = 0
    cdef int* failed_flag = &failed
    if n_queries == 0 or dst == NULL:
        return
    if big_k < 1:
        big_k = 1
    with nogil, parallel(num_threads=n_threads, use_threads_if=n_threads > 1):
        w = <Scratch*>malloc(sizeof(Scratch))
        if w == NULL:
            failed_flag[0] = 1
        elif not _alloc_scratch(w, max_n, max_n, big_k, False, False, False):
            failed_flag[0] = 1
        else:
            for q in prange(n_queries, schedule="dynamic", chunksize=1):
                start = off[q]
                n = off[q + 1] - start
                _gather(sc + start, n, n, w)
                _soft_core(n, False, sigma, <const double*>NULL, depth, False, False,
                           dst + start * depth, depth, w)
        if w != NULL:
            _free_scratch(w)
            free(w)
    if failed:
        raise MemoryError("fastndcg: could not allocate per-thread SoftRank scratch")
