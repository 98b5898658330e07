"""Which regime a run's buffer was in, measured, and the N and K to keep because of it.

Per env x hardware, from the steady-state cells (``steady.steady_cells``):

- **K binds** when some cell with K > 1 trained each batch more than once in steady state (reuse
  at least ``REUSE_BINDS``): the learner was faster than env steps arrived, so K's cap decides
  how often a batch is reused, and cells with different K are different runs.
- **N can drop** when some cell the broadcast rule lets drop (``rllib_buffer.drop_rule``)
  measurably did (steady drop fraction at least ``DROPS_MATTER``): env steps arrived faster than
  the learner used them, so N decides which batches are thrown away.
- Neither: every cell trained each batch about once and dropped none, so the cells are the same
  runs up to noise: N and K change nothing for this config on this hardware.

What would make them matter is read off the measured rates (``Rates``): K binds once the learner
trains faster than env steps arrive (a faster learner, or fewer env runners per learner); N
drops once they arrive faster than it trains (more env runners per learner). A default to keep
is always named: a decisive pick, a leaning leader, else the config's own N and K (recorded in
run.json's ``configs_own`` by the sweep; older runs without it keep the verdict's leader).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import pandas as pd

from suite.humanize import fmt
from suite.report.analysis.verdict import DECISIVE, LEANING, Verdict
from suite.rllib_buffer import drop_rule

REUSE_BINDS = 1.1  # steady uses per batch at which K's cap is doing something
DROPS_MATTER = 0.05  # steady drop fraction at which N decides what is thrown away
K_BINDS, N_DROPS, NEITHER, TOO_SHORT = "K binds", "N can drop", "neither", "too short to tell"
# Steady batches per trial a regime is read from: below it, one batch more or less moves a
# trial's drop fraction by more than DROPS_MATTER (the model's check needs more, 40).
MIN_BATCHES = math.ceil(1 / DROPS_MATTER)
WAITS = 0.1  # the learner's wait share at which it visibly waits for batches
# Steady uses per batch within which K > 1 cells that stayed under their K reused alike: the
# learner's speed, not K, set their reuse, so they train the same amount.
REUSE_ALIKE = 0.1
UNDER_K = 0.9  # a cell whose reuse is below this share of its K was not capped by K


@dataclass(frozen=True)
class Rates:
    """One env x hardware's measured steady-state rates, per learner (medians over cells)."""

    sampling: float  # env steps/s reaching the learner's buffer
    learning: float  # env steps trained per second the learner was busy (reuse counted)
    batch: float  # env steps per train batch
    env_runners: int
    # env steps/s the env runners sample when not held back, from the K=1, broadcast_interval 1
    # cells (lock-step: a put waits for its update, so 1/put = 1/sampling + 1/learning); None
    # where the run has no such cell with a waiting learner
    free_sampling: float | None = None

    @property
    def learner_over_sampling(self) -> float:
        return self.learning / self.sampling

    @property
    def per_env_runner(self) -> float:
        return self.sampling / max(self.env_runners, 1)


@dataclass(frozen=True)
class Keep:
    n: int | None
    k: int | None
    label: str  # "N=1, K=4", or the verdict's cell label
    why: str


@dataclass(frozen=True)
class Regime:
    scope: str  # the env x hardware title
    kind: str  # K_BINDS, N_DROPS, both joined by " and ", NEITHER or TOO_SHORT
    headline: str  # one sentence
    evidence: list[str]
    would_matter: list[str]
    keep: Keep
    rates: Rates | None = None
    own: dict | None = field(default=None)
    capped_k: tuple[int, ...] = ()  # K values whose cells reused alike, under their K
    capped_reuse: float = math.nan  # the highest steady reuse among them
    # K binds and N can drop in the same K > 1 cells: they dropped batches before using them K
    # times, so the learner, not sampling, set the pace (``learner_bound``)
    learner_bound: bool = False

    @property
    def title(self) -> str:
        """The kind as the page names it."""
        if self.learner_bound:
            return f"learner-bound ({self.kind})"
        return "neither K binds nor N drops" if self.kind == NEITHER else self.kind

    @property
    def k_binds(self) -> bool:
        return K_BINDS in self.kind

    @property
    def n_can_drop(self) -> bool:
        return N_DROPS in self.kind


def rates_of(cells: pd.DataFrame, env_runners: int) -> Rates | None:
    """Medians over ``cells`` (steady_cells rows); the learner's speed from the cells with K > 1
    when there are any (where it can keep training, it shares the CPUs with sampling as it would
    wherever K could bind); None when the cells have no steady rates."""
    usable = cells.dropna(subset=["arrival_steps_per_s", "trained_steps_per_busy_s"])
    usable = usable[(usable["arrival_steps_per_s"] > 0) & (usable["arrival_batches_per_s"] > 0)]
    if usable.empty:
        return None
    reusing = usable[usable["k"] > 1]
    learning = (reusing if len(reusing) else usable)["trained_steps_per_busy_s"].median()
    batch = (usable["arrival_steps_per_s"] / usable["arrival_batches_per_s"]).median()
    return Rates(
        sampling=float(usable["arrival_steps_per_s"].median()),
        learning=float(learning),
        batch=float(batch),
        env_runners=int(env_runners),
        free_sampling=_free_sampling(usable),
    )


def _free_sampling(cells: pd.DataFrame) -> float | None:
    lock_step = cells[(cells["k"] == 1) & (cells["broadcast_interval"] == 1)]
    put, learn = lock_step["arrival_steps_per_s"], lock_step["trained_steps_per_busy_s"]
    waited = (lock_step["wait_share"] >= WAITS) & (learn > put * (1 + WAITS))
    if not waited.any():
        return None
    return float((put * learn / (learn - put))[waited].median())


def regime(
    scope: str,
    cells: pd.DataFrame,
    env_runners: int,
    verdict: Verdict | None = None,
    own: dict | None = None,
    eliminated: set[tuple[int, int]] | None = None,
) -> Regime:
    """The regime of one env x hardware's steady ``cells``; ``own``: its config's own n and k
    (run.json ``configs_own``), ``verdict``: its env's, ``eliminated``: the (n, k) cells its race
    eliminated."""
    own_lost = bool(own) and (own["n"], own["k"]) in (eliminated or set())
    rates = rates_of(cells, env_runners) if len(cells) else None
    if rates is None or not (cells["steady_batches"] >= MIN_BATCHES).any():
        batches = cells["steady_batches"].max() if len(cells) else math.nan
        why = (
            "No cell has steady-state buffer counts"
            if rates is None
            else f"At most {fmt(float(batches))} batches per trial reached the buffer after "
            f"warm-up, fewer than the {MIN_BATCHES} a steady state needs"
        )
        return Regime(
            scope,
            TOO_SHORT,
            f"{why}: whether N or K matter cannot be told yet; the Next line's longer trials "
            "can tell.",
            _measured(cells) if rates is not None else [],
            [],
            _keep(TOO_SHORT, verdict, own, own_lost),
            rates,
            own,
        )
    k_cells = cells[cells["k"] > 1]
    binds = bool(len(k_cells)) and bool((k_cells["steady_reuse"] >= REUSE_BINDS).any())
    allowed = cells[[_allowed(row) for row in cells.itertuples()]]
    drops = bool(len(allowed)) and bool((allowed["steady_drop_fraction"] >= DROPS_MATTER).any())
    kind = " and ".join(name for name, on in ((K_BINDS, binds), (N_DROPS, drops)) if on)
    kind = kind or NEITHER
    capped = capped_ks(cells) if binds else []
    bound = learner_bound_cells(allowed)
    evidence = _measured(cells)
    if len(bound):
        evidence.append(_drops_by_n(allowed[allowed["k"].isin(bound["k"])]))
    capped_reuse = cells[cells["k"].isin(capped)]["steady_reuse"]
    if capped:
        evidence.append(
            f"K={', K='.join(map(str, capped))} reused each batch alike "
            f"({_span(capped_reuse)} uses), under their K: the learner's speed, not K, set the "
            "reuse, so these cells train the same amount here."
        )
    return Regime(
        scope,
        kind,
        LEARNER_BOUND if len(bound) else _headline(kind, cells),
        evidence,
        _would_matter(kind, rates, cells),
        _keep(kind, verdict, own, own_lost),
        rates,
        own,
        tuple(capped),
        float(capped_reuse.max()) if capped else math.nan,
        learner_bound=bool(len(bound)),
    )


LEARNER_BOUND = (
    "The learner set the pace: batches arrived faster than it could train each of them K "
    "times, so the K > 1 cells reused batches fewer than K times and the buffer dropped the "
    "rest. Here N decides how much is thrown away and how stale the batches trained on are."
)


def learner_bound_cells(allowed: pd.DataFrame) -> pd.DataFrame:
    """The K > 1 cells, of those the broadcast rule lets drop, that dropped at least
    DROPS_MATTER while reusing under UNDER_K of their K."""
    under = allowed["steady_reuse"] < UNDER_K * allowed["k"]
    dropped = allowed["steady_drop_fraction"] >= DROPS_MATTER
    return allowed[(allowed["k"] > 1) & under & dropped]


def _drops_by_n(cells: pd.DataFrame) -> str:
    """At each K where some cell was learner-bound: every N's drop fraction and staleness."""
    parts = []
    for k in sorted(cells["k"].unique()):
        same_k = cells[cells["k"] == k].sort_values("n")
        shown = ", ".join(
            f"N={int(row.n)} (B={int(row.broadcast_interval)}) dropped "
            f"{row.steady_drop_fraction:.0%}" + _stale(row)
            for row in same_k.itertuples()
        )
        parts.append(f"at K={int(k)}: {shown}")
    return "Where the learner set the pace, " + "; ".join(parts) + "."


def _stale(row) -> str:
    staleness = getattr(row, "staleness_updates_mean", math.nan)
    if staleness is None or math.isnan(staleness):
        return ""
    updates = fmt(round(float(staleness), 1))
    return f", its batches {updates} update{'s' * (updates != '1')} stale on average"


def capped_ks(cells: pd.DataFrame) -> list[int]:
    """The K > 1 values whose cells all stayed under their K and reused within REUSE_ALIKE of
    each other (at least two such K); none otherwise."""
    under = cells[(cells["k"] > 1) & (cells["steady_reuse"] < UNDER_K * cells["k"])]
    reuse = under["steady_reuse"].dropna()
    if under["k"].nunique() < 2 or reuse.max() - reuse.min() > REUSE_ALIKE:
        return []
    return sorted(int(k) for k in under["k"].unique())


def _allowed(row) -> bool:
    return drop_rule(int(row.n), int(row.k), int(row.broadcast_interval)).possible


def _headline(kind: str, cells: pd.DataFrame) -> str:
    if kind == NEITHER:
        return (
            "N and K change nothing for this config on this hardware: every cell trained each "
            "batch about once and dropped almost none, so the cells are the same runs up to noise."
        )
    parts = []
    if K_BINDS in kind:
        parts.append(
            "K binds: the learner was faster than env steps arrived and trained batches more "
            "than once, so cells with different K are different runs"
        )
    if N_DROPS in kind:
        parts.append(
            "N can drop: env steps arrived faster than the learner used them and the buffer "
            "threw batches away, so N decides which"
        )
    if len(parts) == 1:  # the title names the one kind already: "Regime: K binds."
        text = parts[0].split(": ", 1)[1]
        return text[0].upper() + text[1:] + "."
    return "; ".join(parts) + "."


def _measured(cells: pd.DataFrame) -> list[str]:
    """The steady-state numbers the regime is read from."""
    lines = []
    for k, group in cells.groupby("k", sort=True):
        reuse, wait = group["steady_reuse"], group["wait_share"]
        drop = group["steady_drop_fraction"]
        lines.append(
            f"K={int(k)}: reuse {_span(reuse)} uses per batch, drop fraction {_span(drop)}, "
            f"learner waiting {_span(wait, percent=True)} of its time "
            f"({len(group)} cell{'s' * (len(group) != 1)})"
        )
    return lines


def _span(values: pd.Series, percent: bool = False) -> str:
    values = values.dropna()
    if values.empty:
        return "n/a"
    show = (lambda v: f"{v:.0%}") if percent else (lambda v: fmt(round(float(v), 3)))
    low, high = values.min(), values.max()
    return show(low) if show(low) == show(high) else f"{show(low)} to {show(high)}"


def _would_matter(kind: str, rates: Rates, cells: pd.DataFrame) -> list[str]:
    lines = []
    sampling, learning, ratio = rates.sampling, rates.learning, rates.learner_over_sampling
    measured = (
        f"here the learner trains {fmt(round(learning))} env steps per second it is busy and "
        f"{fmt(round(sampling))} env steps/s arrive ({fmt(round(rates.per_env_runner))} per env "
        f"runner, {rates.env_runners} env runner{'s' * (rates.env_runners != 1)})"
    )
    if K_BINDS not in kind:
        most_k = int(cells["k"].max())
        if rates.free_sampling:
            target = rates.free_sampling
            source = (
                f"the env runners alone sample about {fmt(round(target))} env steps/s (from the "
                "K=1 cells' lock-step), and at K > 1 the learner, sharing the CPUs with them, "
                f"trains {fmt(round(learning))} per busy second"
            )
        else:
            target = sampling
            source = measured
        need = target / learning
        needed = f"more than {need:.2g}× as fast" if need > 1 else "any faster than here"
        lines.append(
            f"K binds once the learner trains faster than env steps can arrive: {source}, so "
            f"it needs to be {needed} (its own CPU or a GPU, or fewer gradient steps per "
            f"batch), and about {need * most_k:.2g}× as fast for K={most_k} to be used in full."
        )
    if N_DROPS not in kind:
        runners = math.floor(learning / rates.per_env_runner) + 1
        lines.append(
            "N can drop once env steps arrive faster than the learner trains them (at K > 1, "
            f"or at K=1 with broadcast_interval ≥ N+2): {measured}, so at least {runners} env "
            "runners per learner at this rate each"
            + (f", or a learner {1 / ratio:.2g}× as fast as this one." if ratio > 1.05 else ".")
        )
    return lines


def _keep(kind: str, verdict: Verdict | None, own: dict | None, own_lost: bool = False) -> Keep:
    own_label = f"N={own['n']}, K={own['k']}" if own else ""
    if verdict is not None and verdict.strength == DECISIVE and verdict.best:
        return Keep(None, None, verdict.best[0], f"the verdict is decisive: {verdict.summary}")
    if own_lost and verdict is not None and verdict.best:
        return _keep_survivors(verdict, own_label)
    if kind in (NEITHER, TOO_SHORT) and own:
        why = (
            "no cell differs from it here, so nothing measured is a reason to change it."
            if kind == NEITHER
            else "these trials were too short to measure a reason to change it."
        )
        return Keep(own["n"], own["k"], own_label, f"the config's own: {why}")
    if verdict is not None and verdict.strength == LEANING and verdict.best:
        differs = own and own_label != verdict.best[0]
        return Keep(
            None,
            None,
            verdict.best[0],
            "the verdict leans to it (not settled: the Next line says what would settle it)"
            + (f"; the config's own is {own_label}." if differs else "."),
        )
    if own:
        return Keep(
            own["n"],
            own["k"],
            own_label,
            "the config's own: no cell was told apart from the others with confidence, so "
            "there is no measured reason to change it.",
        )
    leader = verdict.best[0] if verdict is not None and verdict.best else ""
    return Keep(
        None,
        None,
        leader or "the config's own",
        "the verdict's leader, not settled (run.json records no config's own N and K)"
        if leader
        else "no cell has a score and run.json records no config's own N and K.",
    )


def _keep_survivors(verdict: Verdict, own_label: str) -> Keep:
    """The config's own cell lost the race: keep what beat it, a tie named as a tie."""
    top = sorted(verdict.top_set, key=lambda label: [int(x) for x in re.findall(r"\d+", label)])
    why = f"the race eliminated the config's own {own_label}. {verdict.summary}"
    if len(top) > 1:
        why += " Either is measured better than the config's own; the race could not pick one."
    return Keep(None, None, " or ".join(top), why)
