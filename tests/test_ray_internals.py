"""Every private Ray name the suite relies on still exists in the installed Ray (no Ray started)."""

from __future__ import annotations

import importlib
import inspect
import logging
import re

import pytest

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


def test_every_user_of_a_private_name_is_listed():
    """The modules named in PRIVATE_NAMES really use the name (the inventory is not stale)."""
    for (_, name), user in PRIVATE_NAMES.items():
        source = inspect.getsource(importlib.import_module(user))
        assert name in source, f"{user} no longer uses {name}: drop it from PRIVATE_NAMES"


def test_warns_once_for_another_ray_version(monkeypatch, caplog):
    import ray

    monkeypatch.setattr(ray, "__version__", CHECKED_RAY_VERSION)
    assert warn_if_unchecked_ray() is False
    monkeypatch.setattr(ray, "__version__", "9.9.9")
    with caplog.at_level(logging.WARNING):
        assert warn_if_unchecked_ray() is True
    assert len(caplog.records) == 1 and "ray 9.9.9" in caplog.records[0].getMessage()
