# The integer codes by which Python hands a resolved convention (and a
# LambdaMART mode) to the kernels, and by which the kernels report a bad row:
# the one Cython copy, cimported by every kernel module. Python's copy is in
# fastndcg/_core/resolve.py (TIE_CODES, DISCOUNT_CODES, MODE_CODES) and
# fastndcg/_core/score_checks.py and query_checks.py (problem codes, flags); tests/test_architecture.py
# checks that they agree.

# Tie rules (resolve.TIE_CODES): how equal scores are ordered.
cdef enum:
    TIES_INPUT = 0      # stable, by key, worst or best (a gain-rank key): the comparator decides
    TIES_AVERAGE = 1

# Built-in discounts (resolve.DISCOUNT_CODES).
cdef enum:
    DISCOUNT_LOG2 = 0        # 1 / log2(r + 1)
    DISCOUNT_LETOR = 1       # 1 for r <= 2, then 1 / log2(r)
    DISCOUNT_RECIPROCAL = 2  # 1 / r

# LambdaMART numeric modes (resolve.MODE_CODES).
cdef enum:
    MODE_DEFAULT = 0
    MODE_LIGHTGBM = 1
    MODE_XGBOOST = 2

# A row's problem (score_checks.py: SCORE_*; query_checks.py: LABEL_*), found by the kernels' checks.
cdef enum:
    PROBLEM_NONE = 0
    SCORE_NOT_FINITE = 1
    SCORE_FLOAT32_OVERFLOW = 2
    LABEL_NEGATIVE = 3          # negative, NaN or infinite
    LABEL_NOT_INTEGER = 4
    LABEL_ABOVE_LIMIT = 5
    LABEL_OUTSIDE_TABLE = 6
    SCORE_FLOAT32_TO_INF = 7    # not an error: float32_overflow="inf" ranks the score as +-inf

# Per-query flags of the NDCG kernels (bits; score_checks.py: FLAG_*, query_checks.py: FLAG_LABELS).
cdef enum:
    FLAG_SCORES = 1
    FLAG_LABELS = 2
    FLAG_IDEAL_OVERFLOW = 4     # sums beyond DBL_MAX (huge gains or discounts)
    FLAG_DCG_OVERFLOW = 8
    FLAG_NDCG_OVERFLOW = 16     # DCG / IDCG: an ideal far smaller than the DCG
    FLAG_SCORES_TO_INF = 32     # not an error: float32_overflow="inf" made a score infinite

# What is wrong with an offsets array (_check.offsets_problem; query_checks.py: OFFSETS_*).
cdef enum:
    OFFSETS_OK = 0
    OFFSETS_FIRST_NOT_ZERO = 1
    OFFSETS_DECREASING = 2
    OFFSETS_END = 3
