# LambdaMART kernels: lambda gradients and hessians per document over CSR queries.
#
# Layers (as in _ndcg.pyx): per-query `cdef ... noexcept nogil` functions that
# take base pointers plus a length and write only their own query's rows; `def`
# batch drivers that run `prange` over queries with per-thread malloc scratch;
# the Python wrappers in `lambdamart.py` that validate, resolve the convention
# into tables, cache the ideal DCG and allocate outputs. Nothing reduces across
# queries, so results are bit-identical for any thread count. Inputs are
# assumed valid.
#
# Per query: rank the documents with THE comparator of _rank.pxd (score
# descending, tie key, then position), copy score / label / gain into arrays
# in rank order (contiguous: the pair loops touch nothing else), run the pair
# loop of the chosen mode in rank space, then scatter to the input rows.
#
# Three numeric modes (see docs/lambdamart.md and ../shared/docs/lambdarank.md):
#   default   exact logistic in double, double accumulation, any convention;
#   lightgbm  LightGBM 4.x lambdarank to the bit: 2^20-bin sigmoid table,
#             float32 accumulation in pair-loop order, 0.01f, label order;
#   xgboost   XGBoost 3.x rank:ndcg (topk) to the bit: float32 scores,
#             expf sigmoid, 2x hessian, its normalisation and group weights.
# Bit-exactness needs the exact parenthesisation below, no FMA contraction
# (setup.py builds with -ffp-contract=off) and libc exp/expf/log2.
from cython cimport floating
from cython.parallel cimport parallel, prange
from libc.math cimport exp, expf, fabs, fabsf, log2
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc

from fastndcg._rank cimport RankedDoc, gain_of, label_t, make_doc, ranked_score, sort_docs

ctypedef fused out_t:
    float
    double

# Modes (kept in sync with lambdamart.MODE_CODES).
cdef enum:
    MODE_DEFAULT = 0
    MODE_LIGHTGBM = 1
    MODE_XGBOOST = 2

SIGMOID_BINS = 1 << 20

# LightGBM writes `0.01f + fabs(delta_score)`: the float constant widened to double.
cdef double LGB_SCORE_EPS = <double>(<float>0.01)
# XGBoost constants: Sigmoid's clamp and epsilon (float), Eps64 and 0.01 (double).
cdef float XGB_EXP_CLAMP = <float>88.7
cdef float XGB_SIGMOID_EPS = <float>1e-16
cdef double XGB_EPS64 = 1e-16


cdef struct LMParams:
    int mode
    Py_ssize_t trunc          # pairs need min(rank) < trunc
    Py_ssize_t short_limit    # queries with n < short_limit get zero (LETOR short rule)
    double sigma
    bint score_norm           # divide |dNDCG| by (eps + |ds|) unless all scores are equal
    bint list_norm            # scale the query by log2(1 + S) / S
    bint linear               # gain is the label itself
    bint round_f32            # rank (and differentiate) float32-rounded scores
    bint key_desc
    const double* table       # gain table (unused if linear)
    const double* disc        # D(rank), rank 0-based
    const double* sig_table   # LightGBM sigmoid table
    double sig_lo
    double sig_hi
    double sig_factor
    Py_ssize_t sig_bins
    double w_norm             # XGBoost: n_groups / sum of group weights


cdef enum:
    MAX_LEVELS = 8            # partner lists are kept for up to this many distinct labels


cdef struct Scratch:
    RankedDoc* docs
    double* rs                # score by rank
    double* rl                # label by rank
    double* rg                # gain by rank
    double* dg                # double accumulators (default mode)
    double* dh
    float* fg                 # float accumulators (exact modes)
    float* fh
    int32_t* lists            # MAX_LEVELS lists of stride `stride` (see _partners_init)
    int32_t* level            # by rank: index of the rank's label among `levels`
    Py_ssize_t stride
    Py_ssize_t n_levels       # 0: too many distinct labels, partners found row by row
    double levels[MAX_LEVELS]
    Py_ssize_t lens[MAX_LEVELS]
    Py_ssize_t cur[MAX_LEVELS]


# ----------------------------------------------------------------------------- helpers


cdef inline void _rank_query(const floating* sc, const label_t* lab, const int64_t* keys,
                             Py_ssize_t n, const LMParams* p, Scratch* s) noexcept nogil:
    cdef Py_ssize_t i, r
    for i in range(n):
        make_doc(&s.docs[i], ranked_score(sc[i], p.round_f32), keys, p.key_desc, i)
    sort_docs(s.docs, n)
    for r in range(n):
        i = s.docs[r].idx
        s.rs[r] = s.docs[r].score
        s.rl[r] = <double>lab[i]
        s.rg[r] = gain_of(lab[i], p.table, p.linear)


cdef inline float _xgb_sigmoid(float x) noexcept nogil:
    # XGBoost common::Sigmoid(float), in float arithmetic.
    cdef float t = -x
    cdef float denom
    if XGB_EXP_CLAMP < t:
        t = XGB_EXP_CLAMP
    denom = (expf(t) + <float>1.0) + XGB_SIGMOID_EPS
    return <float>1.0 / denom


cdef inline Py_ssize_t _pair_rows(Py_ssize_t n, Py_ssize_t trunc) noexcept nogil:
    # rank i of the outer loop runs over i < min(n - 1, trunc)
    cdef Py_ssize_t m = n - 1
    if trunc < m:
        m = trunc
    return m if m > 0 else 0


# ----------------------------------------------------------------------------- partners
#
# The pairs of row i are the ranks j > i whose label (gain, in default mode)
# differs from rank i's. Testing that inside the pair loop is a branch the CPU
# cannot predict (labels are in score order), so the partners come from lists
# instead: for each distinct label v of the query (at most MAX_LEVELS of them),
# the ranks whose label is not v, ascending; row i walks the list of its own
# label from the first rank > i (a cursor that only moves forward). With more
# distinct labels, row i compacts its partners branch-free into a scratch
# list. Either way the partners come in ascending rank order: the pair loop
# order, hence the floating-point results, are unchanged.


cdef void _partners_init(const double* key, Py_ssize_t n, Scratch* s) noexcept nogil:
    cdef Py_ssize_t r, k, c, n_levels = 0
    cdef double v
    for r in range(n):
        v = key[r]
        k = 0
        while k < n_levels and s.levels[k] != v:
            k += 1
        if k == n_levels:
            if n_levels == MAX_LEVELS:
                s.n_levels = 0
                return
            s.levels[k] = v
            n_levels += 1
        s.level[r] = <int32_t>k
    for k in range(n_levels):
        s.lens[k] = 0
        s.cur[k] = 0
    for r in range(n):
        c = s.level[r]
        for k in range(n_levels):          # branch-free: write always, keep if k != c
            s.lists[k * s.stride + s.lens[k]] = <int32_t>r
            s.lens[k] += k != c
    s.n_levels = n_levels


cdef inline const int32_t* _partners_of(Py_ssize_t i, const double* key, Py_ssize_t n, Scratch* s,
                                        Py_ssize_t* count) noexcept nogil:
    """The ranks j > i with key[j] != key[i], ascending: a pointer and a count."""
    cdef Py_ssize_t k, c, j
    cdef const int32_t* lst
    cdef int32_t* out
    cdef double v
    if s.n_levels > 0:
        k = s.level[i]
        lst = s.lists + k * s.stride
        while s.cur[k] < s.lens[k] and lst[s.cur[k]] <= i:
            s.cur[k] += 1
        count[0] = s.lens[k] - s.cur[k]
        return lst + s.cur[k]
    out = s.lists
    v = key[i]
    c = 0
    for j in range(i + 1, n):
        out[c] = <int32_t>j
        c += key[j] != v
    count[0] = c
    return out


# ----------------------------------------------------------------------------- pair loops
#
# Loop shape shared by the three modes. The outer document (rank i) keeps its
# running sums in registers: it receives its contributions in partner-rank
# order (first from ranks < i, already in memory, then from j = i+1, i+2, ...),
# exactly the order of the libraries' pair loops, so float32 sums are
# unchanged. The pair's orientation is a sign: with sg = +1 when rank i holds
# the higher label and -1 otherwise, s_h - s_l = sg (s_i - s_j) and
# G_h - G_l = sg (G_i - G_j) exactly (IEEE subtraction is sign-symmetric), and
# |D_h - D_l| = |D_i - D_j|; "x -= p" on the low side and "x += p" on the high
# side become "x + sg p" / "x - sg p" (multiplying by +-1 is exact).


cdef void _pairs_default(Py_ssize_t n, double inv, const LMParams* p, Scratch* s) noexcept nogil:
    # Exact logistic in double, double accumulation. Pairs: gains differ.
    cdef Py_ssize_t i, j, t, count, m = _pair_rows(n, p.trunc)
    cdef const int32_t* partners
    cdef double* g = s.dg
    cdef double* h = s.dh
    cdef const double* rs = s.rs
    cdef const double* rg = s.rg
    cdef const double* disc = p.disc
    cdef bint distance = p.score_norm and rs[0] != rs[n - 1]
    cdef double gi, si, di, sg, ds, dz, z, e, rho, rho1m, lam, hes, acc_g, acc_h
    cdef double total = 0.0, nf, sigma = p.sigma
    for i in range(n):
        g[i] = 0.0
        h[i] = 0.0
    _partners_init(rg, n, s)
    for i in range(m):
        gi = rg[i]
        si = rs[i]
        di = disc[i]
        acc_g = g[i]
        acc_h = h[i]
        partners = _partners_of(i, rg, n, s, &count)
        for t in range(count):
            j = partners[t]
            sg = <double>(2 * <int>(gi > rg[j]) - 1)     # branch-free: the order is unpredictable
            ds = sg * (si - rs[j])                       # s_h - s_l
            dz = (sg * (gi - rg[j])) * fabs(di - disc[j]) * inv
            if distance:
                dz = dz / (0.01 + fabs(ds))
            # rho = 1 / (1 + exp(sigma * ds)) and 1 - rho, without cancellation
            z = sigma * ds
            if z > 0.0:
                e = exp(-z)
                rho = e / (1.0 + e)
                rho1m = 1.0 / (1.0 + e)
            else:
                e = exp(z)
                rho = 1.0 / (1.0 + e)
                rho1m = e / (1.0 + e)
            lam = -sigma * dz * rho                      # added to the high document
            hes = sigma * sigma * dz * (rho * rho1m)
            acc_g = acc_g + sg * lam
            g[j] = g[j] - sg * lam
            acc_h = acc_h + hes
            h[j] = h[j] + hes
            total = total - 2.0 * lam
        g[i] = acc_g
        h[i] = acc_h
    if p.list_norm and total > 0.0:
        nf = log2(1.0 + total) / total
        for i in range(n):
            g[i] = g[i] * nf
            h[i] = h[i] * nf


cdef void _pairs_lightgbm(Py_ssize_t n, double inv, const LMParams* p, Scratch* s) noexcept nogil:
    # LightGBM 4.x LambdarankNDCG::GetGradientsForOneQuery, operation for operation:
    #   ds = s_h - s_l; dZ = (G_h - G_l) * |D_h - D_l| * inv [/ (0.01f + |ds|)]
    #   p = sigmoid_table(ds); ph = p * (1 - p); p *= (-sigma) * dZ; ph *= (sigma * sigma) * dZ
    #   lam[l] -= f32(p); hes[l] += f32(ph); lam[h] += f32(p); hes[h] += f32(ph); S -= 2 p
    cdef Py_ssize_t i, j, r, t, count, m = _pair_rows(n, p.trunc)
    cdef const int32_t* partners
    cdef float* g = s.fg
    cdef float* h = s.fh
    cdef const double* rs = s.rs
    cdef const double* rl = s.rl
    cdef const double* rg = s.rg
    cdef const double* disc = p.disc
    cdef const double* table = p.sig_table
    cdef double lo = p.sig_lo, hi = p.sig_hi, factor = p.sig_factor
    cdef size_t last = <size_t>(p.sig_bins - 1), b
    cdef bint distance = p.score_norm and rs[0] != rs[n - 1]
    cdef double yi, si, gi, di, sg, ds, dz, pl, ph, total = 0.0, nf
    cdef double neg_sigma = -p.sigma
    cdef double sigma2 = p.sigma * p.sigma
    cdef float p32, h32, sg32, acc_g, acc_h
    for r in range(n):
        g[r] = 0.0
        h[r] = 0.0
    _partners_init(rl, n, s)
    for i in range(m):
        yi = rl[i]
        si = rs[i]
        gi = rg[i]
        di = disc[i]
        acc_g = g[i]
        acc_h = h[i]
        partners = _partners_of(i, rl, n, s, &count)
        for t in range(count):
            j = partners[t]
            sg = <double>(2 * <int>(yi > rl[j]) - 1)     # branch-free: the order is unpredictable
            ds = sg * (si - rs[j])
            dz = (sg * (gi - rg[j])) * fabs(di - disc[j]) * inv
            if distance:
                dz = dz / (LGB_SCORE_EPS + fabs(ds))
            # GetSigmoid: the table value at the left edge of ds's bin
            if ds <= lo:
                pl = table[0]
            elif ds >= hi:
                pl = table[last]
            else:
                b = <size_t>((ds - lo) * factor)
                if b > last:          # C++ would read past the end; clamp instead
                    b = last
                pl = table[b]
            ph = pl * (1.0 - pl)
            pl = pl * (neg_sigma * dz)
            ph = ph * (sigma2 * dz)
            p32 = <float>pl
            h32 = <float>ph
            sg32 = <float>sg
            acc_g = acc_g + sg32 * p32
            g[j] = g[j] - sg32 * p32
            acc_h = acc_h + h32
            h[j] = h[j] + h32
            total = total - 2.0 * pl
        g[i] = acc_g
        h[i] = acc_h
    if p.list_norm and total > 0.0:
        nf = log2(1.0 + total) / total
        for r in range(n):
            g[r] = <float>(<double>g[r] * nf)
            h[r] = <float>(<double>h[r] * nf)


cdef void _pairs_xgboost(Py_ssize_t n, double inv, const LMParams* p, Scratch* s) noexcept nogil:
    # XGBoost 3.x LambdaRankNDCG (topk): MakePairs + LambdaGrad + DeltaNDCG:
    #   d = f32(s_h) - f32(s_l) (float); rho = Sigmoid(d) (float, expf)
    #   dZ = |((G_h D_h + G_l D_l) - (G_l D_h + G_h D_l)) * inv| [/ (|d| + 0.01)]
    #   lam = (rho - 1) dZ; H = max(rho (1 - rho), 1e-16) dZ 2
    #   g[h] += f32(lam); g[l] += -f32(lam); both hessians += f32(H); S += -2 f32(lam)
    cdef Py_ssize_t i, j, r, t, count
    cdef Py_ssize_t m = n if p.trunc > n else p.trunc
    cdef const int32_t* partners
    cdef float* g = s.fg
    cdef float* h = s.fh
    cdef const double* rs = s.rs
    cdef const double* rl = s.rl
    cdef const double* rg = s.rg
    cdef const double* disc = p.disc
    cdef bint distance = p.score_norm and <float>rs[0] != <float>rs[n - 1]
    cdef float si, d32, lam32, hes32, nf32, sg32, acc_g, acc_h
    cdef double yi, gi, di, gj, dj, rho, dz, lam, hes, total = 0.0, nf
    for r in range(n):
        g[r] = 0.0
        h[r] = 0.0
    _partners_init(rl, n, s)
    for i in range(m):
        yi = rl[i]
        si = <float>rs[i]
        gi = rg[i]
        di = disc[i]
        acc_g = g[i]
        acc_h = h[i]
        partners = _partners_of(i, rl, n, s, &count)
        for t in range(count):
            j = partners[t]
            sg32 = <float>(2 * <int>(yi > rl[j]) - 1)    # branch-free: the order is unpredictable
            d32 = sg32 * (si - <float>rs[j])             # f32(s_h) - f32(s_l)
            rho = <double>_xgb_sigmoid(d32)
            gj = rg[j]
            dj = disc[j]
            # (G_h D_h + G_l D_l) - (G_l D_h + G_h D_l): the same value whichever of
            # i, j is high (the sums commute), and |.| takes care of the sign.
            dz = fabs(((gi * di + gj * dj) - (gj * di + gi * dj)) * inv)
            if distance:
                dz = dz / (<double>fabsf(d32) + 0.01)
            lam = (rho - 1.0) * dz
            hes = rho * (1.0 - rho)
            if hes < XGB_EPS64:
                hes = XGB_EPS64
            hes = hes * dz * 2.0
            lam32 = <float>lam
            hes32 = <float>hes
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


# ----------------------------------------------------------------------------- one query


cdef void _grad_one_query(const floating* sc, const label_t* lab, const int64_t* keys,
                          Py_ssize_t n, double inv, double qw, bint has_qw, const double* rw,
                          const LMParams* p, Scratch* s,
                          out_t* grad, out_t* hess) noexcept nogil:
    cdef Py_ssize_t r, i
    cdef double gd, hd
    cdef float gf, hf, w32
    if n < 2 or inv == 0.0 or n < p.short_limit:
        # No pair can contribute (or the convention zeroes the query).
        for i in range(n):
            grad[i] = 0.0
            hess[i] = 0.0
        return
    _rank_query(sc, lab, keys, n, p, s)
    if p.mode == MODE_DEFAULT:
        _pairs_default(n, inv, p, s)
        for r in range(n):
            i = s.docs[r].idx
            gd = s.dg[r]
            hd = s.dh[r]
            if has_qw:
                gd = gd * qw
                hd = hd * qw
            if rw != NULL:
                gd = gd * rw[i]
                hd = hd * rw[i]
            grad[i] = <out_t>gd
            hess[i] = <out_t>hd
        return
    if p.mode == MODE_LIGHTGBM:
        _pairs_lightgbm(n, inv, p, s)
    else:
        _pairs_xgboost(n, inv, p, s)
    for r in range(n):
        i = s.docs[r].idx
        gf = s.fg[r]
        hf = s.fh[r]
        if has_qw:
            w32 = <float>qw
            gf = gf * w32
            hf = hf * w32
            if p.mode == MODE_XGBOOST:
                w32 = <float>p.w_norm
                gf = gf * w32
                hf = hf * w32
        if rw != NULL:
            # LightGBM RankingObjective: per-row float weights, float product.
            w32 = <float>rw[i]
            gf = gf * w32
            hf = hf * w32
        grad[i] = gf
        hess[i] = hf


cdef Scratch _alloc_scratch(Py_ssize_t max_n) noexcept nogil:
    # Returned by value so that the assignment in a parallel block makes the
    # struct thread-private.
    cdef Scratch s
    cdef size_t m = <size_t>(max_n + 1)
    s.docs = <RankedDoc*>malloc(m * sizeof(RankedDoc))
    s.rs = <double*>malloc(m * sizeof(double))
    s.rl = <double*>malloc(m * sizeof(double))
    s.rg = <double*>malloc(m * sizeof(double))
    s.dg = <double*>malloc(m * sizeof(double))
    s.dh = <double*>malloc(m * sizeof(double))
    s.fg = <float*>malloc(m * sizeof(float))
    s.fh = <float*>malloc(m * sizeof(float))
    s.stride = <Py_ssize_t>m
    s.lists = <int32_t*>malloc(MAX_LEVELS * m * sizeof(int32_t))
    s.level = <int32_t*>malloc(m * sizeof(int32_t))
    s.n_levels = 0
    return s


cdef bint _scratch_ok(const Scratch* s) noexcept nogil:
    return not (s.docs == NULL or s.rs == NULL or s.rl == NULL or s.rg == NULL
                or s.dg == NULL or s.dh == NULL or s.fg == NULL or s.fh == NULL
                or s.lists == NULL or s.level == NULL)


cdef void _free_scratch(Scratch* s) noexcept nogil:
    free(s.docs)
    free(s.rs)
    free(s.rl)
    free(s.rg)
    free(s.dg)
    free(s.dh)
    free(s.fg)
    free(s.fh)
    free(s.lists)
    free(s.level)


cdef void _params(LMParams* p, int mode, Py_ssize_t trunc, Py_ssize_t short_limit, double sigma,
                  bint score_norm, bint list_norm, bint linear, bint round_f32, bint key_desc,
                  const double* table, const double* disc, const double* sig_table,
                  double sig_lo, double sig_hi, double sig_factor, Py_ssize_t sig_bins,
                  double w_norm) noexcept nogil:
    p.mode = mode
    p.trunc = trunc
    p.short_limit = short_limit
    p.sigma = sigma
    p.score_norm = score_norm
    p.list_norm = list_norm
    p.linear = linear
    p.round_f32 = round_f32
    p.key_desc = key_desc
    p.table = table
    p.disc = disc
    p.sig_table = sig_table
    p.sig_lo = sig_lo
    p.sig_hi = sig_hi
    p.sig_factor = sig_factor
    p.sig_bins = sig_bins
    p.w_norm = w_norm


# ----------------------------------------------------------------------------- batch drivers


def grad_hess_batch(const floating[::1] scores,             # IN
                    const label_t[::1] labels,              # IN
                    const int64_t[::1] offsets,             # IN
                    const int64_t[::1] tie_key,             # IN empty unless ties by key
                    bint key_desc, bint round_f32,
                    const double[::1] table, bint linear,   # IN gain table (unused if linear)
                    const double[::1] disc,                 # IN D(rank), rank 0-based, >= max_n entries
                    const double[::1] inv_ideal,            # IN 1 / IDCG per query (0 when IDCG = 0)
                    const double[::1] query_weights,        # IN empty or (n_queries,)
                    const double[::1] row_weights,          # IN empty or (n_docs,)
                    int mode, Py_ssize_t trunc, Py_ssize_t short_limit, double sigma,
                    bint score_norm, bint list_norm,
                    const double[::1] sig_table,            # IN LightGBM sigmoid table (or empty)
                    double sig_lo, double sig_hi, double sig_factor,
                    double w_norm,
                    out_t[::1] grad,                        # OUT (n_docs,)
                    out_t[::1] hess,                        # OUT (n_docs,)
                    Py_ssize_t max_n, int n_threads):
    cdef Py_ssize_t q, n, n_queries = offsets.shape[0] - 1
    cdef const floating* sc = &scores[0] if scores.shape[0] > 0 else NULL
    cdef const label_t* lab = &labels[0] if labels.shape[0] > 0 else NULL
    cdef const int64_t* keys = &tie_key[0] if tie_key.shape[0] > 0 else NULL
    cdef const double* tab = &table[0] if table.shape[0] > 0 else NULL
    cdef const double* dsc = &disc[0] if disc.shape[0] > 0 else NULL
    cdef const double* inv = &inv_ideal[0] if inv_ideal.shape[0] > 0 else NULL
    cdef const double* qw = &query_weights[0] if query_weights.shape[0] > 0 else NULL
    cdef const double* rw = &row_weights[0] if row_weights.shape[0] > 0 else NULL
    cdef const double* sig = &sig_table[0] if sig_table.shape[0] > 0 else NULL
    cdef const int64_t* off = &offsets[0]
    cdef out_t* g = &grad[0] if grad.shape[0] > 0 else NULL
    cdef out_t* h = &hess[0] if hess.shape[0] > 0 else NULL
    cdef LMParams prm
    cdef LMParams* pp = &prm
    cdef Scratch s
    cdef int failed = 0
    cdef int* failed_flag = &failed   # written through a pointer: shared, not thread-private
    if n_queries == 0 or scores.shape[0] == 0:
        return
    _params(pp, mode, trunc, short_limit, sigma, score_norm, list_norm, linear, round_f32,
            key_desc, tab, dsc, sig, sig_lo, sig_hi, sig_factor, sig_table.shape[0], w_norm)
    with nogil, parallel(num_threads=n_threads):
        s = _alloc_scratch(max_n)
        if not _scratch_ok(&s):
            failed_flag[0] = 1
        else:
            for q in prange(n_queries, schedule="dynamic", chunksize=8):
                n = off[q + 1] - off[q]
                _grad_one_query(sc + off[q], lab + off[q],
                                keys + off[q] if keys != NULL else NULL, n, inv[q],
                                qw[q] if qw != NULL else 1.0, qw != NULL,
                                rw + off[q] if rw != NULL else NULL,
                                pp, &s, g + off[q], h + off[q])
        _free_scratch(&s)
    if failed:
        raise MemoryError("fastndcg: could not allocate per-thread scratch")


# ----------------------------------------------------------------------------- research: pairs


cdef Py_ssize_t _pairs_one_query(const floating* sc, const label_t* lab, const int64_t* keys,
                                 Py_ssize_t n, double inv, bint cut_discount,
                                 const LMParams* p, Scratch* s,
                                 int64_t* out_hi, int64_t* out_lo, int64_t* out_rhi,
                                 int64_t* out_rlo, double* out_delta) noexcept nogil:
    # |dNDCG| of every LambdaMART pair of one query, in pair-loop order.
    cdef Py_ssize_t i, j, hr, lr, c = 0, m
    cdef double dh_, dl_
    if n < 2:
        return 0
    m = _pair_rows(n, p.trunc)
    _rank_query(sc, lab, keys, n, p, s)
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
            dh_ = p.disc[hr]
            dl_ = p.disc[lr]
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


def pairs_batch(const floating[::1] scores,                 # IN
                const label_t[::1] labels,                  # IN
                const int64_t[::1] offsets,                 # IN
                const int64_t[::1] tie_key,                 # IN empty unless ties by key
                bint key_desc, bint round_f32,
                const double[::1] table, bint linear,
                const double[::1] disc,
                const double[::1] inv_ideal,                # IN per query
                const int64_t[::1] queries,                 # IN selected query ids
                const int64_t[::1] slots,                   # IN (n_selected + 1,) output slot bounds
                Py_ssize_t trunc, bint cut_discount,
                int64_t[::1] out_hi, int64_t[::1] out_lo,   # OUT rows (within the query)
                int64_t[::1] out_rhi, int64_t[::1] out_rlo, # OUT ranks (0-based)
                double[::1] out_delta,                      # OUT |dNDCG|
                int64_t[::1] out_count,                     # OUT pairs written per selected query
                Py_ssize_t max_n, int n_threads):
    cdef Py_ssize_t t, q, n, n_sel = queries.shape[0]
    cdef const floating* sc = &scores[0] if scores.shape[0] > 0 else NULL
    cdef const label_t* lab = &labels[0] if labels.shape[0] > 0 else NULL
    cdef const int64_t* keys = &tie_key[0] if tie_key.shape[0] > 0 else NULL
    cdef const double* tab = &table[0] if table.shape[0] > 0 else NULL
    cdef const double* dsc = &disc[0] if disc.shape[0] > 0 else NULL
    cdef const int64_t* off = &offsets[0]
    cdef const int64_t* sel = &queries[0] if n_sel > 0 else NULL
    cdef const int64_t* slot = &slots[0]
    cdef int64_t* o_hi = &out_hi[0] if out_hi.shape[0] > 0 else NULL
    cdef int64_t* o_lo = &out_lo[0] if out_lo.shape[0] > 0 else NULL
    cdef int64_t* o_rhi = &out_rhi[0] if out_rhi.shape[0] > 0 else NULL
    cdef int64_t* o_rlo = &out_rlo[0] if out_rlo.shape[0] > 0 else NULL
    cdef double* o_d = &out_delta[0] if out_delta.shape[0] > 0 else NULL
    cdef LMParams prm
    cdef LMParams* pp = &prm
    cdef Scratch s
    cdef int failed = 0
    cdef int* failed_flag = &failed
    if n_sel == 0:
        return
    _params(pp, MODE_DEFAULT, trunc, 0, 1.0, False, False, linear, round_f32, key_desc,
            tab, dsc, NULL, 0.0, 0.0, 0.0, 0, 1.0)
    with nogil, parallel(num_threads=n_threads):
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
