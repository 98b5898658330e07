"""Reproduce RLlib 2.60's APPO learner running V-trace across unrelated steps when
``shuffle_batch_per_epoch`` is on (no suite code, no training).

    python benchmarks/repro/shuffled_minibatches_vtrace.py      # exit 1: reproduced

``APPOConfig`` accepts ``training(shuffle_batch_per_epoch=True)`` (off by default for APPO) and
IMPALA's ``training_step`` passes it to the learner's update. The learner's
``MiniBatchCyclicIterator`` then shuffles the batch's rows (``SampleBatch.shuffle``), and
``APPOTorchLearner.compute_loss_for_module`` reshapes each minibatch into time-major
"trajectories" of ``rollout_fragment_length`` rows (``make_time_major``) for V-trace, which
discounts and bootstraps along each trajectory. After a shuffle those rows are no longer
consecutive steps. Here a batch of 4 fragments of 8 steps carries each row's (fragment, step);
the script takes the second epoch's minibatch as the learner does (RLlib shuffles when an epoch
starts over) and checks its time-major columns.

Tested with ray[rllib]==2.60.0, torch 2.13.0 (CPU), Python 3.11.
"""

import sys

import numpy as np
import torch
from ray.rllib.algorithms.impala.torch.vtrace_torch_v2 import make_time_major
from ray.rllib.policy.sample_batch import DEFAULT_POLICY_ID, MultiAgentBatch, SampleBatch
from ray.rllib.utils.minibatch_utils import MiniBatchCyclicIterator

FRAGMENTS, STEPS = 4, 8  # rollout_fragment_length 8; the minibatch is the whole batch


def trajectories_after(shuffle: bool) -> np.ndarray:
    """The time-major [STEPS, FRAGMENTS] (fragment * 100 + step) ids V-trace would run along."""
    ids = np.array([f * 100 + s for f in range(FRAGMENTS) for s in range(STEPS)])
    batch = MultiAgentBatch({DEFAULT_POLICY_ID: SampleBatch({"id": ids})}, len(ids))
    iterator = MiniBatchCyclicIterator(
        batch, num_epochs=2, minibatch_size=len(ids), shuffle_batch_per_epoch=shuffle
    )
    _, second = list(iterator)  # RLlib shuffles when a new epoch starts: read the second
    minibatch = second.policy_batches[DEFAULT_POLICY_ID]
    column = torch.as_tensor(np.asarray(minibatch["id"]))
    return make_time_major(column, trajectory_len=STEPS).numpy()


def is_trajectory(column: np.ndarray) -> bool:
    """One fragment's steps 0..STEPS-1 in order."""
    one_fragment = np.all(column // 100 == column[0] // 100)
    return bool(one_fragment and np.all(column % 100 == np.arange(STEPS)))


def main() -> int:
    np.random.seed(0)
    in_order = trajectories_after(shuffle=False)
    shuffled = trajectories_after(shuffle=True)
    ok = [is_trajectory(shuffled[:, b]) for b in range(FRAGMENTS)]
    print("without shuffling, V-trace's trajectories:", in_order.T.tolist())
    print("with shuffle_batch_per_epoch=True:         ", shuffled.T.tolist())
    assert all(is_trajectory(in_order[:, b]) for b in range(FRAGMENTS))
    if all(ok):
        print("not reproduced: every time-major column is one fragment's steps in order")
        return 0
    print(f"reproduced: {ok.count(False)} of {FRAGMENTS} time-major columns mix fragments or steps")
    return 1


if __name__ == "__main__":
    sys.exit(main())
