"""Turn one RLlib training result (as Tune hands it over) into rows of the results store."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from suite.store.schema import BUFFER_COLUMNS, ITERATION_COLUMNS, LEARNER_COLUMNS

NAN = float("nan")
BUFFER_RESULT_KEY = "suite_buffer"  # where BufferAccountingCallback puts its counters


def _get(result: Mapping[str, Any], *path: str) -> float:
    """The number at ``path``, or NaN when RLlib has not reported it (yet): never a silent 0."""
    node: Any = result
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return NAN
        node = node[key]
    try:
        return float(node)
    except (TypeError, ValueError):
        return NAN


def env_steps(result: Mapping[str, Any]) -> float:
    """Env steps sampled over the trial's lifetime (NaN before RLlib reports any)."""
    steps = _get(result, "env_runners", "num_env_steps_sampled_lifetime")
    return steps if not math.isnan(steps) else _get(result, "num_env_steps_sampled_lifetime")


def progress_values(result: Mapping[str, Any]) -> dict[str, float]:
    seconds = _get(result, "time_this_iter_s")
    sampled = _get(result, "env_runners", "num_env_steps_sampled")
    return {
        "iteration": int(result["training_iteration"]),
        "env_steps": env_steps(result),
        "wall_time_s": _get(result, "time_total_s"),
        "time_this_iter_s": seconds,
        "episode_return_mean": _get(result, "env_runners", "episode_return_mean"),
        "episode_return_min": _get(result, "env_runners", "episode_return_min"),
        "episode_return_max": _get(result, "env_runners", "episode_return_max"),
        "env_steps_per_s": sampled / seconds if seconds and seconds > 0 else NAN,
        "learner_update_s_mean": _get(
            result, "learners", "__all_modules__", "learner_thread_update_timer"
        ),
    }


def buffer_values(counters: Mapping[str, Any] | None, columns: Mapping[str, str]) -> dict:
    counters = counters or {}
    return {name: _get(counters, name) for name in columns}


def iteration_row(result: Mapping[str, Any], axes: Mapping[str, Any]) -> dict[str, Any]:
    """One ``iterations`` row: the trial's axes, its progress, and the summed buffer counters."""
    buffer = result.get(BUFFER_RESULT_KEY, {}).get("all")
    row = {**axes, **progress_values(result), **buffer_values(buffer, BUFFER_COLUMNS)}
    return {column: row.get(column, NAN) for column in ITERATION_COLUMNS}


def learner_rows(result: Mapping[str, Any], trial_id: str) -> list[dict[str, Any]]:
    """One ``learners`` row per learner, from the per-learner counters of the callback."""
    per_learner = result.get(BUFFER_RESULT_KEY, {}).get("per_learner", {})
    iteration = int(result["training_iteration"])
    rows = []
    for rank, counters in sorted(per_learner.items(), key=lambda item: int(item[0])):
        # ids last: buffer_values fills every LEARNER_COLUMNS name, ids included, with NaN
        row = buffer_values(counters, LEARNER_COLUMNS)
        row |= {"trial_id": trial_id, "iteration": iteration, "learner": int(rank)}
        rows.append({column: row.get(column, NAN) for column in LEARNER_COLUMNS})
    return rows
