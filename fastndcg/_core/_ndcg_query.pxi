# NDCG kernels: one query (ideal by counting or selection, ranking with ties, DCG at every
# cutoff). Included by _ndcg.pyx.

# ----------------------------------------------------------------------------- per query


cdef inline void _cumulate(const double* ranked, Py_ssize_t n, bint whole,
                           const double* disc, const int64_t* cutoffs, Py_ssize_t n_cut,
                           double* out_row) noexcept nogil:
    # out_row[j] = sum_{r < min(cutoffs[j], n)} ranked[r] * disc[r]  (or all n when whole)
    cdef Py_ssize_t j, r = 0, depth
    cdef double acc = 0.0
    for j in range(n_cut):
        depth = n if whole or cutoffs[j] > n else cutoffs[j]
        while r < depth:
            acc = acc + ranked[r] * disc[r]
            r += 1
        out_row[j] = acc


cdef inline void _count_labels_packed(const label_t* labels, Py_ssize_t n, Py_ssize_t top,
                                     int64_t* counts) noexcept nogil:
    # Adds the count of each label 0..top (top < 8) to counts[0..top]. One
    # byte per label value in two 64-bit words (even and odd rows): a shift
    # and an add per row, where a counter in memory waits on its own last
    # store. A byte holds 255, so the words are emptied every 510 rows.
    cdef uint64_t even, odd
    cdef Py_ssize_t i = 0, end, lv
    while i < n:
        end = i + 510 if n - i > 510 else n
        even = 0
        odd = 0
        while i + 1 < end:
            even += (<uint64_t>1) << (8 * <int>labels[i])
            odd += (<uint64_t>1) << (8 * <int>labels[i + 1])
            i += 2
        if i < end:
            even += (<uint64_t>1) << (8 * <int>labels[i])
            i += 1
        for lv in range(top + 1):
            counts[lv] += <int64_t>(((even >> (8 * lv)) & 255) + ((odd >> (8 * lv)) & 255))


cdef void _ideal_one_query(const label_t* labels, Py_ssize_t n, const ConventionPlan* c, int64_t* counts,
                           Py_ssize_t top, double* out_row, double* gbuf, RankedDoc* docs) noexcept nogil:
    # IDCG of one query at every cutoff; labels are valid. ``top``: a bound on
    # the largest label (from the label check), or -1 to find it here.
    cdef Py_ssize_t i, p, li, depth, lv, size = c.count_size, a, b
    cdef bint find_top = top < 0 or top >= size
    cdef int64_t cnt
    cdef double g
    if n == 0:
        for i in range(c.n_cut):
            out_row[i] = 0.0
        return
    depth = n if c.ideal_whole or c.cutoffs[c.n_cut - 1] > n else c.cutoffs[c.n_cut - 1]
    if counts != NULL and c.levels == NULL:
        # Gain non-decreasing in the label: count per label, then emit from the
        # query's largest label down (no sort). Labels below 8 are counted in
        # packed bytes; larger ones in two interleaved counter banks, which
        # avoid a store-to-load stall on runs of equal labels.
        if find_top:
            top = 0
            for i in range(n):
                a = <Py_ssize_t>labels[i]
                top = a if a > top else top
        if (label_t is int32_t or label_t is int64_t) and top < 8:
            _count_labels_packed(labels, n, top, counts)
        else:
            i = 0
            while i + 1 < n:
                a = <Py_ssize_t>labels[i]
                b = <Py_ssize_t>labels[i + 1]
                counts[a] += 1
                counts[size + b] += 1
                i += 2
            if i < n:
                counts[<Py_ssize_t>labels[i]] += 1
        p = 0
        lv = top
        while lv >= 0:
            cnt = counts[lv] + counts[size + lv]
            counts[lv] = 0
            counts[size + lv] = 0
            g = c.table[lv]
            while cnt > 0 and p < depth:
                gbuf[p] = g
                p += 1
                cnt -= 1
            lv -= 1
    elif counts != NULL:
        # A small gain table: count per level, emit levels by gain descending.
        i = 0
        while i + 1 < n:
            a = <Py_ssize_t>labels[i]
            b = <Py_ssize_t>labels[i + 1]
            counts[a if a < c.last else c.last] += 1
            counts[size + (b if b < c.last else c.last)] += 1
            i += 2
        if i < n:
            a = <Py_ssize_t>labels[i]
            counts[a if a < c.last else c.last] += 1
        p = 0
        for li in range(c.n_levels):
            lv = c.levels[li]
            cnt = counts[lv] + counts[size + lv]
            counts[lv] = 0
            counts[size + lv] = 0
            g = c.table[lv]
            while cnt > 0 and p < depth:
                gbuf[p] = g
                p += 1
                cnt -= 1
    else:
        for i in range(n):
            gbuf[i] = plan_gain(labels[i], c)
        select_top(gbuf, <const int64_t*>NULL, False, False, n, depth, docs)
        for p in range(depth):
            gbuf[p] = docs[p].score
    _cumulate(gbuf, depth, c.ideal_whole, c.ideal_disc, c.cutoffs, c.n_cut, out_row)


cdef void _ideal_from_counts8(const int64_t* cnt8, Py_ssize_t n, Py_ssize_t top, const ConventionPlan* c,
                              double* out_row, double* gbuf) noexcept nogil:
    # The counting ideal of _ideal_one_query from the counts of labels 0..top
    # (top < 8 and < count_size; n > 0): the same gains in the same order. For
    # a short ideal, rank p's label without a branch: top minus the number of
    # levels (from the top) whose running count is <= p.
    cdef Py_ssize_t p = 0, lv = top, depth, k, i
    cdef int64_t cnt, run = 0
    cdef int64_t cum[8]
    cdef double g
    depth = n if c.ideal_whole or c.cutoffs[c.n_cut - 1] > n else c.cutoffs[c.n_cut - 1]
    if depth <= 32:
        for k in range(8):
            if k <= top:
                run += cnt8[top - k]
                cum[k] = run
            else:
                cum[k] = 9223372036854775807
        for p in range(depth):
            i = 0
            for k in range(8):
                i += cum[k] <= p
            gbuf[p] = c.table[top - i]
    else:
        while lv >= 0:
            cnt = cnt8[lv]
            g = c.table[lv]
            while cnt > 0 and p < depth:
                gbuf[p] = g
                p += 1
                cnt -= 1
            lv -= 1
    _cumulate(gbuf, depth, c.ideal_whole, c.ideal_disc, c.cutoffs, c.n_cut, out_row)


cdef void _average_ties(const floating* scores, const label_t* labels, Py_ssize_t n, Py_ssize_t m,
                        const ConventionPlan* c, RankedDoc* docs, double* gbuf) noexcept nogil:
    # Rewrites gbuf[0..m) for ties="average": each tied group's mean gain at every
    # position it occupies. Every document scoring above docs[m-1] is among the m
    # selected, so only the last group can have members beyond the selection; those
    # are gathered by a scan. (worst / best are a tie key, resolve.gain_rank_key.)
    cdef Py_ssize_t r = 0, e, t, cnt, i
    cdef double s, total
    while r < m:
        s = docs[r].score
        e = r + 1
        while e < m and docs[e].score == s:
            e += 1
        if e == m and m < n:
            cnt = 0
            total = 0.0
            for i in range(n):
                if plan_score(scores[i], c) == s:
                    total = total + plan_gain(labels[i], c)
                    cnt += 1
        elif e - r > 1:
            cnt = e - r
            total = 0.0
            for t in range(cnt):
                total = total + gbuf[r + t]
        else:
            r = e
            continue
        total = total / cnt
        for t in range(r, e):
            gbuf[t] = total
        r = e


cdef inline Py_ssize_t _top_size(Py_ssize_t n, const ConventionPlan* c) noexcept nogil:
    # how many documents a query's DCG ranks: its size, or the largest cutoff
    return n if c.cutoffs[c.n_cut - 1] > n else c.cutoffs[c.n_cut - 1]


cdef bint _dcg_one_query(const floating* scores, const label_t* labels, const int64_t* keys,
                         Py_ssize_t n, const ConventionPlan* c, double* out_row, RankedDoc* docs,
                         double* gbuf, bint screen) noexcept nogil:
    # True (and nothing written) when ``screen`` is asked and the selection's own
    # score screen flags a score (_select_top_ndcg; the caller then finds the problem)
    cdef Py_ssize_t r, m
    if n == 0:
        for r in range(c.n_cut):
            out_row[r] = 0.0
        return False
    m = _top_size(n, c)
    # (the query's label lines were prefetched with the previous query: _score_queries)
    if _select_top_ndcg(scores, keys, c, n, m, docs, screen):
        return True
    for r in range(m):
        gbuf[r] = plan_gain(labels[docs[r].idx], c)
    if c.tie_mode == TIES_AVERAGE:
        _average_ties(scores, labels, n, m, c, docs, gbuf)
    _cumulate(gbuf, m, False, c.disc, c.cutoffs, c.n_cut, out_row)
    return False
