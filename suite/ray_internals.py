"""Every private name of Ray (RLlib, Tune) the suite relies on, checked against Ray 2.60.0.

The suite reaches into RLlib and Tune where they offer no public way: the exact buffer
accounting wraps ``CircularBuffer`` in place, the deadlock guard swaps a learner's aggregation
event, the W&B logger starts Ray's logging actors itself, and so on. A Ray upgrade can rename any
of these without notice. ``PRIVATE_NAMES`` lists them with the module that uses each;
``tests/test_ray_internals.py`` checks every one against the installed Ray and fails naming the
one that moved, and ``warn_if_unchecked_ray()`` says so at start-up when Ray is not the version
they were checked against.
"""

from __future__ import annotations

import logging

CHECKED_RAY_VERSION = "2.60.0"

# (where it lives, the private name) -> the suite module that needs it. "Where" is an importable
# "module:Class" (the name is an attribute the class's code sets or defines) or a module.
PRIVATE_NAMES: dict[tuple[str, str], str] = {
    ("ray.rllib.algorithms.appo.utils:CircularBuffer", "_lock"): "suite.collect.accounting",
    ("ray.rllib.algorithms.appo.utils:CircularBuffer", "_num_added"): "suite.collect.accounting",
    ("ray.rllib.algorithms.appo.utils:CircularBuffer", "_NxK"): "suite.collect.accounting",
    ("ray.rllib.algorithms.appo.utils:CircularBuffer", "_buffer"): "suite.collect.accounting",
    ("ray.rllib.algorithms.appo.utils:CircularBuffer", "_indices"): "suite.collect.accounting",
    ("ray.rllib.algorithms.appo.utils:CircularBuffer", "_offset"): "suite.collect.accounting",
    ("ray.rllib.algorithms.appo.utils:CircularBuffer", "_rng"): "suite.collect.accounting",
    ("ray.rllib.algorithms.impala.impala_learner:IMPALALearner", "_learner_thread_in_queue"): (
        "suite.collect.callback"
    ),
    ("ray.rllib.algorithms.impala.impala_learner:IMPALALearner", "_learner_thread"): (
        "suite.collect.callback"
    ),
    ("ray.rllib.algorithms.impala.impala_learner:IMPALALearner", "_rank"): (
        "suite.collect.callback"
    ),
    ("ray.rllib.algorithms.impala.impala_learner:IMPALALearner", "_agg_event"): (
        "suite.collect.deadlock_guard"
    ),
    ("ray.rllib.algorithms.impala.impala_learner:IMPALALearner", "_gpu_loader_in_queue"): (
        "suite.collect.deadlock_guard"
    ),
    ("ray.rllib.algorithms.impala.impala_learner:IMPALALearner", "_gpu_loader_threads"): (
        "suite.collect.deadlock_guard"
    ),
    ("ray.rllib.algorithms.utils", "_get_main_process_bundle"): "suite.configs.resolve",
    ("ray.tune.search:BasicVariantGenerator", "_uuid_prefix"): "suite.sweep.trial_ids",
    ("ray.tune.trainable.trainable:Trainable", "_trial_info"): "suite.sweep.trainable",
    ("ray.air.integrations.wandb:WandbLoggerCallback", "_start_logging_actor"): (
        "suite.sweep.sinks.wandb_logger"
    ),
    ("ray.air.integrations.wandb:WandbLoggerCallback", "_trial_logging_actors"): (
        "suite.sweep.sinks.wandb_logger"
    ),
    ("ray.air.integrations.wandb:WandbLoggerCallback", "_trial_queues"): (
        "suite.sweep.sinks.wandb_logger"
    ),
}


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
