"""Atomic file writes: a reader (or a crash) never sees a half-written table."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd


def _replace_atomically(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_parquet(path: Path, frame: pd.DataFrame) -> None:
    _replace_atomically(path, lambda tmp: frame.to_parquet(tmp, index=False, engine="pyarrow"))


def read_parquet(path: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """A table that a live sweep may be replacing as we read it.

    ``pandas.read_parquet(path)`` lets pyarrow look the file up twice (its size, then its
    bytes); a replace in between gives it the new file's bytes at the old file's offsets, and
    a good table reads as corrupt (1,060 of 9,841 reads against a writer replacing it in a
    loop). One open handle pins one version of the file: 0 of 8,220.
    """
    with open(path, "rb") as handle:
        return pd.read_parquet(handle, columns=columns)


def write_json(path: Path, data: Any) -> None:
    def write(tmp: str) -> None:
        Path(tmp).write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")

    _replace_atomically(path, write)


def append_to_json_list(path: Path, key: str, entry: dict) -> None:
    """Append ``entry`` to the list ``key`` of the JSON object in ``path`` (e.g. run.json's
    ``lost_nodes``, which the driver's record keeps when the run ends)."""
    data = json.loads(Path(path).read_text())
    data.setdefault(key, []).append(entry)
    write_json(path, data)


def write_text(path: Path, text: str) -> None:
    _replace_atomically(path, lambda tmp: Path(tmp).write_text(text))


def count_stalls(trial_dir: Path) -> int:
    """Stalls of a trial so far: one ``stall-<n>.txt`` (the watchdog's stacks) each."""
    return len(list(Path(trial_dir).glob("stall-*.txt")))
