"""The sweep axes, declared once, and a trial's identity read off its resolved config.

Sweeps (``suite.sweep.spec``), config resolution (``resolve.AXIS_KEYS``), the store's axis
columns (``suite.store.schema``), the live sinks and the report's cell key all derive from
``AXES``; the env and the label of a trial come from its resolved config, so a setting that
changes the env (``settings={"env": ...}``, ``--set env=...``) shows everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Axis:
    name: str  # what sweeps, the store and the report call it
    setting: str  # the APPOConfig attribute it sets
    code: str  # its letter in a trial's label
    description: str


AXES: tuple[Axis, ...] = (
    Axis(
        "n",
        "circular_buffer_num_batches",
        "N",
        "circular_buffer_num_batches (N): batches the buffer holds",
    ),
    Axis(
        "k",
        "circular_buffer_iterations_per_batch",
        "K",
        "circular_buffer_iterations_per_batch (K): max uses per batch",
    ),
    Axis(
        "broadcast_interval",
        "broadcast_interval",
        "B",
        "RLlib broadcast_interval: every this-many learner update() calls wait for as many "
        "learner-thread updates (the aggregation window; see suite/rllib_buffer.py)",
    ),
    Axis(
        "num_learners",
        "num_learners",
        "L",
        "RLlib num_learners (0 = learner in the main process)",
    ),
    Axis(
        "num_gpus_per_learner",
        "num_gpus_per_learner",
        "G",
        "GPUs requested per learner (may be fractional)",
    ),
    Axis("num_env_runners", "num_env_runners", "R", "remote env runners"),
    Axis(
        "num_envs_per_env_runner",
        "num_envs_per_env_runner",
        "E",
        "vectorised envs per env runner",
    ),
)
AXIS_NAMES: tuple[str, ...] = tuple(axis.name for axis in AXES)
SEED = Axis("seed", "seed", "s", "the trial's seed")


def env_id(config: Any) -> str:
    """The env a resolved APPOConfig trains on: a gymnasium id, the ALE game of the suite's
    Atari env classes (``env_config["game"]``), or an env class's qualified name."""
    if isinstance(config.env, str):
        return config.env
    game = (config.env_config or {}).get("game")
    if isinstance(game, str):
        return game
    return f"{getattr(config.env, '__module__', '?')}.{getattr(config.env, '__qualname__', '?')}"


def axis_values(config: Any) -> dict[str, Any]:
    """Every axis's value in a resolved APPOConfig, swept or not."""
    values = {axis.name: getattr(config, axis.setting) for axis in AXES}
    values["num_gpus_per_learner"] = float(values["num_gpus_per_learner"])
    return values


def trial_label(row: Mapping[str, Any]) -> str:
    """The one name of a trial, from its axis columns: ``Pong-v5_N4_K2_B20_L0_G0_R2_E8_s0``
    (env without its namespace, then every axis by its code, then the seed). The progress view,
    the Tune trial names, W&B run names and the report all use it."""
    env = str(row["env"]).rsplit("/", 1)[-1]
    parts = [env, *(f"{axis.code}{_short(row[axis.name])}" for axis in (*AXES, SEED))]
    return "_".join(parts)


def _short(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
