# Validation scans: one pass, no temporaries, return the first offending
# position so that Python can name it in the error message.
from cython cimport floating
from libc.math cimport isfinite, floor
from libc.stdint cimport int32_t, int64_t

from fastndcg._rank cimport label_t


cdef inline void _int_range(const label_t* y, Py_ssize_t n, label_t* low, label_t* high) noexcept nogil:
    cdef Py_ssize_t i
    cdef label_t lo = y[0], hi = y[0], v
    for i in range(1, n):
        v = y[i]
        lo = min(lo, v)
        hi = max(hi, v)
    low[0] = lo
    high[0] = hi


cdef inline bint _any_nonfinite(const floating* x, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef bint found = False
    for i in range(n):
        # x - x is NaN exactly for NaN and +-inf; no early exit, so this vectorises.
        found |= (x[i] - x[i]) != 0.0
    return found


def first_nonfinite(const floating[::1] x):
    """Index of the first NaN or +-inf in x, or -1."""
    cdef Py_ssize_t i, n = x.shape[0], bad = -1
    with nogil:
        # One streaming pass for the usual all-finite case; a search only when
        # something is wrong.
        if n > 0 and _any_nonfinite(&x[0], n):
            for i in range(n):
                if not isfinite(x[i]):
                    bad = i
                    break
    return bad


def scan_labels(const label_t[::1] y, bint need_integer):
    """Return (first_bad_index, max_label) for labels that must be finite and
    >= 0 (and integers when need_integer); first_bad_index is -1 if none.
    max_label is 0 for an empty array."""
    cdef Py_ssize_t i, n = y.shape[0], bad = -1
    cdef double v, top = 0.0
    cdef label_t itop = 0
    cdef label_t ilow = 0
    if label_t is int32_t or label_t is int64_t:
        # Integers: only the sign can be wrong. min and max without an early
        # exit, so the loop vectorises; the first negative label is searched
        # only when there is one.
        if n == 0:
            return bad, 0.0
        with nogil:
            _int_range(&y[0], n, &ilow, &itop)
            if ilow < 0:
                for i in range(n):
                    if y[i] < 0:
                        bad = i
                        break
        return bad, <double>(itop if itop > 0 else 0)
    with nogil:
        for i in range(n):
            v = <double>y[i]
            if not (v >= 0.0) or not isfinite(v) or (need_integer and floor(v) != v):
                bad = i
                break
            if v > top:
                top = v
    return bad, top
