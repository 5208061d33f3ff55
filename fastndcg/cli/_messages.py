"""Library errors as the command line says them: the Python arguments an error names
(:class:`fastndcg._core.arguments.NamedArgumentError`) become the options that set them,
from one table."""
from __future__ import annotations
from typing import Dict, Optional, Tuple

from fastndcg._core.arguments import NamedArgumentError, python_setting

#: (Python argument, value as Python source or None for the argument alone) -> what the
#: command line gives for it
OPTION_OF_SETTING: Dict[Tuple[str, Optional[str]], str] = {
    ("missing", "'zero'"): "--missing zero (-c)",
    ("missing", "'skip'"): "--missing skip",
    ("column", "N"): "--pred-column N",
    ("prediction_column", "N"): "--pred-column N",
    ("qid_order", "'any'"): "--qid-order any",
    ("qid_order", "'sorted'"): "--qid-order sorted",
    ("group", None): "--group",
    ("group", "<.query/.group file>"): "--group FILE",
    ("gains", None): "--gain",
    ("max_docs", None): "-M",
    ("n_threads", None): "--threads",
    ("n_threads", "None"): "no --threads",
}


def option_of(argument: str, value: Optional[str]) -> str:
    """The command line's spelling of a setting; Python's for one the table lacks
    (a test runs every library error through the command line)."""
    return OPTION_OF_SETTING.get((argument, value)) or python_setting(argument, value)


def error_message(exc: BaseException) -> str:
    """``str(exc)`` with the settings of the :class:`NamedArgumentError` it is or wraps
    (a wrapper that adds a prefix keeps the original as its cause or context)
    spelled as options."""
    seen = set()
    inner: Optional[BaseException] = exc
    while inner is not None and id(inner) not in seen:
        seen.add(id(inner))
        if isinstance(inner, NamedArgumentError) and inner.settings:
            return str(exc).replace(str(inner), inner.render(option_of))
        inner = inner.__cause__ or inner.__context__
    return str(exc)
