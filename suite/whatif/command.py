"""The what-if command: which cells, which rates, and the printed table."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from suite.argtypes import EXIT_BAD_INPUT, OneLineParser, positive_int
from suite.humanize import fmt

MEASURE_BUDGET = "smoke"  # what --measure runs: the sweep's smoke grid, minutes on 2 cores
MEASURE_BATCHES = 30  # per trial: 20 after warm-up make a steady state (regime.MIN_BATCHES)


@dataclass(frozen=True)
class Cells:
    """One config on one env and the (N, K, broadcast_interval) cells asked of it."""

    config_name: str
    env: str
    batch: float  # the config's train batch per learner, env steps
    cells: tuple[tuple[int, int, int], ...]


class WhatIfError(ValueError):
    """Bad input; the message is the one line the command prints."""


def positive(text: str) -> float:
    """A rate, a batch or a speed-up: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineParser(
        prog="python -m suite.whatif",
        description="Predict each N x K cell's buffer reuse and drops at given rates, with the "
        "buffer model's stated error, before spending compute on a sweep.",
    )
    parser.add_argument("sweep", nargs="?", help="a sweep name (see python -m suite.sweep --list)")
    parser.add_argument("--budget", default="laptop", help="the sweep's budget (default laptop)")
    parser.add_argument("--config", help="one config instead of a sweep (with --n and --k)")
    parser.add_argument("--n", type=positive_int, help="N, with --config")
    parser.add_argument("--k", type=positive_int, help="K, with --config")
    parser.add_argument(
        "--broadcast-interval", type=positive_int, help="with --config (default: the config's)"
    )
    parser.add_argument("--rates-from", metavar="RUN_DIR", help="an earlier run's results folder")
    parser.add_argument(
        "--sampling", type=positive, metavar="ENV_STEPS_PER_S",
        help="env steps/s the env runners deliver to one learner",
    )  # fmt: skip
    parser.add_argument(
        "--learning", type=positive, metavar="ENV_STEPS_PER_S",
        help="env steps/s one learner trains while busy (a reused batch counts again)",
    )  # fmt: skip
    parser.add_argument(
        "--batch", type=positive, metavar="ENV_STEPS",
        help="env steps per train batch (default: the config's train batch per learner)",
    )  # fmt: skip
    parser.add_argument(
        "--measure",
        action="store_true",
        help=f"measure the rates first: runs the sweep's {MEASURE_BUDGET} grid for "
        f"{MEASURE_BATCHES} train batches per trial (trains; minutes on 2 cores)",
    )
    parser.add_argument(
        "--learner-speedup", type=positive, default=1.0, metavar="X",
        help="a learner X times as fast as the rates say (a GPU, fewer gradient steps)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if bool(args.sweep) == bool(args.config):
        parser.error("pass either SWEEP or --config NAME --n N --k K")
    if args.config and (args.n is None or args.k is None):
        parser.error("--config needs --n and --k")
    typed = args.sampling is not None or args.learning is not None
    if typed and (args.sampling is None or args.learning is None):
        parser.error("typed-in rates need both --sampling and --learning")
    sources = sum([bool(args.rates_from), typed, args.measure])
    if sources != 1:
        parser.error("pass exactly one of --rates-from RUN_DIR, --sampling/--learning, --measure")
    if args.measure and not args.sweep:
        parser.error(f"--measure runs a sweep's {MEASURE_BUDGET} budget: pass SWEEP")
    return args


def asked_cells(args: argparse.Namespace) -> list[Cells]:
    """The cells of the sweep's budget per config and env, or the one --config cell."""
    from suite.configs.resolve import resolve

    if args.config:
        config = resolve(args.config, {"n": args.n, "k": args.k})
        interval = args.broadcast_interval or config.broadcast_interval
        return [Cells(args.config, _env(config), _batch(config), ((args.n, args.k, interval),))]
    from suite.sweep.planning.catalog import load_sweep

    sweep = load_sweep(args.sweep)
    found: dict[tuple[str, str], dict] = {}
    for spec in sweep.trials(args.budget, seeds=1):
        config = resolve(spec.config_name, spec.axes, spec.overrides)
        entry = found.setdefault((spec.config_name, spec.env), {"batch": _batch(config)})
        cell = (
            config.circular_buffer_num_batches,
            config.circular_buffer_iterations_per_batch,
            config.broadcast_interval,
        )
        entry.setdefault("cells", {})[cell] = None
    return [
        Cells(name, env, entry["batch"], tuple(sorted(entry["cells"])))
        for (name, env), entry in found.items()
    ]


def _env(config) -> str:
    return config.env if isinstance(config.env, str) else str(config.env)


def _batch(config) -> float:
    return float(config.train_batch_size_per_learner or config.train_batch_size)


def measured_run(sweep: str, batch: float) -> Path:
    """Run the sweep's smoke budget in its own process, its trials long enough for a steady
    state (``MEASURE_BATCHES`` batches of ``batch`` env steps), and return its results folder."""
    folder = Path(tempfile.mkdtemp(prefix="suite-whatif-"))
    steps = int(MEASURE_BATCHES * batch)
    command = [
        sys.executable, "-m", "suite.sweep", sweep, "--budget", MEASURE_BUDGET,
        "--env-steps", str(steps), "--wandb", "off", "--no-report", "--results-dir", str(folder),
    ]  # fmt: skip
    print("measuring the rates: " + " ".join(command[1:]), flush=True)
    done = subprocess.run(command, check=False)
    runs = sorted(folder.glob("*/*/run.json"))
    if done.returncode != 0 or not runs:
        raise WhatIfError(f"the measurement run failed (exit code {done.returncode}); see {folder}")
    return runs[-1].parent


def rates_for(asked: Cells, args: argparse.Namespace, run=None):
    """The rates for one config and env: typed in, or read from a store's env x hardware."""
    from suite.report.analysis.regime import MIN_BATCHES
    from suite.report.analysis.whatif import WhatIfRates, store_rates

    if run is None:
        batch = args.batch or asked.batch
        return WhatIfRates(args.sampling, args.learning, batch, "typed in")
    found = [item for item in store_rates(run) if item.rates is not None]
    same_env = [item for item in found if item.hardware.env == asked.env]
    chosen = same_env or (found if len(found) == 1 else [])
    if not chosen:
        envs = ", ".join(sorted({item.hardware.env for item in found})) or "none"
        raise WhatIfError(
            f"{run.path} has no steady-state rates for {asked.env} (it has: {envs}); pass "
            "--sampling and --learning instead"
        )
    rates = chosen[0].rates
    if args.batch:
        rates = WhatIfRates(rates.sampling, rates.learning, args.batch, rates.source)
    elif abs(rates.batch - asked.batch) > 0.1 * asked.batch:
        print(
            f"note: {run.path.name}'s batches held {fmt(round(rates.batch))} env steps, "
            f"{asked.config_name}'s train batch is {fmt(round(asked.batch))}: the prediction "
            "uses the store's (--batch to choose)"
        )
    batches = chosen[0].cells["steady_batches"].max()
    if batches < MIN_BATCHES:
        print(
            f"note: {run.path.name}'s trials had at most {fmt(float(batches))} batches after "
            f"warm-up, fewer than the {MIN_BATCHES} a steady state needs: its rates are rough"
        )
    return rates


def print_prediction(asked: Cells, rates, error) -> None:
    import pandas as pd

    from suite.report.analysis.whatif import can_differ, predict

    table = predict(asked.cells, rates)
    print(f"\n{asked.config_name} on {asked.env}: rates from {rates.source}")
    print(
        f"  sampling {fmt(round(rates.sampling))} env steps/s, learning "
        f"{fmt(round(rates.learning))} env steps/s per busy learner, batch "
        f"{fmt(round(rates.batch))} env steps"
    )
    names = [f"N={row.n}, K={row.k}, B={row.broadcast_interval}" for row in table.itertuples()]
    differs = can_differ(table, error) if error else pd.Series(True, index=table.index)
    print(f"  {'cell':<22}{'drops possible':<24}{'drop fraction':>14}{'reuse':>8}  can differ")
    for index, row in enumerate(table.itertuples()):
        print(
            f"  {names[index]:<22}{row.drops_possible:<24}{row.predicted_drop_fraction:>14.2f}"
            f"{row.predicted_reuse:>8.2f}  {'yes' if differs.iloc[index] else 'no'}"
        )
    if error is None:
        print(
            "  Stated error unknown: benchmarks/raw/whatif.json is missing "
            "(python -m suite.bench --rows whatif writes it)."
        )
        return
    print(
        f"  Model error (stated): its drop fraction is off by {error.drop_fraction:.2f} and its "
        f"reuse by {error.reuse:.2f} (absolute differences from the measured), the median per "
        f"cell over the measured stores (benchmarks/RESULTS.md, row 14); single cells were off "
        f"by up to {error.worst_drop_fraction:.2f} and {error.worst_reuse:.2f}."
    )
    exact = exactly_once_none_dropped(table)
    same = [
        name for name, differ, on in zip(names, differs, exact, strict=True) if not differ and on
    ]
    near = [
        name
        for name, differ, on in zip(names, differs, exact, strict=True)
        if not differ and not on
    ]
    other = [name for name, differ in zip(names, differs, strict=True) if differ]
    if not other:
        within = " within the model's error" if near else ""
        print(
            f"  No cell can differ: each trains every batch once and drops none{within}. At these "
            "rates N and K change nothing; keep the config's own."
        )
        return
    if same:
        print(
            "  The same runs as far as the buffer goes (predicted: every batch once, none "
            "dropped): " + "; ".join(same)
        )
    if near:
        print(
            "  Within the model's error of every batch once, none dropped (predicted drops "
            f"at most {error.drop_fraction:.2f}, reuse within {error.reuse:.2f} of 1, but not "
            "exactly): " + "; ".join(near)
        )
    print(f"  Can differ: {'; '.join(other)}")


def exactly_once_none_dropped(table) -> list[bool]:
    """Per row of ``predict``'s table: whether the model predicts exactly every batch trained
    once and none dropped (the K=1, broadcast_interval 1 cells always; others only at some
    rates), as opposed to a prediction merely within the stated error of it."""
    return [
        drop == 0 and reuse == 1
        for drop, reuse in zip(
            table["predicted_drop_fraction"], table["predicted_reuse"], strict=True
        )
    ]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        from suite.report.analysis.whatif import stated_error
        from suite.store.reader import load_run

        asked = asked_cells(args)
        batch = max(item.batch for item in asked)
        folder = measured_run(args.sweep, batch) if args.measure else args.rates_from
        run = load_run(folder) if folder else None
        error = stated_error()
        for item in asked:
            rates = rates_for(item, args, run).faster_learner(args.learner_speedup)
            print_prediction(item, rates, error)
    except (ValueError, OSError) as problem:
        line = str(problem).splitlines()[0] if str(problem) else repr(problem)
        print(f"error: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0
