"""Pure-Python reference implementation of fastndcg: the readable spec.

Plain Python, one query at a time, written for clarity; every compiled kernel
is tested against it, and nothing here imports compiled code. The NDCG
definitions (gain, discount, ties, ideal, short and empty queries, the mean)
are in :mod:`fastndcg.reference._ndcg`; LambdaMART, SoftNDCG, RankDCG and
trec_eval's custom gains and measures have their own spec modules. This
package re-exports their functions.
"""
from fastndcg.reference._ndcg import (FULL_LIST, dcg, discount_of, float32_score, gain_of,  # noqa: F401
                                     ideal_dcg, mean_ndcg, ndcg, query_dcg, query_ideal_dcg,
                                     query_ndcg_from, ranked_gains)
# LambdaMART, SoftNDCG, RankDCG and trec_eval's custom gains have their own spec modules.
from fastndcg.reference._softrank import (query_soft_dcg, rank_distribution, soft_ndcg,  # noqa: F401
                                        soft_ndcg_grad, soft_ndcg_grad_hess, soft_rank_distributions)
from fastndcg.reference._rankdcg import query_rankdcg, rankdcg  # noqa: F401
from fastndcg.reference._lambdamart_batches import delta_ndcg_pairs, lambda_gradients  # noqa: F401
from fastndcg.reference._trec_gains import (trec_gain_entries, trec_gain_ndcg,  # noqa: F401
                                          trec_gain_topic_ndcg, trec_ideal_gains, trec_level_gain)
