"""Run one RLlib config as a bare Tune trial (no suite callbacks) and record its curve."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence

from ray import tune
from ray.rllib.algorithms.algorithm_config import AlgorithmConfig

from suite.bench.curves import Curve, CurveRecorder


def stop_at(env_steps: int, seconds: float) -> dict:
    """A fixed budget: env steps or trial time, whichever comes first (never a reward)."""
    return {"num_env_steps_sampled_lifetime": env_steps, "time_total_s": seconds}


def run_bare(
    config: AlgorithmConfig,
    stop: dict,
    trainable="APPO",
    recorders: Sequence[tune.Callback] = (),
) -> Curve:
    """One trial of ``config`` through ``tune.Tuner(trainable, param_space=config)``, the way an
    RLlib user runs it; returns the recorded curve (``recorders``: more Tune callbacks that
    record something). Raises if the trial errored."""
    recorder = CurveRecorder()
    with tempfile.TemporaryDirectory(prefix="suite-bench-") as storage:
        tuner = tune.Tuner(
            trainable,
            param_space=config,
            run_config=tune.RunConfig(
                storage_path=storage, stop=stop, callbacks=[recorder, *recorders], verbose=0
            ),
        )
        results = tuner.fit()
    if results.errors:
        raise RuntimeError(f"benchmark trial failed: {results.errors[0]}")
    return recorder.in_order()[0]
