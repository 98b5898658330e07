"""``python -m suite.configs``: list the tuned configs, their defaults, expectations, sources,
and, for each expectation we measured, the evidence it was read from."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from suite.configs.promoted import PromotedConfig, load_promoted
from suite.configs.registry import TunedConfig, all_configs


def main() -> None:
    configs = all_configs()
    table = Table(title="Tuned APPO configs")
    for column in ("name", "env", "N", "K", "B", "threshold", "expected result", "source"):
        table.add_column(column, overflow="fold")
    for tuned in configs:
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
    console.print(_measured_table(configs))
    promoted = load_promoted()
    if promoted:
        console.print(_evidence_table(promoted))


def _measured_table(configs: tuple[TunedConfig, ...]) -> Table:
    """Each measured expectation with what it was measured on, read from its evidence file."""
    table = Table(title="Where each expected result was measured (read from the evidence)")
    for column in ("name", "seeds", "env steps", "hardware", "date", "evidence"):
        table.add_column(column, overflow="fold")
    for tuned in configs:
        if tuned.evidence is None:
            continue
        found = tuned.measured()
        if found is None:
            table.add_row(tuned.name, "", "", "", "", f"{tuned.evidence.pointer}: missing")
            continue
        table.add_row(
            tuned.name, found.seeds, found.env_steps, found.hardware, found.date, found.source
        )
    return table


def _evidence_table(promoted: list[PromotedConfig]) -> Table:
    table = Table(title="Promoted configs: the run that decided them")
    for column in ("name", "from", "settings", "verdict", "run"):
        table.add_column(column, overflow="fold")
    for config in promoted:
        evidence = config.evidence
        table.add_row(
            config.name,
            config.base,
            ", ".join(f"{key}={value}" for key, value in sorted(config.settings.items())),
            f"{evidence.get('verdict')}: {evidence.get('summary')}",
            _run_text(evidence),
        )
    return table


def _run_text(evidence: dict) -> str:
    commit = str(evidence.get("git_commit"))[:8]
    run = f"{evidence.get('sweep')}/{evidence.get('run_id')}"
    return f"{run} (git {commit}, ray {evidence.get('ray_version')})"


if __name__ == "__main__":
    main()
