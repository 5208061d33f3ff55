# File scanners: SVMlight / LETOR lines. Included by _parse.pyx.

# ------------------------------------------------------------------ SVMlight / LETOR

cdef struct SvmState:
    int64_t rows
    int64_t line
    int64_t pool_used
    int64_t nnz
    int qid_mode          # -1 unknown yet, 0 no line has qid, 1 every line has qid
    int status
    int64_t err_line


cdef const unsigned char* find_docid(const unsigned char* c, const unsigned char* e,
                                     const unsigned char** tok_end) noexcept nogil:
    """Doc id in a comment [c, e): the value after "docid" (with optional
    "=" or ":"), else the comment's first token. NULL if none."""
    cdef const unsigned char* q = c
    cdef const unsigned char* t
    while q + 5 <= e:
        if memcmp(q, b"docid", 5) == 0:
            t = skip_space(q + 5, e)
            if t < e and (t[0] == 61 or t[0] == 58):  # '=' ':'
                t = skip_space(t + 1, e)
            if t < e:
                tok_end[0] = token_end(t, e)
                return t
            return NULL
        q += 1
    t = skip_space(c, e)
    if t >= e:
        return NULL
    tok_end[0] = token_end(t, e)
    return t


cdef void _parse_svmlight(const unsigned char* p, const unsigned char* end, SvmState* st,
                          bint want_docid, bint want_features,
                          double* labels, int64_t* qids, int64_t* lines,
                          uint8_t* pool, int64_t* dstart,
                          double* fval, int64_t* fidx, int64_t* fptr) noexcept nogil:
    cdef const unsigned char* eol
    cdef const unsigned char* s
    cdef const unsigned char* t
    cdef const unsigned char* hash_pos
    cdef const unsigned char* d
    cdef const unsigned char* de
    cdef const unsigned char* colon
    cdef double v
    cdef int64_t q, idx
    cdef bint has_qid
    cdef int64_t r = st.rows
    while p < end:
        eol = <const unsigned char*>memchr(p, 10, end - p)
        if eol == NULL:
            eol = end
        st.line += 1
        s = skip_space(p, eol)
        if s == eol or s[0] == 35:  # blank or comment-only line: not a row
            p = eol + 1
            continue
        if has_nul(s, eol):
            st.status = NUL_BYTE
            st.err_line = st.line
            return
        # label: up to whitespace or "#"
        t = s
        while t < eol and not is_space(t[0]) and t[0] != 35:
            t += 1
        if not parse_double(s, t, &v):
            st.status = BAD_LABEL
            st.err_line = st.line
            return
        labels[r] = v
        lines[r] = st.line
        s = skip_space(t, eol)
        # qid (the token right after the label)
        has_qid = eol - s >= 4 and memcmp(s, b"qid:", 4) == 0
        if has_qid:
            t = s + 4
            while t < eol and not is_space(t[0]) and t[0] != 35:
                t += 1
            if not parse_int(s + 4, t, &q):
                st.status = BAD_QID
                st.err_line = st.line
                return
            qids[r] = q
            s = skip_space(t, eol)
        # The rest of the line is only scanned when features or doc ids are asked for.
        hash_pos = eol
        if want_features or want_docid:
            hash_pos = <const unsigned char*>memchr(s, 35, eol - s)
            if hash_pos == NULL:
                hash_pos = eol
        if st.qid_mode < 0:
            st.qid_mode = 1 if has_qid else 0
        elif st.qid_mode != has_qid:
            st.status = QID_MIXED
            st.err_line = st.line
            return
        if want_features:
            while s < hash_pos:
                t = token_end(s, hash_pos)
                colon = <const unsigned char*>memchr(s, 58, t - s)
                if colon == NULL or not parse_int(s, colon, &idx) or idx < 0 \
                        or not parse_double(colon + 1, t, &v):
                    st.status = BAD_FEATURE
                    st.err_line = st.line
                    return
                fidx[st.nnz] = idx
                fval[st.nnz] = v
                st.nnz += 1
                s = skip_space(t, hash_pos)
            fptr[r + 1] = st.nnz
        if want_docid:
            d = NULL
            if hash_pos < eol:
                d = find_docid(hash_pos + 1, eol, &de)
            if d == NULL:
                st.status = MISSING_DOCID
                st.err_line = st.line
                return
            dstart[r] = st.pool_used
            st.pool_used = copy_to_pool(pool, st.pool_used, d, de)
        r += 1
        st.rows = r
        p = eol + 1


cdef class SvmlightOutputs:
    """Where :func:`parse_svmlight` writes a block's rows: one object per call
    (the arrays travel together; each must hold one entry per line, pools one
    byte per byte of the block, features one per ':')."""

    cdef double[::1] labels       # OUT (rows)
    cdef int64_t[::1] qids        # OUT (rows)
    cdef int64_t[::1] lines       # OUT (rows): 1-based file line of each row
    cdef uint8_t[::1] pool        # OUT: doc id bytes
    cdef int64_t[::1] dstart      # OUT (rows): start of each doc id in pool
    cdef double[::1] fval         # OUT (nnz)
    cdef int64_t[::1] fidx        # OUT (nnz)
    cdef int64_t[::1] fptr        # OUT (rows + 1): fptr[0] is set by the caller

    def __init__(self, double[::1] labels, int64_t[::1] qids, int64_t[::1] lines, uint8_t[::1] pool,
                 int64_t[::1] dstart, double[::1] fval, int64_t[::1] fidx, int64_t[::1] fptr):
        self.labels, self.qids, self.lines, self.pool = labels, qids, lines, pool
        self.dstart, self.fval, self.fidx, self.fptr = dstart, fval, fidx, fptr


def parse_svmlight(const unsigned char[::1] buf, int64_t line, int qid_mode, bint want_docid,
                   bint want_features, SvmlightOutputs out not None, int64_t pool_used, int64_t nnz):
    """Parse whole SVMlight lines into ``out``. Returns (status, rows, line,
    qid_mode, pool_used, nnz, err_line)."""
    cdef SvmState st
    st.rows = 0
    st.line = line
    st.pool_used = pool_used
    st.nnz = nnz
    st.qid_mode = qid_mode
    st.status = OK
    st.err_line = 0
    cdef Py_ssize_t n = buf.shape[0]
    if n == 0:
        return OK, 0, line, qid_mode, pool_used, nnz, 0
    with nogil:
        _parse_svmlight(&buf[0], &buf[0] + n, &st, want_docid, want_features,
                        &out.labels[0], &out.qids[0], &out.lines[0],
                        &out.pool[0] if out.pool.shape[0] else NULL,
                        &out.dstart[0] if out.dstart.shape[0] else NULL,
                        &out.fval[0] if out.fval.shape[0] else NULL,
                        &out.fidx[0] if out.fidx.shape[0] else NULL,
                        &out.fptr[0] if out.fptr.shape[0] else NULL)
    return st.status, st.rows, st.line, st.qid_mode, st.pool_used, st.nnz, st.err_line
