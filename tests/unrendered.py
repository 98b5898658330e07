"""Reports built for their words: every figure is still built (its data, artists, title and alt
text) but not drawn into a PNG, which is about half of a report's build time.

For tests that read a report's text, never its images. The images are checked by the tests that
leave this out: tests/test_report.py's page (it counts them), the row-order pages of
tests/test_report_truth.py (byte for byte), every committed example in
tests/test_report_without_rllib.py, and the browser test.
"""

from __future__ import annotations

import sys

import pytest

from suite.report.presentation import figures

UNRENDERED = "data:,"  # an empty data URI: no test mistakes it for a drawn PNG


def _unrendered(figure, alt: str) -> figures.Image:
    return figures.Image(UNRENDERED, round(figure.get_figwidth() * figures.CSS_PX_PER_INCH), alt)


def skip_rendering(monkeypatch: pytest.MonkeyPatch, keep: tuple[str, ...] = ()) -> None:
    """Replace ``figures.encode`` wherever the report's modules hold it; figures whose alt text
    is in ``keep`` are still drawn (the one figure a test is about)."""
    drawn = figures.encode

    def encode(figure, alt: str) -> figures.Image:
        return drawn(figure, alt) if alt in keep else _unrendered(figure, alt)

    for module in list(sys.modules.values()):
        if module is None or not getattr(module, "__name__", "").startswith("suite."):
            continue
        if getattr(module, "encode", None) is drawn:
            monkeypatch.setattr(module, "encode", encode)
