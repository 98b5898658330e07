"""What a search run found, from ``search.json`` and the trials table: its trials read at exactly
its env steps, each suggestion's returns per phase, and the verdict from the held-out seeds
(``suite.stats.validation``). Nothing here imports Ray; ``presentation.search`` shows it, and
promoting a search's pick reads the same verdict."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from suite.humanize import fmt
from suite.report.analysis import budget
from suite.report.analysis.trials import train_batch_per_learner
from suite.stats.objective import RETURN, seed_value
from suite.stats.validation import Validation, validate
from suite.store.reader import RunData
from suite.store.schema import INCUMBENT, TrialStatus

TOO_SLOW = "too slow"


def suggestion_name(suggestion: int, config: str) -> str:
    """A suggestion's name on the page; the baseline is named as the search ran it: a library
    name can move (a promotion points ``pendulum`` at its pick), the baseline's settings do not."""
    return (
        f"the baseline ({config} as this search ran it)"
        if suggestion == INCUMBENT
        else f"suggestion {suggestion}"
    )


@dataclass(frozen=True)
class Baseline:
    """What the search's baseline (the config itself) ran: its name then, the commit, and its
    value of every searched setting, read from a baseline trial's resolved config."""

    config: str
    commit: str
    settings: dict[str, str]


# Searched settings stored under another name in RLlib's resolved config.
RESOLVED_NAMES = {
    "n": "circular_buffer_num_batches",
    "k": "circular_buffer_iterations_per_batch",
}


def baseline(run: RunData) -> Baseline | None:
    """None when no baseline trial left its config."""
    record = run.search
    ids = sorted(run.trials.loc[run.trials["suggestion"] == INCUMBENT, "trial_id"])
    for trial_id in ids:
        path = run.path / "trials" / str(trial_id) / "config.json"
        try:
            stored = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        config = stored.get("resolved_config", {})
        settings = {
            name: _shown(resolved_setting(config, name)) for name in record["schedule"]["space"]
        }
        commit = str(stored.get("run", {}).get("git_commit") or "")
        return Baseline(record["config"], commit[:7], settings)
    return None


def resolved_setting(config: dict, name: str):
    """A searched setting's value in a stored resolved config (None: not found)."""
    if name == "observation_filter":
        return "mean_std" if "mean_std" in str(config.get("_env_to_module_connector")) else "none"
    if name.startswith("model."):
        field = re.escape(name.removeprefix("model."))
        found = re.search(rf"\b{field}=(\[[^\]]*\]|[^,)]+)", str(config.get("_model_config")))
        return found.group(1).strip("'") if found else None
    if name == "train_batch_size_per_learner":
        return train_batch_per_learner(config)
    return config.get(RESOLVED_NAMES.get(name, name))


def _shown(value) -> str:
    if isinstance(value, str) and value.startswith("["):  # a model's layer sizes, as labelled
        return "x".join(part.strip() for part in value.strip("[]").split(","))
    if value is None:
        return "RLlib's default"
    return fmt(value)


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


def promotion_refusal(record: dict, verdict: Validation | None) -> str | None:
    """Why ``--promote`` refuses the search's pick, or None when it takes it: the one rule the
    page's verdict, its advice and the promotion itself apply (``verdict``: ``validation``'s)."""
    if not record.get("finished"):
        return "the search is not finished: resume it, then promote"
    if objective(record) != RETURN:
        return (
            f"the search ranked by {objective(record)}, and a promoted config's evidence is its "
            "return at the budget on held-out seeds; run the search with --objective return to "
            "promote from it"
        )
    if verdict is None:
        return "no validation with held-out returns"
    return None if verdict.promotable else verdict.reason()


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


# Searched settings RLlib 2.60's APPO learner never reads: a panel of them plots noise against a
# setting with no effect (older searches searched lambda with it). The suite's learner reads
# lambda, so a search record whose "learner" is "suite" has none unread.
UNREAD_BY_APPO = {
    "lambda": "RLlib 2.60's APPO never reads lambda (its V-trace takes none; only PPO's GAE "
    "does), so the scores cannot depend on it",
}


def settings_to_plot(record: dict) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """(searched settings worth a panel, unread setting -> why, constant setting -> its value):
    a setting APPO never reads, or one every completed suggestion shares, says nothing against
    the score."""
    done = [s for s in record["suggestions"] if s["status"] == "complete"]
    unread_here = UNREAD_BY_APPO if record.get("learner", "rllib") == "rllib" else {}
    shown, unread, constant = [], {}, {}
    for name in record["schedule"]["space"]:
        values = {str(s["labels"].get(name)) for s in done}
        if name in unread_here:
            unread[name] = unread_here[name]
        elif len(values) == 1:
            constant[name] = values.pop()
        else:
            shown.append(name)
    return shown, unread, constant
