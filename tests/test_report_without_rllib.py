"""A report builds from a results folder alone: in a process where importing Ray, torch or ale_py
raises, from each committed example store. Anything that drags RLlib into the report path (a
constant imported from a module that patches RLlib, a config builder) fails here by name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted(path.name for path in (ROOT / "results").glob("example-*"))
BLOCKED = ("ray", "torch", "ale_py")

BUILD_WITHOUT_RLLIB = f"""
import json
import sys
import traceback


class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {BLOCKED!r}:
            raise ImportError(f"{{name}} imported while building a report")
        return None


sys.meta_path.insert(0, Blocked())
from suite.report import build_report

failures = {{}}
for example, out in json.loads(sys.argv[1]).items():
    try:
        print(build_report(example, out_path=out))
    except Exception:
        failures[example] = traceback.format_exc()[-3000:]
loaded = sorted(name for name in sys.modules if name.partition(".")[0] in {BLOCKED!r})
assert not loaded, loaded
print(json.dumps(failures))
"""


def test_the_examples_are_there():
    assert len(EXAMPLES) >= 3, EXAMPLES


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, tuple[Path, str | None]]:
    """Every example's report, built in one process where those imports raise (one process,
    not one per example: each spent ~2 s importing pandas, scipy and matplotlib). Returns
    example -> (its page, the traceback of its build or None)."""
    folder = tmp_path_factory.mktemp("reports")
    outs = {str(ROOT / "results" / example): folder / f"{example}.html" for example in EXAMPLES}
    request = json.dumps({store: str(out) for store, out in outs.items()})
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", BUILD_WITHOUT_RLLIB, request],
        capture_output=True, text=True, timeout=300, check=False, cwd=folder,
        env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    failures = json.loads(done.stdout.strip().splitlines()[-1])
    return {Path(store).name: (out, failures.get(store)) for store, out in outs.items()}


@pytest.mark.timeout(180)  # the first builds every example's report: ~20 s on 2 cores
@pytest.mark.parametrize("example", EXAMPLES)
def test_a_report_builds_where_importing_ray_torch_or_ale_py_raises(example, built):
    out, error = built[example]
    assert error is None, error
    assert out.stat().st_size > 10_000 and "<html" in out.read_text()[:1000].lower()
