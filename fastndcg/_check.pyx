# Validation scans: one pass, no temporaries, return the first offending
# position so that Python can name it in the error message.
from cython cimport floating
from libc.math cimport isfinite, floor
from libc.stdint cimport int32_t, int64_t

from fastndcg._rank cimport label_t


def first_nonfinite(const floating[::1] x):
    """Index of the first NaN or +-inf in x, or -1."""
    cdef Py_ssize_t i, n = x.shape[0], bad = -1
    with nogil:
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
    if label_t is int32_t or label_t is int64_t:
        # Integers: only the sign can be wrong.
        with nogil:
            for i in range(n):
                if y[i] < 0:
                    bad = i
                    break
                if y[i] > itop:
                    itop = y[i]
        return bad, <double>itop
    with nogil:
        for i in range(n):
            v = <double>y[i]
            if not (v >= 0.0) or not isfinite(v) or (need_integer and floor(v) != v):
                bad = i
                break
            if v > top:
                top = v
    return bad, top
