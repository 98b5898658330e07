"""What a race decided, read from ``race.json``: the trials the verdict compares (its last
decided rung's), the env steps each cell spent per rung, the rung each cell was eliminated in,
and P(leader better) as the verdict computes it. ``presentation.race`` shows them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from suite.stats import Interval, probability_of_improvement_ci


def final_trials(trials: pd.DataFrame, race: dict | None) -> pd.DataFrame:
    """The trials the verdict compares: in a race, the cells of its last decided rung, at that
    rung's env steps (every cell there has the same seeds and budget); otherwise all."""
    if not race or not race.get("decisions"):
        return trials
    last = race["decisions"][-1]
    chosen = [
        trial_id
        for trial_id, trial in race["trials"].items()
        if trial["cell"] in last["racing"] and trial["env_steps_budget"] == last["env_steps"]
    ]
    return trials[trials["trial_id"].isin(chosen)]


def final_env_steps(race: dict | None) -> float | None:
    """The env steps the verdict's trials ran: the last decided rung's."""
    if not race or not race.get("decisions"):
        return None
    return float(race["decisions"][-1]["env_steps"])


def leader_improvement(leader: list[float], cell: list[float]) -> Interval:
    """P(leader better than the cell) with its CI, from the same scores the race recorded."""
    return probability_of_improvement_ci([np.sort(leader)], [np.sort(cell)])


def spent_by_cell(race: dict) -> dict[tuple[str, int], float]:
    """(race cell name, rung) -> the env steps its trials sampled in that rung."""
    spent: dict[tuple[str, int], float] = {}
    for trial in race["trials"].values():
        key = (trial["cell"], trial["rung"])
        spent[key] = spent.get(key, 0.0) + float(trial["env_steps"])
    return spent


def eliminated_at(race: dict) -> dict[str, int]:
    """Race cell name -> the rung that eliminated it (cells raced to the end are absent)."""
    found = {}
    for decision in race["decisions"]:
        for comparison in decision["comparisons"]:
            if comparison["eliminated"]:
                found.setdefault(comparison["cell"], decision["rung"])
    return found


def eliminated_cells(race: dict | None, trials) -> set[tuple[str, int, int]]:
    """(env, n, k) of every cell the race eliminated, read off its trials' rows."""
    if not race:
        return set()
    names = set(eliminated_at(race))
    ids = [trial_id for trial_id, trial in race["trials"].items() if trial["cell"] in names]
    rows = trials[trials["trial_id"].isin(ids)]
    return {(str(env), int(n), int(k)) for env, n, k in rows[["env", "n", "k"]].to_numpy()}
