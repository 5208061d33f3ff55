# Exact, correctly rounded summation (see _exact.pxd for why).
#
# exp_add is Shewchuk's GROW-EXPANSION with zero elimination; exp_round sums
# the partials from the largest down and corrects a half-way case to even, so
# the result is the double nearest to the exact sum (math.fsum's contract).
# Typical aggregates (values in [0, 1], weights) keep one to three partials,
# so adding a term costs a few flops.
from cython.parallel cimport parallel, prange
from libc.math cimport fabs, isfinite
from libc.stdlib cimport free, malloc, realloc

import numpy as np

DEF INITIAL_PARTIALS = 8
# Rows per block of the parallel column sums: blocks, not threads, split the
# work, and exact sums merge in any order, so any thread count gives the same bits.
DEF BLOCK_ROWS = 8192


cdef void exp_init(Expansion* e) noexcept nogil:
    e.p = NULL
    e.n = 0
    e.cap = 0
    e.special = 0.0
    e.failed = 0


cdef void exp_free(Expansion* e) noexcept nogil:
    free(e.p)
    e.p = NULL
    e.n = 0
    e.cap = 0


cdef bint _reserve(Expansion* e, Py_ssize_t need) noexcept nogil:
    cdef Py_ssize_t cap
    cdef double* grown
    if need <= e.cap:
        return True
    cap = e.cap * 2 if e.cap > 0 else INITIAL_PARTIALS
    while cap < need:
        cap *= 2
    grown = <double*>realloc(e.p, cap * sizeof(double))
    if grown == NULL:
        e.failed = 1
        return False
    e.p = grown
    e.cap = cap
    return True


cdef void exp_add(Expansion* e, double x) noexcept nogil:
    cdef Py_ssize_t i = 0, j
    cdef double y, hi, lo, t
    if x == 0.0:
        return
    if not isfinite(x):
        e.special = e.special + x
        return
    for j in range(e.n):
        y = e.p[j]
        if fabs(x) < fabs(y):
            t = x
            x = y
            y = t
        hi = x + y
        lo = y - (hi - x)
        if not isfinite(hi):
            # intermediate overflow: the exact sum is beyond what the
            # partials can hold; report it as the infinity it rounds towards
            e.special = e.special + hi
            e.n = i
            return
        if lo != 0.0:
            e.p[i] = lo
            i += 1
        x = hi
    e.n = i
    if x != 0.0:
        if not _reserve(e, i + 1):
            return
        e.p[i] = x
        e.n = i + 1


cdef void exp_merge(Expansion* e, const Expansion* other) noexcept nogil:
    cdef Py_ssize_t j
    for j in range(other.n):
        exp_add(e, other.p[j])
    if other.special != 0.0 or other.special != other.special:
        e.special = e.special + other.special
    if other.failed:
        e.failed = 1


cdef double exp_round(const Expansion* e) noexcept nogil:
    cdef Py_ssize_t n = e.n
    cdef double hi = 0.0, lo = 0.0, x, y, yr
    if e.special != 0.0 or e.special != e.special:
        return e.special
    if n > 0:
        n -= 1
        hi = e.p[n]
        while n > 0:
            x = hi
            n -= 1
            y = e.p[n]
            hi = x + y
            yr = hi - x
            lo = y - yr
            if lo != 0.0:
                break
        # hi + lo is exact; when lo is exactly half an ulp of hi, the partials
        # below decide the direction (round half to even otherwise).
        if n > 0 and ((lo < 0.0 and e.p[n - 1] < 0.0) or (lo > 0.0 and e.p[n - 1] > 0.0)):
            y = lo * 2.0
            x = hi + y
            yr = x - hi
            if y == yr:
                hi = x
    return hi


def exact_sum(const double[::1] values):
    """The correctly rounded sum of ``values`` (as :func:`math.fsum`)."""
    cdef Expansion e
    cdef Py_ssize_t i
    cdef double out
    exp_init(&e)
    with nogil:
        for i in range(values.shape[0]):
            exp_add(&e, values[i])
        out = exp_round(&e)
    failed = e.failed
    exp_free(&e)
    if failed:
        raise MemoryError("fastndcg: could not allocate the partials of an exact sum")
    return out


cdef void _sum_block(const double* x, Py_ssize_t r0, Py_ssize_t r1, Py_ssize_t n_cols,
                     Expansion* acc) noexcept nogil:
    cdef Py_ssize_t r, j
    for r in range(r0, r1):
        for j in range(n_cols):
            exp_add(&acc[j], x[r * n_cols + j])


def column_sums(const double[:, ::1] x, int n_threads=1):
    """Correctly rounded sum of each column of ``x``, float64 (n_cols,).

    Rows are summed in blocks (in parallel when ``n_threads`` > 1); exact
    partial sums merge without rounding, so the result is the same for any
    thread count and equals :func:`math.fsum` of each column.
    """
    cdef Py_ssize_t n_rows = x.shape[0], n_cols = x.shape[1]
    cdef Py_ssize_t n_blocks = (n_rows + BLOCK_ROWS - 1) // BLOCK_ROWS
    cdef Py_ssize_t b, j, r1
    cdef const double* base = &x[0, 0] if n_rows > 0 and n_cols > 0 else NULL
    cdef Expansion* acc
    cdef Expansion* total
    out = np.zeros(n_cols, dtype=np.float64)
    cdef double[::1] res = out
    cdef int failed = 0
    if n_cols == 0 or n_rows == 0:
        return out
    acc = <Expansion*>malloc(n_blocks * n_cols * sizeof(Expansion))
    if acc == NULL:
        raise MemoryError("fastndcg: could not allocate exact-sum accumulators")
    for b in range(n_blocks * n_cols):
        exp_init(&acc[b])
    with nogil:
        if n_blocks > 1 and n_threads > 1:
            with parallel(num_threads=n_threads):
                for b in prange(n_blocks, schedule="static"):
                    r1 = (b + 1) * BLOCK_ROWS
                    _sum_block(base, b * BLOCK_ROWS, r1 if r1 < n_rows else n_rows, n_cols,
                               &acc[b * n_cols])
        else:
            for b in range(n_blocks):
                r1 = (b + 1) * BLOCK_ROWS
                _sum_block(base, b * BLOCK_ROWS, r1 if r1 < n_rows else n_rows, n_cols, &acc[b * n_cols])
        for b in range(1, n_blocks):
            for j in range(n_cols):
                exp_merge(&acc[j], &acc[b * n_cols + j])
        for j in range(n_cols):
            res[j] = exp_round(&acc[j])
        for b in range(n_blocks * n_cols):
            failed |= acc[b].failed
            exp_free(&acc[b])
    free(acc)
    if failed:
        raise MemoryError("fastndcg: could not allocate the partials of an exact sum")
    return out


cdef class ExactSum:
    """Exact running sums of ``n`` columns, combinable across processes.

    ``add(values)`` adds a (rows, n) or (n,) array; ``partials()`` exports each
    column's exact state as a list of floats (a few per column), which
    ``add_partials`` adds into another ExactSum exactly, so partial sums of
    disjoint parts (stream chunks, Dask or Spark partitions) combine to the
    same correctly rounded total as one in-memory sum; ``values()`` rounds.
    """
    cdef Expansion* acc
    cdef readonly Py_ssize_t n

    def __cinit__(self, Py_ssize_t n):
        cdef Py_ssize_t j
        if n < 0:
            raise ValueError(f"n must be >= 0; got {n}")
        self.n = n
        self.acc = <Expansion*>malloc((n if n > 0 else 1) * sizeof(Expansion))
        if self.acc == NULL:
            raise MemoryError()
        for j in range(n):
            exp_init(&self.acc[j])

    def __dealloc__(self):
        cdef Py_ssize_t j
        if self.acc != NULL:
            for j in range(self.n):
                exp_free(&self.acc[j])
            free(self.acc)

    def add(self, values):
        """Add a (rows, n) or (n,) float64 array, row by row."""
        arr = np.ascontiguousarray(values, dtype=np.float64)
        if arr.ndim == 1:
            arr = arr.reshape(1, -1)
        if arr.ndim != 2 or arr.shape[1] != self.n:
            raise ValueError(f"expected an array with {self.n} columns; got shape {np.shape(values)}")
        cdef const double[:, ::1] v = arr
        if v.shape[0] and self.n:
            with nogil:
                _sum_block(&v[0, 0], 0, v.shape[0], self.n, self.acc)
        self._check()

    def add_partials(self, Py_ssize_t column, partials):
        """Add a column's exported partials (from :meth:`partials`) exactly."""
        cdef double x
        if not 0 <= column < self.n:
            raise IndexError(f"column must be in [0, {self.n}); got {column}")
        for x in partials:
            exp_add(&self.acc[column], x)
        self._check()

    def partials(self, Py_ssize_t column):
        """The exact state of a column as a list of floats (their exact sum is the column's)."""
        cdef Expansion* e
        if not 0 <= column < self.n:
            raise IndexError(f"column must be in [0, {self.n}); got {column}")
        e = &self.acc[column]
        out = [e.p[j] for j in range(e.n)]
        if e.special != 0.0 or e.special != e.special:
            out.append(e.special)
        return out

    def merge(self, ExactSum other):
        """Add another accumulator of the same width (e.g. another partition's), exactly."""
        cdef Py_ssize_t j
        if other.n != self.n:
            raise ValueError(f"cannot merge sums of {other.n} columns into {self.n}")
        for j in range(self.n):
            exp_merge(&self.acc[j], &other.acc[j])
        self._check()

    @property
    def parts(self):
        """Every column's :meth:`partials`, a list of lists of floats."""
        return [self.partials(j) for j in range(self.n)]

    def total(self):
        """Alias of :meth:`values`."""
        return self.values()

    def values(self):
        """The correctly rounded sum of each column, float64 (n,)."""
        out = np.empty(self.n, dtype=np.float64)
        cdef double[::1] o = out
        cdef Py_ssize_t j
        for j in range(self.n):
            o[j] = exp_round(&self.acc[j])
        return out

    cdef _check(self):
        cdef Py_ssize_t j
        for j in range(self.n):
            if self.acc[j].failed:
                raise MemoryError("fastndcg: could not allocate the partials of an exact sum")
