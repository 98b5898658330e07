"""The "How good are the tuned configs" table of docs/configs.md: row 11's record
(benchmarks/raw/peers.json) rendered short, between two markers that ``python -m suite.bench``
rewrites (after measuring the row, and with ``--render-only``). The page holds no number of its
own there; the full row, with every mark and timing, is RESULTS.md's."""

from __future__ import annotations

import json
from pathlib import Path

from suite.bench.peers import ci_text, median_and_range, side_label

PAGE = Path("docs") / "configs.md"  # the page that holds the table, from the repository's top

BEGIN = (
    "<!-- peers table: python -m suite.bench --render-only writes it from "
    "benchmarks/raw/peers.json; edit the renderer, not the table -->"
)
END = "<!-- end of the peers table -->"


# Why the last column is there: a wall-time target is missed by set-up alone when the first
# score comes later than the peer reaches the threshold.
FIRST_SCORE_NOTE = (
    "The last column is the set-up a user waits through: process start, Ray and the env runners "
    "up, until its first return is scored."
)


class MissingMarkersError(ValueError):
    """The page has not both markers, in order: there is no table to rewrite."""


def peers_table(record: dict) -> list[str]:
    """Each env's config against its peers at the env steps its return target is read at."""
    data = record["data"]
    first, runs = data["first_seed"], data["seeds"]
    lines = [
        f"Measured {record['measured_at']} on {record['machine']}, "
        f"{runs} seeds per side (seeds {first:,} to {first + runs - 1:,}, which no search "
        "used), interleaved by seed "
        "(row 11 of `benchmarks/RESULTS.md` has every mark and timing):",
        "",
        "| env | side | return at | IQM [95% CI] | s from process start to threshold "
        "(median, range) | seeds that reached it | s to its first score |",
        "|---|---|---|---|---|---|---|",
    ]
    for env, found in data["envs"].items():
        mark = str(_return_mark(found))
        for side, summary in found["sides"].items():
            lines.append(
                f"| {env} | {side_label(side)} | {int(mark):,} env steps | "
                f"{ci_text(summary['return_at'][mark], summary['seeds'])} | "
                f"{found['threshold']:,.0f}: {median_and_range(summary['seconds_to_threshold'])} "
                f"| {summary['reached']}/{summary['seeds']} "
                f"| {median_and_range(summary['first_point_s'])} |"
            )
    lines += ["", *_target_lines(data), "", FIRST_SCORE_NOTE]
    return lines


def _return_mark(found: dict) -> int:
    """The env steps the env's first return target is read at; its last mark without one."""
    marks = [t["mark"] for t in found["targets"] if t["kind"] == "return" and t["mark"]]
    return marks[0] if marks else found["marks"][-1]


def _tie_words(target: dict) -> str:
    if target.get("value") is not None:
        return f"its 95% CI reaches past {target['value']:g}"
    return "behind SB3, the CIs overlap"


def _target_lines(data: dict) -> list[str]:
    words = {True: "met", False: "missed", None: "not judged (--quick)"}
    return [
        f"- {env}, {target['text']}: **{words[target['met']]}**"
        + (f" as a tie ({_tie_words(target)})" if target.get("tie") else "")
        for env, found in data["envs"].items()
        for target in found["targets"]
    ]


def with_table(page: str, record: dict) -> str:
    """``page`` with the text between the markers replaced by the table."""
    head, begin, rest = page.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not (begin and end):
        raise MissingMarkersError(f"the page lacks the markers {BEGIN!r} and {END!r}")
    return "\n".join([head + BEGIN, *peers_table(record), END + tail])


def rewrite_page(page: Path, record_path: Path) -> bool:
    """Rewrite the table in ``page``; False (and nothing written) when either file is missing
    or the page has no table (a benchmark folder of a test, or of another checkout)."""
    if not (page.exists() and record_path.exists()):
        return False
    text = page.read_text()
    if BEGIN not in text:
        return False
    page.write_text(with_table(text, json.loads(record_path.read_text())))
    return True
