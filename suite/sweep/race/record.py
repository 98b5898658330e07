"""``race.json``: a raced run's schedule, its trials by rung and every rung's decision with its
evidence. The searcher rewrites it whenever the race moves; reports read it from the store."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from suite.stats.elimination import Elimination
from suite.store.files import write_json
from suite.store.schema import RACE_FILE
from suite.sweep.race.state import RaceState, RungDecision


def race_record(state: RaceState) -> dict:
    return {
        "schedule": {
            "rungs": [dataclasses.asdict(rung) for rung in state.race.rungs],
            "alpha": state.race.alpha,
            "min_seeds": state.race.min_seeds,
            "max_env_steps": state.race.max_env_steps,
            "first_seed": state.first_seed,
            "order_seed": state.order_seed,
            "rule": "Holm over one-sided Welch t-tests of every ordered pair of cells",
        },
        "cells": sorted(state.cells),
        "rung": state.rung,
        "finished": state.finished,
        "stopped_by_budget": state.stopped_by_budget,
        "racing": state.racing,
        "decisions": [_decision(decision) for decision in state.decisions],
        "trials": {
            trial_id: {
                "cell": trial.cell,
                "rung": trial.rung,
                "seed": trial.seed,
                "env_steps_budget": trial.env_steps,
                "env_steps": trial.curve[-1][0] if trial.curve else 0.0,
                "status": trial.status,
                "score": trial.score(),
            }
            for trial_id, trial in state.trials.items()
        },
    }


def _decision(decision: RungDecision) -> dict:
    return {
        "rung": decision.rung,
        "env_steps": decision.env_steps,
        "racing": decision.racing,
        "scores": decision.scores,
        "without_scores": decision.without_scores,
        "challenger": decision.challenger,
        "survivors": decision.survivors,
        **_elimination(decision.elimination),
    }


def _elimination(elimination: Elimination | None) -> dict:
    if elimination is None:
        return {"leader": None, "comparisons": []}
    return {
        "leader": elimination.leader,
        "leader_iqm": elimination.leader_iqm,
        "comparisons": [
            {
                "cell": comparison.cell,
                "seeds": comparison.seeds,
                "iqm": comparison.iqm,
                "improvement": dataclasses.astuple(comparison.improvement),
                "p_value": comparison.p_value,
                "holm_limit": comparison.holm_limit,
                "eliminated": comparison.eliminated,
                "evidence": comparison.evidence,
            }
            for comparison in elimination.comparisons
        ],
    }


def write_race(run_dir: Path, state: RaceState) -> None:
    write_json(run_dir / RACE_FILE, race_record(state))
