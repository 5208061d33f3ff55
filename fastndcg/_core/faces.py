"""Public faces that import their modules on first use.

A room's public face (``fastndcg/<room>/__init__.py``) lists its names once, as the imports of
its stub ``__init__.pyi`` (which type checkers read); :func:`attach_stub` reads that stub and gives
the face a module ``__getattr__`` (PEP 562) that imports a name's private module when the name is
first used. ``import fastndcg`` then loads only what the headline API needs, not every module of
every room (the report room alone imports identify, statistics, Parquet and TREC streaming).
Thread-safe: the import system serialises imports, and a name is stored in the face's namespace
in one step (two threads store the same object).

A name that left a face stays usable for a while: a face passes ``deprecated={old name: (private
module, name there, replacement)}`` and the old name then still resolves, with a
:class:`DeprecationWarning` that names the replacement at every use (it is never stored in the
face, so every use warns, and it is in neither ``__all__`` nor ``dir()``).
"""
from __future__ import annotations

import ast
import importlib
import os
import sys
import warnings
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

#: ``{old name: (private module, name there, what to use instead)}``
Deprecated = Mapping[str, Tuple[str, str, str]]


def stub_names(package: str, init_file: str) -> Dict[str, Tuple[str, str]]:
    """``{public name: (private module, name there)}`` from the face's ``__init__.pyi``: its
    ``from <package>._x import a, b`` lines (the top level's: ``from fastndcg.<room>._x``)."""
    stub = os.path.splitext(init_file)[0] + ".pyi"
    try:
        with open(stub, encoding="utf-8") as f:
            tree = ast.parse(f.read(), stub)
    except FileNotFoundError:
        raise ImportError(f"{package}: its list of public names, {stub}, is missing: fastndcg was installed "
                          "without its .pyi files (reinstall it with pip)") from None
    table: Dict[str, Tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and _private_under(node.module, package):
            for alias in node.names:
                table[alias.asname or alias.name] = (node.module, alias.name)
    return table


def _private_under(module: str, package: str) -> bool:
    """``module`` is a private module inside ``package`` (a part of its path below it is ``_x``)."""
    return module.startswith(package + ".") and any(
        part.startswith("_") for part in module[len(package) + 1:].split("."))


def attach_stub(package: str, init_file: str, deprecated: Optional[Deprecated] = None
                ) -> Tuple[Callable[[str], Any], Callable[[], List[str]], List[str]]:
    """``(__getattr__, __dir__, __all__)`` of a lazy public face (see the module docstring);
    ``deprecated``: names that left the face, resolved with a warning naming their replacement."""
    table = stub_names(package, init_file)
    names = sorted(table)
    old_names = dict(deprecated or {})
    clash = sorted(set(old_names) & set(table))
    if clash:
        raise ImportError(f"{package}: {clash} are both public and deprecated")

    def __getattr__(name: str) -> Any:
        try:
            module, attr = table[name]
        except KeyError:
            if name in old_names:
                module, attr, replacement = old_names[name]
                warnings.warn(f"{package}.{name} is deprecated and will be removed: use {replacement}",
                              DeprecationWarning, stacklevel=2)
                return getattr(importlib.import_module(module), attr)
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module), attr)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> List[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__, names
