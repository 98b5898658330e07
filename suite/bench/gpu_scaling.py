"""Row "GPU learner scaling": env steps/s of ``learner_scaling`` per learners x GPUs setting.

Needs a GPU cluster: ``python -m suite.bench --rows gpu --address HOST:PORT`` runs
``python -m suite.sweep learner_scaling --budget full --address HOST:PORT`` and reads the mean
env steps/s of each trial from the results store. Without an address nothing is run and the row
says so: no guessed numbers.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd

from suite.bench.sweep_runs import run_record, run_sweep
from suite.store import schema

SWEEP = "learner_scaling"
NOT_MEASURED = (
    "Not measured: no GPU cluster run exists yet. Run `python -m suite.bench --rows "
    "gpu --address HOST:PORT` against one."
)


def measure(address: str | None, budget: str = "full") -> dict:
    if not address:
        return {"measured": False, "text": NOT_MEASURED}
    with tempfile.TemporaryDirectory(prefix="suite-bench-gpu-") as folder:
        run_dir = run_sweep(SWEEP, budget, Path(folder), "--address", address)
        trials = pd.read_parquet(run_dir / schema.TRIALS_FILE)
        hardware = run_record(run_dir)["hardware"]
    per_setting = (
        trials.groupby(["num_learners", "num_gpus_per_learner"])["mean_env_steps_per_s"]
        .median()
        .reset_index(name="env_steps_per_s")
    )
    return {
        "measured": True,
        "machine": f"Ray cluster at {address}, driver node {hardware}",
        "rows": per_setting.to_dict("records"),
    }
