"""What one ``python -m suite.sweep`` command asks for: its options, declared once.

Each field of ``SweepOptions`` is one command-line option (the flag is the field's name, see
``suite.argtypes.option``) and its ``help`` is that option's --help text, so adding an option
is adding a field. A bool that defaults to True is the switch ``--no-<name>`` (``race``:
``--no-race``), and its help says what the switch does. The command builds the options from
its argv; code that plans or runs a sweep without a command line (benchmarks, tests) builds
them directly.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from suite.argtypes import non_negative_int, option, positive_float, positive_int
from suite.rllib_buffer import DEADLOCK_GUARD_SETTING
from suite.stats.objective import OBJECTIVES


@dataclass(frozen=True, kw_only=True)
class SweepOptions:
    name: str | None = option(
        positional=True,
        nargs="?",
        help="the sweep to run: a name from --list, or the path of your own sweep file (a .py "
        "defining SWEEP = Sweep(...))",
    )
    list: bool = option(False, help="list the sweeps and their budgets")
    dry_run: bool = option(
        False,
        help="print every trial's axes, resource request, how many run at once and an "
        "estimated wall time; start nothing",
    )
    budget: str = option(
        "smoke",
        help="smoke (minutes, CI), laptop (a 2-core machine within an hour) or full "
        "(cluster scale); default: smoke",
    )
    seeds: int | None = option(type=positive_int, help="number of seeds (default: the budget's)")
    env_steps: int | None = option(
        type=positive_int,
        metavar="N",
        help="env steps per trial, instead of the budget's (same grid and seeds)",
    )
    first_seed: int = option(
        0,
        type=non_negative_int,
        metavar="SEED",
        help="seeds run from SEED up (default 0), e.g. to repeat a race on fresh seeds",
    )
    race: bool = option(
        True,
        help="for a budget that races: run its whole grid at the last rung's env steps and "
        "seeds instead (the reference a race is checked against)",
    )
    objective: str | None = option(
        choices=OBJECTIVES,
        help="for a budget that searches: score and validate suggestions by their return at the "
        "budget's env steps (return) or by the wall time their seeds take to reach the config's "
        "threshold (time-to-threshold); default: the search's own (return for every shipped one); "
        "with --resume, only the resumed run's own",
    )
    set: tuple[str, ...] = option(
        (),
        metavar="KEY=VALUE",
        help="override an APPOConfig setting or axis for every trial, e.g. --set lr=3e-4"
        " --set n=4 (repeatable; values are Python literals)",
    )
    address: str | None = option(
        env="RAY_ADDRESS",
        help="an existing Ray cluster (host:port); default: $RAY_ADDRESS, else a new "
        "local Ray instance",
    )
    results_dir: Path = option(
        Path("results"),
        type=Path,
        help="where runs are written, as <dir>/<sweep>/<run-id>/ (default: results)",
    )
    reports_dir: Path | None = option(
        type=Path,
        help="where the HTML report is written, as <dir>/<sweep>-<run-id>.html (default: reports)",
    )
    resume: str | None = option(
        nargs="?",
        const="latest",
        metavar="RUN_ID",
        help="resume a killed or interrupted run (default: the sweep's latest)",
    )
    max_concurrent: int | None = option(
        type=positive_int,
        help="at most this many trials at once (default: as many as fit)",
    )
    max_failures: int = option(
        1,
        type=non_negative_int,
        help="retries per failing trial before it is recorded as failed (default: 1)",
    )
    wandb: str | None = option(
        choices=("off", "offline", "online"),
        help="W&B logging (default: online with an API key, else offline)",
    )
    wandb_entity: str | None = option(help="W&B entity (default: your key's)")
    wandb_project: str | None = option(help="W&B project (default: the sweep's name)")
    report: bool = option(True, help="skip building the HTML report")
    progress_interval: float = option(
        30.0,
        type=positive_float,
        metavar="SECONDS",
        help="when the output is not a terminal, one progress line this often (default: 30)",
    )
    stall_timeout: float | None = option(
        type=positive_float,
        metavar="SECONDS",
        help="stop a trial that reports no result or no new env steps for this long, save its "
        "stacks and record it STALLED (default: max(120, 20 x its median iteration time))",
    )
    node_wait: float = option(
        300.0,
        type=positive_float,
        metavar="SECONDS",
        help="after a node is lost, wait at most this long for room for a trial that no node "
        "left can host, then record it as failed (default: 300)",
    )
    deadlock_guard: bool = option(
        True,
        help="reproduce RLlib 2.60's own behaviour: a trial whose circular buffer drops a batch "
        "inside an aggregation window can hang (the stall watchdog then stops it)",
    )
    # Not an option: the config settings every trial gets, from --set and --no-deadlock-guard.
    overrides: Mapping[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Checked here, so a bad --set is refused before anything is planned or started.
        overrides = parse_overrides(self.set)
        if not self.deadlock_guard:
            settings = overrides.get("learner_config_dict") or {}
            overrides["learner_config_dict"] = {**settings, DEADLOCK_GUARD_SETTING: False}
        object.__setattr__(self, "overrides", overrides)
        object.__setattr__(self, "address", self.address or None)  # "" is no address


def parse_overrides(pairs: tuple[str, ...] | list[str]) -> dict:
    overrides = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {pair!r} is not KEY=VALUE (e.g. --set lr=0.0003)")
        try:
            value = ast.literal_eval(text.strip())  # literals only: never eval() user text
        except (ValueError, SyntaxError):
            value = text.strip()
        overrides[key.strip()] = value
    return overrides
