# LambdaMART kernels: the research API (pairs and |ΔNDCG|), LightGBM's sigmoid table and ideal DCG,
# and the sequential position-bias updates between rounds (included by _lambdamart_impl.pxi).

# ----------------------------------------------------------------------------- research: pairs


cdef Py_ssize_t _pairs_one_query(const floating* sc, const label_t* lab, const int64_t* keys,
                                 Py_ssize_t n, double inv, bint cut_discount,
                                 const LMParams* p, Scratch* s,
                                 int64_t* out_hi, int64_t* out_lo, int64_t* out_rhi,
                                 int64_t* out_rlo, double* out_delta) noexcept nogil:
    # |dNDCG| of every LambdaMART pair of one query, in pair-loop order.
    cdef Py_ssize_t i, j, hr, lr, c = 0, m
    cdef double dh_, dl_
    cdef QueryIO q
    if n < 2:
        return 0
    m = _pair_rows(n, p.trunc)
    q.n = n
    q.keys = keys
    q.pos = NULL
    _rank_query(sc, lab, &q, p, s)
    for i in range(m):
        for j in range(i + 1, n):
            if s.rg[i] == s.rg[j]:
                continue
            if s.rg[i] > s.rg[j]:
                hr = i
                lr = j
            else:
                hr = j
                lr = i
            dh_ = p.conv.disc[hr]
            dl_ = p.conv.disc[lr]
            if cut_discount:
                if hr >= p.trunc:
                    dh_ = 0.0
                if lr >= p.trunc:
                    dl_ = 0.0
            out_hi[c] = s.docs[hr].idx
            out_lo[c] = s.docs[lr].idx
            out_rhi[c] = hr
            out_rlo[c] = lr
            out_delta[c] = (s.rg[hr] - s.rg[lr]) * fabs(dh_ - dl_) * inv
            c += 1
    return c


def pairs_batch(LambdaMARTSetup setup not None,
                const floating[::1] scores,                 # IN
                const label_t[::1] labels,                  # IN
                const int64_t[::1] offsets,                 # IN
                const int64_t[::1] queries,                 # IN selected query ids
                const int64_t[::1] slots,                   # IN (n_selected + 1,) output slot bounds
                bint cut_discount,
                int64_t[:, ::1] out_pairs,                  # OUT (4, slots[-1]): rows hi, lo, ranks hi, lo
                double[::1] out_delta,                      # OUT |dNDCG|
                int n_threads):
    """The pairs of the selected queries, |ΔNDCG| of each; returns the pairs written per query."""
    import numpy as np
    cdef Py_ssize_t t, q, n, n_sel = queries.shape[0]
    cdef Py_ssize_t max_n = setup.max_n
    cdef bint any_pair = out_pairs.shape[1] > 0
    cdef const floating* sc = &scores[0] if scores.shape[0] > 0 else NULL
    cdef const label_t* lab = &labels[0] if labels.shape[0] > 0 else NULL
    cdef const int64_t* keys = setup.keys
    cdef const double* inv_ideal = setup.inv
    cdef const int64_t* off = &offsets[0]
    cdef const int64_t* sel = &queries[0] if n_sel > 0 else NULL
    cdef const int64_t* slot = &slots[0]
    cdef int64_t* o_hi = &out_pairs[0, 0] if any_pair else NULL
    cdef int64_t* o_lo = &out_pairs[1, 0] if any_pair else NULL
    cdef int64_t* o_rhi = &out_pairs[2, 0] if any_pair else NULL
    cdef int64_t* o_rlo = &out_pairs[3, 0] if any_pair else NULL
    cdef double* o_d = &out_delta[0] if out_delta.shape[0] > 0 else NULL
    counts = np.zeros(n_sel, dtype=np.int64)
    cdef int64_t[::1] out_count = counts
    cdef LMParams prm
    cdef LMParams* pp = &prm
    cdef Scratch s
    cdef int failed = 0
    cdef int* failed_flag = &failed
    if not setup.ready:
        raise ValueError("LambdaMARTSetup.set_queries was not called")
    if n_sel == 0:
        return counts
    # the pairs and |ΔNDCG| only: no sigmoid, weights or normalisation
    _params(pp, MODE_DEFAULT, setup.p.conv, setup.p.trunc, 1.0, False, False, NULL, 0.0, 0.0, 0.0, 0, 1.0)
    with nogil, parallel(num_threads=n_threads, use_threads_if=n_threads > 1):
        s = _alloc_scratch(max_n)
        if not _scratch_ok(&s):
            failed_flag[0] = 1
        else:
            for t in prange(n_sel, schedule="dynamic", chunksize=4):
                q = sel[t]
                n = off[q + 1] - off[q]
                out_count[t] = _pairs_one_query(
                    sc + off[q], lab + off[q], keys + off[q] if keys != NULL else NULL, n,
                    inv_ideal[q], cut_discount, pp, &s, o_hi + slot[t], o_lo + slot[t],
                    o_rhi + slot[t], o_rlo + slot[t], o_d + slot[t])
        _free_scratch(&s)
    if failed:
        raise MemoryError("fastndcg: could not allocate per-thread scratch")
    return counts


# ----------------------------------------------------------------------------- LightGBM set-up


def lightgbm_sigmoid_table(double sigma):
    """LightGBM's ConstructSigmoidTable for one sigma, with libc exp.

    Returns (table, lo, hi, factor): table[i] = 1 / (1 + exp((i / factor + lo) * sigma)),
    i < 2**20, on [lo, hi] = [-25/sigma, 25/sigma].
    """
    import numpy as np
    cdef size_t bins = SIGMOID_BINS
    cdef double lo = -50.0 / sigma / 2.0
    cdef double hi = -lo
    cdef double factor = <double>bins / (hi - lo)
    cdef double score
    out = np.empty(bins, dtype=np.float64)
    cdef double[::1] t = out
    cdef size_t i
    with nogil:
        for i in range(bins):
            score = <double>i / factor + lo
            t[i] = 1.0 / (1.0 + exp(score * sigma))
    return out, lo, hi, factor


def lightgbm_max_dcg(const label_t[::1] labels,            # IN integer labels < table size
                     const int64_t[::1] offsets,           # IN
                     const double[::1] table,              # IN label_gain
                     const double[::1] disc,               # IN D(rank), >= min(k, max_n) entries
                     Py_ssize_t k,
                     double[::1] out):                     # OUT (n_queries,)
    """LightGBM DCGCalculator::CalMaxDCGAtK per query: labels by label
    descending (not by gain), sequential double sum of D(j) * gain."""
    cdef Py_ssize_t q, i, j, n, depth, n_queries = offsets.shape[0] - 1
    cdef Py_ssize_t n_levels = table.shape[0]
    cdef Py_ssize_t top
    cdef double acc
    cdef int64_t* counts
    if n_queries == 0:
        return
    counts = <int64_t*>malloc(n_levels * sizeof(int64_t))
    if counts == NULL:
        raise MemoryError()
    try:
        with nogil:
            for q in range(n_queries):
                for i in range(n_levels):
                    counts[i] = 0
                n = offsets[q + 1] - offsets[q]
                for i in range(offsets[q], offsets[q + 1]):
                    counts[<Py_ssize_t>labels[i]] += 1
                depth = k if k < n else n
                top = n_levels - 1
                acc = 0.0
                for j in range(depth):
                    while top > 0 and counts[top] <= 0:
                        top -= 1
                    acc += disc[j] * table[top]
                    counts[top] -= 1
                out[q] = acc
    finally:
        free(counts)


# ----------------------------------------------------------------------------- position debiasing


def lightgbm_position_bias_update(const out_t[::1] grad,         # IN the round's gradients (weighted)
                                  const out_t[::1] hess,         # IN
                                  const int32_t[::1] ids,        # IN position id per row
                                  float[::1] factors,            # IN/OUT factor per position id
                                  double regularization, double learning_rate):
    """LightGBM's UpdatePositionBiasFactors with one thread: per position p,
    in row order, G1 = -sum g_i and G2 = -sum h_i (double), n_p rows;
    G1 -= b_p * reg * n_p; G2 -= reg * n_p;
    b_p = f32(b_p + lr * G1 / (|G2| + 0.001))."""
    cdef Py_ssize_t i, k, n = grad.shape[0], n_pos = factors.shape[0]
    cdef double first, second
    cdef double* d1
    cdef double* d2
    cdef int64_t* cnt
    if n_pos == 0:
        return
    d1 = <double*>calloc(n_pos, sizeof(double))
    d2 = <double*>calloc(n_pos, sizeof(double))
    cnt = <int64_t*>calloc(n_pos, sizeof(int64_t))
    if d1 == NULL or d2 == NULL or cnt == NULL:
        free(d1)
        free(d2)
        free(cnt)
        raise MemoryError()
    with nogil:
        for i in range(n):
            k = ids[i]
            d1[k] -= <double>grad[i]
            d2[k] -= <double>hess[i]
            cnt[k] += 1
        for k in range(n_pos):
            first = 0.0
            second = 0.0
            first += d1[k]            # the sum over LightGBM's per-thread buffers (one here)
            second += d2[k]
            first -= <double>factors[k] * regularization * <double>cnt[k]
            second -= regularization * <double>cnt[k]
            factors[k] = <float>(<double>factors[k] + learning_rate * first / (fabs(second) + 0.001))
    free(d1)
    free(d2)
    free(cnt)


def xgboost_position_bias_update(const double[::1] li_rows,     # IN per-row cost sums / t-
                                 const double[::1] lj_rows,     # IN per-row cost sums / t+
                                 const int64_t[::1] offsets,    # IN
                                 double[::1] t_plus,            # IN/OUT (K,)
                                 double[::1] t_minus,           # IN/OUT (K,)
                                 double bias_norm):
    """XGBoost's LambdaRankUpdatePositionBias: L_i = sum over groups, in
    order, of li[i] for i < min(n_g, K) (M_i from lj likewise); then
    t+_i = pow(L_i / L_0, 1 / (1 + bias_norm)) when L_0 >= 1e-16, and t-_i
    from M likewise; otherwise the ratio is left as it was."""
    cdef Py_ssize_t g, i, top, k = t_plus.shape[0], n_groups = offsets.shape[0] - 1
    cdef double reg = 1.0 / (1.0 + bias_norm)
    cdef double* li
    cdef double* lj
    if k == 0:
        return
    li = <double*>calloc(k, sizeof(double))
    lj = <double*>calloc(k, sizeof(double))
    if li == NULL or lj == NULL:
        free(li)
        free(lj)
        raise MemoryError()
    with nogil:
        for g in range(n_groups):
            top = offsets[g + 1] - offsets[g]
            top = top if top < k else k
            for i in range(top):
                li[i] += li_rows[offsets[g] + i]
                lj[i] += lj_rows[offsets[g] + i]
        for i in range(k):
            if li[0] >= XGB_EPS64:
                t_plus[i] = pow(li[i] / li[0], reg)
            if lj[0] >= XGB_EPS64:
                t_minus[i] = pow(lj[i] / lj[0], reg)
    free(li)
    free(lj)
