# Exact summation: the one summation rule of every aggregate.
#
# An Expansion holds a sum of doubles exactly, as non-overlapping partials in
# increasing magnitude (Shewchuk 1997, the algorithm behind math.fsum), and
# rounds it once, correctly (half to even). Exact sums do not depend on the
# order of the terms, so per-query terms summed in any order, in blocks on
# several threads, in chunks of a stream or in partitions of a cluster give
# the same bits; that is what lets every front-end agree.
#
# Limit: a sum whose running partial overflows (beyond DBL_MAX, only with
# terms near 1e308 of both signs) is reported as that infinity, as the
# order-dependent OverflowError of math.fsum would be. Aggregate terms are
# non-negative, where overflow means the exact total rounds to infinity anyway.

cdef struct Expansion:
    double* p          # partials, |p[0]| < |p[1]| < ..., non-overlapping
    Py_ssize_t n       # partials in use
    Py_ssize_t cap     # allocated
    double special     # sum of the non-finite terms (inf/nan), 0.0 when none
    int failed         # 1 when growing the partials failed (out of memory)

cdef void exp_init(Expansion* e) noexcept nogil
cdef void exp_free(Expansion* e) noexcept nogil
cdef void exp_add(Expansion* e, double x) noexcept nogil
cdef void exp_merge(Expansion* e, const Expansion* other) noexcept nogil
cdef double exp_round(const Expansion* e) noexcept nogil
