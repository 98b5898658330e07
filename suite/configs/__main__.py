"""``python -m suite.configs``: the tuned configs, one line each (name, env, the result to expect,
where its evidence is). ``python -m suite.configs NAME``: one config in detail (defaults,
settings, the result to expect, the evidence and what it was measured on)."""

from __future__ import annotations

import argparse
import sys

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from suite.configs.describe import detail_rows, listed
from suite.configs.registry import UnknownNameError, all_configs, get_config


def list_table() -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for column in ("name", "env", "expect", "evidence"):
        table.add_column(column, no_wrap=True)
    for tuned in all_configs():
        line = listed(tuned)
        # plain Text: a config's words in brackets ([0, 2], [linear]) are not rich markup
        table.add_row(*map(Text, (line.name, line.env, line.expected, line.evidence)))
    return table


def detail_table(name: str) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for label, text in detail_rows(get_config(name)):
        table.add_row(Text(label), Text(text))
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m suite.configs", description=__doc__)
    parser.add_argument("name", nargs="?", help="a config to show in detail")
    args = parser.parse_args(argv)
    console = Console()
    if args.name is None:
        table = list_table()
        # One line per config, however narrow the terminal or pipe: a wide line wraps, a
        # table cell never does.
        wide = console.options.update_width(1_000)
        console.width = max(console.width, Measurement.get(console, wide, table).maximum)
        console.print(table)
        console.print("Details: python -m suite.configs NAME")
        return 0
    try:
        table = detail_table(args.name)
    except UnknownNameError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
