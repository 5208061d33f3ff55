# Placing joined runs: each topic's rows copied to their place in the qrels' topic order with
# their gain levels (place_topics), or cut to each topic's best rows while a piece is joined
# (cut_topics), ranked by the one comparator of the kernels. Included by _parse.pyx.

ctypedef fused level_t:      # a gain level: int32 unless a judgment needs 64 bits
    int32_t
    int64_t


cdef class TopicBlocks:
    """Where :func:`place_topics` copies each topic's block of rows: from
    ``src_start`` to ``dst_start``, ``length`` rows (one entry per topic).

    ``top`` > 0: only each topic's ``top`` best rows are copied (a longer topic's
    room at ``dst_start`` holds ``top``), still in file order, ranked by the one
    comparator of the kernels (``select_top``): the score (rounded to float32 with
    ``round_f32``) descending, then the tie key (``key_order`` 1: ascending, -1:
    descending, 0: not used), then the position. The measures that read only the
    top ``top`` of a ranking by that order give the same value on them."""

    cdef const int64_t[::1] src_start
    cdef const int64_t[::1] dst_start
    cdef const int64_t[::1] length
    cdef int64_t top
    cdef int key_order
    cdef bint round_f32

    def __init__(self, const int64_t[::1] src_start, const int64_t[::1] dst_start, const int64_t[::1] length,
                 int64_t top=0, int key_order=0, bint round_f32=False):
        self.src_start, self.dst_start, self.length = src_start, dst_start, length
        self.top, self.key_order, self.round_f32 = top, key_order, round_f32


cdef inline void _place_row(int64_t s, int64_t d, const double* scores, const int32_t* match,
                            const int32_t* tie_key, const int64_t* relevance, double* out_scores,
                            int64_t* out_tie_key, level_t* out_labels, int8_t* out_status) noexcept nogil:
    cdef int64_t r
    out_scores[d] = scores[s]
    out_tie_key[d] = tie_key[s]
    if match[s] < 0:
        out_labels[d] = 0
        out_status[d] = -1
    else:
        r = relevance[match[s]]
        out_labels[d] = <level_t>(r if r >= 0 else 0)
        out_status[d] = 0 if r >= 0 else -2


cdef int64_t _widest_cut(const int64_t[::1] length, int64_t top) noexcept nogil:
    """The longest topic that ``top`` cuts (0: none)."""
    cdef Py_ssize_t t
    cdef int64_t widest = 0
    if top > 0:
        for t in range(length.shape[0]):
            if length[t] > top and length[t] > widest:
                widest = length[t]
    return widest


cdef inline size_t _cut_room(int64_t widest) noexcept nogil:
    # a thread's scratch for one cut topic: its rows ranked, their tie keys, a mark each
    return <size_t>widest * (sizeof(RankedDoc) + sizeof(int64_t) + 1)


cdef const uint8_t* _top_marks(const double* scores, const int32_t* tie_key, int64_t n, int64_t top,
                               int key_order, bint round_f32, char* room, int64_t widest) noexcept nogil:
    """Marks (1) on the ``top`` best of a topic's n > top rows, ranked by the one comparator
    (``select_top``; the tie key as ``key_order`` says); ``room``: :func:`_cut_room` bytes."""
    cdef RankedDoc* docs = <RankedDoc*>room
    cdef int64_t* keys = <int64_t*>(docs + widest)
    cdef uint8_t* kept = <uint8_t*>(keys + widest)
    cdef int64_t i
    for i in range(n):
        keys[i] = tie_key[i]
        kept[i] = 0
    select_top(scores, keys if key_order != 0 else NULL, key_order < 0, round_f32, n, top, docs)
    for i in range(top):
        kept[docs[i].idx] = 1
    return kept


def place_topics(const double[::1] scores, const int32_t[::1] match, const int32_t[::1] tie_key,
                 const int64_t[::1] relevance,     # IN (qrels rows)
                 TopicBlocks blocks not None,      # IN (topics): a block of rows per topic
                 double[::1] out_scores, int64_t[::1] out_tie_key,
                 level_t[::1] out_labels,          # OUT: the judgment if >= 0, else 0
                 int8_t[::1] out_status,           # OUT: 0 judged >= 0, -1 not judged, -2 judged < 0
                 int n_threads):
    """Copy each topic's block of rows to its place (topics in qrels order)
    with its gain levels and trec_eval status, in one pass (``out_labels``
    int32 only when every judgment fits in it); with ``blocks.top``, only each
    topic's best rows (:class:`TopicBlocks`)."""
    cdef const int64_t[::1] src_start = blocks.src_start, dst_start = blocks.dst_start, length = blocks.length
    cdef Py_ssize_t t, nt = length.shape[0]
    cdef int64_t i, s, d, n, top = blocks.top
    cdef int64_t widest = _widest_cut(length, top)
    cdef int slots = n_threads if n_threads > 1 else 1
    cdef size_t room = _cut_room(widest)
    cdef char* scratch = NULL
    cdef const uint8_t* kept
    cdef int key_order = blocks.key_order
    cdef bint round_f32 = blocks.round_f32
    cdef const double* sc
    cdef const int32_t* mt
    cdef const int32_t* tk
    cdef const int64_t* rel
    cdef double* o_sc
    cdef int64_t* o_tk
    cdef level_t* o_lab
    cdef int8_t* o_st
    if nt == 0 or scores.shape[0] == 0 or out_scores.shape[0] == 0:
        return
    sc, mt, tk, rel = &scores[0], &match[0], &tie_key[0], &relevance[0] if relevance.shape[0] else NULL
    o_sc, o_tk, o_lab, o_st = &out_scores[0], &out_tie_key[0], &out_labels[0], &out_status[0]
    if widest > 0:
        scratch = <char*>malloc(slots * room)
        if scratch == NULL:
            raise MemoryError()
    try:
        with nogil:
            for t in prange(nt, schedule="dynamic", num_threads=slots, use_threads_if=slots > 1):
                s = src_start[t]
                d = dst_start[t]
                n = length[t]
                if top > 0 and n > top:         # the marked rows, in file order
                    kept = _top_marks(sc + s, tk + s, n, top, key_order, round_f32, scratch + threadid() * room,
                                      widest)
                    for i in range(n):
                        if kept[i]:
                            _place_row(s + i, d, sc, mt, tk, rel, o_sc, o_tk, o_lab, o_st)
                            d = d + 1
                else:
                    for i in range(n):
                        _place_row(s + i, d + i, sc, mt, tk, rel, o_sc, o_tk, o_lab, o_st)
    finally:
        free(scratch)


def cut_topics(const double[::1] scores, const int32_t[::1] match, const int32_t[::1] tie_key,
               TopicBlocks blocks not None,      # IN (topics): each topic's rows, and the cut (top > 0)
               double[::1] out_scores, int32_t[::1] out_match, int32_t[::1] out_tie_key,
               int n_threads):
    """Copy each topic's ``blocks.top`` best rows (all of a shorter topic), in file order,
    from ``src_start`` to ``dst_start`` (:class:`TopicBlocks`): a joined piece that keeps
    only what the measures read."""
    cdef const int64_t[::1] src_start = blocks.src_start, dst_start = blocks.dst_start, length = blocks.length
    cdef Py_ssize_t t, nt = length.shape[0]
    cdef int64_t i, s, d, n, top = blocks.top
    cdef int64_t widest = _widest_cut(length, top)
    cdef int slots = n_threads if n_threads > 1 else 1
    cdef size_t room = _cut_room(widest)
    cdef char* scratch = NULL
    cdef const uint8_t* kept
    cdef int key_order = blocks.key_order
    cdef bint round_f32 = blocks.round_f32
    cdef const double* sc
    cdef const int32_t* mt
    cdef const int32_t* tk
    cdef double* o_sc
    cdef int32_t* o_mt
    cdef int32_t* o_tk
    if top < 1:
        raise ValueError(f"blocks.top must be >= 1; got {top}")
    if nt == 0 or scores.shape[0] == 0 or out_scores.shape[0] == 0:
        return
    sc, mt, tk = &scores[0], &match[0], &tie_key[0]
    o_sc, o_mt, o_tk = &out_scores[0], &out_match[0], &out_tie_key[0]
    if widest > 0:
        scratch = <char*>malloc(slots * room)
        if scratch == NULL:
            raise MemoryError()
    try:
        with nogil:
            for t in prange(nt, schedule="dynamic", num_threads=slots, use_threads_if=slots > 1):
                s = src_start[t]
                d = dst_start[t]
                n = length[t]
                if n > top:
                    kept = _top_marks(sc + s, tk + s, n, top, key_order, round_f32, scratch + threadid() * room,
                                      widest)
                    for i in range(n):
                        if kept[i]:
                            o_sc[d] = sc[s + i]
                            o_mt[d] = mt[s + i]
                            o_tk[d] = tk[s + i]
                            d = d + 1
                else:
                    memcpy(o_sc + d, sc + s, n * sizeof(double))
                    memcpy(o_mt + d, mt + s, n * sizeof(int32_t))
                    memcpy(o_tk + d, tk + s, n * sizeof(int32_t))
    finally:
        free(scratch)
