# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled form of a kernel plan (see _kernel_plan.pxd and plan.py)."""
import numpy as np

from libc.stdint cimport int64_t


cdef const double* array_f64(object arr) except? NULL:
    cdef const double[::1] v = arr
    return &v[0] if v.shape[0] > 0 else NULL


cdef const int64_t* array_i64(object arr) except? NULL:
    cdef const int64_t[::1] v = arr
    return &v[0] if v.shape[0] > 0 else NULL


cdef class CompiledPlan:
    """A :class:`~fastndcg._core.plan.KernelPlan` as the struct the kernels read.

    Built once per plan (and, for NDCG, per list of ideals: ``ideal_disc`` is D(r) over the
    ranks its ideal DCG sums), then only read, by any number of threads. Holds the arrays its
    pointers read.
    """

    def __init__(self, plan, ideal_disc=None):
        res = plan.res
        table, last, linear = plan.gains
        levels = res.levels
        disc = np.ascontiguousarray(plan.disc, dtype=np.float64)
        idisc = disc if ideal_disc is None else np.ascontiguousarray(ideal_disc, dtype=np.float64)
        cutoffs = np.ascontiguousarray(plan.cutoffs, dtype=np.int64)
        short = np.ascontiguousarray(plan.short_limit, dtype=np.int64)
        c = &self.c
        c.table = array_f64(table)
        c.last = last
        c.linear = linear
        c.count_size = res.count_size
        c.levels = array_i64(levels) if levels is not None else NULL
        c.n_levels = levels.shape[0] if levels is not None else 0
        c.need_integer = res.need_integer
        c.label_limit = res.label_limit
        c.table_holes = res.table_holes
        c.round_f32 = res.round_f32
        c.score_limit = res.score_limit
        c.overflow_inf = res.overflow_inf
        c.tie_mode = res.tie_code
        c.key_desc = plan.key_desc
        c.disc = array_f64(disc)
        c.ideal_disc = array_f64(idisc)
        c.ideal_whole = plan.convention.ideal == "full"
        c.cutoffs = array_i64(cutoffs)
        c.n_cut = cutoffs.shape[0]
        c.short_limit = array_i64(short)
        c.empty_value = plan.empty_value
        self._refs = (table, levels, disc, idisc, cutoffs, short)

    def members(self):
        """The struct's scalar members and its columns, as the kernels read them (for tests and
        debugging)."""
        c = &self.c
        return {
            "last": c.last, "linear": bool(c.linear), "count_size": c.count_size, "n_levels": c.n_levels,
            "need_integer": bool(c.need_integer), "label_limit": c.label_limit,
            "table_holes": bool(c.table_holes), "round_f32": bool(c.round_f32),
            "score_limit": c.score_limit, "overflow_inf": bool(c.overflow_inf), "tie_mode": c.tie_mode,
            "key_desc": bool(c.key_desc), "ideal_whole": bool(c.ideal_whole),
            "cutoffs": [c.cutoffs[i] for i in range(c.n_cut)],
            "short_limit": [c.short_limit[i] for i in range(c.n_cut)], "empty_value": c.empty_value,
        }
