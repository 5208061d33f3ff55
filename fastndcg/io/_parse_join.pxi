# The run-qrels join by hash and trec_eval's tie key (KeyedRow, sort_docnos and
# radix_sort_keys of _parse_trec.pxi). Included by _parse.pyx.

# ------------------------------------------------------------------ joining by hash, tie keys

cdef inline uint64_t docno_hash(const uint8_t* s, int64_t n) noexcept nogil:
    """64-bit hash of a docno's bytes, 8 at a time (one multiply each). It only
    places docnos in tables: equal hashes are compared byte for byte, so no
    result depends on it."""
    cdef uint64_t h = <uint64_t>n
    cdef uint64_t w = 0
    cdef uint32_t w4
    cdef uint16_t w2
    cdef int shift = 0
    while n >= 8:
        memcpy(&w, s, 8)
        h = (((h << 23) | (h >> 41)) ^ w) * 0x9E3779B97F4A7C15ULL
        s += 8
        n -= 8
    if n > 0:                       # the last 1-7 bytes, without reading past them
        w = 0
        if n >= 4:
            memcpy(&w4, s, 4)
            w = w4
            s += 4
            n -= 4
            shift = 32
        if n >= 2:
            memcpy(&w2, s, 2)
            w |= (<uint64_t>w2) << shift
            s += 2
            n -= 2
            shift += 16
        if n > 0:
            w |= (<uint64_t>s[0]) << shift
        h = (((h << 23) | (h >> 41)) ^ w) * 0x9E3779B97F4A7C15ULL
    return h ^ (h >> 29)


cdef uint64_t HASH_HIGH = 0xFFFFFFFF00000000ULL
cdef uint64_t HASH_LOW = 0xFFFFFFFFULL


cdef inline int64_t table_size(int64_t m) noexcept nogil:
    """Slots of an open-addressing table for m keys: the power of two in [4m, 8m)
    (at most a quarter full: a key not in it is usually told by one slot), 0 for none."""
    cdef int64_t p = 4
    if m == 0:
        return 0
    while p < 4 * m:
        p <<= 1
    return p


cdef inline uint64_t float32_order(double x) noexcept nogil:
    """x rounded to float32 as the kernels round it (``<float>``), as an
    unsigned key in numeric order; -0.0 and 0.0 give one key."""
    cdef float f = <float>x
    cdef uint32_t u
    if f == 0:
        f = 0
    memcpy(&u, &f, 4)
    if u & 0x80000000u:
        u = ~u
    else:
        u = u | 0x80000000u
    return u


cdef void sort_by_key(KeyedRow* a, KeyedRow* tmp, Py_ssize_t n) noexcept nogil:
    """Stable sort of a[0:n] by key (insertion below 64 rows, else radix)."""
    cdef Py_ssize_t i, j
    cdef KeyedRow x
    if n >= 64:
        radix_sort_keys(a, tmp, n)
        return
    for i in range(1, n):
        x = a[i]
        j = i
        while j > 0 and a[j - 1].key > x.key:
            a[j] = a[j - 1]
            j -= 1
        a[j] = x


cdef void topic_tie_keys(const double* score, const int64_t* start, const int64_t* length, const uint8_t* pool,
                         int64_t m, int32_t* key, KeyedRow* a, KeyedRow* tmp) noexcept nogil:
    """trec_eval's tie key of one topic's m rows: each row's rank by (score
    rounded to float32, docno bytewise), ascending. Among rows with equal
    scores (as doubles, or rounded to float32) it orders by docno, which is
    all a comparator "score descending, then key descending" reads; docnos
    are compared only within such groups. ``start``, ``length``: each row's
    docno in ``pool``; ``a``, ``tmp``: m scratch rows each. A key is below m
    (< 2**31: the join's tables are 32-bit), so it is kept in 32 bits."""
    cdef int64_t i, j, s, e
    cdef bint descending = True
    for i in range(1, m):
        if <float>score[i] > <float>score[i - 1]:
            descending = False
            break
    if descending:          # the usual run: scores in file order, ties next to each other
        s = 0
        while s < m:
            e = s + 1
            while e < m and <float>score[e] == <float>score[s]:
                e += 1
            if e - s == 1:
                key[s] = <int32_t>(m - 1 - s)
            else:
                for j in range(e - s):
                    a[j].row = s + j
                sort_docnos(a, tmp, e - s, pool, start, length)
                for j in range(e - s):
                    key[a[j].row] = <int32_t>(m - e + j)
            s = e
        return
    for i in range(m):
        a[i].key = float32_order(score[i])
        a[i].row = i
    sort_by_key(a, tmp, m)
    s = 0
    while s < m:
        e = s + 1
        while e < m and a[e].key == a[s].key:
            e += 1
        if e - s > 1:
            sort_docnos(a + s, tmp + s, e - s, pool, start, length)
        for j in range(s, e):
            key[a[j].row] = <int32_t>j
        s = e


def tie_keys(const uint8_t[::1] pool,
             const int64_t[::1] start,     # IN (rows): docno of each row, rows grouped by topic
             const int64_t[::1] length,    # IN (rows)
             const double[::1] scores,     # IN (rows)
             const int64_t[::1] goff,      # IN (topics + 1)
             int32_t[::1] out,             # OUT (rows): the tie key (topic_tie_keys)
             int n_threads):
    """The tie key of every row, topic by topic (in parallel; any thread
    count gives the same keys)."""
    cdef Py_ssize_t n = out.shape[0], g, ng = goff.shape[0] - 1
    cdef int64_t a
    cdef KeyedRow* ids
    cdef const uint8_t* p = &pool[0] if pool.shape[0] else NULL
    if n == 0:
        return
    ids = <KeyedRow*>malloc(2 * n * sizeof(KeyedRow))
    if ids == NULL:
        raise MemoryError()
    try:
        with nogil:
            for g in prange(ng, schedule="dynamic", num_threads=n_threads, use_threads_if=n_threads > 1):
                a = goff[g]
                topic_tie_keys(&scores[a], &start[a], &length[a], p, goff[g + 1] - a, &out[a], ids + a, ids + n + a)
    finally:
        free(ids)


def keep_top(const double[::1] scores,       # IN (rows): rows grouped by topic
             const int64_t[::1] tie_key,     # IN (rows): AlignedRun.tie_key (docno order within equal scores)
             const int64_t[::1] offsets,     # IN (topics + 1): each topic's rows
             int64_t max_docs,               # the rows kept per topic, <= the largest topic
             bint round_f32,                 # rank the scores rounded to float32
             uint8_t[::1] kept,              # OUT (rows, zeros in): 1 for the max_docs best of their topic
             int n_threads):
    """trec_eval's ``-M``: mark the ``max_docs`` best rows of each topic, ranked by the one
    comparator of the NDCG kernels (``select_top`` of ``fastndcg/_core/_rank.pxd``: score
    descending, then the tie key descending (``key_desc``: docno descending), then position).
    The comparator is a total order: any thread count marks the same rows."""
    cdef Py_ssize_t nt = offsets.shape[0] - 1, t, j, widest = 0
    cdef int64_t a, n, m
    cdef RankedDoc* docs
    cdef RankedDoc* mine
    cdef int slots = n_threads if n_threads > 1 else 1
    for t in range(nt):
        widest = max(widest, <Py_ssize_t>(offsets[t + 1] - offsets[t]))
    if widest == 0 or max_docs < 1:
        return
    # a query's room per thread: no more threads than keep it within 2 x the rows (48 bytes a row)
    slots = <int>min(<int64_t>slots, max(<int64_t>1, 2 * (offsets[nt] - offsets[0]) // widest))
    docs = <RankedDoc*>malloc(slots * widest * sizeof(RankedDoc))
    if docs == NULL:
        raise MemoryError()
    try:
        with nogil:
            for t in prange(nt, schedule="dynamic", num_threads=slots, use_threads_if=slots > 1):
                a = offsets[t]
                n = offsets[t + 1] - a
                m = max_docs if max_docs < n else n
                if m == n:
                    for j in range(n):
                        kept[a + j] = 1
                else:
                    mine = docs + threadid() * widest
                    select_top(&scores[a], &tie_key[a], True, round_f32, n, m, mine)
                    for j in range(m):
                        kept[a + mine[j].idx] = 1
    finally:
        free(docs)


cdef class RunRows:
    """A parsed piece of a run, the input :meth:`DocnoIndex.join` takes: the
    docno bytes ``pool`` (``pool_end`` of them used), each row's docno start
    ``dstart`` (file order; a row ends where the next starts) and its score
    in ``values``."""

    cdef const uint8_t[::1] pool
    cdef const int64_t[::1] dstart
    cdef const double[::1] values
    cdef int64_t pool_end

    def __init__(self, const uint8_t[::1] pool, const int64_t[::1] dstart, int64_t pool_end,
                 const double[::1] values):
        self.pool, self.dstart, self.pool_end, self.values = pool, dstart, pool_end, values


cdef class JoinedRows:
    """Where :meth:`DocnoIndex.join` writes (rows of the judged groups, grouped):
    each row's ``scores``, its qrels row in ``match`` (or -1; the qrels have
    < 2**31 rows) and ``tie_key`` (topic_tie_keys); ``dup`` (2 x groups): the
    rows of a docno given twice in a group, or -1."""

    cdef double[::1] scores
    cdef int32_t[::1] match
    cdef int32_t[::1] tie_key
    cdef int64_t[::1] dup

    def __init__(self, double[::1] scores, int32_t[::1] match, int32_t[::1] tie_key, int64_t[::1] dup):
        self.scores, self.match, self.tie_key, self.dup = scores, match, tie_key, dup


cdef class DocnoIndex:
    """The docnos of qrels, each topic's in a hash table (open addressing,
    linear probing; a slot holds the high half of the docno's hash and its row):
    a run's docno is found, or found absent, in about one probe, without
    sorting the run. Built once per qrels (:func:`fastndcg.io._joining.docno_index`);
    read-only afterwards, so any number of threads may join runs with it."""

    cdef readonly object pool, start, length, offsets, table_start, table
    cdef const uint8_t* _pool
    cdef const int64_t* _start
    cdef const int64_t* _length
    cdef const int64_t* _toff
    cdef const uint64_t* _table

    def __init__(self, pool, start, length, offsets, int n_threads=1):
        """``pool``, ``start``, ``length``: the qrels' docnos; ``offsets``: each topic's rows.
        The topics' tables are built in parallel (``n_threads``; each topic's own slots, so
        any thread count builds the same table)."""
        cdef const uint8_t[::1] qp = np.ascontiguousarray(pool, dtype=np.uint8)
        cdef const int64_t[::1] qs = np.ascontiguousarray(start, dtype=np.int64)
        cdef const int64_t[::1] ql = np.ascontiguousarray(length, dtype=np.int64)
        cdef const int64_t[::1] qoff = np.ascontiguousarray(offsets, dtype=np.int64)
        cdef Py_ssize_t nt = qoff.shape[0] - 1, t
        cdef int64_t j, size, total = 0, base
        cdef uint64_t h, slot
        cdef const uint8_t* p = &qp[0] if qp.shape[0] else NULL
        toff_a = np.empty(nt + 1, dtype=np.int64)
        cdef int64_t[::1] toff = toff_a
        for t in range(nt):
            toff[t] = total
            total += table_size(qoff[t + 1] - qoff[t])
        toff[nt] = total
        table_a = np.zeros(total, dtype=np.uint64)
        cdef uint64_t[::1] table = table_a
        with nogil:
            for t in prange(nt, schedule="dynamic", num_threads=n_threads, use_threads_if=n_threads > 1):
                base = toff[t]
                size = toff[t + 1] - base
                for j in range(qoff[t], qoff[t + 1]):
                    h = docno_hash(p + qs[j], ql[j])
                    slot = h & <uint64_t>(size - 1)
                    while table[base + slot] != 0:
                        slot = (slot + 1) & <uint64_t>(size - 1)
                    table[base + slot] = (h & HASH_HIGH) | <uint64_t>(j - qoff[t] + 1)
        self.pool, self.start, self.length, self.offsets = qp.base, qs.base, ql.base, qoff.base
        self.table_start, self.table = toff_a, table_a
        self._pool = p
        self._start = &qs[0] if qs.shape[0] else NULL
        self._length = &ql[0] if ql.shape[0] else NULL
        self._toff = &toff[0]
        self._table = &table[0] if table.shape[0] else NULL

    def __reduce__(self):
        # pickled with its Qrels (which keeps it): rebuilt from the docnos
        return (DocnoIndex, (self.pool, self.start, self.length, self.offsets))

    # over 100 lines: one parallel loop over topics, whose steps (duplicates, lookups, tie keys) share each topic's scratch
    def join(self, RunRows rows not None,
             const int64_t[::1] order,     # IN (rows): row ids grouped by topic (group_rows)
             const int64_t[::1] goff,      # IN (groups + 1)
             const int64_t[::1] qgroup,    # IN (groups): the qrels topic of each group, or -1
             const int64_t[::1] dst,       # IN (groups): first output row of a judged group
             JoinedRows out not None,      # OUT
             int64_t[::1] scratch,         # (>= 7 x rows), reused across calls
             int n_threads):
        """Per topic (in parallel over topics): find a docno given twice (the
        first row, in file order, whose docno an earlier row of its topic has,
        and that row), look each docno up in the topic's judgments, and give
        the rows of judged topics their score, qrels row and tie key, in file
        order within a topic. Row ids are those of ``rows.dstart`` (file order).
        Topics are independent: any thread count gives the same outputs."""
        cdef Py_ssize_t n = order.shape[0], ng = goff.shape[0] - 1, g
        cdef int64_t a, m, i, j, k, q, r, d, size, qsize, q0
        cdef uint64_t h, slot, e
        cdef bint again
        cdef int64_t* pst
        cdef int64_t* pln
        cdef uint64_t* hs
        cdef int32_t* tab
        cdef const uint64_t* qt
        # the parameter objects' arrays as local memoryviews: the loop reads them as before
        cdef const int64_t[::1] dstart = rows.dstart
        cdef const double[::1] values = rows.values
        cdef int64_t pool_end = rows.pool_end
        cdef double[::1] scores = out.scores
        cdef int32_t[::1] match = out.match
        cdef int32_t[::1] tie_key = out.tie_key
        cdef int64_t[::1] dup = out.dup
        cdef const uint8_t* p = &rows.pool[0] if rows.pool.shape[0] else NULL
        cdef const uint8_t* qp = self._pool
        cdef const int64_t* qs = self._start
        cdef const int64_t* ql = self._length
        cdef const int64_t* toff = self._toff
        cdef const uint64_t* qtable = self._table
        cdef const int64_t* qoff
        cdef const int64_t[::1] qoff_v = self.offsets
        qoff = &qoff_v[0]
        for g in range(2 * ng):
            dup[g] = -1
        if n == 0:
            return
        if scratch.shape[0] < 7 * n:
            raise ValueError(f"scratch must hold 7 x {n} entries; got {scratch.shape[0]}")
        # each thread works in 7 x (the widest topic) entries of its own, reused topic after
        # topic (a cached few KiB for topics of 1,000 results; a region per topic spread over
        # the whole scratch went through memory): the front of ``scratch`` when it holds them
        cdef int64_t widest = 0
        cdef int slots = n_threads if n_threads > 1 else 1
        cdef int64_t* own = NULL
        cdef int64_t* work
        cdef int64_t* base
        for g in range(ng):
            widest = max(widest, goff[g + 1] - goff[g])
        if <int64_t>slots * 7 * widest <= scratch.shape[0]:
            work = &scratch[0]
        else:
            own = <int64_t*>malloc(<size_t>slots * 7 * widest * sizeof(int64_t))
            if own == NULL:
                raise MemoryError()
            work = own
        with nogil:
            for g in prange(ng, schedule="dynamic", num_threads=n_threads, use_threads_if=n_threads > 1):
                a = goff[g]
                m = goff[g + 1] - a
                base = work + <int64_t>threadid() * 7 * widest
                pst = base
                pln = base + m
                hs = <uint64_t*>(base + 2 * m)
                tab = <int32_t*>(base + 3 * m)            # 4m entries: the table (int32), then the tie keys' rows
                for i in range(m):
                    r = order[a + i]
                    pst[i] = dstart[r]
                    pln[i] = (dstart[r + 1] if r + 1 < n else pool_end) - dstart[r]
                size = table_size(m)
                for i in range(size):
                    tab[i] = -1
                q = qgroup[g]
                qt = qtable + toff[q] if q >= 0 else NULL
                qsize = toff[q + 1] - toff[q] if q >= 0 else 0
                q0 = qoff[q] - 1 if q >= 0 else 0
                again = False
                for i in range(m):
                    h = docno_hash(p + pst[i], pln[i])
                    hs[i] = h
                    slot = h & <uint64_t>(size - 1)
                    while tab[slot] >= 0:
                        j = tab[slot]
                        if hs[j] == h and pln[j] == pln[i] and memcmp(p + pst[j], p + pst[i], pln[i]) == 0:
                            dup[2 * g] = order[a + j]
                            dup[2 * g + 1] = order[a + i]
                            again = True
                            break
                        slot = (slot + 1) & <uint64_t>(size - 1)
                    if again:
                        break
                    tab[slot] = <int32_t>i
                    if q < 0:
                        continue
                    d = dst[g] + i
                    scores[d] = values[order[a + i]]
                    k = -1
                    slot = h & <uint64_t>(qsize - 1)
                    e = qt[slot] if qsize > 0 else 0
                    while e != 0:
                        if (e & HASH_HIGH) == (h & HASH_HIGH):
                            j = q0 + <int64_t>(e & HASH_LOW)
                            if ql[j] == pln[i] and memcmp(qp + qs[j], p + pst[i], pln[i]) == 0:
                                k = j
                                break
                        slot = (slot + 1) & <uint64_t>(qsize - 1)
                        e = qt[slot]
                    match[d] = <int32_t>k
                if q >= 0 and not again:
                    topic_tie_keys(&scores[dst[g]], pst, pln, p, m, &tie_key[dst[g]], <KeyedRow*>tab,
                                   <KeyedRow*>tab + m)
        free(own)
