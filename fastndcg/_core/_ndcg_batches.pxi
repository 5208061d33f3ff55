# NDCG kernels: the batch drivers that run the queries in parallel. Included by _ndcg.pyx.

# ----------------------------------------------------------------------------- batches


# Each query asks for the scores and labels of the query PREFETCH_AHEAD places
# later, so that their cache misses overlap this query's work. NDCG@10 on 12M
# MSLR-like documents, 1 thread, CPU time: none 43.6 ms, 1 ahead 36.0, 2 ahead
# 35.5, 4 ahead 37.1 (docs/performance.md).
DEF PREFETCH_AHEAD = 2


cdef struct Scratch:
    double* gbuf
    RankedDoc* docs
    int64_t* counts
    bint ok


cdef Scratch _scratch_alloc(Py_ssize_t max_n, Py_ssize_t count_size) noexcept nogil:
    # Returned by value: assigned inside a parallel block, it is thread-private.
    cdef Py_ssize_t i
    cdef Scratch s
    s.gbuf = <double*>malloc((max_n + 1) * sizeof(double))
    s.docs = <RankedDoc*>malloc((max_n + 1) * sizeof(RankedDoc))
    s.counts = NULL
    s.ok = True
    if count_size > 0:
        # two counter banks, then 8 counts of the one-pass label count (_screen_count_i32)
        s.counts = <int64_t*>malloc((2 * count_size + 8) * sizeof(int64_t))
        if s.counts != NULL:
            for i in range(2 * count_size):
                s.counts[i] = 0
    s.ok = not (s.gbuf == NULL or s.docs == NULL
                or (count_size > 0 and s.counts == NULL))
    return s


cdef void _scratch_free(Scratch* s) noexcept nogil:
    free(s.gbuf)
    free(s.docs)
    free(s.counts)


cdef inline bint _row_finite(const double* row, Py_ssize_t n, bint nan_ok) noexcept nogil:
    # One query's results: an infinity (a NaN unless nan_ok, the empty="skip"
    # value) means a sum overflowed; reported by the caller with the query.
    cdef Py_ssize_t j
    for j in range(n):
        if fabs(row[j]) > DBL_MAX or (not nan_ok and row[j] != row[j]):
            return False
    return True


cdef inline void _prefetch_rows(const void* p, Py_ssize_t nbytes) noexcept nogil:
    cdef Py_ssize_t r
    for r in range(0, nbytes, 64):
        __builtin_prefetch((<const char*>p) + r, 0, 3)


cdef inline Py_ssize_t _chunk_queries(Py_ssize_t n_queries, int n_threads) noexcept nogil:
    # Queries per chunk of the dynamic schedule: 16 chunks per thread, within
    # 32..512. Each chunk a thread takes starts new memory streams; with
    # chunks of 32 MSLR-like queries (~4,000 documents) two threads scaled
    # 1.91x on 12M documents, with 512 1.98x, the machine's own 2.00x
    # (docs/performance.md). 16 per thread bound the wait at the end.
    cdef Py_ssize_t chunk = n_queries // (16 * (n_threads if n_threads > 1 else 1))
    return 32 if chunk < 32 else (512 if chunk > 512 else chunk)


cdef int _ideal_queries(const label_t* lab, const int64_t* off, Py_ssize_t n_queries, Py_ssize_t max_n,
                        const ConventionPlan* c, bint check_labels, double* idcg, int8_t* flags,
                        int* any_bad, int n_threads) noexcept nogil:
    """IDCG per query (rows of idcg, n_cut wide); returns 1 on allocation failure."""
    cdef Py_ssize_t q, n, where = 0, top = -1
    cdef Py_ssize_t chunk = _chunk_queries(n_queries, n_threads)
    cdef Scratch s
    cdef int failed = 0
    cdef int* failed_flag = &failed      # written through pointers: shared, not thread-private
    cdef int* bad_flag = any_bad
    with parallel(num_threads=n_threads, use_threads_if=n_threads > 1):
        s = _scratch_alloc(max_n, c.count_size)
        if not s.ok:
            failed_flag[0] = 1
        else:
            for q in prange(n_queries, schedule="dynamic", chunksize=chunk):
                n = off[q + 1] - off[q]
                where = 0
                top = -1
                if check_labels and _label_problem(lab + off[q], n, c, &where, &top) != PROBLEM_NONE:
                    flags[q] = flags[q] | FLAG_LABELS
                    bad_flag[0] = 1
                else:
                    _ideal_one_query(lab + off[q], n, c, s.counts, top, idcg + q * c.n_cut, s.gbuf, s.docs)
                    if not _row_finite(idcg + q * c.n_cut, c.n_cut, False):
                        flags[q] = flags[q] | FLAG_IDEAL_OVERFLOW
                        bad_flag[0] = 1
        _scratch_free(&s)
    return failed


cdef struct Batch:
    # One scoring call over every query: all but the (typed) scores and labels.
    const int64_t* off
    const int64_t* keys         # tie key per document, or NULL
    Py_ssize_t n_queries
    Py_ssize_t max_n
    const ConventionPlan* c
    bint fuse_ideal
    bint check_labels
    bint check_scores
    double* idcg                # NULL: no NDCG
    double* dcg_out
    double* ndcg_out            # NULL: DCG only
    int8_t* flags
    int* any_bad
    int n_threads


cdef int _score_by_label(const floating* sc, const void* lab, int label_kind,
                         const Batch* b) noexcept nogil:
    # The dtype dispatch, written once: the labels' kind here, the scores' by
    # the fused type (the caller casts them to float or double).
    if label_kind == KIND_INT32:
        return _score_queries(sc, <const int32_t*>lab, b)
    if label_kind == KIND_INT64:
        return _score_queries(sc, <const int64_t*>lab, b)
    if label_kind == KIND_FLOAT32:
        return _score_queries(sc, <const float*>lab, b)
    return _score_queries(sc, <const double*>lab, b)


cdef int _score_queries(const floating* sc, const label_t* lab, const Batch* b) noexcept nogil:
    """DCG and NDCG per query (NDCG when idcg != NULL); with ``fuse_ideal``
    also the IDCG (exactly as _ideal_queries), computed just before the query
    is ranked, while its labels are in cache. Returns 1 on allocation failure."""
    cdef const int64_t* off = b.off
    cdef const int64_t* keys = b.keys
    cdef Py_ssize_t n_queries = b.n_queries, max_n = b.max_n
    cdef const ConventionPlan* c = b.c
    cdef bint fuse_ideal = b.fuse_ideal, check_labels = b.check_labels, check_scores = b.check_scores
    cdef double* idcg = b.idcg
    cdef double* dcg_out = b.dcg_out
    cdef double* ndcg_out = b.ndcg_out
    cdef int8_t* flags = b.flags
    cdef int* any_bad = b.any_bad
    cdef int n_threads = b.n_threads
    cdef Py_ssize_t q, n, n_cut = c.n_cut, where = 0, top = -1
    cdef Py_ssize_t chunk = _chunk_queries(n_queries, n_threads)
    cdef int8_t bad
    cdef int code
    cdef Scratch s
    cdef int failed = 0
    cdef int* failed_flag = &failed
    cdef int* bad_flag = any_bad
    cdef bint counted, late_screen
    cdef bint one_pass = _fused_labels_ok(c, fuse_ideal, check_labels)
    with parallel(num_threads=n_threads, use_threads_if=n_threads > 1):
        s = _scratch_alloc(max_n, c.count_size if fuse_ideal else 0)
        if not s.ok:
            failed_flag[0] = 1
        else:
            for q in prange(n_queries, schedule="dynamic", chunksize=chunk):
                n = off[q + 1] - off[q]
                if q + PREFETCH_AHEAD < n_queries:
                    _prefetch_rows(sc + off[q + PREFETCH_AHEAD],
                                   (off[q + PREFETCH_AHEAD + 1] - off[q + PREFETCH_AHEAD]) * sizeof(floating))
                    _prefetch_rows(lab + off[q + PREFETCH_AHEAD],
                                   (off[q + PREFETCH_AHEAD + 1] - off[q + PREFETCH_AHEAD]) * sizeof(label_t))
                where = 0
                bad = 0
                # On the AVX2 top-k path the scores are screened by the selection's
                # first pass (late_screen); else here, before anything else.
                late_screen = False
                if floating is double:
                    if check_scores and not c.overflow_inf and keys == NULL:
                        late_screen = _fast_top_applies(True, keys, c, n, _top_size(n, c))
                if check_scores and not late_screen:
                    code = _score_problem(sc + off[q], n, c.score_limit, c.overflow_inf, &where)
                    if code == SCORE_FLOAT32_TO_INF:
                        flags[q] = flags[q] | FLAG_SCORES_TO_INF     # ranked as +-inf; reported afterwards
                    elif code != PROBLEM_NONE:
                        bad = FLAG_SCORES
                top = -1
                counted = False
                if label_t is int32_t:
                    if one_pass and n >= 8 and _screen_count_i32(lab + off[q], n, c, s.counts + 2 * c.count_size, &top) == 0:
                        counted = top < 8 and top < c.count_size
                    elif check_labels and _label_problem(lab + off[q], n, c, &where, &top) != PROBLEM_NONE:
                        bad = bad | FLAG_LABELS
                elif check_labels and _label_problem(lab + off[q], n, c, &where, &top) != PROBLEM_NONE:
                    bad = bad | FLAG_LABELS
                if bad != 0 and late_screen:
                    if _score_problem(sc + off[q], n, c.score_limit, c.overflow_inf, &where) != PROBLEM_NONE:
                        bad = bad | FLAG_SCORES
                if bad == 0:
                    if counted:
                        _ideal_from_counts8(s.counts + 2 * c.count_size, n, top, c, idcg + q * n_cut, s.gbuf)
                    elif fuse_ideal:
                        _ideal_one_query(lab + off[q], n, c, s.counts, top, idcg + q * n_cut, s.gbuf, s.docs)
                    if _dcg_one_query(sc + off[q], lab + off[q], keys + off[q] if keys != NULL else NULL,
                                      n, c, dcg_out + q * n_cut, s.docs, s.gbuf, late_screen):
                        # the selection's screen flagged a score: the exact rule names it
                        if _score_problem(sc + off[q], n, c.score_limit, c.overflow_inf, &where) != PROBLEM_NONE:
                            bad = FLAG_SCORES
                        else:
                            _dcg_one_query(sc + off[q], lab + off[q], NULL, n, c, dcg_out + q * n_cut, s.docs,
                                           s.gbuf, False)
                if bad != 0:
                    flags[q] = flags[q] | bad
                    bad_flag[0] = 1
                else:
                    bad = _finish_query(n, c, idcg + q * n_cut if idcg != NULL else NULL, dcg_out + q * n_cut,
                                        ndcg_out + q * n_cut if ndcg_out != NULL else NULL, fuse_ideal)
                    if bad != 0:
                        flags[q] = flags[q] | bad
                        bad_flag[0] = 1
        _scratch_free(&s)
    return failed


cdef inline int8_t _finish_query(Py_ssize_t n, const ConventionPlan* c, const double* idcg_row, const double* dcg_row,
                                 double* ndcg_row, bint fuse_ideal) noexcept nogil:
    # A query's NDCG from its DCG and ideal (ndcg_row NULL: DCG only); the
    # overflow flags of its rows (0: none).
    cdef Py_ssize_t j
    cdef double ideal
    cdef int8_t bad = 0
    if ndcg_row != NULL:
        for j in range(c.n_cut):
            ideal = idcg_row[j]
            if plan_short(n, j, c):
                ndcg_row[j] = 0.0
            elif ideal > 0.0:
                ndcg_row[j] = dcg_row[j] / ideal
            else:
                ndcg_row[j] = c.empty_value
    if fuse_ideal and not _row_finite(idcg_row, c.n_cut, False):
        bad = FLAG_IDEAL_OVERFLOW
    if not _row_finite(dcg_row, c.n_cut, False):
        bad = bad | FLAG_DCG_OVERFLOW
    if ndcg_row != NULL and not _row_finite(ndcg_row, c.n_cut, True):
        bad = bad | FLAG_NDCG_OVERFLOW
    return bad
