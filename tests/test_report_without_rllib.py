"""A report builds from a results folder alone: in a process where importing Ray, torch or ale_py
raises, from each committed example store. Anything that drags RLlib into the report path (a
constant imported from a module that patches RLlib, a config builder) fails here by name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted(path.name for path in (ROOT / "results").glob("example-*"))
BLOCKED = ("ray", "torch", "ale_py")

BUILD_WITHOUT_RLLIB = f"""
import sys


class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {BLOCKED!r}:
            raise ImportError(f"{{name}} imported while building a report")
        return None


sys.meta_path.insert(0, Blocked())
from suite.report import build_report

print(build_report(sys.argv[1], out_path=sys.argv[2]))
loaded = sorted(name for name in sys.modules if name.partition(".")[0] in {BLOCKED!r})
assert not loaded, loaded
"""


def test_the_examples_are_there():
    assert len(EXAMPLES) >= 3, EXAMPLES


@pytest.mark.parametrize("example", EXAMPLES)
def test_a_report_builds_where_importing_ray_torch_or_ale_py_raises(example, tmp_path):
    out = tmp_path / "report.html"
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", BUILD_WITHOUT_RLLIB, str(ROOT / "results" / example), str(out)],
        capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert out.stat().st_size > 10_000 and "<html" in out.read_text()[:1000].lower()
