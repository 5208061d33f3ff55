# LambdaMART kernels, LightGBM mode: the pair loops in LightGBM's float order (included by
# _lambdamart_impl.pxi).

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
    _lgb_pass_a(i + 1, n, s.rl[i], s.rs[i], s.rg[i], p.conv.disc[i], inv, distance, -p.sigma,
                p.sigma * p.sigma, s.rs, s.rl, s.rg, p.conv.disc, p.sig_lo, p.sig_factor,
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
