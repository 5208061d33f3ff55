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


cdef inline const unsigned char* field_end(const unsigned char* s, const unsigned char* e) noexcept nogil:
    # token_end that also stops at "\n" (the fast scanner below does not know the line's end
    # beforehand): eight bytes at a time, the first byte below 0x21 found by the lowest flag
    # (exact: a borrow only flags bytes above a true one); a flagged byte that is neither
    # whitespace nor "\n" (a control character, part of the token) goes on byte by byte.
    cdef uint64_t w, m
    cdef unsigned char c
    while s + 8 <= e:
        memcpy(&w, s, 8)
        m = (w - <uint64_t>0x2121212121212121) & ~w & <uint64_t>0x8080808080808080
        if m == 0:
            s += 8
            continue
        if LITTLE_ENDIAN_WORDS:
            s += first_flag(m)
            c = s[0]
            if c == 10 or is_space(c):
                return s
            s += 1
        break
    while s < e and s[0] != 10 and not is_space(s[0]):
        s += 1
    return s


cdef inline const unsigned char* skip_blank(const unsigned char* s, const unsigned char* e) noexcept nogil:
    # skip_space: stops at "\n" too (it is no whitespace inside a line); one test for the one space
    while s < e and is_space(s[0]):
        s += 1
    return s


cdef inline bint same_bytes(const unsigned char* a, const unsigned char* b, int64_t n) noexcept nogil:
    # a topic is a few bytes: compared inline (a memcmp call per line cost more than the compare)
    cdef int64_t i
    if n > 16:
        return memcmp(a, b, n) == 0
    for i in range(n):
        if a[i] != b[i]:
            return False
    return True


cdef inline void trec_row(TrecState* st, int64_t r, bint is_run, const unsigned char* base,
                          const unsigned char** f, const unsigned char** fe,
                          int64_t* lines, uint8_t* pool, int64_t* dstart,
                          int64_t* seg_row, uint8_t* tpool, int64_t* tstart) noexcept nogil:
    """A parsed row's line, topic segment and docno (both scanners)."""
    cdef int64_t tl = fe[0] - f[0], prev_len = 0
    if is_run:
        st.tag_start = f[5] - base
        st.tag_len = fe[5] - f[5]
    lines[r] = st.line
    # topic: a new segment whenever it differs from the previous row's
    if st.segs > 0:
        prev_len = st.tpool_used - tstart[st.segs - 1]
    if st.segs == 0 or prev_len != tl or not same_bytes(tpool + tstart[st.segs - 1], f[0], tl):
        seg_row[st.segs] = r
        tstart[st.segs] = st.tpool_used
        st.tpool_used = copy_to_pool(tpool, st.tpool_used, f[0], fe[0])
        st.segs += 1
    dstart[r] = st.pool_used
    st.pool_used = copy_to_pool(pool, st.pool_used, f[2], fe[2])


cdef void _parse_trec(const unsigned char* base, const unsigned char* end, TrecState* st, bint is_run,
                      double* score, int64_t* rel, int64_t* lines,
                      uint8_t* pool, int64_t* dstart,
                      int64_t* seg_row, uint8_t* tpool, int64_t* tstart) noexcept nogil:
    # A block without a NUL byte (one memchr over it: every real file) takes the fast scanner,
    # which finds each field and the line's end in one walk; else the line-by-line scanner that
    # checks each line for a NUL first. Both give the same rows and the same first error.
    if memchr(base, 0, end - base) == NULL:
        _parse_trec_fast(base, end, st, is_run, score, rel, lines, pool, dstart, seg_row, tpool, tstart)
    else:
        _parse_trec_lines(base, end, st, is_run, score, rel, lines, pool, dstart, seg_row, tpool, tstart)


# over 100 lines: one loop over the block's lines, whose two ways of finding a line's fields (bit masks, the walk) share the row and its errors
cdef void _parse_trec_fast(const unsigned char* base, const unsigned char* end, TrecState* st, bint is_run,
                           double* score, int64_t* rel, int64_t* lines,
                           uint8_t* pool, int64_t* dstart,
                           int64_t* seg_row, uint8_t* tpool, int64_t* tstart) noexcept nogil:
    """_parse_trec_lines for a block without NUL bytes. A line of fewer than 64 bytes without
    control characters (the usual line) is split from three bit masks of its 64 bytes
    (:c:func:`byte_masks64`: blanks, newlines; a field starts where a run of non-blank bytes
    starts); any other line is walked field by field up to its newline. Both find the
    fields of _parse_trec_lines (maximal runs of bytes other than blanks), and its errors."""
    cdef const unsigned char* p = base
    cdef const unsigned char* eol
    cdef const unsigned char* f[6]
    cdef const unsigned char* fe[6]
    cdef const unsigned char* s
    cdef int nf, need = 6 if is_run else 4, at
    cdef int64_t r = st.rows
    cdef double v
    cdef int64_t iv
    cdef unsigned long long blank, nl, low, inside, tok, starts, ends
    while p < end:
        st.line += 1
        nl = 0
        if BYTE_MASKS and end - p >= 64:
            byte_masks64(p, &blank, &nl, &low)
            if nl != 0:
                at = lowest_bit(nl)                             # the line's newline
                inside = (<unsigned long long>1 << at) - 1
                if (low & ~blank & ~nl & inside) != 0:          # a control character: walked below
                    nl = 0
        if nl != 0:
            tok = ~blank & inside
            if tok == 0:                                        # blank line
                p += at + 1
                continue
            starts = tok & ~(tok << 1)
            ends = tok & ~(tok >> 1)                            # each field's last byte
            if p[lowest_bit(starts)] == 35:                     # "#" comment line
                p += at + 1
                continue
            nf = 0
            while nf < need and starts != 0:
                f[nf] = p + lowest_bit(starts)
                fe[nf] = p + lowest_bit(ends) + 1
                starts &= starts - 1
                ends &= ends - 1
                nf += 1
            if nf < need:
                st.status = MISSING_FIELDS
                st.err_line = st.line
                return
            if not is_run and starts != 0:
                st.status = TOO_MANY_FIELDS
                st.err_line = st.line
                return
            eol = p + at
        else:
            s = skip_blank(p, end)
            if s == end or s[0] == 10:              # blank line
                p = s + 1
                continue
            if s[0] == 35:                          # "#" comment line
                eol = <const unsigned char*>memchr(s, 10, end - s)
                p = (eol if eol != NULL else end) + 1
                continue
            nf = 0
            while True:
                f[nf] = s
                fe[nf] = field_end(s, end)
                s = skip_blank(fe[nf], end)
                nf += 1
                if nf == need or s == end or s[0] == 10:
                    break
            if nf < need:
                st.status = MISSING_FIELDS
                st.err_line = st.line
                return
            if s == end or s[0] == 10:
                eol = s
            elif not is_run:
                st.status = TOO_MANY_FIELDS
                st.err_line = st.line
                return
            else:                                   # a run line's further fields
                eol = <const unsigned char*>memchr(s, 10, end - s)
                if eol == NULL:
                    eol = end
        if is_run:
            if not parse_double(f[4], fe[4], &v):
                st.status = BAD_SCORE
                st.err_line = st.line
                return
            score[r] = v
        else:
            if not parse_int(f[3], fe[3], &iv):
                st.status = BAD_REL
                st.err_line = st.line
                return
            rel[r] = iv
        trec_row(st, r, is_run, base, f, fe, lines, pool, dstart, seg_row, tpool, tstart)
        r += 1
        st.rows = r
        p = eol + 1


cdef void _parse_trec_lines(const unsigned char* base, const unsigned char* end, TrecState* st, bint is_run,
                            double* score, int64_t* rel, int64_t* lines,
                            uint8_t* pool, int64_t* dstart,
                            int64_t* seg_row, uint8_t* tpool, int64_t* tstart) noexcept nogil:
    cdef const unsigned char* p = base
    cdef const unsigned char* eol
    cdef const unsigned char* f[6]
    cdef const unsigned char* fe[6]
    cdef const unsigned char* s
    cdef int nf, need = 6 if is_run else 4
    cdef int64_t r = st.rows
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
        else:
            if not parse_int(f[3], fe[3], &iv):
                st.status = BAD_REL
                st.err_line = st.line
                return
            rel[r] = iv
        trec_row(st, r, is_run, base, f, fe, lines, pool, dstart, seg_row, tpool, tstart)
        r += 1
        st.rows = r
        p = eol + 1


cdef class TrecOutputs:
    """Where :func:`parse_trec` writes a block's rows: one object per call
    (the arrays travel together; sized by the caller, see :func:`parse_trec`)."""

    cdef double[::1] score        # OUT (rows), run only (length 0 for qrels)
    cdef int64_t[::1] rel         # OUT (rows), qrels only (length 0 for a run)
    cdef int64_t[::1] lines       # OUT (rows)
    cdef uint8_t[::1] pool        # OUT docno bytes
    cdef int64_t[::1] dstart      # OUT (rows)
    cdef int64_t[::1] seg_row     # OUT (segments): first row of each topic run
    cdef uint8_t[::1] tpool       # OUT topic bytes, one per segment
    cdef int64_t[::1] tstart      # OUT (segments)

    def __init__(self, double[::1] score, int64_t[::1] rel, int64_t[::1] lines, uint8_t[::1] pool,
                 int64_t[::1] dstart, int64_t[::1] seg_row, uint8_t[::1] tpool, int64_t[::1] tstart):
        self.score, self.rel, self.lines, self.pool = score, rel, lines, pool
        self.dstart, self.seg_row, self.tpool, self.tstart = dstart, seg_row, tpool, tstart


def parse_trec(const unsigned char[::1] buf, int64_t line, bint is_run, TrecOutputs out not None,
               int64_t pool_used):
    """Parse whole TREC qrels (``topic iter docno rel``) or run (``topic Q0
    docno rank score tag ...``) lines into ``out``. Rows are numbered from 0
    within the call; segments (maximal runs of one topic) restart at each call.
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
                    &out.score[0] if out.score.shape[0] else NULL,
                    &out.rel[0] if out.rel.shape[0] else NULL,
                    &out.lines[0], &out.pool[0], &out.dstart[0], &out.seg_row[0], &out.tpool[0], &out.tstart[0])
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
