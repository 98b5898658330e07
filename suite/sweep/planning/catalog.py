"""Find sweeps: by name, one module per sweep in the top-level ``sweeps`` package, or by the path
of a Python file anywhere (a user's own sweep, kept in their own repository)."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from pathlib import Path

import sweeps
from suite.configs.registry import unknown_name_error
from suite.sweep.spec import Sweep, SweepError


def sweep_names() -> list[str]:
    return sorted(module.name for module in pkgutil.iter_modules(sweeps.__path__))


def is_sweep_path(name: str) -> bool:
    return name.endswith(".py") or "/" in name


def load_sweep(name: str) -> Sweep:
    """``name``: a sweep of this package (see ``--list``) or a path to a ``.py`` file that
    defines ``SWEEP = Sweep(...)``; either is validated the same way."""
    if is_sweep_path(name):
        return _sweep_of(_module_from_file(Path(name)), name)
    names = sweep_names()
    if name not in names:
        raise unknown_name_error("sweep", name, names)
    return _sweep_of(importlib.import_module(f"sweeps.{name}"), f"sweeps/{name}.py")


def _module_from_file(path: Path):
    if not path.is_file():
        raise SweepError(f"sweep file {path} does not exist; pass a .py file that defines SWEEP")
    spec = importlib.util.spec_from_file_location(f"user_sweep_{path.stem}", path)
    if spec is None or spec.loader is None or path.suffix != ".py":
        raise SweepError(f"{path} is not a Python file; a sweep file is a .py defining SWEEP")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sweep_of(module, where: str) -> Sweep:
    sweep = getattr(module, "SWEEP", None)
    if not isinstance(sweep, Sweep):
        raise SweepError(f"{where} must define SWEEP = Sweep(...) (see sweeps/cartpole_nk.py)")
    return sweep
