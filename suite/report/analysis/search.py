"""What a search run found, from ``search.json`` and the trials table: its trials read at exactly
its env steps, each suggestion's returns per phase, and the verdict from the held-out seeds
(``suite.stats.validation``). Nothing here imports Ray; ``presentation.search`` shows it, and
promoting a search's pick reads the same verdict."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from suite.report.analysis import budget
from suite.stats.validation import Validation, validate
from suite.store.reader import RunData
from suite.store.schema import INCUMBENT, TrialStatus


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


def phase_scores(trials: pd.DataFrame, phase: str) -> dict[int, np.ndarray]:
    """Suggestion id -> the finished trials' returns at the budget in ``phase``."""
    done = trials[(trials["phase"] == phase) & trials["return_at_budget"].notna()]
    return {
        int(sid): np.sort(group["return_at_budget"].to_numpy(float))
        for sid, group in done.groupby("suggestion", sort=True)
    }


def validation(record: dict, trials: pd.DataFrame) -> Validation | None:
    """The verdict; None when the config itself or every suggestion lacks held-out returns."""
    scores = phase_scores(trials, "validation")
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


@dataclass(frozen=True)
class ShortGroup:
    """Trials of a search that stopped before its env steps, for one reason."""

    why: str  # the suggestion's status: "too slow" (its time cap), "stopped" (early stop), ...
    trials: int
    low: float  # the fewest env steps one of them reached
    high: float  # the most
    suggestions: tuple[int, ...]


@dataclass(frozen=True)
class BudgetReach:
    """How many of a search's trials reached its env steps (scored there) and which did not."""

    env_steps: float
    reached: int
    reached_low: float  # env steps the scored trials ran to (they overshoot the budget)
    reached_high: float
    short: tuple[ShortGroup, ...]

    @property
    def short_trials(self) -> int:
        return sum(group.trials for group in self.short)


def budget_reach(record: dict, trials: pd.DataFrame) -> BudgetReach:
    """``trials``: ``search_trials``; a trial that sampled fewer env steps stopped short."""
    steps = float(record["schedule"]["env_steps"])
    status = {int(s["id"]): s["status"] for s in record["suggestions"]}
    reached = trials["env_steps"] >= steps
    full, short = trials[reached], trials[~reached]
    groups = []
    why_of = short["suggestion"].map(lambda sid: status.get(int(sid), "unknown"))
    for why, group in short.groupby(why_of, sort=True):
        groups.append(
            ShortGroup(
                why=str(why),
                trials=len(group),
                low=float(group["env_steps"].min()),
                high=float(group["env_steps"].max()),
                suggestions=tuple(sorted(int(sid) for sid in group["suggestion"].unique())),
            )
        )
    return BudgetReach(
        env_steps=steps,
        reached=len(full),
        reached_low=float(full["env_steps"].min()) if len(full) else float("nan"),
        reached_high=float(full["env_steps"].max()) if len(full) else float("nan"),
        short=tuple(groups),
    )
