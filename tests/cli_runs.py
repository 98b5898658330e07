"""A command line run two ways: as a real subprocess (``python -m module args``, what a user types,
a few seconds of imports each) or as ``main(argv)`` in the test process, reported alike.

Keep a real subprocess where the test is about the process (its exit code and stderr as a
shell sees them, what it imports); elsewhere the in-process run checks the same behaviour.
In this process ``ray.init`` is refused (tests/conftest.py), so an in-process sweep that got past
its checks by mistake fails its test instead of starting Ray.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

from suite.report.__main__ import main as report_main
from suite.sweep.driver.cli import main as sweep_main

REPO = Path(__file__).resolve().parents[1]
HANG_GUARD_S = 60  # these fail during planning; the bound only catches a hang

MAINS = {"suite.sweep": sweep_main, "suite.report": report_main}


def run_cli(
    module: str, *args: str, cwd: Path = REPO, env: dict | None = None
) -> tuple[subprocess.CompletedProcess, float]:
    """``python -m module args`` in a subprocess; also returns how long it took."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=env,
    )
    return done, time.monotonic() - started


def run_main(capsys, module: str, *args: str) -> subprocess.CompletedProcess:
    """``python -m module args`` as ``main(argv)`` in this process, reported like a subprocess."""
    capsys.readouterr()
    try:
        with mock.patch.dict(os.environ):  # main() may set env defaults for the process
            code = MAINS[module](list(args))
    except SystemExit as stop:  # argparse usage errors exit
        code = stop.code
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess([module, *args], code, out, err)


def assert_one_line_error(done: subprocess.CompletedProcess, *words: str) -> str:
    """Exit code 2 and one line on stderr, ``error: ...``, holding each of ``words``."""
    lines = done.stderr.splitlines()
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and "Traceback" not in done.stderr
    for word in words:
        assert word.lower() in lines[0].lower(), (word, lines[0])
    return lines[0]
