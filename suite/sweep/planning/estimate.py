"""Wall-time estimates from measured throughput, before anything starts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from suite.store import schema
from suite.store.files import read_parquet

# Env steps/s of one trial with the config's own env runners, measured on a 2-core CPU machine by
# ``python -m suite.bench`` (benchmarks/RESULTS.md): cartpole and cartpole_rllib from row 2 (median
# over its seeds), pong and pong_rllib from row 3, pendulum from row 7. Breakout and SpaceInvaders
# share Pong's rate: the ALE and the network cost the same per frame. Configs missing here get no
# estimate rather than a guess.
MEASURED_STEPS_PER_S = {
    "cartpole": 3000.0,
    "cartpole_rllib": 960.0,
    "pendulum": 6000.0,
    "pong": 510.0,
    "pong_rllib": 350.0,
    "breakout": 510.0,
    "space_invaders": 510.0,
}
MEASURED_ENV_RUNNERS = {"cartpole_rllib": 2, "pong_rllib": 2}  # the rest were measured with 1
TRIAL_STARTUP_S = 15.0  # building env runners and learners, measured on CartPole and Pong
FAR_BEYOND_S = 24 * 3600.0
MEASURED_SOURCE = "measured on 2 cores"  # a rate from MEASURED_STEPS_PER_S


def measured_rates(results_root: Path) -> dict[str, float]:
    """Mean env steps/s per config from earlier runs under ``results_root``, when there are any."""
    frames = []
    for path in Path(results_root).glob(f"*/*/{schema.TRIALS_FILE}"):
        try:
            frames.append(
                read_parquet(
                    path, columns=["config_name", "num_env_runners", "mean_env_steps_per_s"]
                )
            )
        except (OSError, ValueError):
            continue  # a damaged earlier run must not stop a new one from planning
    if not frames:
        return {}
    table = pd.concat(frames).dropna()
    per_runner = table["mean_env_steps_per_s"] / table["num_env_runners"].clip(lower=1)
    return per_runner.groupby(table["config_name"]).median().to_dict()


@dataclass(frozen=True)
class TrialEstimate:
    seconds: float  # NaN when no throughput for this config was ever measured
    source: str


def trial_estimate(
    config_name: str, env_runners: int, env_steps: int, earlier_per_runner: dict[str, float]
) -> TrialEstimate:
    runners = max(env_runners, 1)
    if config_name in earlier_per_runner:
        rate, source = earlier_per_runner[config_name] * runners, "earlier runs in results/"
    elif config_name in MEASURED_STEPS_PER_S:
        per_runner = MEASURED_STEPS_PER_S[config_name] / MEASURED_ENV_RUNNERS.get(config_name, 1)
        rate, source = per_runner * runners, MEASURED_SOURCE
    else:
        return TrialEstimate(math.nan, "no measured throughput")
    return TrialEstimate(TRIAL_STARTUP_S + env_steps / rate, source)


def sweep_seconds(trial_seconds: Sequence[float], concurrency: int) -> float:
    """Total wall time if ``concurrency`` trials run at once, longest first (like a scheduler
    filling free slots)."""
    if concurrency < 1 or any(math.isnan(s) for s in trial_seconds):
        return math.nan
    slots = [0.0] * concurrency
    for seconds in sorted(trial_seconds, reverse=True):
        slots[slots.index(min(slots))] += seconds
    return max(slots)
