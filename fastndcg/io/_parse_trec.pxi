# File scanners: TREC qrels and runs. Included by _parse.pyx.

# ------------------------------------------------------------------ TREC qrels and runs

cdef struct TrecState:
    int64_t rows
    int64_t line
    int64_t pool_used
    int64_t segs
    int64_t tpool_used
    int64_t tag_start
    int64_t tag_len
    int status
    int64_t err_line


cdef void _parse_trec(const unsigned char* base, const unsigned char* end, TrecState* st, bint is_run,
                      double* score, int64_t* rel, int64_t* lines,
                      uint8_t* pool, int64_t* dstart,
                      int64_t* seg_row, uint8_t* tpool, int64_t* tstart) noexcept nogil:
    cdef const unsigned char* p = base
    cdef const unsigned char* eol
    cdef const unsigned char* f[6]
    cdef const unsigned char* fe[6]
    cdef const unsigned char* s
    cdef int nf, need = 6 if is_run else 4
    cdef int64_t r = st.rows, tl, prev_len = 0
    cdef double v
    cdef int64_t iv
    while p < end:
        eol = <const unsigned char*>memchr(p, 10, end - p)
        if eol == NULL:
            eol = end
        st.line += 1
        s = skip_space(p, eol)
        if s == eol or s[0] == 35:  # blank line or "#" comment line
            p = eol + 1
            continue
        if has_nul(s, eol):
            st.status = NUL_BYTE
            st.err_line = st.line
            return
        nf = 0
        while nf < need and s < eol:
            f[nf] = s
            fe[nf] = token_end(s, eol)
            s = skip_space(fe[nf], eol)
            nf += 1
        if nf < need:
            st.status = MISSING_FIELDS
            st.err_line = st.line
            return
        if not is_run and s < eol:
            st.status = TOO_MANY_FIELDS
            st.err_line = st.line
            return
        if is_run:
            if not parse_double(f[4], fe[4], &v):
                st.status = BAD_SCORE
                st.err_line = st.line
                return
            score[r] = v
            st.tag_start = f[5] - base
            st.tag_len = fe[5] - f[5]
        else:
            if not parse_int(f[3], fe[3], &iv):
                st.status = BAD_REL
                st.err_line = st.line
                return
            rel[r] = iv
        lines[r] = st.line
        # topic: a new segment whenever it differs from the previous row's
        tl = fe[0] - f[0]
        if st.segs > 0:
            prev_len = st.tpool_used - tstart[st.segs - 1]
        if st.segs == 0 or prev_len != tl or memcmp(tpool + tstart[st.segs - 1], f[0], tl) != 0:
            seg_row[st.segs] = r
            tstart[st.segs] = st.tpool_used
            st.tpool_used = copy_to_pool(tpool, st.tpool_used, f[0], fe[0])
            st.segs += 1
        dstart[r] = st.pool_used
        st.pool_used = copy_to_pool(pool, st.pool_used, f[2], fe[2])
        r += 1
        st.rows = r
        p = eol + 1


def parse_trec(const unsigned char[::1] buf, int64_t line, bint is_run,
               double[::1] score,       # OUT (rows), run only
               int64_t[::1] rel,        # OUT (rows), qrels only
               int64_t[::1] lines,      # OUT (rows)
               uint8_t[::1] pool,       # OUT docno bytes
               int64_t[::1] dstart,     # OUT (rows)
               int64_t[::1] seg_row,    # OUT (segments): first row of each topic run
               uint8_t[::1] tpool,      # OUT topic bytes, one per segment
               int64_t[::1] tstart,     # OUT (segments)
               int64_t pool_used):
    """Parse whole TREC qrels (``topic iter docno rel``) or run (``topic Q0
    docno rank score tag ...``) lines. Rows are numbered from 0 within the
    call; segments (maximal runs of one topic) restart at each call.
    Returns (status, rows, line, pool_used, segments, tpool_used, tag_start,
    tag_len, err_line)."""
    cdef TrecState st
    st.rows = 0
    st.line = line
    st.pool_used = pool_used
    st.segs = 0
    st.tpool_used = 0
    st.tag_start = -1
    st.tag_len = 0
    st.status = OK
    st.err_line = 0
    cdef Py_ssize_t n = buf.shape[0]
    if n == 0:
        return OK, 0, line, pool_used, 0, 0, -1, 0, 0
    with nogil:
        _parse_trec(&buf[0], &buf[0] + n, &st, is_run,
                    &score[0] if score.shape[0] else NULL,
                    &rel[0] if rel.shape[0] else NULL,
                    &lines[0], &pool[0], &dstart[0], &seg_row[0], &tpool[0], &tstart[0])
    return (st.status, st.rows, st.line, st.pool_used, st.segs, st.tpool_used,
            st.tag_start, st.tag_len, st.err_line)


# ------------------------------------------------------------------ grouping and joining

cdef struct KeyedRow:
    uint64_t key      # 8 bytes of the docno after the topic's common prefix, big-endian, zero padded
    int64_t row


cdef inline uint64_t prefix_key(const uint8_t* s, int64_t n) noexcept nogil:
    # Docnos hold no NUL byte (the parser refuses them), so zero padding
    # sorts a shorter docno before its extensions, as strcmp does.
    cdef uint64_t k = 0
    cdef int64_t i
    for i in range(8):
        k = (k << 8) | (s[i] if i < n else 0)
    return k


cdef inline int keyed_cmp(const KeyedRow* x, const KeyedRow* y, const uint8_t* pool, const int64_t* start,
                          const int64_t* length, int64_t skip) noexcept nogil:
    """Bytewise order of two docnos that share their first ``skip`` bytes."""
    if x.key != y.key:
        return -1 if x.key < y.key else 1
    if length[x.row] <= skip + 8 or length[y.row] <= skip + 8:
        return (length[x.row] > length[y.row]) - (length[x.row] < length[y.row])
    return cmp_bytes(pool, start[x.row] + skip + 8, length[x.row] - skip - 8,
                     start[y.row] + skip + 8, length[y.row] - skip - 8)


cdef void keyed_sort(KeyedRow* a, KeyedRow* tmp, Py_ssize_t n, const uint8_t* pool, const int64_t* start,
                     const int64_t* length, int64_t skip) noexcept nogil:
    """Merge sort of docnos by (prefix key, rest of the bytes)."""
    cdef Py_ssize_t i, j, k, h
    cdef KeyedRow x
    if n <= 16:
        for i in range(1, n):
            x = a[i]
            j = i
            while j > 0 and keyed_cmp(&a[j - 1], &x, pool, start, length, skip) > 0:
                a[j] = a[j - 1]
                j -= 1
            a[j] = x
        return
    h = n // 2
    keyed_sort(a, tmp, h, pool, start, length, skip)
    keyed_sort(a + h, tmp + h, n - h, pool, start, length, skip)
    if keyed_cmp(&a[h - 1], &a[h], pool, start, length, skip) <= 0:
        return
    memcpy(tmp, a, n * sizeof(KeyedRow))
    i = 0
    j = h
    k = 0
    while i < h and j < n:
        if keyed_cmp(&tmp[j], &tmp[i], pool, start, length, skip) < 0:
            a[k] = tmp[j]
            j += 1
        else:
            a[k] = tmp[i]
            i += 1
        k += 1
    while i < h:
        a[k] = tmp[i]
        i += 1
        k += 1
    while j < n:
        a[k] = tmp[j]
        j += 1
        k += 1


cdef void sort_docnos(KeyedRow* a, KeyedRow* tmp, Py_ssize_t n, const uint8_t* pool, const int64_t* start,
                      const int64_t* length) noexcept nogil:
    """Sort the rows a[0:n] (``row`` set) by docno, bytewise. The docnos of
    a topic often share a long prefix ("clueweb09-en"): it is skipped, and
    the next 8 bytes compare as one integer."""
    cdef int64_t skip = 0, i, j, r0, r
    if n == 0:
        return
    r0 = a[0].row
    skip = length[r0]
    for i in range(1, n):
        r = a[i].row
        if length[r] >= skip and memcmp(pool + start[r], pool + start[r0], skip) == 0:
            continue          # the usual case: the whole prefix is shared
        j = 0
        while j < skip and j < length[r] and pool[start[r] + j] == pool[start[r0] + j]:
            j += 1
        skip = j
        if skip == 0:
            break
    for i in range(n):
        r = a[i].row
        a[i].key = prefix_key(pool + start[r] + skip, length[r] - skip)
    if n < 256:
        keyed_sort(a, tmp, n, pool, start, length, skip)
        return
    radix_sort_keys(a, tmp, n)
    # rows whose 8 key bytes are equal: ordered by the rest of their bytes
    i = 0
    while i < n:
        j = i + 1
        while j < n and a[j].key == a[i].key:
            j += 1
        if j - i > 1:
            keyed_sort(a + i, tmp + i, j - i, pool, start, length, skip)
        i = j


cdef void radix_sort_keys(KeyedRow* a, KeyedRow* tmp, Py_ssize_t n) noexcept nogil:
    """LSD radix sort of a[0:n] by key, one pass per key byte that varies
    (docnos of a topic often differ in a few bytes only)."""
    cdef uint64_t varies = 0, k0 = a[0].key
    cdef Py_ssize_t i, b
    cdef int64_t count[256]
    cdef int64_t total, c
    cdef KeyedRow* src = a
    cdef KeyedRow* dst = tmp
    cdef KeyedRow* swap
    cdef unsigned int shift, digit
    for i in range(n):
        varies |= a[i].key ^ k0
    for b in range(8):
        shift = 8 * b
        if ((varies >> shift) & 0xFF) == 0:
            continue
        for i in range(256):
            count[i] = 0
        for i in range(n):
            count[(src[i].key >> shift) & 0xFF] += 1
        total = 0
        for i in range(256):
            c = count[i]
            count[i] = total
            total += c
        for i in range(n):
            digit = (src[i].key >> shift) & 0xFF
            dst[count[digit]] = src[i]
            count[digit] += 1
        swap = src
        src = dst
        dst = swap
    if src != a:
        memcpy(a, src, n * sizeof(KeyedRow))

def group_rows(const int64_t[::1] seg_first,   # IN (segments): first row of each stretch of one topic
               const int64_t[::1] seg_code,    # IN (segments): the stretch's topic, 0 .. n_groups - 1
               int64_t[::1] order,             # OUT (rows): row ids grouped by topic, file order within
               int64_t[::1] goff):             # OUT (n_groups + 1): each topic's positions in order
    """Counting sort of the rows by topic: one pass over the segments (a
    topic's rows are contiguous stretches of the file), no comparisons."""
    cdef Py_ssize_t s, nseg = seg_first.shape[0], ng = goff.shape[0] - 1
    cdef int64_t n = order.shape[0], a, b, g, r, k
    cdef int64_t* fill
    for g in range(ng + 1):
        goff[g] = 0
    if n == 0:
        return
    fill = <int64_t*>malloc((ng + 1) * sizeof(int64_t))
    if fill == NULL:
        raise MemoryError()
    with nogil:
        for s in range(nseg):
            b = seg_first[s + 1] if s + 1 < nseg else n
            goff[seg_code[s] + 1] += b - seg_first[s]
        for g in range(ng):
            goff[g + 1] += goff[g]
        for g in range(ng):
            fill[g] = goff[g]
        for s in range(nseg):
            a = seg_first[s]
            b = seg_first[s + 1] if s + 1 < nseg else n
            k = fill[seg_code[s]]
            for r in range(a, b):
                order[k] = r
                k += 1
            fill[seg_code[s]] = k
    free(fill)


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
                         int64_t m, int64_t* key, KeyedRow* a, KeyedRow* tmp) noexcept nogil:
    """trec_eval's tie key of one topic's m rows: each row's rank by (score
    rounded to float32, docno bytewise), ascending. Among rows with equal
    scores (as doubles, or rounded to float32) it orders by docno, which is
    all a comparator "score descending, then key descending" reads; docnos
    are compared only within such groups. ``start``, ``length``: each row's
    docno in ``pool``; ``a``, ``tmp``: m scratch rows each."""
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
                key[s] = m - 1 - s
            else:
                for j in range(e - s):
                    a[j].row = s + j
                sort_docnos(a, tmp, e - s, pool, start, length)
                for j in range(e - s):
                    key[a[j].row] = m - e + j
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
            key[a[j].row] = j
        s = e


def tie_keys(const uint8_t[::1] pool,
             const int64_t[::1] start,     # IN (rows): docno of each row, rows grouped by topic
             const int64_t[::1] length,    # IN (rows)
             const double[::1] scores,     # IN (rows)
             const int64_t[::1] goff,      # IN (topics + 1)
             int64_t[::1] out,             # OUT (rows): the tie key (topic_tie_keys)
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


cdef class DocnoIndex:
    """The docnos of qrels, each topic's in a hash table (open addressing,
    linear probing; a slot holds the high half of the docno's hash and its row):
    a run's docno is found, or found absent, in about one probe, without
    sorting the run. Built once per qrels (:func:`fastndcg.io.align.docno_index`);
    read-only afterwards, so any number of threads may join runs with it."""

    cdef readonly object pool, start, length, offsets, table_start, table
    cdef const uint8_t* _pool
    cdef const int64_t* _start
    cdef const int64_t* _length
    cdef const int64_t* _toff
    cdef const uint64_t* _table

    def __init__(self, pool, start, length, offsets):
        """``pool``, ``start``, ``length``: the qrels' docnos; ``offsets``: each topic's rows."""
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
            for t in range(nt):
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

    def join(self, const uint8_t[::1] pool, const int64_t[::1] dstart, int64_t pool_end,
             const double[::1] values,     # IN (rows): the scores, file order
             const int64_t[::1] order,     # IN (rows): row ids grouped by topic (group_rows)
             const int64_t[::1] goff,      # IN (groups + 1)
             const int64_t[::1] qgroup,    # IN (groups): the qrels topic of each group, or -1
             const int64_t[::1] dst,       # IN (groups): first output row of a judged group
             double[::1] scores,           # OUT (rows of the judged groups, grouped): score
             int64_t[::1] match,           # OUT: qrels row, or -1
             int64_t[::1] tie_key,         # OUT: topic_tie_keys
             int64_t[::1] dup,             # OUT (2 x groups): the rows of a docno given twice, or -1
             int64_t[::1] scratch,         # (>= 7 x rows), reused across calls
             int n_threads):
        """Per topic (in parallel over topics): find a docno given twice (the
        first row, in file order, whose docno an earlier row of its topic has,
        and that row), look each docno up in the topic's judgments, and give
        the rows of judged topics their score, qrels row and tie key, in file
        order within a topic. Row ids are those of ``dstart`` (file order).
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
        cdef const uint8_t* p = &pool[0] if pool.shape[0] else NULL
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
        with nogil:
            for g in prange(ng, schedule="dynamic", num_threads=n_threads, use_threads_if=n_threads > 1):
                a = goff[g]
                m = goff[g + 1] - a
                pst = &scratch[a]
                pln = &scratch[n + a]
                hs = <uint64_t*>&scratch[2 * n + a]
                tab = <int32_t*>&scratch[3 * n + 4 * a]   # 4m entries: the table (int32), then the tie keys' rows
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
                    match[d] = k
                if q >= 0 and not again:
                    topic_tie_keys(&scores[dst[g]], pst, pln, p, m, &tie_key[dst[g]], <KeyedRow*>tab,
                                   <KeyedRow*>tab + m)


def place_topics(const double[::1] scores, const int64_t[::1] match, const int64_t[::1] tie_key,
                 const int64_t[::1] relevance,     # IN (qrels rows)
                 const int64_t[::1] src_start, const int64_t[::1] dst_start,
                 const int64_t[::1] length,        # IN (topics): a block of rows per topic
                 double[::1] out_scores, int64_t[::1] out_tie_key,
                 int64_t[::1] out_labels,          # OUT: the judgment if >= 0, else 0
                 int8_t[::1] out_status,           # OUT: 0 judged >= 0, -1 not judged, -2 judged < 0
                 int n_threads):
    """Copy each topic's block of rows to its place (topics in qrels order)
    with its gain levels and trec_eval status, in one pass."""
    cdef Py_ssize_t t, nt = length.shape[0]
    cdef int64_t i, s, d, r
    with nogil:
        for t in prange(nt, schedule="dynamic", num_threads=n_threads, use_threads_if=n_threads > 1):
            s = src_start[t]
            d = dst_start[t]
            for i in range(length[t]):
                out_scores[d + i] = scores[s + i]
                out_tie_key[d + i] = tie_key[s + i]
                if match[s + i] < 0:
                    out_labels[d + i] = 0
                    out_status[d + i] = -1
                else:
                    r = relevance[match[s + i]]
                    out_labels[d + i] = r if r >= 0 else 0
                    out_status[d + i] = 0 if r >= 0 else -2
