"""Run a sweep the way a user does (``python -m suite.sweep`` in its own process) for a row."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from suite.store import schema


class SweepRunError(RuntimeError):
    """The sweep subprocess failed; the message carries the end of its stderr."""


def run_to_end(
    command: list[str],
    error: type[Exception],
    what: str,
    timeout_s: float | None = None,
    env: dict[str, str] | None = None,
) -> None:
    """Run ``command`` to its end; raise ``error`` naming ``what`` on a failure (with the end of
    its stderr) or when it is still running after ``timeout_s``."""
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=timeout_s, env=env
        )
    except subprocess.TimeoutExpired:
        raise error(f"{what} did not finish within {timeout_s:.0f} s") from None
    if done.returncode != 0:
        raise error(
            f"{' '.join(command[1:])} exited {done.returncode}: {done.stderr.strip()[-500:]}"
        )


def run_sweep(
    sweep: str,
    budget: str,
    results_root: Path,
    *extra: str,
    name: str | None = None,
    timeout_s: float | None = None,
) -> Path:
    """Run ``sweep`` (a name, or a sweep file whose sweep is called ``name``) at ``budget``
    without W&B or report; returns its run folder. ``timeout_s``: give up after that long."""
    command = [
        sys.executable,
        "-m",
        "suite.sweep",
        sweep,
        "--budget",
        budget,
        *extra,
        "--wandb",
        "off",
        "--no-report",
        "--results-dir",
        str(results_root),
    ]
    run_to_end(command, SweepRunError, f"{sweep} --budget {budget}", timeout_s)
    return next((Path(results_root) / (name or sweep)).iterdir())


def run_record(run_dir: Path) -> dict:
    """The run's ``run.json``, as the sweep last wrote it."""
    return json.loads((Path(run_dir) / schema.RUN_METADATA_FILE).read_text())
