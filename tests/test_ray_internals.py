"""Every private Ray name the suite relies on still exists in the installed Ray, and only
suite/ray_internals.py touches them (no Ray started)."""

from __future__ import annotations

import ast
import importlib
import inspect
import logging
import re
from pathlib import Path

import pytest

from suite import ray_internals
from suite.ray_internals import CHECKED_RAY_VERSION, PRIVATE_NAMES, warn_if_unchecked_ray


def _owner(where: str):
    module_name, _, class_name = where.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name) if class_name else module


def _defines(owner, name: str) -> bool:
    """A module attribute, a class attribute, or an instance attribute the class's code sets."""
    if hasattr(owner, name):
        return True
    if not inspect.isclass(owner):
        return False
    sources = [inspect.getsource(klass) for klass in owner.__mro__ if klass is not object]
    setting = re.compile(rf"self\.{re.escape(name)}\s*(:[^=]+)?=[^=]")
    return any(setting.search(source) for source in sources)


@pytest.mark.parametrize(("where", "name"), sorted(PRIVATE_NAMES), ids=lambda v: str(v))
def test_private_name_still_exists(where, name):
    owner = _owner(where)
    assert _defines(owner, name), (
        f"ray no longer defines {where}.{name}, which {PRIVATE_NAMES[(where, name)]} relies on "
        f"(checked against ray {CHECKED_RAY_VERSION}): adapt that module"
    )


def test_the_check_fails_for_a_name_that_moved():
    assert not _defines(_owner("ray.rllib.algorithms.appo.utils:CircularBuffer"), "_no_such")


def test_every_accessor_uses_its_private_name():
    """The accessors named in PRIVATE_NAMES exist and really use the name (no stale entry)."""
    for (_, name), accessor in PRIVATE_NAMES.items():
        source = inspect.getsource(getattr(ray_internals, accessor))
        assert name in source, f"ray_internals.{accessor} no longer uses {name}"


SUITE = Path(__file__).resolve().parents[1] / "suite"
# Names the suite also uses for its own objects' state (``self._lock`` of its own classes).
OWN_STATE_NAMES = {"_lock", "_buffer", "_rng", "_offset", "_indices", "_rank"}


def private_touches(path: Path) -> list[str]:
    """Where a module touches one of Ray's private names itself instead of via ray_internals."""
    names = {name for _, name in PRIVATE_NAMES}
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in names:
            on_self = isinstance(node.value, ast.Name) and node.value.id == "self"
            if not on_self or node.attr not in OWN_STATE_NAMES:
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ray"):
            found += [f"{path.name}:{node.lineno} {a.name}" for a in node.names if a.name[0] == "_"]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") in _ATTR_CALLS:
            strings = [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
            found += [f"{path.name}:{node.lineno} {s!r}" for s in strings if s in names]
    return found


_ATTR_CALLS = {"getattr", "setattr", "hasattr", "delattr"}


def test_only_ray_internals_touches_private_names():
    touches = [
        touch
        for path in sorted(SUITE.rglob("*.py"))
        if path.name != "ray_internals.py"
        for touch in private_touches(path)
    ]
    assert not touches, f"use an accessor of suite/ray_internals.py instead: {touches}"


def test_the_scan_finds_a_direct_touch(tmp_path):
    module = tmp_path / "module.py"
    module.write_text(
        "from ray.rllib.algorithms.utils import _get_learner_bundles\n"
        "def f(learner, buffer):\n"
        "    self._trial_info = None\n"
        "    return learner._agg_event, getattr(buffer, '_NxK'), self._lock\n"
    )
    touches = private_touches(module)
    assert len(touches) == 4 and not any("_lock" in touch for touch in touches)


def test_warns_once_for_another_ray_version(monkeypatch, caplog):
    import ray

    monkeypatch.setattr(ray, "__version__", CHECKED_RAY_VERSION)
    assert warn_if_unchecked_ray() is False
    monkeypatch.setattr(ray, "__version__", "9.9.9")
    with caplog.at_level(logging.WARNING):
        assert warn_if_unchecked_ray() is True
    assert len(caplog.records) == 1 and "ray 9.9.9" in caplog.records[0].getMessage()
