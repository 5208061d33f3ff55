# LambdaMART kernels: one query, and the batch driver that runs queries in parallel (included by
# _lambdamart_impl.pxi).

# ----------------------------------------------------------------------------- one query


cdef void _grad_one_query(const floating* sc, const label_t* lab, const QueryIO* q,
                          const LMParams* p, Scratch* s,
                          out_t* grad, out_t* hess) noexcept nogil:
    cdef Py_ssize_t r, i, n = q.n
    cdef double gd, hd
    cdef float gf, hf, w32
    if q.li != NULL:
        for i in range(n):
            q.li[i] = 0.0
            q.lj[i] = 0.0
    if n < 2 or q.inv == 0.0 or plan_short(n, 0, p.conv):
        # No pair can contribute (or the convention zeroes the query).
        for i in range(n):
            grad[i] = 0.0
            hess[i] = 0.0
        return
    _rank_query(sc, lab, q, p, s)
    # The outputs go out in input order (rank_of: each document's rank, in cache):
    # sequential stores into the output arrays, whose lines are usually not cached yet.
    for r in range(n):
        s.rank_of[s.docs[r].idx] = <int32_t>r
    if p.mode == MODE_DEFAULT:
        _pairs_default(n, q.inv, p, s)
        for i in range(n):
            r = s.rank_of[i]
            gd = s.dg[r]
            hd = s.dh[r]
            if q.has_qw:
                gd = gd * q.qw
                hd = hd * q.qw
            if q.rw != NULL:
                gd = gd * q.rw[i]
                hd = hd * q.rw[i]
            grad[i] = <out_t>gd
            hess[i] = <out_t>hd
        return
    if p.mode == MODE_LIGHTGBM:
        _pairs_lightgbm(n, q.inv, p, s)
    elif p.mean_pairs:
        _pairs_xgboost_mean(n, q.inv, q, p, s)
    else:
        _pairs_xgboost(n, q.inv, q, p, s)
    for i in range(n):
        r = s.rank_of[i]
        gf = s.fg[r]
        hf = s.fh[r]
        if p.mode == MODE_XGBOOST:
            # gpair * w * w_norm: GradientPair * float, twice (w_norm is 1 without weights)
            w32 = <float>q.qw
            gf = gf * w32
            hf = hf * w32
            w32 = <float>p.w_norm
            gf = gf * w32
            hf = hf * w32
        elif q.has_qw:
            w32 = <float>q.qw
            gf = gf * w32
            hf = hf * w32
        if q.rw != NULL:
            # LightGBM RankingObjective: per-row float weights, float product.
            w32 = <float>q.rw[i]
            gf = gf * w32
            hf = hf * w32
        grad[i] = gf
        hess[i] = hf


cdef inline bint _all_finite(const out_t* grad, const out_t* hess, Py_ssize_t n) noexcept nogil:
    # One query's outputs, still in cache: an infinity or NaN is an overflow
    # (huge gains, sigma or weights) that the caller reports with its position.
    cdef Py_ssize_t i
    cdef bint ok = True
    for i in range(n):
        ok = ok & (fabs(<double>grad[i]) <= DBL_MAX) & (fabs(<double>hess[i]) <= DBL_MAX)
    return ok


cdef Scratch _alloc_scratch(Py_ssize_t max_n) noexcept nogil:
    # Returned by value so that the assignment in a parallel block makes the
    # struct thread-private.
    cdef Scratch s
    # room for RANK_PAD pad entries past the longest query (default mode: _pad_ranks)
    cdef size_t m = <size_t>(max_n + 1 + RANK_PAD)
    s.docs = <RankedDoc*>malloc(m * sizeof(RankedDoc))
    s.src = <RankedDoc*>malloc(m * sizeof(RankedDoc))
    s.counts = <Py_ssize_t*>malloc((2 * m + 1) * sizeof(Py_ssize_t))
    s.bucket = <int32_t*>malloc(m * sizeof(int32_t))
    s.rank_of = <int32_t*>malloc(m * sizeof(int32_t))
    s.rs = <double*>malloc(m * sizeof(double))
    s.rsf = <float*>malloc(m * sizeof(float))
    s.rl = <double*>malloc(m * sizeof(double))
    s.rg = <double*>malloc(m * sizeof(double))
    s.dg = <double*>malloc(m * sizeof(double))
    s.dh = <double*>malloc(m * sizeof(double))
    s.fg = <float*>malloc(m * sizeof(float))
    s.fh = <float*>malloc(m * sizeof(float))
    s.stride = <Py_ssize_t>m
    s.lists = <int32_t*>malloc(MAX_LEVELS * m * sizeof(int32_t))
    s.level = <int32_t*>malloc(m * sizeof(int32_t))
    s.ta = <double*>malloc(SLOTS * m * sizeof(double))
    s.tb = <double*>malloc(SLOTS * m * sizeof(double))
    s.tc = <double*>malloc(SLOTS * m * sizeof(double))
    s.tf = <float*>malloc(SLOTS * m * sizeof(float))
    s.ti = <int32_t*>malloc(SLOTS * m * sizeof(int32_t))
    s.tp = <double*>malloc(m * sizeof(double))
    s.zs = <double*>malloc(6 * m * sizeof(double))
    s.zrank = <int32_t*>malloc(m * sizeof(int32_t))
    s.n_levels = 0
    return s


cdef bint _scratch_ok(const Scratch* s) noexcept nogil:
    return not (s.docs == NULL or s.src == NULL or s.counts == NULL or s.bucket == NULL
                or s.rank_of == NULL or s.rs == NULL or s.rsf == NULL or s.rl == NULL or s.rg == NULL or s.dg == NULL
                or s.dh == NULL or s.fg == NULL or s.fh == NULL or s.lists == NULL
                or s.level == NULL or s.ta == NULL or s.tb == NULL or s.tc == NULL
                or s.tf == NULL or s.ti == NULL or s.tp == NULL or s.zs == NULL or s.zrank == NULL)


cdef void _free_scratch(Scratch* s) noexcept nogil:
    free(s.docs)
    free(s.src)
    free(s.counts)
    free(s.bucket)
    free(s.rank_of)
    free(s.rs)
    free(s.rsf)
    free(s.rl)
    free(s.rg)
    free(s.dg)
    free(s.dh)
    free(s.fg)
    free(s.fh)
    free(s.lists)
    free(s.level)
    free(s.ta)
    free(s.tb)
    free(s.tc)
    free(s.tf)
    free(s.ti)
    free(s.tp)
    free(s.zs)
    free(s.zrank)


cdef void _params(LMParams* p, int mode, const ConventionPlan* conv, Py_ssize_t trunc, double sigma,
                  bint score_norm, bint list_norm, const double* sig_table,
                  double sig_lo, double sig_hi, double sig_factor, Py_ssize_t sig_bins,
                  double w_norm) noexcept nogil:
    p.mode = mode
    p.conv = conv
    p.trunc = trunc
    p.sigma = sigma
    p.score_norm = score_norm
    p.list_norm = list_norm
    p.sig_table = sig_table
    p.sig_lo = sig_lo
    p.sig_hi = sig_hi
    p.sig_factor = sig_factor
    p.sig_bins = sig_bins
    p.w_norm = w_norm
    p.pos_bias = NULL
    p.t_plus = NULL
    p.t_minus = NULL
    p.bias_k = 0
    p.mean_pairs = False
    p.num_pair = 0
    p.seed_base = 0


cdef inline QueryIO _query_io(const int64_t* off, Py_ssize_t k, const double* inv,
                              const double* qw, const int64_t* keys, const int32_t* pos,
                              const double* rw, double* li, double* lj,
                              uint32_t seed_base) noexcept nogil:
    # Returned by value: assigned inside prange, the struct is thread-private.
    cdef QueryIO q
    cdef int64_t a = off[k]
    q.n = off[k + 1] - a
    q.inv = inv[k]
    q.has_qw = qw != NULL
    q.qw = qw[k] if qw != NULL else 1.0
    q.keys = keys + a if keys != NULL else NULL
    q.pos = pos + a if pos != NULL else NULL
    q.rw = rw + a if rw != NULL else NULL
    q.li = li + a if li != NULL else NULL
    q.lj = lj + a if lj != NULL else NULL
    q.seed = seed_base + <uint32_t>k     # uint32 arithmetic, as XGBoost's seed
    return q


# ----------------------------------------------------------------------------- batch drivers


cdef inline const double* _f64_or_null(const double[::1] a):
    return &a[0] if a is not None and a.shape[0] > 0 else NULL


cdef class LambdaMARTSetup:
    """What the LambdaMART kernels read besides the scores and labels: the
    LMParams of one LambdaMART object (the compiled kernel plan: gains, D(rank)
    over every rank a pair reaches, float32 ranking, tie direction, short limit,
    score limit) and the arrays its pointers read (kept alive here). Built once
    while the object is set up (the constructor, then set_queries), then only
    read, by any number of threads."""
    cdef LMParams p
    cdef CompiledPlan plan
    cdef const double[::1] sig_table       # LightGBM sigmoid table (or empty)
    cdef const int64_t[::1] tie_key        # empty unless ties by key
    cdef const double[::1] inv_ideal       # 1 / IDCG per query (0 when IDCG = 0)
    cdef const double[::1] query_weights   # empty or (n_queries,)
    cdef const double[::1] row_weights     # empty or (n_docs,)
    cdef const int64_t* keys
    cdef const double* inv
    cdef const double* qw
    cdef const double* rw
    cdef Py_ssize_t max_n
    cdef bint ready

    def __init__(self, CompiledPlan plan not None, int mode, Py_ssize_t trunc, double sigma, bint score_norm,
                 bint list_norm, double w_norm):
        self.plan = plan
        _params(&self.p, mode, &plan.c, trunc, sigma, score_norm, list_norm, NULL, 0.0, 0.0, 0.0, 0, w_norm)
        self.ready = False

    def set_sigmoid(self, const double[::1] sig_table, double sig_lo, double sig_hi, double sig_factor):
        """LightGBM's sigmoid table (mode="lightgbm")."""
        self.sig_table = sig_table
        self.p.sig_table = _f64_or_null(sig_table)
        self.p.sig_lo, self.p.sig_hi, self.p.sig_factor = sig_lo, sig_hi, sig_factor
        self.p.sig_bins = sig_table.shape[0]

    def set_queries(self, const int64_t[::1] tie_key, const double[::1] inv_ideal,
                    const double[::1] query_weights, const double[::1] row_weights, Py_ssize_t max_n):
        """The tie key, the inverse ideal DCG, the weights and the longest query."""
        self.tie_key, self.inv_ideal = tie_key, inv_ideal
        self.query_weights, self.row_weights = query_weights, row_weights
        self.keys = &tie_key[0] if tie_key.shape[0] > 0 else NULL
        self.inv = _f64_or_null(inv_ideal)
        self.qw = _f64_or_null(query_weights)
        self.rw = _f64_or_null(row_weights)
        self.max_n = max_n
        self.ready = True


cdef class LambdaMARTRound:
    """One boosting round's state of the stateful variants (measures/_debias.py),
    made per call: LightGBM's position ids and factors, XGBoost's unbiased
    ratios t+ / t- and their per-row sums (OUT), and its mean pairs."""
    cdef const int32_t[::1] positions       # position id per row (LightGBM bias)
    cdef const float[::1] position_bias     # float32 factor per position id
    cdef const double[::1] t_plus           # XGBoost unbiased t+ (K,)
    cdef const double[::1] t_minus          # XGBoost unbiased t- (K,)
    cdef double[::1] li_rows                # OUT per-row cost sums / t- (n_docs,)
    cdef double[::1] lj_rows                # OUT per-row cost sums / t+ (n_docs,)
    cdef bint mean_pairs                    # XGBoost lambdarank_pair_method="mean"
    cdef Py_ssize_t num_pair
    cdef uint64_t seed_round                # seed = seed_round * n_groups + g

    def __init__(self, const int32_t[::1] positions=None, const float[::1] position_bias=None,
                 const double[::1] t_plus=None, const double[::1] t_minus=None, double[::1] li_rows=None,
                 double[::1] lj_rows=None, bint mean_pairs=False, Py_ssize_t num_pair=1,
                 uint64_t seed_round=0):
        self.positions, self.position_bias = positions, position_bias
        self.t_plus, self.t_minus, self.li_rows, self.lj_rows = t_plus, t_minus, li_rows, lj_rows
        self.mean_pairs, self.num_pair, self.seed_round = mean_pairs, num_pair, seed_round


def grad_hess_batch(LambdaMARTSetup setup not None,
                    const floating[::1] scores,             # IN
                    const label_t[::1] labels,              # IN
                    const int64_t[::1] offsets,             # IN
                    out_t[::1] grad,                        # OUT (n_docs,)
                    out_t[::1] hess,                        # OUT (n_docs,)
                    int8_t[::1] flags,                      # OUT (n_queries,): FLAG_SCORES, a bad score
                    int n_threads,
                    LambdaMARTRound state=None):
    """Gradients and hessians of every query; returns 1 when an output is not finite. The
    scores are checked in the same parallel pass, query by query: a query with an invalid
    score (not finite, or beyond the float32 it is ranked as) gets FLAG_SCORES and no output,
    and the caller raises naming the first one."""
    cdef Py_ssize_t k, n_queries = offsets.shape[0] - 1
    cdef Py_ssize_t max_n = setup.max_n
    cdef const floating* sc = &scores[0] if scores.shape[0] > 0 else NULL
    cdef const label_t* lab = &labels[0] if labels.shape[0] > 0 else NULL
    cdef const int64_t* keys = setup.keys
    cdef const double* inv = setup.inv
    cdef const double* qw = setup.qw
    cdef const double* rw = setup.rw
    cdef const int32_t* pos = NULL
    cdef double* li = NULL
    cdef double* lj = NULL
    cdef const int64_t* off = &offsets[0]
    cdef out_t* g = &grad[0] if grad.shape[0] > 0 else NULL
    cdef out_t* h = &hess[0] if hess.shape[0] > 0 else NULL
    cdef LMParams prm = setup.p       # a copy: this call's round state goes into it
    cdef LMParams* pp = &prm
    cdef QueryIO qio
    cdef Scratch s
    cdef int failed = 0
    cdef int* failed_flag = &failed   # written through a pointer: shared, not thread-private
    cdef int overflow = 0
    cdef int* overflow_flag = &overflow
    cdef int8_t* fl = &flags[0] if flags.shape[0] > 0 else NULL
    cdef Py_ssize_t where
    cdef bint mean_pairs = False
    cdef Py_ssize_t num_pair = 1
    cdef uint64_t seed_round = 0
    if not setup.ready:
        raise ValueError("LambdaMARTSetup.set_queries was not called")
    if n_queries == 0 or scores.shape[0] == 0:
        return 0
    if state is not None:
        if state.positions is not None and state.positions.shape[0] > 0:
            pos = &state.positions[0]
            pp.pos_bias = &state.position_bias[0]
        if state.t_plus is not None and state.t_plus.shape[0] > 0:
            pp.t_plus = &state.t_plus[0]
            pp.t_minus = &state.t_minus[0]
            pp.bias_k = state.t_plus.shape[0]
            li = &state.li_rows[0]
            lj = &state.lj_rows[0]
        mean_pairs, num_pair, seed_round = state.mean_pairs, state.num_pair, state.seed_round
    pp.mean_pairs = mean_pairs
    pp.num_pair = num_pair
    # seed_round * n_groups in uint32 arithmetic, as XGBoost computes the seed
    pp.seed_base = <uint32_t>(<uint32_t>seed_round * <uint32_t>n_queries)
    with nogil, parallel(num_threads=n_threads, use_threads_if=n_threads > 1):
        s = _alloc_scratch(max_n)
        if not _scratch_ok(&s):
            failed_flag[0] = 1
        else:
            for k in prange(n_queries, schedule="dynamic", chunksize=8):
                where = 0
                if _score_problem(sc + off[k], off[k + 1] - off[k], pp.conv.score_limit, False, &where) != PROBLEM_NONE:
                    fl[k] = FLAG_SCORES
                else:
                    qio = _query_io(off, k, inv, qw, keys, pos, rw, li, lj, pp.seed_base)
                    _grad_one_query(sc + off[k], lab + off[k], &qio, pp, &s, g + off[k], h + off[k])
                if not _all_finite(g + off[k], h + off[k], off[k + 1] - off[k]):
                    overflow_flag[0] = 1
        _free_scratch(&s)
    if failed:
        raise MemoryError("fastndcg: could not allocate per-thread scratch")
    return overflow
