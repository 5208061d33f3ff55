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
