"""The headline API: its names and types (type checkers read this file) and, as the imports
below, the private module of each name, which ``fastndcg/__init__.py`` imports on first use
(``fastndcg/_core/faces.py``)."""
from fastndcg._core._openmp import openmp_enabled
from fastndcg._core.groups import offsets_from_group_sizes, offsets_from_qid
from fastndcg._core.prepared import NDCGScorer
from fastndcg._core.threads import effective_n_threads
from fastndcg.conventions._convention import Convention
from fastndcg.conventions._convention import PRESETS
from fastndcg.conventions._presets import get_preset, list_presets
from fastndcg.measures._evaluation import Evaluation, calc_aggregate, evaluate, iter_calc
from fastndcg.measures._lambdamart_functions import delta_ndcg_matrix, delta_ndcg_pairs, lambda_gradients
from fastndcg.measures._lambdamart_model import LambdaMART
from fastndcg.measures._measurement import Measurement, from_signature
from fastndcg.measures._measurement import measurement_for as measurement
from fastndcg.measures._ndcg import dcg, ideal_dcg, mean_ndcg, ndcg
from fastndcg.measures._rankdcg import rankdcg
from fastndcg.measures._softrank import soft_ndcg, soft_ndcg_grad
from fastndcg.report._compare_render import compare

__version__: str

# Each public name has one public path: the headline API here, the rest in its room's
# face (fastndcg.conventions, .measures, .io, .stream, .report, .integrations, .reference, .cli).
__all__ = [
    "Convention",
    "Evaluation",
    "LambdaMART",
    "Measurement",
    "NDCGScorer",
    "PRESETS",
    "calc_aggregate",
    "compare",
    "dcg",
    "delta_ndcg_matrix",
    "delta_ndcg_pairs",
    "effective_n_threads",
    "evaluate",
    "from_signature",
    "get_preset",
    "ideal_dcg",
    "iter_calc",
    "lambda_gradients",
    "list_presets",
    "measurement",
    "mean_ndcg",
    "ndcg",
    "offsets_from_group_sizes",
    "offsets_from_qid",
    "openmp_enabled",
    "rankdcg",
    "soft_ndcg",
    "soft_ndcg_grad",
]

