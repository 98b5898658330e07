"""The report's analysis: functions from the results store's tables to typed results (cell
statistics, verdicts, budgets, the buffer model, reliability, race and search analysis, advice).
It imports no matplotlib, jinja2 or HTML; ``suite.report.presentation`` turns its results into
the page (``tests/test_import_graph.py`` holds the direction)."""
