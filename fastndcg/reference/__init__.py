"""Pure-Python reference implementation of fastndcg: the readable spec.

Everything here is plain Python (numpy only for array conversion), written for
clarity, one query at a time. Every compiled kernel is tested against it.
No compiled fastndcg module is imported here.

Definitions, for one query with documents i = 1..n, label l_i and score s_i:

* G(l) is the gain, D(r) the discount of 1-based rank r.
* The ranking sorts documents by score descending; equal scores are ordered
  by the convention's tie rule (see :func:`ranked_gains`).
* DCG@k = sum_{r <= min(k, n)} G(l_pi(r)) D(r).
* IDCG@k = the same sum over the ideal order (gains sorted descending), over
  min(k, n_ideal) ranks when the ideal is cut, or over all n_ideal ranks when not.
* NDCG@k = DCG@k / IDCG@k, with the convention's rules for n < k (short) and
  IDCG = 0 (empty).
"""
from fastndcg.reference._ndcg import (FULL_LIST, dcg, discount_of, float32_score, gain_of,  # noqa: F401
                                     ideal_dcg, mean_ndcg, ndcg, query_dcg, query_ideal_dcg,
                                     query_ndcg_from, ranked_gains)
# LambdaMART, SoftNDCG, RankDCG and trec_eval's custom gains have their own spec modules.
from fastndcg.reference._softrank import (query_soft_dcg, rank_distribution, soft_ndcg,  # noqa: F401
                                        soft_ndcg_grad, soft_ndcg_grad_hess, soft_rank_distributions)
from fastndcg.reference._rankdcg import query_rankdcg, rankdcg  # noqa: F401
from fastndcg.reference._lambdamart import delta_ndcg_pairs, lambda_gradients  # noqa: F401
from fastndcg.reference._trec_gains import (trec_gain_entries, trec_gain_ndcg,  # noqa: F401
                                          trec_gain_topic_ndcg, trec_ideal_gains, trec_level_gain)
