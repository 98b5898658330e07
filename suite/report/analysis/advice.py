"""One piece of advice per N x K cell, from everything the page knows about the cell.

The one advice function sees the cell's steady-state rates (measured, or the buffer model's
prediction of them), the drop rule of RLlib 2.60's aggregation window (``suite.rllib_buffer``)
and what the verdict says of the cell. So it never tells a K=1 cell to lower K, it blames
broadcast_interval where the rule says the drops come from it, it says nothing from fewer
batches than the buffer's steady state needs, and where the buffer rates would change a cell
the verdict picks on return, it says to follow the verdict and why.
"""

from __future__ import annotations

from dataclasses import dataclass

from suite.humanize import fmt
from suite.report.analysis.buffer_model import MIN_BATCHES_TO_CHECK
from suite.report.analysis.verdict import DECISIVE, LEANING, Verdict
from suite.report.cell import Cell
from suite.rllib_buffer import drop_rule

DROPPING = 0.10  # drop fraction above which the cell is said to drop
WAITING = 0.30  # learner wait share above which sampling is said to be the bottleneck
REUSED = 0.75  # reuse below this share of K: K is not reached
PICKED, TIED, BEHIND = "picked", "tied", "behind"


@dataclass(frozen=True)
class Rates:
    drop_fraction: float
    reuse: float
    wait_share: float
    steady_batches: float  # batches per learner put in steady state


@dataclass(frozen=True)
class Standing:
    """What the verdict says of one cell: ``role`` is PICKED (the decisive winner or the leaning
    leader), TIED (in an inconclusive top set), BEHIND (any other judged cell) or ""."""

    role: str = ""
    leader: str = ""
    strength: str = ""


def standing(verdict: Verdict | None, label: str) -> Standing:
    if verdict is None or label not in verdict.intervals or not verdict.best:
        return Standing()
    leader = verdict.best[0]
    if verdict.strength in (DECISIVE, LEANING):
        role = PICKED if label == leader else BEHIND
    else:
        role = TIED if label in verdict.top_set else BEHIND
    return Standing(role, leader, verdict.strength)


def cell_advice(cell: Cell, rates: Rates, verdict: Standing) -> str:
    """The first rule that applies wins, so a cell is never told both to raise and lower K."""
    if not rates.steady_batches >= MIN_BATCHES_TO_CHECK:
        return (
            f"No advice: {fmt(rates.steady_batches)} batches per learner in steady state, "
            f"under the {MIN_BATCHES_TO_CHECK} the buffer's steady state needs."
        )
    change, text = _buffer_advice(cell, rates)
    if change and verdict.role == PICKED:
        finding, action = text.rsplit(". ", 1)
        return (
            f"Keep it: the verdict picks this cell on return ({verdict.strength}), and return is "
            f"what is tuned for; the buffer rates only say where samples go. They say: "
            f"{_lower_first(finding)}. Test their hint ({_lower_first(action.rstrip('.'))}) as a "
            "new run against this cell, not instead of it."
        )
    if not change and verdict.role == BEHIND:
        return (
            f"{text} But the verdict ranks it below {verdict.leader} on return: follow the "
            "verdict, since a balanced buffer does not make a better policy."
        )
    return text


def _buffer_advice(cell: Cell, rates: Rates) -> tuple[bool, str]:
    """(whether it advises a change, the advice) from the rates and the drop rule alone."""
    drop, wait, reuse = rates.drop_fraction, rates.wait_share, rates.reuse
    if drop > DROPPING:
        rule = drop_rule(cell.n, cell.k, cell.broadcast_interval)
        if cell.k == 1 and cell.broadcast_interval > cell.n + 1:
            return True, (
                f"{drop:.0%} of env steps are dropped unseen because of broadcast_interval: "
                f"{rule.reason}. Lower broadcast_interval to {cell.n + 1} or less, or raise N "
                f"to {cell.broadcast_interval - 1} or more."
            )
        lower_k = " or lower K" if cell.k > 1 else ""
        return True, (
            f"The learner falls behind: {drop:.0%} of env steps are dropped unseen while it "
            f"waits {wait:.0%} of the time. Add learners{lower_k}."
        )
    if wait > WAITING:
        return True, (
            f"The learner waits for data {wait:.0%} of the time: sampling is the bottleneck. "
            "Add env runners."
        )
    if cell.k > 1 and reuse < REUSED * cell.k:
        return True, (
            f"Batches are used {reuse:.2f} times on average of K={cell.k}: newer batches push "
            f"them out first, so a K above {max(1, round(reuse))} buys little here. Lower K."
        )
    return False, "Balanced: few drops, little waiting, and batches used close to K times. Keep it."


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]
