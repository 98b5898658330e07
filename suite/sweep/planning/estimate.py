"""Wall-time estimates from measured throughput, before anything starts."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from suite.configs.evidence import REPOSITORY, RecordValue
from suite.configs.registry import EVIDENCE_BACKED
from suite.store import schema
from suite.store.files import read_parquet


@dataclass(frozen=True)
class StoreRate:
    """A config's median env steps/s over its trials in a committed example store; in a search's
    store, over the trials of one ``suggestion`` (0: the config as it is, the search's base)."""

    folder: str  # below the repository
    config_name: str
    suggestion: int | None = None

    @property
    def path(self) -> Path:
        return REPOSITORY / self.folder / schema.TRIALS_FILE

    @property
    def how_to_write(self) -> str:
        return f"it ships with the repository as {self.folder}"

    def read(self) -> float | None:
        if not self.path.exists():
            return None
        columns = ["config_name", "suggestion", "mean_env_steps_per_s"]
        trials = read_parquet(self.path, columns=columns)
        chosen = trials["config_name"] == self.config_name
        if self.suggestion is not None:
            chosen &= trials["suggestion"] == self.suggestion
        return float(trials.loc[chosen, "mean_env_steps_per_s"].median())

    def describe(self) -> str:
        which = self.config_name
        if self.suggestion is not None:
            which += f", suggestion {self.suggestion}"
        return f"{self.folder}/{schema.TRIALS_FILE} (median env steps/s of {which})"


# Env steps/s of one trial with the config's own env runners, read from the benchmark records
# ``python -m suite.bench`` writes (benchmarks/raw/<row>.json, rendered in benchmarks/RESULTS.md;
# measured on 2 cores): cartpole_probed and cartpole_rllib from row 2 (median over its seeds;
# cartpole_probed's settings measured as ``cartpole``, before the search's pick replaced them),
# cartpole_search_laptop (the older search's pick) from row 11's record of 2026-12-01, cartpole and
# pendulum (the search picks under the suite's learner) and the PPO layouts from row 11, one trial
# each with their own CPUs, pong and
# pong_rllib from row 3, pendulum_rllib from row 7 (measured as ``pendulum``, when it had these
# settings), minatar_breakout from row 17, minatar_space_invaders from row 20. Breakout and
# SpaceInvaders share Pong's rate: the ALE and the network cost the same per frame.
# minatar_breakout_base has no benchmark row: its rate is the median of its trials in the committed
# MinAtar race, one trial at a time on 2 cores; minatar_space_invaders_base's, of the base's own
# held-out trials (suggestion 0) in the committed Space Invaders search, which ran its validation
# one trial at a time too. A config missing here, or whose record is missing or lacks it (a row not
# re-measured since the config joined it), gets no estimate rather than a guess, and the estimate's
# source names the record. A promoted config run by its own name (a walk's base) takes the rate
# of the library name that rests on it (``measured_as``).
MEASURED_STEPS_PER_S = {
    "cartpole_probed": RecordValue("race", "data.configs.cartpole.env_steps_per_s.median"),
    # The older search pick, measured as ``cartpole`` when that name rested on it: row 11's
    # record of 2026-12-01, kept as peers_search_picks.json.
    "cartpole_search_laptop": RecordValue(
        "peers_search_picks", "data.envs.CartPole-v1.sides.cartpole.env_steps_per_s.median"
    ),
    "cartpole": RecordValue("peers", "data.envs.CartPole-v1.sides.cartpole.env_steps_per_s.median"),
    "pendulum": RecordValue("peers", "data.envs.Pendulum-v1.sides.pendulum.env_steps_per_s.median"),
    "cartpole_ppo_layout": RecordValue(
        "peers", "data.envs.CartPole-v1.sides.cartpole_ppo_layout.env_steps_per_s.median"
    ),
    "pendulum_ppo_layout": RecordValue(
        "peers", "data.envs.Pendulum-v1.sides.pendulum_ppo_layout.env_steps_per_s.median"
    ),
    "cartpole_rllib": RecordValue("race", "data.configs.cartpole_rllib.env_steps_per_s.median"),
    "pendulum_rllib": RecordValue("throughput", "data.env_steps_per_s.pendulum"),
    "pong": RecordValue("atari", "data.configs.pong.sampled.median"),
    "pong_rllib": RecordValue("atari", "data.configs.pong_rllib.sampled.median"),
    "breakout": RecordValue("atari", "data.configs.pong.sampled.median"),
    "space_invaders": RecordValue("atari", "data.configs.pong.sampled.median"),
    "minatar_breakout": RecordValue(
        "peers_minatar",
        "data.envs.MinAtar/Breakout-v1.sides.minatar_breakout.env_steps_per_s.median",
    ),
    "minatar_space_invaders": RecordValue(
        "peers_minatar_space_invaders",
        "data.envs.MinAtar/SpaceInvaders-v1.sides.minatar_space_invaders.env_steps_per_s.median",
    ),
    "minatar_breakout_base": StoreRate(
        "results/example-minatar_nk-laptop-race", "minatar_breakout_base"
    ),
    "minatar_space_invaders_base": StoreRate(
        "results/example-minatar_search-laptop_space_invaders",
        "minatar_space_invaders_base",
        schema.INCUMBENT,
    ),
}
MEASURED_ENV_RUNNERS = {"cartpole_rllib": 2, "pong_rllib": 2}  # the rest were measured with 1
TRIAL_STARTUP_S = 15.0  # building env runners and learners, measured on CartPole and Pong
FAR_BEYOND_S = 24 * 3600.0
MEASURED_SOURCE = "measured on 2 cores"  # a rate from a record of MEASURED_STEPS_PER_S


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
    # A trial of a running sweep that has not stepped yet records 0 env steps/s: no rate.
    table = table[table["mean_env_steps_per_s"] > 0]
    per_runner = table["mean_env_steps_per_s"] / table["num_env_runners"].clip(lower=1)
    return per_runner.groupby(table["config_name"]).median().to_dict()


def measured_steps_per_s(config_name: str) -> float | None:
    """The config's env steps/s from its benchmark record; None when it has none (a missing
    record is warned about: the dry run would only say the time is unknown)."""
    return _measured(config_name)[0]


def measured_as(config_name: str) -> str:
    """The name a config's rate was measured under: the evidence-backed library name that rests
    on a promoted config (``pendulum`` for ``pendulum_search_laptop_suite``), else its own."""
    if config_name in MEASURED_STEPS_PER_S:
        return config_name
    backed_by = [name for name, backing in EVIDENCE_BACKED.items() if backing == config_name]
    return backed_by[0] if len(backed_by) == 1 else config_name


def _measured(config_name: str) -> tuple[float | None, str | None]:
    """The config's rate, read once; without one, what is missing (None for a config with no
    record named), warned about."""
    where = MEASURED_STEPS_PER_S.get(measured_as(config_name))
    if where is None:
        return None, None
    try:
        rate = where.read()
    except KeyError as error:  # the record predates the config: its row has not measured it
        rate, missing = None, f"{where.describe()} is missing: {error.args[0]}"
    else:
        missing = None if rate is not None else f"{where.describe()} is missing"
    if missing:
        warnings.warn(
            f"no wall-time estimate for {config_name}: {missing} ({where.how_to_write})",
            stacklevel=3,
        )
    return rate, missing


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
    else:
        measured, missing = _measured(config_name)
        if measured is None:
            reason = f"no measured throughput: {missing}" if missing else "no measured throughput"
            return TrialEstimate(math.nan, reason)
        per_runner = measured / MEASURED_ENV_RUNNERS.get(config_name, 1)
        rate, source = per_runner * runners, MEASURED_SOURCE
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
