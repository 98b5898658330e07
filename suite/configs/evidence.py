"""Where the tuned configs' measured numbers live, and reading them there.

Two kinds of files hold them, and nothing else does: the benchmark records
``python -m suite.bench`` writes (``benchmarks/raw/<row>.json``, rendered as
benchmarks/RESULTS.md) and the promoted configs' evidence (``suite/configs/promoted/<name>.json``,
written by ``--promote``). A config names its evidence (``TunedConfig.evidence``); its docstring
points to the same file; ``python -m suite.configs`` reads the result from it with the hardware,
seeds, env steps and date it was measured at. A missing file is said, never guessed around.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from suite.configs.promoted import LIBRARY_DIR
from suite.humanize import fmt

REPOSITORY = Path(__file__).resolve().parents[2]
BENCH_RAW_VARIABLE = "SUITE_BENCH_RAW_DIR"  # where the benchmark records are, if not the repo's


def bench_raw_dir() -> Path:
    default = REPOSITORY / "benchmarks" / "raw"
    return Path(os.environ.get(BENCH_RAW_VARIABLE) or default)


def shown_path(path: Path) -> str:
    """``path`` relative to the repository when it is inside it."""
    try:
        return str(path.resolve().relative_to(REPOSITORY))
    except ValueError:
        return str(path)


def read_json(path: Path) -> dict | None:
    """The JSON object in ``path``; None when there is no such file."""
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON ({error})") from None


def value_at(data, key: str):
    """``data``'s value at a dotted ``key`` (``configs.cartpole.seconds.median``; a number
    indexes a list)."""
    found = data
    for part in key.split("."):
        try:
            found = found[int(part)] if isinstance(found, list) else found[part]
        except (KeyError, IndexError, ValueError, TypeError):
            raise KeyError(f"no {key!r}: {part!r} is not there") from None
    return found


def bench_record(row: str) -> dict | None:
    """The raw record of benchmark row ``row``, or None when it is missing."""
    return read_json(bench_raw_dir() / f"{row}.json")


@dataclass(frozen=True)
class RecordValue:
    """One number in a benchmark record: ``benchmarks/raw/<row>.json`` at ``key``."""

    row: str
    key: str  # dotted, below the record's top level: data.configs.pong.sampled.median

    @property
    def path(self) -> Path:
        return bench_raw_dir() / f"{self.row}.json"

    def read(self) -> float | None:
        """The number; None when the record is missing (a missing key is an error)."""
        record = bench_record(self.row)
        return None if record is None else float(value_at(record, self.key))

    @property
    def how_to_write(self) -> str:
        return f"python -m suite.bench --rows {self.row} writes it"

    def describe(self) -> str:
        return f"{shown_path(self.path)} ({self.key})"


@dataclass(frozen=True)
class Measured:
    """A config's expected result as its evidence states it, and where it was measured."""

    result: str
    headline: str  # the result in a few words, for the one-line list of configs
    seeds: str
    env_steps: str
    hardware: str
    date: str
    source: str  # the file (and key) it was read from


class Evidence(Protocol):
    """Where a config's expected result was measured."""

    @property
    def pointer(self) -> str:
        """The file (and where in it) a reader opens: the docstring's Expect names it."""
        ...

    def measured(self, threshold: float) -> Measured | None:
        """The result, read now; None when the file is missing."""
        ...


@dataclass(frozen=True)
class TimeToThreshold:
    """Benchmark row 2's record for one config: time and env steps to its return threshold."""

    config: str
    row: str = "race"

    @property
    def pointer(self) -> str:
        return f"{shown_path(bench_raw_dir() / f'{self.row}.json')} (data.configs.{self.config})"

    def measured(self, threshold: float) -> Measured | None:
        record = bench_record(self.row)
        if record is None:
            return None
        data = record["data"]
        found, budget = data["configs"][self.config], data["budget"]
        seconds = _seconds_budget(budget, self.config)
        return Measured(
            result=(
                f"return {threshold:g} after a median {_number(found['seconds']['median'])} s "
                f"(seeds from {_seconds(found['seconds']['min'])} to "
                f"{_seconds(found['seconds']['max'])}) and "
                f"{_number(found['env_steps']['median'])} env steps; "
                f"{found['reached']} of {found['seeds']} seeds reached it; "
                f"{_number(found['env_steps_per_s']['median'])} env steps/s"
            ),
            headline=(
                f"return {threshold:g} in a median {_seconds(found['seconds']['median'])}, "
                f"{found['reached']}/{found['seeds']} seeds"
            ),
            seeds=str(found["seeds"]),
            env_steps=f"{budget['env_steps']:,} or {seconds:g} s per trial, whichever first",
            hardware=f"{record['machine']}, {data['declared_cpus']} CPUs declared to Ray",
            date=record["measured_at"],
            source=self.pointer,
        )


def _seconds_budget(budget: dict, config: str) -> float:
    """The row's trial seconds for ``config``: RLlib's own settings get their own."""
    rllib = budget.get("rllib_seconds", budget["seconds"])
    return rllib if config.endswith("_rllib") else budget["seconds"]


def _number(value: float) -> str:
    return fmt(value, decimals=0, infinite="not reached")


def _seconds(value: float) -> str:
    return _number(value) + ("" if value == float("inf") else " s")


@dataclass(frozen=True)
class PeersEvidence:
    """Benchmark row 11's record for one config on one env: its return at the row's last mark
    beside SB3's PPO, on the row's seeds."""

    env: str
    config: str
    row: str = "peers"

    @property
    def pointer(self) -> str:
        return f"{shown_path(bench_raw_dir() / f'{self.row}.json')} (data.envs.{self.env})"

    def measured(self, threshold: float) -> Measured | None:
        record = bench_record(self.row)
        found = None if record is None else record["data"]["envs"].get(self.env)
        side = None if found is None else found["sides"].get(self.config)
        if side is None:
            return None
        mark = str(found["marks"][-1])
        at = side["return_at"][mark]
        data = record["data"]
        first = data["first_seed"]
        return Measured(
            result=(
                f"return {fmt(at['point'], decimals=0)} (IQM, 95% CI "
                f"{fmt(at['low'], decimals=0)} to {fmt(at['high'], decimals=0)}) at "
                f"{int(mark):,} env steps; {side['reached']} of {side['seeds']} seeds reached "
                f"{threshold:g}"
            ),
            headline=f"return {fmt(at['point'], decimals=0)} (IQM) at {int(mark):,} env steps",
            seeds=f"{data['seeds']} (from {first})",
            env_steps=f"{int(mark):,}",
            hardware=_hardware(record["machine"], data["declared_cpus"].get(self.config)),
            date=record["measured_at"],
            source=self.pointer,
        )


def _hardware(machine: str, declared_cpus: float | None) -> str:
    """The machine, and the CPUs declared to Ray when row 11 declared more than it has."""
    return machine if declared_cpus is None else f"{machine}, {declared_cpus} CPUs"


@dataclass(frozen=True)
class PromotedEvidence:
    """A promoted config's evidence file, ``<folder>/<name>.json``: the run that decided it."""

    name: str
    folder: Path = LIBRARY_DIR

    @property
    def path(self) -> Path:
        return self.folder / f"{self.name}.json"

    @property
    def pointer(self) -> str:
        return f"{shown_path(self.path)} (evidence)"

    def measured(self, threshold: float) -> Measured | None:
        promoted = read_json(self.path)
        if promoted is None:
            return None
        evidence = promoted.get("evidence") or {}
        iqm = _return_iqm(evidence.get("return_iqm"))
        hardware = evidence.get("hardware") or {}
        gpus = len(hardware.get("gpus") or [])
        if iqm is None:  # said, not guessed around (a hand-written or partly written file)
            result = (
                f"no return to expect: the evidence in {shown_path(self.path)} has no "
                f"return_iqm (verdict: {evidence.get('verdict')})"
            )
            headline = "no return recorded (evidence has no return_iqm)"
        else:
            point, low, high = iqm
            result = (
                f"return {fmt(point, decimals=0)} (IQM, 95% CI {fmt(low, decimals=0)} to "
                f"{fmt(high, decimals=0)}) at {evidence.get('budget')}, {evidence.get('verdict')}"
            )
            headline = f"return {fmt(point, decimals=0)} (IQM) at {evidence.get('budget')}"
        return Measured(
            result=result,
            headline=headline,
            seeds=str(evidence.get("seeds")),
            env_steps=str(evidence.get("budget")),
            hardware=(
                f"{hardware.get('cpu_cores')} cores ({hardware.get('cpu_model')}), {gpus} GPUs"
                if hardware
                else "not recorded"
            ),
            date=_when(evidence),
            source=f"{shown_path(self.path)}: run {evidence.get('run_id')} of "
            f"{evidence.get('sweep')}",
        )


def _when(evidence: dict) -> str:
    """When a promoted config's evidence was measured: its run's own span, then the promotion
    (an evidence file from before the run's times were kept names the promotion alone)."""
    promoted = f"promoted {evidence.get('promoted_at')}"
    started, ended = evidence.get("run_started_at"), evidence.get("run_ended_at")
    if not started:
        return f"{promoted} (the run's own times are in its run.json)"
    return f"run {started} to {ended or 'not recorded'}, {promoted}"


def _return_iqm(value) -> tuple[float, float, float] | None:
    """An evidence file's ``return_iqm`` as (point, low, high); None when it is missing or is not
    three numbers."""
    if not isinstance(value, list | tuple) or len(value) != 3:
        return None
    if not all(isinstance(item, int | float) and not isinstance(item, bool) for item in value):
        return None
    return float(value[0]), float(value[1]), float(value[2])
