"""Old import paths (before the package was split into rooms) keep working for
one release: ``import fastndcg.lightgbm`` gives :mod:`fastndcg.integrations.lightgbm`
with a DeprecationWarning that names the new path. One table, one finder."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import Optional, Sequence

#: old public module -> its room
MOVED = {
    "fastndcg.presets": "fastndcg.conventions.presets",
    "fastndcg.lambdamart": "fastndcg.measures.lambdamart",
    "fastndcg.debias": "fastndcg.measures.debias",
    "fastndcg.softrank": "fastndcg.measures.softrank",
    "fastndcg.rankdcg": "fastndcg.measures.rankdcg",
    "fastndcg.trec_gains": "fastndcg.measures.trec_gains",
    "fastndcg.trec_measures": "fastndcg.measures.trec_measures",
    "fastndcg.measure_strings": "fastndcg.measures.measure_strings",
    "fastndcg.evaluation": "fastndcg.measures.evaluation",
    "fastndcg.readers": "fastndcg.io.readers",
    "fastndcg.frames": "fastndcg.io.frames",
    "fastndcg.datasets": "fastndcg.io.datasets",
    "fastndcg.example_files": "fastndcg.io.example_files",
    "fastndcg.compare": "fastndcg.report.compare",
    "fastndcg.stats": "fastndcg.report.stats",
    "fastndcg.stream": "fastndcg.report.stream",
    "fastndcg.lightgbm": "fastndcg.integrations.lightgbm",
    "fastndcg.xgboost": "fastndcg.integrations.xgboost",
    "fastndcg.dask": "fastndcg.integrations.dask",
    "fastndcg.spark": "fastndcg.integrations.spark",
    "fastndcg.ir_measures_provider": "fastndcg.integrations.ir_measures",
}


def warn_moved(old: str, stacklevel: int = 3) -> None:
    warnings.warn(f"{old} moved to {MOVED[old]}; the old path works until fastndcg 0.3",
                  DeprecationWarning, stacklevel=stacklevel)


class _Alias(importlib.abc.Loader):
    def __init__(self, target: ModuleType) -> None:
        self.target = target
        self.spec = target.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.target

    def exec_module(self, module: ModuleType) -> None:
        # the import system set the alias spec on the shared module: restore it
        module.__spec__ = self.spec


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: Optional[ModuleType] = None) -> Optional[importlib.machinery.ModuleSpec]:
        new = MOVED.get(fullname)
        if new is None:
            return None
        warn_moved(fullname, stacklevel=4)
        module = importlib.import_module(new)
        loader = _Alias(module)
        return importlib.machinery.ModuleSpec(fullname, loader)


def install() -> None:
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
