"""Pure-Python reference implementation of fastndcg: the readable spec.

Plain Python, one query at a time, written for clarity; every compiled kernel
is tested against it, and nothing here imports compiled code. The NDCG
definitions (gain, discount, ties, ideal, short and empty queries, the mean)
are in :mod:`fastndcg.reference._ndcg`; LambdaMART, SoftNDCG, RankDCG and
trec_eval's custom gains and measures have their own spec modules. This
package is their public face (``fastndcg.reference.ndcg`` is the spec of ``fastndcg.ndcg``).
"""
from fastndcg.reference._ndcg import (FULL_LIST, dcg, discount_of, float32_score, gain_of,
                                     ideal_dcg, mean_ndcg, ndcg, query_dcg, query_ideal_dcg,
                                     query_ndcg_from, ranked_gains)
from fastndcg.reference._softrank import (query_soft_dcg, rank_distribution, soft_ndcg,
                                        soft_ndcg_grad, soft_ndcg_grad_hess, soft_rank_distributions)
from fastndcg.reference._rankdcg import query_rankdcg, rankdcg
from fastndcg.reference._lambdamart_batches import delta_ndcg_pairs, lambda_gradients
from fastndcg.reference._trec_gains import (trec_gain_entries, trec_gain_ndcg,
                                          trec_gain_topic_ndcg, trec_ideal_gains, trec_level_gain)

__all__ = ["FULL_LIST", "dcg", "discount_of", "float32_score", "gain_of", "ideal_dcg", "mean_ndcg", "ndcg", "query_dcg",
           "query_ideal_dcg", "query_ndcg_from", "ranked_gains",
           "query_soft_dcg", "rank_distribution", "soft_ndcg", "soft_ndcg_grad", "soft_ndcg_grad_hess",
           "soft_rank_distributions", "query_rankdcg", "rankdcg", "delta_ndcg_pairs", "lambda_gradients",
           "trec_gain_entries", "trec_gain_ndcg", "trec_gain_topic_ndcg", "trec_ideal_gains", "trec_level_gain"]
