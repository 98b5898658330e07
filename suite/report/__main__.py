"""``python -m suite.report RESULTS_DIR [--out PATH]`` or ``--compare RUN_A RUN_B``."""

from __future__ import annotations

import argparse
import sys

from suite.argtypes import EXIT_BAD_INPUT, OneLineParser
from suite.report.build import build_report
from suite.report.compare import build_comparison


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineParser(
        prog="python -m suite.report",
        description="Build the tuning-guide HTML report of a results folder, or compare two runs.",
    )
    parser.add_argument("results_dir", nargs="?", help="a run folder results/<sweep>/<run-id>")
    parser.add_argument(
        "--compare", nargs=2, metavar=("RUN_A", "RUN_B"), help="compare two runs of one sweep"
    )
    parser.add_argument("--out", help="where to write the HTML (default: reports/<name>.html)")
    parser.add_argument(
        "--promote",
        nargs="?",
        const="",
        metavar="NAME",
        help="write the run's decided N and K into the config library as a promoted config "
        "(default name: <config>_<sweep>); refused for an inconclusive verdict",
    )
    args = parser.parse_args(argv)
    if bool(args.results_dir) == bool(args.compare):
        parser.error("pass either RESULTS_DIR or --compare RUN_A RUN_B")
    if args.promote is not None and args.compare:
        parser.error("--promote takes one run, not --compare")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.promote is not None:
            from suite.report.promotion import promote_run

            path = promote_run(args.results_dir, args.promote or None)
            print(f"promoted: {path}")
        if args.compare:
            path = build_comparison(*args.compare, out_path=args.out)
        else:
            path = build_report(args.results_dir, out_path=args.out)
    except (ValueError, OSError) as error:  # OSError: e.g. an --out that cannot be written
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
