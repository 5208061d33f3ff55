"""Checks of the scalar arguments every measure and objective takes (LambdaMART, its
debiased variants and SoftNDCG): one place, one message per rule, naming the argument
and the value. Pure Python. The readers of LightGBM's and XGBoost's training data are
in ``fastndcg/integrations/`` (``_lightgbm_data.py``, ``_xgboost_data.py``)."""
from __future__ import annotations

import warnings

import math
import numbers
import contextlib
import os
import sys
import types
from typing import Any, Callable, Iterable, Optional, Tuple

import numpy as np


_REAL = (numbers.Real, np.floating, np.integer)
_INTEGRAL = (numbers.Integral, np.integer)
_BOOL = (bool, np.bool_)

#: One setting an error message names: (Python argument, the value as Python
#: source, e.g. ``"'zero'"``; None for the argument alone).
Setting = Tuple[str, Optional[str]]


def python_setting(argument: str, value: Optional[str]) -> str:
    """A setting as Python code spells it: ``missing='zero'``, or the bare argument."""
    return argument if value is None else f"{argument}={value}"


def literal(text: Any) -> str:
    """``text`` for a :class:`NamedArgumentError` template: braces doubled so that
    formatting leaves them as they are (a path or an id may hold one)."""
    return str(text).replace("{", "{{").replace("}", "}}")


class NamedArgumentError(ValueError):
    """A ValueError whose message names Python arguments, kept apart from the text.

    ``template`` is the message with ``{0}``, ``{1}``, ... where it names a
    setting; ``settings`` are those settings (:data:`Setting`). The message
    (``str(exc)``) spells them as Python does (``missing='zero'``); a front end
    with other names for them (the command line's options) spells them its own
    way with :meth:`render`. Re-raised wrappers (``type(exc)(message)``) have
    the plain message as template and no settings.
    """

    def __init__(self, template: str, settings: Iterable[Setting] = ()):
        self.template = template
        self.settings: Tuple[Setting, ...] = tuple(settings)
        super().__init__(self.render(python_setting))

    def render(self, spell: Callable[[str, Optional[str]], str]) -> str:
        """The message with each setting spelled by ``spell(argument, value)``."""
        if not self.settings:
            return self.template
        return self.template.format(*(spell(argument, value) for argument, value in self.settings))


def check_max_docs(max_docs: Any) -> Optional[int]:
    """trec_eval's ``-M``: None or an integer >= 1 (the one check of it)."""
    if max_docs is None:
        return None
    if isinstance(max_docs, (bool, np.bool_)) or not isinstance(max_docs, numbers.Real) \
            or not math.isfinite(float(max_docs)) or not float(max_docs).is_integer() or max_docs < 1:
        raise NamedArgumentError("{0} must be an integer >= 1; got " + literal(repr(max_docs)), [("max_docs", None)])
    return int(max_docs) if isinstance(max_docs, numbers.Integral) else int(float(max_docs))


def check_flag(value: Any, name: str) -> bool:
    """True or False (numpy bools too); anything else is a TypeError."""
    if not isinstance(value, _BOOL):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def check_real(value: Any, name: str, *, positive: bool = False, invertible: bool = False) -> float:
    """A finite float >= 0; > 0 with ``positive``; with ``invertible`` also
    1 / value finite (no subnormal: the kernels divide by it)."""
    if isinstance(value, _BOOL) or not isinstance(value, _REAL):
        raise TypeError(f"{name} must be a real number; got {type(value).__name__} {value!r}")
    x = float(value)
    bound = "> 0" if positive or invertible else ">= 0"
    if not math.isfinite(x) or x < 0 or ((positive or invertible) and x == 0):
        raise ValueError(f"{name} must be finite and {bound}; got {name}={value!r}")
    if invertible and not math.isfinite(1.0 / x):
        raise ValueError(f"{name} must be finite and {bound}, and not subnormal (1/{name} overflows); "
                         f"got {name}={value!r}")
    return x


def check_count(value: Any, name: str, *, optional: bool = False) -> Optional[int]:
    """An int >= 1 (None allowed with ``optional``)."""
    if value is None and optional:
        return None
    what = "None or an int >= 1" if optional else "an int >= 1"
    if isinstance(value, _BOOL) or not isinstance(value, _INTEGRAL):
        raise TypeError(f"{name} must be {what}; got {type(value).__name__} {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be {what}; got {name}={int(value)}")
    return int(value)


#: The package's folder: warnings point at the first frame outside it (the caller's line).
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def caller_stacklevel() -> int:
    """The ``stacklevel`` with which the function calling this, warning, points at the first
    frame outside fastndcg (and outside contextlib's ``with`` machinery): the user's line,
    however deep in the package the warning is raised (``fastndcg.evaluate`` -> ... -> a
    kernel's check)."""
    frame: Optional[types.FrameType] = sys._getframe(1)
    level = 1
    while frame is not None and (frame.f_code.co_filename.startswith(_PACKAGE_DIR)
                                 or frame.f_code.co_filename == contextlib.__file__):
        frame = frame.f_back
        level += 1
    return level


def renamed_argument(old: str, old_value: Any, new: str, new_value: Any, default: Any) -> Any:
    """The value of an argument that was renamed (``old=`` is deprecated for ``new=``): ``old_value``
    with a DeprecationWarning when only it is given, ``new_value`` (or ``default``) otherwise; both
    given is a ValueError naming them."""
    if old_value is None:
        return default if new_value is None else new_value
    if new_value is not None:
        raise ValueError(f"give {new}= only ({old}= is its old spelling, deprecated); got both")
    warnings.warn(f"{old}= is deprecated: use {new}= (the same values)", DeprecationWarning,
                  stacklevel=caller_stacklevel())
    return old_value
