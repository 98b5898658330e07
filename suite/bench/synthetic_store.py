"""A realistic synthetic results store, for tests and the report's scale benchmark.

Several envs, an N x K grid, several seeds, one failed trial, and buffer counters that agree
with each other (added = trained + lost + held, learners sum to the iteration rows, reuse and
drop fraction are the ratios of the counters). Only the numbers are made up: each trial's spec,
resolved config, axes and threshold are the real ones of its tuned config, and the store is
written through the sweep's own table writes (``suite.store.tables.RunTables``), so it has
every file and column a sweep writes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from suite.configs.resolve import to_serializable
from suite.store import schema
from suite.store.files import write_json
from suite.store.schema import TrialStatus
from suite.store.tables import RunTables
from suite.sweep.spec import TrialSpec


@dataclass(frozen=True)
class SyntheticEnv:
    name: str
    config_name: str
    start_return: float
    best_return: float
    env_steps_per_s: float
    batch_env_steps: int


ENVS = (
    SyntheticEnv("CartPole-v1", "cartpole_probed", 20.0, 500.0, 2400.0, 500),
    SyntheticEnv("ALE/Pong-v5", "pong", -21.0, 21.0, 900.0, 1000),
)
NS = (1, 2, 4, 8)
KS = (1, 2, 4)
ITERATION_SECONDS = 10.0
SWEEP, BUDGET = "synthetic_nk", "laptop"
FAILED_ERROR = "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing."


def write_synthetic_run(
    path: str | Path,
    n_trials: int,
    n_iterations: int,
    seed: int,
    *,
    num_learners: tuple[int, ...] = (1,),
    num_gpus_per_learner: tuple[float, ...] = (0.0,),
    with_failed_trial: bool = True,
) -> Path:
    """Write ``run.json``, the three tables and per-trial configs under ``path``; return it.
    ``with_failed_trial``: the middle trial fails a third of the way (as a crashed actor)."""
    if n_trials < 1 or n_iterations < 1:
        raise ValueError("a synthetic run needs n_trials >= 1 and n_iterations >= 1")
    path = Path(path)
    rng = np.random.default_rng(seed)
    specs = _trial_specs(n_trials, num_learners, num_gpus_per_learner)
    metadata = _run_metadata(specs, seed)
    tables = RunTables(path, metadata)
    axes = _register(tables, specs, metadata["run_id"])
    failed = _failed_trial_index(len(specs)) if with_failed_trial else None
    iterations, learners = _curves(axes, n_iterations, rng, failed)
    _add_rows(tables, iterations, learners, failed)
    tables.consolidate()
    write_json(path / schema.RUN_METADATA_FILE, metadata)
    return path


def _register(tables: RunTables, specs: list[TrialSpec], run_id: str) -> pd.DataFrame:
    """Each trial as the sweep's store sink registers it; its axis columns as a table."""
    for index, spec in enumerate(specs):
        config = spec.resolved()
        axes = spec.axis_row(f"trial_{index:05d}", config)
        tables.register(axes, spec.threshold, spec.as_param(run_id), to_serializable(config))
    return pd.DataFrame(list(tables.axes.values()))


def _add_rows(
    tables: RunTables, iterations: pd.DataFrame, learners: pd.DataFrame, failed_index: int | None
) -> None:
    failed = None if failed_index is None else sorted(tables.axes)[failed_index]
    learners_of = dict(tuple(learners.groupby("trial_id", sort=False)))
    for trial_id, rows in iterations.groupby("trial_id", sort=False):
        trial_learners = learners_of[trial_id].to_dict("records")
        tables.add_rows(trial_id, rows.to_dict("records"), trial_learners)
        tables.status[trial_id] = (
            (TrialStatus.ERROR, FAILED_ERROR) if trial_id == failed else (TrialStatus.FINISHED, "")
        )
        tables.write_parts(trial_id)


def _trial_specs(n_trials: int, learners: tuple, gpus: tuple) -> list[TrialSpec]:
    grid = list(itertools.product(ENVS, learners, gpus, NS, KS))
    specs = []
    for index in range(n_trials):
        env, num_learners, gpus_per_learner, n, k = grid[index % len(grid)]
        axes = {
            "n": n,
            "k": k,
            "broadcast_interval": 20,  # above every N: any cell may drop
            "num_learners": num_learners,
            "num_gpus_per_learner": float(gpus_per_learner),
            "num_env_runners": 2,
            "num_envs_per_env_runner": 4,
            "seed": index // len(grid),
        }
        specs.append(
            TrialSpec(
                sweep=SWEEP, budget=BUDGET, config_name=env.config_name, env=env.name, axes=axes
            )
        )
    return specs


def _env(name: str) -> SyntheticEnv:
    return next(env for env in ENVS if env.name == name)


def _curves(
    axes: pd.DataFrame, n_iterations: int, rng, failed: int | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Iteration and learner rows of every trial, built as (trials x iterations) arrays."""
    count = len(axes)
    envs = [_env(name) for name in axes["env"]]
    n = axes["n"].to_numpy(float)[:, None]
    k = axes["k"].to_numpy(float)[:, None]
    workers = np.maximum(axes["num_learners"].to_numpy(float), 1.0)[:, None]
    lengths = np.full(count, n_iterations)
    if failed is not None:
        lengths[failed] = max(1, n_iterations // 3)
    it = np.arange(1, n_iterations + 1, dtype=float)[None, :]
    alive = it <= lengths[:, None]

    speed = np.array([env.env_steps_per_s for env in envs])[:, None] * (1 + 0.1 * (workers - 1))
    speed = speed * (1 - 0.03 * k) * rng.lognormal(0, 0.05, size=(count, n_iterations))
    step_time = ITERATION_SECONDS * rng.lognormal(0, 0.03, size=(count, n_iterations))
    env_steps = np.cumsum(np.round(speed * step_time), axis=1)
    wall = np.cumsum(step_time, axis=1)

    batch = np.array([env.batch_env_steps for env in envs], dtype=float)[:, None]
    arrivals = speed * step_time / batch / workers  # batches per learner this iteration
    capacity = 1.3 * arrivals * rng.lognormal(0, 0.05, size=arrivals.shape)  # samples it can do
    samples = np.minimum(capacity, k * arrivals * (1 - 0.5 / (n + 1)))
    # a batch sampled u of K times on average is never sampled with chance ~ (1 - u/K)^K
    never_sampled = (1 - samples / (k * arrivals)) ** k
    added_b = np.cumsum(np.round(arrivals), axis=1)
    samples_b = np.minimum(np.cumsum(np.round(samples), axis=1), k * added_b)
    dropped_b = np.floor(np.cumsum(arrivals * never_sampled, axis=1))
    dropped_b = np.minimum(dropped_b, np.floor((k * added_b - samples_b) / k))
    lost = np.maximum(k * dropped_b, k * added_b - samples_b - n * k)

    quality = 1.2 - np.abs(np.log2(n * k / 8.0)) / 5
    progress = 2.5 * quality * env_steps / env_steps[:, -1:]
    start = np.array([env.start_return for env in envs])[:, None]
    best = np.array([env.best_return for env in envs])[:, None]
    noise = rng.normal(0, 0.04, size=progress.shape) * (best - start)
    returns = start + (best - start) * (1 - np.exp(-progress)) + noise
    returns = np.minimum(returns, best)
    returns[:, 0] = np.nan  # no episode has finished after the first iteration
    staleness = (n * k / 2) * rng.lognormal(0, 0.1, size=progress.shape)

    per_learner = {
        "buffer_batches_added_lifetime": added_b,
        "buffer_env_steps_added_lifetime": added_b * batch,
        "buffer_env_steps_dropped_lifetime": dropped_b * batch,
        "buffer_batches_dropped_lifetime": dropped_b,
        "buffer_lost_uses_lifetime": lost,
        "buffer_lost_use_env_steps_lifetime": lost * batch,
        "buffer_samples_lifetime": samples_b,
        "buffer_env_steps_trained_lifetime": samples_b * batch,
        "buffer_capacity": np.broadcast_to(n * k, added_b.shape),
        "learner_wait_s": step_time * np.clip(1 - samples / capacity, 0, 0.95),
        "deadlock_guard_releases_lifetime": np.zeros_like(added_b),
    }
    shared = {
        "buffer_staleness_updates_mean": staleness,
        "buffer_staleness_updates_p95": staleness * 2.2,
        "buffer_staleness_s_mean": staleness / np.maximum(capacity / step_time, 1e-9),
        "buffer_staleness_s_p95": 2.2 * staleness / np.maximum(capacity / step_time, 1e-9),
        "buffer_occupancy_mean": np.minimum(n * k, k * added_b - samples_b - lost + k),
    }
    iteration_values = {
        "env_steps": env_steps,
        "wall_time_s": wall,
        "time_this_iter_s": step_time,
        "episode_return_mean": returns,
        "episode_return_min": returns - 0.1 * (best - start),
        "episode_return_max": np.minimum(returns + 0.1 * (best - start), best),
        "env_steps_per_s": speed,
        "learner_update_s_mean": step_time / np.maximum(samples, 1),
        **shared,
    }
    iterations = _long_table(axes, alive, iteration_values | _summed(per_learner, workers))
    iterations["rllib_env_steps_trained_lifetime"] = (
        iterations["buffer_env_steps_trained_lifetime"] * 1.0
    )
    _add_ratios(iterations)
    learners = _learner_rows(axes, alive, per_learner | shared, workers)
    return iterations[list(schema.ITERATION_COLUMNS)], learners[list(schema.LEARNER_COLUMNS)]


def _summed(per_learner: dict, workers: np.ndarray) -> dict:
    return {name: values * workers for name, values in per_learner.items()}


def _add_ratios(table: pd.DataFrame) -> None:
    added = table["buffer_env_steps_added_lifetime"].where(
        table["buffer_env_steps_added_lifetime"] > 0
    )
    table["buffer_reuse"] = table["buffer_env_steps_trained_lifetime"] / added
    table["buffer_drop_fraction"] = table["buffer_env_steps_dropped_lifetime"] / added


def _long_table(axes: pd.DataFrame, alive: np.ndarray, values: dict) -> pd.DataFrame:
    rows, cols = np.nonzero(alive)
    table = axes.iloc[rows].reset_index(drop=True)
    table["iteration"] = cols + 1
    for name, array in values.items():
        table[name] = np.asarray(array)[rows, cols]
    return table


def _learner_rows(axes, alive, values: dict, workers: np.ndarray) -> pd.DataFrame:
    parts = []
    for rank in range(int(workers.max())):
        has_rank = alive & (workers > rank)
        part = _long_table(axes[["trial_id"]], has_rank, values)
        part.insert(2, "learner", rank)
        parts.append(part)
    learners = pd.concat(parts, ignore_index=True)
    _add_ratios(learners)
    return learners.sort_values(["trial_id", "iteration", "learner"], ignore_index=True)


def _failed_trial_index(count: int) -> int:
    return count // 2


def _run_metadata(specs: list[TrialSpec], seed: int) -> dict:
    """run.json with every key the sweep runner records (the values are made up)."""
    envs = {spec.env: spec.threshold for spec in specs}
    return {
        "sweep": SWEEP,
        "sweep_source": SWEEP,
        "run_id": f"synthetic-{seed}",
        "budget": {"name": BUDGET, "iteration_seconds": ITERATION_SECONDS},
        "command": "suite.bench.synthetic_store.write_synthetic_run (made-up numbers)",
        "git_commit": "0000000",
        "versions": {"ray": "2.60.0", "torch": "2.13.0", "python": "3.11"},
        "hardware": {"cpus": 2, "gpus": 0, "node": "synthetic"},
        "cluster": {"nodes": [{"CPU": 2.0}], "address": "local"},
        "overrides": {},
        "deadlock_guard": True,
        "stall_timeout_s": None,
        "thresholds": envs,
        "seeds": sorted({int(spec.axes["seed"]) for spec in specs}),
        "started_at": "2025-01-01T00:00:00+00:00",
        "ended_at": "2025-01-01T01:00:00+00:00",
        "status": "completed",
    }
