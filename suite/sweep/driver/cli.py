"""``python -m suite.sweep``: argument parsing and the top-level flow of a sweep."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from suite.argtypes import EXIT_BAD_INPUT, OneLineParser, add_options, parse_options
from suite.ray_internals import warn_if_unchecked_ray
from suite.sweep.driver.logs import quiet_before_run
from suite.sweep.driver.tables import print_sweeps
from suite.sweep.options import SweepOptions
from suite.sweep.planning.catalog import load_sweep


def parser() -> argparse.ArgumentParser:
    """The command's parser, one argument per field of ``SweepOptions``."""
    p = OneLineParser(
        prog="python -m suite.sweep",
        description="Run a named APPO sweep (N, K, learners, GPUs per learner, envs, seeds) with "
        "Ray Tune, collect it into results/, and build the tuning-guide report.",
    )
    return add_options(p, SweepOptions)


def main(argv: list[str] | None = None) -> int:
    from suite.sweep.driver.session import run_command

    console = Console(width=None if sys.stdout.isatty() else 160)
    try:
        options = parse_options(SweepOptions, parser(), argv)  # a bad --set: ValueError
        if options.list:
            print_sweeps(console)
            return 0
        if not options.name:
            raise ValueError("name a sweep to run (see --list)")
        quiet_before_run()
        warn_if_unchecked_ray()
        return run_command(load_sweep(options.name), options, console)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
