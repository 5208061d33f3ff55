# LambdaMART kernels, default mode: the pair loops (included by _lambdamart_impl.pxi).

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
