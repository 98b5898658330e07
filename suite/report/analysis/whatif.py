"""What the buffer model predicts for N x K cells at given rates, before any compute is spent.

A what-if takes one pair of rates for a config on some hardware (``WhatIfRates``: env steps/s
the env runners deliver, env steps/s the learner trains while busy, and the train batch) and
simulates every cell's buffer with them (``suite.rllib_buffer.simulate_buffer``): predicted
drop fraction and reuse per cell, and which cells can differ at all (``can_differ``): the
others train every batch once and drop none, within the model's error. The rates come from an
earlier run's store (``rates_from_cells``), from the user, or from a short measurement (the
command, ``suite.whatif``).

Rates from a store, per env x hardware, from its steady-state cells:

- learning: the learner's env steps per busy second in the cells with K > 1 (where it can keep
  training, as it must wherever K could bind), else in all cells;
- sampling: where K binds (some K > 1 cell reused batches), the learner never held the env
  runners back, so their rate is the put rate of the K > 1 cells; otherwise the put rate is held
  to the learner's by the aggregation wait, and the env runners' own rate is read from the K=1,
  broadcast_interval 1 cells (lock-step: 1/put = 1/sampling + 1/learning; ``regime.Rates``),
  else the fastest put rate of any cell.

The model takes the two rates as independent. On 2 shared cores they are not (the learner and
the env runner slow each other), which is most of its error; the stated error
(``stated_error``) is measured against the committed example stores by the bench row
``whatif`` (``suite/bench/whatif_error.py``) into ``benchmarks/raw/whatif.json``, its only home,
and ``tests/test_whatif.py`` checks it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from suite.configs.evidence import RecordValue
from suite.report.analysis.regime import REUSE_BINDS, rates_of
from suite.report.analysis.steady import steady_cells
from suite.report.analysis.trials import in_canonical_order, prepared_trials
from suite.report.cell import Hardware
from suite.rllib_buffer import drop_rule, simulate_buffer
from suite.store.reader import RunData

STATED_DROP = RecordValue("whatif", "data.stated.drop_fraction")
STATED_REUSE = RecordValue("whatif", "data.stated.reuse")
WORST_DROP = RecordValue("whatif", "data.worst_cell.drop_fraction")
WORST_REUSE = RecordValue("whatif", "data.worst_cell.reuse")


@dataclass(frozen=True)
class WhatIfRates:
    sampling: float  # env steps/s the env runners deliver to one learner
    learning: float  # env steps/s one learner trains while busy (a reused batch counts again)
    batch: float  # env steps per train batch per learner
    source: str  # where the rates came from, for the output

    def __post_init__(self) -> None:
        for name in ("sampling", "learning", "batch"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and np.isfinite(value) and value > 0):
                raise ValueError(f"the what-if needs a positive {name} rate, got {value!r}")

    def faster_learner(self, speedup: float) -> WhatIfRates:
        if not speedup > 0:
            raise ValueError(f"--learner-speedup must be positive, got {speedup!r}")
        if speedup == 1:
            return self
        return WhatIfRates(
            self.sampling,
            self.learning * speedup,
            self.batch,
            f"{self.source}, learner {speedup:g}× as fast",
        )


@dataclass(frozen=True)
class StatedError:
    drop_fraction: float  # median |predicted - measured| per cell, the largest over the stores
    reuse: float
    worst_drop_fraction: float  # the largest single cell's
    worst_reuse: float


def stated_error() -> StatedError | None:
    """The model's stated error, from its bench record; None when the record is missing."""
    values = [where.read() for where in (STATED_DROP, STATED_REUSE, WORST_DROP, WORST_REUSE)]
    return None if None in values else StatedError(*values)


def rates_from_cells(cells: pd.DataFrame, env_runners: int, source: str) -> WhatIfRates | None:
    """One env x hardware's rates from its ``steady.steady_cells`` (None: no steady rates)."""
    rates = rates_of(cells, env_runners) if len(cells) else None
    if rates is None:
        return None
    reusing = cells[(cells["k"] > 1) & (cells["steady_reuse"] >= REUSE_BINDS)]
    if len(reusing):
        sampling = float(reusing["arrival_steps_per_s"].median())
    else:
        sampling = rates.free_sampling or float(cells["arrival_steps_per_s"].max())
    return WhatIfRates(sampling, rates.learning, rates.batch, source)


def predict(cells: Iterable[tuple[int, int, int]], rates: WhatIfRates) -> pd.DataFrame:
    """Per (N, K, broadcast_interval) cell: whether the rule lets it drop, and the model's drop
    fraction and reuse at ``rates``."""
    rows = []
    for n, k, interval in dict.fromkeys((int(n), int(k), int(b)) for n, k, b in cells):
        rule = drop_rule(n, k, interval)
        found = simulate_buffer(
            n, k, rates.sampling / rates.batch, rates.learning / rates.batch,
            broadcast_interval=interval,
        )  # fmt: skip
        rows.append(
            {
                "n": n,
                "k": k,
                "broadcast_interval": interval,
                "drops_possible": rule.label,
                "predicted_drop_fraction": found.drop_fraction,
                "predicted_reuse": found.reuse,
            }
        )
    return pd.DataFrame(rows)


def can_differ(table: pd.DataFrame, error: StatedError) -> pd.Series:
    """Per row of ``table`` (``predict``'s): whether its buffer can behave differently from
    "every batch trained once, none dropped" by more than the stated error. The cells where it
    cannot are the same runs as far as the buffer goes (at K=1 and broadcast_interval 1, seed
    for seed); only the others can make N or K matter."""
    drops = table["predicted_drop_fraction"] > error.drop_fraction
    reuse = (table["predicted_reuse"] - 1.0).abs() > error.reuse
    return drops | reuse


def errors_against(cells: pd.DataFrame, rates: WhatIfRates) -> pd.DataFrame:
    """``cells`` (steady_cells) with the what-if's predictions at ``rates`` and the absolute
    errors against the measured steady drop fraction and reuse."""
    keys = list(zip(cells["n"], cells["k"], cells["broadcast_interval"], strict=True))
    predicted = predict(keys, rates)
    cells = cells.drop(columns=["predicted_drop_fraction", "predicted_reuse"], errors="ignore")
    table = cells.merge(predicted, on=["n", "k", "broadcast_interval"], how="left")
    return table.assign(
        drop_error=(table["predicted_drop_fraction"] - table["steady_drop_fraction"]).abs(),
        reuse_error=(table["predicted_reuse"] - table["steady_reuse"]).abs(),
    )


@dataclass(frozen=True)
class StoreRates:
    hardware: Hardware
    config_name: str
    cells: pd.DataFrame  # steady_cells of its trials
    rates: WhatIfRates | None


def store_rates(run: RunData) -> list[StoreRates]:
    """Each env x hardware of ``run``: its steady cells and the what-if's rates from them."""
    run = in_canonical_order(run)
    trials = prepared_trials(run)
    found = []
    for hardware, group in Hardware.groups(trials):
        iterations = run.iterations[run.iterations["trial_id"].isin(group["trial_id"])]
        cells = steady_cells(iterations, group)
        source = f"{run.path.name}, {hardware.env}"
        rates = rates_from_cells(cells, hardware.num_env_runners, source) if len(cells) else None
        found.append(StoreRates(hardware, str(group["config_name"].iloc[0]), cells, rates))
    return found
