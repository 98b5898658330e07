"""``python -m suite.configs``: list the tuned configs, their defaults, expectations, sources."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

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
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
