"""Write a decided N and K into the config library as a promoted tuned config.

Whoever decided the cell passes its trial spec, what to expect from it and the evidence that
decided it: a run's verdict (``python -m suite.report RUN --promote``, ``suite.report.promotion``)
or any other judge, e.g. a search with held-out seeds. This module turns the spec into the
config's settings and writes ``promoted/<name>.json`` (``promoted.py``), which
``python -m suite.configs`` lists and a sweep can use by name.
"""

from __future__ import annotations

from pathlib import Path

from suite.configs.layers import ITERATION_SIZING_KEYS
from suite.configs.promoted import PromotedConfig, promoted_dir, write_promoted
from suite.configs.registry import TUNED_CONFIGS


def promote(
    spec: dict, *, env: str, sweep: str, expected: str, evidence: dict, name: str | None = None
) -> Path:
    """Promote the cell of ``spec`` (a trial's ``config.json`` "spec": its config name, axes and
    overrides), found by ``sweep`` on ``env``; the default name is ``<config>_<sweep>``."""
    promoted = PromotedConfig(
        name=name or f"{spec['config_name']}_{sweep}",
        base=spec["config_name"],
        env=env,
        settings=promoted_settings(spec),
        expected=expected,
        evidence=evidence,
    )
    return write_promoted(promoted, promoted_dir(), {t.name for t in TUNED_CONFIGS})


def promoted_settings(spec: dict) -> dict:
    """The cell's axes and the run's settings, without the seed and the iteration sizing (both
    belong to a run, not to a config)."""
    axes = {key: value for key, value in spec["axes"].items() if key != "seed"}
    overrides = {k: v for k, v in spec["overrides"].items() if k not in ITERATION_SIZING_KEYS}
    return axes | overrides
