"""Whether a trial's learner ever sent new weights to its env runners.

A trial whose learner made fewer updates than broadcast_interval never sent new weights to its
env runners (RLlib broadcasts them every broadcast_interval updates), so every episode it
recorded is the initial policy's: such trials cannot compare N or K, whatever their seeds.
"""

from __future__ import annotations

import pandas as pd

from suite.humanize import fmt
from suite.report.analysis import metrics

UPDATES = "learner_updates"  # per learner, at the trial's last iteration


def with_learner_updates(trials: pd.DataFrame, iterations: pd.DataFrame) -> pd.DataFrame:
    """``trials`` plus ``learner_updates``: the samples each learner took from its buffer (one
    per update) by the trial's last iteration."""
    ordered = iterations.sort_values(["trial_id", "iteration"])
    samples = ordered.groupby("trial_id")["buffer_samples_lifetime"].last()
    learners = trials["num_learners"].clip(lower=1).to_numpy()
    return trials.assign(**{UPDATES: trials["trial_id"].map(samples).to_numpy() / learners})


def never_broadcast(trials: pd.DataFrame) -> pd.DataFrame:
    """The finished trials whose learner made fewer updates than their broadcast_interval."""
    done = metrics.finished(trials)
    return done[done[UPDATES] < done["broadcast_interval"]]


def no_broadcast_text(env_trials: pd.DataFrame) -> str:
    """Why an env's trials cannot compare N or K ("" when some trial broadcast weights): the
    verdict's reason that no cell's score can differ."""
    done = metrics.finished(env_trials)
    silent = never_broadcast(env_trials)
    if done.empty or len(silent) < len(done):
        return ""
    return (
        f"no weights broadcast: each trial made at most {fmt(float(silent[UPDATES].max()))} "
        f"learner updates, fewer than broadcast_interval {listed(silent['broadcast_interval'])}, "
        "so no new policy reached the env runners and every cell played its initial policy; "
        "more seeds would not help, more env steps per trial would"
    )


def listed(values: pd.Series) -> str:
    """The distinct values, sorted: ``5, 20``."""
    return ", ".join(fmt(float(v)) for v in sorted(values.unique()))
