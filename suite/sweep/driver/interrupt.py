"""Ctrl-C that always returns: the first stops the sweep gracefully, within a deadline; the
second (or the deadline) exits at once, leaving the same record.

Tune's own SIGINT handler is turned off (``TUNE_DISABLE_SIGINT_HANDLER``): after a first Ctrl-C
it hands SIGINT back to Python, whose second Ctrl-C raises ``KeyboardInterrupt`` wherever the
driver is (a traceback, and ``run.json`` left at "running"). Instead the first Ctrl-C asks Tune
to stop through the SIGUSR1 handler Tune installs for this purpose; hung trials cannot delay
that past ``GRACE_S``: then, or on a second Ctrl-C, ``on_give_up`` records the run as
interrupted and the process exits with 130.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable

GRACE_S = 25.0
EXIT_INTERRUPTED = 130


class Interrupts:
    def __init__(self, on_give_up: Callable[[], None], grace_s: float = GRACE_S):
        self._on_give_up = on_give_up
        self._grace_s = grace_s
        self._lock = threading.Lock()
        self.interrupted = False
        self.tune_running = False  # set around Tuner.fit(): only then can Tune stop gracefully
        self._given_up = False
        self._deadline: threading.Timer | None = None

    def install(self) -> Interrupts:
        os.environ["TUNE_DISABLE_SIGINT_HANDLER"] = "1"
        signal.signal(signal.SIGINT, self._on_sigint)
        return self

    def _on_sigint(self, signum, frame) -> None:
        if self.interrupted:
            self.give_up()
        self.interrupted = True
        if not (self.tune_running and callable(signal.getsignal(signal.SIGUSR1))):
            self.give_up()  # nothing to stop gracefully
        print(
            f"Stopping the sweep (at most {self._grace_s:.0f} s; Ctrl-C again to stop now)...",
            file=sys.stderr,
            flush=True,
        )
        self._deadline = threading.Timer(self._grace_s, self.give_up)
        self._deadline.daemon = True
        self._deadline.start()
        os.kill(os.getpid(), signal.SIGUSR1)  # Tune's handler: end the run, keep its state

    def tune_finished(self) -> None:
        """Tune has returned: a later Ctrl-C ends the process straight away."""
        self.tune_running = False
        if self._deadline is not None:
            self._deadline.cancel()

    def give_up(self) -> None:
        with self._lock:
            if self._given_up:
                return
            self._given_up = True
        try:
            self._on_give_up()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(EXIT_INTERRUPTED)  # threads stuck in Ray or W&B calls cannot hold us
