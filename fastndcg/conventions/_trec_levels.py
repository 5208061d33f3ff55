"""trec_eval's gain levels as data: what the engine and the reference both read.

trec_eval gives each retrieved document a level: its judgment when that is >= 0,
:data:`LEVEL_UNJUDGED` when it is not in the qrels, :data:`LEVEL_NEGATIVE` when it
is judged below 0. Custom gains (``ndcg.L=G``) are sorted by trec_eval's
comparator ``(int)(g1 - g2)`` (x86-64: the difference truncated toward zero,
:data:`C_INT_MIN` when NaN or outside the int range) with glibc's ``qsort``
(a top-down merge sort whose first half holds ``n // 2`` entries and whose merge
takes the left entry on ``<= 0``). The ideal walks over the sorted entries are
those of ``m_ndcg.c`` and ``m_ndcg_p.c``.

The engine (:mod:`fastndcg.measures._trec_gain_levels`) and the pure-Python
reference (:mod:`fastndcg.reference._trec_gains`) each implement the rules from
these constants on their own, so that the differential tests compare two
implementations.
"""
from __future__ import annotations

#: trec_eval's level of a retrieved document that is not in the qrels (RELVALUE_NONPOOL).
LEVEL_UNJUDGED = -1
#: trec_eval's level of a retrieved document judged below 0 (RELVALUE_UNJUDGED).
LEVEL_NEGATIVE = -2
#: ``(int)`` of a double that is NaN or outside the 32-bit int range on x86-64 (``cvttsd2si``).
C_INT_MIN = -2 ** 31
#: The open interval of doubles whose ``(int)`` cast is exact (truncated toward zero).
C_INT_RANGE = (-2147483649.0, 2147483648.0)
#: glibc ``qsort``'s split: the first half of n items holds ``n // QSORT_SPLIT``.
QSORT_SPLIT = 2
