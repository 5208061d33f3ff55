# NDCG kernels: the checks of scores and labels that run inside the parallel pass (SSE2
# integer screens, then the exact rule on a flagged query). Included by _ndcg.pyx.

# ----------------------------------------------------------------------------- checks


cdef int _label_problem(const label_t* lab, Py_ssize_t n, const ConventionPlan* c, Py_ssize_t* where,
                        Py_ssize_t* top) noexcept nogil:
    """0, or the problem of the query's first invalid label (its position in
    *where). *top receives a bound on the query's largest label when the
    labels are integers (-1: unknown)."""
    cdef Py_ssize_t i
    cdef bint bad = False
    cdef uint64_t ulimit, orv = 0
    cdef double v
    cdef int code
    top[0] = -1
    if label_t is int32_t or label_t is int64_t:
        if label_t is int64_t:
            ulimit = <uint64_t>c.label_limit if c.label_limit < 9.2e18 else <uint64_t>9223372036854775807
            bad = screen_i64(lab, n, ulimit, &orv) != 0
        else:
            ulimit = <uint64_t>c.label_limit if c.label_limit < 2147483647.0 else <uint64_t>2147483647
            bad = screen_i32(lab, n, <uint32_t>ulimit, &orv) != 0
        if not bad:
            # the smallest 2**b - 1 >= every label (the OR has the top bit of the largest)
            while orv & (orv + 1):
                orv |= orv >> 1
            top[0] = <Py_ssize_t>orv
            if c.table_holes:
                for i in range(n):
                    bad |= c.table[<Py_ssize_t>lab[i]] != c.table[<Py_ssize_t>lab[i]]
    else:
        for i in range(n):
            v = <double>lab[i]
            bad |= not (v >= 0.0 and v <= c.label_limit and v - v == 0.0)
        if not bad and c.need_integer:
            for i in range(n):
                bad |= floor(<double>lab[i]) != <double>lab[i]
        if not bad and c.table_holes:
            for i in range(n):
                bad |= c.table[<Py_ssize_t>lab[i]] != c.table[<Py_ssize_t>lab[i]]
    if not bad:
        return PROBLEM_NONE
    for i in range(n):
        v = <double>lab[i]
        code = PROBLEM_NONE
        if not (v >= 0.0) or v - v != 0.0:
            code = LABEL_NEGATIVE
        elif c.need_integer and floor(v) != v:
            code = LABEL_NOT_INTEGER
        elif v > c.label_limit:
            code = LABEL_ABOVE_LIMIT
        elif c.table_holes and c.table[<Py_ssize_t>v] != c.table[<Py_ssize_t>v]:
            code = LABEL_OUTSIDE_TABLE
        if code != PROBLEM_NONE:
            where[0] = i
            return code
    return PROBLEM_NONE
