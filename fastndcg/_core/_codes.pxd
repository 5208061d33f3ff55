# The integer codes by which Python hands a resolved convention (and a
# LambdaMART mode) to the kernels, and by which the kernels report a bad row:
# the one Cython copy, cimported by every kernel module. Python's copy is in
# fastndcg/_core/resolve.py (TIE_CODES, DISCOUNT_CODES, MODE_CODES) and
# fastndcg/_core/validation.py (the problem codes); tests/test_architecture.py
# checks that they agree.

# Tie rules (resolve.TIE_CODES): how equal scores are ordered.
cdef enum:
    TIES_INPUT = 0      # stable or by key: the comparator decides
    TIES_AVERAGE = 1
    TIES_WORST = 2
    TIES_BEST = 3

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

# A row's problem (validation.py: SCORE_*, LABEL_*), found by the kernels' checks.
cdef enum:
    PROBLEM_NONE = 0
    SCORE_NOT_FINITE = 1
    SCORE_FLOAT32_OVERFLOW = 2
    LABEL_NEGATIVE = 3          # negative, NaN or infinite
    LABEL_NOT_INTEGER = 4
    LABEL_ABOVE_LIMIT = 5
    LABEL_OUTSIDE_TABLE = 6
    SCORE_FLOAT32_TO_INF = 7    # not an error: float32_overflow="inf" ranks the score as +-inf
