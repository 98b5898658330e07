"""``python -m suite.configs``: list the tuned configs, their defaults, expectations, sources."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from suite.configs.promoted import PromotedConfig, load_promoted
from suite.configs.registry import all_configs


def main() -> None:
    table = Table(title="Tuned APPO configs")
    for column in ("name", "env", "N", "K", "B", "threshold", "expected result", "source"):
        table.add_column(column, overflow="fold")
    for tuned in all_configs():
        table.add_row(
            tuned.name,
            tuned.env,
            str(tuned.default_n),
            str(tuned.default_k),
            str(tuned.default_broadcast_interval),
            f"{tuned.threshold:g}",
            tuned.expected,
            tuned.source,
        )
    console = Console(width=160)
    console.print(table)
    promoted = load_promoted()
    if promoted:
        console.print(_evidence_table(promoted))


def _evidence_table(promoted: list[PromotedConfig]) -> Table:
    table = Table(title="Promoted configs: the evidence that decided them")
    for column in ("name", "from", "settings", "verdict", "return (95% CI)", "run", "hardware"):
        table.add_column(column, overflow="fold")
    for config in promoted:
        evidence = config.evidence
        point, low, high = evidence.get("return_iqm", [None] * 3)
        hardware = evidence.get("hardware") or {}
        table.add_row(
            config.name,
            config.base,
            ", ".join(f"{key}={value}" for key, value in sorted(config.settings.items())),
            f"{evidence.get('verdict')}: {evidence.get('summary')}",
            f"{point:.4g} ({low:.4g} to {high:.4g}) at {evidence.get('budget')}, "
            f"{evidence.get('seeds')} seeds",
            _run_text(evidence),
            f"{hardware.get('cpu_cores')} cores {hardware.get('cpu_model')}, "
            f"{len(hardware.get('gpus') or [])} GPUs",
        )
    return table


def _run_text(evidence: dict) -> str:
    commit = str(evidence.get("git_commit"))[:8]
    run = f"{evidence.get('sweep')}/{evidence.get('run_id')}"
    return f"{run} (git {commit}, ray {evidence.get('ray_version')})"


if __name__ == "__main__":
    main()
