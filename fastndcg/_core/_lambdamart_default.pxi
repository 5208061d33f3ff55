# LambdaMART kernels, default mode: the pair loops (included by _lambdamart_impl.pxi).

# ----------------------------------------------------------------------------- default mode
#
# Pair orientation as a sign: with sg = +1 when rank i holds the higher gain
# (label, in the exact modes) and -1 otherwise, s_h - s_l = sg (s_i - s_j) and
# G_h - G_l = sg (G_i - G_j) exactly (IEEE subtraction is sign-symmetric), and
# |D_h - D_l| = |D_i - D_j|; "x -= p" on the low side and "x += p" on the high
# side become "x + sg p" / "x - sg p" (multiplying by +-1 is exact).


cdef void _default_pass_a(Py_ssize_t start, Py_ssize_t n, double gi, double si, double di, double ui,
                          double inv, bint distance, double sigma, cdptr_r rs, cdptr_r rg,
                          cdptr_r disc, cdptr_r ru, dptr_r g, dptr_r h, dptr_r out_sgl,
                          dptr_r out_hes, dptr_r out_lam2) noexcept nogil:
    # For every rank j in [start, n): lambda = -sigma |dNDCG| rho (/ (0.01 + |ds|))
    # and the hessian sigma^2 |dNDCG| rho (1 - rho), with rho = 1 / (1 + e^{sigma (s_h - s_l)})
    # from the exponentials u = e^{sigma (s - s_pivot)}: e^{sigma (s_i - s_j)} = u_i / u_j, so
    # rho = u_l / (u_i + u_j) and 1 - rho = u_h / (u_i + u_j), one division and no exp per pair.
    # The terms of rank i's sums go out (sg lambda, the hessian, 2 lambda) and rank j's
    # are added here: g[j] -= sg lambda, h[j] += hessian. A rank j with rank i's gain is
    # no pair: its |dNDCG| is made +0 (_keep: the loop stays vectorised), so its
    # terms are +-0, which leave every sum as it was (see _pairs_default).
    # (Two copies of the loop: a test inside it would stop the vectorisation.)
    cdef Py_ssize_t j
    cdef double sg, ds, dz, uj, q, lo, hi, rho, rho1m, lam, hes, sgl
    cdef double neg_sigma = -sigma, sigma2 = sigma * sigma
    if distance:
        for j in range(start, n):
            sg = 1.0 if gi > rg[j] else -1.0
            ds = sg * (si - rs[j])
            dz = (sg * (gi - rg[j])) * fabs(di - disc[j]) * inv
            dz = _keep(dz, gi != rg[j])
            dz = dz / (0.01 + fabs(ds))
            uj = ru[j]
            q = 1.0 / (ui + uj)
            lo = uj * q                                  # rho when rank i is the high one
            hi = ui * q
            rho = lo if sg > 0.0 else hi
            rho1m = hi if sg > 0.0 else lo
            lam = neg_sigma * dz * rho
            hes = sigma2 * dz * (rho * rho1m)
            sgl = sg * lam
            out_sgl[j] = sgl
            out_hes[j] = hes
            out_lam2[j] = 2.0 * lam
            g[j] = g[j] - sgl
            h[j] = h[j] + hes
    else:
        for j in range(start, n):
            sg = 1.0 if gi > rg[j] else -1.0
            dz = (sg * (gi - rg[j])) * fabs(di - disc[j]) * inv
            dz = _keep(dz, gi != rg[j])
            uj = ru[j]
            q = 1.0 / (ui + uj)
            lo = uj * q
            hi = ui * q
            rho = lo if sg > 0.0 else hi
            rho1m = hi if sg > 0.0 else lo
            lam = neg_sigma * dz * rho
            hes = sigma2 * dz * (rho * rho1m)
            sgl = sg * lam
            out_sgl[j] = sgl
            out_hes[j] = hes
            out_lam2[j] = 2.0 * lam
            g[j] = g[j] - sgl
            h[j] = h[j] + hes


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
    # Rank i's own sums (its gradient, hessian, and the query's S) are the only
    # sums in pair order that pass A cannot do: they run over every rank j > i,
    # a rank that is no pair adding +-0. A sum that starts at +0 and adds or
    # subtracts numbers is never -0 (x + y is -0 only if both are -0, x - y only
    # if x is -0 and y is +0), and x +- 0 = x for every other x: the sums are
    # the pair-by-pair sums, term for term and in order.
    cdef Py_ssize_t i, j, m = _pair_rows(n, p.trunc)
    cdef double* g = s.dg
    cdef double* h = s.dh
    cdef const double* rs = s.rs
    cdef const double* rg = s.rg
    cdef bint distance = p.score_norm and rs[0] != rs[n - 1]
    cdef double* tsgl = s.ta
    cdef double* thes = s.tb
    cdef double* tlam2 = s.tc
    cdef double* ru = s.ta + s.stride
    cdef double acc_g, acc_h
    cdef double total = 0.0, nf, sigma = p.sigma
    for i in range(n):
        g[i] = 0.0
        h[i] = 0.0
    if m > 0:
        _unit_exps(0, n, sigma, rs, ru)
    for i in range(m):
        if ru[i] < PIVOT_MIN:
            _unit_exps(i, n, sigma, rs, ru)
        _default_pass_a(i + 1, n, rg[i], rs[i], p.conv.disc[i], ru[i], inv, distance, sigma, rs, rg, p.conv.disc,
                        ru, g, h, tsgl, thes, tlam2)
        acc_g = g[i]
        acc_h = h[i]
        for j in range(i + 1, n):                        # the sums of rank i, in pair order
            acc_g = acc_g + tsgl[j]
            acc_h = acc_h + thes[j]
            total = total - tlam2[j]
        g[i] = acc_g
        h[i] = acc_h
    if p.list_norm and total > 0.0:
        nf = log2(1.0 + total) / total
        for i in range(n):
            g[i] = g[i] * nf
            h[i] = h[i] * nf
