"""Row "learner_cost": what one minibatch gradient step costs, APPO's learners against SB3's PPO.

The same layout on every side: rl-zoo3's PPO layout for Pendulum (the config
``pendulum_ppo_layout``, ``suite.configs.ppo_layouts.PENDULUM``: separate 64x64 tanh networks,
4,096-step batches of 4 envs, 64-sample minibatches, 10 epochs, Adam, global-norm clip 0.5), one
torch thread, in this process, one side after another per repetition (ABC, CBA, ...):

- RLlib 2.60's ``APPOTorchLearner`` and the suite's (``learner="suite"``), each running one
  update of 10 epochs on the same fixed batch of real Pendulum episodes through RLlib's base
  ``Learner.update``, which is what APPO's learner thread calls;
- SB3's PPO ``train()`` on a rollout buffer it filled itself (rl-zoo3's Pendulum settings without
  gSDE, which APPO has no counterpart for; ``suite.bench.sb3_step``).

SB3's update is also timed alone, in a fresh process per update that never imports RLlib (as
rl-zoo3's users run it), taking its turn among the sides: in the row's process, beside RLlib's
learners, the same update is slower, so both are printed.

A step's cost is an update's wall time over the minibatch steps it took. For the breakdown,
py-spy (a sampling profiler: it leaves the code as it is) samples three more updates per APPO
learner, and each part gets its share of the samples of the update's time. Apart from the
update: the learner connector that turns episodes into the train batch (once per update, given
per minibatch step) and the learner thread's hand-off (RLlib's own ``_LearnerThread.enqueue``
into a queue and the thread's ``get``).
"""

from __future__ import annotations

import copy
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

import numpy as np
import torch

from suite.bench.sb3_step import ENV, LAYOUT_KEYS, SEED, Sb3Side
from suite.bench.summary import spread
from suite.configs.ppo_layouts import PENDULUM as LAYOUT
from suite.configs.resolve import resolve

CONFIG = "pendulum_ppo_layout"
LEARNERS = ("rllib", "suite")
SB3 = "sb3"
SB3_ALONE = "sb3_alone"
# The suite's learner as it was before it checked finiteness once per minibatch: RLlib's
# apply_gradients (two checks per parameter), the change's "before", side by side.
SUITE_RLLIB_CHECKS = "suite_rllib_checks"
SIDES = (*LEARNERS, SUITE_RLLIB_CHECKS, SB3, SB3_ALONE)
# Where an APPO learner's update spends its time: label -> the functions (path suffix, name)
# whose samples count for it. A sample counts for the innermost listed frame on its stack, so the
# loss's label gets only what its listed callees (V-trace, the target network) do not.
BREAKDOWN = {
    "forward pass (policy and value)": [
        ("core/rl_module/torch/torch_rl_module.py", "forward_train"),
        ("ppo/torch/default_ppo_torch_rl_module.py", "compute_values"),
    ],
    "target network forward": [("appo/default_appo_rl_module.py", "forward_target")],
    "V-trace": [
        ("impala/torch/vtrace_torch_v2.py", "vtrace_torch"),
        ("suite/learner/vtrace.py", "vtrace_per_chunk"),
    ],
    "loss arithmetic": [
        ("appo/torch/appo_torch_learner.py", "compute_loss_for_module"),
        ("suite/learner/appo.py", "compute_loss_for_module"),
    ],
    "backward": [("core/learner/torch/torch_learner.py", "compute_gradients")],
    "gradient clipping": [("core/learner/learner.py", "postprocess_gradients")],
    "optimizer (incl. finite checks)": [
        ("core/learner/torch/torch_learner.py", "apply_gradients"),
        ("suite/learner/appo.py", "apply_gradients"),
    ],
    "metrics logging": [
        ("utils/metrics/metrics_logger.py", "log_dict"),
        ("utils/metrics/metrics_logger.py", "log_value"),
        ("core/learner/learner.py", "_log_steps_trained_metrics"),
        ("core/learner/learner.py", "_log_metrics"),
    ],
    "minibatch slicing": [
        ("utils/minibatch_utils.py", "__iter__"),
        ("suite/learner/minibatches.py", "__iter__"),
    ],
}
UPDATE = ("core/learner/learner.py", "update")
OTHER = "other (iteration, batch handling)"
SAMPLES_PER_S = 200
_FRAME = re.compile(r"^(?P<name>.+?) \((?P<path>[^:()]+)(?::\d+)?\)$")


def appo_config(learner: str):
    settings = {"learner": learner, "num_env_runners": 0}  # sampled in this process
    return resolve(CONFIG, {"seed": SEED}, settings)


def sample_episodes(config) -> list:
    """One train batch of real Pendulum episodes, sampled in this process."""
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    runner = SingleAgentEnvRunner(config=config)
    try:
        episodes, steps = [], 0
        while steps < config.train_batch_size_per_learner:
            found = runner.sample(num_timesteps=config.get_rollout_fragment_length() * 4)
            episodes += found
            steps += sum(len(episode) for episode in found)
        return episodes
    finally:
        runner.stop()


class AppoSide:
    """One APPO learner and its train batch, ready to run updates of the layout's epochs."""

    def __init__(self, learner: str, episodes: list):
        import gymnasium as gym
        from ray.rllib.core.learner.training_data import TrainingData

        self.config = appo_config(learner)
        self.learner = self.config.build_learner(env=gym.make(ENV))
        started = time.perf_counter()
        self.batch = self.learner._make_batch_if_necessary(
            TrainingData(episodes=copy.deepcopy(episodes))
        )
        self.connector_s = time.perf_counter() - started
        self.steps = 0
        self._count_steps()

    def _count_steps(self) -> None:
        compute = self.learner.compute_loss_for_module

        def counted(**kwargs):
            self.steps += 1
            return compute(**kwargs)

        self.learner.compute_loss_for_module = counted

    def update(self) -> tuple[float, int]:
        """Wall seconds of one update, and the minibatch steps it took."""
        from ray.rllib.core.learner.learner import Learner

        self.steps = 0
        started = time.perf_counter()
        Learner.update(
            self.learner,
            batch=copy.copy(self.batch),
            timesteps={},
            num_epochs=self.config.num_epochs,
            minibatch_size=self.config.minibatch_size,
            shuffle_batch_per_epoch=self.config.shuffle_batch_per_epoch,
        )
        return time.perf_counter() - started, self.steps


def handoff_s(repetitions: int = 200) -> float:
    """Median seconds from RLlib's ``_LearnerThread.enqueue`` to the learner thread's ``get``."""
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    from suite.ray_internals import enqueue_for_learner_thread

    inbox: queue.Queue = queue.Queue(maxsize=1)
    received: queue.Queue = queue.Queue()

    def learner_thread():
        for _ in range(repetitions):
            inbox.get()
            received.put(time.perf_counter())

    thread = threading.Thread(target=learner_thread, daemon=True)
    thread.start()
    metrics, seconds = MetricsLogger(), []
    for _ in range(repetitions):
        sent = time.perf_counter()
        enqueue_for_learner_thread(inbox, ({}, {}), metrics)
        seconds.append(received.get(timeout=10.0) - sent)
    thread.join(timeout=10.0)
    return float(np.median(seconds))


def profiled_breakdown(side: AppoSide, updates: int = 3) -> dict[str, float]:
    """Milliseconds per minibatch step by ``BREAKDOWN`` label: py-spy samples this process
    while it runs ``updates`` updates, and each label gets its share of the update's time."""
    with tempfile.TemporaryDirectory(prefix="suite-bench-pyspy-") as folder:
        output = Path(folder) / "stacks.txt"
        command = [_py_spy(), "record", "--pid", str(os.getpid()), "--format", "raw"]
        command += ["--rate", str(SAMPLES_PER_S), "--output", str(output)]
        spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # py-spy attaches
        seconds, steps = 0.0, 0
        for _ in range(updates):
            took, taken = side.update()
            seconds, steps = seconds + took, steps + taken
        spy.send_signal(signal.SIGINT)  # py-spy writes its samples and exits
        spy.wait(timeout=30)
        counts = sample_counts(output.read_text())
    total = sum(counts.values())
    if not total:
        raise RuntimeError("py-spy recorded no sample inside Learner.update")
    per_step_ms = 1000.0 * seconds / steps
    return {label: per_step_ms * counts.get(label, 0) / total for label in [*BREAKDOWN, OTHER]}


def _py_spy() -> str:
    """py-spy (the bench extra installs it) beside this Python, else on the PATH."""
    beside = Path(sys.executable).with_name("py-spy")
    found = str(beside) if beside.exists() else shutil.which("py-spy")
    if not found:
        raise RuntimeError("py-spy not found: pip install -e '.[bench]' installs it")
    return found


def sample_counts(raw: str) -> dict[str, int]:
    """py-spy's raw (collapsed) stacks as sample counts per label, for samples in an update."""
    counts: dict[str, int] = {}
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        frames = [_FRAME.match(frame) for frame in stack.split(";")]
        names = [(m["path"], m["name"]) for m in frames if m]
        if not any(_is(frame, UPDATE) for frame in names):
            continue
        label = next((_label(frame) for frame in reversed(names) if _label(frame)), OTHER)
        counts[label] = counts.get(label, 0) + int(count)
    return counts


def _label(frame: tuple[str, str]) -> str | None:
    return next(
        (label for label, fns in BREAKDOWN.items() if any(_is(frame, fn) for fn in fns)), None
    )


def _is(frame: tuple[str, str], function: tuple[str, str]) -> bool:
    """py-spy names methods by their qualified name (``Learner.update``)."""
    path, name = frame
    return path.endswith(function[0]) and name.rpartition(".")[2] == function[1]


def with_rllibs_finite_checks(side: AppoSide) -> AppoSide:
    from ray.rllib.core.learner.torch.torch_learner import TorchLearner

    side.learner.apply_gradients = types.MethodType(TorchLearner.apply_gradients, side.learner)
    return side


class Sb3AloneSide:
    """SB3's update in a fresh process that never imports RLlib, one process per update, so that
    it takes its turn among the sides like the others (``suite.bench.sb3_step``)."""

    def __init__(self):
        layout = json.dumps({key: LAYOUT[key] for key in LAYOUT_KEYS})
        self.command = [sys.executable, "-m", "suite.bench.sb3_step", layout]

    def update(self) -> tuple[float, int]:
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        done = subprocess.run(
            self.command, capture_output=True, text=True, check=True, timeout=300, env=env
        )
        timed = json.loads(done.stdout.strip().splitlines()[-1])
        return timed["seconds"], timed["steps"]


def measure(repetitions: int = 5) -> dict:
    torch.set_num_threads(1)
    episodes = sample_episodes(appo_config("rllib"))
    sides = {learner: AppoSide(learner, episodes) for learner in LEARNERS}
    sides[SUITE_RLLIB_CHECKS] = with_rllibs_finite_checks(AppoSide("suite", episodes))
    sides[SB3] = Sb3Side(LAYOUT)
    sides[SB3_ALONE] = Sb3AloneSide()
    for side in sides.values():  # warm-up: first-call allocations, lazy imports
        side.update()
    per_step_ms: dict[str, list[float]] = {name: [] for name in SIDES}
    steps: dict[str, int] = {}
    order = []
    for repetition in range(repetitions):
        names = SIDES if repetition % 2 == 0 else SIDES[::-1]
        for name in names:
            seconds, steps[name] = sides[name].update()
            per_step_ms[name].append(1000.0 * seconds / steps[name])
            order.append(name)
    medians = {name: float(np.median(values)) for name, values in per_step_ms.items()}
    return {
        "layout": {key: LAYOUT[key] for key in _LAYOUT_KEYS},
        "torch_threads": torch.get_num_threads(),
        "repetitions": repetitions,
        "order": order,
        "steps_per_update": steps,
        "per_step_ms": {name: spread(values).as_dict() for name, values in per_step_ms.items()},
        "ratio_to_sb3": {name: medians[name] / medians[SB3] for name in SIDES},
        "ratio_to_sb3_alone": {name: medians[name] / medians[SB3_ALONE] for name in SIDES},
        "suite_vs_rllib": medians["suite"] / medians["rllib"],
        "connector_ms_per_step": {
            name: 1000.0 * sides[name].connector_s / steps[name] for name in LEARNERS
        },
        "handoff_ms_per_update": 1000.0 * handoff_s(),
        "breakdown_profiled_ms": {name: profiled_breakdown(sides[name]) for name in LEARNERS},
    }


_LAYOUT_KEYS = (
    "train_batch_size_per_learner",
    "minibatch_size",
    "num_epochs",
    "num_envs_per_env_runner",
    "rollout_fragment_length",
    "model.fcnet_hiddens",
    "model.fcnet_activation",
    "model.vf_share_layers",
    "grad_clip",
)


def render(data: dict) -> list[str]:
    """The record as Markdown: per-step cost of each side, then where APPO's steps go."""
    layout = data["layout"]
    lines = [
        f"rl-zoo3's Pendulum layout on every side: {layout['train_batch_size_per_learner']:,}-step "
        f"batches, {layout['minibatch_size']}-sample minibatches, {layout['num_epochs']} epochs, "
        f"separate {'x'.join(map(str, layout['model.fcnet_hiddens']))} "
        f"{layout['model.fcnet_activation']} networks, {data['torch_threads']} torch thread; "
        f"{data['repetitions']} updates per side, interleaved (ABCDE, EDCBA, ...), after a "
        "warm-up. SB3 alone is SB3 as rl-zoo3 runs it; beside RLlib's learners the same update "
        "is slower.",
        "",
        "| side | minibatch steps per update | ms per minibatch step (median [min, max]) | "
        "× SB3 | × SB3 alone |",
        "|---|---|---|---|---|",
    ]
    for name in SIDES:
        found = data["per_step_ms"][name]
        lines.append(
            f"| {_SIDE_LABELS[name]} | {data['steps_per_update'][name]} | "
            f"{found['median']:.2f} [{found['min']:.2f}, {found['max']:.2f}] | "
            f"{data['ratio_to_sb3'][name]:.2f} | {data['ratio_to_sb3_alone'][name]:.2f} |"
        )
    lines += [
        "",
        f"The suite's learner takes {data['suite_vs_rllib']:.2f}× RLlib's time per step. Outside "
        "the update: the learner connector costs "
        + ", ".join(
            f"{_SIDE_LABELS[name]} {ms:.2f} ms"
            for name, ms in data["connector_ms_per_step"].items()
        )
        + f" per minibatch step (once per batch), and the learner thread's hand-off "
        f"{data['handoff_ms_per_update']:.3f} ms per update.",
        "",
        "Where an APPO step's time goes (ms per minibatch step: py-spy's share of samples, "
        f"{SAMPLES_PER_S} per second, times the step's time in those updates):",
        "",
        "| part | " + " | ".join(_SIDE_LABELS[name] for name in LEARNERS) + " |",
        "|---|" + "---|" * len(LEARNERS),
    ]
    breakdown = data["breakdown_profiled_ms"]
    for part in breakdown[LEARNERS[0]]:
        cells = " | ".join(f"{breakdown[name][part]:.2f}" for name in LEARNERS)
        lines.append(f"| {part} | {cells} |")
    return lines


_SIDE_LABELS = {
    "rllib": "RLlib's APPO learner",
    "suite": "the suite's learner",
    SUITE_RLLIB_CHECKS: "the suite's learner with RLlib's per-parameter finite checks (before)",
    SB3: "SB3 PPO, in this process (beside RLlib)",
    SB3_ALONE: "SB3 PPO alone, a fresh process per update that never imports RLlib",
}
