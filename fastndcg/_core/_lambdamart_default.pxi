# LambdaMART kernels, default mode: the pair loops (included by _lambdamart_impl.pxi).

# ----------------------------------------------------------------------------- default mode
#
# Pair orientation as a sign: with sg = +1 when rank i holds the higher gain
# (label, in the exact modes) and -1 otherwise, s_h - s_l = sg (s_i - s_j) and
# G_h - G_l = sg (G_i - G_j) exactly (IEEE subtraction is sign-symmetric), and
# |D_h - D_l| = |D_i - D_j|; "x -= p" on the low side and "x += p" on the high
# side become "x + sg p" / "x - sg p" (multiplying by +-1 is exact).


# The rows of a query, rank i against every rank j > i, each in one pass:
#   lambda = -sigma |dNDCG| rho [/ (0.01 + |ds|)], hessian = sigma^2 |dNDCG| rho (1 - rho)
# with |dNDCG| = |G_i - G_j| |D_i - D_j| inv and rho = 1 / (1 + e^{sigma (s_h - s_l)}) from
# the exponentials u = e^{sigma (s - s_pivot)}: e^{sigma (s_i - s_j)} = u_i / u_j, so with
# t = u_i + u_j, rho = u_l / t and rho (1 - rho) = u_i u_j / t^2. One division per pair,
# the distance weight's included (ds = s_i - s_j >= 0: ranks descend by score):
# q = 1 / (t^2 (0.01 + ds)), lambda = c1 dG (u_l t) q and hessian = c2 dG (u_i u_j) q, with
# c1 = -sigma inv and c2 = sigma^2 inv per query and dG = |G_i - G_j| |D_i - D_j| (c1 and
# c2 first: dG alone may be huge, and q too; the pass is bound by its arithmetic, so
# every operation saved counts).
# Rank j's share goes straight to its sums (g[j] -= sg lambda, h[j] += hessian, in row
# order); rank i's sums (sg lambda, the hessian, lambda) are kept in eight lanes, lane k
# taking j = i + 1 + k (mod 8) in order, and returned as ((l0 + l1) + (l2 + l3)) +
# ((l4 + l5) + (l6 + l7)): a fixed order, so the same bits on every build and thread
# count, without one dependent chain per sum. A rank j with rank i's gain is no pair:
# dG = +0, so its terms are +-0 while c1 and c2 are finite, and +-0 changes no sum (a sum
# that starts at +0 and adds numbers is never -0, and x + -0 = x for every other x). The
# last one to seven ranks of a row run as one more eight-lane step whose extra lanes
# have dG masked to +0 (the arrays carry RANK_PAD = 7 finite pad entries past rank n - 1,
# see _pad_ranks). The lanes are GCC's vector type (elementwise IEEE arithmetic: a step
# is two AVX2 operations or four SSE2 ones; the AVX2 build adds an AVX-512 twin, one
# operation a step, chosen at run time by CPU); when c1 or c2 is not a normal double
# (1 / IDCG or sigma^2 beyond double, where 0 * inf would be NaN, or a subnormal of few
# bits), and for compilers without the type: the rows run one rank at a time, with the
# no-pair terms selected to +0 (and, for such constants, 1 / IDCG taken with dG first).
# Every path gives the same bits. sg = +-1 (+1 when rank i holds the higher gain) flips signs exactly; the
# vector steps take it from G_i - G_j itself (sg dG = (G_i - G_j) |D_i - D_j|: the same
# magnitudes, IEEE rounding being sign-symmetric). A query may be split by gain first
# (_other_gains): the rows of its lowest gain then visit the other gains' ranks only.
cdef extern from *:
    """
    static inline void fastndcg_default_pair(double gi, double si, double di, double ui, double c1,
            double c2, double dz_scale, int distance, double rsj, double rgj, double dj, double uj, double* gj,
            double* hj, double* sgl, double* hes, double* lam) {
        int high = gi > rgj;
        double dz = (fabs(gi - rgj) * fabs(di - dj)) * dz_scale;          /* dz_scale: see the rows */
        double t = ui + uj, q, l, w, ul = high ? uj : ui;
        if (distance) {
            q = 1.0 / ((t * t) * (0.01 + (si - rsj)));
            l = ((c1 * dz) * (ul * t)) * q;
            w = ((c2 * dz) * (ui * uj)) * q;
        } else {
            q = 1.0 / t;
            l = (c1 * dz) * (ul * q);
            w = (c2 * dz) * ((ui * q) * (uj * q));
        }
        l = fastndcg_keep(l, gi != rgj);                        /* no pair: both terms +0 */
        w = fastndcg_keep(w, gi != rgj);
        *lam = l;
        *sgl = high ? l : -l;
        *hes = w;
        *gj = *gj - *sgl;
        *hj = *hj + w;
    }

    /* The ranks whose gain is not the query's lowest (`low`): n entries (rank[k] is entry k's
       rank), with their own sums g, h and RANK_PAD finite pad entries after them. */
    typedef struct {
        const double* rs;
        const double* rg;
        const double* disc;
        const double* ru;
        double* g;
        double* h;
        Py_ssize_t n;
        const int32_t* rank;
        double low;
    } fastndcg_other_ranks;

    #define FASTNDCG_DEFAULT_ARGS Py_ssize_t m, Py_ssize_t n, double c1, double c2, double dz_scale, int distance, \
            const double* rs, \
            const double* rg, const double* disc, const double* ru, double* g, double* h,                     \
            const fastndcg_other_ranks* other, double* lam_sum, double pivot_min

    /* Every path's row loop: ROW(J0, N, RS, RG, DISC, RU, G, H) runs rank i against entries
       [J0, N) of the arrays given; a row of the lowest gain (when `other` is given) against
       the other gains' ranks after it only (a rank of its own gain is no pair), any other
       row against every rank after it. */
    #define FASTNDCG_ROWS_LOOP(ROW)                                                                \
        Py_ssize_t k_other = 0;                                                                \
        if (other == NULL) {                      /* its own loop: the common case */          \
            for (; i < m && ru[i] >= pivot_min; i++)                                           \
                ROW(i + 1, n, rs, rg, disc, ru, g, h)                                          \
            return i;                                                                          \
        }                                                                                      \
        const fastndcg_other_ranks o = *other;                                                 \
        const double* o_rs = o.rs;                /* locals: the stores to g and h could */   \
        const double* o_rg = o.rg;                /* alias the struct for the compiler */     \
        const double* o_disc = o.disc;                                                         \
        const double* o_ru = o.ru;                                                             \
        double* o_g = o.g;                                                                     \
        double* o_h = o.h;                                                                     \
        for (; i < m && ru[i] >= pivot_min; i++) {                                             \
            if (rg[i] == o.low) {                                                              \
                while (k_other < o.n && o.rank[k_other] <= i)                                  \
                    k_other++;                                                                 \
                ROW(k_other, o.n, o_rs, o_rg, o_disc, o_ru, o_g, o_h)                          \
            } else {                                                                           \
                ROW(i + 1, n, rs, rg, disc, ru, g, h)                                          \
            }                                                                                  \
        }                                                                                      \
        return i;

    /* Rank i's sums from its eight lanes: ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) */
    #define FASTNDCG_LANES_SUM(L) (((L[0] + L[1]) + (L[2] + L[3])) + ((L[4] + L[5]) + (L[6] + L[7])))
    #define FASTNDCG_ROW_SUMS                                                                      \
        g[i] = g[i] + FASTNDCG_LANES_SUM(la);                                                  \
        h[i] = h[i] + FASTNDCG_LANES_SUM(lb);                                                  \
        *lam_sum = *lam_sum + FASTNDCG_LANES_SUM(lc);

    /* The same operations one rank at a time, lane k taking j = i + 1 + k (mod 8): for
       compilers without GCC's vector type, and where c1 or c2 is not a normal double (a
       no-pair rank's terms, 0 * inf, are then selected to +0 in fastndcg_default_pair;
       dz_scale, 1 elsewhere, carries 1 / IDCG then: see _pairs_default). */
    #define FASTNDCG_ROW_SCALAR(J0, N, RS, RG, DISC, RU, G, H)                                     \
        {                                                                                      \
            double la[8] = {0.0}, lb[8] = {0.0}, lc[8] = {0.0}, sgl, hes, lam;                 \
            Py_ssize_t j, k;                                                                   \
            for (j = (J0), k = 0; j < (N); j++, k = (k + 1) & 7) {                             \
                fastndcg_default_pair(rg[i], rs[i], disc[i], ru[i], c1, c2, dz_scale, distance, (RS)[j], (RG)[j], \
                                      (DISC)[j], (RU)[j], (G) + j, (H) + j, &sgl, &hes, &lam); \
                la[k] += sgl;                                                                  \
                lb[k] += hes;                                                                  \
                lc[k] += lam;                                                                  \
            }                                                                                  \
            FASTNDCG_ROW_SUMS                                                                  \
        }

    static Py_ssize_t fastndcg_default_rows_scalar(Py_ssize_t i, FASTNDCG_DEFAULT_ARGS) {
        FASTNDCG_ROWS_LOOP(FASTNDCG_ROW_SCALAR)
    }

    #if defined(__GNUC__) || defined(__clang__)
    /* W lanes per vector: one AVX2 register holds four, an SSE2 register two (and
       four lanes are then two vectors side by side: the lanes, and so the bits, are
       the same). */
    #if defined(__AVX__)
    #define FASTNDCG_W 4
    #else
    #define FASTNDCG_W 2
    #endif
    typedef double fastndcg_vd __attribute__((vector_size(8 * FASTNDCG_W)));
    typedef long long fastndcg_vi __attribute__((vector_size(8 * FASTNDCG_W)));

    /* lanes kept in a row's last step of 1-7 ranks: fastndcg_tail_mask8[r - 1], r ranks */
    static const long long fastndcg_tail_mask8[7][8] __attribute__((aligned(64))) = {
        {-1, 0, 0, 0, 0, 0, 0, 0}, {-1, -1, 0, 0, 0, 0, 0, 0}, {-1, -1, -1, 0, 0, 0, 0, 0},
        {-1, -1, -1, -1, 0, 0, 0, 0}, {-1, -1, -1, -1, -1, 0, 0, 0}, {-1, -1, -1, -1, -1, -1, 0, 0},
        {-1, -1, -1, -1, -1, -1, -1, 0}};

    /* The pairs of rank i (broadcast in vgi, vsi, vdi, vui) with the ranks from j on, one
       vector: the body for every width (VD/VI the double and integer vectors); MASK is
       ANDed into dG (all ones but in a row's last step). The terms come out in sl (sg lambda), w and l (|lambda|). */
    #define FASTNDCG_DEFAULT_PAIRS_BODY(VD, VI, MASK)                                              \
        const VI zero_i = {0}, sign = zero_i + (long long)0x8000000000000000ULL;              \
        const VD zero = {0.0};                                                                 \
        VD x, rgj, dz, t, q, ul, gj, hj;                                                       \
        VI high;                                                                               \
        memcpy(&rgj, rg + j, sizeof(x));                                                       \
        high = (VI)(vgi > rgj);                        /* -1 where rank i is the high one */   \
        memcpy(&x, disc + j, sizeof(x));                                                       \
        dz = (vgi - rgj) * (VD)((VI)(vdi - x) & ~sign);  /* sg dG: the sign of G_i - G_j */    \
        dz = (VD)((VI)dz & (MASK));                                                            \
        memcpy(&x, ru + j, sizeof(x));                                                         \
        t = vui + x;                                                                           \
        if (distance) {                                                                        \
            ul = (VD)(((VI)x & high) | ((VI)vui & ~high));                                     \
            w = vui * x;                                                                       \
            memcpy(&x, rs + j, sizeof(x));                                                     \
            q = (zero + 1.0) / ((t * t) * ((zero + 0.01) + (vsi - x)));                        \
            sl = ((vc1 * dz) * (ul * t)) * q;                                                  \
            w = (VD)((VI)(((vc2 * dz) * w) * q) & ~sign);                                      \
        } else {                                                                               \
            q = (zero + 1.0) / t;                                                              \
            x = x * q;                                                 /* u_j q */             \
            t = vui * q;                                               /* u_i q */             \
            ul = (VD)(((VI)x & high) | ((VI)t & ~high));                                       \
            sl = (vc1 * dz) * ul;                                                              \
            w = (VD)((VI)((vc2 * dz) * (t * x)) & ~sign);                                      \
        }                                                                                      \
        l = (VD)((VI)sl & ~sign);                                      /* |lambda| */          \
        memcpy(&gj, g + j, sizeof(x));                                                         \
        memcpy(&hj, h + j, sizeof(x));                                                         \
        gj = gj - sl;                                                                          \
        hj = hj + w;                                                                           \
        memcpy(g + j, &gj, sizeof(x));                                                         \
        memcpy(h + j, &hj, sizeof(x));

    static inline __attribute__((always_inline)) void fastndcg_default_pairs_v(Py_ssize_t j,
            fastndcg_vd vgi, fastndcg_vd vsi, fastndcg_vd vdi, fastndcg_vd vui, fastndcg_vd vc1,
            fastndcg_vd vc2, fastndcg_vi mask,
            int distance, const double* rs, const double* rg, const double* disc, const double* ru,
            double* g, double* h, fastndcg_vd* acc) {
        fastndcg_vd sl, w, l;
        FASTNDCG_DEFAULT_PAIRS_BODY(fastndcg_vd, fastndcg_vi, mask)
        acc[0] += sl;
        acc[1] += w;
        acc[2] -= l;
    }

    /* Rank i against entries [J0, N) of the arrays given, eight a step, the last 1-7 as one
       masked step; the vector path P gives P##_ACC (its accumulators, zero), P##_STEP(J,
       MASK) (eight entries from J, MASK: eight lane masks) and P##_LANES (the accumulators
       into la, lb, lc). */
    static const long long fastndcg_all_lanes[8] __attribute__((aligned(64))) = {-1, -1, -1, -1, -1, -1, -1, -1};
    #define FASTNDCG_ROW_VECTOR(P, J0, N, RS, RG, DISC, RU, G, H)                                  \
        {                                                                                      \
            double la[8], lb[8], lc[8];                                                        \
            Py_ssize_t j = (J0), n_ = (N);                                                     \
            const double* rs_ = (RS);                                                          \
            const double* rg_ = (RG);                                                          \
            const double* disc_ = (DISC);                                                      \
            const double* ru_ = (RU);                                                          \
            double* g_ = (G);                                                                  \
            double* h_ = (H);                                                                  \
            P##_ACC                                                                            \
            for (; j + 8 <= n_; j += 8)                                                        \
                P##_STEP(j, fastndcg_all_lanes)                                                \
            if (j < n_)                                                                        \
                P##_STEP(j, fastndcg_tail_mask8[n_ - j - 1])                                   \
            P##_LANES                                                                          \
            FASTNDCG_ROW_SUMS                                                                  \
        }

    /* the narrow path: 8 / W vectors a step */
    #define FASTNDCG_NARROW_ACC                                                                    \
        fastndcg_vd acc[8 / FASTNDCG_W][3];                                                    \
        const fastndcg_vd vgi = zero + rg[i], vsi = zero + rs[i], vdi = zero + disc[i];        \
        const fastndcg_vd vui = zero + ru[i];                                                  \
        Py_ssize_t c;                                                                          \
        memset(acc, 0, sizeof(acc));
    #define FASTNDCG_NARROW_STEP(J, MASK)                                                          \
        for (c = 0; c < 8 / FASTNDCG_W; c++) {                                                 \
            fastndcg_vi mask;                                                                  \
            memcpy(&mask, (MASK) + c * FASTNDCG_W, sizeof(mask));                              \
            fastndcg_default_pairs_v((J) + c * FASTNDCG_W, vgi, vsi, vdi, vui, vc1, vc2, mask, distance, \
                                     rs_, rg_, disc_, ru_, g_, h_, acc[c]);                    \
        }
    #define FASTNDCG_NARROW_LANES                                                                  \
        for (c = 0; c < 8 / FASTNDCG_W; c++) {                                                 \
            memcpy(la + c * FASTNDCG_W, &acc[c][0], sizeof(acc[c][0]));                        \
            memcpy(lb + c * FASTNDCG_W, &acc[c][1], sizeof(acc[c][0]));                        \
            memcpy(lc + c * FASTNDCG_W, &acc[c][2], sizeof(acc[c][0]));                        \
        }
    #define FASTNDCG_ROW_NARROW(J0, N, RS, RG, DISC, RU, G, H)                                     \
        FASTNDCG_ROW_VECTOR(FASTNDCG_NARROW, J0, N, RS, RG, DISC, RU, G, H)

    static Py_ssize_t fastndcg_default_rows_narrow(Py_ssize_t i, FASTNDCG_DEFAULT_ARGS) {
        const fastndcg_vd zero = {0.0};
        const fastndcg_vd vc1 = zero + c1, vc2 = zero + c2;
        FASTNDCG_ROWS_LOOP(FASTNDCG_ROW_NARROW)
    }

    #if !defined(__has_builtin)
    #define __has_builtin(x) 0
    #endif
    #if defined(__AVX2__) && (defined(__x86_64__) || defined(_M_X64)) && __has_builtin(__builtin_shufflevector)
    /* The AVX2 build's AVX-512 twin, chosen per call when the CPU has AVX-512F and DQ. */
    #define FASTNDCG_HAVE_512 1
    #define FASTNDCG_512 __attribute__((target("avx2,avx512f,avx512dq")))
    typedef double fastndcg_v8d __attribute__((vector_size(64)));
    typedef long long fastndcg_v8i __attribute__((vector_size(64)));

    FASTNDCG_512 static inline __attribute__((always_inline)) void fastndcg_default_pairs_v8(Py_ssize_t j,
            fastndcg_v8d vgi, fastndcg_v8d vsi, fastndcg_v8d vdi, fastndcg_v8d vui, fastndcg_v8d vc1,
            fastndcg_v8d vc2, fastndcg_v8i mask, int distance, const double* rs, const double* rg,
            const double* disc, const double* ru, double* g, double* h, fastndcg_v8d* acc) {
        fastndcg_v8d sl, w, l;
        FASTNDCG_DEFAULT_PAIRS_BODY(fastndcg_v8d, fastndcg_v8i, mask)
        acc[0] += sl;
        acc[1] += w;
        acc[2] -= l;
    }

    /* the AVX-512 path: one vector a step */
    #define FASTNDCG_WIDE_ACC                                                                      \
        fastndcg_v8d acc[3] = {zero, zero, zero};                                              \
        const fastndcg_v8d vgi = zero + rg[i], vsi = zero + rs[i], vdi = zero + disc[i];       \
        const fastndcg_v8d vui = zero + ru[i];
    #define FASTNDCG_WIDE_STEP(J, MASK)                                                            \
        {                                                                                      \
            fastndcg_v8i mask;                                                                 \
            memcpy(&mask, (MASK), sizeof(mask));                                               \
            fastndcg_default_pairs_v8((J), vgi, vsi, vdi, vui, vc1, vc2, mask, distance, rs_, rg_, disc_, \
                                      ru_, g_, h_, acc);                                       \
        }
    #define FASTNDCG_WIDE_LANES                                                                    \
        memcpy(la, &acc[0], sizeof(la));                                                       \
        memcpy(lb, &acc[1], sizeof(lb));                                                       \
        memcpy(lc, &acc[2], sizeof(lc));
    #define FASTNDCG_ROW_512(J0, N, RS, RG, DISC, RU, G, H)                                        \
        FASTNDCG_ROW_VECTOR(FASTNDCG_WIDE, J0, N, RS, RG, DISC, RU, G, H)

    FASTNDCG_512 static Py_ssize_t fastndcg_default_rows_512(Py_ssize_t i, FASTNDCG_DEFAULT_ARGS) {
        const fastndcg_v8d zero = {0.0};
        const fastndcg_v8d vc1 = zero + c1, vc2 = zero + c2;
        FASTNDCG_ROWS_LOOP(FASTNDCG_ROW_512)
    }

    /* 1 where the CPU has AVX-512F and DQ and FASTNDCG_NO_AVX512 is unset (or "0"), else 0;
       -1 until first asked (a benign race: every thread stores the same value). Tests set
       it through wide_level(). */
    static int fastndcg_lm_512 = -1;

    static int fastndcg_lm_512_available(void) {
        const char* no = getenv("FASTNDCG_NO_AVX512");
        if (no != NULL && !(no[0] == '0' && no[1] == 0))
            return 0;
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    }
    #endif
    #endif
    #ifndef FASTNDCG_HAVE_512
    static int fastndcg_lm_512 = 0;
    static int fastndcg_lm_512_available(void) { return 0; }
    #endif

    /* Rows [i, m) of a query while u_i >= pivot_min (rank i close enough to the pivot);
       returns the first row not done. */
    static Py_ssize_t fastndcg_default_rows(Py_ssize_t i, FASTNDCG_DEFAULT_ARGS) {
    #if defined(__GNUC__) || defined(__clang__)
        if (!(fabs(c1) <= DBL_MAX && fabs(c2) <= DBL_MAX) || dz_scale != 1.0)
    #endif
            return fastndcg_default_rows_scalar(i, m, n, c1, c2, dz_scale, distance, rs, rg, disc, ru, g, h, other,
                                                lam_sum, pivot_min);
    #ifdef FASTNDCG_HAVE_512
        int wide = fastndcg_lm_512;
        if (wide < 0) {
            wide = fastndcg_lm_512_available();
            fastndcg_lm_512 = wide;
        }
        if (wide)
            return fastndcg_default_rows_512(i, m, n, c1, c2, dz_scale, distance, rs, rg, disc, ru, g, h, other, lam_sum,
                                             pivot_min);
    #endif
    #if defined(__GNUC__) || defined(__clang__)
        return fastndcg_default_rows_narrow(i, m, n, c1, c2, dz_scale, distance, rs, rg, disc, ru, g, h, other, lam_sum,
                                           pivot_min);
    #endif
    }
    """
    ctypedef struct OtherRanks "fastndcg_other_ranks":
        const double* rs
        const double* rg
        const double* disc
        const double* ru
        double* g
        double* h
        Py_ssize_t n
        const int32_t* rank
        double low
    Py_ssize_t _default_rows "fastndcg_default_rows"(Py_ssize_t i, Py_ssize_t m, Py_ssize_t n, double c1,
                                                     double c2, double dz_scale, int distance,
                                                     const double* rs, const double* rg, const double* disc,
                                                     const double* ru, double* g, double* h,
                                                     const OtherRanks* other, double* lam_sum,
                                                     double pivot_min) noexcept nogil
    int lm_512 "fastndcg_lm_512"
    int lm_512_available "fastndcg_lm_512_available"() noexcept nogil


# Rows at most this far below the pivot (u_i >= 2^-64, i.e. sigma (s_pivot - s_i) <= 44.4)
# use its exponentials; a row further down becomes the pivot (the u of the ranks
# from it on are recomputed), so every u_i + u_j stays a normal number and the
# error of a logistic is a few ulp plus 2^-52 sigma (s_pivot - s_j) relative.
cdef double PIVOT_MIN = 5.421010862427522e-20       # 2^-64
# Pad entries past a query's last rank (the last four-lane step of a row).
DEF RANK_PAD = 7
# Split a query's ranks by gain when the pairs skipped are at least this many per rank
# (see _other_gains).
DEF SPLIT_MIN_SKIPPED = 7
cdef Py_ssize_t _SPLIT_K = SPLIT_MIN_SKIPPED


cdef inline void _pad_entries(Py_ssize_t n, double* rs, double* rg, double* disc, double* ru, double* g,
                              double* h) noexcept nogil:
    # The last step of a row reads RANK_PAD entries past entry n - 1 (its extra lanes
    # masked to no pair): finite values there (entry n - 1's, u = 1), and sums that start
    # at +0 and are never read.
    cdef Py_ssize_t r
    for r in range(n, n + RANK_PAD):
        rs[r] = rs[n - 1]
        rg[r] = rg[n - 1]
        disc[r] = disc[n - 1]
        ru[r] = 1.0
        g[r] = 0.0
        h[r] = 0.0


cdef inline void _pad_ranks(Py_ssize_t n, const double* disc, double* ru, Scratch* s) noexcept nogil:
    # The rank arrays' pad entries (_pad_entries; _unit_exps writes ranks below n only),
    # with the discounts copied into s.tb first (the convention's table ends at the
    # longest query).
    cdef Py_ssize_t r
    for r in range(n):
        s.tb[r] = disc[r]
    _pad_entries(n, s.rs, s.rg, s.tb, ru, s.dg, s.dh)


cdef bint _other_gains(Py_ssize_t n, Py_ssize_t m, const double* disc, const double* ru, OtherRanks* o,
                       Scratch* s) noexcept nogil:
    # The ranks whose gain is not the query's lowest (its most common in graded data:
    # label 0) into o, with their own sums and RANK_PAD pad entries, when the pairs this
    # skips (a row of the lowest gain against the ranks of that gain after it) number at
    # least _SPLIT_K per rank (SPLIT_MIN_SKIPPED = 7: the copy and the merge cost about
    # as much as that many skipped pairs; on the MSLR-like set of bench_lambdamart the
    # split takes 9 % off the whole list and costs 1 % at truncation 30, where few
    # queries split). False (o unused) otherwise.
    cdef Py_ssize_t r, k = 0, rows = 0, skipped = 0, is_low
    cdef const double* rg = s.rg
    cdef double low = rg[0], low1 = rg[0], low2 = rg[0], low3 = rg[0]
    cdef double* z = s.zs
    cdef Py_ssize_t st = s.stride
    # four running minima (one chain of dependent minima would take 4 cycles a rank)
    r = 1
    while r + 4 <= n:
        low = rg[r] if rg[r] < low else low
        low1 = rg[r + 1] if rg[r + 1] < low1 else low1
        low2 = rg[r + 2] if rg[r + 2] < low2 else low2
        low3 = rg[r + 3] if rg[r + 3] < low3 else low3
        r += 4
    while r < n:
        low = rg[r] if rg[r] < low else low
        r += 1
    low = low1 if low1 < low else low
    low = low2 if low2 < low else low
    low = low3 if low3 < low else low
    # each rank of the lowest gain is skipped by the rows of that gain before it
    for r in range(n):
        is_low = rg[r] == low
        skipped += is_low * rows
        rows += is_low & (r < m)
    if skipped < _SPLIT_K * n or skipped == 0:
        return False
    # every rank written at entry k, which only another gain's rank moves on (no branch
    # on the gains: they alternate at random)
    for r in range(n):
        s.zrank[k] = <int32_t>r
        z[k] = s.rs[r]
        z[st + k] = rg[r]
        z[2 * st + k] = disc[r]
        z[3 * st + k] = ru[r]
        z[4 * st + k] = 0.0
        z[5 * st + k] = 0.0
        k += rg[r] != low
    _pad_entries(k, z, z + st, z + 2 * st, z + 3 * st, z + 4 * st, z + 5 * st)
    o.rs = z
    o.rg = z + st
    o.disc = z + 2 * st
    o.ru = z + 3 * st
    o.g = z + 4 * st
    o.h = z + 5 * st
    o.n = k
    o.rank = s.zrank
    o.low = low
    return True


cdef void _pairs_default(Py_ssize_t n, double inv, const LMParams* p, Scratch* s) noexcept nogil:
    # Exact logistic in double, double accumulation. Pairs: gains differ.
    # The rows (_default_rows) add rank i's sums to g[i], h[i] and lam_sum, and rank
    # j's shares to g[j], h[j] (from a row of the lowest gain, when the ranks are split
    # by gain, to the other gains' own sums, added to g[j], h[j] after the rows); the
    # query's S = sum of 2 |lambda| = -2 (sum of lambda), since scaling by 2 is exact.
    cdef Py_ssize_t i, k, r, m = _pair_rows(n, p.trunc)
    cdef double* g = s.dg
    cdef double* h = s.dh
    cdef const double* rs = s.rs
    cdef bint distance = p.score_norm and rs[0] != rs[n - 1]
    cdef double* ru = s.ta + s.stride
    cdef double lam_sum = 0.0, total, nf, sigma = p.sigma
    cdef double c1 = -sigma * inv, c2 = (sigma * sigma) * inv, dz_scale = 1.0
    cdef OtherRanks other
    cdef bint split
    for i in range(n):
        g[i] = 0.0
        h[i] = 0.0
    if m == 0:
        return
    if not (DBL_MIN <= fabs(c1) <= DBL_MAX and DBL_MIN <= fabs(c2) <= DBL_MAX):
        # The query's constants beyond double or below its normal numbers (huge gains:
        # 1 / IDCG near 1e-308, times sigma^2 a subnormal of few bits, 1e-11 off the
        # reference; found by the fuzz tier): 1 / IDCG multiplies |dG| first, as the
        # reference's |dZ| = dG |dD| / IDCG, on the rows' scalar path.
        c1, c2, dz_scale = -sigma, sigma * sigma, inv
    _pad_ranks(n, p.conv.disc, ru, s)
    _unit_exps(0, n, sigma, rs, ru)
    # (a truncation below half the list leaves too few rows for the split to pay: no count)
    split = (2 * m >= n or _SPLIT_K == 0) and _other_gains(n, m, s.tb, ru, &other, s)
    i = 0
    while i < m:
        if ru[i] < PIVOT_MIN:
            _unit_exps(i, n, sigma, rs, ru)
            if split:
                for k in range(other.n):
                    if other.rank[k] >= i:
                        (<double*>other.ru)[k] = ru[other.rank[k]]
        i = _default_rows(i, m, n, c1, c2, dz_scale, distance, rs, s.rg, s.tb, ru, g, h,
                          &other if split else NULL, &lam_sum, PIVOT_MIN)
    if split:
        for k in range(other.n):
            r = other.rank[k]
            g[r] = g[r] + other.g[k]
            h[r] = h[r] + other.h[k]
    total = -2.0 * lam_sum
    if p.list_norm and total > 0.0:
        nf = log2(1.0 + total) / total
        for r in range(n):
            g[r] = g[r] * nf
            h[r] = h[r] * nf


def split_threshold(Py_ssize_t k=-1):
    """The pairs a split by gain must skip per rank of the query before the default mode's
    rows take it (SPLIT_MIN_SKIPPED). ``k`` >= 0 sets it (0 splits every query with a row
    of its lowest gain; for tests), -2 goes back to the default; returns the value in use."""
    global _SPLIT_K
    if k == -2:
        _SPLIT_K = SPLIT_MIN_SKIPPED
    elif k >= 0:
        _SPLIT_K = k
    return _SPLIT_K


def wide_level(int level=-2):
    """The default mode's row path: 1 the AVX-512 steps (the AVX2 build on a CPU with
    AVX-512F and DQ, FASTNDCG_NO_AVX512 unset), 0 without them. ``level`` 0 or 1 sets
    it (1 only where available; for tests), -1 goes back to the default choice; returns
    the path in use afterwards. The same bits either way."""
    global lm_512
    if level == -1 or (level == 1 and not lm_512_available()):
        lm_512 = lm_512_available()
    elif level in (0, 1):
        lm_512 = level
    elif lm_512 < 0:
        lm_512 = lm_512_available()
    return lm_512
