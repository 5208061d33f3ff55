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
#   default   logistic in double from per-document exponentials (one division a
#             pair, no exp), double accumulation, any convention;
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
from libc.float cimport DBL_MAX, DBL_MIN
from libc.math cimport INFINITY, exp, expf, fabs, fabsf, log, log2, pow
from libc.stdint cimport int8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

from fastndcg._core._codes cimport (FLAG_SCORES, MODE_DEFAULT, MODE_LIGHTGBM, MODE_XGBOOST, PROBLEM_NONE,
                                    SCORE_FLOAT32_OVERFLOW, SCORE_FLOAT32_TO_INF, SCORE_NOT_FINITE)
from fastndcg._core._kernel_plan cimport CompiledPlan, ConventionPlan, plan_gain, plan_score, plan_short
from fastndcg._core._rank cimport RankedDoc, bucket_sort_docs, label_t, make_doc, sort_docs

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
    /* v if k, else +0.0: a select done on the bits, so that the compiler neither
       branches nor moves the computation of v into a branch (a loop with a select
       of a computed double is not vectorised) */
    static inline double fastndcg_keep(double v, int k) {
        uint64_t b;
        memcpy(&b, &v, 8);
        b &= -(uint64_t)(k != 0);
        memcpy(&v, &b, 8);
        return v;
    }
    #if defined(__AVX2__)
    #define FASTNDCG_BUILT_AVX2 1
    #else
    #define FASTNDCG_BUILT_AVX2 0
    #endif
    """
    void prefetch "FASTNDCG_PREFETCH"(const void* p) noexcept nogil
    double _keep "fastndcg_keep"(double v, int k) noexcept nogil
    int BUILT_AVX2 "FASTNDCG_BUILT_AVX2"
    ctypedef double* dptr_r "fastndcg_dptr_r"
    ctypedef const double* cdptr_r "fastndcg_cdptr_r"
    ctypedef float* fptr_r "fastndcg_fptr_r"
    ctypedef const float* cfptr_r "fastndcg_cfptr_r"
    ctypedef int32_t* iptr_r "fastndcg_iptr_r"

ctypedef fused out_t:
    float
    double

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
    const ConventionPlan* conv  # gains, D(rank) (rank 0-based), float32 ranking, tie direction, short limit, score limit
    Py_ssize_t trunc          # pairs need min(rank) < trunc
    double sigma
    bint score_norm           # divide |dNDCG| by (eps + |ds|) unless all scores are equal
    bint list_norm            # scale the query by log2(1 + S) / S (mean pairs: by 1 / num_pair)
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
    SLOTS = 3                 # LightGBM mode: rows in flight (rows i + 1 and i + 2's pass A, row i's sums)
    MAX_LEVELS = 8            # partner lists are kept for up to this many distinct labels


cdef struct Scratch:
    RankedDoc* docs
    RankedDoc* src            # documents in input order (bucket ranking; mean-pair label order)
    Py_ssize_t* counts        # bucket bounds
    int32_t* bucket           # each document's bucket
    int32_t* rank_of          # each document's rank (input position -> rank)
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
    double* ta                # per-pair temporaries (SLOTS rows of `stride`)
    double* tb
    double* tc
    float* tf
    int32_t* ti
    double* tp                # LightGBM mode: the sigmoid-table value of each rank of a row
    double* zs                # default mode: the ranks of the other gains (six arrays of `stride`)
    int32_t* zrank            # default mode: their ranks
    Py_ssize_t stride
    Py_ssize_t n_levels       # 0: too many distinct labels, partners found row by row
    double levels[MAX_LEVELS]
    Py_ssize_t lens[MAX_LEVELS]
    Py_ssize_t cur[MAX_LEVELS]


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
        return plan_score(sc[i], p.conv)
    x = <double>sc[i] + <double>p.pos_bias[q.pos[i]]
    if p.conv.round_f32:
        x = <double>(<float>x)
    return x


cdef inline void _rank_query(const floating* sc, const label_t* lab, const QueryIO* q,
                             const LMParams* p, Scratch* s) noexcept nogil:
    cdef Py_ssize_t i, r, n = q.n
    cdef bint done = False
    if n > BUCKET_MIN:
        for i in range(n):
            make_doc(&s.src[i], _query_score(sc, q, p, i), q.keys, p.conv.key_desc, i)
        done = bucket_sort_docs(s.src, s.docs, s.counts, s.bucket, n)
    if not done:
        for i in range(n):
            make_doc(&s.docs[i], _query_score(sc, q, p, i), q.keys, p.conv.key_desc, i)
        sort_docs(s.docs, n)
    for r in range(n):
        i = s.docs[r].idx
        s.rs[r] = s.docs[r].score
        s.rl[r] = <double>lab[i]
        s.rg[r] = plan_gain(lab[i], p.conv)
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
# XGBoost mode: the pairs of row i are the ranks j > i whose label differs
# from rank i's (the default and LightGBM modes visit every rank j > i, a
# non-pair's terms being +-0). Testing that inside the pair loop is a branch the CPU
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


# The rest of the kernels, one file per job (textual includes: one module, the same code).
include "_score_screen.pxi"
include "_lambdamart_default.pxi"
include "_lambdamart_exp.pxi"
include "_lambdamart_lightgbm.pxi"
include "_lambdamart_xgboost.pxi"
include "_lambdamart_drivers.pxi"
include "_lambdamart_extras.pxi"
