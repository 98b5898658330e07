"""A trial's failures, as ``trials/<id>/failures.json`` keeps them and ``trials.parquet`` shows
them (its ``retries`` and ``failures`` columns).

One record per failed attempt, in order: what failed (the error, or the stall reason), the node
the attempt ran on and whether that node was lost, and how the trial went on: retried from the
checkpoint at iteration N, retried from scratch, or not retried. An attempt that the sweep's
driver took down with it (killed, then ``--resume``) gets a record only when it could not go on
from its checkpoint, which was incomplete: it was retried from scratch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

RESTART_PENDING = None  # retried, and the retry has not reported a result yet


@dataclass
class Failure:
    attempt: int  # from 1
    at: str  # ISO time the driver heard of it
    error: str
    node_id: str | None = None  # None: it failed before reporting where it ran
    node_address: str | None = None
    node_lost: bool = False
    stalled: bool = False
    retried: bool = False
    # The iteration the retry continued from: its checkpoint's, or 0 from scratch.
    resumed_from_iteration: int | None = RESTART_PENDING
    # The checkpoint the retry should have continued from, found incomplete: it started again
    # from scratch instead ({"checkpoint": its folder, "iteration": N, "missing": [files]}).
    incomplete_checkpoint: dict[str, Any] | None = None

    def as_record(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Failure:
        known = {field.name for field in fields(cls)}
        return cls(**{key: value for key, value in record.items() if key in known})

    def line(self) -> str:
        """One line of the ``failures`` column."""
        where = f"node {self.node_address or self.node_id}" if self.node_id else "node unknown"
        if self.node_lost:
            where += " (lost)"
        return f"{self.attempt}. {where}: {self.error}; {self.outcome()}"

    def outcome(self) -> str:
        if not self.retried:
            return "not retried"
        if self.resumed_from_iteration is RESTART_PENDING:
            return "retried, not started again yet"
        if self.resumed_from_iteration == 0 and self.incomplete_checkpoint:
            found = self.incomplete_checkpoint
            at = f" at iteration {found['iteration']}" if found.get("iteration") else ""
            return (
                f"retried from scratch: its checkpoint{at} ({found['checkpoint']}) was "
                f"incomplete, missing {', '.join(found['missing'])}"
            )
        if self.resumed_from_iteration == 0:
            return "retried from scratch"
        return f"retried from the checkpoint at iteration {self.resumed_from_iteration}"


def failures_text(failures: list[Failure]) -> str:
    return "\n".join(failure.line() for failure in failures)
