"""Rows "ppo_walk" and "ppo_walk_cartpole": from SB3's PPO to APPO in PPO's layout, one difference
at a time (``PENDULUM``, ``CARTPOLE``); "ppo_walk_sampler" and "ppo_walk_cartpole_tuned": from a
layout or a tuned config, one change at a time (``PENDULUM_SAMPLER``, ``CARTPOLE_TUNED``);
"ppo_walk_pendulum_early": what SB3's PPO does that APPO in its layout does not, on each side, read
at 50k env steps (``PENDULUM_EARLY``); "ppo_walk_pendulum_tuned" and
"ppo_walk_cartpole_shuffled": the tuned Pendulum and CartPole configs with row 23's largest
finding added (``PENDULUM_TUNED``, ``CARTPOLE_TUNED_SHUFFLED``); "ppo_walk_pendulum_init" and
"ppo_walk_cartpole_init": rl-zoo3's layouts with SB3's initialisation, SB3 beside them
(``PENDULUM_INIT``, ``CARTPOLE_INIT``); "ppo_walk_pendulum_in_process" and
"ppo_walk_cartpole_in_process": the tuned configs sampling in the trial's own process
(``PENDULUM_IN_PROCESS``, ``CARTPOLE_IN_PROCESS``); "ppo_walk_pendulum_configs": the library's
two Pendulum configs side by side (``PENDULUM_CONFIGS``).

Every step of a walk runs the same seeds, one run at a time, in a shuffled order (throughput
drifts with run order on this machine), and is read at the walk's mark as row 11 reads it (the
20-episode mean); its seconds are the run's own (set-up excluded: row 11 clocks that).

- Pendulum: SB3's PPO as rl-zoo3 ships it, then APPO in rl-zoo3's layout
  (``sweeps/pendulum_ppo_layout.py``) with RLlib's learner, then with the suite's learner at
  lambda 1 (V-trace along whole chunks, the bootstrap row masked: the one change from RLlib's),
  then at rl-zoo3's lambda 0.95 (the one change from the step before).
- CartPole: rl-zoo3's linear lr and clip schedules, on and off on each side: SB3's PPO with them
  (as rl-zoo3 ships it) and held constant, then APPO in rl-zoo3's layout
  (``sweeps/cartpole_ppo_layout.py``) held constant and with them; then APPO held constant with
  SB3's advantage normalisation, and with PPO's ratio against the behaviour policy instead of
  IMPACT's target network (each the one change from APPO held constant); last, PPO's ratio with
  an entropy bonus, and with more policy lag (each the one change from PPO's ratio).

Runs are kept in ``results/bench-ppo_walk*/<step>-s<seed>/`` (outside git): a run already there
is read, not run again, so an interrupted walk resumes and a finished run is never lost.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from suite.bench import zoo_runs
from suite.bench.peer_runs import ReturnCurve, episode_curve, run_timeout, trial_curve
from suite.bench.peers import iqm_ci
from suite.bench.summary import spread
from suite.bench.sweep_runs import run_sweep
from suite.stats.elimination import welch_two_sided
from suite.store import schema

SB3 = "sb3"


@dataclass(frozen=True)
class Step:
    key: str
    label: str
    sets: tuple[str, ...] = ()  # --set arguments for the sweep (an APPO step)
    zoo: zoo_runs.ZooSettings | None = None  # an SB3 step: rl-zoo3's settings, as replaced
    base: str | None = None  # the step it is compared with (None: none)
    sweep: tuple[str, str] | None = None  # another config's sweep (file, name), not the walk's


@dataclass(frozen=True)
class Walk:
    """One env's walk: its steps, each run on the same seeds and read at ``mark`` env steps."""

    env: str
    sweep: str  # the sweep file each APPO step runs, at its "walk" budget
    sweep_name: str
    mark: int
    run_env_steps: int  # SB3's -n (its linear schedules end there)
    threshold: float  # row 11's threshold for the env
    first_seed: int
    steps: tuple[Step, ...]
    runs_dir: Path
    seeds: int = 5
    early_mark: int | None = None  # also read there, in a table of its own


BUDGET = "walk"

PENDULUM = Walk(
    env="Pendulum-v1",
    sweep="sweeps/pendulum_ppo_layout.py",
    sweep_name="pendulum_ppo_layout",
    mark=100_000,
    run_env_steps=100_000,
    threshold=-250.0,
    first_seed=7,  # the seeds of issue 32's measurement; no config was chosen on them
    steps=(
        Step(
            SB3,
            "SB3 PPO, rl-zoo3's settings (gSDE, GAE 0.95, advantage normalisation)",
            zoo=zoo_runs.ZOO_DEFAULTS,
        ),
        Step("rllib", "APPO in rl-zoo3's layout, RLlib's learner", ("learner='rllib'",)),
        Step(
            "suite-lambda1",
            "... the suite's learner: V-trace along whole chunks, bootstrap row masked (lambda 1)",
            ("lambda=1.0",),
            base="rllib",
        ),
        Step(
            "suite-lambda0.95",
            "... and lambda 0.95, rl-zoo3's (pendulum_ppo_layout)",
            base="suite-lambda1",
        ),
    ),
    runs_dir=Path("results") / "bench-ppo_walk",
)

# rl-zoo3 decays CartPole's lr (1e-3) and clip (0.2) linearly to 0 over the run (-n, 60,000 env
# steps here as in row 11): each side runs once with them and once held constant.
CARTPOLE_LINEAR = ("lr=[[0, 0.001], [60000, 0.0]]", "clip_param_schedule=[[0, 0.2], [60000, 0.0]]")
# The base every APPO step changes one thing of, spelled out so that it stays what these runs
# measured whatever cartpole_ppo_layout becomes.
CARTPOLE_CONSTANT = (
    "lr=0.001",
    "clip_param_schedule=None",
    "normalize_advantages=False",
    "ratio_to_behaviour=False",
)
CARTPOLE = Walk(
    env="CartPole-v1",
    sweep="sweeps/cartpole_ppo_layout.py",
    sweep_name="cartpole_ppo_layout",
    mark=50_000,
    run_env_steps=60_000,
    threshold=475.0,
    first_seed=7,  # no CartPole config was chosen on them (row 11: 60,000 on)
    steps=(
        Step(
            SB3,
            "SB3 PPO, rl-zoo3's settings (lr and clip linear to 0 at 60k env steps)",
            zoo=zoo_runs.ZOO_DEFAULTS,
        ),
        Step(
            "sb3-constant",
            "... lr 1e-3 and clip 0.2 held constant",
            zoo=zoo_runs.ZooSettings(hyperparams=("learning_rate:0.001", "clip_range:0.2")),
            base=SB3,
        ),
        Step(
            "suite-constant",
            "APPO in rl-zoo3's layout, the suite's learner, lr and clip constant",
            CARTPOLE_CONSTANT,
        ),
        Step(
            "suite-linear",
            "... lr and clip linear to 0 at 60k env steps",
            CARTPOLE_LINEAR,
            base="suite-constant",
        ),
        Step(
            "suite-constant-normalized",
            "APPO held constant, with SB3's advantage normalisation (per minibatch)",
            (*CARTPOLE_CONSTANT, "normalize_advantages=True"),
            base="suite-constant",
        ),
        Step(
            "suite-constant-ppo-ratio",
            "APPO held constant, with PPO's ratio (the policy against the behaviour policy, not "
            "IMPACT's target network)",
            (*CARTPOLE_CONSTANT, "ratio_to_behaviour=True"),
            base="suite-constant",
        ),
        # A guess of the run of 2026-12-06T15:34 (row 19's notes): the policy turns
        # near-deterministic before it is good. SB3 has no entropy bonus here either.
        Step(
            "suite-ppo-ratio-entropy",
            "APPO with PPO's ratio (cartpole_ppo_layout), with an entropy bonus of 0.01",
            (*CARTPOLE_CONSTANT, "ratio_to_behaviour=True", "entropy_coeff=0.01"),
            base="suite-constant-ppo-ratio",
        ),
        # The other guess: policy lag. More of it, the buffer's capacity raised with it so that
        # no batch is dropped (with K=1, drops need broadcast_interval > N).
        Step(
            "suite-ppo-ratio-lag",
            "APPO with PPO's ratio, with more policy lag: weights to the env runner every 2nd "
            "update (broadcast_interval 2), N=2 so that no batch is dropped",
            (*CARTPOLE_CONSTANT, "ratio_to_behaviour=True", "broadcast_interval=2", "n=2"),
            base="suite-constant-ppo-ratio",
        ),
    ),
    runs_dir=Path("results") / "bench-ppo_walk_cartpole",
    seeds=10,  # 5 left the PPO ratio's lead within the CIs (run of 2026-12-06T13:12)
)


# Row 21: how many envs per env runner. RLlib's env runner pays its connectors and a round trip
# per sample call and per vector step, so in rl-zoo3's 4-env layout its learner waits for batches
# (benchmarks/probes/sampler_layout.py). Same batches, same seeds as the walk above; more envs
# means fewer steps per env in each batch. rollout_fragment_length cannot grow instead: RLlib
# requires the 64-sample minibatch to be a multiple of it.
PENDULUM_SAMPLER = replace(
    PENDULUM,
    steps=(
        Step(
            "suite-4envs", "APPO in rl-zoo3's layout (pendulum_ppo_layout), 4 envs per env runner"
        ),
        Step(
            "suite-16envs",
            "... 16 envs per env runner (256 steps per env in each 4,096-step batch)",
            ("num_envs_per_env_runner=16",),
            base="suite-4envs",
        ),
        Step(
            "suite-32envs",
            "... 32 envs per env runner (128 steps per env in each batch)",
            ("num_envs_per_env_runner=32",),
            base="suite-4envs",
        ),
    ),
    runs_dir=Path("results") / "bench-ppo_walk_sampler",
)

# Row 22: the tuned CartPole config (cartpole_search's pick under the suite's learner) took a
# bundle of choices at once; each step takes one back, on seeds its search never saw (its
# evidence file, suite/configs/promoted/cartpole_search_laptop_suite.json, lists the held-out
# ones; the search's own start at 0). The seconds column is what each costs in wall time.
CARTPOLE_TUNED = Walk(
    env="CartPole-v1",
    sweep="sweeps/cartpole_tuned_walk.py",
    sweep_name="cartpole_tuned_walk",
    mark=50_000,
    run_env_steps=60_000,
    threshold=475.0,
    first_seed=7,
    steps=(
        Step("tuned", "the tuned config (cartpole_search_laptop_suite)"),
        Step("k1", "... K=1: each batch used once", ("k=1",), base="tuned"),
        Step(
            "no-entropy", "... no entropy bonus (0.01 there)", ("entropy_coeff=0.0",), base="tuned"
        ),
        Step(
            "tanh64",
            "... rl-zoo3's 64x64 tanh networks (256x256 ReLU there)",
            ("model.fcnet_hiddens=[64, 64]", "model.fcnet_activation='tanh'"),
            base="tuned",
        ),
        Step(
            "no-filter",
            "... no observation normalisation (MeanStdFilter there)",
            ("observation_filter='none'",),
            base="tuned",
        ),
        Step(
            "impact-ratio",
            "... IMPACT's ratio against the target network (PPO's ratio there)",
            ("ratio_to_behaviour=False",),
            base="tuned",
        ),
    ),
    runs_dir=Path("results") / "bench-ppo_walk_cartpole_tuned",
)
# Row 23: where APPO loses Pendulum early. Row 11 read `pendulum_ppo_layout` far behind SB3 at
# 50k env steps and about level at 100k, so this walk reads the 50k mark. On SB3's side it takes
# away what APPO does not do; on APPO's, each step is one thing SB3's PPO does differently that
# the suite can switch: advantage normalisation, PPO's ratio against the behaviour policy,
# shuffled minibatches, and SB3's exploration noise in the env's own action units (RLlib's
# normalize_actions samples in [-1, 1] and scales by Pendulum's torque bound of 2, so the same
# std explores twice as wide; SB3 samples the torque itself, which the env clips).
PENDULUM_EARLY = replace(
    PENDULUM,
    mark=50_000,
    steps=(
        Step(SB3, "SB3 PPO, rl-zoo3's settings", zoo=zoo_runs.ZOO_DEFAULTS),
        # SB3 without what APPO cannot or does not do there: gSDE, then advantage normalisation.
        Step(
            "sb3-no-sde",
            "... without gSDE (a Gaussian whose std does not depend on the state)",
            zoo=zoo_runs.ZooSettings(hyperparams=("use_sde:False",)),
            base=SB3,
        ),
        Step(
            "sb3-no-sde-no-norm",
            "... and without advantage normalisation",
            zoo=zoo_runs.ZooSettings(hyperparams=("use_sde:False", "normalize_advantage:False")),
            base="sb3-no-sde",
        ),
        Step("suite", "APPO in rl-zoo3's layout (pendulum_ppo_layout)"),
        Step(
            "suite-normalized",
            "... with SB3's advantage normalisation (per minibatch)",
            ("normalize_advantages=True",),
            base="suite",
        ),
        Step(
            "suite-ppo-ratio",
            "... with PPO's ratio (the policy against the behaviour policy)",
            ("ratio_to_behaviour=True",),
            base="suite",
        ),
        # RLlib's config leaves shuffle_batch_per_epoch off for APPO, so each epoch takes the
        # batch's rows in order: a 64-row minibatch is a stretch of consecutive steps. SB3 draws
        # each epoch's minibatches from a permutation of the batch. The suite's learner computes
        # V-trace once per batch, so its minibatches may be any rows (suite/learner/minibatches.py).
        Step(
            "suite-shuffled",
            "... with minibatches drawn from a permutation of the batch each epoch, as SB3's (in "
            "the batch's order there: 64 consecutive steps each)",
            ("shuffle_batch_per_epoch=True",),
            base="suite",
        ),
        # Not one change, so no base: the three steps above that SB3's PPO does, together, so the
        # row says how much of the gap to SB3 they close between them.
        Step(
            "suite-sb3-like",
            "APPO in rl-zoo3's layout with all three: advantage normalisation, PPO's ratio, "
            "shuffled minibatches",
            (
                "normalize_advantages=True",
                "ratio_to_behaviour=True",
                "shuffle_batch_per_epoch=True",
            ),
        ),
        Step(
            "suite-raw-actions",
            "... sampling the torque itself, as SB3 does (no action normalisation: half the "
            "exploration noise in torque units)",
            ("normalize_actions=False",),
            base="suite",
        ),
    ),
    runs_dir=Path("results") / "bench-ppo_walk_pendulum_early",
    seeds=10,  # at 5, advantage normalisation led on every seed (run of 2026-12-07T04:12)
)
# Row 24: does the tuned Pendulum config (pendulum_search's pick under the suite's learner, which
# `pendulum` resolves to) gain what row 23 found in rl-zoo3's layout? Its minibatches are in the
# batch's order too (100 consecutive steps each). On fresh seeds: neither its search (0-2, its
# held-out 10,000-10,009), row 23 (7-16) nor row 11 (up to 110,004) used them.
SHUFFLED = Step(
    "shuffled",
    "... with minibatches drawn from a permutation of the batch each epoch, as SB3's",
    ("shuffle_batch_per_epoch=True",),
    base="tuned",
)
PENDULUM_TUNED = replace(
    PENDULUM,
    sweep="sweeps/pendulum_tuned_walk.py",
    sweep_name="pendulum_tuned_walk",
    first_seed=120_000,
    steps=(
        Step("tuned", "the tuned config (pendulum_search_laptop_suite, which `pendulum` is)"),
        SHUFFLED,
    ),
    runs_dir=Path("results") / "bench-ppo_walk_pendulum_tuned",
    seeds=10,
    early_mark=50_000,  # where row 23 found shuffling ahead
)
# Row 25: the same question for the tuned CartPole config, whose 64-sample minibatches of
# 512-step batches are in the batch's order too; read at row 11's mark and at half of it. Fresh
# seeds: its search used 0-2 (held-out 10,000-10,009), rows 19 and 22 7-16, row 11 up to 110,004.
CARTPOLE_TUNED_SHUFFLED = replace(
    CARTPOLE_TUNED,
    first_seed=130_000,
    steps=(
        Step("tuned", "the tuned config (cartpole_search_laptop_suite, which `cartpole` is)"),
        SHUFFLED,
    ),
    runs_dir=Path("results") / "bench-ppo_walk_cartpole_shuffled",
    seeds=10,
    early_mark=25_000,
)
# Rows 26 and 27: SB3's initialisation (its ActorCriticPolicy's ortho_init: orthogonal weights,
# gain sqrt(2) in the hidden layers, 0.01 in the policy's output layer, 1 in the value's, zero
# biases), which no walk above changed: RLlib's module keeps torch's default initialisation, and
# row 19 found CartPole seeds whose policy turned near-deterministic before it was good. One
# change from rl-zoo3's layout on each env, SB3 beside them, on fresh seeds: no search, walk or
# row 11 used 140,000 or 150,000 on.
SB3_INIT = Step(
    "sb3-init",
    "... initialised as SB3's PPO (orthogonal weights; gain 0.01 in the policy's output layer, "
    "1 in the value's, sqrt(2) elsewhere; zero biases)",
    ("sb3_init=True",),
    base="layout",
)


def _initialised(walk: Walk, name: str, config: str, first_seed: int, early_mark: int) -> Walk:
    """``walk``'s env: SB3, APPO in rl-zoo3's layout (``config``), and that with SB3's
    initialisation, on 10 seeds from ``first_seed``, read at ``early_mark`` too."""
    return replace(
        walk,
        first_seed=first_seed,
        steps=(
            Step(SB3, "SB3 PPO, rl-zoo3's settings", zoo=zoo_runs.ZOO_DEFAULTS),
            Step("layout", f"APPO in rl-zoo3's layout ({config})"),
            SB3_INIT,
        ),
        runs_dir=Path("results") / f"bench-ppo_walk_{name}_init",
        seeds=10,
        early_mark=early_mark,
    )


# Pendulum read at 50k too, where row 23 found APPO furthest behind; CartPole at half its mark.
PENDULUM_INIT = _initialised(PENDULUM, "pendulum", "pendulum_ppo_layout", 140_000, 50_000)
CARTPOLE_INIT = _initialised(CARTPOLE, "cartpole", "cartpole_ppo_layout", 150_000, 25_000)

# Rows 28 and 29: the tuned configs sampling in the trial's own process. Row 18 found most of the
# algorithm's build and first iteration waiting for the env runner actor to start and answer;
# with num_env_runners=0 RLlib samples on the trial's local env runner instead, between learner
# updates, and the trial reserves one CPU instead of two. Fresh seeds: no search, walk or row 11
# used 160,000 or 170,000 on.
IN_PROCESS = Step(
    "in-process",
    "... sampling in the trial's own process (num_env_runners=0: no env runner actor)",
    ("num_env_runners=0",),
    base="tuned",
)
PENDULUM_IN_PROCESS = replace(
    PENDULUM_TUNED,
    first_seed=160_000,
    steps=(PENDULUM_TUNED.steps[0], IN_PROCESS),
    runs_dir=Path("results") / "bench-ppo_walk_pendulum_in_process",
)
CARTPOLE_IN_PROCESS = replace(
    CARTPOLE_TUNED_SHUFFLED,
    first_seed=170_000,
    steps=(CARTPOLE_TUNED_SHUFFLED.steps[0], IN_PROCESS),
    runs_dir=Path("results") / "bench-ppo_walk_cartpole_in_process",
)
# Row 30: the library's two Pendulum configs under the suite's learner, side by side on 10 fresh
# seeds (180,000 on): `pendulum` (pendulum_search's pick) and `pendulum_ppo_layout` (rl-zoo3's
# layout, tuned by nobody on APPO), which row 11 (benchmarks/raw/peers.json) ran on 5 seeds only;
# rows 24 and 28 ran `pendulum` alone, row 26 the layout alone. Not one change: the layout is
# another config, named as such in its label.
PENDULUM_CONFIGS = replace(
    PENDULUM_TUNED,
    first_seed=180_000,
    steps=(
        PENDULUM_TUNED.steps[0],
        Step(
            "layout",
            "`pendulum_ppo_layout`, another config: rl-zoo3's PPO settings for Pendulum "
            "(suite/configs/ppo_layouts.py)",
            base="tuned",
            sweep=(PENDULUM.sweep, PENDULUM.sweep_name),
        ),
    ),
    runs_dir=Path("results") / "bench-ppo_walk_pendulum_configs",
)

WALKS = (
    PENDULUM,
    CARTPOLE,
    PENDULUM_SAMPLER,
    CARTPOLE_TUNED,
    PENDULUM_EARLY,
    PENDULUM_TUNED,
    CARTPOLE_TUNED_SHUFFLED,
    PENDULUM_INIT,
    CARTPOLE_INIT,
    PENDULUM_IN_PROCESS,
    CARTPOLE_IN_PROCESS,
    PENDULUM_CONFIGS,
)


def measure(quick: bool, walk: Walk = PENDULUM) -> dict:
    seeds = list(range(walk.first_seed, walk.first_seed + (1 if quick else walk.seeds)))
    runs = [(step, seed) for step in walk.steps for seed in seeds]
    random.Random(0).shuffle(runs)
    curves: dict[str, dict[int, ReturnCurve]] = {step.key: {} for step in walk.steps}
    for step, seed in runs:
        curve = run_or_read(walk, step, seed, walk.runs_dir / f"{step.key}-s{seed}")
        curves[step.key][seed] = curve
        print(f"  {step.key} seed {seed}: {curve.return_at(walk.mark):.0f}", flush=True)
    return {
        "quick": quick,
        "walk": walk.runs_dir.name,
        "env": walk.env,
        "mark": walk.mark,
        "early_mark": walk.early_mark,
        "threshold": walk.threshold,
        "seeds": seeds,
        "order": [f"{step.key} seed {seed}" for step, seed in runs],
        "steps": {
            step.key: {
                "label": step.label,
                "base": step.base,
                "sets": list(step.sets),
                **({"zoo_hyperparams": list(step.zoo.hyperparams)} if step.zoo else {}),
                **summary(curves[step.key], walk),
            }
            for step in walk.steps
        },
    }


def sweep_of(walk: Walk, step: Step) -> tuple[str, str]:
    """The sweep file an APPO step runs at its "walk" budget, and the sweep's name."""
    return step.sweep or (walk.sweep, walk.sweep_name)


def run_or_read(walk: Walk, step: Step, seed: int, folder: Path) -> ReturnCurve:
    if step.zoo is not None:
        return _sb3(walk, step.zoo, seed, folder)
    sweep = sweep_of(walk, step)
    found = sorted((folder / sweep[1]).glob(f"*/{schema.ITERATIONS_FILE}"))
    run_dir = found[-1].parent if found else _run(walk, step, sweep, seed, folder)
    return trial_curve(run_dir)


def _run(walk: Walk, step: Step, sweep: tuple[str, str], seed: int, folder: Path) -> Path:
    sweep_file, sweep_name = sweep
    sets = [part for value in step.sets for part in ("--set", value)]
    extra = ("--seeds", "1", "--first-seed", str(seed), *sets)
    timeout_s = run_timeout(walk.run_env_steps)
    return run_sweep(sweep_file, BUDGET, folder, *extra, name=sweep_name, timeout_s=timeout_s)


def _sb3(walk: Walk, zoo: zoo_runs.ZooSettings, seed: int, folder: Path) -> ReturnCurve:
    """An rl-zoo3 run's curve, its seconds from its first episode's end (as a trial's count from
    its first step), whether it ran now or was read back."""
    done = sorted(folder.glob(f"ppo/{walk.env}_*"))
    if done and list(done[-1].glob(zoo_runs.MONITOR_GLOB)):
        run_dir = done[-1]
    else:
        timeout_s = run_timeout(walk.run_env_steps)
        run = zoo_runs.run_zoo(walk.env, walk.run_env_steps, seed, folder, timeout_s, zoo)
        run_dir = run.run_dir
    episodes = zoo_runs.read_episodes(run_dir)
    return episode_curve(episodes, float(episodes["ended_at"].min()))


def summary(curves: dict[int, ReturnCurve], walk: Walk) -> dict:
    seconds = [curve.first_crossing(walk.threshold)[0] for curve in curves.values()]
    at_mark = [curve.seconds_at(walk.mark) for curve in curves.values()]
    early = {"early": returns_at(curves, walk.early_mark)} if walk.early_mark else {}
    return {
        **returns_at(curves, walk.mark),
        "seconds_at_mark": spread(at_mark).as_dict(),
        "seconds_to_threshold": spread(seconds).as_dict(),
        "reached": sum(math.isfinite(s) for s in seconds),
        **early,
    }


def returns_at(curves: dict[int, ReturnCurve], mark: int) -> dict:
    """Each seed's return at ``mark`` and their IQM."""
    returns = {seed: curve.return_at(mark) for seed, curve in sorted(curves.items())}
    interval = iqm_ci(list(returns.values()))
    return {
        "returns": {str(seed): value for seed, value in returns.items()},
        "iqm": {"point": interval.point, "low": interval.low, "high": interval.high},
    }


def render(data: dict) -> list[str]:
    seeds = data["seeds"]
    bases = {key: step["base"] for key, step in data["steps"].items()}
    lines = [
        f"{data['env']}, seeds {seeds[0]}-{seeds[-1]}, one run at a time in a shuffled order; "
        f"return: the 20-episode mean at {data['mark']:,} env steps; seconds: the run's own, "
        "from its first step (SB3: from its first episode's end). Against its base: the step "
        "it changes one thing of (or, where its label names another config, the one it is "
        "measured beside), its returns at the mark compared by a two-sided Welch test.",
        "",
        "| step | return per seed | IQM [95% CI] | against its base | s at "
        f"{data['mark'] // 1000}k (median) | s to {data['threshold']:g} (median) | "
        f"reached {data['threshold']:g} |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, step in data["steps"].items():
        to_threshold = step["seconds_to_threshold"]["median"]
        lines.append(
            f"| {_returns_cells(step, data['steps'], bases.get(key))} | "
            f"{step['seconds_at_mark']['median']:.0f} | "
            f"{f'{to_threshold:.0f}' if math.isfinite(to_threshold) else 'not reached'} | "
            f"{step['reached']} of {len(seeds)} |"
        )
    return lines + _early(data, bases)


def _early(data: dict, bases: dict) -> list[str]:
    """The returns at the walk's early mark, for a record that read one."""
    early = {key: step["early"] for key, step in data["steps"].items() if "early" in step}
    if not early:
        return []
    mark = data["early_mark"]
    lines = [
        "",
        f"The same runs at {mark:,} env steps:",
        "",
        "| step | return per seed | IQM [95% CI] | against its base |",
        "|---|---|---|---|",
    ]
    for key, step in early.items():
        labelled = {"label": data["steps"][key]["label"], **step}
        lines.append(f"| {_returns_cells(labelled, early, bases.get(key))} |")
    return lines


def _returns_cells(step: dict, steps: dict, base: str | None) -> str:
    """A step's label, returns per seed, IQM and comparison with its base, as table cells."""
    returns = ", ".join(_number(value) for value in step["returns"].values())
    iqm = step["iqm"]
    against = _against(step, steps[base], base) if base in steps else "-"
    return (
        f"{step['label']} | {returns} | {_number(iqm['point'])} "
        f"[{_number(iqm['low'])}, {_number(iqm['high'])}] | {against}"
    )


def _against(step: dict, base: dict, base_key: str) -> str:
    """The step against its base on the seeds both have a return for at the mark."""
    pairs = [
        (value, base["returns"][seed])
        for seed, value in step["returns"].items()
        if seed in base["returns"] and _known(value) and _known(base["returns"][seed])
    ]
    values, base_values = [a for a, _ in pairs], [b for _, b in pairs]
    return compared(values, base_values, f"`{base_key}`")


def compared(values: list[float], base: list[float], base_name: str) -> str:
    """How ``values`` (one per seed) differ from ``base``'s, with a two-sided Welch p."""
    a, b = np.asarray(values, float), np.asarray(base, float)
    if min(len(a), len(b)) < 2:
        return f"too few seeds to compare with {base_name}"
    if np.ptp(a) == 0 and np.ptp(b) == 0:  # Welch's t is undefined without spread
        same = a[0] == b[0]
        return f"{'the same as' if same else 'differs from'} {base_name} on every seed"
    p_value = welch_two_sided(a, b, min_seeds=2)
    side = "above" if a.mean() > b.mean() else "below"
    return f"mean {side} {base_name}'s, p = {p_value:.2g}"


def _known(value: float | None) -> bool:
    return value is not None and not math.isnan(value)


def _number(value: float | None) -> str:
    return f"{value:,.0f}" if _known(value) else "n/a"
