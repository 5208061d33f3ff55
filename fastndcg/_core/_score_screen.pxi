# The check of a query's scores inside a kernel's parallel pass, shared by the NDCG and the
# LambdaMART kernels (included by _ndcg.pyx and _lambdamart_impl.pxi): a branch-free integer
# screen over the query's scores (SSE2-vectorised at -O3), then the exact rule on a flagged query.
# The including module cimports floating, fabs, memcpy, uint32_t/uint64_t and the SCORE_* codes.

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* Branch-free screens over a query's values: integer and/or/add only, so
       that -O3 vectorises them with baseline SSE2 (no float reduction, which
       would need -ffast-math). Each returns the OR of per-value words whose
       top bit is set exactly for an invalid value.
       Scores: |x| as bits compared with the bits of the limit (bit patterns of
       non-negative floats order as their values; NaN sits above infinity):
       |x| >= limit  <=>  |x|bits + (2^63 - limitbits) has the top bit set. */
    static inline uint64_t fastndcg_screen_f64(const double* s, Py_ssize_t n, uint64_t limit_bits) {
        uint64_t acc = 0, c = 0x8000000000000000ULL - limit_bits, b;
        for (Py_ssize_t i = 0; i < n; i++) {
            memcpy(&b, s + i, sizeof b);
            acc |= (b & 0x7fffffffffffffffULL) + c;
        }
        return acc >> 63;
    }
    static inline uint64_t fastndcg_screen_f32(const float* s, Py_ssize_t n) {
        uint32_t acc = 0, b;
        for (Py_ssize_t i = 0; i < n; i++) {
            memcpy(&b, s + i, sizeof b);
            acc |= (b & 0x7fffffffU) + 0x00800000U;      /* 2^31 - bits(+inf) */
        }
        return acc >> 31;
    }
    """
    uint64_t screen_f64 "fastndcg_screen_f64"(const double* s, Py_ssize_t n, uint64_t limit_bits) noexcept nogil
    uint64_t screen_f32 "fastndcg_screen_f32"(const float* s, Py_ssize_t n) noexcept nogil


cdef int _score_problem(const floating* s, Py_ssize_t n, double limit, bint inf_ok,
                        Py_ssize_t* where) noexcept nogil:
    """0, or the problem of the query's first invalid score (its position in *where):
    not finite, or |s| >= limit (a double that overflows float32 when rounded).
    With ``inf_ok`` (float32_overflow="inf") only NaN is invalid; a query
    without NaN but with a finite score that overflows float32 gets
    SCORE_FLOAT32_TO_INF, the position of the first such score in *where."""
    cdef Py_ssize_t i
    cdef bint bad
    cdef uint64_t limit_bits
    if floating is float:
        bad = screen_f32(s, n) != 0       # float32 input: only non-finite values are invalid
    else:
        memcpy(&limit_bits, &limit, sizeof(double))
        bad = screen_f64(s, n, limit_bits) != 0
    if not bad:
        return PROBLEM_NONE
    for i in range(n):
        if inf_ok:
            if <double>s[i] != <double>s[i]:
                where[0] = i
                return SCORE_NOT_FINITE
            continue
        if <double>s[i] - <double>s[i] != 0.0:
            where[0] = i
            return SCORE_NOT_FINITE
        if not (fabs(<double>s[i]) < limit):
            where[0] = i
            return SCORE_FLOAT32_OVERFLOW
    if inf_ok:
        for i in range(n):
            if <double>s[i] - <double>s[i] == 0.0 and not (fabs(<double>s[i]) < limit):
                where[0] = i
                return SCORE_FLOAT32_TO_INF
    return PROBLEM_NONE
