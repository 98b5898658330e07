"""The all-trials table: run order, start time, the settings that drive the rates, results,
and the warnings when throughput tracks run order (``analysis.trials``). A trial whose folder
lacks its start time or batch sizes shows "n/a".
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from suite.report.analysis.trials import order_drift
from suite.report.cell import learners_text
from suite.report.presentation.formatting import fmt

COLUMNS = [  # (column, header, shown below 900 px)
    ("run_order", "order", True),
    ("started", "started (UTC)", False),
    ("trial_id", "trial", False),
    ("env", "env", True),
    ("n", "N", True),
    ("k", "K", True),
    ("broadcast_interval", "broadcast interval", False),
    ("learners", "learners", False),
    ("seed", "seed", True),
    ("sampling", "env runners × envs, fragment", False),
    ("train_batch", "train batch", False),
    ("status", "status", True),
    ("env_steps", "env steps", False),
    ("wall_time_s", "seconds", False),
    ("return_at_budget", "return at budget", True),
    ("mean_env_steps_per_s", "env steps/s", True),
    ("drop_fraction", "drop", False),
    ("reuse", "reuse", False),
    ("error", "error", False),
]
STATUS_COLUMN = [column for column, _, _ in COLUMNS].index("status")


def order_warnings(trials: pd.DataFrame, shuffled: bool = False) -> list[str]:
    """Per env: warn when throughput rises or falls with run order (drift, warm caches).
    ``shuffled``: the run's trial order was shuffled, so drift spreads over the cells at random."""
    advice = (
        "The order was shuffled, so this drift lands on cells at random: run more seeds before "
        "reading throughput."
        if shuffled
        else "Shuffle trial order (the runner does from now on) and run more seeds before "
        "reading throughput."
    )
    return [
        f"{drift.env}: throughput {'rises' if drift.rho > 0 else 'falls'} with run order "
        f"(Spearman ρ = {drift.rho:.2f} over {drift.trials} trials), so differences in env "
        "steps/s between cells may be the machine warming up or drifting rather than N or K. "
        f"{advice}"
        for drift in order_drift(trials)
    ]


def order_note(metadata: dict) -> str:
    seed = metadata.get("trial_order_seed")
    if seed is None:
        return (
            "This run recorded no shuffled order (it predates the shuffle): its trials ran in "
            "grid order, so drift over the run lines up with the grid's axes."
        )
    return f"Trials ran in an order shuffled with seed {seed} (trial_order_seed in run.json)."


def rows(trials: pd.DataFrame) -> list[list[tuple[str, str]]]:
    """Cells as (display text, sort key) pairs so the inline JS sorts numerically."""
    table = trials.sort_values("run_order")
    out = []
    for record in table.to_dict("records"):
        values = _display_values(record)
        out.append([(fmt(values[name]), _sort_key(values[name])) for name, _, _ in COLUMNS])
    return out


def _display_values(record: dict) -> dict:
    started = record.get("started_at", math.nan)
    return record | {
        "run_order": int(record["run_order"]),
        "started": _clock(started),
        "learners": learners_text(record["num_learners"], record["num_gpus_per_learner"]),
        "sampling": f"{record['num_env_runners']:g} × {record['num_envs_per_env_runner']:g}, "
        f"{fmt(record.get('fragment', math.nan))}",
        "train_batch": record.get("train_batch", math.nan),
    }


def _clock(epoch: float) -> str:
    if epoch is None or (isinstance(epoch, float) and math.isnan(epoch)):
        return "n/a"
    return datetime.fromtimestamp(float(epoch), UTC).strftime("%H:%M:%S")


def _sort_key(value) -> str:
    if isinstance(value, int | float | np.number):
        return "" if math.isnan(value) else repr(float(value))
    return str(value)
