"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
from fastndcg.measures._aligned import aligned_arrays, aligned_mean_ndcg, aligned_ndcg
from fastndcg.measures._debias import PositionBiasedLambdaMART, position_ids
from fastndcg.measures._evaluation import CalcResults, Metric, as_qrels, as_run, calc
from fastndcg.measures._lambdamart_checks import DEFAULT_TRUNCATION, MODES, DeltaNDCGPairs
from fastndcg.measures._measure_strings import (GAIN_MEASURES, NDCG_CUT_DEFAULTS, TREC_MEASURES, Measure,
                                                MeasureError, MeasureWarning, parse_measure, parse_measures)
from fastndcg.measures._measurement import FAMILIES, SignatureError, resolve_measurements
from fastndcg.measures._ndcg import ndcg_and_mean
from fastndcg.measures._rankdcg import rankdcg
from fastndcg.measures._trec_gain_resolution import GainQuirks, ResolvedGains, resolve_trec_gains
from fastndcg.measures._trec_gain_scoring import GainScorer, bogus_ranking
from fastndcg.measures._trec_gain_specs import (GainSpec, TrecGainQuirkWarning,
                                                as_gains, gain_rules, parse_gains, textbook_convention)
from fastndcg.measures._trec_measures import RULES, TrecResult, evaluate_trec

__all__ = [
    # LambdaMART (LambdaMART, lambda_gradients, delta_ndcg_pairs/matrix: top level)
    "DEFAULT_TRUNCATION", "MODES", "DeltaNDCGPairs",
    "PositionBiasedLambdaMART", "position_ids",
    # NDCG (ndcg, mean_ndcg, dcg, ideal_dcg, NDCGScorer: top level)
    "ndcg_and_mean",
    "rankdcg",
    # trec_eval's measures and custom gains; NDCG of a run joined with qrels (fastndcg.io.align_run)
    "aligned_arrays", "aligned_ndcg", "aligned_mean_ndcg",
    "RULES", "TrecResult", "evaluate_trec",
    "GainQuirks", "GainScorer", "GainSpec",
    "ResolvedGains", "TrecGainQuirkWarning", "as_gains", "bogus_ranking", "gain_rules", "parse_gains",
    "resolve_trec_gains", "textbook_convention",
    # measure strings and the measurement model (Measurement, from_signature, measurement: top level)
    "GAIN_MEASURES", "NDCG_CUT_DEFAULTS", "TREC_MEASURES", "Measure", "MeasureError", "MeasureWarning",
    "parse_measure", "parse_measures", "FAMILIES", "SignatureError", "resolve_measurements",
    # ir_measures-style evaluation (evaluate, calc_aggregate, iter_calc, Evaluation: top level)
    "CalcResults", "Metric", "as_qrels", "as_run", "calc",
]
