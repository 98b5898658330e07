"""The Tune trainable: RLlib's APPO, built from a suite trial spec instead of a raw config."""

from __future__ import annotations

import importlib
import os
import re
import sys
import tempfile
import time
from collections.abc import Mapping
from typing import Any

from ray.rllib.algorithms.appo import APPO, APPOConfig
from ray.tune import Checkpoint
from ray.tune.result import DONE, TRIAL_INFO

from suite.collect.rows import env_steps
from suite.ray_internals import set_trial_info, trial_info
from suite.sweep.spec import TRIAL_KEY, trial_spec
from suite.sweep.trial.checkpoints import local_files, missing_files, write_manifest
from suite.sweep.trial.stall import STALL_EXIT_CODE, StallLimit, StallWatchdog, stack_report
from suite.sweep.trial.stall_inbox import BEAT_S, Beats, claim_stall, report_stall

# "package.module.Class": gymnasium ids never match (they carry a "-v<version>").
_CLASS_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


def trial_config(param_space: Mapping[str, Any]) -> APPOConfig:
    """The fully resolved APPOConfig of one trial, with the suite's buffer accounting attached."""
    from suite.collect.callback import BufferAccountingCallback

    config = trial_spec(param_space, "?").resolved()
    return config.callbacks(BufferAccountingCallback)


def register_class_env(env: Any) -> None:
    """Let ``env="package.module.Class"`` (e.g. from ``--set``) name a gymnasium.Env class.

    RLlib's new API stack builds string envs with ``gym.make``, which knows only registered ids;
    registering the class with Tune (stored in the cluster, so env runners see it) bridges that.
    """
    from ray.tune import register_env

    if not isinstance(env, str) or not _CLASS_PATH.match(env):
        return
    module, _, name = env.rpartition(".")
    env_class = getattr(importlib.import_module(module), name)
    register_env(env, env_class)


class SuiteAPPO(APPO):
    """APPO whose Tune config is ``{"suite_trial": TrialSpec.as_param(run_id)}``.

    Tune sees one trainable for the whole heterogeneous grid; each trial resolves its own config
    (and resource request) from its spec, so Atari and CartPole trials can share one Tuner.
    """

    @classmethod
    def default_resource_request(cls, config):
        if isinstance(config, Mapping) and TRIAL_KEY in config:
            config = trial_config(config)
        return super().default_resource_request(config)

    def __init__(self, config=None, **kwargs):
        self._suite_setup_started_at = time.time()  # the trial holds its resources from here
        self._suite_watchdog = None
        self._suite_helpers: dict[str, int] = {}  # env runner and learner pids, by name
        self._suite_env_steps = None  # a raced trial's own budget: its rung's env steps
        self._suite_restore = None  # why the checkpoint Tune restores from was not used
        watchdog = tune_trial_info = None
        if isinstance(config, Mapping) and TRIAL_KEY in config:
            watchdog = config[TRIAL_KEY].get("watchdog")
            self._suite_env_steps = config[TRIAL_KEY].get("env_steps")
            tune_trial_info = config.get(TRIAL_INFO)
            config = trial_config(config)
            register_class_env(config.env)
        super().__init__(config=config, **kwargs)
        self._suite_built_at = time.time()  # the algorithm, its env runners and learner are up
        if tune_trial_info is not None:
            # Tune passes its trial info inside the config dict replaced above; without it
            # self.trial_id would read "default".
            set_trial_info(self, tune_trial_info)
        if watchdog:
            self._suite_watchdog = self._start_watchdog(watchdog)

    def reset_config(self, new_config: dict) -> bool:
        """Take the next trial in this process (Tune's ``reuse_actors``), saving a new process's
        start and imports. RLlib's Algorithm cannot reset itself (ray-project/ray#38136), so
        every part of this trial is stopped and the next trial's algorithm is built in place,
        exactly as a new process would build it (``suite.bench`` row 10 measures what it buys)."""
        if TRIAL_KEY not in new_config:
            return False  # not a suite trial: let Tune start a new process
        next_trial, storage = trial_info(self), self._storage
        self.cleanup()
        self.__init__({**new_config, TRIAL_INFO: next_trial}, storage=storage)
        return True

    def cleanup(self) -> None:
        if self._suite_watchdog:
            self._suite_watchdog.stop()
        super().cleanup()

    def save_checkpoint(self, checkpoint_dir: str) -> None:
        super().save_checkpoint(checkpoint_dir)
        write_manifest(checkpoint_dir)  # what a complete copy of this checkpoint holds

    def restore(self, checkpoint_path) -> None:
        """Restore from Tune's latest checkpoint of this trial, or, when that checkpoint is
        incomplete on storage, start the trial again from scratch and say so in the first
        result (``suite_restore``; the driver's store records it as the trial's restart).

        The check sits here, in the process that reads the checkpoint, rather than in the
        driver before ``Tuner.restore``: which checkpoint Tune restores is its trial state
        (``Trial.latest_checkpoint_result``, pickled in the experiment state), which the suite
        cannot edit through any public API, and a retry within a run (a crash, a lost node)
        restores through here too. Tune calls this on a trainable just built (a new process, or one
        ``reset_config`` rebuilt), so not calling ``super().restore`` leaves it at iteration 0,
        a trial started again. Tune keeps a single checkpoint per trial (``num_to_keep=1``):
        there is no older complete one to fall back to.
        """
        checkpoint = getattr(checkpoint_path, "checkpoint", checkpoint_path)  # a _TrainingResult
        if isinstance(checkpoint, str):
            checkpoint = Checkpoint.from_directory(checkpoint)
        missing = missing_files(checkpoint.filesystem, checkpoint.path, self._reference_files)
        if not missing:
            super().restore(checkpoint_path)
            return
        # Tune deletes the checkpoint it tracks when the trial registers its next one, and its
        # deletion raises FileNotFoundError for a folder that is gone (ray 2.60's _delete_fs_path
        # asks whether it is a directory outside its own try); in the driver that skips updating
        # the trial's checkpoint index, so a later retry would save over its newest checkpoint.
        # An empty folder lets Tune's own cleanup delete it as usual.
        checkpoint.filesystem.create_dir(checkpoint.path, recursive=True)
        metrics = getattr(checkpoint_path, "metrics", None) or {}
        self._suite_restore = {
            "checkpoint": os.path.basename(checkpoint.path.rstrip("/")),
            "iteration": metrics.get("training_iteration"),
            "missing": missing[:5] + ([f"and {len(missing) - 5} more"] if len(missing) > 5 else []),
        }
        print(
            f"Checkpoint {checkpoint.path} is incomplete (missing {', '.join(missing[:5])}); "
            "starting the trial again from scratch",
            file=sys.stderr,
        )

    def _reference_files(self) -> set[str]:
        """The files of a checkpoint of this (fresh) algorithm: what a complete one holds."""
        with tempfile.TemporaryDirectory(prefix="suite-reference-checkpoint-") as folder:
            self.save_to_path(folder)
            return local_files(folder)

    def _start_watchdog(self, settings: Mapping[str, Any]) -> StallWatchdog:
        limit = StallLimit(settings.get("stall_timeout_s"))
        helpers = self._suite_helpers = helper_processes(self)

        run_id = settings["run_id"]

        def on_stall(reason: str) -> None:
            print(f"Stall watchdog: {reason}; saving stacks, ending the trial", file=sys.stderr)
            try:
                claim_stall(run_id, self.trial_id)  # the driver waits while stacks are saved
                report_stall(run_id, self.trial_id, reason, stack_report(reason, helpers))
            except Exception as error:  # the trial must end either way; say why nothing was saved
                print(f"Stall watchdog: could not hand over the stacks: {error!r}", file=sys.stderr)
            finally:
                sys.stderr.flush()
                os._exit(STALL_EXIT_CODE)  # the stuck train() cannot be unwound; Tune retries

        beats = Beats(run_id, self.trial_id)
        return StallWatchdog(limit, on_stall, on_beat=beats, beat_s=BEAT_S).start()

    def step(self) -> dict:
        import ray

        from suite.sweep.trial.hardware import node_hardware

        if self._suite_watchdog:
            self._suite_watchdog.step_started()
        result = super().step()
        if self._suite_watchdog:
            self._suite_watchdog.step_finished(env_steps(result))
        if self._suite_env_steps and env_steps(result) >= self._suite_env_steps:
            result[DONE] = True
        if self._suite_restore:  # once, in the first result after the restart
            result["suite_restore"], self._suite_restore = self._suite_restore, None
        result["suite_node"] = {
            "node_id": ray.get_runtime_context().get_node_id(),
            "setup_started_at": self._suite_setup_started_at,
            "setup_built_at": self._suite_built_at,
            "result_at": time.time(),  # node.json keeps the first result's
            "processes": {"trial": os.getpid(), **self._suite_helpers},
            **node_hardware(),
        }
        return result


HELPER_PIDS_TIMEOUT_S = 20.0


def helper_processes(algorithm: APPO) -> dict[str, int]:
    """Pids of the trial's env runner and remote learner processes, read while they are healthy
    (a hung one would not answer later), so a stall report can include their stacks."""
    pids = algorithm.env_runner_group.foreach_env_runner(
        lambda runner: os.getpid(), local_env_runner=False, timeout_seconds=HELPER_PIDS_TIMEOUT_S
    )
    named = {f"env runner {index}": pid for index, pid in enumerate(pids, start=1)}
    if algorithm.learner_group.is_remote:
        learners = algorithm.learner_group.foreach_learner(
            lambda learner: os.getpid(), timeout_seconds=HELPER_PIDS_TIMEOUT_S
        )
        named |= {f"learner {i}": r.get() for i, r in enumerate(learners) if r.ok}
    return named
