"""The tuning-guide HTML report, built from the results store alone."""

from suite.report.build import build_report

__all__ = ["build_report"]
