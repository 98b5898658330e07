"""Row "overhead": env steps/s of a CartPole trial run through the suite vs a bare RLlib script.

A (bare): ``tune.Tuner("APPO", param_space=config)``, no suite callbacks, the fixed
``cartpole_probed`` config (a cheap workload whose settings never move when ``cartpole`` is
re-tuned, so records of this row stay comparable). B (suite): the same config as a one-trial
sweep through ``suite.sweep.driver.runner.start``: SuiteAPPO, the buffer accounting callback on
every learner, the results-store writer and the progress view (W&B off). A and B alternate
(A B A B ...), each for the same fixed training time; throughput is env steps per training
second after the warm-up iterations, read from Tune's own ``time_total_s`` on both sides, so
the driver-side work of B's callbacks shows up as the cores it takes from training on this
2-core machine.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from suite.bench.curves import Curve
from suite.bench.summary import interleaved_rates, spread
from suite.bench.tune_runs import run_bare, stop_at
from suite.configs.resolve import resolve
from suite.store import schema
from suite.sweep.driver.rundir import new_run_dir
from suite.sweep.driver.runner import start
from suite.sweep.options import SweepOptions
from suite.sweep.planning.plan import plan_sweep
from suite.sweep.planning.resources import connected_cluster
from suite.sweep.spec import Budget, Sweep

CONFIG = "cartpole_probed"
TARGET_RATIO = 0.97
ENV_STEPS_CAP = 10_000_000  # never reached: the time budget decides


def _one_trial_sweep(seconds: float) -> Sweep:
    budget = Budget(
        env_steps=ENV_STEPS_CAP,
        seeds=1,
        max_trial_s=seconds,
        description="one trial for the overhead benchmark",
    )
    return Sweep(
        name="bench_overhead",
        description="overhead benchmark",
        configs=(CONFIG,),
        axes={},
        budgets={"bench": budget},
    )


def run_through_suite(seconds: float, results_root: Path) -> Curve:
    """One suite trial (seed 0) for ``seconds`` of training; its curve read back from the store."""
    options = SweepOptions(budget="bench", results_dir=results_root, wandb="off", report=False)
    plan = plan_sweep(_one_trial_sweep(seconds), options, connected_cluster())
    run_dir = new_run_dir(results_root, plan.sweep.name)
    start(plan, run_dir, options)
    rows = pd.read_parquet(run_dir / schema.ITERATIONS_FILE).sort_values("iteration")
    steps, seconds_col = rows["env_steps"].tolist(), rows["wall_time_s"].tolist()
    return Curve(
        seconds=seconds_col,
        train_seconds=seconds_col,
        env_steps=steps,
        returns=rows["episode_return_mean"].tolist(),
    )


def run_bare_rllib(seconds: float) -> Curve:
    return run_bare(resolve(CONFIG, {"seed": 0}), stop_at(ENV_STEPS_CAP, seconds))


def measure(repetitions: int = 4, seconds: float = 20.0) -> dict:
    """Interleaved A/B repetitions after one unmeasured warm-up trial, in ABBA order so neither
    side always runs right after the other's trial shut down; needs a Ray instance started by
    the caller."""
    with tempfile.TemporaryDirectory(prefix="suite-bench-overhead-") as folder:
        sides = {
            "bare": lambda: run_bare_rllib(seconds).steady_rate(),
            "suite": lambda: run_through_suite(seconds, Path(folder)).steady_rate(),
        }
        rates = interleaved_rates(sides, repetitions, warm_up=lambda: run_bare_rllib(seconds))
    ratio = float(np.median(rates["suite"]) / np.median(rates["bare"]))
    return {
        "config": CONFIG,
        "seconds_per_run": seconds,
        "order": "one warm-up trial, then ABBA...",
        "bare": spread(rates["bare"]).as_dict(),
        "suite": spread(rates["suite"]).as_dict(),
        "ratio": ratio,
        "target": TARGET_RATIO,
        "met": ratio >= TARGET_RATIO,
    }
