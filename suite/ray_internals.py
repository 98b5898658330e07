"""Every private name of Ray (RLlib, Tune) the suite relies on, checked against Ray 2.60.0, and
the only module that touches them.

The suite reaches into RLlib and Tune where they offer no public way: the exact buffer
accounting wraps ``CircularBuffer`` in place, the deadlock guard swaps a learner's aggregation
event, the W&B logger starts Ray's logging actors itself, and so on. A Ray upgrade can rename any
of these without notice. The rest of the suite goes through the small accessors below;
``PRIVATE_NAMES`` lists each name with its accessor. ``tests/test_ray_internals.py`` checks every
name against the installed Ray and fails naming the one that moved, and checks that no other
module touches them; ``warn_if_unchecked_ray()`` says so at start-up when Ray is not the version
they were checked against.
"""

from __future__ import annotations

import logging
from typing import Any

CHECKED_RAY_VERSION = "2.60.0"

_BUFFER = "ray.rllib.algorithms.appo.utils:CircularBuffer"
_LEARNER = "ray.rllib.algorithms.impala.impala_learner:IMPALALearner"
_WANDB = "ray.air.integrations.wandb:WandbLoggerCallback"
_CONFIG = "ray.rllib.algorithms.algorithm_config:AlgorithmConfig"

# (where it lives, the private name) -> the accessor here that uses it. "Where" is an importable
# "module:Class" (the name is an attribute the class's code sets or defines) or a module.
PRIVATE_NAMES: dict[tuple[str, str], str] = {
    (_BUFFER, "_lock"): "buffer_lock",
    (_BUFFER, "_num_added"): "buffer_puts",
    (_BUFFER, "_NxK"): "buffer_capacity",
    (_BUFFER, "_buffer"): "buffer_slots",
    (_BUFFER, "_indices"): "buffer_usable_samples",
    (_BUFFER, "_offset"): "buffer_offset",
    (_BUFFER, "_rng"): "wrap_buffer_rng",
    (_LEARNER, "_learner_thread_in_queue"): "learner_in_queue",
    (_LEARNER, "_learner_thread"): "learner_thread",
    (_LEARNER, "_rank"): "learner_rank",
    (_LEARNER, "_agg_event"): "replace_aggregation_event",
    (_LEARNER, "_gpu_loader_in_queue"): "gpu_loader_busy",
    (_LEARNER, "_gpu_loader_threads"): "gpu_loader_busy",
    ("ray.rllib.algorithms.utils", "_get_main_process_bundle"): "rllib_bundles",
    ("ray.rllib.algorithms.utils", "_get_env_runner_bundles"): "rllib_bundles",
    ("ray.rllib.algorithms.utils", "_get_learner_bundles"): "rllib_bundles",
    ("ray.tune.search:BasicVariantGenerator", "_uuid_prefix"): "set_trial_id_prefix",
    ("ray.tune.trainable.trainable:Trainable", "_trial_info"): "set_trial_info",
    (_WANDB, "_start_logging_actor"): "start_wandb_run",
    (_WANDB, "_trial_logging_actors"): "wandb_run_started",
    (_WANDB, "_trial_queues"): "wandb_run_queued",
    (_CONFIG, "_model_config"): "model_config_of",
    (_CONFIG, "_env_to_module_connector"): "env_to_module_connector_of",
}


# --- RLlib's CircularBuffer (APPO's learner in-queue) ---------------------------------------
def buffer_puts(buffer: Any) -> int:
    """Items put into the buffer since it was made."""
    return buffer._num_added


def buffer_capacity(buffer: Any) -> int:
    """Slots in the buffer: N batches x K uses."""
    return buffer._NxK


def buffer_slots(buffer: Any) -> Any:
    """The slot deque: each batch fills K slots; a used slot becomes None."""
    return buffer._buffer


def buffer_usable_samples(buffer: Any) -> int:
    """Slots ``get()`` can still pick."""
    return len(buffer._indices)


def buffer_offset(buffer: Any) -> int:
    """The absolute index of the newest slot (``get()`` picks absolute indices)."""
    return buffer._offset


def buffer_lock(buffer: Any) -> Any:
    """The lock every put and get of the buffer holds."""
    return buffer._lock


def set_buffer_lock(buffer: Any, lock: Any) -> None:
    buffer._lock = lock


def wrap_buffer_rng(buffer: Any, wrap: Any) -> None:
    """Replace the generator ``get()`` picks slots with by ``wrap(generator)``."""
    buffer._rng = wrap(buffer._rng)


# --- RLlib's IMPALALearner (APPO's learner) -------------------------------------------------
def learner_in_queue(learner: Any) -> Any:
    """The learner thread's in-queue: the CircularBuffer with N and K."""
    return learner._learner_thread_in_queue


def learner_thread(learner: Any) -> Any:
    """The learner thread, or None before it exists."""
    return getattr(learner, "_learner_thread", None)


def enqueue_for_learner_thread(in_queue: Any, item: Any, metrics: Any) -> None:
    """Hand ``item`` to an APPO learner thread's in-queue as IMPALALearner.update does."""
    from ray.rllib.algorithms.impala.impala_learner import _LearnerThread

    _LearnerThread.enqueue(in_queue, item, metrics)


def learner_rank(learner: Any) -> int:
    return int(getattr(learner, "_rank", 0))


def replace_aggregation_event(learner: Any, make: Any) -> Any:
    """Swap the event ``update()`` waits on for ``make(old_event)``; None without one."""
    old = getattr(learner, "_agg_event", None)
    if old is None:
        return None
    learner._agg_event = make(old)
    return learner._agg_event


def gpu_loader_busy(learner: Any) -> bool:
    """Batches wait in the GPU loaders' queue (they still reach the buffer)."""
    queue = getattr(learner, "_gpu_loader_in_queue", None)
    return bool(getattr(learner, "_gpu_loader_threads", None)) and not queue.empty()


# --- RLlib's placement-group bundles --------------------------------------------------------
# --- AlgorithmConfig: what a builder call set, before RLlib merges its defaults in -----------
def model_config_of(config: Any) -> Any:
    """The model config as set (a ``DefaultModelConfig`` or a dict); the public
    ``model_config`` adds RLlib's auto-included keys."""
    return config._model_config


def env_to_module_connector_of(config: Any) -> Any:
    """The env-to-module connector function as set (None: RLlib's default pipeline only)."""
    return config._env_to_module_connector


def rllib_bundles(config: Any) -> tuple[dict, list[dict], list[dict]]:
    """(main process, env runners, learners): the bundles RLlib asks Tune for."""
    from ray.rllib.algorithms.utils import (
        _get_env_runner_bundles,
        _get_learner_bundles,
        _get_main_process_bundle,
    )

    main = _get_main_process_bundle(config)
    return main, list(_get_env_runner_bundles(config)), list(_get_learner_bundles(config))


# --- Ray Tune ------------------------------------------------------------------------------
def set_trial_id_prefix(searcher: Any, prefix: str) -> None:
    """The prefix BasicVariantGenerator gives trial ids (part of its saved state)."""
    searcher._uuid_prefix = prefix


def set_trial_info(trainable: Any, trial_info: Any) -> None:
    """What ``Trainable.trial_id`` and friends read."""
    trainable._trial_info = trial_info


def trial_info(trainable: Any) -> Any:
    """The trial info Tune's ``Trainable.reset`` gave a reused trainable for its next trial."""
    return trainable._trial_info


def start_wandb_run(callback: Any, trial: Any, **init_kwargs) -> None:
    """Start the W&B logging actor of a trial with these ``wandb.init`` arguments."""
    callback._start_logging_actor(trial, **init_kwargs)


def wandb_run_started(callback: Any, trial: Any) -> bool:
    return trial in callback._trial_logging_actors


def wandb_run_queued(callback: Any, trial: Any) -> bool:
    return trial in callback._trial_queues


def warn_if_unchecked_ray() -> bool:
    """One warning line when the installed Ray is not the version ``PRIVATE_NAMES`` was checked
    against; returns whether it warned."""
    import ray

    if ray.__version__ == CHECKED_RAY_VERSION:
        return False
    logging.getLogger(__name__).warning(
        "ray %s is installed; the suite was checked against ray %s (exact buffer accounting and "
        "the deadlock guard reach into its internals): run tests/test_ray_internals.py",
        ray.__version__,
        CHECKED_RAY_VERSION,
    )
    return True
