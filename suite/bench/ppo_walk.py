"""Row "ppo_walk": from SB3's PPO to APPO in PPO's layout on Pendulum, one difference at a time.

Every step runs the same seeds at 100k env steps, one run at a time, in a shuffled order
(throughput drifts with run order on this machine): SB3's PPO as rl-zoo3 ships it, then APPO in
rl-zoo3's layout (``sweeps/pendulum_ppo_layout.py``, the config ``pendulum_ppo_layout``) with
RLlib's learner, then with the suite's learner at lambda 1 (V-trace along whole chunks, the
bootstrap row masked: the one change from RLlib's), then at rl-zoo3's lambda 0.95 (the one
change from the step before). Each run's return is the 20-episode mean at 100k env steps, as
row 11 scores it; its seconds are the trial's own (set-up excluded: row 11 clocks that).

Runs are kept in ``results/bench-ppo_walk/<step>-s<seed>/`` (outside git): a run already there is
read, not run again, so an interrupted walk resumes and a finished run is never lost.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from suite.bench import zoo_runs
from suite.bench.peer_runs import ReturnCurve, episode_curve, run_timeout, trial_curve
from suite.bench.peers import iqm_ci
from suite.bench.summary import spread
from suite.bench.sweep_runs import run_sweep
from suite.store import schema

ENV = "Pendulum-v1"
SWEEP = "sweeps/pendulum_ppo_layout.py"
SWEEP_NAME = "pendulum_ppo_layout"
BUDGET = "walk"
MARK = 100_000
THRESHOLD = -250.0  # row 11's Pendulum threshold
FIRST_SEED, SEEDS = 7, 5  # the seeds of issue 32's measurement; no config was chosen on them
RUNS_DIR = Path("results") / "bench-ppo_walk"
SB3 = "sb3"


@dataclass(frozen=True)
class Step:
    key: str
    label: str
    sets: tuple[str, ...]  # --set arguments for the sweep; none for SB3


STEPS = (
    Step(SB3, "SB3 PPO, rl-zoo3's settings (gSDE, GAE 0.95, advantage normalisation)", ()),
    Step("rllib", "APPO in rl-zoo3's layout, RLlib's learner", ("learner='rllib'",)),
    Step(
        "suite-lambda1",
        "... the suite's learner: V-trace along whole chunks, bootstrap row masked (lambda 1)",
        ("lambda=1.0",),
    ),
    Step("suite-lambda0.95", "... and lambda 0.95, rl-zoo3's (pendulum_ppo_layout)", ()),
)


def measure(quick: bool, runs_dir: Path = RUNS_DIR) -> dict:
    seeds = list(range(FIRST_SEED, FIRST_SEED + (1 if quick else SEEDS)))
    runs = [(step, seed) for step in STEPS for seed in seeds]
    random.Random(0).shuffle(runs)
    curves: dict[str, dict[int, ReturnCurve]] = {step.key: {} for step in STEPS}
    for step, seed in runs:
        curves[step.key][seed] = run_or_read(step, seed, runs_dir / f"{step.key}-s{seed}")
        print(f"  {step.key} seed {seed}: {curves[step.key][seed].return_at(MARK):.0f}", flush=True)
    return {
        "quick": quick,
        "env": ENV,
        "mark": MARK,
        "threshold": THRESHOLD,
        "seeds": seeds,
        "order": [f"{step.key} seed {seed}" for step, seed in runs],
        "steps": {
            step.key: {"label": step.label, "sets": list(step.sets), **summary(curves[step.key])}
            for step in STEPS
        },
    }


def run_or_read(step: Step, seed: int, folder: Path) -> ReturnCurve:
    if step.key == SB3:
        return _sb3(seed, folder)
    found = sorted((folder / SWEEP_NAME).glob(f"*/{schema.ITERATIONS_FILE}"))
    run_dir = found[-1].parent if found else _run(step, seed, folder)
    return trial_curve(run_dir)


def _run(step: Step, seed: int, folder: Path) -> Path:
    sets = [part for value in step.sets for part in ("--set", value)]
    extra = ("--seeds", "1", "--first-seed", str(seed), *sets)
    return run_sweep(SWEEP, BUDGET, folder, *extra, name=SWEEP_NAME, timeout_s=run_timeout(MARK))


def _sb3(seed: int, folder: Path) -> ReturnCurve:
    done = sorted(folder.glob(f"ppo/{ENV}_*"))
    if done and list(done[-1].glob(zoo_runs.MONITOR_GLOB)):
        episodes = zoo_runs.read_episodes(done[-1])
        return episode_curve(episodes, float(episodes["ended_at"].min()))
    run = zoo_runs.run_zoo(ENV, MARK, seed, folder, run_timeout(MARK))
    return episode_curve(zoo_runs.read_episodes(run.run_dir), run.started_at)


def summary(curves: dict[int, ReturnCurve]) -> dict:
    returns = {seed: curve.return_at(MARK) for seed, curve in sorted(curves.items())}
    interval = iqm_ci(list(returns.values()))
    seconds = [curve.first_crossing(THRESHOLD)[0] for curve in curves.values()]
    return {
        "returns": {str(seed): value for seed, value in returns.items()},
        "iqm": {"point": interval.point, "low": interval.low, "high": interval.high},
        "seconds_at_mark": spread([curve.seconds_at(MARK) for curve in curves.values()]).as_dict(),
        "seconds_to_threshold": spread(seconds).as_dict(),
        "reached": sum(math.isfinite(s) for s in seconds),
    }


def render(data: dict) -> list[str]:
    seeds = data["seeds"]
    lines = [
        f"{data['env']}, seeds {seeds[0]}-{seeds[-1]}, one run at a time in a shuffled order; "
        f"return: the 20-episode mean at {data['mark']:,} env steps; seconds: the run's own, "
        "from its first step (SB3: from its first episode's end).",
        "",
        "| step | return per seed | IQM [95% CI] | s at "
        f"{data['mark'] // 1000}k (median) | reached {data['threshold']:g} |",
        "|---|---|---|---|---|",
    ]
    for step in data["steps"].values():
        returns = ", ".join(_number(value) for value in step["returns"].values())
        iqm = step["iqm"]
        lines.append(
            f"| {step['label']} | {returns} | {_number(iqm['point'])} "
            f"[{_number(iqm['low'])}, {_number(iqm['high'])}] | "
            f"{step['seconds_at_mark']['median']:.0f} | {step['reached']} of {len(seeds)} |"
        )
    return lines


def _number(value: float) -> str:
    return "n/a" if value is None or np.isnan(value) else f"{value:,.0f}"
