"""V-trace once per train batch, along each episode chunk of RLlib's learner-connector layout.

RLlib 2.60's learner connector (``AddOneTsToEpisodesAndTruncate``) appends one bootstrap row to
every episode chunk and masks it (loss mask False): a flat batch is chunks laid end to end, each
ending with its bootstrap row. RLlib's APPO loss instead cuts whatever rows it is given (a
minibatch, or the batch) into rows of ``rollout_fragment_length`` and runs V-trace on each. Two
things then differ from V-trace as Espeholt et al. define it, which this module computes:

- RLlib never masks the bootstrap row's own TD error, ``rho_b * (0 - V(s_b))``; the recursion
  carries it into the chunk's last real step, whose target then bootstraps from about
  ``(1 - c * rho_b) * V(s_b)`` instead of ``V(s_b)`` (``benchmarks/repro/vtrace_bootstrap_row.py``).
- On a minibatch of contiguous rows, the last row bootstraps from the value of the minibatch's
  *first* row (RLlib's "arbitrary" bootstrap for its last time-major row), and returns stop at
  every minibatch boundary.

Here each chunk is one trajectory: its real rows bootstrap from the next row's value (the
bootstrap row's after the last real step), terminal steps from nothing, and the recursion never
crosses a chunk. ``lambda_`` scales the traces (``c_s = lambda * min(1, rho_s)``, the IMPALA
paper's lambda); 1.0 is RLlib's V-trace.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class ChunkLayout:
    """Where each row of a flat batch sits in a time-major grid of [time, chunk]."""

    time: torch.Tensor  # [rows]: position in its chunk
    chunk: torch.Tensor  # [rows]: index of its chunk
    length: int  # the longest chunk, its bootstrap row included
    chunks: int

    def grid(self, values: torch.Tensor) -> torch.Tensor:
        """``values`` [rows] as a zero-padded [length, chunks] grid."""
        grid = values.new_zeros((self.length, self.chunks))
        grid[self.time, self.chunk] = values
        return grid

    def rows(self, grid: torch.Tensor) -> torch.Tensor:
        """The inverse of ``grid``: [length, chunks] back to [rows]."""
        return grid[self.time, self.chunk]


def chunk_layout(loss_mask: torch.Tensor) -> ChunkLayout:
    """The chunks of a batch whose chunks each end with a masked bootstrap row."""
    ends = torch.nonzero(~loss_mask.bool()).squeeze(1)
    if ends.numel() == 0 or int(ends[-1]) != loss_mask.numel() - 1:
        raise ValueError(
            "a train batch must end each episode chunk with a masked bootstrap row (RLlib's "
            "AddOneTsToEpisodesAndTruncate learner connector adds them); this one does not"
        )
    starts = torch.cat([ends.new_zeros(1), ends[:-1] + 1])
    lengths = ends - starts + 1
    chunk = torch.repeat_interleave(torch.arange(ends.numel(), device=ends.device), lengths)
    time = torch.arange(loss_mask.numel(), device=ends.device) - starts[chunk]
    return ChunkLayout(time=time, chunk=chunk, length=int(lengths.max()), chunks=ends.numel())


@torch.no_grad()
def vtrace_per_chunk(
    *,
    layout: ChunkLayout,
    behaviour_logp: torch.Tensor,
    target_logp: torch.Tensor,
    rewards: torch.Tensor,
    values: torch.Tensor,
    terminateds: torch.Tensor,
    loss_mask: torch.Tensor,
    gamma: float,
    lambda_: float = 1.0,
    clip_rho: float | None = 1.0,
    clip_pg_rho: float | None = 1.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """V-trace value targets and policy-gradient advantages for every row ([rows] each; zero
    advantage and ``vs = V`` on bootstrap rows). All inputs are flat [rows] tensors."""
    real = loss_mask.to(values.dtype)
    rhos = torch.exp(target_logp - behaviour_logp)
    clipped_rhos = rhos if clip_rho is None else torch.clamp(rhos, max=clip_rho)
    traces = lambda_ * torch.clamp(rhos, max=1.0)
    # No bootstrap past a terminal step, and none from a bootstrap row (it ends its chunk).
    discounts = gamma * (1.0 - terminateds.to(values.dtype)) * real
    # A real row's next row is in its own chunk: every chunk ends with its bootstrap row.
    next_values = torch.roll(values, -1)
    deltas = layout.grid(clipped_rhos * (rewards + discounts * next_values - values) * real)
    decay = layout.grid(discounts * traces)
    corrections = torch.zeros_like(deltas)
    carried = deltas.new_zeros(layout.chunks)
    for t in range(layout.length - 1, -1, -1):
        carried = deltas[t] + decay[t] * carried
        corrections[t] = carried
    vs = values + layout.rows(corrections)
    pg_rhos = rhos if clip_pg_rho is None else torch.clamp(rhos, max=clip_pg_rho)
    advantages = pg_rhos * (rewards + discounts * torch.roll(vs, -1) - values) * real
    return vs, advantages
