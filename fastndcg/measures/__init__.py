"""The measures: NDCG/DCG (:mod:`.ndcg`), LambdaMART gradients (:mod:`.lambdamart`,
:mod:`.debias`), SoftNDCG (:mod:`.softrank`), RankDCG (:mod:`.rankdcg`), and
trec_eval's measures and custom gains (:mod:`.trec_measures`, :mod:`.trec_gains`,
:mod:`.measure_strings`, :mod:`.evaluation`). Built on :mod:`fastndcg._core`."""
