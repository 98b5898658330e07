"""``search.json``: a search run's space and schedule, every suggestion with its settings, scores
and the test that stopped it, and the held-out validation. The searcher rewrites it whenever the
search moves; reports and ``--promote`` read it from the store."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from suite.stats.objective import DESCRIPTIONS, RETURN
from suite.store.files import write_json
from suite.store.schema import SEARCH_FILE
from suite.sweep.search.space import label
from suite.sweep.search.state import SearchState

NO_STOP_RULE = "none: the milestone test compares returns, which a time objective does not score"


def stop_rule(alpha: float) -> str:
    """The early stop in words (``suite.stats.elimination.StopTest``): one test per suggestion,
    no correction across suggestions."""
    return (
        "one-sided Welch t-test of the suggestion's returns at the milestone against the "
        f"leader's, once per suggestion; it is stopped when p is under {alpha:g}, with no "
        "correction across suggestions"
    )


def search_record(state: SearchState) -> dict:
    search = state.search
    return {
        "schedule": {
            "space": dict(state.search.space.describe()),
            "suggestions": search.suggestions,
            "seeds": state.seeds,
            "first_seed": state.first_seed,
            "env_steps": state.env_steps,
            "milestone_env_steps": state.milestone_env_steps,
            "alpha": search.alpha,
            "validate_top": search.validate_top,
            "validate_seeds": search.validate_seeds,
            "validation_first_seed": state.validation_first_seed,
            "sampler": f"Optuna TPE (seed {search.sampler_seed}, "
            f"{search.startup_suggestions} random suggestions first)",
            "objective": state.objective,
            "threshold": None if math.isnan(state.threshold) else state.threshold,
            "max_trial_s": state.max_trial_s,
            "score": DESCRIPTIONS[state.objective],
            "stop_rule": stop_rule(search.alpha) if state.objective == RETURN else NO_STOP_RULE,
        },
        "config": state.template.config_name,
        "learner": state.learner,
        "phase": state.phase,
        "finished": state.finished,
        "validated": state.validated,
        "suggestions": [_suggestion(s) for s in state.suggestions.values()],
        "trials": {
            trial_id: {
                "suggestion": trial.suggestion,
                "phase": trial.phase,
                "seed": trial.seed,
                "env_steps": trial.curve[-1][0] if trial.curve else 0.0,
                "status": trial.status,
                "score": state.value(trial, state.env_steps),
            }
            for trial_id, trial in state.trials.items()
        },
        "validation_scores": {str(k): v for k, v in state.validation_scores().items()},
    }


def _suggestion(suggestion) -> dict:
    record = dataclasses.asdict(suggestion)
    record["labels"] = {name: label(value) for name, value in suggestion.settings.items()}
    return record


def write_search(run_dir: Path, state: SearchState) -> None:
    write_json(Path(run_dir) / SEARCH_FILE, search_record(state))
