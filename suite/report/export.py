"""The report's figures as PNG files, decoded from the very HTML the user reads (for W&B)."""

from __future__ import annotations

import base64
import re
from pathlib import Path

_IMAGE = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)" alt="([^"]*)"')


def export_figures(report: Path, out_dir: Path) -> list[Path]:
    """Write every embedded figure of ``report`` to ``out_dir`` (named after its alt text)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, (data, alt) in enumerate(_IMAGE.findall(report.read_text(encoding="utf-8"))):
        slug = re.sub(r"[^A-Za-z0-9]+", "-", alt).strip("-").lower()[:60] or "figure"
        path = out_dir / f"{index:02d}-{slug}.png"
        path.write_bytes(base64.b64decode(data))
        paths.append(path)
    return paths
