# NDCG kernels over CSR queries.
#
# Layers: per-query `cdef ... noexcept nogil` functions that take base
# pointers plus a length and write only their own query's output row; batch
# functions that run `prange` over queries with per-thread scratch; and
# `NDCGKernel`, which holds the kernel-ready inputs of prepared queries (built
# once by fastndcg._core.prepared) so that a call only hands over the scores.
#
# Checks that read per-document arrays run here, inside the parallel pass, on
# the query's data while it is in cache: a query whose scores are not finite
# (after the float32 rounding the convention asks for) or whose labels are
# invalid gets a flag and no result, and Python raises afterwards naming the
# first such position. Nothing reduces across queries, so results are
# bit-identical for any thread count; below a size chosen by the caller
# (fastndcg._core.threads.threads_for) the pass runs on the calling thread without
# an OpenMP team.
#
# Cutoffs arrive sorted ascending and unique; "the whole list" is a cutoff
# larger than any query. All sums are in double, in rank order.
from cython cimport floating
from cython.parallel cimport parallel, prange
from libc.float cimport DBL_MAX
from libc.math cimport INFINITY, NAN, fabs, floor, log2
from libc.stdint cimport int8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

import numpy as np


cdef extern from *:
    # GCC/Clang builtin; a hint only, it never faults.
    void __builtin_prefetch(const void* addr, int rw, int locality) noexcept nogil

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* Integer label screens: branch-free, as the score screens (_score_screen.pxi). */
    /* Integer labels in [0, limit]: negative ones have the top bit already,
       larger ones get it from the add. *orv collects the OR of the labels (a
       bound on the largest: the counting ideal starts from it). */
    static inline uint64_t fastndcg_screen_i64(const int64_t* y, Py_ssize_t n, uint64_t limit, uint64_t* orv) {
        uint64_t acc = 0, o = 0, c = 0x8000000000000000ULL - (limit + 1), u;
        for (Py_ssize_t i = 0; i < n; i++) {
            u = (uint64_t)y[i];
            acc |= u | (u + c);
            o |= u;
        }
        *orv = o;
        return acc >> 63;
    }
    static inline uint64_t fastndcg_screen_i32(const int32_t* y, Py_ssize_t n, uint32_t limit, uint64_t* orv) {
        uint32_t acc = 0, o = 0, c = 0x80000000U - (limit + 1), u;
        for (Py_ssize_t i = 0; i < n; i++) {
            u = (uint32_t)y[i];
            acc |= u | (u + c);
            o |= u;
        }
        *orv = o;
        return acc >> 31;
    }
    """
    uint64_t screen_i64 "fastndcg_screen_i64"(const int64_t* y, Py_ssize_t n, uint64_t limit, uint64_t* orv) noexcept nogil
    uint64_t screen_i32 "fastndcg_screen_i32"(const int32_t* y, Py_ssize_t n, uint32_t limit, uint64_t* orv) noexcept nogil

from fastndcg._core._codes cimport (DISCOUNT_LETOR, DISCOUNT_LOG2, FLAG_DCG_OVERFLOW, FLAG_IDEAL_OVERFLOW,
                                    FLAG_LABELS, FLAG_NDCG_OVERFLOW, FLAG_SCORES, FLAG_SCORES_TO_INF,
                                    LABEL_ABOVE_LIMIT, LABEL_NEGATIVE,
                                    LABEL_NOT_INTEGER, LABEL_OUTSIDE_TABLE, PROBLEM_NONE,
                                    SCORE_FLOAT32_OVERFLOW, SCORE_FLOAT32_TO_INF, SCORE_NOT_FINITE,
                                    TIES_AVERAGE)
from fastndcg._core._kernel_plan cimport (CompiledPlan, ConventionPlan, array_f64, array_i64, plan_gain, plan_score,
                                          plan_short)
from fastndcg._core._rank cimport RankedDoc, label_t, select_top, sort_docs

# Label kinds of NDCGKernel (the label_t specialisations).
cdef enum:
    KIND_INT32 = 0
    KIND_INT64 = 1
    KIND_FLOAT32 = 2
    KIND_FLOAT64 = 3


def discount_table(int kind, Py_ssize_t n):
    """D(r) for r = 1..n with libc log2 (so LambdaMART can match C++ bit for bit).

    kind: a DISCOUNT_* code of _codes.pxd (resolve.DISCOUNT_CODES).
    """
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] d = out
    cdef Py_ssize_t i
    for i in range(n):
        if kind == DISCOUNT_LOG2:
            d[i] = 1.0 / log2(2.0 + <double>i)
        elif kind == DISCOUNT_LETOR:
            d[i] = 1.0 if i < 2 else 1.0 / log2(1.0 + <double>i)
        else:
            d[i] = 1.0 / (1.0 + <double>i)
    return out


# Included here, one file per job (textual includes: one module, the same code).
include "_score_screen.pxi"
include "_ndcg_checks.pxi"
include "_ndcg_select.pxi"
include "_ndcg_query.pxi"
include "_ndcg_batches.pxi"


# ----------------------------------------------------------------------------- prepared queries


cdef class NDCGKernel:
    """Kernel-ready inputs of prepared queries (see fastndcg._core.prepared).

    Holds pointers into arrays it keeps alive: labels (int32, int64, float32
    or float64), int64 offsets, an optional int64 tie key, the gain and
    discount tables and the cutoffs; ``idcg`` is the (n_queries, n_cutoffs)
    ideal DCG array, filled by :meth:`compute_ideal` or by a fused
    :meth:`score` call. Every input is trusted (the caller validated shapes
    and dtypes); per-document values are checked in the kernels.
    """
    cdef ConventionPlan cfg
    cdef CompiledPlan plan
    cdef const void* lab
    cdef int label_kind
    cdef const int64_t* off
    cdef const int64_t* keys
    cdef Py_ssize_t n_queries
    cdef Py_ssize_t max_n
    cdef double* idcg
    cdef object _refs
    cdef readonly object labels

    def __init__(self, labels, offsets, double[:, ::1] idcg, CompiledPlan plan not None, Py_ssize_t max_n):
        # plan: the convention's compiled kernel plan (tables, codes, cutoffs, discounts)
        cdef const int32_t[::1] l32
        cdef const int64_t[::1] l64
        cdef const float[::1] f32
        cdef const double[::1] f64
        dt = labels.dtype
        self.lab = NULL
        if dt == np.int32:
            self.label_kind = KIND_INT32
            l32 = labels
            self.lab = &l32[0] if l32.shape[0] > 0 else NULL
        elif dt == np.int64:
            self.label_kind = KIND_INT64
            l64 = labels
            self.lab = &l64[0] if l64.shape[0] > 0 else NULL
        elif dt == np.float32:
            self.label_kind = KIND_FLOAT32
            f32 = labels
            self.lab = &f32[0] if f32.shape[0] > 0 else NULL
        elif dt == np.float64:
            self.label_kind = KIND_FLOAT64
            f64 = labels
            self.lab = &f64[0] if f64.shape[0] > 0 else NULL
        else:
            raise TypeError(f"labels dtype {dt} is not a kernel dtype")
        self.labels = labels
        self.off = array_i64(offsets)
        self.n_queries = offsets.shape[0] - 1
        self.keys = NULL
        self.idcg = &idcg[0, 0] if idcg.shape[0] > 0 and idcg.shape[1] > 0 else NULL
        self.max_n = max_n
        self.plan = plan
        self.cfg = plan.c
        self._refs = (labels, offsets, idcg)

    def compute_ideal(self, int8_t[::1] flags, bint check_labels, int n_threads):
        """Fill the ideal DCG (and check the labels when asked); True if a query was flagged."""
        cdef int bad = 0, failed = 0
        cdef int8_t* fl = &flags[0] if flags.shape[0] > 0 else NULL
        if self.n_queries == 0:
            return False
        with nogil:
            if self.label_kind == KIND_INT32:
                failed = _ideal_queries(<const int32_t*>self.lab, self.off, self.n_queries, self.max_n,
                                        &self.cfg, check_labels, self.idcg, fl, &bad, n_threads)
            elif self.label_kind == KIND_INT64:
                failed = _ideal_queries(<const int64_t*>self.lab, self.off, self.n_queries, self.max_n,
                                        &self.cfg, check_labels, self.idcg, fl, &bad, n_threads)
            elif self.label_kind == KIND_FLOAT32:
                failed = _ideal_queries(<const float*>self.lab, self.off, self.n_queries, self.max_n,
                                        &self.cfg, check_labels, self.idcg, fl, &bad, n_threads)
            else:
                failed = _ideal_queries(<const double*>self.lab, self.off, self.n_queries, self.max_n,
                                        &self.cfg, check_labels, self.idcg, fl, &bad, n_threads)
        if failed:
            raise MemoryError("fastndcg: could not allocate per-thread scratch")
        return bad != 0

    def score(self, scores, tie_key, double[:, ::1] dcg_out, ndcg_out, int8_t[::1] flags, bint fuse_ideal,
              bint check_labels, bint check_scores, int n_threads):
        """DCG (and NDCG unless ``ndcg_out`` is None) of every query for ``scores``
        (float32 or float64, C-contiguous, one per document) and ``tie_key``
        (int64 or None); True if a query was flagged (its outputs are then
        undefined)."""
        cdef const float[::1] s32
        cdef const double[::1] s64
        cdef const int64_t[::1] kv
        if tie_key is not None:
            kv = tie_key
            self.keys = &kv[0] if kv.shape[0] > 0 else NULL
        else:
            self.keys = NULL
        cdef double[:, ::1] nd
        cdef double* nd_ptr = NULL
        cdef double* dcg_ptr = &dcg_out[0, 0] if dcg_out.shape[0] > 0 and dcg_out.shape[1] > 0 else NULL
        cdef int8_t* fl = &flags[0] if flags.shape[0] > 0 else NULL
        cdef int bad = 0, failed = 0
        cdef const void* sp = NULL
        cdef bint is32 = scores.dtype == np.float32
        if ndcg_out is not None:
            nd = ndcg_out
            nd_ptr = &nd[0, 0] if nd.shape[0] > 0 and nd.shape[1] > 0 else NULL
        if self.n_queries == 0:
            return False
        if is32:
            s32 = scores
            sp = &s32[0] if s32.shape[0] > 0 else NULL
        else:
            s64 = scores
            sp = &s64[0] if s64.shape[0] > 0 else NULL
        with nogil:
            failed = self._dispatch(sp, is32, fuse_ideal, check_labels, check_scores, dcg_ptr, nd_ptr,
                                    fl, &bad, n_threads)
        if failed:
            raise MemoryError("fastndcg: could not allocate per-thread scratch")
        return bad != 0

    cdef int _dispatch(self, const void* sp, bint is32, bint fuse, bint chk_lab, bint chk_sc,
                       double* dcg_ptr, double* nd_ptr, int8_t* fl, int* bad, int nt) noexcept nogil:
        cdef Batch b
        b.off = self.off
        b.keys = self.keys
        b.n_queries = self.n_queries
        b.max_n = self.max_n
        b.c = &self.cfg
        b.fuse_ideal = fuse
        b.check_labels = chk_lab
        b.check_scores = chk_sc
        b.idcg = self.idcg if (nd_ptr != NULL or fuse) else NULL
        b.dcg_out = dcg_ptr
        b.ndcg_out = nd_ptr
        b.flags = fl
        b.any_bad = bad
        b.n_threads = nt
        if is32:
            return _score_by_label(<const float*>sp, self.lab, self.label_kind, &b)
        return _score_by_label(<const double*>sp, self.lab, self.label_kind, &b)

    def label_problem(self, Py_ssize_t q):
        """(row, code) of query q's first invalid label (row in the batch), or (-1, 0)."""
        cdef Py_ssize_t where = 0, top = -1
        cdef int code
        cdef Py_ssize_t start = self.off[q], n = self.off[q + 1] - self.off[q]
        if self.label_kind == KIND_INT32:
            code = _label_problem((<const int32_t*>self.lab) + start, n, &self.cfg, &where, &top)
        elif self.label_kind == KIND_INT64:
            code = _label_problem((<const int64_t*>self.lab) + start, n, &self.cfg, &where, &top)
        elif self.label_kind == KIND_FLOAT32:
            code = _label_problem((<const float*>self.lab) + start, n, &self.cfg, &where, &top)
        else:
            code = _label_problem((<const double*>self.lab) + start, n, &self.cfg, &where, &top)
        if code == PROBLEM_NONE:
            return (-1, 0)
        return (start + where, code)

    def score_problem(self, scores, Py_ssize_t q):
        """(row, code) of query q's first invalid score, or (-1, 0)."""
        cdef Py_ssize_t where = 0
        cdef int code
        cdef const float[::1] s32
        cdef const double[::1] s64
        cdef Py_ssize_t start = self.off[q], n = self.off[q + 1] - self.off[q]
        if scores.dtype == np.float32:
            s32 = scores
            code = _score_problem(&s32[start], n, self.cfg.score_limit, self.cfg.overflow_inf, &where) if n > 0 else 0
        else:
            s64 = scores
            code = _score_problem(&s64[start], n, self.cfg.score_limit, self.cfg.overflow_inf, &where) if n > 0 else 0
        if code == PROBLEM_NONE:
            return (-1, 0)
        return (start + where, code)


def score_problems(const floating[::1] scores, const int64_t[::1] offsets, double limit,
                   int8_t[::1] flags, int n_threads, bint inf_ok=False):
    """Check scores query by query in parallel (for kernels that do not check
    them themselves): flags[q] = 1 where query q has a score that is not
    finite or has |s| >= limit. True if any query was flagged. With
    ``inf_ok`` only NaN is flagged 1, and flags[q] = 32 where a finite score
    of query q has |s| >= limit (it ranks as +-inf; not an error)."""
    cdef Py_ssize_t q, n_queries = offsets.shape[0] - 1, where = 0
    cdef int bad = 0, code
    cdef int* bad_flag = &bad
    cdef const floating* sc = &scores[0] if scores.shape[0] > 0 else NULL
    cdef const int64_t* off = &offsets[0]
    if n_queries <= 0 or sc == NULL:
        return False
    with nogil, parallel(num_threads=n_threads, use_threads_if=n_threads > 1):
        for q in prange(n_queries, schedule="dynamic", chunksize=64):
            where = 0
            code = _score_problem(sc + off[q], off[q + 1] - off[q], limit, inf_ok, &where)
            if code == SCORE_FLOAT32_TO_INF:
                flags[q] = FLAG_SCORES_TO_INF
            elif code != PROBLEM_NONE:
                flags[q] = FLAG_SCORES
                bad_flag[0] = 1
    return bad != 0


def first_score_problem(const floating[::1] scores, Py_ssize_t start, Py_ssize_t stop, double limit,
                        bint inf_ok=False):
    """(row, code) of the first invalid score in rows start:stop, or (-1, 0);
    with ``inf_ok`` see :func:`score_problems` (code 7: the first finite
    score that ranks as +-inf)."""
    cdef Py_ssize_t where = 0
    cdef int code = 0
    if stop > start:
        code = _score_problem(&scores[start], stop - start, limit, inf_ok, &where)
    if code == PROBLEM_NONE:
        return (-1, 0)
    return (start + where, code)


def check_labels_batch(const label_t[::1] labels, const int64_t[::1] offsets, table, Py_ssize_t last,
                       bint need_integer, double label_limit, bint table_holes, int8_t[::1] flags,
                       double[::1] qmax, int n_threads):
    """Check labels query by query in parallel (the rule of the NDCG kernels):
    flags[q] = 2 where query q has an invalid label; qmax[q] = the query's
    largest label (0 for an empty query). True if any query was flagged."""
    cdef Py_ssize_t q, i, n, n_queries = offsets.shape[0] - 1, where = 0, top = -1
    cdef int bad = 0
    cdef int* bad_flag = &bad
    cdef double qtop
    cdef ConventionPlan c
    cdef const label_t* lab = &labels[0] if labels.shape[0] > 0 else NULL
    cdef const int64_t* off = &offsets[0]
    c.table = array_f64(table) if table is not None else NULL
    c.last = last
    c.need_integer = need_integer
    c.label_limit = label_limit
    c.table_holes = table_holes and c.table != NULL
    if n_queries <= 0:
        return False
    with nogil, parallel(num_threads=n_threads, use_threads_if=n_threads > 1):
        for q in prange(n_queries, schedule="dynamic", chunksize=64):
            n = off[q + 1] - off[q]
            where = 0
            qtop = 0.0
            if n > 0 and _label_problem(lab + off[q], n, &c, &where, &top) != PROBLEM_NONE:
                flags[q] = FLAG_LABELS
                bad_flag[0] = 1
            else:
                for i in range(n):
                    qtop = <double>lab[off[q] + i] if <double>lab[off[q] + i] > qtop else qtop
            qmax[q] = qtop
    return bad != 0


def first_label_problem(const label_t[::1] labels, Py_ssize_t start, Py_ssize_t stop, table,
                        Py_ssize_t last, bint need_integer, double label_limit, bint table_holes):
    """(row, code) of the first invalid label in rows start:stop, or (-1, 0)."""
    cdef Py_ssize_t where = 0, top = -1
    cdef int code = 0
    cdef ConventionPlan c
    c.table = array_f64(table) if table is not None else NULL
    c.last = last
    c.need_integer = need_integer
    c.label_limit = label_limit
    c.table_holes = table_holes and c.table != NULL
    if stop > start:
        code = _label_problem(&labels[start], stop - start, &c, &where, &top)
    if code == PROBLEM_NONE:
        return (-1, 0)
    return (start + where, code)
