"""What the LightGBM and XGBoost integrations read alike: the libraries' boolean
parameters and the names of a custom NDCG metric."""
from __future__ import annotations

from typing import Any


def library_bool(value: Any, name: str) -> bool:
    """A boolean parameter of LightGBM or XGBoost, given as a bool, a number or
    a string ("true"/"false", "1"/"0", "yes"/"no", "+"/"-"); any other string
    is an error, not a silent False."""
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "1", "yes", "+"):
            return True
        if low in ("false", "0", "no", "-"):
            return False
        raise ValueError(f"{name} must be a boolean; got {value!r}")
    return bool(value)


def metric_name_prefix(name: Any, convention: Any, builtin: Any, library: str) -> str:
    """The prefix of a custom NDCG metric's names, ``f"{prefix}@{k}"``.

    None gives ``f"ndcg[{convention.name}]"``, which no built-in metric uses.
    ``"ndcg"`` gives the built-in's own names (``ndcg@10``), so it must give
    the built-in's numbers: it needs ``builtin``'s convention (any gain, as
    the library's ``label_gain`` / ``ndcg_exp_gain`` choose one).
    """
    if name is None:
        return f"ndcg[{convention.name}]"
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str or None; got {name!r}")
    if "@" in name:
        raise ValueError(f"name is the prefix of the metric names f'{{name}}@{{k}}' (one per cutoff k); "
                         f"got name={name!r}: pass name='{name.split('@')[0]}' and k")
    if name == "ndcg" and convention.replace(gain=builtin.gain, name=builtin.name) != builtin:
        raise ValueError(f"name='ndcg' gives {library}'s own metric names (ndcg@k), so it needs {library}'s "
                         f"ndcg: convention={builtin.name!r} (any gain); got convention {convention.name!r}. "
                         "Pass another name")
    return name


__all__ = ["library_bool", "metric_name_prefix"]
