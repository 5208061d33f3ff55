"""Build-time facts about OpenMP, and the team a calling thread would start,
exposed to Python."""
from cython.parallel cimport parallel
from libc.stdint cimport int64_t

from fastndcg._core._openmp cimport FASTNDCG_OPENMP, omp_get_max_threads, omp_get_thread_num

import numpy as np


cdef extern from *:
    """
    #if defined(__linux__)
    #include <unistd.h>
    #include <sys/syscall.h>
    static long fastndcg_gettid(void) { return (long)syscall(SYS_gettid); }
    #else
    static long fastndcg_gettid(void) { return -1; }
    #endif
    """
    long fastndcg_gettid() noexcept nogil


def openmp_enabled():
    """Return True if the installed extension modules were built with OpenMP."""
    return bool(FASTNDCG_OPENMP)


def omp_max_threads():
    """Return ``omp_get_max_threads()`` (1 for a serial build); honours OMP_NUM_THREADS."""
    return int(omp_get_max_threads())


def team_thread_ids(int n_threads):
    """Operating-system thread ids (Linux ``gettid``; -1 elsewhere) of the
    OpenMP team of ``n_threads`` that the calling thread starts, itself
    included: the runtime keeps a calling thread's workers from one parallel
    region to the next, so these are the threads that later regions reuse (and
    that may still be spinning, idle, when the load is read). A slot whose
    thread the runtime did not start stays -1."""
    cdef Py_ssize_t n = max(1, n_threads)
    ids_arr = np.full(n, -1, dtype=np.int64)
    cdef int64_t[::1] ids = ids_arr
    with nogil, parallel(num_threads=n):
        ids[omp_get_thread_num()] = fastndcg_gettid()
    return [int(t) for t in ids_arr if t >= 0]
