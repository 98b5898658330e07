"""``python -m suite.bench``: measure the benchmark rows and write benchmarks/RESULTS.md.

Every row by default; ``--rows a,b`` reruns some (the others keep their last measurement, with
its date, in benchmarks/raw/); ``--quick`` shrinks budgets for development and marks its rows;
``--render-only`` measures nothing and writes RESULTS.md again from the raw records and the
notes (benchmarks/notes/). Each write of RESULTS.md also rewrites the peers table of
docs/configs.md (``suite.bench.peers_table``) from row 11's record. Run it under
``flock /tmp/ray-train.lock`` on a shared machine: it trains (unless ``--render-only``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

from suite.bench.peers_table import PAGE, rewrite_page
from suite.bench.rows import RAW_DIR, MeasureOptions, get_row, render, row_keys

BENCH_DIR = Path("benchmarks")


class BenchArgumentError(ValueError):
    """A bad --rows value; the message lists the known rows."""


def machine() -> str:
    from suite.sweep.trial.hardware import node_hardware

    hardware = node_hardware()
    gpus = ", ".join(hardware["gpus"]) or "no GPU"
    return (
        f"{hardware['hostname']} ({hardware['cpu_cores']} cores, {hardware['cpu_model']}, {gpus})"
    )


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m suite.bench", description=__doc__)
    every = ",".join(row_keys())
    parser.add_argument("--rows", default=every, help=f"rows to measure (default all: {every})")
    parser.add_argument("--quick", action="store_true", help="tiny budgets, development only")
    parser.add_argument(
        "--render-only",
        action="store_true",
        help="measure nothing: write RESULTS.md from the raw records and notes as they are",
    )
    parser.add_argument("--address", help="Ray cluster HOST:PORT for the gpu row")
    parser.add_argument(
        "--peers-long",
        action="store_true",
        help="the peers row also runs its long envs (HalfCheetah-v5 at 1M env steps, ~16 min per "
        'suite trial on 2 cores; needs pip install -e ".[mujoco]")',
    )
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=BENCH_DIR,
        help="where RESULTS.md, raw/ (the records) and notes/ (the prose) are",
    )
    return parser.parse_args(argv)


def chosen_rows(text: str) -> list[str]:
    rows = [row.strip() for row in text.split(",") if row.strip()]
    unknown = [row for row in rows if row not in row_keys()]
    if unknown or not rows:
        raise BenchArgumentError(
            f"unknown --rows {unknown or text!r}: choose from {', '.join(row_keys())}"
        )
    return rows


def write_results(out_dir: Path) -> Path:
    results = out_dir / "RESULTS.md"
    results.write_text(render(out_dir))
    rewrite_page(out_dir.parent / PAGE, out_dir / RAW_DIR / "peers.json")
    return results


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    try:
        rows = [] if args.render_only else chosen_rows(args.rows)
    except BenchArgumentError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    raw_dir = args.out_dir / RAW_DIR
    raw_dir.mkdir(parents=True, exist_ok=True)
    options = MeasureOptions(quick=args.quick, address=args.address, peers_long=args.peers_long)
    for key in rows:
        row = get_row(key)
        print(f"{row.title} ...", flush=True)
        record = {
            "row": key,
            "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="minutes"),
            "machine": machine(),
            "quick": args.quick,
            "data": row.measure(options),
        }
        (raw_dir / f"{key}.json").write_text(json.dumps(record, indent=2, default=float) + "\n")
        write_results(args.out_dir)
    if args.render_only:
        write_results(args.out_dir)
    print(f"wrote {args.out_dir / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
