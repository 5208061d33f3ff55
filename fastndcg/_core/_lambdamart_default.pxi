# LambdaMART kernels, default mode: the pair loops (included by _lambdamart_impl.pxi).

# ----------------------------------------------------------------------------- default mode
#
# Pair orientation as a sign: with sg = +1 when rank i holds the higher gain
# (label, in the exact modes) and -1 otherwise, s_h - s_l = sg (s_i - s_j) and
# G_h - G_l = sg (G_i - G_j) exactly (IEEE subtraction is sign-symmetric), and
# |D_h - D_l| = |D_i - D_j|; "x -= p" on the low side and "x += p" on the high
# side become "x + sg p" / "x - sg p" (multiplying by +-1 is exact).


# One row of pairs, rank i against every rank j in [start, n), in one pass:
#   lambda = -sigma |dNDCG| rho [/ (0.01 + |ds|)], hessian = sigma^2 |dNDCG| rho (1 - rho)
# with |dNDCG| = |G_i - G_j| |D_i - D_j| inv and rho = 1 / (1 + e^{sigma (s_h - s_l)}) from
# the exponentials u = e^{sigma (s - s_pivot)}: e^{sigma (s_i - s_j)} = u_i / u_j, so with
# t = u_i + u_j, rho = u_l / t and rho (1 - rho) = u_i u_j / t^2. One division per pair,
# the distance weight's included: q = 1 / (t^2 (0.01 + |ds|)), lambda = c1 dG (u_l t) q and
# hessian = c2 dG (u_i u_j) q, with c1 = -sigma inv and c2 = sigma^2 inv per row and
# dG = |G_i - G_j| |D_i - D_j| (the pass is bound by its arithmetic and the divider: every
# operation saved counts).
# Rank j's share goes straight to its sums (g[j] -= sg lambda, h[j] += hessian, in row
# order); rank i's sums (sg lambda, the hessian, lambda) are kept in four lanes, lane k
# taking j = start + k (mod 4) in order, and returned as (l0 + l1) + (l2 + l3): a fixed
# order, so the same bits on every build and thread count, without one dependent chain
# per sum. A rank j with rank i's gain is no pair: dG = +0, so its terms are +-0 while
# c1 and c2 are finite, and +-0 changes no sum (a sum that starts at +0 and adds numbers
# is never -0, and x + -0 = x for every other x). When c1 or c2 overflows (1 / IDCG or
# sigma^2 beyond double) 0 * inf would be NaN: the row then runs one rank at a time,
# with the no-pair terms selected to +0. The four lanes are GCC's vector type
# (elementwise IEEE arithmetic: one AVX2 operation or two SSE2 ones); the leftover ranks,
# and compilers without the type, run the same operations one lane at a time, so every
# path gives the same bits. sg = +-1 (+1 when rank i holds the higher gain) flips signs
# exactly.
cdef extern from *:
    """
    static inline void fastndcg_default_pair(double gi, double si, double di, double ui, double c1,
            double c2, int distance, double rsj, double rgj, double dj, double uj, double* gj,
            double* hj, double* sgl, double* hes, double* lam) {
        int high = gi > rgj;
        double dz = fabs(gi - rgj) * fabs(di - dj);
        double t = ui + uj, q, l, w, ul = high ? uj : ui;
        if (distance) {
            q = 1.0 / ((t * t) * (0.01 + fabs(si - rsj)));
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

    /* W ranks from j on, c1 and c2 finite (no-pair terms come out +-0 by themselves).
       Rank i's values come broadcast (vgi, vsi, vdi, vui, vc1, vc2), made once per row. */
    static inline void fastndcg_default_pairs_v(Py_ssize_t j, fastndcg_vd vgi, fastndcg_vd vsi,
            fastndcg_vd vdi, fastndcg_vd vui, fastndcg_vd vc1, fastndcg_vd vc2, int distance,
            const double* rs, const double* rg, const double* disc, const double* ru, double* g,
            double* h, fastndcg_vd* acc) {
        const fastndcg_vi zero_i = {0}, sign = zero_i + (long long)0x8000000000000000ULL;
        const fastndcg_vd zero = {0.0};
        fastndcg_vd x, rgj, dz, t, q, ul, l, w, sl, gj, hj;
        fastndcg_vi high;
        memcpy(&rgj, rg + j, sizeof(x));
        high = (fastndcg_vi)(vgi > rgj);                        /* -1 where rank i is the high one */
        memcpy(&x, disc + j, sizeof(x));
        dz = (fastndcg_vd)((fastndcg_vi)(vgi - rgj) & ~sign);
        dz = dz * (fastndcg_vd)((fastndcg_vi)(vdi - x) & ~sign);
        memcpy(&x, ru + j, sizeof(x));
        t = vui + x;
        if (distance) {
            ul = (fastndcg_vd)(((fastndcg_vi)x & high) | ((fastndcg_vi)vui & ~high));
            w = vui * x;
            memcpy(&x, rs + j, sizeof(x));
            q = (zero + 1.0) / ((t * t) * ((zero + 0.01) + (fastndcg_vd)((fastndcg_vi)(vsi - x) & ~sign)));
            l = ((vc1 * dz) * (ul * t)) * q;
            w = ((vc2 * dz) * w) * q;
        } else {
            q = (zero + 1.0) / t;
            x = x * q;                                          /* u_j q */
            t = vui * q;                                        /* u_i q */
            ul = (fastndcg_vd)(((fastndcg_vi)x & high) | ((fastndcg_vi)t & ~high));
            l = (vc1 * dz) * ul;
            w = (vc2 * dz) * (t * x);
        }
        sl = (fastndcg_vd)((fastndcg_vi)l ^ (~high & sign));
        acc[0] += sl;
        acc[1] += w;
        acc[2] += l;
        memcpy(&gj, g + j, sizeof(x));
        memcpy(&hj, h + j, sizeof(x));
        gj = gj - sl;
        hj = hj + w;
        memcpy(g + j, &gj, sizeof(x));
        memcpy(h + j, &hj, sizeof(x));
    }
    #endif

    static void fastndcg_default_row(Py_ssize_t start, Py_ssize_t n, double gi, double si, double di,
            double ui, double inv, int distance, double sigma, const double* rs, const double* rg,
            const double* disc, const double* ru, double* g, double* h, double* out) {
        double la[4] = {0.0, 0.0, 0.0, 0.0}, lb[4] = {0.0, 0.0, 0.0, 0.0}, lc[4] = {0.0, 0.0, 0.0, 0.0};
        double c1 = -sigma * inv, c2 = (sigma * sigma) * inv, sgl, hes, lam;
        Py_ssize_t j = start, k, c;
    #if defined(__GNUC__) || defined(__clang__)
        fastndcg_vd acc[4 / FASTNDCG_W][3];
        const fastndcg_vd zero = {0.0};
        const fastndcg_vd vgi = zero + gi, vsi = zero + si, vdi = zero + di, vui = zero + ui;
        const fastndcg_vd vc1 = zero + c1, vc2 = zero + c2;
        memset(acc, 0, sizeof(acc));
        if (fabs(c1) <= DBL_MAX && fabs(c2) <= DBL_MAX) {
            for (; j + 4 <= n; j += 4) {
                for (c = 0; c < 4 / FASTNDCG_W; c++) {
                    fastndcg_default_pairs_v(j + c * FASTNDCG_W, vgi, vsi, vdi, vui, vc1, vc2, distance, rs, rg,
                                             disc, ru, g, h, acc[c]);
                }
            }
        }
        for (c = 0; c < 4 / FASTNDCG_W; c++) {
            memcpy(la + c * FASTNDCG_W, &acc[c][0], sizeof(acc[c][0]));
            memcpy(lb + c * FASTNDCG_W, &acc[c][1], sizeof(acc[c][0]));
            memcpy(lc + c * FASTNDCG_W, &acc[c][2], sizeof(acc[c][0]));
        }
    #endif
        for (k = 0; j < n; j++, k = (k + 1) & 3) {
            fastndcg_default_pair(gi, si, di, ui, c1, c2, distance, rs[j], rg[j], disc[j], ru[j],
                                  g + j, h + j, &sgl, &hes, &lam);
            la[k] += sgl;
            lb[k] += hes;
            lc[k] += lam;
        }
        out[0] = (la[0] + la[1]) + (la[2] + la[3]);
        out[1] = (lb[0] + lb[1]) + (lb[2] + lb[3]);
        out[2] = (lc[0] + lc[1]) + (lc[2] + lc[3]);
    }
    """
    void _default_row "fastndcg_default_row"(Py_ssize_t start, Py_ssize_t n, double gi, double si, double di,
                                             double ui, double inv, int distance, double sigma, const double* rs,
                                             const double* rg, const double* disc, const double* ru, double* g,
                                             double* h, double* out) noexcept nogil


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


# Rows at most this far below the pivot (u_i >= 2^-64, i.e. sigma (s_pivot - s_i) <= 44.4)
# use its exponentials; a row further down becomes the pivot (the u of the ranks
# from it on are recomputed), so every u_i + u_j stays a normal number and the
# error of a logistic is a few ulp plus 2^-52 sigma (s_pivot - s_j) relative.
cdef double PIVOT_MIN = 5.421010862427522e-20       # 2^-64


cdef void _unit_exps(Py_ssize_t pivot, Py_ssize_t n, double sigma, cdptr_r rs, dptr_r ru) noexcept nogil:
    # u_r = e^{-sigma (s_pivot - s_r)} in (0, 1] for ranks r >= pivot (scores descend with r).
    cdef Py_ssize_t r
    cdef double top = rs[pivot]
    for r in range(pivot, n):
        ru[r] = _exp_neg(sigma * (top - rs[r]))


cdef void _pairs_default(Py_ssize_t n, double inv, const LMParams* p, Scratch* s) noexcept nogil:
    # Exact logistic in double, double accumulation. Pairs: gains differ.
    # Row by row (_default_row): rank i's own sums come back from the row's
    # lanes; the query's S = sum of 2 |lambda| = -2 (sum of lambda), since scaling
    # by 2 is exact.
    cdef Py_ssize_t i, r, m = _pair_rows(n, p.trunc)
    cdef double* g = s.dg
    cdef double* h = s.dh
    cdef const double* rs = s.rs
    cdef const double* rg = s.rg
    cdef bint distance = p.score_norm and rs[0] != rs[n - 1]
    cdef double* ru = s.ta + s.stride
    cdef double sums[3]
    cdef double lam_sum = 0.0, total, nf, sigma = p.sigma
    for i in range(n):
        g[i] = 0.0
        h[i] = 0.0
    if m > 0:
        _unit_exps(0, n, sigma, rs, ru)
    for i in range(m):
        if ru[i] < PIVOT_MIN:
            _unit_exps(i, n, sigma, rs, ru)
        _default_row(i + 1, n, rg[i], rs[i], p.conv.disc[i], ru[i], inv, distance, sigma, rs, rg, p.conv.disc,
                     ru, g, h, sums)
        g[i] = g[i] + sums[0]
        h[i] = h[i] + sums[1]
        lam_sum = lam_sum + sums[2]
    total = -2.0 * lam_sum
    if p.list_norm and total > 0.0:
        nf = log2(1.0 + total) / total
        for r in range(n):
            g[r] = g[r] * nf
            h[r] = h[r] * nf
