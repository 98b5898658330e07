"""Write a decided N and K into the config library as a promoted tuned config.

Whoever decided the cell passes its trial spec, what to expect from it and the evidence that
decided it: a run's verdict (``python -m suite.report RUN --promote``, ``suite.report.promotion``)
or any other judge, e.g. a search with held-out seeds. This module turns the spec into the
config's settings and writes ``promoted/<name>.json`` (``promoted.py``), which
``python -m suite.configs`` lists and a sweep can use by name.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from suite.configs.layers import ITERATION_SIZING_KEYS
from suite.configs.promoted import PromotedConfig, promoted_dir, write_promoted
from suite.configs.registry import base_of, library_names


def promote(
    spec: dict, *, env: str, sweep: str, expected: str, evidence: dict, name: str | None = None
) -> Path:
    """Promote the cell of ``spec`` (a trial's ``config.json`` "spec": its config name, axes and
    overrides), found by ``sweep`` on ``env``; the default name is ``<config>_<sweep>``."""
    base, inherited = base_of(spec["config_name"])
    promoted = PromotedConfig(
        name=name or f"{spec['config_name']}_{sweep}",
        base=base,
        env=env,
        settings=inherited | promoted_settings(spec),
        expected=expected,
        evidence=evidence,
    )
    return write_promoted(promoted, promoted_dir(), library_names())


# Settings that size a run to its machine (a search shares 2 cores among its trials), not the
# config: a promoted config keeps the base config's own.
RUN_RESOURCE_KEYS = ("num_cpus_for_main_process", "num_cpus_per_learner", "num_cpus_per_env_runner")


def promoted_settings(spec: dict) -> dict:
    """The cell's axes, the run's settings and a search's suggestion, without the seed, the
    iteration sizing and the CPU shares (all belong to a run, not to a config)."""
    axes = {key: value for key, value in spec["axes"].items() if key != "seed"}
    dropped = (*ITERATION_SIZING_KEYS, *RUN_RESOURCE_KEYS)
    overrides = {k: v for k, v in spec["overrides"].items() if k not in dropped}
    return axes | overrides | dict(spec.get("searched") or {})


def provenance(metadata: dict) -> dict:
    """Where a promoted config's evidence was measured, from its run's ``run.json``."""
    return {
        "hardware": metadata.get("hardware"),
        "cluster": metadata.get("cluster"),
        "ray_version": (metadata.get("versions") or {}).get("ray"),
        "versions": metadata.get("versions"),
        "git_commit": metadata.get("git_commit"),
        "run_started_at": metadata.get("started_at"),
        "run_ended_at": metadata.get("ended_at"),
        "promoted_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
