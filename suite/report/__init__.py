"""The tuning-guide HTML report, built from the results store alone.

``analysis/`` computes what the report decides from the store's tables, ``presentation/`` draws
and words it, ``cell.py`` is the vocabulary both use, and the commands sit here: ``__main__``,
``build`` (one run's page), ``compare`` (two runs), ``promotion`` and ``promote_search`` (a
run's pick into the config library) and ``export`` (the page's figures as files).
"""

from suite.report.build import build_report

__all__ = ["build_report"]
