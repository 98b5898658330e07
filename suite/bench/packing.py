"""Row "sweep packing": trial CPU-seconds over cluster CPU-seconds of a real ``cartpole_nk`` run.

Runs ``python -m suite.sweep cartpole_nk --budget B --wandb off --no-report`` as a user would
(a subprocess, so it starts its own Ray) and reads ``packing`` from the run's run.json; the
per-trial timing.json files say where the rest went: trial set-up (held but not yet training)
and gaps between trials (no trial holding CPUs). The smoke budget runs the fixed
``cartpole_probed`` (row 4a stays comparable when ``cartpole`` is re-tuned); the laptop budget
runs ``cartpole``, the sweep a user runs (row 4b follows it).
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from pathlib import Path

from suite.bench.sweep_runs import run_record, run_sweep
from suite.store import schema
from suite.sweep.driver.run_record import cluster_cpus

SWEEP = "cartpole_nk"
TARGET = 0.95


def where_time_went(run_dir: Path) -> dict:
    """Run wall time against the time trials held their CPUs (from the start of their set-up to
    their end); trials run one at a time here, so the rest is gaps between trials and the run's
    own start-up and shut-down."""
    meta = run_record(run_dir)
    started = dt.datetime.fromisoformat(meta["started_at"]).timestamp()
    ended = dt.datetime.fromisoformat(meta["ended_at"]).timestamp()
    spans = []
    for path in (run_dir / schema.TRIAL_CONFIG_DIR).glob(f"*/{schema.TIMING_FILE}"):
        timing = json.loads(path.read_text())
        spans.append((timing["started_at"], timing["ended_at"], timing["resources"].get("CPU")))
    held = sum(end - begin for begin, end, _ in spans)
    return {
        "run_wall_s": ended - started,
        "trial_held_s": held,
        "trials": len(spans),
        "cpus_per_trial": sorted({cpus for *_, cpus in spans}),
        "cluster_cpus": cluster_cpus(meta),
        "packing": meta["packing"],
    }


def measure(budget: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="suite-bench-packing-") as folder:
        result = where_time_went(run_sweep(SWEEP, budget, Path(folder)))
    print(f"  {budget}: packing {result['packing']:.3f}", flush=True)
    return {
        "sweep": SWEEP,
        "budget": budget,
        **result,
        "target": TARGET,
        "met": result["packing"] >= TARGET,
    }
