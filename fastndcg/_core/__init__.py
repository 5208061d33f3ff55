"""The private core: the compiled kernels (``_*.pyx``, one ranking comparator in
``_rank.pxd``), the thread policy, the resolution of a convention into kernel
tables, validation, and the prepared queries every NDCG front-end runs on.
It imports only :mod:`fastndcg.conventions`; nothing here is public API."""
