"""Build-time facts about OpenMP, exposed to Python."""
from fastndcg._core._openmp cimport FASTNDCG_OPENMP, omp_get_max_threads


def openmp_enabled():
    """Return True if the installed extension modules were built with OpenMP."""
    return bool(FASTNDCG_OPENMP)


def omp_max_threads():
    """Return ``omp_get_max_threads()`` (1 for a serial build); honours OMP_NUM_THREADS."""
    return int(omp_get_max_threads())
