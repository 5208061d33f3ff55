# Ranking primitives shared by every kernel.
#
# One comparator, a strict total order: score descending, then tie key
# ascending, then position in the query ascending. Because no two documents
# compare equal, every correct sort or selection yields the same ranking, so
# "stable" is a property of the comparator, not of the algorithm.
#
# Everything here is `noexcept nogil` and trusts its inputs (validated in Python).
from cython cimport floating
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memcpy

ctypedef fused label_t:
    int32_t
    int64_t
    float
    double

ctypedef struct RankedDoc:
    double score     # the score as ranked (float32 inputs convert exactly)
    int64_t key      # tie key: the position itself for input-order ties
    int64_t idx      # position within the query


cdef inline bint ranks_before(const RankedDoc* a, const RankedDoc* b) noexcept nogil:
    if a.score != b.score:
        return a.score > b.score
    if a.key != b.key:
        return a.key < b.key
    return a.idx < b.idx


cdef inline double ranked_score(floating s, bint round_f32) noexcept nogil:
    if round_f32:
        return <double>(<float>s)
    return <double>s


cdef inline void make_doc(RankedDoc* d, double score, const int64_t* keys, bint key_desc,
                          Py_ssize_t i) noexcept nogil:
    d.score = score
    d.idx = i
    if keys == NULL:
        d.key = i
    elif key_desc:
        d.key = ~keys[i]   # ~x = -x-1: order-reversing without overflow
    else:
        d.key = keys[i]


cdef inline void insertion_sort(RankedDoc* a, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef RankedDoc x
    for i in range(1, n):
        x = a[i]
        j = i
        while j > 0 and ranks_before(&x, &a[j - 1]):
            a[j] = a[j - 1]
            j -= 1
        a[j] = x


# A "worst-heap" keeps the document that ranks last at its root, so that the
# root is the one to evict when a better document shows up.
cdef inline void sift_down_worst(RankedDoc* h, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    cdef RankedDoc x = h[i]
    cdef Py_ssize_t c
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and ranks_before(&h[c], &h[c + 1]):
            c += 1
        if ranks_before(&x, &h[c]):
            h[i] = h[c]
            i = c
        else:
            break
    h[i] = x


cdef inline void heapify_worst(RankedDoc* h, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n // 2 - 1, -1, -1):
        sift_down_worst(h, i, n)


cdef inline void heap_sort_worst(RankedDoc* h, Py_ssize_t n) noexcept nogil:
    # h is a worst-heap; afterwards it is sorted best first.
    cdef Py_ssize_t end
    cdef RankedDoc t
    for end in range(n - 1, 0, -1):
        t = h[0]
        h[0] = h[end]
        h[end] = t
        sift_down_worst(h, 0, end)


cdef inline void sort_docs(RankedDoc* a, Py_ssize_t n) noexcept nogil:
    """Introsort, best first: quicksort (median of three, Hoare partition),
    heap sort past a depth limit, insertion sort for short runs."""
    cdef int depth = 0
    cdef Py_ssize_t m = n
    while m > 1:
        depth += 2
        m >>= 1
    _introsort(a, n, depth)


cdef inline void _swap(RankedDoc* a, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    cdef RankedDoc t = a[i]
    a[i] = a[j]
    a[j] = t


cdef inline void _introsort(RankedDoc* a, Py_ssize_t n, int depth) noexcept nogil:
    cdef Py_ssize_t i, j, mid
    cdef RankedDoc pivot
    while n > 16:
        if depth == 0:
            heapify_worst(a, n)
            heap_sort_worst(a, n)
            return
        depth -= 1
        mid = n // 2
        if ranks_before(&a[mid], &a[0]):
            _swap(a, 0, mid)
        if ranks_before(&a[n - 1], &a[mid]):
            _swap(a, mid, n - 1)
            if ranks_before(&a[mid], &a[0]):
                _swap(a, 0, mid)
        pivot = a[mid]
        i = -1
        j = n
        while True:
            i += 1
            while ranks_before(&a[i], &pivot):
                i += 1
            j -= 1
            while ranks_before(&pivot, &a[j]):
                j -= 1
            if i >= j:
                break
            _swap(a, i, j)
        # [0, j] and [j+1, n): recurse into the smaller, loop on the larger.
        if j + 1 < n - j - 1:
            _introsort(a, j + 1, depth)
            a = a + j + 1
            n = n - j - 1
        else:
            _introsort(a + j + 1, n - j - 1, depth)
            n = j + 1
    insertion_sort(a, n)


# Largest m served by the filtered selection (its group maxima live on the stack).
DEF SMALL_TOP = 32


cdef inline void _set_key(RankedDoc* d, const int64_t* keys, bint key_desc) noexcept nogil:
    if keys == NULL:
        d.key = d.idx
    elif key_desc:
        d.key = ~keys[d.idx]   # ~x = -x-1: order-reversing without overflow
    else:
        d.key = keys[d.idx]


cdef inline double _group_threshold(const floating* v, Py_ssize_t stride, bint round_f32, Py_ssize_t n,
                                   Py_ssize_t groups) noexcept nogil:
    """min over the groups {i : i mod groups = g} of the group's best value,
    the values being ranked_score(v[i * stride]) for i < n: at least
    ``groups`` of them reach it. Branch-free; requires 1 <= groups <= n and
    groups <= SMALL_TOP."""
    cdef double best[SMALL_TOP]
    cdef double s, t
    cdef Py_ssize_t g, base
    for g in range(groups):
        best[g] = ranked_score(v[g * stride], round_f32)
    base = groups
    while base + groups <= n:
        for g in range(groups):
            s = ranked_score(v[(base + g) * stride], round_f32)
            best[g] = s if s > best[g] else best[g]
        base += groups
    for g in range(n - base):
        s = ranked_score(v[(base + g) * stride], round_f32)
        best[g] = s if s > best[g] else best[g]
    t = best[0]
    for g in range(1, groups):
        t = best[g] if best[g] < t else t
    return t


cdef inline Py_ssize_t _filter_candidates(const floating* scores, bint round_f32, Py_ssize_t n,
                                          Py_ssize_t m, RankedDoc* out) noexcept nogil:
    """Write to out[0..c) (score, idx) of every document whose score is >= a
    threshold T that at least m documents reach, in input order, and return
    c (>= m).

    T = min over G >= m groups {i : i mod G = g} of the group's best score
    (``_group_threshold``). Each group holds a document scoring >= T, so at
    least m do, and every document of the top m (whose scores are >= the m-th
    best >= T) is kept. Both passes are branch-free: on a typical query
    (n ~ 100, m = 10) about 2.5m documents survive, and the costly,
    unpredictable comparisons of the selection run on those only. G = max(m,
    4): at least four independent running maxima, so no pass waits on a chain
    of dependent comparisons. When 2m or more survive, the same rule once more
    over the survivors (``_refine_candidates``) leaves about 1.8m.
    Requires 1 <= m <= SMALL_TOP and 4 <= n, m <= n.
    """
    cdef double s, t
    cdef Py_ssize_t i, c
    t = _group_threshold(scores, 1, round_f32, n, m if m >= 4 else 4)
    c = 0
    for i in range(n):
        # Unconditional write, conditional advance: no branch to mispredict.
        s = ranked_score(scores[i], round_f32)
        out[c].score = s
        out[c].idx = i
        c += s >= t
    if c >= 2 * m:
        c = _refine_candidates(out, c, m)
    return c


cdef inline Py_ssize_t _refine_candidates(RankedDoc* cand, Py_ssize_t c, Py_ssize_t m) noexcept nogil:
    # The threshold rule of _filter_candidates over the candidates cand[0..c)
    # (c >= 2m: at least two per group), keeping those at or above it in
    # place and in order; returns their count (>= m).
    cdef double t = _group_threshold(&cand[0].score, sizeof(RankedDoc) // sizeof(double), False, c, m)
    cdef Py_ssize_t i, k = 0
    cdef RankedDoc x
    for i in range(c):
        x = cand[i]
        cand[k] = x
        k += x.score >= t
    return k


cdef inline void _insert_into_run(RankedDoc* run, Py_ssize_t m, const RankedDoc* x) noexcept nogil:
    # run[0..m) is sorted best first and x ranks before run[m-1]: x takes its
    # place and the last one drops out.
    cdef Py_ssize_t j = m - 1
    while j > 0 and ranks_before(x, &run[j - 1]):
        run[j] = run[j - 1]
        j -= 1
    run[j] = x[0]


cdef inline void _select_in_input_order(RankedDoc* cand, Py_ssize_t c, Py_ssize_t m) noexcept nogil:
    """Put the m best of the candidates cand[0..c) (score and idx set, in
    input order), best first, into cand[0..m); the key is the position.

    With the position as tie key and the candidates in input order, a
    candidate ranks before an earlier one exactly when its score is greater:
    an insertion that moves a candidate past strictly lower scores only is
    the comparator's order, with one double comparison instead of three.
    Requires 1 <= m <= c and m <= SMALL_TOP.
    """
    cdef double top_score[SMALL_TOP]
    cdef int64_t top_idx[SMALL_TOP]
    cdef Py_ssize_t i, j, r
    cdef double s, last
    cdef RankedDoc x
    # The first m in order by counting, for each, the ones that rank before
    # it (fixed loops, no branch to mispredict); then the rest by insertion.
    for i in range(m):
        s = cand[i].score
        r = 0
        for j in range(i):
            r += cand[j].score >= s
        for j in range(i + 1, m):
            r += cand[j].score > s
        top_score[r] = s
        top_idx[r] = cand[i].idx
    for i in range(m):
        cand[i].score = top_score[i]
        cand[i].idx = top_idx[i]
    last = cand[m - 1].score
    for i in range(m, c):
        s = cand[i].score
        if s > last:
            x = cand[i]
            j = m - 1
            while j > 0 and s > cand[j - 1].score:
                cand[j] = cand[j - 1]
                j -= 1
            cand[j] = x
            last = cand[m - 1].score
    for i in range(m):
        cand[i].key = cand[i].idx


cdef inline void select_top(const floating* scores, const int64_t* keys, bint key_desc,
                            bint round_f32, Py_ssize_t n, Py_ssize_t m,
                            RankedDoc* out) noexcept nogil:
    """Put the m best of n documents, best first, into out[0..m).

    Requires 1 <= m <= n; ``out`` must have room for n entries. Strategy by
    size (all give the same result, the comparator being a total order):
    m close to n: sort the whole query; m <= 2: a sorted run of m with
    insertion (one comparison rejects most documents); m <= SMALL_TOP: a
    branch-free filter (see ``_filter_candidates``), then the same sorted run
    over the survivors (without a tie key: ``_select_in_input_order``);
    larger m: a bounded worst-heap.
    """
    cdef Py_ssize_t i, c
    cdef double s, last
    cdef RankedDoc x
    if n <= 2 * m or n <= 16:
        for i in range(n):
            make_doc(&out[i], ranked_score(scores[i], round_f32), keys, key_desc, i)
        sort_docs(out, n)
        return
    if m <= 2:
        # A scan with a rarely taken branch (about ln n insertions): cheaper
        # than the two passes of the filter.
        for i in range(m):
            make_doc(&out[i], ranked_score(scores[i], round_f32), keys, key_desc, i)
        insertion_sort(out, m)
        last = out[m - 1].score
        for i in range(m, n):
            s = ranked_score(scores[i], round_f32)
            if s < last:
                continue
            make_doc(&x, s, keys, key_desc, i)
            if ranks_before(&x, &out[m - 1]):
                _insert_into_run(out, m, &x)
                last = out[m - 1].score
        return
    if m <= SMALL_TOP:
        c = _filter_candidates(scores, round_f32, n, m, out)
        if keys == NULL:
            _select_in_input_order(out, c, m)
            return
        for i in range(c):
            _set_key(&out[i], keys, key_desc)
        if c <= 2 * m or c <= 16:
            sort_docs(out, c)
            return
        # Candidates stay in input order; the run of the m best so far
        # occupies out[0..m) and candidate i >= m is read before it is reached.
        insertion_sort(out, m)
        last = out[m - 1].score
        for i in range(m, c):
            x = out[i]
            if x.score >= last and ranks_before(&x, &out[m - 1]):
                _insert_into_run(out, m, &x)
                last = out[m - 1].score
        return
    for i in range(m):
        make_doc(&out[i], ranked_score(scores[i], round_f32), keys, key_desc, i)
    heapify_worst(out, m)
    for i in range(m, n):
        s = ranked_score(scores[i], round_f32)
        if s < out[0].score:
            continue
        make_doc(&x, s, keys, key_desc, i)
        if ranks_before(&x, &out[0]):
            out[0] = x
            sift_down_worst(out, 0, m)
    heap_sort_worst(out, m)


# ----------------------------------------------------------------------------- bucket ranking
#
# The same order in expected linear time: documents go to 2n buckets by
# (max - score) * 2n / (max - min), a non-decreasing function of -score
# (every step rounds monotonically), so every document of a bucket ranks
# before every document of a later bucket; each bucket is then ordered with
# THE comparator (insertion sort while small, sort_docs beyond). Twice as many
# buckets as documents: fewer documents share one (the insertion sort's moves
# and mispredicted exits are most of the ranking's time). Any correct
# sort under the comparator gives the same ranking, so this is sort_docs's
# result, faster on large queries and with fewer mispredicted branches.


cdef inline bint bucket_sort_docs(const RankedDoc* src, RankedDoc* out, Py_ssize_t* counts,
                                  int32_t* bucket, Py_ssize_t n) noexcept nogil:
    """Write src[0..n) into out[0..n), ranked best first. ``counts`` needs
    2 n + 1 entries, ``bucket`` n. Returns False (nothing written) when the score
    range is not finite; the caller then sorts as usual."""
    cdef Py_ssize_t i, b, c, total, start, stop, nb, biggest = 0
    cdef double hi = src[0].score, lo = src[0].score, scale, x, top
    cdef double hi1 = hi, hi2 = hi, hi3 = hi, lo1 = lo, lo2 = lo, lo3 = lo
    i = 1
    # four running extremes: no chain of dependent compares through the query
    while i + 4 <= n:
        x = src[i].score
        hi = x if x > hi else hi
        lo = x if x < lo else lo
        x = src[i + 1].score
        hi1 = x if x > hi1 else hi1
        lo1 = x if x < lo1 else lo1
        x = src[i + 2].score
        hi2 = x if x > hi2 else hi2
        lo2 = x if x < lo2 else lo2
        x = src[i + 3].score
        hi3 = x if x > hi3 else hi3
        lo3 = x if x < lo3 else lo3
        i += 4
    while i < n:
        x = src[i].score
        hi = x if x > hi else hi
        lo = x if x < lo else lo
        i += 1
    hi = hi1 if hi1 > hi else hi
    hi = hi2 if hi2 > hi else hi
    hi = hi3 if hi3 > hi else hi
    lo = lo1 if lo1 < lo else lo
    lo = lo2 if lo2 < lo else lo
    lo = lo3 if lo3 < lo else lo
    if hi == lo:
        # every score tied: the comparator alone decides
        memcpy(out, src, n * sizeof(RankedDoc))
        if n > 16:
            sort_docs(out, n)
        else:
            insertion_sort(out, n)
        return True
    nb = 2 * n
    scale = <double>nb / (hi - lo)
    if not (scale > 0.0 and scale < 1e300 and (hi - lo) < 1e300):
        return False
    top = <double>(nb - 1)
    for b in range(nb + 1):
        counts[b] = 0
    for i in range(n):
        x = (hi - src[i].score) * scale
        x = x if x < top else top
        b = <Py_ssize_t>x
        bucket[i] = <int32_t>b
        counts[b + 1] += 1
    total = 0
    for b in range(nb + 1):
        c = counts[b]
        biggest = c if c > biggest else biggest
        total += c
        counts[b] = total
    for i in range(n):
        b = bucket[i]
        out[counts[b]] = src[i]
        counts[b] += 1
    if biggest <= 32:
        # Every bucket is small: one insertion sort over the whole list. It never
        # moves a document past the end of its bucket (the documents before it
        # rank first), so it orders each bucket, without a branch per bucket.
        insertion_sort(out, n)
        return True
    # counts[b] is now the end of bucket b (and the start of bucket b + 1)
    start = 0
    for b in range(nb):
        stop = counts[b]
        c = stop - start
        if c > 32:
            sort_docs(out + start, c)
        elif c > 1:
            insertion_sort(out + start, c)
        start = stop
    return True
