"""Row "setup": where a Pendulum trial's time goes from process start to its first score.

Each run is one trial of a config through ``python -m suite.sweep`` as a user types it (a
one-trial sweep file, ``--wandb off --no-report``), clocked from just before ``Popen``, as row 11
clocks it. The phases are read from the run's own records, all epoch seconds on this machine:

- **Python, imports and plan**: ``Popen`` to the driver calling ``ray.init``
  (``run.json``'s ``setup_clock.ray_started_at``);
- **Ray start**: ``ray.init`` itself (to ``setup_clock.ray_ready_at``);
- **Tune to the trial process**: from Ray up to the trial's ``__init__`` in its own process
  (``node.json``'s ``setup_started_at``): Tune's start, the placement group, the actor's process
  and its imports;
- **algorithm build**: the trial's ``__init__`` (to ``setup_built_at``): RLlib builds the env
  runners, the learner and its connectors;
- **first iteration**: to the first result (``node.json``'s ``result_at``);
- **first iteration to the first score**: to the first iteration with a 20-episode mean
  (counted from the first result by the trial's ``wall_time_s``).

Runs are interleaved config by config in a shuffled order (throughput drifts with run order here).
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from suite.bench.peer_runs import run_timeout, write_one_trial_sweep
from suite.bench.sweep_runs import run_record, run_sweep
from suite.store import schema
from suite.store.reader import read_parquet

CONFIGS = ("pendulum_ppo_layout", "pendulum")
ENV_STEPS = 8_192  # two of pendulum_ppo_layout's train batches: set-up dominates
FIRST_SEED = 100
TARGET_S = 10.0  # issue 32, item 3: a Pendulum trial's first score within 10 s
PHASES = (
    ("imports_and_plan_s", "Python, imports and plan"),
    ("ray_start_s", "Ray start"),
    ("to_trial_process_s", "Tune to the trial process"),
    ("algorithm_build_s", "algorithm build"),
    ("first_iteration_s", "first iteration"),
    ("to_first_score_s", "first iteration to the first score"),
)


def run_phases(config: str, seed: int, folder: Path) -> dict[str, float]:
    """One trial of ``config``: seconds per phase, and ``first_score_s`` from ``Popen``."""
    name = f"setup_{config}"
    sweep_file = write_one_trial_sweep(
        folder / f"{name}.py", config, ENV_STEPS, "setup", f"one trial of {config} (row setup)"
    )
    popen_at = time.time()
    run_dir = run_sweep(
        str(sweep_file),
        "setup",
        folder / f"{config}-seed{seed}",
        "--first-seed",
        str(seed),
        name=name,
        timeout_s=run_timeout(ENV_STEPS),
    )
    return phases(run_dir, popen_at)


def phases(run_dir: Path, popen_at: float) -> dict[str, float]:
    clock = run_record(run_dir)["setup_clock"]
    (node_file,) = (run_dir / schema.TRIAL_CONFIG_DIR).glob(f"*/{schema.NODE_FILE}")
    node = json.loads(node_file.read_text())
    scored_at = node["result_at"] + seconds_to_first_score(
        read_parquet(node_file.parent / schema.ITERATIONS_FILE)
    )
    marks = [
        popen_at,
        clock["ray_started_at"],
        clock["ray_ready_at"],
        node["setup_started_at"],
        node["setup_built_at"],
        node["result_at"],
        scored_at,
    ]
    seconds = {
        key: later - earlier
        for (key, _), earlier, later in zip(PHASES, marks[:-1], marks[1:], strict=True)
    }
    return {**seconds, "first_score_s": scored_at - popen_at}


def seconds_to_first_score(iterations) -> float:
    """From the first iteration's result to the first with a mean return, by ``wall_time_s``."""
    rows = iterations.sort_values("iteration")
    scored = rows[rows["episode_return_mean"].notna()]
    if scored.empty:
        return float("nan")
    return float(scored["wall_time_s"].iloc[0] - rows["wall_time_s"].iloc[0])


def measure(quick: bool = False) -> dict:
    repetitions = 1 if quick else 3
    order = [(config, rep) for rep in range(repetitions) for config in CONFIGS]
    random.Random(0).shuffle(order)
    runs = []
    with tempfile.TemporaryDirectory(prefix="setup-") as work:
        for config, rep in order:
            seed = FIRST_SEED + rep
            runs.append({"config": config, "seed": seed, **run_phases(config, seed, Path(work))})
    return {"quick": quick, "env_steps": ENV_STEPS, "target_s": TARGET_S, "runs": runs}


def render(data: dict) -> list[str]:
    by_config = {c: [r for r in data["runs"] if r["config"] == c] for c in CONFIGS}
    header = " | ".join(f"`{c}` (median of {len(runs)})" for c, runs in by_config.items())
    lines = [
        f"One trial per run, {data['env_steps']:,} env steps, through `python -m suite.sweep` as a "
        "user types it (`--wandb off --no-report`), runs interleaved in a shuffled order; seconds "
        "from just before `Popen`, phases read from the run's `run.json` and `node.json` "
        "(`suite/bench/setup_time.py`).",
        "",
        f"| phase | {header} |",
        "|---|" + "---|" * len(by_config),
    ]
    for key, label in (*PHASES, ("first_score_s", "**first score, from process start**")):
        cells = " | ".join(_median_cell(runs, key) for runs in by_config.values())
        lines.append(f"| {label} | {cells} |")
    lines += ["", _target_line(data, by_config)]
    return lines


def _median_cell(runs: list[dict], key: str) -> str:
    values = [r[key] for r in runs]
    if len(values) == 1:
        return f"{values[0]:.1f} s"
    return f"{statistics.median(values):.1f} s ({min(values):.1f}-{max(values):.1f})"


def _target_line(data: dict, by_config: dict[str, list[dict]]) -> str:
    verdicts = []
    for config, runs in by_config.items():
        median = statistics.median(r["first_score_s"] for r in runs)
        met = "met" if median <= data["target_s"] else "missed"
        verdicts.append(f"`{config}` {median:.1f} s: **{met}**")
    return (
        f"First score within {data['target_s']:.0f} s (issue 32, item 3): "
        + "; ".join(verdicts)
        + "."
    )
