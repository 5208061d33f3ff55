# The compiled kernel plan: the one struct every kernel family reads (NDCG, LambdaMART in
# every mode, SoftNDCG; RankDCG reads its empty value), filled in one place
# (CompiledPlan, from plan.py's KernelPlan). A convention field a kernel acts on is a member
# here and an entry of resolve.py's Resolution; the rules every family applies to it (the
# gain of a label, the score as ranked, the short-query rule) are the inline functions below,
# so a family's loop calls them and does not change when a rule does.
from cython cimport floating
from libc.stdint cimport int64_t

from fastndcg._core._rank cimport label_t, ranked_score


cdef struct ConventionPlan:
    # gains: G(l) = l (linear), else table[min(l, last)]; table[last] = 0 is the
    # gain of labels above the table (unknown_label="zero")
    const double* table
    Py_ssize_t last
    bint linear
    # the counting ideal: by label value (gain non-decreasing in the label,
    # labels <= count_size - 1), or in `levels` order (small tables), or none
    Py_ssize_t count_size
    const int64_t* levels
    Py_ssize_t n_levels
    # label checks
    bint need_integer
    double label_limit           # largest valid label (INFINITY: none)
    bint table_holes             # NaN table entries: labels outside the table
    # scores
    bint round_f32
    double score_limit           # |s| < score_limit (INFINITY: finite)
    bint overflow_inf            # |s| >= score_limit ranks as +-inf (only NaN is invalid)
    int tie_mode                 # a TIES_* code of _codes.pxd
    bint key_desc
    # ranks: D(r) for r = 1..depth, the ideal's discount and extent
    const double* disc
    const double* ideal_disc
    bint ideal_whole
    # columns: cutoffs (FULL_LIST: the whole list) and their short-query limits
    const int64_t* cutoffs
    Py_ssize_t n_cut
    const int64_t* short_limit
    double empty_value


# a 1-D contiguous array's first element (NULL when empty): the pointers a plan (or a kernel
# object) keeps, the array kept alive beside it
cdef const double* array_f64(object arr) except? NULL
cdef const int64_t* array_i64(object arr) except? NULL


cdef class CompiledPlan:
    cdef ConventionPlan c
    cdef object _refs            # the arrays the pointers read


cdef inline double plan_gain(label_t label, const ConventionPlan* c) noexcept nogil:
    # the one gain rule of the kernels: the label itself, or its table entry (labels past
    # the table read table[last] = 0); labels were checked under the convention
    cdef Py_ssize_t i
    if c.linear:
        return <double>label
    i = <Py_ssize_t>label
    return c.table[i if i < c.last else c.last]


cdef inline double plan_score(floating s, const ConventionPlan* c) noexcept nogil:
    # the score as ranked: float32-rounded under score_precision="float32"
    return ranked_score(s, c.round_f32)


cdef inline bint plan_short(Py_ssize_t n, Py_ssize_t column, const ConventionPlan* c) noexcept nogil:
    # a query of n documents scores 0 in this column (short="zero": fewer than its cutoff)
    return n < c.short_limit[column]
