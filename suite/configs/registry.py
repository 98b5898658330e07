"""The library of tuned configs: name -> env, builder, threshold, result to expect, source."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ray.rllib.algorithms.appo import APPOConfig

from suite.configs import atari, classic, minatar, mujoco, ppo_layouts
from suite.configs.evidence import (
    Evidence,
    Measured,
    PeersEvidence,
    PromotedEvidence,
    TimeToThreshold,
)
from suite.configs.promoted import LIBRARY_DIR, PromotedConfig, load_promoted, promoted_dir
from suite.configs.settings import apply_settings, validate


class UnknownNameError(ValueError):
    """A config, env or sweep name that is not known; the message lists the known ones."""


def unknown_name_error(kind: str, name: str, known: list[str]) -> UnknownNameError:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return UnknownNameError(f"unknown {kind} {name!r}.{hint} Known: {', '.join(sorted(known))}")


@dataclass(frozen=True, kw_only=True)
class TunedConfig:
    name: str
    env: str
    family: str
    build: Callable[[], APPOConfig]
    threshold: float  # the return that counts as "reached" for time-to-threshold
    source: str
    # Where our measurement of what to expect lives (a benchmark record or a promoted config's
    # evidence); python -m suite.configs reads the result from there. None: not measured by us.
    evidence: Evidence | None = None
    claim: str = ""  # without evidence: what is promised, and by whom (no number of ours)

    def measured(self) -> Measured | None:
        """The expected result read from the evidence; None without evidence or its file."""
        return self.evidence.measured(self.threshold) if self.evidence else None

    @property
    def expected(self) -> str:
        """One line: the measured result, or the claim when nothing of ours measured it."""
        if self.evidence is None:
            return self.claim
        found = self.measured()
        return found.result if found else f"see {self.evidence.pointer}: that file is missing"

    @property
    def default_n(self) -> int:
        return self.build().circular_buffer_num_batches

    @property
    def default_k(self) -> int:
        return self.build().circular_buffer_iterations_per_batch

    @property
    def default_broadcast_interval(self) -> int:
        return self.build().broadcast_interval


TUNED_CONFIGS: tuple[TunedConfig, ...] = (
    TunedConfig(
        name="cartpole_probed",
        env="CartPole-v1",
        family="classic",
        build=classic.cartpole_probed,
        threshold=450.0,
        source="five hand probes (benchmarks/notes/race.md); measured by us, beside "
        "cartpole_rllib: benchmarks/RESULTS.md row 2",
        # Row 2's record keys these settings by their old name, "cartpole": it measured them
        # when they were cartpole, before cartpole became a search's pick. Row 2 measured
        # again would key the new cartpole so, and this config's evidence must then move.
        evidence=TimeToThreshold("cartpole"),
    ),
    TunedConfig(
        name="cartpole_rllib",
        env="CartPole-v1",
        family="classic",
        build=classic.cartpole_rllib,
        threshold=450.0,
        source="RLlib tuned_examples/appo/cartpole_appo.py; measured by us: RESULTS.md row 2",
        evidence=TimeToThreshold("cartpole_rllib"),
    ),
    TunedConfig(
        name="pendulum_rllib",
        env="Pendulum-v1",
        family="classic",
        build=classic.pendulum_rllib,
        threshold=-300.0,
        source="RLlib tuned_examples/appo/pendulum_appo.py hyperparameters, 1 env runner; "
        "measured with exactly these settings: promoted pendulum_continuous_nk",
        evidence=PromotedEvidence("pendulum_continuous_nk"),
    ),
    TunedConfig(
        name="pendulum_ppo_layout",
        env="Pendulum-v1",
        family="classic",
        build=ppo_layouts.pendulum_ppo_layout,
        threshold=-300.0,
        source="rl-zoo3 hyperparams/ppo.yml (Pendulum-v1) carried to APPO, the suite's learner; "
        "measured by us beside SB3's PPO: RESULTS.md row 11",
        evidence=PeersEvidence("Pendulum-v1", "pendulum_ppo_layout"),
    ),
    TunedConfig(
        name="cartpole_ppo_layout",
        env="CartPole-v1",
        family="classic",
        build=ppo_layouts.cartpole_ppo_layout,
        threshold=450.0,
        source="rl-zoo3 hyperparams/ppo.yml (CartPole-v1) carried to APPO, the suite's learner; "
        "measured by us beside SB3's PPO: RESULTS.md row 11",
        evidence=PeersEvidence("CartPole-v1", "cartpole_ppo_layout"),
    ),
    TunedConfig(
        name="pong",
        env="ALE/Pong-v5",
        family="atari",
        build=atari.pong,
        threshold=18.0,
        claim="not measured by us: RLlib's pong_appo.py stops at return 20 within 10M steps",
        source="RLlib tuned_examples/appo/pong_appo.py",
    ),
    TunedConfig(
        name="pong_rllib",
        env="ALE/Pong-v5",
        family="atari",
        build=atari.pong_rllib,
        threshold=18.0,
        claim="not measured by us: RLlib's stop criterion, return 20 within 10M steps",
        source="RLlib tuned_examples/appo/pong_appo.py, unchanged",
    ),
    TunedConfig(
        name="breakout",
        env="ALE/Breakout-v5",
        family="atari",
        build=atari.breakout,
        threshold=100.0,
        claim="none promised yet (10M steps, cluster)",
        source="IMPACT arXiv:1912.00167; pong_appo.py params",
    ),
    TunedConfig(
        name="space_invaders",
        env="ALE/SpaceInvaders-v5",
        family="atari",
        build=atari.space_invaders,
        threshold=500.0,
        claim="none promised yet (10M steps, cluster)",
        source="IMPACT arXiv:1912.00167; pong_appo.py params",
    ),
    TunedConfig(
        name="minatar_breakout_base",
        env="MinAtar/Breakout-v1",
        family="minatar",
        build=minatar.minatar_breakout_base,
        threshold=10.0,
        claim="hand-set, not tuned: the base minatar_search tunes minatar_breakout from",
        source="MinAtar's network (arXiv:1903.03176); IMPACT's N=4, K=2",
    ),
    TunedConfig(
        name="minatar_space_invaders_base",
        env="MinAtar/SpaceInvaders-v1",
        family="minatar",
        build=minatar.minatar_space_invaders_base,
        threshold=30.0,
        claim="hand-set, not tuned: the base minatar_search tunes minatar_space_invaders from",
        source="MinAtar's network (arXiv:1903.03176); IMPACT's N=4, K=2",
    ),
    TunedConfig(
        name="halfcheetah_rllib",
        env="HalfCheetah-v5",
        family="mujoco",
        build=mujoco.halfcheetah_rllib,
        threshold=3000.0,
        claim="not measured by us: RLlib's halfcheetah_appo.py stops at return 9000 within "
        "100M steps (GPU)",
        source="RLlib tuned_examples/appo/halfcheetah_appo.py; IMPACT",
    ),
)


# The library's names whose best evidence-backed version is a promoted config: the name resolves
# to that config, whose evidence file holds the result to expect. The config it was promoted from
# stays in the library as the baseline (``pendulum_rllib``, ``halfcheetah_rllib``,
# ``cartpole_probed``). They are read
# from the library's own folder, wherever ``SUITE_PROMOTED_DIR`` points.
EVIDENCE_BACKED = {
    "pendulum": "pendulum_search_laptop_suite",
    "halfcheetah": "halfcheetah_search_laptop",
    "cartpole": "cartpole_search_laptop_suite",
    "minatar_breakout": "minatar_search_laptop",
    "minatar_space_invaders": "minatar_search_laptop_space_invaders",
}


def library_names() -> set[str]:
    """The names the library itself gives: no promoted config may take one."""
    return {tuned.name for tuned in TUNED_CONFIGS} | set(EVIDENCE_BACKED)


def all_configs() -> tuple[TunedConfig, ...]:
    """The library's configs, its evidence-backed names, then the promoted configs (read from
    disk on each call)."""
    backed = tuple(_evidence_backed(name) for name in EVIDENCE_BACKED)
    promoted = tuple(_as_tuned(p, promoted_dir()) for p in load_promoted())
    return TUNED_CONFIGS + backed + promoted


def _backing(name: str) -> PromotedConfig:
    for promoted in load_promoted(LIBRARY_DIR):
        if promoted.name == EVIDENCE_BACKED[name]:
            return promoted
    raise LookupError(f"config {name!r} rests on promoted config {EVIDENCE_BACKED[name]!r}")


def _evidence_backed(name: str) -> TunedConfig:
    tuned = _as_tuned(_backing(name), LIBRARY_DIR)
    return dataclasses.replace(tuned, name=name, source=f"{tuned.name}: {tuned.source}")


def base_of(name: str) -> tuple[str, dict]:
    """The library config and settings a config builds from: an evidence-backed name is its
    promoted config's base and settings, so promoting from it never chains promoted configs."""
    if name not in EVIDENCE_BACKED:
        return name, {}
    promoted = _backing(name)
    return promoted.base, dict(promoted.settings)


def get_config(name: str) -> TunedConfig:
    for tuned in TUNED_CONFIGS:
        if tuned.name == name:
            return tuned
    configs = all_configs()
    for tuned in configs:
        if tuned.name == name:
            return tuned
    raise unknown_name_error("config", name, [t.name for t in configs])


def _as_tuned(promoted: PromotedConfig, folder: Path) -> TunedConfig:
    """A promoted config (read from ``folder``) as a tuned config whose evidence is its file."""
    base = _library_config(promoted.base)
    evidence = promoted.evidence
    source = (
        f"promoted from run {evidence.get('run_id')} of {evidence.get('sweep')} "
        f"({evidence.get('verdict')}); {promoted.base} + {promoted.settings}"
    )
    build = functools.partial(_build_promoted, promoted.base, dict(promoted.settings))
    # Like every tuned config's builder, it says what it is for and what to expect.
    found = PromotedEvidence(promoted.name, folder)
    build.__doc__ = (
        f"{promoted.env}: {source}.\n\nExpect: see {found.pointer}.\n{_hardware_text(evidence)}"
    )
    return TunedConfig(
        name=promoted.name,
        env=promoted.env,
        family=base.family,
        build=build,
        threshold=base.threshold,
        source=source,
        evidence=found,
    )


def _library_config(name: str) -> TunedConfig:
    for tuned in TUNED_CONFIGS:
        if tuned.name == name:
            return tuned
    known = [tuned.name for tuned in TUNED_CONFIGS]
    raise unknown_name_error("base config of a promoted config", name, known)


def _hardware_text(evidence: dict) -> str:
    hardware = evidence.get("hardware")
    if not hardware:
        return "Hardware: not recorded by the run that decided it."
    gpus = len(hardware.get("gpus") or [])
    return (
        f"Hardware: the run that decided it, {hardware.get('cpu_cores')} cores "
        f"({hardware.get('cpu_model')}), {gpus} GPUs."
    )


def _build_promoted(base: str, settings: dict) -> APPOConfig:
    config = apply_settings(_library_config(base).build(), settings)
    validate(config)
    return config


def env_threshold(config_name: str, env: str) -> float:
    """The return threshold of ``env`` for a trial started from tuned config ``config_name``.

    A setting may replace a config's env (``settings={"env": "Acrobot-v1"}``): the threshold is
    then that of the tuned configs for the new env, and NaN (no threshold, so no time to
    threshold) when none or several disagreeing ones know it, never the old env's.
    """
    tuned = get_config(config_name)
    if tuned.env == env:
        return tuned.threshold
    known = {t.threshold for t in TUNED_CONFIGS if t.env == env}
    return known.pop() if len(known) == 1 else math.nan


def config_for_env(env: str) -> TunedConfig:
    for tuned in TUNED_CONFIGS:
        if tuned.env == env:
            return tuned
    raise unknown_name_error("env", env, [t.env for t in TUNED_CONFIGS])
