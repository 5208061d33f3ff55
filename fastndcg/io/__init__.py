"""File formats and data: SVMlight/LETOR and TREC readers (:mod:`.readers`, with
the compiled parser :mod:`._parse`), data frames and Parquet (:mod:`.frames`),
generated data sets (:mod:`.datasets`, :mod:`.example_files`). It never imports
the NDCG kernels."""
