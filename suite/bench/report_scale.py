"""How long the report takes to build from large synthetic stores.

Run: ``python -m suite.bench.report_scale`` (target: under 10 s at 1,000 trials x 1,000
iterations; the smaller sizes show whether the growth is linear).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from suite.bench.synthetic_store import write_synthetic_run
from suite.report import build_report

SIZES = ((250, 1_000), (500, 1_000), (1_000, 1_000))
TARGET_S = 10.0


def time_report_builds(sizes=SIZES, seed: int = 0) -> dict[tuple[int, int], float]:
    """Seconds to build the report per (trials, iterations); the stores are written first."""
    seconds = {}
    with tempfile.TemporaryDirectory() as folder:
        for trials, iterations in sizes:
            run = write_synthetic_run(Path(folder) / f"run-{trials}", trials, iterations, seed)
            start = time.perf_counter()
            build_report(run, Path(folder) / f"report-{trials}.html")
            seconds[(trials, iterations)] = time.perf_counter() - start
            verdict = "ok" if seconds[(trials, iterations)] < TARGET_S else "over target"
            print(
                f"{trials:>5} trials x {iterations} iterations: "
                f"{seconds[(trials, iterations)]:.2f} s ({verdict})",
                flush=True,
            )
    return seconds


def main() -> None:
    time_report_builds()


if __name__ == "__main__":
    main()
