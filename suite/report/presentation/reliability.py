"""The report's section on hangs: trials the stall watchdog stopped, and cells where RLlib 2.60's
aggregation wait had to be released by the deadlock guard (``analysis.reliability``), with what
that means."""

from __future__ import annotations

import math

import pandas as pd

from suite.configs.axes import trial_label
from suite.report.analysis.reliability import guard_releases, stalled_trials
from suite.store import schema

DEADLOCK_EXPLAINED = (
    "RLlib 2.60's learner makes every broadcast_interval-th update() call wait until its learner "
    "thread has trained broadcast_interval times since the last aggregation. A batch the "
    "circular buffer evicts before it was ever sampled is an update that never comes: once the "
    "learner thread has trained on everything left, it waits for the next batch, which only the "
    "waiting call could put, and the trial hangs for good. That needs more batches put inside one "
    "aggregation window than the buffer holds (roughly broadcast_interval > N with K = 1). The "
    "suite's deadlock guard ends such a wait once the learner thread has sat idle on an empty "
    "buffer for 0.5 s; what is trained and counted is unchanged. Each release is a place "
    "where plain RLlib 2.60 would have hung. benchmarks/repro/circular_buffer_deadlock.py "
    "reproduces it with plain RLlib."
)
PREDATES_GUARD_COUNTER = (
    "This store predates the deadlock guard's release counter, so releases are not known."
)


def reliability(trials: pd.DataFrame, metadata: dict, iterations: pd.DataFrame) -> dict:
    """Context for ``reliability.html.j2``."""
    guard_on = metadata.get("deadlock_guard")
    releases = guard_releases(iterations, trials)
    return {
        "explained": DEADLOCK_EXPLAINED,
        "guard_note": _guard_note(guard_on, metadata.get("stall_timeout_s")),
        "stalled": _stalled_trials(trials),
        "guard_cells": _guard_cells(releases),
        "unknown": PREDATES_GUARD_COUNTER if releases is None else "",
    }


def _guard_note(guard_on: bool | None, stall_timeout_s: float | None) -> str:
    if guard_on is None:
        guard = "This run predates the deadlock guard and the stall watchdog."
    elif guard_on:
        guard = "The deadlock guard was on."
    else:
        guard = "The deadlock guard was OFF (--no-deadlock-guard): RLlib's own behaviour."
    if guard_on is None:
        return guard
    limit = (
        f"{stall_timeout_s:g} s" if stall_timeout_s else "max(120 s, 20 × median iteration time)"
    )
    return f"{guard} Stall limit: {limit} without a result or new env steps."


def _stalled_trials(trials: pd.DataFrame) -> list[dict]:
    hit = stalled_trials(trials)
    rows = hit[[*schema.AXIS_COLUMNS, "status", "stalls", "error"]].to_dict("records")
    for row in rows:
        row["stalls"] = 0 if math.isnan(row["stalls"]) else int(row["stalls"])
        row["label"] = trial_label(row)
    return rows


def _guard_cells(releases: pd.DataFrame | None) -> list[dict]:
    if releases is None:
        return []
    fired = releases[releases["guard_releases"] > 0]
    return fired.rename(columns={"guard_trials": "trials", "guard_releases": "releases"}).to_dict(
        "records"
    )
