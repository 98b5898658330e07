"""Reproduce RLlib 2.60's APPO circular-buffer deadlock with plain RLlib (no suite code).

    python benchmarks/repro/circular_buffer_deadlock.py      # exit 1: deadlock reproduced

Every `broadcast_interval`-th `IMPALALearner.update()` call waits on `learner._agg_event` until
the learner thread has completed `broadcast_interval` updates since the last aggregation
(ray/rllib/algorithms/impala/impala_learner.py). A batch the circular buffer evicts before it
was sampled is an update that never comes. Once the learner thread has trained on everything
left, it waits in `CircularBuffer.get()` for the next put, which only the blocked `update()`
caller could make: neither thread moves again, and `Algorithm.train()` never returns.

To make the drop deterministic, the learner thread is held (its buffer looks empty to `get()`)
until 4 batches were put; with N=1, K=1 three of them are evicted unused. Without the hold the
same thing happens whenever sampling outpaces learning by more than N batches inside one
aggregation window (e.g. RLlib's pong_appo.py settings, broadcast_interval=5, with N=1).

Tested with ray[rllib]==2.60.0, torch 2.13.0 (CPU), gymnasium 1.2.2, Python 3.11.
"""

import sys
import threading
import time
import traceback

import ray
from ray.rllib.algorithms.appo import APPOConfig
from ray.rllib.algorithms.appo.utils import CircularBuffer
from ray.rllib.callbacks.callbacks import RLlibCallback

HOLD_UNTIL_PUTS = 4
BROADCAST_INTERVAL = 8
HANG_PROOF_S = 20.0
GIVE_UP_S = 180.0


class HeldCircularBuffer(CircularBuffer):
    """Looks empty to `get()` (which spins on `len(self) == 0`) until enough puts happened."""

    def __len__(self):
        return super().__len__() if self._num_added >= HOLD_UNTIL_PUTS else 0


def hold(learner):
    learner._learner_thread_in_queue.__class__ = HeldCircularBuffer


class HoldLearnerThread(RLlibCallback):
    def on_algorithm_init(self, *, algorithm, metrics_logger=None, **kwargs):
        algorithm.learner_group.foreach_learner(hold)


def config() -> APPOConfig:
    return (
        APPOConfig()
        .environment("CartPole-v1")
        .env_runners(num_env_runners=1, num_envs_per_env_runner=4, rollout_fragment_length=50)
        .learners(num_learners=0)  # the learner lives in this process, so we can look at it
        .training(
            train_batch_size_per_learner=500,
            use_circular_buffer=True,
            circular_buffer_num_batches=1,
            circular_buffer_iterations_per_batch=1,
            broadcast_interval=BROADCAST_INTERVAL,
        )
        .reporting(min_time_s_per_iteration=2.0)
        .callbacks(HoldLearnerThread)
    )


def stuck(learner) -> bool:
    """The learner thread waits on an empty buffer while update() waits for aggregation."""
    return learner._learner_thread_in_queue.qsize() == 0 and not learner._agg_event.is_set()


def main() -> int:
    ray.init(num_cpus=2, include_dashboard=False)
    algo = config().build_algo()
    learners = []
    algo.learner_group.foreach_learner(learners.append)
    learner = learners[0]
    iterations = []
    trainer = threading.Thread(
        target=lambda: [iterations.append(algo.train()) for _ in range(30)], daemon=True
    )
    trainer.start()
    started, stuck_since = time.monotonic(), None
    while trainer.is_alive() and time.monotonic() - started < GIVE_UP_S:
        now = time.monotonic()
        stuck_since = (stuck_since or now) if stuck(learner) else None
        if stuck_since and now - stuck_since >= HANG_PROOF_S:
            report_deadlock(learner, len(iterations), now - stuck_since)
            return 1
        time.sleep(0.2)
    print(f"No deadlock: {len(iterations)} iterations finished.")
    return 0


def report_deadlock(learner, iterations: int, seconds: float) -> None:
    buffer = learner._learner_thread_in_queue
    print(
        f"DEADLOCK reproduced: train() stuck after {iterations} iteration(s); for {seconds:.0f} s "
        f"the learner thread waited on an empty circular buffer (puts: {buffer._num_added}, "
        f"N=1, K=1) while update() call #{learner._submitted_updates} waited for "
        f"{BROADCAST_INTERVAL} learner updates (done in this window: {learner._num_updates})."
    )
    frames = sys._current_frames()
    for thread in threading.enumerate():
        if thread.name in ("_LearnerThread", "Thread-1 (<lambda>)") or "lambda" in thread.name:
            print(f"\n--- {thread.name} ---")
            print("".join(traceback.format_stack(frames[thread.ident])[-4:]))
    sys.stdout.flush()


if __name__ == "__main__":
    code = main()
    import os

    os._exit(code)  # the deadlocked threads would keep a normal exit waiting
