"""Row "search cost": what share of a search's trial CPU-seconds goes to training, and what each
of the search's choices buys, measured side by side on the same Pendulum trials.

Five runs of the ``pendulum`` config (6 seeds x 100k env steps each, one run per mode, in a
shuffled order recorded in the row), each a real sweep in its own process. Each mode adds or
drops one choice:

- ``one at a time``: today's grid trial, 2 CPUs each, checkpoints every 5 iterations, a new
  process per trial;
- ``one at a time, no checkpoints``;
- ``one at a time, no checkpoints, reused process``: Tune's ``reuse_actors``, the trainable
  building the next trial's algorithm in place (``SuiteAPPO.reset_config``);
- ``3 at once, no checkpoints``: a third of the 2 cores per trial (``THIRD_OF_TWO_CORES``);
- ``3 at once, no checkpoints, reused processes``: what a search runs.

Training share = sum over trials of CPUs x seconds inside ``train()`` (the iterations' own
``time_this_iter_s``) over sum of CPUs x seconds held (set-up start to end, ``timing.json``).
The same over the run's CPU-seconds (cluster CPUs x wall time) also charges the gaps between
trials, when no trial holds the CPUs: a new process starting, Tune's hand-over.
Throughput = env steps sampled by all trials / the run's wall time: the number a user waits on.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import tempfile
import textwrap
from pathlib import Path

from suite.bench.sweep_runs import run_sweep
from suite.store import schema
from suite.store.files import read_parquet
from suite.sweep.driver.run_record import cluster_cpus
from suite.sweep.search.spaces import THIRD_OF_TWO_CORES

TARGET = 0.85
RUN_TIMEOUT_S = 1_800.0  # one mode's run: minutes here; give up well past that
SWEEP = "search_cost"
SWEEP_FILE = """
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="search_cost",
    description="the pendulum config, as a search's trials run",
    configs=("pendulum",),
    axes={},
    budgets={
        "checkpointed": Budget(env_steps=ENV_STEPS, seeds=SEEDS, description="checkpoints on"),
        "uncheckpointed": Budget(
            env_steps=ENV_STEPS, seeds=SEEDS, description="no checkpoints", checkpoints=False
        ),
        "reused": Budget(
            env_steps=ENV_STEPS,
            seeds=SEEDS,
            description="no checkpoints, reused processes",
            checkpoints=False,
            reuse_processes=True,
        ),
    },
)
"""
SEARCH_MODE = "3 at once, no checkpoints, reused processes"
MODES = {  # mode: (budget, 3 at once)
    "one at a time": ("checkpointed", False),
    "one at a time, no checkpoints": ("uncheckpointed", False),
    "one at a time, no checkpoints, reused process": ("reused", False),
    "3 at once, no checkpoints": ("uncheckpointed", True),
    SEARCH_MODE: ("reused", True),
}


def shares(run_dir: Path) -> dict:
    iterations = read_parquet(run_dir / schema.ITERATIONS_FILE)
    training = iterations.groupby("trial_id")["time_this_iter_s"].sum()
    held = cpu_held = cpu_training = 0.0
    for path in (run_dir / schema.TRIAL_CONFIG_DIR).glob(f"*/{schema.TIMING_FILE}"):
        timing = json.loads(path.read_text())
        cpus = timing["resources"].get("CPU", 0.0)
        span = timing["ended_at"] - timing["started_at"]
        held += span
        cpu_held += cpus * span
        cpu_training += cpus * float(training.get(path.parent.name, 0.0))
    meta = json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())
    wall = (
        dt.datetime.fromisoformat(meta["ended_at"]) - dt.datetime.fromisoformat(meta["started_at"])
    ).total_seconds()
    steps = float(read_parquet(run_dir / schema.TRIALS_FILE)["env_steps"].sum())
    return {
        "training_share": cpu_training / cpu_held if cpu_held else float("nan"),
        "run_training_share": cpu_training / (cluster_cpus(meta) * wall),
        "run_wall_s": wall,
        "env_steps_per_s": steps / wall,
        "trial_held_s_mean": held / max(len(training), 1),
        "training_s_mean": float(training.mean()),
        "packing": meta["packing"],
        "trials": len(training),
    }


def measure(quick: bool) -> dict:
    env_steps, seeds = (20_000, 3) if quick else (100_000, 6)
    order = list(MODES)
    random.Random(dt.datetime.now().toordinal()).shuffle(order)
    found = {}
    with tempfile.TemporaryDirectory(prefix="suite-bench-search-") as folder:
        sweep_file = Path(folder) / f"{SWEEP}.py"
        text = SWEEP_FILE.replace("ENV_STEPS", str(env_steps)).replace("SEEDS", str(seeds))
        sweep_file.write_text(textwrap.dedent(text))
        for mode in order:
            budget, shared = MODES[mode]
            settings = [f"--set={k}={v}" for k, v in THIRD_OF_TWO_CORES.items()] if shared else []
            root = Path(folder) / mode.replace(" ", "_").replace(",", "")
            run_dir = run_sweep(
                str(sweep_file), budget, root, *settings, name=SWEEP, timeout_s=RUN_TIMEOUT_S
            )
            found[mode] = shares(run_dir)
            print(f"  {mode}: training share {found[mode]['training_share']:.2f}", flush=True)
    search = found[SEARCH_MODE]["training_share"]
    return {
        "config": "pendulum",
        "env_steps": env_steps,
        "seeds": seeds,
        "order": order,
        "modes": found,
        "search_mode": SEARCH_MODE,
        "target": TARGET,
        "met": None if quick else search >= TARGET,
    }


def render(data: dict) -> list[str]:
    lines = [
        f"The `{data['config']}` config, {data['seeds']} seeds x {data['env_steps']:,} env steps "
        f"per run, one run per mode in this order: {'; '.join(data['order'])}.",
        "",
        "| mode | training share of trial CPU-seconds | of the run's CPU-seconds | run wall s | "
        "env steps/s of the run | s held per trial | s training per trial | packing |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode, found in data["modes"].items():
        lines.append(
            f"| {mode} | **{found['training_share']:.2f}** | {found['run_training_share']:.2f} | "
            f"{found['run_wall_s']:.0f} | {found['env_steps_per_s']:,.0f} | "
            f"{found['trial_held_s_mean']:.1f} | {found['training_s_mean']:.1f} | "
            f"{found['packing']:.2f} |"
        )
    met = {None: "not judged (--quick)", True: "**met**", False: "**missed**"}[data["met"]]
    fastest = max(data["modes"], key=lambda mode: data["modes"][mode]["env_steps_per_s"])
    return [
        *lines,
        "",
        f"Target: a search's trials ({data['search_mode']}) spend >= {data['target']:.0%} of "
        f"their CPU-seconds training: {met}. The most env steps per second of the whole run: "
        f"{fastest} (one run per mode). Trials sharing 2 cores each train slower, so their share "
        "rises partly because training takes longer: the run's env steps/s says whether the "
        "machine got more done.",
        *_reuse_note(data["modes"]),
    ]


def _reuse_note(modes: dict) -> list[str]:
    """Each reused mode's seconds per trial against the same mode in new processes."""
    pairs = [
        (fresh, reused)
        for fresh, reused in (
            ("one at a time, no checkpoints", "one at a time, no checkpoints, reused process"),
            ("3 at once, no checkpoints", SEARCH_MODE),
        )
        if fresh in modes and reused in modes
    ]
    if not pairs:
        return []
    parts = [
        f"{modes[fresh]['training_s_mean']:.1f} s training and "
        f"{modes[fresh]['trial_held_s_mean'] - modes[fresh]['training_s_mean']:.1f} s not per "
        f"trial in new processes against {modes[reused]['training_s_mean']:.1f} s and "
        f"{modes[reused]['trial_held_s_mean'] - modes[reused]['training_s_mean']:.1f} s reused "
        f"({fresh.split(',')[0]})"
        for fresh, reused in pairs
    ]
    return [
        "",
        "A reused process saves the time between trials (packing), not the time a trial holds "
        f"its CPUs without training: {'; '.join(parts)}. With one run per mode, whether the "
        "reused runs also trained slower or the machine drifted between runs is not separated "
        "here.",
    ]
