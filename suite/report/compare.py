"""``python -m suite.report --compare RUN_A RUN_B``: two runs of the same sweep side by side,
cells matched and metrics flagged when they moved (``analysis.compare``), on one page
(``presentation.compare``)."""

from __future__ import annotations

from pathlib import Path

from suite.report.analysis import metrics
from suite.report.analysis.compare import compare_table
from suite.report.analysis.trials import prepared_trials
from suite.report.build import default_report_path
from suite.report.presentation.compare import comparison_context
from suite.report.presentation.render import render
from suite.store.reader import StoreError, load_run


def build_comparison(run_a: str | Path, run_b: str | Path, out_path=None) -> Path:
    a, b = load_run(run_a), load_run(run_b)
    if a.path.resolve() == b.path.resolve() or (a.sweep, a.run_id) == (b.sweep, b.run_id):
        raise StoreError(
            f"{a.path} and {b.path} are the same run ({a.sweep}/{a.run_id}); compare two "
            "different runs of one sweep"
        )
    if a.sweep != b.sweep:
        raise StoreError(
            f"{a.path} is sweep {a.sweep!r} but {b.path} is sweep {b.sweep!r}; "
            "compare two runs of the same sweep"
        )
    cells_a = metrics.cell_table(prepared_trials(a))
    cells_b = metrics.cell_table(prepared_trials(b))
    table = compare_table(cells_a, cells_b)
    if table.empty:
        raise StoreError(
            f"{a.path} and {b.path} share no env x N x K cell; compare runs of the same grid"
        )
    out = Path(out_path) if out_path else default_report_path(a, suffix=f"-vs-{b.run_id}")
    out.parent.mkdir(parents=True, exist_ok=True)
    context = comparison_context(a, b, cells_a, cells_b, table)
    out.write_text(render("compare.html.j2", context), encoding="utf-8")
    return out
