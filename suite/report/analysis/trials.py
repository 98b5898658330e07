"""The trials table as every section reads it: in canonical order, read at the common budget,
with each learner's updates and each trial's run order and batch sizes, and, of a race, the
trials of its last rung.

Start times and batch sizes come from each trial's folder in the store
(``trials/<id>/timing.json`` and ``config.json``); a trial without them has NaN there.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from suite.report.analysis import broadcast, budget, race
from suite.store.reader import RunData
from suite.store.schema import FINISHED

ORDER_TRACKING_RHO = 0.7  # |Spearman rho| of throughput vs run order that draws a warning
MIN_TRIALS_FOR_ORDER = 4


def in_canonical_order(run: RunData) -> RunData:
    """The run with its tables sorted by trial, iteration and learner: the same store gives the
    same page whatever order its rows were written in (curves, bootstraps and tables all follow
    row order)."""
    return replace(
        run,
        trials=_sorted(run.trials, ["trial_id"]),
        iterations=_sorted(run.iterations, ["trial_id", "iteration"]),
        learners=_sorted(run.learners, ["trial_id", "iteration", "learner"]),
    )


def _sorted(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    present = [column for column in columns if column in frame]
    return frame.sort_values(present, kind="stable").reset_index(drop=True)


def prepared_trials(run: RunData) -> pd.DataFrame:
    """The trials table plus the equal-budget columns and each trial's run order; of a race,
    the trials of its last rung (the race section shows the others)."""
    planned = race.final_env_steps(run.race) or budget.planned_env_steps(run.metadata)
    trials = race.final_trials(run.trials, run.race)
    trials = budget.with_budget_metrics(trials, run.iterations, planned)
    trials = broadcast.with_learner_updates(trials, run.iterations)
    details = trial_details(run.path, trials["trial_id"])
    return with_run_order(trials, details)


def trial_details(run_path: Path, trial_ids) -> pd.DataFrame:
    """trial_id -> started_at (epoch s), train batch, fragment length, num_epochs and
    minibatch_size (NaN: none, one minibatch per batch), from the trial folders."""
    rows = []
    for trial_id in trial_ids:
        folder = run_path / "trials" / str(trial_id)
        timing = _read_json(folder / "timing.json")
        config = _read_json(folder / "config.json").get("resolved_config", {})
        rows.append(
            {
                "trial_id": trial_id,
                "started_at": timing.get("started_at", math.nan),
                "train_batch": train_batch_per_learner(config),
                "fragment": config.get("rollout_fragment_length", math.nan),
                "num_epochs": config.get("num_epochs") or math.nan,
                "minibatch_size": config.get("minibatch_size") or math.nan,
            }
        )
    columns = ["trial_id", "started_at", "train_batch", "fragment", "num_epochs", "minibatch_size"]
    return pd.DataFrame(rows, columns=columns)


def train_batch_per_learner(config: dict) -> float:
    """RLlib's ``AlgorithmConfig.train_batch_size_per_learner``, from a stored config dict
    without RLlib: the setting itself (serialised as ``_train_batch_size_per_learner``), else
    ``train_batch_size`` split over the learners, as RLlib infers it."""
    per_learner = config.get("_train_batch_size_per_learner") or config.get(
        "train_batch_size_per_learner"
    )
    if per_learner:
        return float(per_learner)
    total = config.get("train_batch_size")
    return float(total // (config.get("num_learners") or 1)) if total else math.nan


def env_steps_per_batch(iterations: pd.DataFrame) -> pd.Series:
    """trial_id -> the env steps of the batches its buffer received, on average over the run (a
    batch can hold more than the train batch setting: RLlib fills it with whole rollout
    fragments from every env)."""
    last = iterations.sort_values(["trial_id", "iteration"]).groupby("trial_id").last()
    batches = last["buffer_batches_added_lifetime"].where(lambda v: v > 0)
    return (last["buffer_env_steps_added_lifetime"] / batches).dropna()


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


@dataclass(frozen=True)
class OrderDrift:
    """An env whose throughput rises or falls with run order (drift, warm caches)."""

    env: str
    rho: float  # Spearman's, of env steps/s against run order
    trials: int


def order_drift(trials: pd.DataFrame) -> list[OrderDrift]:
    """Per env, where |rho| reaches ``ORDER_TRACKING_RHO`` over its finished trials."""
    found = []
    for env, group in trials[trials["status"] == FINISHED].groupby("env", sort=True):
        pair = group[["run_order", "mean_env_steps_per_s"]].dropna()
        if len(pair) < MIN_TRIALS_FOR_ORDER or pair["mean_env_steps_per_s"].nunique() < 2:
            continue
        rho = stats.spearmanr(pair["run_order"], pair["mean_env_steps_per_s"]).statistic
        if abs(rho) >= ORDER_TRACKING_RHO:
            found.append(OrderDrift(env, rho, len(pair)))
    return found
