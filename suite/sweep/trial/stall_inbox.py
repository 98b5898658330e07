"""Where a stalled trial's report goes: the trial hands it over here, and the run records it.

``StallInbox`` is a small named Ray actor of the run; a stalled trial hands it the reason and
its stacks before its process ends (``report_stall``, called by the watchdog of
``suite/sweep/trial/stall.py``). ``StallRecorder`` (the driver's side: a Tune callback, listed
before the store writer) collects them whenever Tune reports a trial failure, writes
``trials/<id>/stall-<n>.txt`` and tells the writer which failures were stalls.

The inbox also hears each trial's watchdog beat every ``BEAT_S`` and its claim, on a stall, that
it is saving stacks and will end its process. A frozen trial process (SIGSTOPped, or blocked in
C with the GIL held) freezes its watchdog too: its beats stop and it never claims, and the
driver's ``StallWatch`` (``suite/sweep/driver/stall_watch.py``) reads that here and ends it.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import ray
from ray.tune import Callback

from suite.store.files import count_stalls, write_text
from suite.store.schema import TRIAL_CONFIG_DIR

INBOX_TIMEOUT_S = 10.0
BEAT_S = 2.0  # how often a trial's watchdog tells the inbox it is alive


def inbox_name(run_id: str) -> str:
    return f"suite-stall-inbox-{run_id}"


@dataclass(frozen=True)
class WatchdogNews:
    """What the inbox heard from a trial's watchdog in its current attempt."""

    beat_age_s: float | None  # seconds since its last beat; None: it never beat
    claimed: bool  # it said it is handling a stall (saving stacks, then ending its process)


@ray.remote(num_cpus=0, max_restarts=0)
class StallInbox:
    """Times are the inbox's own clock: beats from any node compare without clock skew."""

    def __init__(self) -> None:
        self._reports: dict[str, list[tuple[str, str]]] = {}
        self._beats: dict[str, float] = {}
        self._claims: set[str] = set()

    def report(self, trial_id: str, reason: str, stacks: str) -> None:
        self._reports.setdefault(trial_id, []).append((reason, stacks))

    def beat(self, trial_id: str) -> None:
        self._beats[trial_id] = time.monotonic()

    def claim(self, trial_id: str) -> None:
        self._claims.add(trial_id)

    def news(self, trial_ids: list[str]) -> dict[str, WatchdogNews]:
        now = time.monotonic()
        return {
            trial_id: WatchdogNews(
                now - self._beats[trial_id] if trial_id in self._beats else None,
                trial_id in self._claims,
            )
            for trial_id in trial_ids
        }

    def take(self, trial_id: str) -> list[tuple[str, str]]:
        """A failure of the trial was recorded: its reports, and its attempt's news, end here."""
        self._beats.pop(trial_id, None)
        self._claims.discard(trial_id)
        return self._reports.pop(trial_id, [])


def report_stall(run_id: str, trial_id: str, reason: str, stacks: str) -> None:
    """From a stalled trial: hand the reason and stacks to the run's inbox (bounded wait)."""
    inbox = ray.get_actor(inbox_name(run_id))
    ray.get(inbox.report.remote(trial_id, reason, stacks), timeout=INBOX_TIMEOUT_S)


def claim_stall(run_id: str, trial_id: str) -> None:
    """From a stalled trial, first: it is saving its stacks and will end its process."""
    inbox = ray.get_actor(inbox_name(run_id))
    ray.get(inbox.claim.remote(trial_id), timeout=INBOX_TIMEOUT_S)


class Beats:
    """A trial's beats to the run's inbox, sent from its watchdog's thread without waiting."""

    def __init__(self, run_id: str, trial_id: str):
        self.run_id, self.trial_id = run_id, trial_id
        self._inbox = None
        self._failed = False

    def __call__(self) -> None:
        if self._failed:
            return
        try:
            if self._inbox is None:
                self._inbox = ray.get_actor(inbox_name(self.run_id))
            self._inbox.beat.remote(self.trial_id)
        except (ray.exceptions.RayError, ValueError) as error:
            # The driver then sees no beats, and waits for a claim before ending a stalled trial.
            self._failed = True
            print(f"Stall watchdog: cannot reach the run's inbox: {error!r}", file=sys.stderr)


def watchdog_news(run_id: str, trial_ids: list[str]) -> dict[str, WatchdogNews]:
    """From the driver: what each trial's watchdog said lately; {} when the inbox cannot say."""
    try:
        inbox = ray.get_actor(inbox_name(run_id))
        return ray.get(inbox.news.remote(trial_ids), timeout=INBOX_TIMEOUT_S)
    except (ray.exceptions.RayError, ValueError):  # GetTimeoutError included
        return {}


class StallRecorder(Callback):
    """Saves each stall's stacks in the trial's folder and remembers the trial's last failure."""

    def __init__(self, run_dir, run_id: str):
        self.run_dir = run_dir
        self.run_id = run_id
        self._inbox = None
        self._last_stall: dict[
            str, str | None
        ] = {}  # trial id -> reason if its last failure stalled

    def __getstate__(self) -> dict:
        # Tune pickles its callbacks into tuner.pkl (for --resume); an actor handle is not data.
        return {**vars(self), "_inbox": None}

    def setup(self, **info) -> None:
        self._inbox = StallInbox.options(
            name=inbox_name(self.run_id), get_if_exists=True, lifetime=None
        ).remote()

    def on_trial_recover(self, iteration, trials, trial, **info) -> None:
        self._collect(trial.trial_id)

    def on_trial_error(self, iteration, trials, trial, **info) -> None:
        self._collect(trial.trial_id)

    def reason(self, trial_id: str) -> str | None:
        """The stall reason if the trial's last failure was a stall."""
        return self._last_stall.get(trial_id)

    def _collect(self, trial_id: str) -> None:
        try:
            reports = ray.get(self._inbox.take.remote(trial_id), timeout=INBOX_TIMEOUT_S)
        except ray.exceptions.RayError:  # GetTimeoutError included
            reports = []
        trial_dir = Path(self.run_dir) / TRIAL_CONFIG_DIR / trial_id
        for _reason, stacks in reports:
            # numbered from the files already there, so a resumed run appends, never overwrites
            write_text(trial_dir / f"stall-{count_stalls(trial_dir) + 1}.txt", stacks)
        self._last_stall[trial_id] = reports[-1][0] if reports else None
