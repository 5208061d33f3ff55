# LambdaMART kernels, LightGBM mode: the pair loops in LightGBM's float order (included by
# _lambdamart_impl.pxi).

# ----------------------------------------------------------------------------- LightGBM mode


cdef void _lgb_pass_a(Py_ssize_t start, Py_ssize_t n, double yi, double si, double gi, double di,
                      double inv, bint distance, cdptr_r rs, cdptr_r rl, cdptr_r rg, cdptr_r disc,
                      double lo, double factor, double last, dptr_r out_dz, iptr_r out_bin) noexcept nogil:
    # For every rank j in [start, n), the pair's dZ and the sigmoid-table bin of ds:
    #   dZ = (G_h - G_l) * |D_h - D_l| * inv [/ (0.01f + |ds|)], ds = s_h - s_l
    #   bin: ds <= lo -> 0, ds >= hi -> bins - 1, else floor((ds - lo) * factor)
    #        (clamped to bins - 1, where C++ would read past the end).
    # With sg = +-1 (+1 when rank i holds the higher label), ds = sg (s_i - s_j) and
    # G_h - G_l = sg (G_i - G_j) exactly. A rank with rank i's label is no pair: its dZ
    # is made +0 (_keep: the loop stays vectorised), so that its terms are +-0 whatever
    # the table holds (see _pairs_lightgbm), and it reads bin 0: no cache miss.
    # (Two copies of the loop: a test inside it would stop the vectorisation.)
    cdef Py_ssize_t j
    cdef double sg, ds, dz, x
    cdef double eps = LGB_SCORE_EPS
    if distance:
        for j in range(start, n):
            sg = 1.0 if yi > rl[j] else -1.0
            ds = sg * (si - rs[j])
            dz = (sg * (gi - rg[j])) * fabs(di - disc[j]) * inv
            dz = _keep(dz, yi != rl[j])
            dz = dz / (eps + fabs(ds))
            x = (ds - lo) * factor
            x = x if x > 0.0 else 0.0
            x = x if x < last else last
            x = _keep(x, yi != rl[j])                  # no pair: bin 0, a line that stays cached
            out_bin[j] = <int32_t>x
            out_dz[j] = dz
    else:
        for j in range(start, n):
            sg = 1.0 if yi > rl[j] else -1.0
            ds = sg * (si - rs[j])
            dz = (sg * (gi - rg[j])) * fabs(di - disc[j]) * inv
            dz = _keep(dz, yi != rl[j])
            x = (ds - lo) * factor
            x = x if x > 0.0 else 0.0
            x = x if x < last else last
            x = _keep(x, yi != rl[j])                  # no pair: bin 0, a line that stays cached
            out_bin[j] = <int32_t>x
            out_dz[j] = dz


cdef void _lgb_terms(Py_ssize_t start, Py_ssize_t n, double yi, double neg_sigma, double sigma2, cdptr_r pl,
                     cdptr_r dz, cdptr_r rl, dptr_r out_tq, fptr_r g, fptr_r h, fptr_r out_q32,
                     fptr_r out_h32) noexcept nogil:
    # For every rank j in [start, n) the pair's terms from its sigmoid value p:
    # p_lambda = p * (sg * ((-sigma) * dZ)) (signed for rank i), its float32, the float32
    # p_hessian (p * (1 - p)) * ((sigma * sigma) * dZ), and S's term -2 sg p_lambda
    # (S -= 2 p_lambda, up to the exact sign); rank j's own sums take them here. sg = +-1
    # multiplies exactly, so the products are LightGBM's up to sign.
    cdef Py_ssize_t j
    cdef double p, q, sg
    cdef float q32, h32
    for j in range(start, n):
        sg = 1.0 if yi > rl[j] else -1.0
        p = pl[j]
        q = p * (sg * (neg_sigma * dz[j]))
        q32 = <float>q
        # no pair: +0 (its dZ is +0, but sigma^2 may overflow: inf * 0 = NaN)
        h32 = <float>_keep((p * (1.0 - p)) * (sigma2 * dz[j]), yi != rl[j])
        out_q32[j] = q32
        out_h32[j] = h32
        out_tq[j] = (-2.0 * sg) * q
        g[j] = g[j] - q32
        h[j] = h[j] + h32


cdef inline void _lgb_stage(Py_ssize_t i, Py_ssize_t n, double inv, bint distance,
                            const LMParams* p, Scratch* s) noexcept nogil:
    # Pass A of row i into slot i % SLOTS.
    cdef Py_ssize_t off = (i % SLOTS) * s.stride
    _lgb_pass_a(i + 1, n, s.rl[i], s.rs[i], s.rg[i], p.conv.disc[i], inv, distance, s.rs, s.rl, s.rg, p.conv.disc,
                p.sig_lo, p.sig_factor, <double>(p.sig_bins - 1), s.ta + off, s.ti + off)


cdef void _pairs_lightgbm(Py_ssize_t n, double inv, const LMParams* p, Scratch* s) noexcept nogil:
    # LightGBM 4.x LambdarankNDCG::GetGradientsForOneQuery, operation for operation:
    #   ds = s_h - s_l; dZ = (G_h - G_l) * |D_h - D_l| * inv [/ (0.01f + |ds|)]
    #   p = sigmoid_table(ds); ph = p * (1 - p); p *= (-sigma) * dZ; ph *= (sigma * sigma) * dZ
    #   lam[l] -= f32(p); hes[l] += f32(ph); lam[h] += f32(p); hes[h] += f32(ph); S -= 2 p
    # Row i visits every rank j > i: one with its label has dZ = +0 (pass A), so
    # its terms are +-0, and a sum that starts at +0 and adds or subtracts
    # numbers is never -0 (x + y is -0 only if both are -0, x - y only if x is -0
    # and y is +0), the one value that x +- 0 would change: the sums are
    # LightGBM's, term for term and in order, without a branch or a partner list.
    # Three rows in flight: while rank i's own sums run (three chains of dependent
    # additions, in pair order), the same loop reads row i + 1's table entries
    # (the 8 MiB table is mostly cache misses) and prefetches row i + 2's, whose
    # pass A ran just before; then row i + 1's terms (vectorised; they add the
    # partners' shares, in row order as LightGBM does).
    cdef Py_ssize_t i, j, r, m = _pair_rows(n, p.trunc)
    cdef float* g = s.fg
    cdef float* h = s.fh
    cdef const double* table = p.sig_table
    cdef bint distance = p.score_norm and s.rs[0] != s.rs[n - 1]
    cdef double total = 0.0, nf
    cdef float acc_g, acc_h
    cdef double* tp = s.tp
    cdef float* tq32 = s.tf
    cdef float* th32 = s.tf + s.stride
    cdef const int32_t* bin1
    cdef const int32_t* bin2
    cdef const double* tq
    for r in range(n):
        g[r] = 0.0
        h[r] = 0.0
    if m == 0:
        return
    _lgb_stage(0, n, inv, distance, p, s)
    for j in range(1, n):
        prefetch(table + s.ti[j])
    if m > 1:
        _lgb_stage(1, n, inv, distance, p, s)
        bin1 = s.ti + s.stride
        for j in range(2, n):
            prefetch(table + bin1[j])
    for j in range(1, n):
        tp[j] = table[s.ti[j]]
    _lgb_terms(1, n, s.rl[0], -p.sigma, p.sigma * p.sigma, tp, s.ta, s.rl, s.tc, g, h, tq32, th32)
    for i in range(m):
        # row i's terms are in tq32, th32 and tq; rows i + 1 and i + 2 have had pass A
        tq = s.tc + (i % SLOTS) * s.stride
        if i + 2 < m:
            _lgb_stage(i + 2, n, inv, distance, p, s)
        acc_g = g[i]
        acc_h = h[i]
        acc_g = acc_g + tq32[i + 1]                      # j = i + 1 (i + 1 < n: i < m <= n - 1)
        acc_h = acc_h + th32[i + 1]
        total = total + tq[i + 1]
        if i + 1 < m:
            bin1 = s.ti + ((i + 1) % SLOTS) * s.stride
            if i + 2 < m:
                bin2 = s.ti + ((i + 2) % SLOTS) * s.stride
                tp[i + 2] = table[bin1[i + 2]]           # i + 2 < n: i + 1 < m <= n - 1
                acc_g = acc_g + tq32[i + 2]
                acc_h = acc_h + th32[i + 2]
                total = total + tq[i + 2]
                for j in range(i + 3, n):
                    prefetch(table + bin2[j])            # row i + 2
                    tp[j] = table[bin1[j]]               # row i + 1
                    acc_g = acc_g + tq32[j]              # row i, in pair order
                    acc_h = acc_h + th32[j]
                    total = total + tq[j]
            else:
                for j in range(i + 2, n):
                    tp[j] = table[bin1[j]]
                    acc_g = acc_g + tq32[j]
                    acc_h = acc_h + th32[j]
                    total = total + tq[j]
        else:
            for j in range(i + 2, n):
                acc_g = acc_g + tq32[j]
                acc_h = acc_h + th32[j]
                total = total + tq[j]
        g[i] = acc_g
        h[i] = acc_h
        if i + 1 < m:
            r = ((i + 1) % SLOTS) * s.stride
            _lgb_terms(i + 2, n, s.rl[i + 1], -p.sigma, p.sigma * p.sigma, tp, s.ta + r, s.rl, s.tc + r,
                       g, h, tq32, th32)
    if p.list_norm and total > 0.0:
        nf = log2(1.0 + total) / total
        for r in range(n):
            g[r] = <float>(<double>g[r] * nf)
            h[r] = <float>(<double>h[r] * nf)
