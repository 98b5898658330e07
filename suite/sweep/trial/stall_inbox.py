"""Where a stalled trial's report goes: the trial hands it over here, and the run records it.

``StallInbox`` is a small named Ray actor of the run; a stalled trial hands it the reason and
its stacks before its process ends (``report_stall``, called by the watchdog of
``suite/sweep/trial/stall.py``). ``StallRecorder`` (the driver's side: a Tune callback, listed
before the store writer) collects them whenever Tune reports a trial failure, writes
``trials/<id>/stall-<n>.txt`` and tells the writer which failures were stalls.
"""

from __future__ import annotations

from pathlib import Path

import ray
from ray.tune import Callback

from suite.store.files import count_stalls, write_text
from suite.store.schema import TRIAL_CONFIG_DIR

INBOX_TIMEOUT_S = 10.0


def inbox_name(run_id: str) -> str:
    return f"suite-stall-inbox-{run_id}"


@ray.remote(num_cpus=0, max_restarts=0)
class StallInbox:
    def __init__(self) -> None:
        self._reports: dict[str, list[tuple[str, str]]] = {}

    def report(self, trial_id: str, reason: str, stacks: str) -> None:
        self._reports.setdefault(trial_id, []).append((reason, stacks))

    def take(self, trial_id: str) -> list[tuple[str, str]]:
        return self._reports.pop(trial_id, [])


def report_stall(run_id: str, trial_id: str, reason: str, stacks: str) -> None:
    """From a stalled trial: hand the reason and stacks to the run's inbox (bounded wait)."""
    inbox = ray.get_actor(inbox_name(run_id))
    ray.get(inbox.report.remote(trial_id, reason, stacks), timeout=INBOX_TIMEOUT_S)


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
