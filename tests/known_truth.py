"""Synthetic results stores whose best N x K cell is known, for the verdict and --compare tests.

Built from ``write_synthetic_run`` (2 envs x N{1,2,4,8} x K{1,2,4}); the curves' returns are then
overwritten: every cell scores around ``base``, chosen cells around ``base + lift``.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from suite.bench.synthetic_store import NS, write_synthetic_run
from suite.store import schema

CARTPOLE, PONG = "CartPole-v1", "ALE/Pong-v5"
GRID_CELLS = 2 * len(NS) * 3


def known_truth_run(
    path: Path,
    seeds: int,
    lifted: dict[tuple, float],
    *,
    pong_at_floor: bool = True,
    silent: tuple = (),
    seed: int = 0,
    exact: dict[tuple, list[float]] | None = None,
    pong_base: float | None = None,
    with_failed_trial: bool = True,
) -> Path:
    """CartPole returns ~100 (noise sd 1) plus ``lifted[(n, k)]``; Pong at -21 if asked, or
    ``pong_base`` plus a hundredth of CartPole's lift and noise; cells in ``silent`` never finish
    an episode; ``exact[(n, k)]`` sets CartPole's return of that cell per seed."""
    shutil.copytree(_synthetic_grid(seeds, seed, with_failed_trial), path)
    iterations = pd.read_parquet(path / schema.ITERATIONS_FILE)
    rng = np.random.default_rng(seed)
    noise = rng.normal(0.0, 1.0, size=iterations["trial_id"].nunique())
    per_trial = dict(zip(sorted(iterations["trial_id"].unique()), noise, strict=True))
    cartpole = iterations["env"] == CARTPOLE
    lift = [lifted.get((n, k), 0.0) for n, k in zip(iterations["n"], iterations["k"], strict=True)]
    values = 100.0 + np.asarray(lift) + iterations["trial_id"].map(per_trial).to_numpy()
    pong = -21.0 if pong_at_floor else values
    if pong_base is not None:
        pong = pong_base + (values - 100.0) / 100.0
    returns = np.where(cartpole, values, pong)
    for (n, k), per_seed in (exact or {}).items():
        chosen = cartpole & (iterations["n"] == n) & (iterations["k"] == k)
        by_seed = iterations["seed"].map(dict(enumerate(per_seed)))
        returns = np.where(chosen, by_seed.to_numpy(dtype=float), returns)
    returns = np.where(iterations["iteration"] == 1, np.nan, returns)
    for n, k in silent:
        returns = np.where(
            cartpole & (iterations["n"] == n) & (iterations["k"] == k), np.nan, returns
        )
    iterations["episode_return_mean"] = returns
    iterations.to_parquet(path / schema.ITERATIONS_FILE, index=False)
    return path


@functools.cache
def _grids_folder() -> Path:
    folder = tempfile.mkdtemp(prefix="known-truth-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Path(folder)


@functools.cache
def _synthetic_grid(seeds: int, seed: int, with_failed_trial: bool) -> Path:
    """``write_synthetic_run`` of the grid, written once per test session for each argument set
    and copied from there (the store holds no path of its own, and writing one through the
    sweep's table writes takes a second or two). Never changed in place."""
    grid = _grids_folder() / f"{seeds}-seeds-{seed}-{with_failed_trial}"
    write_synthetic_run(grid, GRID_CELLS * seeds, 6, seed=seed, with_failed_trial=with_failed_trial)
    return grid


def copy_as_other_run(source: Path, target: Path, run_id: str) -> Path:
    shutil.copytree(source, target)
    metadata_file = target / schema.RUN_METADATA_FILE
    metadata = json.loads(metadata_file.read_text())
    metadata["run_id"] = run_id
    metadata_file.write_text(json.dumps(metadata))
    return target


def shift_returns(path: Path, env: str, n: int, k: int, by: float) -> None:
    iterations = pd.read_parquet(path / schema.ITERATIONS_FILE)
    chosen = (iterations["env"] == env) & (iterations["n"] == n) & (iterations["k"] == k)
    iterations.loc[chosen, "episode_return_mean"] += by
    iterations.to_parquet(path / schema.ITERATIONS_FILE, index=False)
