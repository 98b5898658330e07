"""Row "impact": IMPACT's claim on 2 cores, reuse from the circular buffer against PPO's epochs.

IMPACT (Luo et al., 2020) claims its buffer "trains faster than existing scalable agents while
preserving the sample efficiency of synchronous PPO". Per env, two configs run on the same fresh
seeds, one run at a time in a shuffled order (throughput drifts with run order here):
- PPO-style: rl-zoo3's layout with its epochs inside every update, N=1, K=1
  (``pendulum_ppo_layout``, ``cartpole_ppo_layout``);
- buffer reuse: the same config with one pass per update (``num_epochs=1``) and K from the race
  of ``sweeps/impact_k.py`` (``results/example-impact_k-laptop-race``): it eliminated K=1, and
  K=4 and K=10 tied with the same steady reuse, so the same training; the row takes K=4.

Both are read at equal env steps (the return at the mark, as row 11 scores it) and at equal
wall time: every run's return at the seconds the faster config needed for the mark (its median),
the time by which both have data; the slower config has done fewer env steps by then. Seconds
are the trial's own, from its first step (set-up is the same program for both; row 11 clocks
it). Runs are kept in ``results/bench-impact/<arm>-s<seed>/`` (outside git): a
run already there is read, not run again.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from suite.bench.peer_runs import ReturnCurve, run_timeout, trial_curve, write_one_trial_sweep
from suite.bench.peers import PEER_ENVS, iqm_ci
from suite.bench.summary import spread
from suite.bench.sweep_runs import run_sweep
from suite.store import schema
from suite.store.files import read_parquet

FIRST_SEED, SEEDS = 50_000, 5  # no race, search or walk ran these
RUNS_DIR = Path("results") / "bench-impact"


@dataclass(frozen=True)
class Arm:
    name: str  # the row's name for it
    config: str
    settings: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Pair:
    env: str
    ppo_style: Arm
    reuse: Arm

    @property
    def peer(self):
        return next(peer for peer in PEER_ENVS if peer.env == self.env)

    @property
    def mark(self) -> int:
        return next(t.mark for t in self.peer.targets if t.kind == "return")


PAIRS = (
    Pair(
        "Pendulum-v1",
        Arm("pendulum_ppo_layout", "pendulum_ppo_layout"),
        Arm("pendulum_ppo_layout, 1 epoch, K=4", "pendulum_ppo_layout", {"num_epochs": 1, "k": 4}),
    ),
)


def measure(quick: bool, runs_dir: Path = RUNS_DIR, pairs: tuple[Pair, ...] = PAIRS) -> dict:
    seeds = list(range(FIRST_SEED, FIRST_SEED + (1 if quick else SEEDS)))
    runs = [(pair, arm, seed) for pair in pairs for arm in _arms(pair) for seed in seeds]
    random.Random(0).shuffle(runs)
    found: dict[str, dict[int, Run]] = {arm.name: {} for pair in pairs for arm in _arms(pair)}
    for pair, arm, seed in runs:
        run = run_or_read(arm, pair.mark, seed, runs_dir / f"{_slug(arm.name)}-s{seed}")
        found[arm.name][seed] = run
        print(f"  {arm.name} seed {seed}: {run.curve.return_at(pair.mark):.0f}", flush=True)
    return {
        "quick": quick,
        "seeds": seeds,
        "order": [f"{arm.name} seed {seed}" for _, arm, seed in runs],
        "envs": {pair.env: compare(pair, found) for pair in pairs},
    }


def _arms(pair: Pair) -> tuple[Arm, Arm]:
    return pair.ppo_style, pair.reuse


def _slug(name: str) -> str:
    return "".join(char if char.isalnum() else "_" for char in name)


@dataclass(frozen=True)
class Run:
    curve: ReturnCurve
    reuse: float  # the buffer's uses per batch, the suite's count (trials.parquet)
    num_epochs: int


def run_or_read(arm: Arm, env_steps: int, seed: int, folder: Path) -> Run:
    name = "impact_run"
    found = sorted((folder / name).glob(f"*/{schema.ITERATIONS_FILE}"))
    if found:
        return read_run(found[-1].parent, arm)
    folder.mkdir(parents=True, exist_ok=True)
    description = f"one trial of {arm.name}, as row 16 (impact) runs it"
    sweep_file = write_one_trial_sweep(
        folder / f"{name}.py", arm.config, env_steps, "impact", description, arm.settings
    )
    extra = ("--first-seed", str(seed))
    run_dir = run_sweep(
        str(sweep_file), "impact", folder, *extra, name=name, timeout_s=run_timeout(env_steps)
    )
    return read_run(run_dir, arm)


def read_run(run_dir: Path, arm: Arm) -> Run:
    from suite.configs.resolve import resolve  # the arm's epochs, as its run resolved them

    trial = read_parquet(run_dir / schema.TRIALS_FILE).iloc[0]
    epochs = int(resolve(arm.config, {}, arm.settings).num_epochs)
    return Run(trial_curve(run_dir), float(trial["reuse"]), epochs)


def compare(pair: Pair, found: dict[str, dict[int, Run]]) -> dict:
    names = [arm.name for arm in _arms(pair)]
    equal_s = float(min(_median_seconds(found[name], pair.mark) for name in names))
    return {
        "mark": pair.mark,
        "threshold": pair.peer.threshold,
        "equal_wall_s": equal_s,
        "configs": {name: side(found[name], pair, equal_s) for name in names},
        "ppo_style": pair.ppo_style.name,
        "reuse": pair.reuse.name,
    }


def _median_seconds(runs: dict[int, Run], mark: int) -> float:
    return float(np.median([run.curve.seconds_at(mark) for run in runs.values()]))


def side(runs: dict[int, Run], pair: Pair, equal_s: float) -> dict:
    ordered = [runs[seed] for seed in sorted(runs)]
    at_mark = [run.curve.return_at(pair.mark) for run in ordered]
    at_equal = [return_at_seconds(run.curve, equal_s) for run in ordered]
    to_threshold = [run.curve.first_crossing(pair.peer.threshold)[0] for run in ordered]
    return {
        "returns": dict(zip(map(str, sorted(runs)), at_mark, strict=True)),
        "iqm": _interval(at_mark),
        "iqm_at_equal_wall": _interval(at_equal),
        "env_steps_at_equal_wall": spread(
            [_steps_at_seconds(r.curve, equal_s) for r in ordered]
        ).as_dict(),
        "seconds_at_mark": spread([run.curve.seconds_at(pair.mark) for run in ordered]).as_dict(),
        "seconds_to_threshold": spread(to_threshold).as_dict(),
        "reached": sum(math.isfinite(s) for s in to_threshold),
        "reuse": spread([run.reuse for run in ordered]).as_dict(),
        "num_epochs": ordered[0].num_epochs,
    }


def return_at_seconds(curve: ReturnCurve, seconds: float) -> float:
    """The mean return at ``seconds`` of the run's clock (past its end, its last mean)."""
    return curve.return_at(_steps_at_seconds(curve, seconds))


def _steps_at_seconds(curve: ReturnCurve, seconds: float) -> float:
    return float(np.interp(seconds, curve.seconds, curve.env_steps))


def _interval(values: list[float]) -> dict:
    interval = iqm_ci(values)
    return {"point": interval.point, "low": interval.low, "high": interval.high}


def render(data: dict) -> list[str]:
    seeds = data["seeds"]
    lines = [
        f"Seeds {seeds[0]}-{seeds[-1]}, one run at a time in a shuffled order. Return: the "
        "20-episode mean (IQM over seeds, 95% bootstrap CI). Passes per batch: the config's "
        "epochs times the buffer's measured reuse (uses per batch, median over seeds). Seconds: "
        "the trial's own, from its first step.",
    ]
    for env, found in data["envs"].items():
        lines += ["", f"**{env}**", "", *_table(found), "", *_reading(found)]
    return lines


def _table(found: dict) -> list[str]:
    mark, equal_s = found["mark"] // 1000, found["equal_wall_s"]
    lines = [
        f"| config | passes per batch | return at {mark}k env steps | s to {mark}k (median) | "
        f"return at {equal_s:.0f} s | env steps by then (median) | "
        f"reached {found['threshold']:g} |",
        "|---|---|---|---|---|---|---|",
    ]
    for config, side in found["configs"].items():
        passes = side["num_epochs"] * side["reuse"]["median"]
        lines.append(
            f"| `{config}` | {side['num_epochs']} x {side['reuse']['median']:.2f} = {passes:.1f} | "
            f"{_iqm(side['iqm'])} | {side['seconds_at_mark']['median']:.0f} | "
            f"{_iqm(side['iqm_at_equal_wall'])} | "
            f"{side['env_steps_at_equal_wall']['median']:,.0f} | "
            f"{side['reached']} of {len(side['returns'])} |"
        )
    return lines


def _reading(found: dict) -> list[str]:
    ppo, reuse = found["configs"][found["ppo_style"]], found["configs"][found["reuse"]]
    names = f"`{found['reuse']}` against `{found['ppo_style']}`"
    return [
        f"- At equal env steps ({found['mark']:,}): {names}: {_judge(reuse['iqm'], ppo['iqm'])}.",
        f"- At equal wall time ({found['equal_wall_s']:.0f} s): {names}: "
        f"{_judge(reuse['iqm_at_equal_wall'], ppo['iqm_at_equal_wall'])}.",
    ]


def _judge(a: dict, b: dict) -> str:
    if any(math.isnan(value) for value in (*a.values(), *b.values())):
        return "cannot judge (a side has no return there)"
    if a["low"] > b["high"]:
        return "higher, the 95% CIs apart"
    if a["high"] < b["low"]:
        return "lower, the 95% CIs apart"
    return "no difference shown (the 95% CIs overlap)"


def _iqm(interval: dict) -> str:
    if math.isnan(interval["point"]):
        return "n/a"
    return f"{interval['point']:,.0f} [{interval['low']:,.0f}, {interval['high']:,.0f}]"
