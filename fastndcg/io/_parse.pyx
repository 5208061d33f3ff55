# Compiled text parsers for the file readers (fastndcg.io: _trec, _svmlight, _numbers).
#
# Layers, as in the NDCG kernels:
#   * `cdef ... noexcept nogil` scanners that walk a buffer of whole lines
#     (the caller guarantees that the buffer ends with b"\n") and write into
#     preallocated outputs;
#   * `def` drivers that take memoryviews, release the GIL and return a status
#     tuple (never raise for bad input: Python turns the status into a
#     ValueError naming the file and the line); arrays that travel together
#     go as one parameter object built once per call (TrecOutputs,
#     SvmlightOutputs, RunRows, JoinedRows, TopicBlocks, GroupedStrings), so
#     that no driver takes more than 10 arguments;
#   * the Python readers (readers.py) that read the file block by block, size
#     the outputs, and assemble the arrays.
#
# Nothing here holds a whole file: each call sees one block of lines, so the
# memory needed is the output arrays plus a block (a few MiB), whatever the
# file size. Strings (doc ids, docnos, topics) are copied into byte pools
# (uint8 arrays plus int64 start offsets), never into Python objects per line.
#
# Numbers: floats go through libc strtod (correctly rounded), integers
# through a digit loop with an overflow check. A token must be consumed
# entirely ("1.5x" is an error, unlike atof), and floats must be finite.
from cython.parallel cimport prange, threadid
from libc.math cimport isfinite
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, strtod
from libc.string cimport memchr, memcmp, memcpy

# the one comparator of the NDCG kernels (a header: compiled into this module, no kernel imported)
from fastndcg._core._rank cimport RankedDoc, select_top

import numpy as np

cdef extern from *:
    """
    /* The byte of a word (read with memcpy) that holds the lowest set bit of a mask of flags
       (0x80 per flagged byte), on a little-endian machine; elsewhere the scanners go byte by
       byte after a flagged word (LITTLE_ENDIAN_WORDS is 0). */
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
    #define LITTLE_ENDIAN_WORDS 1
    static inline int first_flag(unsigned long long m) { return __builtin_ctzll(m) >> 3; }
    #else
    #define LITTLE_ENDIAN_WORDS 0
    static inline int first_flag(unsigned long long m) { (void)m; return 0; }
    #endif
    """
    bint LITTLE_ENDIAN_WORDS
    int first_flag(unsigned long long m) noexcept nogil

cdef extern from *:
    """
    /* Three masks of the 64 bytes at p, bit i for byte p[i]: blanks (space, \\t, \\v, \\f, \\r),
       newlines, and every byte <= 32 (the rest of them are control characters: part of a token).
       SSE2 (every x86-64); elsewhere BYTE_MASKS is 0 and the scanners go without them. */
    #if defined(__SSE2__) && defined(__GNUC__)
    #include <emmintrin.h>
    #define BYTE_MASKS 1
    static inline void byte_masks64(const unsigned char* p, unsigned long long* blank, unsigned long long* nl,
                                    unsigned long long* low) {
        const __m128i c32 = _mm_set1_epi8(32), c10 = _mm_set1_epi8(10), c9 = _mm_set1_epi8(9),
                      c4 = _mm_set1_epi8(4);
        unsigned long long b = 0, n = 0, l = 0;
        int i;
        for (i = 0; i < 4; i++) {
            __m128i x = _mm_loadu_si128((const __m128i*)(p + 16 * i));
            __m128i le = _mm_cmpeq_epi8(_mm_min_epu8(x, c32), x);              /* x <= 32 */
            __m128i isnl = _mm_cmpeq_epi8(x, c10);
            __m128i d = _mm_sub_epi8(x, c9);
            __m128i in9_13 = _mm_cmpeq_epi8(_mm_min_epu8(d, c4), d);           /* 9 <= x <= 13 */
            __m128i bl = _mm_or_si128(_mm_cmpeq_epi8(x, c32), _mm_andnot_si128(isnl, in9_13));
            b |= (unsigned long long)(unsigned)_mm_movemask_epi8(bl) << (16 * i);
            n |= (unsigned long long)(unsigned)_mm_movemask_epi8(isnl) << (16 * i);
            l |= (unsigned long long)(unsigned)_mm_movemask_epi8(le) << (16 * i);
        }
        *blank = b; *nl = n; *low = l;
    }
    static inline int lowest_bit(unsigned long long m) { return __builtin_ctzll(m); }
    /* Bytes equal to c among n: 16 at a time, counted in byte lanes for up to 255 rounds and
       summed with psadbw. */
    static inline long long count_eq(const unsigned char* p, long long n, unsigned char c) {
        const __m128i cc = _mm_set1_epi8((char)c), zero = _mm_setzero_si128();
        long long total = 0, i = 0;
        while (n - i >= 16) {
            __m128i acc = zero, sums;
            long long stop = i + 16 * 255;
            if (stop > n - 15) stop = n - 15;
            for (; i < stop; i += 16)
                acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(p + i)), cc));
            sums = _mm_sad_epu8(acc, zero);
            total += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
        }
        for (; i < n; i++) total += p[i] == c;
        return total;
    }
    #else
    static inline long long count_eq(const unsigned char* p, long long n, unsigned char c) {
        long long total = 0, i;
        for (i = 0; i < n; i++) total += p[i] == c;
        return total;
    }
    #define BYTE_MASKS 0
    static inline void byte_masks64(const unsigned char* p, unsigned long long* blank, unsigned long long* nl,
                                    unsigned long long* low) { (void)p; *blank = 0; *nl = 0; *low = 0; }
    static inline int lowest_bit(unsigned long long m) { int i = 0; while (!(m & 1)) { m >>= 1; i++; } return i; }
    #endif
    """
    bint BYTE_MASKS
    void byte_masks64(const unsigned char* p, unsigned long long* blank, unsigned long long* nl,
                      unsigned long long* low) noexcept nogil
    int lowest_bit(unsigned long long m) noexcept nogil
    long long count_eq(const unsigned char* p, long long n, unsigned char c) noexcept nogil


# Status codes shared with readers.py (which maps them to messages).
cdef enum:
    OK = 0
    BAD_LABEL = 1
    BAD_QID = 2
    QID_MIXED = 3
    BAD_FEATURE = 4
    MISSING_DOCID = 5
    MISSING_FIELDS = 6
    TOO_MANY_FIELDS = 7
    BAD_REL = 8
    BAD_SCORE = 9
    BAD_NUMBER = 10
    EMPTY_LINE = 11
    BAD_INTEGER = 12
    NUL_BYTE = 13

STATUS = {"OK": OK, "BAD_LABEL": BAD_LABEL, "BAD_QID": BAD_QID, "QID_MIXED": QID_MIXED,
          "BAD_FEATURE": BAD_FEATURE, "MISSING_DOCID": MISSING_DOCID,
          "MISSING_FIELDS": MISSING_FIELDS, "TOO_MANY_FIELDS": TOO_MANY_FIELDS, "BAD_REL": BAD_REL,
          "BAD_SCORE": BAD_SCORE, "BAD_NUMBER": BAD_NUMBER, "EMPTY_LINE": EMPTY_LINE,
          "BAD_INTEGER": BAD_INTEGER, "NUL_BYTE": NUL_BYTE}

cdef int64_t INT64_MAX_DIV10 = 922337203685477580


cdef inline bint is_space(unsigned char c) noexcept nogil:
    # Whitespace inside a line; "\n" ends the line and is handled separately.
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


cdef inline const unsigned char* skip_space(const unsigned char* s, const unsigned char* e) noexcept nogil:
    while s < e and is_space(s[0]):
        s += 1
    return s


cdef inline const unsigned char* token_end(const unsigned char* s, const unsigned char* e) noexcept nogil:
    # Eight bytes at a time while none of them can be whitespace: a byte below
    # 0x21 is flagged by the classic "has a byte less than n" test (exact for
    # the lowest flagged byte, and a chunk with no flag has none); a chunk
    # with a flag is scanned byte by byte, so the result does not depend on
    # the byte order.
    cdef uint64_t w
    while s + 8 <= e:
        memcpy(&w, s, 8)
        if ((w - <uint64_t>0x2121212121212121) & ~w & <uint64_t>0x8080808080808080) != 0:
            break
        s += 8
    while s < e and not is_space(s[0]):
        s += 1
    return s


cdef inline bint has_nul(const unsigned char* s, const unsigned char* e) noexcept nogil:
    # The one NUL rule of every scanner, checked on each data line: a NUL is
    # never text (a binary or UTF-16 file), and strings copied into
    # fixed-width numpy bytes would lose trailing NULs ("1" and "1\0" alike).
    return s < e and memchr(s, 0, e - s) != NULL


cdef int64_t MANT_LIMIT = 900719925474099   # (2**53 - 1) // 10
cdef double POW10[23]
POW10[0] = 1.0
for _i in range(1, 23):
    POW10[_i] = POW10[_i - 1] * 10.0   # exact up to 1e22


cdef inline bint parse_double(const unsigned char* s, const unsigned char* e, double* out) noexcept nogil:
    """Parse [s, e) as a finite double; the token must be consumed entirely.

    Fast path (Clinger): a plain decimal whose digits fit in an integer below
    2**53 and with at most 22 decimals is mantissa / 10**decimals, a single
    correctly rounded division of two exact doubles, so the result equals
    strtod's. Anything else (exponents, long mantissas, inf/nan) goes to
    strtod.
    """
    cdef const unsigned char* p = s
    cdef char* stop
    cdef bint neg = False, dot = False, digit = False
    cdef int64_t mant = 0
    cdef int frac = 0, d
    cdef double v
    if s >= e:
        return False
    if p[0] == 45 or p[0] == 43:  # '-' '+'
        neg = p[0] == 45
        p += 1
    while p < e:
        d = <int>p[0] - 48
        if 0 <= d <= 9:
            if mant >= MANT_LIMIT:   # mant * 10 + d could pass 2**53
                break
            mant = mant * 10 + d
            digit = True
            if dot:
                frac += 1
        elif p[0] == 46 and not dot:  # '.'
            dot = True
        else:
            break
        p += 1
    if p == e and digit and frac <= 22:
        v = <double>mant
        if frac:
            v = v / POW10[frac]
        out[0] = -v if neg else v
        return True
    # strtod stops at the first character it cannot use; every line ends in
    # b"\n", so it never reads past the buffer.
    out[0] = strtod(<const char*>s, &stop)
    return <const unsigned char*>stop == e and isfinite(out[0])


cdef inline bint parse_int(const unsigned char* s, const unsigned char* e, int64_t* out) noexcept nogil:
    """Parse [s, e) as a decimal int64 with optional sign; no overflow."""
    cdef bint neg = False
    cdef int64_t v = 0
    cdef int d
    if s < e and (s[0] == 43 or s[0] == 45):  # '+' '-'
        neg = s[0] == 45
        s += 1
    if s >= e:
        return False
    while s < e:
        d = <int>s[0] - 48
        if d < 0 or d > 9:
            return False
        if v > INT64_MAX_DIV10 or (v == INT64_MAX_DIV10 and d > 7):
            return False
        v = v * 10 + d
        s += 1
    out[0] = -v if neg else v
    return True


cdef inline int64_t copy_to_pool(uint8_t* pool, int64_t used, const unsigned char* s,
                                 const unsigned char* e) noexcept nogil:
    cdef int64_t n = e - s
    if n > 0:
        memcpy(pool + used, s, n)
    return used + n


# Included here, one file per job (textual includes: one module, the same code).
include "_parse_svmlight.pxi"
include "_parse_numbers.pxi"
include "_parse_trec.pxi"
include "_parse_join.pxi"
include "_parse_place.pxi"
include "_parse_dicts.pxi"


# ------------------------------------------------------------------ byte-string pools

cdef inline int cmp_bytes(const uint8_t* pool, int64_t sa, int64_t la, int64_t sb, int64_t lb) noexcept nogil:
    """strcmp order for strings without NUL bytes: bytes, then length."""
    cdef int64_t m = la if la < lb else lb
    cdef int c = memcmp(pool + sa, pool + sb, m) if m > 0 else 0
    if c != 0:
        return c
    return (la > lb) - (la < lb)


def sort_groups(const uint8_t[::1] pool,
                const int64_t[::1] start,     # IN (rows)
                const int64_t[::1] length,    # IN (rows)
                int64_t[::1] order,           # IN/OUT: row ids, grouped by goff
                const int64_t[::1] goff,      # IN (groups + 1)
                int n_threads):
    """Sort the row ids of each group [goff[g], goff[g+1]) by their strings
    (bytewise, shorter prefix first; stable: equal strings keep their order), with
    the docno sort of the joins (:c:func:`sort_docnos`: the group's common prefix
    skipped, a radix sort on the next 8 bytes, the rest compared only among equal
    keys). Groups are independent: any thread count gives the same result."""
    cdef Py_ssize_t n = order.shape[0], g, ng = goff.shape[0] - 1
    cdef int64_t a, m, i
    cdef KeyedRow* rows
    if n == 0:
        return
    rows = <KeyedRow*>malloc(2 * n * sizeof(KeyedRow))
    if rows == NULL:
        raise MemoryError()
    try:
        with nogil:
            for g in prange(ng, schedule="dynamic", num_threads=n_threads, use_threads_if=n_threads > 1):
                a = goff[g]
                m = goff[g + 1] - a
                for i in range(m):
                    rows[a + i].row = order[a + i]
                sort_docnos(rows + a, rows + n + a, m, &pool[0] if pool.shape[0] else NULL, &start[0], &length[0])
                for i in range(m):
                    order[a + i] = rows[a + i].row
    finally:
        free(rows)


def first_duplicate(const uint8_t[::1] pool,
                    const int64_t[::1] start,   # IN (rows, sorted within groups)
                    const int64_t[::1] length,  # IN
                    const int64_t[::1] goff):   # IN (groups + 1)
    """Index i of the first row equal to row i - 1 in the same group, or -1."""
    cdef Py_ssize_t g, i, ng = goff.shape[0] - 1
    cdef const uint8_t* p = &pool[0] if pool.shape[0] else NULL
    cdef Py_ssize_t found = -1
    with nogil:
        for g in range(ng):
            for i in range(goff[g] + 1, goff[g + 1]):
                if cmp_bytes(p, start[i - 1], length[i - 1], start[i], length[i]) == 0:
                    found = i
                    break
            if found >= 0:
                break
    return found


cdef class GroupedStrings:
    """A string column in groups, the one argument :func:`join_sorted` takes per
    side: its byte ``pool``, each row's ``start`` and ``length`` in it, and the
    ``offsets`` (groups + 1) of each group's rows (sorted within a group)."""

    cdef const uint8_t[::1] pool
    cdef const int64_t[::1] start
    cdef const int64_t[::1] length
    cdef const int64_t[::1] offsets

    def __init__(self, const uint8_t[::1] pool, const int64_t[::1] start, const int64_t[::1] length,
                 const int64_t[::1] offsets):
        self.pool, self.start, self.length, self.offsets = pool, start, length, offsets


def join_sorted(GroupedStrings a not None, GroupedStrings b not None,
                const int64_t[::1] pair_a,    # IN (pairs): group of a
                const int64_t[::1] pair_b,    # IN (pairs): matching group of b
                int64_t[::1] match,           # OUT (rows of a): row of b with the same string, or -1
                int n_threads):
    """Merge join of two string columns sorted within groups, pair by pair."""
    cdef Py_ssize_t k, npairs = pair_a.shape[0]
    cdef int64_t i, j, iend, jend, ga, gb
    cdef const uint8_t* ap = &a.pool[0] if a.pool.shape[0] else NULL
    cdef const uint8_t* bp = &b.pool[0] if b.pool.shape[0] else NULL
    # the columns as local memoryviews: the loop reads them as before
    cdef const int64_t[::1] astart = a.start, alen = a.length, aoff = a.offsets
    cdef const int64_t[::1] bstart = b.start, blen = b.length, boff = b.offsets
    if npairs == 0:
        return
    with nogil:
        for k in prange(npairs, schedule="dynamic", num_threads=n_threads, use_threads_if=n_threads > 1):
            ga = pair_a[k]
            gb = pair_b[k]
            i = aoff[ga]
            iend = aoff[ga + 1]
            j = boff[gb]
            jend = boff[gb + 1]
            while i < iend:
                while j < jend and _cmp2(bp, bstart[j], blen[j], ap, astart[i], alen[i]) < 0:
                    j = j + 1
                if j < jend and _cmp2(bp, bstart[j], blen[j], ap, astart[i], alen[i]) == 0:
                    match[i] = j
                else:
                    match[i] = -1
                i = i + 1


cdef inline int _cmp2(const uint8_t* p1, int64_t s1, int64_t l1,
                      const uint8_t* p2, int64_t s2, int64_t l2) noexcept nogil:
    cdef int64_t m = l1 if l1 < l2 else l2
    cdef int c = memcmp(p1 + s1, p2 + s2, m) if m > 0 else 0
    if c != 0:
        return c
    return (l1 > l2) - (l1 < l2)


def to_fixed_width(const uint8_t[::1] pool, const int64_t[::1] start, const int64_t[::1] length,
                   uint8_t[:, ::1] out):
    """Copy strings into the rows of a zero-filled (n, width) array, which
    numpy can view as a fixed-width bytes ("S<width>") column."""
    cdef Py_ssize_t i, n = start.shape[0]
    cdef const uint8_t* p = &pool[0] if pool.shape[0] else NULL
    if n == 0 or out.shape[1] == 0:
        return
    with nogil:
        for i in range(n):
            if length[i] > 0:
                memcpy(&out[i, 0], p + start[i], length[i])


def count_byte(const unsigned char[::1] buf, unsigned char c):
    """Number of occurrences of byte c in buf (16 bytes at a time with SSE2)."""
    cdef Py_ssize_t n = buf.shape[0]
    cdef long long count
    if n == 0:
        return 0
    with nogil:
        count = count_eq(&buf[0], n, c)
    return count
