"""The pure-Python reference of fastndcg: the readable spec of the public API, one query at a time.

Plain Python written for clarity, never for speed; every compiled kernel is tested against it, and
nothing here imports compiled code. Each name here is the spec of the public function of the same
name (``fastndcg.reference.ndcg`` of :func:`fastndcg.ndcg`; ``trec_gain_ndcg`` of trec_eval's
custom gains in :func:`fastndcg.evaluate`). The per-query definitions (gain, discount, ties, the
ideal list, short and empty queries, the mean) are in the private spec modules
(``fastndcg/reference/_ndcg.py``, ``_lambdamart_*.py``, ``_softrank.py``, ``_rankdcg.py``,
``_trec_gains.py``), which the tests import.

>>> import fastndcg
>>> from fastndcg import reference
>>> scores, labels, offsets = [3.0, 2.0, 1.0], [0, 1, 2], [0, 3]
>>> reference.ndcg(scores, labels, offsets, 3).round(6).tolist()
[0.586883]
>>> reference.ndcg(scores, labels, offsets, 3).tolist() == fastndcg.ndcg(scores, labels, offsets, 3).tolist()
True
"""
from fastndcg.reference._lambdamart_batches import delta_ndcg_pairs, lambda_gradients
from fastndcg.reference._ndcg import dcg, ideal_dcg, mean_ndcg, ndcg
from fastndcg.reference._rankdcg import rankdcg
from fastndcg.reference._softrank import soft_ndcg, soft_ndcg_grad
from fastndcg.reference._trec_gains import trec_gain_ndcg

__all__ = ["ndcg", "mean_ndcg", "dcg", "ideal_dcg", "lambda_gradients", "delta_ndcg_pairs",
           "soft_ndcg", "soft_ndcg_grad", "rankdcg", "trec_gain_ndcg"]
