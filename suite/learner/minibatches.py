"""Minibatches drawn by index from a batch's real rows.

RLlib's ``MiniBatchCyclicIterator`` slices contiguous rows (bootstrap rows included) and, when
it shuffles, shuffles in place; here each epoch is a permutation of the real rows (or their order,
without shuffling) split into minibatches, as SB3's PPO draws them. Every minibatch counts the
whole batch's env steps, as RLlib's do, so RLlib's trained-steps counters (and the target
network's update schedule that reads them) keep their meaning.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping

import torch
import tree
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch


def epoch_indices(
    rows: int, *, minibatch_size: int, shuffle: bool, generator: torch.Generator
) -> Iterator[torch.Tensor]:
    """One epoch: the row indices of each minibatch (the last may be smaller)."""
    order = torch.randperm(rows, generator=generator) if shuffle else torch.arange(rows)
    yield from torch.split(order, minibatch_size)


class IndexMinibatches:
    """``num_epochs`` epochs of minibatches over ``columns`` (module id -> column -> tensor of
    the module's real rows), or exactly ``num_total`` minibatches when that is set (RLlib's
    multi-learner setting, so every learner takes the same number of steps)."""

    def __init__(
        self,
        columns: Mapping[str, Mapping],
        *,
        env_steps: int,
        num_epochs: int,
        minibatch_size: int | None,
        shuffle: bool,
        num_total: int,
        generator: torch.Generator,
    ):
        self._columns = columns
        self._env_steps = env_steps
        self._rows = {mid: _rows(cols) for mid, cols in columns.items()}
        self._size = {mid: minibatch_size or rows for mid, rows in self._rows.items()}
        self._shuffle = shuffle
        self._generator = generator
        per_epoch = max(math.ceil(rows / self._size[mid]) for mid, rows in self._rows.items())
        self.count = num_total or num_epochs * per_epoch

    def _stream(self, module_id: str) -> Iterator[torch.Tensor]:
        """Epoch after epoch of this module's minibatch indices, for as long as asked."""
        rows, size = self._rows[module_id], self._size[module_id]
        for _ in itertools.count():
            yield from epoch_indices(
                rows, minibatch_size=size, shuffle=self._shuffle, generator=self._generator
            )

    def __iter__(self) -> Iterator[MultiAgentBatch]:
        streams = {mid: self._stream(mid) for mid in self._columns}
        for _ in range(self.count):
            minibatch = {
                mid: _take(cols, next(streams[mid])) for mid, cols in self._columns.items()
            }
            yield MultiAgentBatch(minibatch, self._env_steps)


def _take(columns: Mapping, index: torch.Tensor) -> SampleBatch:
    return SampleBatch(tree.map_structure(lambda column: column[index], dict(columns)))


def _rows(columns: Mapping) -> int:
    return int(tree.flatten(columns)[0].shape[0])
