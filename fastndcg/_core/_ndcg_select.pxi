# NDCG kernels: the top-m selection of float64 scores without a tie key (the default
# convention's case) on CPUs with AVX2, chosen at run time. Included by _ndcg.pyx.
#
# Same result as _rank.pxd's select_top, the portable path (the comparator is a
# total order: score descending, then position ascending), with fewer
# instructions and mispredicted branches per document:
#
# 1. a threshold T that at least m documents reach: the smallest of m running
#    maxima (document i feeds maximum i mod m), kept as L = lcm(m, 4) maxima in
#    vector registers (i mod L) and folded to m at the end; max only, exact;
# 2. the documents at or above T, found 4 at a time by a vector compare into a
#    64-bit mask, copied in input order to contiguous score and position lists
#    by walking the mask's set bits (~2.5m survive on MSLR-like queries);
# 3. the same rule once more over the survivors when 2m or more survive (~1.8m);
# 4. the m best of the survivors: the first m ordered by counting, for each, the
#    ones that rank before it, the rest inserted (a later survivor passes
#    strictly lower scores only), as _rank.pxd's _select_in_input_order.
#
# Only compares, max and min: no floating-point arithmetic, so both paths give
# the same bits; `simd_level` lets tests force the portable path.

cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #include <stdlib.h>
    #if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
    #include <immintrin.h>
    #define FASTNDCG_SEL_X86 1
    #define FASTNDCG_AVX2_FN static __attribute__((target("avx2")))
    #define FASTNDCG_AVX2_INL static inline __attribute__((always_inline, target("avx2")))
    #endif

    /* -1: not decided yet; 0: portable (select_top); 1: AVX2. */
    static int fastndcg_sel_level = -1;

    static int fastndcg_sel_avx2_available(void) {
    #ifdef FASTNDCG_SEL_X86
        /* FASTNDCG_NO_AVX2 (any value but "0") forces the portable path, as for LambdaMART */
        const char* no = getenv("FASTNDCG_NO_AVX2");
        if (no != NULL && !(no[0] == '0' && no[1] == 0))
            return 0;
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") ? 1 : 0;
    #else
        return 0;
    #endif
    }

    static inline int fastndcg_sel_get_level(void) {
        int s = fastndcg_sel_level;
        if (s < 0) {            /* a benign race: every thread stores the same value */
            s = fastndcg_sel_avx2_available();
            fastndcg_sel_level = s;
        }
        return s;
    }

    /* Lanes L for m groups: the smallest multiple of 4 that m divides, up to 32;
       0 when there is none (m = 9, 11, 13, ...: those use the portable path). */
    static const unsigned char fastndcg_sel_lanes_of[33] = {0, 4, 4, 12, 4, 20, 12, 28, 8, 0, 20, 0, 12, 0, 28, 0, 16, 0, 0, 0, 20, 0, 0, 0, 24, 0, 0, 0, 28, 0, 0, 0, 32};
    static inline Py_ssize_t fastndcg_sel_lanes(Py_ssize_t m) {
        return m >= 1 && m <= 32 ? (Py_ssize_t)fastndcg_sel_lanes_of[m] : 0;
    }

    #ifdef FASTNDCG_SEL_X86
    #pragma GCC diagnostic push
    /* best[0..L) is stored from the L lanes before it is read */
    #pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
    /* min over g < m of max{v[i] : i mod m = g}, from L = 4 NV running maxima
       (i mod L); requires n >= L, m | L. */
    FASTNDCG_AVX2_INL double fastndcg_thr_avx2_g(const double* v, Py_ssize_t n, Py_ssize_t m, int NV,
                                                 uint64_t cadd, uint64_t* screen) {
        /* also the score screen of _score_screen.pxi (fastndcg_screen_f64) over
           v[0..n): the top bit of *screen is set when some |v| >= the limit
           (cadd = 2^63 - the limit's bits) or is NaN */
        __m256d b[8], x;
        __m256i mask, left, acc = _mm256_setzero_si256();
        const __m256i absm = _mm256_set1_epi64x(0x7fffffffffffffffLL), cv = _mm256_set1_epi64x((long long)cadd);
        __m128i h;
        double best[32], g0, g1, t0 = INFINITY, t1 = INFINITY;
        Py_ssize_t base, k, j, L = 4 * NV;
    #define FASTNDCG_SCREEN(X) acc = _mm256_or_si256(acc, _mm256_add_epi64(                  \
            _mm256_and_si256(_mm256_castpd_si256(X), absm), cv))
        for (k = 0; k < NV; k++) {
            b[k] = _mm256_loadu_pd(v + 4 * k);
            FASTNDCG_SCREEN(b[k]);
        }
        for (base = L; base + L <= n; base += L)
            for (k = 0; k < NV; k++) {
                x = _mm256_loadu_pd(v + base + 4 * k);
                FASTNDCG_SCREEN(x);
                b[k] = _mm256_max_pd(x, b[k]);
            }
        if (base < n) {
            /* the tail: document base + j feeds lane j; masked loads read nothing
               past n (and give +0.0, which passes the screen) */
            left = _mm256_set1_epi64x((long long)(n - base));
            for (k = 0; k < NV; k++) {
                mask = _mm256_cmpgt_epi64(left, _mm256_setr_epi64x(4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3));
                x = _mm256_maskload_pd(v + base + 4 * k, mask);
                FASTNDCG_SCREEN(x);
                x = _mm256_blendv_pd(_mm256_set1_pd(-INFINITY), x, _mm256_castsi256_pd(mask));
                b[k] = _mm256_max_pd(x, b[k]);
            }
        }
    #undef FASTNDCG_SCREEN
        h = _mm_or_si128(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        *screen = (uint64_t)_mm_cvtsi128_si64(h) | (uint64_t)_mm_extract_epi64(h, 1);
        for (k = 0; k < NV; k++) _mm256_storeu_pd(best + 4 * k, b[k]);
        /* group j's maximum over its lanes j, j + m, ...; then the smallest, in two chains */
        for (j = 0; j + 1 < m; j += 2) {
            g0 = best[j];
            g1 = best[j + 1];
            for (base = m; base < L; base += m) {
                g0 = best[base + j] > g0 ? best[base + j] : g0;
                g1 = best[base + j + 1] > g1 ? best[base + j + 1] : g1;
            }
            t0 = g0 < t0 ? g0 : t0;
            t1 = g1 < t1 ? g1 : t1;
        }
        if (j < m) {
            g0 = best[j];
            for (base = m; base < L; base += m)
                g0 = best[base + j] > g0 ? best[base + j] : g0;
            t0 = g0 < t0 ? g0 : t0;
        }
        return t1 < t0 ? t1 : t0;
    }
    #pragma GCC diagnostic pop

    FASTNDCG_AVX2_FN double fastndcg_thr_avx2(const double* v, Py_ssize_t n, Py_ssize_t m, Py_ssize_t L,
                                              uint64_t cadd, uint64_t* screen) {
        switch (L) {
        case 4: return fastndcg_thr_avx2_g(v, n, m, 1, cadd, screen);
        case 8: return fastndcg_thr_avx2_g(v, n, m, 2, cadd, screen);
        case 12: return fastndcg_thr_avx2_g(v, n, m, 3, cadd, screen);
        case 16: return fastndcg_thr_avx2_g(v, n, m, 4, cadd, screen);
        case 20: return fastndcg_thr_avx2_g(v, n, m, 5, cadd, screen);
        case 24: return fastndcg_thr_avx2_g(v, n, m, 6, cadd, screen);
        case 28: return fastndcg_thr_avx2_g(v, n, m, 7, cadd, screen);
        default: return fastndcg_thr_avx2_g(v, n, m, 8, cadd, screen);
        }
    }

    /* Mask of v[0..len) >= t (len <= 64). */
    FASTNDCG_AVX2_INL uint64_t fastndcg_mask_avx2(const double* v, Py_ssize_t len, double t) {
        uint64_t mk = 0;
        Py_ssize_t j = 0;
        __m256d tv = _mm256_set1_pd(t);
        for (; j + 4 <= len; j += 4)
            mk |= (uint64_t)_mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(v + j), tv, _CMP_GE_OQ)) << j;
        for (; j < len; j++)
            mk |= (uint64_t)(v[j] >= t) << j;
        return mk;
    }

    /* Copy, in input order, the entries of v[0..n) that are >= t to cs[0..c)
       and their positions (idx[i], or i when idx is NULL) to ci[0..c); returns c.
       cs may be v and ci may be idx (each write lands at or before the entry read). */
    FASTNDCG_AVX2_FN Py_ssize_t fastndcg_filter_avx2(const double* v, const int64_t* idx, Py_ssize_t n,
                                                     double t, double* cs, int64_t* ci) {
        Py_ssize_t base, len, c = 0;
        uint64_t mk;
        int b;
        for (base = 0; base < n; base += 64) {
            len = n - base < 64 ? n - base : 64;
            mk = fastndcg_mask_avx2(v + base, len, t);
            while (mk) {
                b = __builtin_ctzll(mk);
                cs[c] = v[base + b];
                ci[c] = idx != NULL ? idx[base + b] : (int64_t)(base + b);
                c++;
                mk &= mk - 1;
            }
        }
        return c;
    }

    /* The m best of the candidates (cs, ci)[0..c) (in input order), best first,
       into (ts, ti)[0..m) (which have room for 64). Requires 1 <= m <= c, m <= 32,
       and cs readable up to 4 ceil(min(c, 64) / 4) entries. */
    FASTNDCG_AVX2_INL void fastndcg_sel_run(const double* cs, const int64_t* ci, Py_ssize_t c, Py_ssize_t m,
                                            double* ts, int64_t* ti) {
        Py_ssize_t i, j, k, r, nv;
        double s, last;
        int64_t x;
        uint32_t gt, eq, keep = m >= 32 ? 0xffffffffU : ((uint32_t)1 << m) - 1;
        uint64_t gt64, eq64, keep64;
        __m256d sv, a[16];
        if (c <= 64) {
            /* every candidate's rank at once (no branch to mispredict): those
               scoring higher, and the earlier ones scoring the same; ranks are
               distinct, so each candidate lands in its own slot */
            nv = (c + 3) / 4;
            keep64 = c >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << c) - 1;
            for (k = 0; k < nv; k++) a[k] = _mm256_loadu_pd(cs + 4 * k);
            for (i = 0; i < c; i++) {
                sv = _mm256_set1_pd(cs[i]);
                gt64 = 0;
                eq64 = 0;
                for (k = 0; k < nv; k++) {
                    gt64 |= (uint64_t)_mm256_movemask_pd(_mm256_cmp_pd(a[k], sv, _CMP_GT_OQ)) << (4 * k);
                    eq64 |= (uint64_t)_mm256_movemask_pd(_mm256_cmp_pd(a[k], sv, _CMP_EQ_OQ)) << (4 * k);
                }
                r = __builtin_popcountll(gt64 & keep64) + __builtin_popcountll(eq64 & (((uint64_t)1 << i) - 1));
                ts[r] = cs[i];           /* ts and ti have room for 64: every rank lands */
                ti[r] = ci[i];
            }
            return;
        }
        /* the first m in order by counting, for each, the ones that rank before
           it: those scoring higher, and the earlier ones scoring the same (bit
           masks from vector compares; cs has at least 4 nv entries) */
        nv = (m + 3) / 4;
        for (k = 0; k < nv; k++) a[k] = _mm256_loadu_pd(cs + 4 * k);
        for (i = 0; i < m; i++) {
            s = cs[i];
            sv = _mm256_set1_pd(s);
            gt = 0;
            eq = 0;
            for (k = 0; k < nv; k++) {
                gt |= (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(a[k], sv, _CMP_GT_OQ)) << (4 * k);
                eq |= (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(a[k], sv, _CMP_EQ_OQ)) << (4 * k);
            }
            r = __builtin_popcount(gt & keep) + __builtin_popcount(eq & (((uint32_t)1 << i) - 1));
            ts[r] = s;
            ti[r] = ci[i];
        }
        last = ts[m - 1];
        for (i = m; i < c; i++) {
            s = cs[i];
            if (s > last) {
                x = ci[i];
                j = m - 1;
                while (j > 0 && s > ts[j - 1]) {
                    ts[j] = ts[j - 1];
                    ti[j] = ti[j - 1];
                    j--;
                }
                ts[j] = s;
                ti[j] = x;
                last = ts[m - 1];
            }
        }
    }

    /* The m best of v[0..n), best first, into (ts, ti)[0..m) (room for 64) with AVX2. Requires
       1 <= m <= 32, L = fastndcg_sel_lanes(m) > 0, n >= L; cs and ci have room for n.
       With screen, first the score screen of _score_screen.pxi against the limit
       whose bits are limit_bits: returns 1 (and selects nothing) when it flags a
       score, else 0. */
    FASTNDCG_AVX2_FN int fastndcg_top_f64_avx2(const double* v, Py_ssize_t n, Py_ssize_t m, Py_ssize_t L,
                                              double* cs, int64_t* ci, double* ts, int64_t* ti,
                                              int screen, uint64_t limit_bits) {
        uint64_t flagged = 0;
        double t = fastndcg_thr_avx2(v, n, m, L, 0x8000000000000000ULL - limit_bits, &flagged);
        Py_ssize_t c;
        if (screen && (flagged >> 63))
            return 1;
        c = fastndcg_filter_avx2(v, NULL, n, t, cs, ci);
        if (c >= 2 * m && c >= L) {
            t = fastndcg_thr_avx2(cs, c, m, L, 0, &flagged);
            c = fastndcg_filter_avx2(cs, ci, c, t, cs, ci);
        }
        fastndcg_sel_run(cs, ci, c, m, ts, ti);
        return 0;
    }

    /* One pass over a query's int32 labels with AVX2: the label screen of
       _ndcg.pyx (fastndcg_screen_i32: its result, and the OR of the labels in
       *orv) and the count of each label 0..7 into cnt[0..8) (larger labels are
       not counted: the caller then counts another way). Counts are kept one
       byte per label value in 64-bit lanes (1 << 8 l per label, as
       _count_labels_packed), emptied every 31 vectors (8 lanes x 31 < 256). */
    FASTNDCG_AVX2_FN uint32_t fastndcg_screen_count_i32_avx2(const int32_t* y, Py_ssize_t n, uint32_t limit,
                                                            uint32_t* orv, int64_t* cnt) {
        const __m256i cv = _mm256_set1_epi32((int)(0x80000000U - (limit + 1)));
        const __m256i one = _mm256_set1_epi64x(1);
        __m256i acc = _mm256_setzero_si256(), o = _mm256_setzero_si256(), p0, p1, u;
        __m128i h;
        uint64_t w, packed;
        uint32_t a32, o32, v;
        Py_ssize_t i = 0, end, lv;
        for (lv = 0; lv < 8; lv++) cnt[lv] = 0;
        while (i + 8 <= n) {
            end = i + 8 * 31 < n ? i + 8 * 31 : n;
            p0 = _mm256_setzero_si256();
            p1 = _mm256_setzero_si256();
            for (; i + 8 <= end; i += 8) {
                u = _mm256_loadu_si256((const __m256i*)(y + i));
                acc = _mm256_or_si256(acc, _mm256_or_si256(u, _mm256_add_epi32(u, cv)));
                o = _mm256_or_si256(o, u);
                p0 = _mm256_add_epi64(p0, _mm256_sllv_epi64(one, _mm256_slli_epi64(
                    _mm256_cvtepu32_epi64(_mm256_castsi256_si128(u)), 3)));
                p1 = _mm256_add_epi64(p1, _mm256_sllv_epi64(one, _mm256_slli_epi64(
                    _mm256_cvtepu32_epi64(_mm256_extracti128_si256(u, 1)), 3)));
            }
            p0 = _mm256_add_epi64(p0, p1);
            h = _mm_add_epi64(_mm256_castsi256_si128(p0), _mm256_extracti128_si256(p0, 1));
            packed = (uint64_t)_mm_cvtsi128_si64(h) + (uint64_t)_mm_extract_epi64(h, 1);
            for (lv = 0; lv < 8; lv++) cnt[lv] += (int64_t)((packed >> (8 * lv)) & 255);
        }
        h = _mm_or_si128(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        h = _mm_or_si128(h, _mm_srli_si128(h, 8));
        h = _mm_or_si128(h, _mm_srli_si128(h, 4));
        a32 = (uint32_t)_mm_cvtsi128_si32(h);
        h = _mm_or_si128(_mm256_castsi256_si128(o), _mm256_extracti128_si256(o, 1));
        h = _mm_or_si128(h, _mm_srli_si128(h, 8));
        h = _mm_or_si128(h, _mm_srli_si128(h, 4));
        o32 = (uint32_t)_mm_cvtsi128_si32(h);
        w = 0;
        for (; i < n; i++) {
            v = (uint32_t)y[i];
            a32 |= v | (v + (0x80000000U - (limit + 1)));
            o32 |= v;
            if (v < 8) w += (uint64_t)1 << (8 * v);
        }
        for (lv = 0; lv < 8; lv++) cnt[lv] += (int64_t)((w >> (8 * lv)) & 255);
        *orv = o32;
        return a32 >> 31;
    }
    #else
    static int fastndcg_top_f64_avx2(const double* v, Py_ssize_t n, Py_ssize_t m, Py_ssize_t L,
                                     double* cs, int64_t* ci, double* ts, int64_t* ti,
                                     int screen, uint64_t limit_bits) {
        (void)v; (void)n; (void)m; (void)L; (void)cs; (void)ci; (void)ts; (void)ti;   /* never called */
        (void)screen; (void)limit_bits;
        return 1;
    }
    static uint32_t fastndcg_screen_count_i32_avx2(const int32_t* y, Py_ssize_t n, uint32_t limit,
                                                   uint32_t* orv, int64_t* cnt) {
        (void)y; (void)n; (void)limit; (void)orv; (void)cnt;                          /* never called */
        return 1;
    }
    #endif
    """
    int fastndcg_sel_level
    int fastndcg_sel_avx2_available() noexcept nogil
    int fastndcg_sel_get_level() noexcept nogil
    Py_ssize_t fastndcg_sel_lanes(Py_ssize_t m) noexcept nogil
    int fastndcg_top_f64_avx2(const double* v, Py_ssize_t n, Py_ssize_t m, Py_ssize_t L, double* cs,
                              int64_t* ci, double* ts, int64_t* ti, int screen, uint64_t limit_bits) noexcept nogil
    uint32_t fastndcg_screen_count_i32_avx2(const int32_t* y, Py_ssize_t n, uint32_t limit, uint32_t* orv,
                                            int64_t* cnt) noexcept nogil


DEF SELECT_TOP_MAX = 32


def simd_level(int level=-2):
    """The top-k path of the NDCG kernel: 1 AVX2, 0 portable (select_top). ``level`` 0 or 1
    sets it (1 only where the CPU has AVX2 and FASTNDCG_NO_AVX2 is unset; for
    tests), -1 goes back to the default choice; returns the path in use afterwards."""
    global fastndcg_sel_level
    if level == -1 or (level == 1 and not fastndcg_sel_avx2_available()):
        fastndcg_sel_level = fastndcg_sel_avx2_available()
    elif level in (0, 1):
        fastndcg_sel_level = level
    elif fastndcg_sel_level < 0:
        fastndcg_sel_level = fastndcg_sel_avx2_available()
    return fastndcg_sel_level


cdef inline bint _fast_top_applies(bint is_double, const int64_t* keys, const ConventionPlan* c, Py_ssize_t n,
                                   Py_ssize_t m) noexcept nogil:
    # _select_top_ndcg takes the AVX2 path for this query (m = its top-k size)
    cdef Py_ssize_t lanes
    if not is_double or keys != NULL or c.round_f32 or m < 1 or m > SELECT_TOP_MAX or n <= 2 * m or n <= 16:
        return False
    if fastndcg_sel_get_level() != 1:
        return False
    lanes = fastndcg_sel_lanes(m)
    return lanes > 0 and n >= lanes


cdef inline bint _select_top_ndcg(const floating* scores, const int64_t* keys, const ConventionPlan* c,
                                  Py_ssize_t n, Py_ssize_t m, RankedDoc* out, bint screen) noexcept nogil:
    """select_top (_rank.pxd), with the AVX2 path for float64 scores ranked as
    given and ties in input order (out has room for n + 1 entries). With
    ``screen`` (AVX2 path only) the scores are screened in the same pass
    (_score_screen.pxi's rule, the limit c.score_limit): True when a score is
    flagged, and then nothing is selected."""
    cdef double ts[2 * SELECT_TOP_MAX]       # the AVX2 path ranks up to 64 candidates in place
    cdef int64_t ti[2 * SELECT_TOP_MAX]
    cdef Py_ssize_t r
    cdef uint64_t limit_bits
    if floating is double:
        if _fast_top_applies(True, keys, c, n, m):
            memcpy(&limit_bits, &c.score_limit, sizeof(double))
            # out's 24 (n + 1) bytes hold the candidate scores and positions (16 n)
            if fastndcg_top_f64_avx2(scores, n, m, fastndcg_sel_lanes(m), <double*>out, (<int64_t*>out) + n,
                                     ts, ti, screen, limit_bits):
                return True
            for r in range(m):
                out[r].score = ts[r]
                out[r].idx = ti[r]
                out[r].key = ti[r]
            return False
    select_top(scores, keys, c.key_desc, c.round_f32, n, m, out)
    return False


cdef inline bint _fused_labels_ok(const ConventionPlan* c, bint fuse_ideal, bint check_labels) noexcept nogil:
    # The one-pass label screen and count (AVX2) applies: a fused first call that
    # checks int32 labels, with the counting ideal by label value and no holes.
    return (fuse_ideal and check_labels and c.count_size >= 8 and c.levels == NULL and not c.table_holes
            and fastndcg_sel_get_level() == 1)


cdef inline int _screen_count_i32(const int32_t* lab, Py_ssize_t n, const ConventionPlan* c, int64_t* cnt8,
                                  Py_ssize_t* top) noexcept nogil:
    """The label screen of _label_problem and the counts of labels 0..7 in one
    pass: 1 when a label is invalid, else 0 with *top the bound of
    _label_problem (the smallest 2**b - 1 >= every label)."""
    cdef uint64_t ulimit = <uint64_t>c.label_limit if c.label_limit < 2147483647.0 else <uint64_t>2147483647
    cdef uint32_t orv = 0
    cdef uint64_t o
    if fastndcg_screen_count_i32_avx2(lab, n, <uint32_t>ulimit, &orv, cnt8) != 0:
        return 1
    o = orv
    while o & (o + 1):
        o |= o >> 1
    top[0] = <Py_ssize_t>o
    return 0
