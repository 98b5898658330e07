"""Run SB3 PPO the way rl-zoo3's users do (``python -m rl_zoo3.train``), for row 11 (peers).

rl-zoo3 reads its own ``hyperparams/ppo.yml`` from the installed package, so nothing is copied
here. A run's log folder holds what it did: ``<folder>/ppo/<env>_1/`` with one Monitor file per
env (``<rank>.monitor.csv``: a ``#{"t_start": ...}`` JSON line, then one row per finished
episode: return ``r``, length ``l``, seconds since ``t_start`` ``t``) and ``<env>/config.yml``,
the hyperparameters it resolved (``args.yml``: its command-line arguments). Those YAML files hold
one Python tag, an ``OrderedDict`` dumped as key-value pairs (and, from a ``--conf-file``, class
names); ``read_zoo_yaml`` reads exactly those tags and nothing else executable (rl-zoo3 itself
``eval()``s some strings; the suite never does).
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from suite.bench.sweep_runs import run_to_end

ALGO = "ppo"
TORCH_THREADS = 1  # as the measurement of SB3 ran it
MONITOR_GLOB = "*.monitor.csv"


class ZooRunError(RuntimeError):
    """rl-zoo3's training subprocess failed, timed out, or left no log to read."""


@dataclass(frozen=True)
class ZooRun:
    started_at: float  # epoch seconds just before the subprocess was started
    run_dir: Path  # <log folder>/ppo/<env>_<n>/


@dataclass(frozen=True)
class ZooSettings:
    """Where rl-zoo3 takes an env's hyperparameters from: its own ``hyperparams/ppo.yml`` by
    default, or ``conf_file`` (a Python module with a ``hyperparams`` dict, rl-zoo3's
    ``--conf-file``) for an env it has no entry for; ``gym_packages`` are imported first to
    register the env (rl-zoo3's ``--gym-packages``); ``hyperparams`` replace single settings of
    the entry (rl-zoo3's ``--hyperparams``, ``"key:python literal"``)."""

    conf_file: str | None = None
    gym_packages: tuple[str, ...] = ()
    hyperparams: tuple[str, ...] = ()

    def arguments(self) -> list[str]:
        conf = ["--conf-file", self.conf_file] if self.conf_file else []
        packages = ["--gym-packages", *self.gym_packages] if self.gym_packages else []
        replaced = ["--hyperparams", *self.hyperparams] if self.hyperparams else []
        return conf + packages + replaced


ZOO_DEFAULTS = ZooSettings()


def zoo_command(
    env: str, env_steps: int, seed: int, log_folder: Path, settings: ZooSettings = ZOO_DEFAULTS
) -> list[str]:
    """rl-zoo3's training command with its own hyperparameters (or ``settings``'): no
    evaluation, no checkpoints, no tensorboard (its default), 1 torch thread."""
    return [
        sys.executable,
        "-m",
        "rl_zoo3.train",
        "--algo",
        ALGO,
        "--env",
        env,
        "-n",
        str(env_steps),
        "--seed",
        str(seed),
        "--log-folder",
        str(log_folder),
        "--eval-freq",
        "-1",
        "--save-freq",
        "-1",
        "--num-threads",
        str(TORCH_THREADS),
        "--verbose",
        "0",
        *settings.arguments(),
    ]


def run_zoo(
    env: str,
    env_steps: int,
    seed: int,
    log_folder: Path,
    timeout_s: float,
    settings: ZooSettings = ZOO_DEFAULTS,
) -> ZooRun:
    """Train once; the clock starts just before the process does."""
    command = zoo_command(env, env_steps, seed, log_folder, settings)
    # SB3's logger writes to $SB3_LOGDIR, else to a new /tmp/SB3-<time> folder left behind.
    logger_folder = str(log_folder / "sb3_logger")
    environment = {**os.environ, "OMP_NUM_THREADS": str(TORCH_THREADS), "SB3_LOGDIR": logger_folder}
    log_folder.mkdir(parents=True, exist_ok=True)
    what = f"rl_zoo3.train {env} seed {seed} ({env_steps:,} env steps)"
    started_at = time.time()
    run_to_end(command, ZooRunError, what, timeout_s, environment)
    return ZooRun(started_at, zoo_run_dir(log_folder, env))


def peer_versions() -> dict[str, str]:
    from importlib.metadata import version

    return {name: version(name) for name in ("stable-baselines3", "rl_zoo3")}


def folder_name(env: str) -> str:
    """How rl-zoo3 names an env's folders: ``MinAtar/Breakout-v1`` -> ``MinAtar-Breakout-v1``
    (huggingface_sb3's ``EnvironmentName``, not imported: the tests run without the bench
    extra)."""
    return env.replace("/", "-")


def zoo_run_dir(log_folder: Path, env: str) -> Path:
    """The one run folder rl-zoo3 made under a fresh ``log_folder``."""
    found = sorted((log_folder / ALGO).glob(f"{folder_name(env)}_*"))
    if len(found) != 1:
        raise ZooRunError(f"expected one {env}_<n> run under {log_folder / ALGO}, found {found}")
    return found[0]


def read_monitor(path: Path) -> pd.DataFrame:
    """One Monitor file's episodes: ``return``, ``length`` and ``ended_at`` (epoch seconds:
    the header's ``t_start`` plus the row's ``t``)."""
    with path.open() as lines:
        header = lines.readline()
        if not header.startswith("#"):
            raise ZooRunError(f"{path}: no Monitor JSON header (first line {header[:80]!r})")
        t_start = float(json.loads(header[1:])["t_start"])
        rows = pd.read_csv(lines)
    return pd.DataFrame(
        {
            "return": rows["r"].astype(float),
            "length": rows["l"].astype(int),
            "ended_at": t_start + rows["t"].astype(float),
        }
    )


def read_episodes(run_dir: Path) -> pd.DataFrame:
    """Every env's finished episodes in the order they ended."""
    paths = sorted(run_dir.glob(MONITOR_GLOB))
    if not paths:
        raise ZooRunError(f"no Monitor files ({MONITOR_GLOB}) in {run_dir}")
    episodes = pd.concat([read_monitor(path) for path in paths], ignore_index=True)
    return episodes.sort_values("ended_at", kind="stable").reset_index(drop=True)


class _ZooYamlLoader(yaml.SafeLoader):
    """yaml's safe loader plus the ``OrderedDict`` tag rl-zoo3's ``yaml.dump`` writes."""


def _ordered_dict(loader: yaml.SafeLoader, node: yaml.Node) -> dict:
    (pairs,) = loader.construct_sequence(node, deep=True)  # OrderedDict(pairs)
    return {key: value for key, value in pairs}


def _python_name(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> str:
    """A class in a ``--conf-file``'s hyperparameters (``!!python/name:module.Class``): read as
    its dotted name, never imported."""
    return suffix


_ZooYamlLoader.add_constructor(
    "tag:yaml.org,2002:python/object/apply:collections.OrderedDict", _ordered_dict
)
_ZooYamlLoader.add_multi_constructor("tag:yaml.org,2002:python/name:", _python_name)


def read_zoo_yaml(path: Path) -> dict:
    return yaml.load(path.read_text(), Loader=_ZooYamlLoader)  # safe, plus one tag


def resolved_settings(run: ZooRun, env: str) -> dict:
    """What the run used: rl-zoo3's resolved hyperparameters and the arguments that matter."""
    folder = run.run_dir / folder_name(env)
    arguments = read_zoo_yaml(folder / "args.yml")
    return {
        "hyperparameters": read_zoo_yaml(folder / "config.yml"),
        "n_timesteps": arguments.get("n_timesteps"),
        "num_threads": arguments.get("num_threads"),
        "hyperparams_file": f"rl_zoo3 {arguments.get('conf_file') or f'hyperparams/{ALGO}.yml'}",
    }
