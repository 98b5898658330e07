"""What a failed trial's error was, in one line, for the store's ``error`` column and the
progress view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ERROR_TEXT_CHARS = 500
NO_ERROR_FILE = "trial failed; see its Tune logs"


def error_text(trial: Any) -> str:
    """The last non-blank line of the trial's error file (at most ``ERROR_TEXT_CHARS``), or
    where to look when there is none or it cannot be read."""
    path = getattr(trial, "error_file", None)
    try:
        text = Path(path).read_text() if path else ""
    except OSError:
        text = ""
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:ERROR_TEXT_CHARS] if lines else NO_ERROR_FILE
