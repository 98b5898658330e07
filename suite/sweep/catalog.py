"""Find sweeps by name: one module per sweep in the top-level ``sweeps`` package."""

from __future__ import annotations

import importlib
import pkgutil

import sweeps
from suite.configs.registry import unknown_name_error
from suite.sweep.spec import Sweep, SweepError


def sweep_names() -> list[str]:
    return sorted(module.name for module in pkgutil.iter_modules(sweeps.__path__))


def load_sweep(name: str) -> Sweep:
    names = sweep_names()
    if name not in names:
        raise unknown_name_error("sweep", name, names)
    sweep = getattr(importlib.import_module(f"sweeps.{name}"), "SWEEP", None)
    if not isinstance(sweep, Sweep):
        raise SweepError(f"sweeps/{name}.py must define SWEEP = Sweep(...)")
    return sweep
