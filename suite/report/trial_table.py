"""The all-trials table: run order, start time, the settings that drive the rates, results.

Start times and batch sizes come from each trial's folder in the store
(``trials/<id>/timing.json`` and ``config.json``); a trial without them shows "n/a".
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from suite.report.cell import learners_text
from suite.report.presentation.formatting import fmt
from suite.store.schema import FINISHED

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
ORDER_TRACKING_RHO = 0.7  # |Spearman rho| of throughput vs run order that draws a warning
MIN_TRIALS_FOR_ORDER = 4


def trial_details(run_path: Path, trial_ids) -> pd.DataFrame:
    """trial_id -> started_at (epoch s), train batch, fragment length and num_epochs, from the
    trial folders."""
    rows = []
    for trial_id in trial_ids:
        folder = run_path / "trials" / str(trial_id)
        timing = _read_json(folder / "timing.json")
        config = _read_json(folder / "config.json").get("resolved_config", {})
        batch = config.get("train_batch_size_per_learner") or config.get("train_batch_size")
        rows.append(
            {
                "trial_id": trial_id,
                "started_at": timing.get("started_at", math.nan),
                "train_batch": batch if batch is not None else math.nan,
                "fragment": config.get("rollout_fragment_length", math.nan),
                "num_epochs": config.get("num_epochs") or math.nan,
            }
        )
    columns = ["trial_id", "started_at", "train_batch", "fragment", "num_epochs"]
    return pd.DataFrame(rows, columns=columns)


def _read_json(path: Path) -> dict:
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def with_run_order(trials: pd.DataFrame, details: pd.DataFrame) -> pd.DataFrame:
    """Add started_at and run_order (1 = first to start; by trial id where times are missing)."""
    merged = trials.merge(details, on="trial_id", how="left")
    order = merged.sort_values(["started_at", "trial_id"], na_position="last").index
    merged.loc[order, "run_order"] = np.arange(1, len(merged) + 1)
    return merged


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
    warnings = []
    for env, group in trials[trials["status"] == FINISHED].groupby("env", sort=True):
        pair = group[["run_order", "mean_env_steps_per_s"]].dropna()
        if len(pair) < MIN_TRIALS_FOR_ORDER or pair["mean_env_steps_per_s"].nunique() < 2:
            continue
        rho = stats.spearmanr(pair["run_order"], pair["mean_env_steps_per_s"]).statistic
        if abs(rho) >= ORDER_TRACKING_RHO:
            trend = "rises" if rho > 0 else "falls"
            warnings.append(
                f"{env}: throughput {trend} with run order (Spearman ρ = {rho:.2f} over "
                f"{len(pair)} trials), so differences in env steps/s between cells may be the "
                f"machine warming up or drifting rather than N or K. {advice}"
            )
    return warnings


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
