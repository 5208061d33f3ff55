# LambdaMART kernels, XGBoost mode: topk and mean pairs in XGBoost's float order (included by
# _lambdamart_impl.pxi).

# ----------------------------------------------------------------------------- XGBoost mode
#
# XGBoost 3.x LambdaRankNDCG: MakePairs + LambdaGrad + DeltaNDCG, per pair
# (rank_high, rank_low) with idx_* = its documents' positions in the query:
#   d = f32(s_h) - f32(s_l) (float); rho = Sigmoid(d) (float, expf)
#   dZ = |((G_h D_h + G_l D_l) - (G_l D_h + G_h D_l)) * inv| [/ (|d| + 0.01)]
#   [unbiased: cost = log(1 / (1 - rho)) dZ]
#   lam = (rho - 1) dZ; H = max(rho (1 - rho), 1e-16) dZ 2
#   [unbiased, idx_h, idx_l < K, t-[idx_l], t+[idx_h] >= 1e-16: lam, H /= t+[idx_h] t-[idx_l]]
#   g[h] += f32(lam); g[l] += -f32(lam); both hessians += f32(H); S += -2 f32(lam)
#   [unbiased, idx_h, idx_l < K: li[idx_h] += cost / t-[idx_l] if t-[idx_l] >= 1e-16;
#                                lj[idx_l] += cost / t+[idx_h] if t+[idx_h] >= 1e-16]


cdef void _xgb_pass_a(Py_ssize_t start, Py_ssize_t n, double yi, float si, double gi, double di,
                      double inv, bint distance, cfptr_r rsf, cdptr_r rl, cdptr_r rg, cdptr_r disc,
                      fptr_r out_sg, fptr_r out_d, dptr_r out_dz) noexcept nogil:
    # For every rank j in [start, n): sg, d = f32(s_h) - f32(s_l) and dZ.
    # (G_h D_h + G_l D_l) - (G_l D_h + G_h D_l) is the same value whichever of
    # i, j is high (the sums commute), and |.| takes care of the sign.
    # (Two copies of the loop: a test inside it would stop the vectorisation.)
    cdef Py_ssize_t j
    cdef float sg, d
    cdef double gj, dj, dz
    if distance:
        for j in range(start, n):
            sg = <float>1.0 if yi > rl[j] else <float>-1.0
            d = sg * (si - rsf[j])
            gj = rg[j]
            dj = disc[j]
            dz = fabs(((gi * di + gj * dj) - (gj * di + gi * dj)) * inv)
            out_sg[j] = sg
            out_d[j] = d
            out_dz[j] = dz / (<double>fabsf(d) + 0.01)
    else:
        for j in range(start, n):
            sg = <float>1.0 if yi > rl[j] else <float>-1.0
            gj = rg[j]
            dj = disc[j]
            out_sg[j] = sg
            out_d[j] = sg * (si - rsf[j])
            out_dz[j] = fabs(((gi * di + gj * dj) - (gj * di + gi * dj)) * inv)


cdef inline void _xgb_pair_done(double rho, double dz, double cost, Py_ssize_t rank_h,
                                Py_ssize_t rank_l, const QueryIO* q, const LMParams* p, Scratch* s,
                                float* lam_out, float* hes_out) noexcept nogil:
    # LambdaGrad after the sigmoid (and, unbiased, the cost), and the unbiased
    # bookkeeping for one pair (idx from the ranking).
    cdef double lam, hes, tp, tm
    cdef Py_ssize_t idx_h, idx_l
    lam = (rho - 1.0) * dz
    hes = rho * (1.0 - rho)
    if hes < XGB_EPS64:
        hes = XGB_EPS64
    hes = hes * dz * 2.0
    if p.t_plus != NULL:
        idx_h = s.docs[rank_h].idx
        idx_l = s.docs[rank_l].idx
        if idx_h < p.bias_k and idx_l < p.bias_k:
            tp = p.t_plus[idx_h]
            tm = p.t_minus[idx_l]
            if tm >= XGB_EPS64 and tp >= XGB_EPS64:
                lam = lam / (tp * tm)
                hes = hes / (tp * tm)
            if tm >= XGB_EPS64:
                q.li[idx_h] = q.li[idx_h] + cost / tm
            if tp >= XGB_EPS64:
                q.lj[idx_l] = q.lj[idx_l] + cost / tp
    lam_out[0] = <float>lam
    hes_out[0] = <float>hes


cdef inline double _xgb_cost(double rho, double dz) noexcept nogil:
    # Unbiased LambdaMART's pair cost, as XGBoost computes it.
    return log(1.0 / (1.0 - rho)) * dz


cdef inline void _xgb_pair(float d32, double dz, Py_ssize_t rank_h, Py_ssize_t rank_l,
                           const QueryIO* q, const LMParams* p, Scratch* s,
                           float* lam_out, float* hes_out) noexcept nogil:
    # LambdaGrad for one pair, from the score difference.
    cdef double rho = <double>_xgb_sigmoid(d32)
    cdef double cost = _xgb_cost(rho, dz) if p.t_plus != NULL else 0.0
    _xgb_pair_done(rho, dz, cost, rank_h, rank_l, q, p, s, lam_out, hes_out)


cdef void _pairs_xgboost(Py_ssize_t n, double inv, const QueryIO* q, const LMParams* p,
                         Scratch* s) noexcept nogil:
    # topk: for i < min(n, k): for j > i: pair (i, j) when the labels differ.
    cdef Py_ssize_t i, j, r, t, count
    cdef Py_ssize_t m = n if p.trunc > n else p.trunc
    cdef const int32_t* partners
    cdef float* g = s.fg
    cdef float* h = s.fh
    cdef const double* rl = s.rl
    cdef bint distance = p.score_norm and s.rsf[0] != s.rsf[n - 1]
    cdef float* tsg = s.tf
    cdef float* td = s.tf + s.stride
    cdef double* tdz = s.ta
    cdef double* trho = s.tb
    cdef double* tcost = s.tc
    cdef float lam32, hes32, sg32, acc_g, acc_h, nf32
    cdef double rho, dz, lam, hes, total = 0.0, nf
    for r in range(n):
        g[r] = 0.0
        h[r] = 0.0
    _partners_init(rl, n, s)
    for i in range(m):
        _xgb_pass_a(i + 1, n, rl[i], s.rsf[i], s.rg[i], p.conv.disc[i], inv, distance, s.rsf, rl, s.rg,
                    p.conv.disc, tsg, td, tdz)
        partners = _partners_of(i, rl, n, s, &count, s.lists)
        acc_g = g[i]
        acc_h = h[i]
        if p.t_plus != NULL:
            for t in range(count):                       # pass B: the libm calls
                j = partners[t]
                rho = <double>_xgb_sigmoid(td[j])
                trho[t] = rho
                tcost[t] = _xgb_cost(rho, tdz[j])
            for t in range(count):                       # pass C: the sums
                j = partners[t]
                sg32 = tsg[j]
                if sg32 > 0:
                    _xgb_pair_done(trho[t], tdz[j], tcost[t], i, j, q, p, s, &lam32, &hes32)
                else:
                    _xgb_pair_done(trho[t], tdz[j], tcost[t], j, i, q, p, s, &lam32, &hes32)
                acc_g = acc_g + sg32 * lam32
                g[j] = g[j] - sg32 * lam32
                acc_h = acc_h + hes32
                h[j] = h[j] + hes32
                total += -2.0 * <double>lam32
        else:
            for t in range(count):                       # pass B: the libm calls
                trho[t] = <double>_xgb_sigmoid(td[partners[t]])
            for t in range(count):                       # pass C: the sums
                j = partners[t]
                rho = trho[t]
                dz = tdz[j]
                lam = (rho - 1.0) * dz
                hes = rho * (1.0 - rho)
                hes = hes if hes >= XGB_EPS64 else XGB_EPS64
                hes = hes * dz * 2.0
                lam32 = <float>lam
                hes32 = <float>hes
                sg32 = tsg[j]
                acc_g = acc_g + sg32 * lam32
                g[j] = g[j] - sg32 * lam32
                acc_h = acc_h + hes32
                h[j] = h[j] + hes32
                total += -2.0 * <double>lam32
        g[i] = acc_g
        h[i] = acc_h
    if p.list_norm:
        nf = 1.0
        if total > 0.0:
            nf = log2(1.0 + total) / total
        if nf != 1.0:
            nf32 = <float>nf
            for r in range(n):
                g[r] = g[r] * nf32
                h[r] = h[r] * nf32


cdef inline uint64_t _minstd_next(uint64_t* x) noexcept nogil:
    x[0] = (x[0] * MINSTD_A) % MINSTD_M
    return x[0]


cdef inline uint64_t _uniform_below(uint64_t* x, uint64_t top) noexcept nogil:
    # libstdc++ uniform_int_distribution<size_t>(0, top)(minstd_rand): the
    # engine's range (2^31 - 3) is not 2^32 - 1 nor 2^64 - 1, so it takes the
    # two-division path: reject draws past the largest multiple, then divide.
    cdef uint64_t urngrange = MINSTD_M - 2      # max() - min()
    cdef uint64_t uerange, scaling, past, ret
    if top == urngrange:
        return _minstd_next(x) - 1
    uerange = top + 1
    scaling = urngrange // uerange
    past = uerange * scaling
    ret = _minstd_next(x) - 1
    while ret >= past:
        ret = _minstd_next(x) - 1
    return ret // scaling


cdef void _pairs_xgboost_mean(Py_ssize_t n, double inv, const QueryIO* q, const LMParams* p,
                              Scratch* s) noexcept nogil:
    # XGBoost's MakePairs, `mean` branch (3.0-3.3): engine std::minstd_rand
    # seeded with seed_round * n_groups + g (seed_round = iteration + 1 in
    # 3.1-3.3, the iteration in 3.0); labels in model-rank order
    # are stably sorted descending into buckets of equal labels; for each
    # bucket [i, j), num_pair times, each of its documents draws a partner
    # r = uniform(0, nl + nr - 1) among the nl ranks before and the nr after
    # the bucket (shifted past it when r >= nl). Pairs are accumulated in the
    # order they are drawn.
    cdef Py_ssize_t a, b, i, j, r, rep, k, rank_h, rank_l
    cdef Py_ssize_t nl, nr
    cdef float* g = s.fg
    cdef float* h = s.fh
    cdef const double* rl = s.rl
    cdef const double* rg = s.rg
    cdef const double* disc = p.conv.disc
    cdef bint distance = p.score_norm and s.rsf[0] != s.rsf[n - 1]
    cdef RankedDoc* ys = s.src
    cdef uint64_t state = (<uint64_t>q.seed) % MINSTD_M
    cdef float d32, lam32, hes32, nf32
    cdef double gh, gl, dh, dl, dz, nf
    for r in range(n):
        g[r] = 0.0
        h[r] = 0.0
    if state == 0:
        state = 1
    # ArgSort(labels by rank, std::greater), stable: label descending, then rank.
    for r in range(n):
        ys[r].score = rl[r]
        ys[r].key = r
        ys[r].idx = r
    sort_docs(ys, n)
    i = 0
    while i < n:
        j = i + 1
        while j < n and rl[ys[i].idx] == rl[ys[j].idx]:
            j += 1
        nl = i
        nr = n - j
        if nl + nr > 0:
            for rep in range(p.num_pair):
                for k in range(i, j):
                    r = <Py_ssize_t>_uniform_below(&state, <uint64_t>(nl + nr - 1))
                    if r >= nl:
                        r = r - i + j
                    a = ys[k].idx
                    b = ys[r].idx
                    if rl[a] == rl[b]:
                        continue
                    rank_h = a
                    rank_l = b
                    if rl[a] < rl[b]:
                        rank_h = b
                        rank_l = a
                    d32 = s.rsf[rank_h] - s.rsf[rank_l]
                    gh = rg[rank_h]
                    gl = rg[rank_l]
                    dh = disc[rank_h]
                    dl = disc[rank_l]
                    dz = fabs(((gh * dh + gl * dl) - (gl * dh + gh * dl)) * inv)
                    if distance:
                        dz = dz / (<double>fabsf(d32) + 0.01)
                    _xgb_pair(d32, dz, rank_h, rank_l, q, p, s, &lam32, &hes32)
                    g[rank_h] = g[rank_h] + lam32
                    h[rank_h] = h[rank_h] + hes32
                    g[rank_l] = g[rank_l] + (-lam32)
                    h[rank_l] = h[rank_l] + hes32
        i = j
    if p.list_norm:
        nf = 1.0 / <double>p.num_pair
        if nf != 1.0:
            nf32 = <float>nf
            for r in range(n):
                g[r] = g[r] * nf32
                h[r] = h[r] * nf32
