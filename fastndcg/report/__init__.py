"""Evaluation over files and its reports: streaming evaluation of inputs larger
than memory (:mod:`.stream`), the comparison of conventions and systems
(:mod:`.compare`), which NDCG reproduces a reported value (:mod:`.identify`), statistics
(:mod:`.stats`) and number formatting (:mod:`.format`)."""
