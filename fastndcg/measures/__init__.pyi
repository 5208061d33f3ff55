"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
from fastndcg.measures._debias import PositionBiasedLambdaMART, position_ids
from fastndcg.measures._evaluation import Metric
from fastndcg.measures._lambdamart_checks import DeltaNDCGPairs
from fastndcg.measures._measure_strings import MeasureError, MeasureWarning, parse_measures
from fastndcg.measures._measurement import SignatureError
from fastndcg.measures._softrank import soft_rank_distributions
from fastndcg.measures._trec_gain_specs import TrecGainQuirkWarning

__all__ = [
    # LambdaMART beyond the top level's: debiased by position, and delta_ndcg_pairs' result type
    "PositionBiasedLambdaMART", "position_ids", "DeltaNDCGPairs",
    # SoftRank's rank distributions (soft_ndcg, soft_ndcg_grad: top level)
    "soft_rank_distributions",
    # measure strings (evaluate, calc_aggregate, iter_calc: top level) and their errors and warnings
    "parse_measures", "Metric", "MeasureError", "MeasureWarning", "SignatureError", "TrecGainQuirkWarning",
]
