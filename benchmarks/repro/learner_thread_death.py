"""Reproduce RLlib 2.60's APPO waiting for ever on a learner thread that has died (no suite code).

    python benchmarks/repro/learner_thread_death.py      # exit 1: the hang reproduced

IMPALA/APPO's learner thread (``_LearnerThread`` in ray/rllib/algorithms/impala/impala_learner.py)
runs every update. If an update raises, the thread prints the traceback to stderr and ends; no
one is told. Every ``broadcast_interval``-th ``IMPALALearner.update()`` then waits on
``learner._agg_event`` for learner updates that can no longer come, and ``Algorithm.train()``
never returns. Seen in this suite when a scheduled ``lr`` reached a ``foreach`` Adam as a tensor
(torch: "lr as a Tensor is not supported for capturable=False and foreach=True"); here the loss
raises on purpose. The suite's deadlock guard raises ``LearnerThreadDied`` instead
(suite/collect/deadlock_guard.py).

Tested with ray[rllib]==2.60.0, torch 2.13.0 (CPU), gymnasium 1.2.2, Python 3.11.
"""

import threading
import time

import ray
from ray.rllib.algorithms.appo import APPOConfig

HANG_PROOF_S = 30.0  # the thread dead and train() not returned for this long is a hang
GIVE_UP_S = 120.0


def config() -> APPOConfig:
    return (
        APPOConfig()
        .environment("CartPole-v1")
        .env_runners(num_env_runners=1, num_envs_per_env_runner=4, rollout_fragment_length=50)
        .learners(num_learners=0)  # the learner lives in this process, so we can look at it
        .training(train_batch_size_per_learner=500, broadcast_interval=2)
        .reporting(min_time_s_per_iteration=1.0)
    )


def fail(**_):
    raise RuntimeError("raised on purpose in the loss")


def main() -> int:
    ray.init(num_cpus=2, include_dashboard=False)
    algo = config().build_algo()
    learners = []
    algo.learner_group.foreach_learner(learners.append)
    learner = learners[0]
    learner.compute_loss_for_module = fail
    iterations, errors = [], []

    def train():
        try:
            for _ in range(30):
                iterations.append(algo.train())
        except Exception as error:  # what a caller would need: train() raising
            errors.append(error)

    trainer = threading.Thread(target=train, daemon=True)
    trainer.start()
    started, dead_since = time.monotonic(), None
    while trainer.is_alive() and time.monotonic() - started < GIVE_UP_S:
        now = time.monotonic()
        dead = not learner._learner_thread.is_alive()
        dead_since = (dead_since or now) if dead else None
        if dead_since and now - dead_since >= HANG_PROOF_S:
            print(
                f"HANG reproduced: the learner thread died {now - dead_since:.0f} s ago, and "
                f"train() has not returned or raised ({len(iterations)} iteration(s) finished)."
            )
            return 1
        time.sleep(0.2)
    outcome = f"train() raised {errors[0]!r}" if errors else "train() returned"
    print(f"No hang: {outcome} after {len(iterations)} iteration(s).")
    return 0


if __name__ == "__main__":
    code = main()
    import os

    os._exit(code)  # the waiting thread would keep a normal exit waiting
