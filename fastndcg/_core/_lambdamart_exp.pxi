# LambdaMART kernels, default mode: the exponentials u = e^{sigma (s - s_pivot)} its pairs'
# logistics are made of (included by _lambdamart_impl.pxi, after _lambdamart_default.pxi,
# whose AVX-512 choice the loop follows).


# e^-a in the default mode's own arithmetic: vectorisable, so that the
# logistic of every pair is computed four (AVX2) or two at a time. Cody-Waite
# reduction a = k ln2 + r (|r| <= ln2 / 2, k found by the round-to-nearest of
# x + 1.5 * 2^52), a degree-13 Taylor polynomial (truncation < 1e-17), and the
# scaling by 2^-k as two exact powers of two, so that results below 2^-1022
# are rounded once into the subnormals. Accurate to about 1 ulp (the tests
# compare it with the C library's exp: within 3e-16 relative); the default
# mode does not reproduce a library, so its logistic need only be exact in
# double.
cdef extern from *:
    """
    #define FASTNDCG_EXP_MAGIC 6755399441055744.0      /* 1.5 * 2^52: adding it rounds to an integer */
    #define FASTNDCG_LOG2E 1.4426950408889634
    #define FASTNDCG_LN2_HI 0.6931471803691238         /* ln 2 with its low 21 bits zero */
    #define FASTNDCG_LN2_LO 1.9082149292705877e-10
    #define FASTNDCG_MAGIC_BITS 0x4338000000000000ULL  /* the bits of FASTNDCG_EXP_MAGIC */

    /* 2^k for an integer-valued k in [-1022, 1023], built from its bits */
    static inline double fastndcg_pow2(double k) {
        double t = k + FASTNDCG_EXP_MAGIC, out;
        uint64_t b;
        memcpy(&b, &t, 8);
        b = (b - FASTNDCG_MAGIC_BITS + 1023) << 52;
        memcpy(&out, &b, 8);
        return out;
    }

    /* e^-a for 0 <= a (0 beyond a = 745.2, where e^-a rounds to 0) */
    static inline double fastndcg_exp_neg(double a) {
        double x = a < 745.2 ? -a : -745.2, k, r, q, ka;
        k = (x * FASTNDCG_LOG2E + FASTNDCG_EXP_MAGIC) - FASTNDCG_EXP_MAGIC;   /* nearest integer to x / ln 2 */
        r = (x - k * FASTNDCG_LN2_HI) - k * FASTNDCG_LN2_LO;
        q = 1.0 / 6227020800.0;
        q = q * r + 1.0 / 479001600.0;
        q = q * r + 1.0 / 39916800.0;
        q = q * r + 1.0 / 3628800.0;
        q = q * r + 1.0 / 362880.0;
        q = q * r + 1.0 / 40320.0;
        q = q * r + 1.0 / 5040.0;
        q = q * r + 1.0 / 720.0;
        q = q * r + 1.0 / 120.0;
        q = q * r + 1.0 / 24.0;
        q = q * r + 1.0 / 6.0;
        q = q * r + 0.5;
        q = q * r + 1.0;
        q = q * r + 1.0;
        ka = (k * 0.5 + FASTNDCG_EXP_MAGIC) - FASTNDCG_EXP_MAGIC;           /* k = ka + (k - ka), both >= -538 */
        return (q * fastndcg_pow2(ka)) * fastndcg_pow2(k - ka);
    }

    /* u_r = e^{-sigma (s_pivot - s_r)} for ranks r in [pivot, n): a loop the compiler
       vectorises (elementwise: the same bits at every width), eight wide where the
       default mode's AVX-512 rows run */
    #define FASTNDCG_UNIT_EXPS_BODY                                                            \
        double top = rs[pivot];                                                                \
        Py_ssize_t r;                                                                          \
        for (r = pivot; r < n; r++)                                                            \
            ru[r] = fastndcg_exp_neg(sigma * (top - rs[r]));
    static void fastndcg_unit_exps_narrow(Py_ssize_t pivot, Py_ssize_t n, double sigma,
                                          const double* __restrict__ rs, double* __restrict__ ru) {
        FASTNDCG_UNIT_EXPS_BODY
    }
    #ifdef FASTNDCG_HAVE_512
    __attribute__((target("avx2,avx512f,avx512dq,prefer-vector-width=512")))
    static void fastndcg_unit_exps_512(Py_ssize_t pivot, Py_ssize_t n, double sigma,
                                       const double* __restrict__ rs, double* __restrict__ ru) {
        FASTNDCG_UNIT_EXPS_BODY
    }
    #endif
    static void fastndcg_unit_exps(Py_ssize_t pivot, Py_ssize_t n, double sigma, const double* rs, double* ru) {
    #ifdef FASTNDCG_HAVE_512
        if (fastndcg_lm_512 > 0) {
            fastndcg_unit_exps_512(pivot, n, sigma, rs, ru);
            return;
        }
    #endif
        fastndcg_unit_exps_narrow(pivot, n, sigma, rs, ru);
    }
    """
    double _exp_neg "fastndcg_exp_neg"(double a) noexcept nogil
    # u_r = e^{-sigma (s_pivot - s_r)} in (0, 1] for ranks r in [pivot, n) (scores descend
    # with r; the pad entries past n - 1 are _pad_ranks's)
    void _unit_exps "fastndcg_unit_exps"(Py_ssize_t pivot, Py_ssize_t n, double sigma, const double* rs,
                                         double* ru) noexcept nogil


def exp_neg(const double[::1] a, double[::1] out):
    """e^-a elementwise with the default mode's exp (a >= 0), for the tests."""
    cdef Py_ssize_t i
    for i in range(a.shape[0]):
        out[i] = _exp_neg(a[i])
