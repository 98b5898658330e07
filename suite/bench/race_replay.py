"""Races replayed from measured trials: the spread of a race's pick and cost, beside row 9's three.

Three real races say little about how often a race picks well. A replay drives the race's own
state machine (``RaceState``) as Tune would, but each trial it starts is a measured trial of that
cell, drawn without replacement from a pool of completed races' trials, and its recorded curve
is fed in. The verdict is then read from those trials exactly as the report reads a run.

The replays share one pool, so they are not independent races: they show how the outcome varies
with which of the measured seeds a race happens to draw. The pool holds race trials only, never
the reference's, so the reference's top set is judged on other seeds.
"""

from __future__ import annotations

import collections
import copy
from pathlib import Path

import numpy as np
import pandas as pd

from suite.report.analysis import budget
from suite.report.analysis.verdict import DECISIVE, LEANING
from suite.report.analysis.verdicts import JudgedCells, env_verdict_cells
from suite.store.reader import load_run
from suite.store.schema import FINISHED
from suite.sweep.race.schedule import Race
from suite.sweep.race.state import RaceState, cell_label
from suite.sweep.spec import TrialSpec

REPLAYS = 200


class Pool:
    """Measured trials by race cell, with their curves (env steps, seconds, return)."""

    def __init__(self, run_dirs: list[Path], axes: tuple[str, ...]):
        runs = [load_run(path) for path in run_dirs]
        self.trials = pd.concat([run.trials for run in runs], ignore_index=True)
        self.iterations = pd.concat([run.iterations for run in runs], ignore_index=True)
        self.specs: dict[str, TrialSpec] = {}
        self.by_cell: dict[str, list[str]] = collections.defaultdict(list)
        for row in self.trials[self.trials["status"] == FINISHED].to_dict("records"):
            cell = {axis: row[axis] for axis in axes} | {"seed": 0}
            spec = TrialSpec(
                sweep="replay",
                budget=row["budget"],
                config_name=row["config_name"],
                env=row["env"],
                axes=cell,
            )
            self.specs.setdefault(cell_label(spec), spec)
            self.by_cell[cell_label(spec)].append(row["trial_id"])
        self.curves = {
            trial_id: group[["env_steps", "wall_time_s", "episode_return_mean"]].to_numpy(float)
            for trial_id, group in self.iterations.sort_values("iteration").groupby("trial_id")
        }

    def restricted_to(self, cells: set[str]) -> Pool:
        """The same measured trials with only ``cells`` (race cell labels) racing: a smaller
        grid replayed from the same runs."""
        pool = copy.copy(self)
        pool.specs = {cell: spec for cell, spec in self.specs.items() if cell in cells}
        pool.by_cell = {cell: self.by_cell[cell] for cell in pool.specs}
        return pool


def replay(race: Race, pool: Pool, rng: np.random.Generator | None) -> RaceState | None:
    """One race over the pool; None when a cell ran out of measured trials. Without ``rng``
    each cell's trials are drawn in the pool's order."""
    state = RaceState(race, pool.specs, first_seed=0, order_seed=0)
    if rng is not None:
        state.order_seed = int(rng.integers(1 << 30))
    left = {
        cell: list(ids if rng is None else rng.permutation(ids))
        for cell, ids in pool.by_cell.items()
    }
    while (spec := state.next_spec()) is not None:
        cell = cell_label(spec)
        if not left[cell]:
            return None
        trial_id = str(left[cell].pop(0))
        state.started(trial_id, spec)
        for steps, seconds, episode_return in pool.curves.get(trial_id, []):
            state.result(trial_id, steps, seconds, episode_return)
        state.completed(trial_id, ok=True)
    return state


def verdict_of(state: RaceState, pool: Pool) -> JudgedCells:
    """The report's verdict over the race's last decided rung, with the cell of each label."""
    last = state.decisions[-1]
    chosen = [
        trial_id
        for trial_id, trial in state.trials.items()
        if trial.cell in last.racing and trial.env_steps == last.env_steps
    ]
    trials = pool.trials[pool.trials["trial_id"].isin(chosen)]
    trials = budget.with_budget_metrics(trials, pool.iterations, last.env_steps)
    return env_verdict_cells(trials)


def replay_many(race: Race, pool: Pool, name_of, reference_env_steps: float,
                top_set: list[str], count: int = REPLAYS, seed: int = 0) -> dict:  # fmt: skip
    """``name_of(cell)``: a ``Cell`` as the reference names it, so picks meet its top set."""
    rng = np.random.default_rng(seed)
    picks, shares, promotable, short = collections.Counter(), [], 0, 0
    for _ in range(count):
        state = replay(race, pool, rng)
        if state is None:
            short += 1
            continue
        judged = verdict_of(state, pool)
        picks[name_of(judged.best)] += 1
        promotable += judged.verdict.strength in (DECISIVE, LEANING)
        shares.append(state.env_steps_spent() / reference_env_steps)
    done = count - short
    return {
        "replays": done,
        "short_of_trials": short,
        "pool_trials": {cell: len(ids) for cell, ids in sorted(pool.by_cell.items())},
        "in_top_set": sum(n for pick, n in picks.items() if pick in top_set) / max(1, done),
        "promotable": promotable / max(1, done),
        "picks": dict(picks.most_common()),
        "env_steps_share": _spread(shares),
    }


def verdict_odds(race: Race, pool: Pool, count: int = 100, seed: int = 0) -> dict:
    """How often a race schedule over the pool's cells ends decisive, leaning or inconclusive,
    and how many trials it starts (most: the 60-minute question)."""
    rng = np.random.default_rng(seed)
    strengths, tops, trials = collections.Counter(), collections.Counter(), []
    for _ in range(count):
        state = replay(race, pool, rng)
        if state is None:
            strengths["short of trials"] += 1
            continue
        verdict = verdict_of(state, pool).verdict
        strengths[verdict.strength] += 1
        tops[" | ".join(verdict.top_set)] += 1
        trials.append(len(state.trials))
    return {
        "replays": count,
        "cells": sorted(pool.specs),
        "pool_trials": sum(len(pool.by_cell[cell]) for cell in pool.specs),
        "strengths": dict(strengths.most_common()),
        "top_sets": dict(tops.most_common(3)),
        "trials_median": float(np.median(trials)) if trials else None,
        "trials_most": max(trials, default=None),
    }


def _spread(values: list[float]) -> dict:
    if not values:
        return {}
    return {"median": float(np.median(values)), "min": min(values), "max": max(values)}
