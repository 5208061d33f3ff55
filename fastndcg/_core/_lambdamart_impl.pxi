# LambdaMART kernels: lambda gradients and hessians per document over CSR queries.
#
# Layers (as in _ndcg.pyx): per-query `cdef ... noexcept nogil` functions that
# take base pointers plus a length and write only their own query's rows; `def`
# batch drivers that run `prange` over queries with per-thread malloc scratch;
# the Python wrappers in `lambdamart.py` / `debias.py` that validate, resolve
# the convention into tables, cache the ideal DCG, allocate outputs and keep
# the state carried between boosting rounds. Nothing reduces across queries
# inside prange (the position-bias reductions are separate, sequential
# functions), so results are bit-identical for any thread count. Inputs are
# assumed valid.
#
# Per query: rank the documents with THE comparator of _rank.pxd (score
# descending, tie key, then position; bucket sort for all but tiny queries,
# see _rank.pxd), copy score / label / gain into arrays in rank order, run the
# pair loop of the chosen mode in rank space, then scatter to the input rows.
#
# Three numeric modes (see docs/lambdamart.md and ../shared/docs/lambdarank.md):
#   default   exact logistic in double, double accumulation, any convention;
#   lightgbm  LightGBM 4.x lambdarank to the bit: 2^20-bin sigmoid table,
#             float32 accumulation in pair-loop order, 0.01f, label order;
#   xgboost   XGBoost 3.x rank:ndcg to the bit: float32 scores, expf sigmoid,
#             2x hessian, its normalisation and group weights; topk pairs or
#             its `mean` pairs drawn with std::minstd_rand.
# and two position-debiasing schemes:
#   LightGBM  (Dataset `position`): every score is shifted by a float32 factor
#             of its position before ranking; the factors are updated by
#             lightgbm_position_bias_update after each round;
#   XGBoost   (lambdarank_unbiased): each pair's lambda and hessian are divided
#             by t+[idx_high] * t-[idx_low] (idx = position in the query), and
#             the pair costs are summed per row for xgboost_unbiased_update.
# Bit-exactness needs the exact parenthesisation below, no FMA contraction
# (setup.py builds with -ffp-contract=off) and libc exp/expf/log/log2/pow.
#
# Loop shape (all modes): pair row i (the document at rank i < T) meets its
# partners, the ranks j > i whose label (gain, in default mode) differs, in
# ascending order. The per-pair values that do not depend on the running sums
# are computed first, over every rank j > i in one branch-free, vectorised
# pass (pass A; equal-label ranks are computed and ignored), or over the
# partners when they need a libm call (pass B); the running float32 (double,
# in default mode) sums then follow in pair-loop order (pass C). The sums are
# the libraries' sums, term for term and in order: only independent work was
# moved.
from cython cimport floating
from cython.parallel cimport parallel, prange
from libc.float cimport DBL_MAX
from libc.math cimport exp, expf, fabs, fabsf, log, log2, pow
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

from fastndcg._core._rank cimport (RankedDoc, bucket_sort_docs, gain_of, label_t, make_doc, ranked_score,
                             sort_docs)

cdef extern from *:
    """
    typedef double* __restrict__ fastndcg_dptr_r;
    typedef const double* __restrict__ fastndcg_cdptr_r;
    typedef float* __restrict__ fastndcg_fptr_r;
    typedef const float* __restrict__ fastndcg_cfptr_r;
    typedef int32_t* __restrict__ fastndcg_iptr_r;
    #if defined(__GNUC__) || defined(__clang__)
    #define FASTNDCG_PREFETCH(p) __builtin_prefetch((const void*)(p))
    #else
    #define FASTNDCG_PREFETCH(p) ((void)0)
    #endif
    static int fastndcg_cpu_has_avx2(void) {
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    #else
        return 0;
    #endif
    }
    #if defined(__AVX2__)
    #define FASTNDCG_BUILT_AVX2 1
    #else
    #define FASTNDCG_BUILT_AVX2 0
    #endif
    """
    void prefetch "FASTNDCG_PREFETCH"(const void* p) noexcept nogil
    int _cpu_has_avx2 "fastndcg_cpu_has_avx2"() noexcept nogil
    int BUILT_AVX2 "FASTNDCG_BUILT_AVX2"
    ctypedef double* dptr_r "fastndcg_dptr_r"
    ctypedef const double* cdptr_r "fastndcg_cdptr_r"
    ctypedef float* fptr_r "fastndcg_fptr_r"
    ctypedef const float* cfptr_r "fastndcg_cfptr_r"
    ctypedef int32_t* iptr_r "fastndcg_iptr_r"

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
# std::minstd_rand: x <- 48271 x mod (2^31 - 1), outputs in [1, 2^31 - 2].
cdef uint64_t MINSTD_A = 48271
cdef uint64_t MINSTD_M = 2147483647


cdef struct LMParams:
    int mode
    Py_ssize_t trunc          # pairs need min(rank) < trunc
    Py_ssize_t short_limit    # queries with n < short_limit get zero (LETOR short rule)
    double sigma
    bint score_norm           # divide |dNDCG| by (eps + |ds|) unless all scores are equal
    bint list_norm            # scale the query by log2(1 + S) / S (mean pairs: by 1 / num_pair)
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
    const float* pos_bias     # LightGBM position bias factor per position id (NULL: none)
    const double* t_plus      # XGBoost unbiased: t+ and t- per position (NULL: not unbiased)
    const double* t_minus
    Py_ssize_t bias_k         # their length
    bint mean_pairs           # XGBoost lambdarank_pair_method="mean"
    Py_ssize_t num_pair       # its pairs per document
    uint32_t seed_base        # seed_round * n_groups, modulo 2^32 (the query adds its index)


cdef struct QueryIO:
    # One query's slices of the batch arrays (NULL where not used).
    Py_ssize_t n
    double inv
    double qw
    bint has_qw
    const int64_t* keys
    const int32_t* pos        # position ids (LightGBM position bias)
    const double* rw          # row weights
    double* li                # XGBoost unbiased: per-row cost sums (OUT)
    double* lj
    uint32_t seed             # XGBoost mean pairs


cdef enum:
    BUCKET_MIN = 16           # larger queries are ranked by bucket sort
    SLOTS = 2                 # LightGBM mode: rows in flight (row i + 1's pass A, row i's sums)
    MAX_LEVELS = 8            # partner lists are kept for up to this many distinct labels


cdef struct Scratch:
    RankedDoc* docs
    RankedDoc* src            # documents in input order (bucket ranking; mean-pair label order)
    Py_ssize_t* counts        # bucket bounds
    double* rs                # score by rank
    float* rsf                # float32 score by rank (xgboost mode)
    double* rl                # label by rank
    double* rg                # gain by rank
    double* dg                # double accumulators (default mode)
    double* dh
    float* fg                 # float accumulators (exact modes)
    float* fh
    int32_t* lists            # MAX_LEVELS lists of stride `stride` (see _partners_init)
    int32_t* level            # by rank: index of the rank's label among `levels`
    const int32_t* slot_list[SLOTS]   # partners of the rows in flight
    Py_ssize_t slot_count[SLOTS]
    double* ta                # per-pair temporaries (SLOTS rows of `stride`)
    double* tb
    double* tc
    float* tf
    int32_t* ti
    Py_ssize_t stride
    Py_ssize_t n_levels       # 0: too many distinct labels, partners found row by row
    double levels[MAX_LEVELS]
    Py_ssize_t lens[MAX_LEVELS]
    Py_ssize_t cur[MAX_LEVELS]


def cpu_has_avx2():
    """True if this CPU (and OS) can run AVX2 code."""
    return bool(_cpu_has_avx2())


def built_for_avx2():
    """True if this module was compiled with AVX2 enabled."""
    return bool(BUILT_AVX2)


# ----------------------------------------------------------------------------- helpers


cdef inline double _query_score(const floating* sc, const QueryIO* q, const LMParams* p,
                                Py_ssize_t i) noexcept nogil:
    # The score the query is ranked and differentiated by: LightGBM adds the
    # position's bias factor (double + float, as `score + pos_biases_[pos]`).
    cdef double x
    if q.pos == NULL:
        return ranked_score(sc[i], p.round_f32)
    x = <double>sc[i] + <double>p.pos_bias[q.pos[i]]
    if p.round_f32:
        x = <double>(<float>x)
    return x


cdef inline void _rank_query(const floating* sc, const label_t* lab, const QueryIO* q,
                             const LMParams* p, Scratch* s) noexcept nogil:
    cdef Py_ssize_t i, r, n = q.n
    cdef bint done = False
    if n > BUCKET_MIN:
        for i in range(n):
            make_doc(&s.src[i], _query_score(sc, q, p, i), q.keys, p.key_desc, i)
        done = bucket_sort_docs(s.src, s.docs, s.counts, n)
    if not done:
        for i in range(n):
            make_doc(&s.docs[i], _query_score(sc, q, p, i), q.keys, p.key_desc, i)
        sort_docs(s.docs, n)
    for r in range(n):
        i = s.docs[r].idx
        s.rs[r] = s.docs[r].score
        s.rl[r] = <double>lab[i]
        s.rg[r] = gain_of(lab[i], p.table, p.linear)
    if p.mode == MODE_XGBOOST:
        for r in range(n):
            s.rsf[r] = <float>s.rs[r]


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
# the ranks whose label is not v, ascending, built when the first row of that
# label needs it (from the rank after it on); row i walks the list of its own
# label from the first rank > i (a cursor that only moves forward). With more
# distinct labels, row i compacts its partners branch-free into a buffer.
# Either way the partners come in ascending rank order: the pair loop order,
# hence the floating-point results, are unchanged.


cdef void _partners_init(const double* key, Py_ssize_t n, Scratch* s) noexcept nogil:
    # The level (index among the distinct keys, in order of appearance) of
    # every rank; lists are built on first use (_partners_of).
    cdef Py_ssize_t r, k, found, n_levels = 0
    cdef double v
    for r in range(n):
        v = key[r]
        found = -1
        for k in range(n_levels):              # branch-free: no test per level
            found = k if s.levels[k] == v else found
        if found < 0:                           # a new level: at most MAX_LEVELS times
            if n_levels == MAX_LEVELS:
                s.n_levels = 0
                return
            s.levels[n_levels] = v
            found = n_levels
            n_levels += 1
        s.level[r] = <int32_t>found
    for k in range(n_levels):
        s.lens[k] = -1                          # not built yet
    s.n_levels = n_levels


cdef inline const int32_t* _partners_of(Py_ssize_t i, const double* key, Py_ssize_t n, Scratch* s,
                                        Py_ssize_t* count, int32_t* buf) noexcept nogil:
    """The ranks j > i with key[j] != key[i], ascending: a pointer and a count.
    ``buf`` (n entries) holds them when there are too many distinct keys.
    Rows come in increasing i: the list of a level is built when its first
    row needs it (ranks after that row), then walked with a forward cursor."""
    cdef Py_ssize_t k, c, j
    cdef int32_t* lst
    cdef double v
    if s.n_levels > 0:
        k = s.level[i]
        lst = s.lists + k * s.stride
        if s.lens[k] < 0:
            c = 0
            for j in range(i + 1, n):           # branch-free: write always, keep if another level
                lst[c] = <int32_t>j
                c += s.level[j] != k
            s.lens[k] = c
            s.cur[k] = 0
        while s.cur[k] < s.lens[k] and lst[s.cur[k]] <= i:
            s.cur[k] += 1
        count[0] = s.lens[k] - s.cur[k]
        return lst + s.cur[k]
    v = key[i]
    c = 0
    for j in range(i + 1, n):
        buf[c] = <int32_t>j
        c += key[j] != v
    count[0] = c
    return buf


# ----------------------------------------------------------------------------- default mode
#
# Pair orientation as a sign: with sg = +1 when rank i holds the higher gain
# (label, in the exact modes) and -1 otherwise, s_h - s_l = sg (s_i - s_j) and
# G_h - G_l = sg (G_i - G_j) exactly (IEEE subtraction is sign-symmetric), and
# |D_h - D_l| = |D_i - D_j|; "x -= p" on the low side and "x += p" on the high
# side become "x + sg p" / "x - sg p" (multiplying by +-1 is exact).


cdef void _default_pass_a(Py_ssize_t start, Py_ssize_t n, double gi, double si, double di,
                          double inv, bint distance, double sigma, cdptr_r rs, cdptr_r rg,
                          cdptr_r disc, dptr_r out_sg, dptr_r out_z, dptr_r out_dz) noexcept nogil:
    # For every rank j in [start, n): sg, z = sigma (s_h - s_l), |dNDCG| (/ (0.01 + |ds|)).
    # (Two copies of the loop: a test inside it would stop the vectorisation.)
    cdef Py_ssize_t j
    cdef double sg, ds, dz
    if distance:
        for j in range(start, n):
            sg = 1.0 if gi > rg[j] else -1.0
            ds = sg * (si - rs[j])
            dz = (sg * (gi - rg[j])) * fabs(di - disc[j]) * inv
            out_sg[j] = sg
            out_z[j] = sigma * ds
            out_dz[j] = dz / (0.01 + fabs(ds))
    else:
        for j in range(start, n):
            sg = 1.0 if gi > rg[j] else -1.0
            ds = sg * (si - rs[j])
            out_sg[j] = sg
            out_z[j] = sigma * ds
            out_dz[j] = (sg * (gi - rg[j])) * fabs(di - disc[j]) * inv


# e^-a in the default mode's own arithmetic: vectorisable, so that the
# logistic of every pair is computed four (AVX2) or two at a time. Cody-Waite
# reduction a = k ln2 + r (|r| <= ln2 / 2, k found by the round-to-nearest of
# x + 1.5 * 2^52), a degree-13 Taylor polynomial (truncation < 1e-17), and the
# scaling by 2^-k as two exact powers of two, so that results below 2^-1022
# are rounded once into the subnormals. Accurate to about 1 ulp (the tests
# compare it with the C library's exp: within 3e-16 relative); the default
# mode does not reproduce a library, so its logistic need only be exact in
# double.
cdef double EXP_MAGIC = 6755399441055744.0          # 1.5 * 2^52: adding it rounds to an integer
cdef double LOG2E = 1.4426950408889634
cdef double LN2_HI = 0.6931471803691238             # ln 2 with its low 21 bits zero
cdef double LN2_LO = 1.9082149292705877e-10
cdef uint64_t MAGIC_BITS = 0x4338000000000000ULL    # the bits of EXP_MAGIC


cdef inline double _pow2(double k) noexcept nogil:
    # 2^k for an integer-valued k in [-1022, 1023], built from its bits.
    cdef double t = k + EXP_MAGIC
    cdef uint64_t b
    cdef double out
    memcpy(&b, &t, 8)
    b = (b - MAGIC_BITS + 1023) << 52
    memcpy(&out, &b, 8)
    return out


cdef inline double _exp_neg(double a) noexcept nogil:
    """e^-a for 0 <= a (0 beyond a = 745.2, where e^-a rounds to 0)."""
    cdef double x, k, r, q, ka
    x = -a if a < 745.2 else -745.2
    k = (x * LOG2E + EXP_MAGIC) - EXP_MAGIC           # nearest integer to x / ln 2
    r = (x - k * LN2_HI) - k * LN2_LO
    q = 1.0 / 6227020800.0
    q = q * r + 1.0 / 479001600.0
    q = q * r + 1.0 / 39916800.0
    q = q * r + 1.0 / 3628800.0
    q = q * r + 1.0 / 362880.0
    q = q * r + 1.0 / 40320.0
    q = q * r + 1.0 / 5040.0
    q = q * r + 1.0 / 720.0
    q = q * r + 1.0 / 120.0
    q = q * r + 1.0 / 24.0
    q = q * r + 1.0 / 6.0
    q = q * r + 0.5
    q = q * r + 1.0
    q = q * r + 1.0
    ka = (k * 0.5 + EXP_MAGIC) - EXP_MAGIC            # k = ka + (k - ka), both >= -538
    return (q * _pow2(ka)) * _pow2(k - ka)


def exp_neg(const double[::1] a, double[::1] out):
    """e^-a elementwise with the default mode's exp (a >= 0), for the tests."""
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        out[i] = _exp_neg(a[i])


cdef void _default_logistic(Py_ssize_t count, cdptr_r z, dptr_r rho, dptr_r rho1m) noexcept nogil:
    # rho = 1 / (1 + e^z) and 1 - rho = e^z / (1 + e^z), from e = e^-|z| (no cancellation).
    cdef Py_ssize_t t
    cdef double e, r, er, x
    for t in range(count):
        x = z[t]
        e = _exp_neg(fabs(x))
        r = 1.0 / (1.0 + e)
        er = e * r
        rho[t] = er if x > 0.0 else r
        rho1m[t] = r if x > 0.0 else er


cdef void _pairs_default(Py_ssize_t n, double inv, const LMParams* p, Scratch* s) noexcept nogil:
    # Exact logistic in double, double accumulation. Pairs: gains differ.
    cdef Py_ssize_t i, j, t, count, m = _pair_rows(n, p.trunc)
    cdef const int32_t* partners
    cdef double* g = s.dg
    cdef double* h = s.dh
    cdef const double* rs = s.rs
    cdef const double* rg = s.rg
    cdef bint distance = p.score_norm and rs[0] != rs[n - 1]
    cdef double* tsg = s.ta
    cdef double* tz = s.tb
    cdef double* tdz = s.tc
    cdef double* trho = s.ta + s.stride
    cdef double* trho1m = s.tb + s.stride
    cdef double* tzc = s.tc + s.stride
    cdef double rho, rho1m, dz, sg, lam, hes, acc_g, acc_h
    cdef double total = 0.0, nf, sigma = p.sigma
    cdef double neg_sigma = -p.sigma, sigma2 = p.sigma * p.sigma
    for i in range(n):
        g[i] = 0.0
        h[i] = 0.0
    _partners_init(rg, n, s)
    for i in range(m):
        _default_pass_a(i + 1, n, rg[i], rs[i], p.disc[i], inv, distance, sigma, rs, rg, p.disc,
                        tsg, tz, tdz)
        partners = _partners_of(i, rg, n, s, &count, s.lists)
        for t in range(count):                           # pass B: the logistic, vectorised
            tzc[t] = tz[partners[t]]
        _default_logistic(count, tzc, trho, trho1m)
        acc_g = g[i]
        acc_h = h[i]
        for t in range(count):                           # pass C: the sums
            j = partners[t]
            sg = tsg[j]
            dz = tdz[j]
            rho = trho[t]
            rho1m = trho1m[t]
            lam = neg_sigma * dz * rho                   # added to the high document
            hes = sigma2 * dz * (rho * rho1m)
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


# ----------------------------------------------------------------------------- LightGBM mode


cdef void _lgb_pass_a(Py_ssize_t start, Py_ssize_t n, double yi, double si, double gi, double di,
                      double inv, bint distance, double neg_sigma, double sigma2,
                      cdptr_r rs, cdptr_r rl, cdptr_r rg, cdptr_r disc,
                      double lo, double factor, double last,
                      dptr_r out_c1, dptr_r out_c2, dptr_r out_m2, iptr_r out_bin) noexcept nogil:
    # For every rank j in [start, n), the factors of the pair's lambda and
    # hessian and the sigmoid-table bin of ds:
    #   c1 = sg * ((-sigma) * dZ)  (p_lambda = sigmoid * c1, signed for rank i)
    #   c2 = (sigma * sigma) * dZ  (p_hessian = sigmoid * (1 - sigmoid) * c2)
    #   m2 = -2 sg                 (S -= 2 p_lambda  is  S += m2 * (sigmoid * c1))
    #   bin: ds <= lo -> 0, ds >= hi -> bins - 1, else floor((ds - lo) * factor)
    #        (clamped to bins - 1, where C++ would read past the end).
    # sg = +-1 multiplies exactly, so the products are LightGBM's up to sign.
    # (Two copies of the loop: a test inside it would stop the vectorisation.)
    cdef Py_ssize_t j
    cdef double sg, ds, dz, x
    cdef double eps = LGB_SCORE_EPS
    if distance:
        for j in range(start, n):
            sg = 1.0 if yi > rl[j] else -1.0
            ds = sg * (si - rs[j])
            dz = (sg * (gi - rg[j])) * fabs(di - disc[j]) * inv
            dz = dz / (eps + fabs(ds))
            x = (ds - lo) * factor
            x = x if x > 0.0 else 0.0
            x = x if x < last else last
            out_bin[j] = <int32_t>x
            out_c1[j] = sg * (neg_sigma * dz)
            out_c2[j] = sigma2 * dz
            out_m2[j] = -2.0 * sg
    else:
        for j in range(start, n):
            sg = 1.0 if yi > rl[j] else -1.0
            ds = sg * (si - rs[j])
            dz = (sg * (gi - rg[j])) * fabs(di - disc[j]) * inv
            x = (ds - lo) * factor
            x = x if x > 0.0 else 0.0
            x = x if x < last else last
            out_bin[j] = <int32_t>x
            out_c1[j] = sg * (neg_sigma * dz)
            out_c2[j] = sigma2 * dz
            out_m2[j] = -2.0 * sg


cdef inline void _lgb_stage(Py_ssize_t i, Py_ssize_t n, double inv, bint distance,
                            const LMParams* p, Scratch* s) noexcept nogil:
    # Pass A of row i into slot i % SLOTS, and its partners.
    cdef Py_ssize_t k = i % SLOTS, off = k * s.stride
    _lgb_pass_a(i + 1, n, s.rl[i], s.rs[i], s.rg[i], p.disc[i], inv, distance, -p.sigma,
                p.sigma * p.sigma, s.rs, s.rl, s.rg, p.disc, p.sig_lo, p.sig_factor,
                <double>(p.sig_bins - 1), s.ta + off, s.tb + off, s.tc + off, s.ti + off)
    s.slot_list[k] = _partners_of(i, s.rl, n, s, &s.slot_count[k], s.lists + off)


cdef void _pairs_lightgbm(Py_ssize_t n, double inv, const LMParams* p, Scratch* s) noexcept nogil:
    # LightGBM 4.x LambdarankNDCG::GetGradientsForOneQuery, operation for operation:
    #   ds = s_h - s_l; dZ = (G_h - G_l) * |D_h - D_l| * inv [/ (0.01f + |ds|)]
    #   p = sigmoid_table(ds); ph = p * (1 - p); p *= (-sigma) * dZ; ph *= (sigma * sigma) * dZ
    #   lam[l] -= f32(p); hes[l] += f32(ph); lam[h] += f32(p); hes[h] += f32(ph); S -= 2 p
    # Row i + 1's pass A, and prefetches of the sigmoid-table entries it will
    # read (the 8 MiB table is mostly cache misses), run before row i's sums,
    # so that the reads overlap the sums.
    cdef Py_ssize_t i, j, r, t, k, count, count_next, m = _pair_rows(n, p.trunc)
    cdef const int32_t* partners
    cdef const int32_t* partners_next
    cdef float* g = s.fg
    cdef float* h = s.fh
    cdef const double* table = p.sig_table
    cdef bint distance = p.score_norm and s.rs[0] != s.rs[n - 1]
    cdef double pl, q, total = 0.0, nf
    cdef float q32, h32, acc_g, acc_h
    cdef const double* tc1
    cdef const double* tc2
    cdef const double* tm2
    cdef const int32_t* tbin
    cdef const int32_t* nbin
    for r in range(n):
        g[r] = 0.0
        h[r] = 0.0
    if m == 0:
        return
    _partners_init(s.rl, n, s)
    _lgb_stage(0, n, inv, distance, p, s)
    for t in range(s.slot_count[0]):
        prefetch(table + s.ti[s.slot_list[0][t]])
    for i in range(m):
        k = i % SLOTS
        partners = s.slot_list[k]
        count = s.slot_count[k]
        tc1 = s.ta + k * s.stride
        tc2 = s.tb + k * s.stride
        tm2 = s.tc + k * s.stride
        tbin = s.ti + k * s.stride
        count_next = 0
        partners_next = partners
        nbin = tbin
        if i + 1 < m:
            _lgb_stage(i + 1, n, inv, distance, p, s)
            r = (i + 1) % SLOTS
            partners_next = s.slot_list[r]
            count_next = s.slot_count[r]
            nbin = s.ti + r * s.stride
        acc_g = g[i]
        acc_h = h[i]
        for t in range(count_next):
            prefetch(table + nbin[partners_next[t]])
        for t in range(count):
            j = partners[t]
            pl = table[tbin[j]]
            q = pl * tc1[j]
            q32 = <float>q
            h32 = <float>((pl * (1.0 - pl)) * tc2[j])
            acc_g = acc_g + q32
            g[j] = g[j] - q32
            acc_h = acc_h + h32
            h[j] = h[j] + h32
            total = total + tm2[j] * q
        g[i] = acc_g
        h[i] = acc_h
    if p.list_norm and total > 0.0:
        nf = log2(1.0 + total) / total
        for r in range(n):
            g[r] = <float>(<double>g[r] * nf)
            h[r] = <float>(<double>h[r] * nf)


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
        _xgb_pass_a(i + 1, n, rl[i], s.rsf[i], s.rg[i], p.disc[i], inv, distance, s.rsf, rl, s.rg,
                    p.disc, tsg, td, tdz)
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
    cdef const double* disc = p.disc
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
    if n < 2 or q.inv == 0.0 or n < p.short_limit:
        # No pair can contribute (or the convention zeroes the query).
        for i in range(n):
            grad[i] = 0.0
            hess[i] = 0.0
        return
    _rank_query(sc, lab, q, p, s)
    if p.mode == MODE_DEFAULT:
        _pairs_default(n, q.inv, p, s)
        for r in range(n):
            i = s.docs[r].idx
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
    for r in range(n):
        i = s.docs[r].idx
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
    cdef size_t m = <size_t>(max_n + 1)
    s.docs = <RankedDoc*>malloc(m * sizeof(RankedDoc))
    s.src = <RankedDoc*>malloc(m * sizeof(RankedDoc))
    s.counts = <Py_ssize_t*>malloc((m + 1) * sizeof(Py_ssize_t))
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
    s.n_levels = 0
    return s


cdef bint _scratch_ok(const Scratch* s) noexcept nogil:
    return not (s.docs == NULL or s.src == NULL or s.counts == NULL or s.rs == NULL
                or s.rsf == NULL or s.rl == NULL or s.rg == NULL or s.dg == NULL
                or s.dh == NULL or s.fg == NULL or s.fh == NULL or s.lists == NULL
                or s.level == NULL or s.ta == NULL or s.tb == NULL or s.tc == NULL
                or s.tf == NULL or s.ti == NULL)


cdef void _free_scratch(Scratch* s) noexcept nogil:
    free(s.docs)
    free(s.src)
    free(s.counts)
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
                    Py_ssize_t max_n, int n_threads,
                    const int32_t[::1] positions=None,      # IN position id per row (LightGBM bias)
                    const float[::1] position_bias=None,    # IN float32 factor per position id
                    const double[::1] t_plus=None,          # IN XGBoost unbiased t+ (K,)
                    const double[::1] t_minus=None,         # IN XGBoost unbiased t- (K,)
                    double[::1] li_rows=None,               # OUT per-row cost sums / t- (n_docs,)
                    double[::1] lj_rows=None,               # OUT per-row cost sums / t+ (n_docs,)
                    bint mean_pairs=False, Py_ssize_t num_pair=1,
                    uint64_t seed_round=0):                 # XGBoost mean: seed = seed_round * n_groups + g
    cdef Py_ssize_t k, n_queries = offsets.shape[0] - 1
    cdef const floating* sc = &scores[0] if scores.shape[0] > 0 else NULL
    cdef const label_t* lab = &labels[0] if labels.shape[0] > 0 else NULL
    cdef const int64_t* keys = &tie_key[0] if tie_key.shape[0] > 0 else NULL
    cdef const double* tab = &table[0] if table.shape[0] > 0 else NULL
    cdef const double* dsc = &disc[0] if disc.shape[0] > 0 else NULL
    cdef const double* inv = &inv_ideal[0] if inv_ideal.shape[0] > 0 else NULL
    cdef const double* qw = &query_weights[0] if query_weights.shape[0] > 0 else NULL
    cdef const double* rw = &row_weights[0] if row_weights.shape[0] > 0 else NULL
    cdef const double* sig = &sig_table[0] if sig_table.shape[0] > 0 else NULL
    cdef const int32_t* pos = NULL
    cdef double* li = NULL
    cdef double* lj = NULL
    cdef const int64_t* off = &offsets[0]
    cdef out_t* g = &grad[0] if grad.shape[0] > 0 else NULL
    cdef out_t* h = &hess[0] if hess.shape[0] > 0 else NULL
    cdef LMParams prm
    cdef LMParams* pp = &prm
    cdef QueryIO qio
    cdef Scratch s
    cdef int failed = 0
    cdef int* failed_flag = &failed   # written through a pointer: shared, not thread-private
    cdef int overflow = 0
    cdef int* overflow_flag = &overflow
    if n_queries == 0 or scores.shape[0] == 0:
        return 0
    _params(pp, mode, trunc, short_limit, sigma, score_norm, list_norm, linear, round_f32,
            key_desc, tab, dsc, sig, sig_lo, sig_hi, sig_factor, sig_table.shape[0], w_norm)
    if positions is not None and positions.shape[0] > 0:
        pos = &positions[0]
        pp.pos_bias = &position_bias[0]
    if t_plus is not None and t_plus.shape[0] > 0:
        pp.t_plus = &t_plus[0]
        pp.t_minus = &t_minus[0]
        pp.bias_k = t_plus.shape[0]
        li = &li_rows[0]
        lj = &lj_rows[0]
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
                qio = _query_io(off, k, inv, qw, keys, pos, rw, li, lj, pp.seed_base)
                _grad_one_query(sc + off[k], lab + off[k], &qio, pp, &s, g + off[k], h + off[k])
                if not _all_finite(g + off[k], h + off[k], off[k + 1] - off[k]):
                    overflow_flag[0] = 1
        _free_scratch(&s)
    if failed:
        raise MemoryError("fastndcg: could not allocate per-thread scratch")
    return overflow


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
