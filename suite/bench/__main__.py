"""``python -m suite.bench``: measure the benchmark rows and write benchmarks/RESULTS.md.

Every row by default; ``--rows a,b`` reruns some (the others keep their last measurement, with
its date, in benchmarks/raw/); ``--quick`` shrinks budgets for development and marks its rows.
Run it under ``flock /tmp/ray-train.lock`` on a shared machine: it trains.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

from suite.bench.results_md import ROW_TITLES, render

BENCH_DIR = Path("benchmarks")


class BenchArgumentError(ValueError):
    """A bad --rows value; the message lists the known rows."""


def _with_ray(num_cpus: int, measure, *args):
    """Run ``measure`` inside a fresh local Ray of ``num_cpus`` (declared) CPUs."""
    import ray

    # address="local": a new instance even if some other Ray cluster runs on this machine.
    ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        return measure(*args)
    finally:
        ray.shutdown()


def measure_row(row: str, quick: bool, address: str | None, peers_long: bool = False) -> dict:
    from suite.bench import (
        atari_sampling,
        gpu_scaling,
        guard_overhead,
        packing,
        peers,
        racing,
        report_scale,
        search_cost,
        suite_overhead,
        throughput,
        time_to_return,
    )

    if row == "overhead":
        return _with_ray(2, suite_overhead.measure, *((1, 15.0) if quick else (4, 20.0)))
    if row == "race":
        return _with_ray(time_to_return.DECLARED_CPUS, time_to_return.measure, quick)
    if row == "atari":
        args = (1, 30.0, 5.0) if quick else (2, 60.0, 15.0)
        return _with_ray(atari_sampling.declared_cpus(), atari_sampling.measure, *args)
    if row.startswith("packing_"):
        return packing.measure(row.removeprefix("packing_"))
    if row == "report":
        sizes = ((250, 1_000),) if quick else report_scale.SIZES
        seconds = report_scale.time_report_builds(sizes)
        largest = seconds[max(seconds)]
        return {
            "seconds": {f"{t:,} x {i:,}": s for (t, i), s in seconds.items()},
            "target": report_scale.TARGET_S,
            "met": None if quick else largest < report_scale.TARGET_S,
        }
    if row == "throughput":
        return _with_ray(2, throughput.measure, 15.0 if quick else 30.0)
    if row == "racing":  # sweeps in their own processes, each with its own Ray
        return racing.measure(quick)
    if row == "guard":
        return _with_ray(2, guard_overhead.measure, *((1, 15.0) if quick else (4, 20.0)))
    if row == "search_cost":  # sweeps in their own processes, each with its own Ray
        return search_cost.measure(quick)
    if row == "peers":  # SB3 and sweeps in their own processes
        return peers.measure(quick, include_long=peers_long)
    return gpu_scaling.measure(address)


def machine() -> str:
    from suite.sweep.trial.hardware import node_hardware

    hardware = node_hardware()
    gpus = ", ".join(hardware["gpus"]) or "no GPU"
    return (
        f"{hardware['hostname']} ({hardware['cpu_cores']} cores, {hardware['cpu_model']}, {gpus})"
    )


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m suite.bench", description=__doc__)
    every = ",".join(ROW_TITLES)
    parser.add_argument("--rows", default=every, help=f"rows to measure (default all: {every})")
    parser.add_argument("--quick", action="store_true", help="tiny budgets, development only")
    parser.add_argument("--address", help="Ray cluster HOST:PORT for the gpu row")
    parser.add_argument(
        "--peers-long",
        action="store_true",
        help="the peers row also runs its long envs (HalfCheetah-v5 at 1M env steps, ~16 min per "
        'suite trial on 2 cores; needs pip install -e ".[mujoco]")',
    )
    parser.add_argument("--out-dir", type=Path, default=BENCH_DIR, help="where RESULTS.md goes")
    return parser.parse_args(argv)


def chosen_rows(text: str) -> list[str]:
    rows = [row.strip() for row in text.split(",") if row.strip()]
    unknown = [row for row in rows if row not in ROW_TITLES]
    if unknown or not rows:
        raise BenchArgumentError(
            f"unknown --rows {unknown or text!r}: choose from {', '.join(ROW_TITLES)}"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    try:
        rows = chosen_rows(args.rows)
    except BenchArgumentError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    raw_dir = args.out_dir / "raw"
    raw_dir.mkdir(parents=True, exist_ok=True)
    for row in rows:
        print(f"{ROW_TITLES[row]} ...", flush=True)
        record = {
            "row": row,
            "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="minutes"),
            "machine": machine(),
            "quick": args.quick,
            "data": measure_row(row, args.quick, args.address, args.peers_long),
        }
        (raw_dir / f"{row}.json").write_text(json.dumps(record, indent=2, default=float) + "\n")
        results = args.out_dir / "RESULTS.md"
        results.write_text(render(raw_dir, results.read_text() if results.exists() else ""))
    print(f"wrote {args.out_dir / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
