"""A table read while a live sweep replaces it: the reader sees one whole version, never a mix.

Seen in a full test run: a poll of trials.parquet raised "Couldn't deserialize thrift" while
the sweep rewrote it. The writer was atomic; the reader looked the path up twice.
"""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pandas as pd

from suite.store.files import read_parquet, write_parquet

# Reads made while the writer replaces the file: with the old reader about 1 in 10 of them read
# a mix (1,060 of 9,841, suite/store/files.py), so 1,000 miss it with a chance of 1e-45. Counted,
# not timed: the spawned writer takes 1-2 s to start (importing pandas), longer on a busy
# machine, and a fixed reading time left ~300 reads of replacement on one.
READS_DURING_REPLACEMENT = 1_000
HANG_GUARD_S = 30.0


def _rewrite_forever(path: Path, stop) -> None:
    version = 0
    while not stop.is_set():
        version += 1
        rows = 1 + (version % 7) * 300  # each version a different size
        write_parquet(path, pd.DataFrame({"version": [version] * rows, "row": range(rows)}))


def test_reads_during_replacement_see_whole_versions(tmp_path):
    path = tmp_path / "trials.parquet"
    write_parquet(path, pd.DataFrame({"version": [0], "row": [0]}))
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    writer = context.Process(target=_rewrite_forever, args=(path, stop), daemon=True)
    writer.start()
    reads, versions = 0, set()
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while reads < READS_DURING_REPLACEMENT and time.monotonic() < deadline:
            table = read_parquet(path)
            assert table["version"].nunique() == 1
            assert len(table) == 1 + (table["version"].iloc[0] % 7) * 300
            version = int(table["version"].iloc[0])
            versions.add(version)
            reads += version > 0  # the writer has begun replacing the file
    finally:
        stop.set()
        writer.join(timeout=10)
    assert reads == READS_DURING_REPLACEMENT, (
        f"{reads} reads during replacement in {HANG_GUARD_S} s"
    )
    assert len(versions) > 10, f"the writer barely ran ({len(versions)} versions in {reads} reads)"
