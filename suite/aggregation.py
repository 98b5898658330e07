"""When can RLlib 2.60's circular buffer drop a batch? Its aggregation window decides.

``IMPALALearner.update`` (``ray/rllib/algorithms/impala/impala_learner.py``) puts each train
batch into the learner's circular buffer and, on every ``broadcast_interval``-th call, waits
(``_agg_event.wait()``) until the learner thread has completed ``broadcast_interval`` updates
since the last aggregation (``BATCHES_PER_AGGREGATION = broadcast_interval``). That wait
throttles the producer to the learner. Writing B for ``broadcast_interval``:

- K = 1: an update uses up its batch, so the wait at put jB can only end once jB updates were
  done on jB batches: every batch put so far was trained on and the buffer is empty. A window
  then puts at most B batches into an empty buffer, and a put evicts an unused batch only if it
  comes more than N puts into the window. So drops need B > N; with B <= N no batch is ever
  dropped, whatever the rates, and N changes nothing about drops. Moreover the learner is idle
  when a wait ends (it just did the window's last update on an empty buffer), so it takes the
  window's first batch as soon as it is put: that batch is never dropped, and in practice drops
  need B >= N + 2; at B = N + 1 only a learner thread that has not yet taken the first batch when
  the last one arrives can drop. From B >= N + 2, drops happen when the learner falls more than
  N batches behind within one window (in bare RLlib 2.60 the first drop also deadlocks the trial:
  the window's last update never comes).
- K > 1: updates on reused batches count toward the window too, so the wait ends while the
  buffer still holds batches never sampled, and a new put can evict one of them at any N and B.
  Drops then depend on the rates: they need a learner doing fewer than about K updates per
  arriving batch.

Pure: used by the sweep's dry run before anything starts and by the report afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

N_CANNOT_MATTER = "N cannot change drops here: broadcast_interval <= N with K=1"


@dataclass(frozen=True)
class DropRule:
    possible: bool  # can the code path drop at all
    label: str  # a few words for a table cell
    reason: str  # one sentence
    expected: bool = True  # drops with a slow enough learner, no thread-timing accident needed


def drop_rule(n: int, k: int, broadcast_interval: int) -> DropRule:
    """Whether the circular buffer of an (N, K, broadcast_interval) cell can ever drop a batch."""
    if min(n, k, broadcast_interval) < 1:
        raise ValueError(
            f"N, K and broadcast_interval must be >= 1, got {n}, {k}, {broadcast_interval}"
        )
    if k > 1:
        return DropRule(
            True,
            "yes, rate-dependent",
            f"K={k:g} > 1: updates on reused batches release the aggregation wait, so batches "
            "are dropped when the learner does fewer than about K updates per arriving batch",
        )
    if broadcast_interval > n + 1:
        return DropRule(
            True,
            f"yes, B={broadcast_interval:g} > N+1",
            f"K=1 and broadcast_interval {broadcast_interval:g} > N+1={n + 1:g}: a window puts "
            f"up to {broadcast_interval:g} batches, so a learner more than N batches behind drops",
        )
    if broadcast_interval == n + 1:
        return DropRule(
            True,
            "barely, B = N+1",
            f"K=1 and broadcast_interval {broadcast_interval:g} = N+1: the learner, idle when a "
            "wait ends, takes each window's first batch at once, so a drop needs the learner "
            "thread to have missed it when the window's last batch arrives",
            expected=False,
        )
    return DropRule(
        False,
        "no, B <= N",
        f"K=1 and broadcast_interval {broadcast_interval:g} <= N={n:g}: each aggregation wait "
        "empties the buffer and a window puts no more batches than it holds",
        expected=False,
    )


def n_cannot_matter(cells: Iterable[tuple[int, int, int]]) -> bool:
    """True when the (N, K, broadcast_interval) cells vary N but none of them can drop."""
    cells = list(cells)
    varies_n = len({n for n, _, _ in cells}) > 1
    return varies_n and not any(drop_rule(n, k, b).possible for n, k, b in cells)
