"""Build the tuning-guide HTML report of one run from the results store alone."""

from __future__ import annotations

import re
from pathlib import Path

from suite.report.presentation.page import report_context, search_context
from suite.report.presentation.render import render
from suite.store.reader import RunData, load_run

REPORTS_DIR = Path("reports")


def build_report(
    results_dir: str | Path, out_path: str | Path | None = None, reports_dir: Path | None = None
) -> Path:
    """Write one self-contained HTML report (default ``reports/<sweep>-<run_id>.html``; with
    ``reports_dir``, there instead of ``reports/``)."""
    run = load_run(results_dir)
    out = Path(out_path) if out_path else default_report_path(run, reports_dir=reports_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    if run.search:
        out.write_text(render("search_report.html.j2", search_context(run)), encoding="utf-8")
    else:
        out.write_text(render("report.html.j2", report_context(run)), encoding="utf-8")
    return out


def default_report_path(run: RunData, suffix: str = "", reports_dir: Path | None = None) -> Path:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{run.sweep}-{run.run_id}{suffix}")
    return (reports_dir or REPORTS_DIR) / f"{name}.html"
