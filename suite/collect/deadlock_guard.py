"""Release RLlib 2.60's aggregation wait when it can never end (the circular-buffer deadlock).

Every ``broadcast_interval``-th ``IMPALALearner.update()`` call waits on ``learner._agg_event``
until the learner thread has completed ``broadcast_interval`` updates since the last aggregation.
A batch the circular buffer evicts unused is an update that never comes. If the learner thread
then sits in ``get()`` on an empty in-queue, only the waiting caller could put the next batch:
nothing moves again (seen with K=1 and ``broadcast_interval`` > N).

The guard swaps ``_agg_event`` for an event whose ``wait()`` also returns once the learner thread
has been idle on an empty in-queue, with no put in between, for ``HOLD_S``. That state is only
reachable when the wait cannot end (only the waiting thread produces). Nothing trained or counted
changes: the caller goes on to its next put exactly as after an aggregation, and RLlib's own
update counter is left alone, so its next aggregation comes after the missing updates are made
up. What that window loses is one reduced-metrics dict, as on RLlib's non-aggregating calls.

The same wait can never end when the learner thread itself has died (an exception in its update:
RLlib 2.60 leaves the thread dead and the caller waiting, until the suite's stall watchdog ends
the trial minutes later). The guarded wait raises ``LearnerThreadDied`` with that exception
instead, so the trial fails at once with the reason.

Turn it off with ``learner_config_dict={"suite_deadlock_guard": False}`` (``--no-deadlock-guard``)
to reproduce RLlib's own behaviour. The setting, ``HOLD_S`` and whether a config has the guard on
(``guard_enabled``) live in ``suite/rllib_buffer.py``, beside the rule and the simulator that
model it; this module is the part that patches RLlib.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from suite.ray_internals import gpu_loader_busy, learner_thread, replace_aggregation_event
from suite.rllib_buffer import HOLD_S, POLL_S

# Threads of this process that ended with an exception, and the exception (threading.excepthook).
_THREAD_ERRORS: weakref.WeakKeyDictionary[threading.Thread, BaseException] = (
    weakref.WeakKeyDictionary()
)


class LearnerThreadDied(RuntimeError):
    """RLlib's learner thread has ended: no learner update can come, so no wait for one ends."""


class GuardedAggregationEvent(threading.Event):
    """A ``threading.Event`` whose ``wait()`` also ends when ``stalled_token()`` has returned the
    same non-None value for ``hold_s`` (the token changes with every put into the in-queue), and
    raises ``LearnerThreadDied`` once ``thread_death()`` returns a reason."""

    def __init__(
        self,
        stalled_token: Callable[[], Any],
        on_release: Callable[[], None],
        hold_s: float = HOLD_S,
        poll_s: float = POLL_S,
        thread_death: Callable[[], str | None] = lambda: None,
    ):
        super().__init__()
        self._stalled_token = stalled_token
        self._on_release = on_release
        self._hold_s = hold_s
        self._poll_s = poll_s
        self._thread_death = thread_death

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        held_token, held_since = None, 0.0
        while True:
            step = (
                self._poll_s if deadline is None else min(self._poll_s, deadline - time.monotonic())
            )
            if super().wait(max(step, 0.0)):
                return True
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return False
            death = self._thread_death()
            if death is not None:
                raise LearnerThreadDied(
                    f"RLlib's learner thread died ({death}): no learner update can come, so the "
                    "trial ends here instead of waiting for one"
                )
            token = self._stalled_token()
            if token is None or token != held_token:
                held_token, held_since = token, now
            elif now - held_since >= self._hold_s:
                self._on_release()
                return True


def install_guard(learner: Any, accountant: Any) -> GuardedAggregationEvent | None:
    """Swap the learner's aggregation event for a guarded one that counts its releases on
    ``accountant.guard_releases`` (None: the learner has no aggregation event). Call before the
    first ``update()`` (``on_algorithm_init``)."""

    def stalled_token():
        return None if gpu_loader_busy(learner) else accountant.idle_on_empty()

    record_thread_errors()
    thread = learner_thread(learner)

    def thread_death() -> str | None:
        return None if thread is None else death_of(thread)

    def guarded(old: threading.Event) -> GuardedAggregationEvent:
        event = GuardedAggregationEvent(
            stalled_token, accountant.count_guard_release, thread_death=thread_death
        )
        if old.is_set():
            event.set()
        return event

    return replace_aggregation_event(learner, guarded)


def death_of(thread: threading.Thread) -> str | None:
    """Why ``thread`` has ended (its exception, when ``record_thread_errors`` saw it); None while
    it runs or before it started."""
    if thread.is_alive() or thread.ident is None:
        return None
    error = _THREAD_ERRORS.get(thread)
    return f"{type(error).__name__}: {error}" if error else "it ended"


def record_thread_errors() -> None:
    """Keep each dying thread's exception for ``death_of``, then report it as before (once per
    process: ``threading.excepthook`` is chained, not replaced)."""
    previous = threading.excepthook
    if getattr(previous, "suite_records_errors", False):
        return

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.thread is not None and args.exc_value is not None:
            _THREAD_ERRORS[args.thread] = args.exc_value
        previous(args)

    hook.suite_records_errors = True
    threading.excepthook = hook
