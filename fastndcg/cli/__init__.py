"""The ``fastndcg`` command line (``python -m fastndcg``)."""
