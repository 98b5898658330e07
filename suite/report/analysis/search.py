"""What a search run found, from ``search.json`` and the trials table: its trials read at exactly
its env steps, each suggestion's returns per phase, and the verdict from the held-out seeds
(``suite.stats.validation``). Nothing here imports Ray; ``presentation.search`` shows it, and
promoting a search's pick reads the same verdict."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from suite.report.analysis import budget
from suite.stats.objective import RETURN, seed_value
from suite.stats.validation import Validation, validate
from suite.store.reader import RunData
from suite.store.schema import INCUMBENT, TrialStatus

TOO_SLOW = "too slow"


def suggestion_name(suggestion: int, config: str) -> str:
    return (
        f"{config} (the config itself)" if suggestion == INCUMBENT else f"suggestion {suggestion}"
    )


def search_trials(run: RunData) -> pd.DataFrame:
    """A search's trials read at exactly its env steps, the one reading every part of a search's
    page and its promotion use: a trial stopped short (the budget's time cap) has no return
    there, so it is not a seed of the verdict, and the verdict never moves to fewer steps."""
    steps = float(run.search["schedule"]["env_steps"])
    return budget.with_budget_metrics(run.trials, run.iterations, steps, exact=True)


def objective(record: dict) -> str:
    """What the search scored and validated by (a store written before the choice: return)."""
    return record["schedule"].get("objective", RETURN)


def objective_values(trials: pd.DataFrame, name: str) -> pd.Series:
    """Each trial's value under objective ``name``, read at the budget (NaN: no return there)."""
    values = [
        seed_value(name, r, s)
        for r, s in zip(
            trials["return_at_budget"], trials["seconds_to_threshold_at_budget"], strict=True
        )
    ]
    return pd.Series(values, index=trials.index, dtype=float)


def phase_scores(trials: pd.DataFrame, phase: str, name: str = RETURN) -> dict[int, np.ndarray]:
    """Suggestion id -> the finished trials' values at the budget in ``phase``, under objective
    ``name``."""
    values = objective_values(trials, name)
    done = trials[(trials["phase"] == phase) & values.notna()].assign(value=values)
    return {
        int(sid): np.sort(group["value"].to_numpy(float))
        for sid, group in done.groupby("suggestion", sort=True)
    }


def validation(record: dict, trials: pd.DataFrame) -> Validation | None:
    """The verdict, under the search's objective; None when the config itself or every
    suggestion lacks held-out values."""
    scores = phase_scores(trials, "validation", objective(record))
    if INCUMBENT not in scores or len(scores) < 2:
        return None
    config = record["config"]
    named = {suggestion_name(sid, config): values for sid, values in scores.items()}
    return validate(named, suggestion_name(INCUMBENT, config), record["schedule"]["alpha"])


def held_out_runs(trials: pd.DataFrame, config: str) -> dict[str, int]:
    """Validated name -> its held-out trials that ran, scored or not."""
    held_out = trials[trials["phase"] == "validation"]
    return {
        suggestion_name(int(sid), config): len(group)
        for sid, group in held_out.groupby("suggestion", sort=True)
    }


def short_of_budget(trials: pd.DataFrame) -> tuple[int, int]:
    """(finished held-out trials without a return at the budget, finished held-out trials): the
    first stopped before the search's env steps, so they are not seeds of the verdict."""
    finished = trials["status"] == TrialStatus.FINISHED
    held_out = trials[(trials["phase"] == "validation") & finished]
    return int(held_out["return_at_budget"].isna().sum()), len(held_out)


def held_out_wall(trials: pd.DataFrame, config: str) -> dict[str, np.ndarray]:
    """Validated name -> the wall seconds of its held-out trials that ran to their end: what
    validating it cost (a suggestion cut for time in the search ran these uncapped)."""
    finished = trials["status"] == TrialStatus.FINISHED
    held_out = trials[(trials["phase"] == "validation") & finished]
    return {
        suggestion_name(int(sid), config): np.sort(group["wall_time_s"].to_numpy(float))
        for sid, group in held_out.groupby("suggestion", sort=True)
    }


@dataclass(frozen=True)
class CutForTime:
    """A suggestion whose search trials the budget's time cap stopped before its env steps,
    read where its seeds got to."""

    suggestion: int
    env_steps: float  # where it is read: the fewest env steps a seed reached
    seeds_env_steps: np.ndarray  # each seed's env steps when the cap stopped it
    returns: np.ndarray  # each seed's return at ``env_steps`` (NaN: no episode had ended)
    seconds: np.ndarray  # each seed's wall seconds at its end
    max_trial_s: float | None  # the budget's cap per search trial (None: not recorded)

    @property
    def mean_return(self) -> float:
        known = self.returns[~np.isnan(self.returns)]
        return float(known.mean()) if known.size else math.nan


def cut_for_time(run: RunData) -> list[CutForTime]:
    """Every "too slow" suggestion read off its search trials' curves at the fewest env steps
    its seeds reached: the stores written before the search scored them there say it too."""
    record = run.search
    cap = record["schedule"].get("max_trial_s")
    slow = [s["id"] for s in record["suggestions"] if s["status"] == TOO_SLOW]
    trials = run.trials[(run.trials["phase"] == "search") & run.trials["suggestion"].isin(slow)]
    cut = []
    for sid, group in trials.groupby("suggestion", sort=True):
        group = group.sort_values("seed")
        at = float(group["env_steps"].min())
        read = budget.with_budget_metrics(group, run.iterations, at, exact=True)
        cut.append(
            CutForTime(
                suggestion=int(sid),
                env_steps=at,
                seeds_env_steps=group["env_steps"].to_numpy(float),
                returns=read["return_at_budget"].to_numpy(float),
                seconds=group["wall_time_s"].to_numpy(float),
                max_trial_s=cap,
            )
        )
    return cut
