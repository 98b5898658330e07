"""One seed of one side of row 11 (peers, ``suite/bench/peers.py``): run it as a user does,
and read its scored curve (env steps, seconds since the bench started its process, the mean of
the last 20 training-episode returns). ``peers.py``'s docstring says how each side is clocked.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import string
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suite.bench import zoo_runs
from suite.bench.sweep_runs import run_sweep
from suite.store import schema
from suite.store.files import read_parquet

if TYPE_CHECKING:
    from ray.rllib.algorithms.appo import APPOConfig

SMOOTHING_EPISODES = 20  # RLlib's metrics_num_episodes_for_smoothing
# Bound on every run: set-up plus its env steps at a rate below the slowest side measured here
# (cartpole_rllib, ~860 env steps/s on 2 cores).
SETUP_ALLOWANCE_S, SLOWEST_RATE = 180.0, 200.0
KEPT_RUN_FILE = "bench_run.json"  # in a finished run's folder: what it ran, and its clock start


@dataclass(frozen=True)
class ReturnCurve:
    """One run's points: env steps, seconds since its process started, and the 20-episode mean
    return, NaN where no episode had ended yet (a suite iteration in which no episode ended
    reports none either: Pendulum's 20 envs end theirs together every 4,000 env steps)."""

    env_steps: np.ndarray
    seconds: np.ndarray
    returns: np.ndarray

    def return_at(self, steps: float) -> float:
        """The mean return at ``steps``, interpolated between scored points; past the last
        scored point (but not past the run) the last mean holds, as no episode ended since
        (``suite.stats.at_budget.read_at_budget`` reads the same way); NaN outside the run."""
        scored = ~np.isnan(self.returns)
        if not scored.any() or not self.env_steps[scored][0] <= steps <= self.env_steps[-1]:
            return math.nan
        return float(np.interp(steps, self.env_steps[scored], self.returns[scored]))

    def seconds_at(self, steps: float) -> float:
        if not len(self.env_steps) or not self.env_steps[0] <= steps <= self.env_steps[-1]:
            return math.nan
        return float(np.interp(steps, self.env_steps, self.seconds))

    def first_scored_seconds(self) -> float:
        """Seconds to the first point with a mean return (NaN: none)."""
        scored = np.flatnonzero(~np.isnan(self.returns))
        return float(self.seconds[scored[0]]) if len(scored) else math.nan

    def first_crossing(self, threshold: float) -> tuple[float, float]:
        """(seconds, env steps) of the first point >= ``threshold``; (inf, inf) if never."""
        reached = np.flatnonzero(self.returns >= threshold)  # NaN compares False
        if not len(reached):
            return math.inf, math.inf
        return float(self.seconds[reached[0]]), float(self.env_steps[reached[0]])

    def training_rate(self) -> float:
        """Env steps per second from the first point to the last (set-up left out)."""
        if len(self.seconds) < 2 or self.seconds[-1] <= self.seconds[0]:
            return math.nan
        return float(
            (self.env_steps[-1] - self.env_steps[0]) / (self.seconds[-1] - self.seconds[0])
        )


def episode_curve(episodes: pd.DataFrame, started_at: float) -> ReturnCurve:
    """SB3's curve from its episodes in end order (``zoo_runs.read_episodes``): one point per
    finished episode, env steps = cumulative finished lengths, the last-20 mean return."""
    smoothed = episodes["return"].rolling(SMOOTHING_EPISODES, min_periods=1).mean()
    return ReturnCurve(
        episodes["length"].cumsum().to_numpy(float),
        episodes["ended_at"].to_numpy(float) - started_at,
        smoothed.to_numpy(float),
    )


def iteration_curve(iterations: pd.DataFrame, ended_at: float, started_at: float) -> ReturnCurve:
    """A suite trial's curve from its iteration rows; iteration times counted back from
    ``ended_at`` (timing.json) by the trial's own ``wall_time_s``."""
    rows = iterations.sort_values("iteration")
    wall = rows["wall_time_s"].to_numpy(float)
    epochs = ended_at - (wall[-1] - wall) if len(wall) else wall
    return ReturnCurve(
        rows["env_steps"].to_numpy(float),
        epochs - started_at,
        rows["episode_return_mean"].to_numpy(float),
    )


ONE_TRIAL_SWEEP = string.Template("""
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name=$name,
    description=$description,
    configs=($config,),
    axes={},
    settings=$settings,
    budgets={
        $budget: Budget(
            env_steps=$env_steps, seeds=1, description="one seed", checkpoints=$checkpoints
        )
    },
)
""")


def write_one_trial_sweep(
    path: Path,
    config: str,
    env_steps: int,
    budget: str,
    description: str,
    settings: dict | None = None,
    checkpoints: bool = True,
) -> Path:
    """A sweep file of one trial of ``config`` (named after the file) for a row to run."""
    values = {
        "name": path.stem,
        "description": description,
        "config": config,
        "settings": settings or {},
        "budget": budget,
        "env_steps": env_steps,
        "checkpoints": checkpoints,
    }
    path.write_text(ONE_TRIAL_SWEEP.substitute({key: repr(v) for key, v in values.items()}))
    return path


def run_timeout(env_steps: int) -> float:
    return SETUP_ALLOWANCE_S + env_steps / SLOWEST_RATE


def run_suite_config(config: str, env_steps: int, seed: int, folder: Path) -> ReturnCurve:
    """One trial of ``config`` through ``python -m suite.sweep``, clocked from before its start;
    a run of the same settings kept in ``folder`` is read instead."""
    from suite.configs.resolve import resolve, to_serializable

    resolved = resolve(config, {})
    root = folder / f"{config}-seed{seed}"
    what = {
        "config": config,
        "settings": to_serializable(resolved),
        "env_steps": env_steps,
        "seed": seed,
    }
    train = partial(_train, config, _cpus_of(resolved), env_steps, seed, root)
    started_at = kept_or_run(root, what, train)
    return stored_curve(next((root / _sweep_name(config)).iterdir()), started_at)


def _sweep_name(config: str) -> str:
    return f"peers_{config}"


def _train(config: str, cpus: float, env_steps: int, seed: int, root: Path) -> float:
    """Run the trial into ``root`` (against a Ray declaring ``cpus`` when this machine has
    fewer); returns its clock start (epoch seconds)."""
    name = _sweep_name(config)
    description = f"one trial of {config}, as row 11 (peers) runs it"
    root.mkdir(parents=True)
    sweep_file = write_one_trial_sweep(
        root / f"{name}.py", config, env_steps, "peers", description, checkpoints=False
    )
    declared = cpus > (os.cpu_count() or 1)
    started_at = time.time()
    address = _start_declared_ray(cpus) if declared else None
    try:
        extra = ["--first-seed", str(seed), *(["--address", address] if address else [])]
        run_sweep(
            str(sweep_file), "peers", root, *extra, name=name, timeout_s=run_timeout(env_steps)
        )
    finally:
        if declared:
            _stop_declared_ray()
    return started_at


def kept_or_run(folder: Path, what: dict, run: Callable[[], float]) -> float:
    """The clock start of the run kept in ``folder`` if it ran ``what``. Otherwise ``folder`` is
    cleared of what an interrupted run, or one of other settings, left there, ``run()`` trains
    into it and returns its clock start, and the run is kept with ``what``."""
    record = folder / KEPT_RUN_FILE
    what = json.loads(json.dumps(what, default=str))  # as it reads back from the file
    if record.is_file():
        kept = json.loads(record.read_text())
        if kept["what"] == what:
            return kept["started_at"]
    if folder.exists():
        shutil.rmtree(folder)
    started_at = run()
    record.write_text(json.dumps({"what": what, "started_at": started_at}, indent=2) + "\n")
    return started_at


def cpus_asked(config: str) -> float:
    from suite.configs.resolve import resolve

    return _cpus_of(resolve(config, {}))


def _cpus_of(resolved: APPOConfig) -> float:
    from suite.sweep.planning.resources import resource_request

    return resource_request(resolved).totals.get("CPU", 1.0)


def _start_declared_ray(cpus: float) -> str:
    import ray

    ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    return ray.get_runtime_context().gcs_address


def _stop_declared_ray() -> None:
    import ray

    ray.shutdown()


def stored_curve(run_dir: Path, started_at: float) -> ReturnCurve:
    timings = list((run_dir / schema.TRIAL_CONFIG_DIR).glob(f"*/{schema.TIMING_FILE}"))
    if len(timings) != 1:
        raise RuntimeError(f"expected one trial's {schema.TIMING_FILE} in {run_dir}: {timings}")
    ended_at = json.loads(timings[0].read_text())["ended_at"]
    return iteration_curve(read_parquet(run_dir / schema.ITERATIONS_FILE), ended_at, started_at)


def run_sb3(
    env: str,
    env_steps: int,
    seed: int,
    folder: Path,
    settings: zoo_runs.ZooSettings = zoo_runs.ZOO_DEFAULTS,
) -> tuple[ReturnCurve, dict]:
    """One rl-zoo3 run: its curve and the settings it resolved; a run of the same settings kept
    in ``folder`` is read instead."""
    log_folder, timeout_s = folder / f"sb3-seed{seed}", run_timeout(env_steps)
    what = {
        "env": env,
        "env_steps": env_steps,
        "seed": seed,
        "zoo": dataclasses.asdict(settings),
        "versions": zoo_runs.peer_versions(),
    }

    def train() -> float:
        return zoo_runs.run_zoo(env, env_steps, seed, log_folder, timeout_s, settings).started_at

    started_at = kept_or_run(log_folder, what, train)
    run = zoo_runs.ZooRun(started_at, zoo_runs.zoo_run_dir(log_folder, env))
    curve = episode_curve(zoo_runs.read_episodes(run.run_dir), run.started_at)
    return curve, zoo_runs.resolved_settings(run, env)


def trial_curve(run_dir: Path) -> ReturnCurve:
    """The trial's curve on its own clock (``wall_time_s``: seconds since the trial started)."""
    rows = read_parquet(run_dir / schema.ITERATIONS_FILE).sort_values("iteration")
    return ReturnCurve(
        rows["env_steps"].to_numpy(float),
        rows["wall_time_s"].to_numpy(float),
        rows["episode_return_mean"].to_numpy(float),
    )
