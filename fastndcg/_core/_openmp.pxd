# OpenMP shim: the only place that touches omp.h. Without OpenMP the build
# still compiles; these helpers then report a single thread.
cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    #define FASTNDCG_OPENMP 1
    #else
    #define FASTNDCG_OPENMP 0
    static int omp_get_max_threads(void) { return 1; }
    static int omp_get_thread_num(void) { return 0; }
    #endif
    """
    const int FASTNDCG_OPENMP
    int omp_get_max_threads() noexcept nogil
    int omp_get_thread_num() noexcept nogil
