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

Runs are interleaved variant by variant in a shuffled order (throughput drifts with run order
here). A variant is a config with the settings it runs with (``VARIANTS``): row 28 measures
``pendulum`` sampling in the trial's own process, and this row times its set-up beside the rest.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from suite.bench.peer_runs import run_timeout, write_one_trial_sweep
from suite.bench.sweep_runs import run_record, run_sweep
from suite.store import schema
from suite.store.reader import read_parquet


@dataclass(frozen=True)
class Variant:
    name: str  # the record's and the table's name for it
    config: str
    settings: dict = field(default_factory=dict)


VARIANTS = (
    Variant("pendulum_ppo_layout", "pendulum_ppo_layout"),
    Variant("pendulum", "pendulum"),
    Variant("pendulum, num_env_runners=0", "pendulum", {"num_env_runners": 0}),
)
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


def run_phases(variant: Variant, seed: int, folder: Path) -> dict[str, float]:
    """One trial of ``variant``: seconds per phase, and ``first_score_s`` from ``Popen``."""
    index = VARIANTS.index(variant)
    name = f"setup_{index}"
    sweep_file = write_one_trial_sweep(
        folder / f"{name}.py",
        variant.config,
        ENV_STEPS,
        "setup",
        f"one trial of {variant.name} (row setup)",
        settings=variant.settings,
    )
    popen_at = time.time()
    run_dir = run_sweep(
        str(sweep_file),
        "setup",
        folder / f"{name}-seed{seed}",
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
    order = [(variant, rep) for rep in range(repetitions) for variant in VARIANTS]
    random.Random(0).shuffle(order)
    runs = []
    with tempfile.TemporaryDirectory(prefix="setup-") as work:
        for variant, rep in order:
            seed = FIRST_SEED + rep
            phases_s = run_phases(variant, seed, Path(work))
            runs.append({"variant": variant.name, "seed": seed, **phases_s})
    return {
        "quick": quick,
        "env_steps": ENV_STEPS,
        "target_s": TARGET_S,
        "variants": [
            {"name": v.name, "config": v.config, "settings": v.settings} for v in VARIANTS
        ],
        "runs": runs,
    }


def render(data: dict) -> list[str]:
    by_variant = {
        v["name"]: [r for r in data["runs"] if r["variant"] == v["name"]] for v in data["variants"]
    }
    header = " | ".join(f"`{name}` (median of {len(runs)})" for name, runs in by_variant.items())
    lines = [
        f"One trial per run, {data['env_steps']:,} env steps, through `python -m suite.sweep` as a "
        "user types it (`--wandb off --no-report`), runs interleaved in a shuffled order; seconds "
        "from just before `Popen`, phases read from the run's `run.json` and `node.json` "
        "(`suite/bench/setup_time.py`).",
        "",
        f"| phase | {header} |",
        "|---|" + "---|" * len(by_variant),
    ]
    for key, label in (*PHASES, ("first_score_s", "**first score, from process start**")):
        cells = " | ".join(_median_cell(runs, key) for runs in by_variant.values())
        lines.append(f"| {label} | {cells} |")
    lines += ["", _target_line(data, by_variant)]
    return lines


def _median_cell(runs: list[dict], key: str) -> str:
    values = [r[key] for r in runs]
    if len(values) == 1:
        return f"{values[0]:.1f} s"
    return f"{statistics.median(values):.1f} s ({min(values):.1f}-{max(values):.1f})"


def _target_line(data: dict, by_variant: dict[str, list[dict]]) -> str:
    verdicts = []
    for name, runs in by_variant.items():
        median = statistics.median(r["first_score_s"] for r in runs)
        met = "met" if median <= data["target_s"] else "missed"
        verdicts.append(f"`{name}` {median:.1f} s: **{met}**")
    return (
        f"First score within {data['target_s']:.0f} s (issue 32, item 3): "
        + "; ".join(verdicts)
        + "."
    )
