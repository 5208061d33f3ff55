# Compiled checks of per-query arrays (offsets), so that a small call pays no
# chain of numpy passes. Per-document values (scores, labels) are checked by
# the kernels themselves (see _ndcg.pyx).
from libc.stdint cimport int64_t

from fastndcg._core._codes cimport OFFSETS_DECREASING, OFFSETS_END, OFFSETS_FIRST_NOT_ZERO, OFFSETS_OK


def offsets_problem(const int64_t[::1] offsets, int64_t n_docs):
    """(code, index, max_size): 0 when offsets start at 0, never decrease and
    end at n_docs, else the first problem and where; max_size is the largest
    query (valid only when code is 0)."""
    cdef Py_ssize_t i, n = offsets.shape[0]
    cdef int64_t size, top = 0
    cdef bint down = False
    if n == 0:
        return OFFSETS_END, 0, 0
    if offsets[0] != 0:
        return OFFSETS_FIRST_NOT_ZERO, 0, 0
    with nogil:
        for i in range(1, n):
            size = offsets[i] - offsets[i - 1]
            down |= size < 0
            top = size if size > top else top
    if down:
        for i in range(1, n):
            if offsets[i] < offsets[i - 1]:
                return OFFSETS_DECREASING, i - 1, 0
    if offsets[n - 1] != n_docs:
        return OFFSETS_END, n - 1, 0
    return OFFSETS_OK, 0, top
