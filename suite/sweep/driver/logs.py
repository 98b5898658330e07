"""Keep Ray's, RLlib's, Tune's and W&B's own logs off the user's screen, in the run's ``logs/``.

Nothing a user cannot act on is printed: the sweep's own lines (plan, progress, one line per
failed trial naming where its full error is, the summary) go to stdout and stderr, everything
else to files:

- ``logs/driver.log``: Python logging of ray, ray.tune, ray.rllib and wandb, and Python warnings
  (RLlib's deprecation warnings among them);
- ``logs/native-stderr.log``: what C++ code writes to file descriptor 2 (Ray's core worker
  logs such as ``core_worker.cc ... E ...``). The descriptor is pointed at the file and Python's
  ``sys.stderr`` keeps the terminal, so the suite's own errors still reach the user.

Trial processes' logs stay in Ray's session folder (``log_to_driver=False``, see
``suite/sweep/driver/cluster.py``); Tune's per-trial error files are under
``tune/<trial>/error.txt``.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

LOG_DIR = "logs"
DRIVER_LOG = "driver.log"
NATIVE_STDERR_LOG = "native-stderr.log"
LIBRARY_LOGGERS = ("ray", "ray.tune", "ray.rllib", "ray.air", "ray.train", "wandb", "py.warnings")


def quiet_before_run() -> None:
    """Before a run folder exists (planning, dry runs): only library errors reach the screen."""
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")  # the legacy reporter is silent at verbose=0
    os.environ.setdefault("WANDB_SILENT", "true")
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)


def route_library_logs(run_dir: Path) -> Path:
    """From now on, library logs and native stderr go to ``run_dir/logs``; returns that folder."""
    folder = Path(run_dir) / LOG_DIR
    folder.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(folder / DRIVER_LOG, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    # On the root logger: ray.init(configure_logging=False) clears the "ray" logger's handlers,
    # so the libraries' loggers keep none and pass their records up.
    logging.getLogger().addHandler(handler)
    logging.captureWarnings(True)
    for name in LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if type(h) is not logging.FileHandler]:
            logger.removeHandler(old)
        logger.setLevel(logging.INFO)
        logger.propagate = True
    _suite_messages_to_terminal()
    _native_stderr_to(folder / NATIVE_STDERR_LOG)
    return folder


class _TerminalHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when it logs (the terminal, once fd 2 is a file)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def _suite_messages_to_terminal() -> None:
    """The suite's own warnings (W&B mode, ...) are meant for the user."""
    logger = logging.getLogger("suite")
    if not any(isinstance(handler, _TerminalHandler) for handler in logger.handlers):
        terminal = _TerminalHandler()
        terminal.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
        logger.addHandler(terminal)
    logger.propagate = False


def _native_stderr_to(path: Path) -> None:
    if getattr(sys.stderr, "_suite_terminal", False):
        return  # already routed (a resumed run in the same process, a test)
    sys.stderr.flush()
    terminal = os.fdopen(os.dup(2), "w", buffering=1, encoding="utf-8", errors="replace")
    terminal._suite_terminal = True
    log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 2)
    os.close(log)
    sys.stderr = terminal
