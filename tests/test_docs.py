"""The docs (mkdocs.yml, docs/*.md) build strictly, every link resolves, and the README's links
into them do too. Their numbers are checked against their records in
tests/test_numbers_have_one_home.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
HOOK = ROOT / "docs" / "hooks" / "repo_files.py"
LINK = re.compile(r"\]\((?P<path>[^)\s#]+)(?:#(?P<anchor>[^)\s]+))?\)")


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of ``config`` into ``site``, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ | {"NO_MKDOCS_2_WARNING": "1"},
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    done = build(ROOT / "mkdocs.yml", site)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return site


def nav_pages() -> list[str]:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    return [page for entry in config["nav"] for page in entry.values()]


def test_every_page_is_in_the_nav_and_built(site):
    pages = sorted(path.name for path in (ROOT / "docs").glob("*.md"))
    assert sorted(nav_pages()) == pages
    for page in pages:
        built = "index.html" if page == "index.md" else f"{page.removesuffix('.md')}/index.html"
        assert (site / built).is_file(), built


def test_a_linked_record_is_in_the_site_and_the_link_points_to_it(site):
    record = site / "repo" / "benchmarks" / "raw" / "racing.json"
    assert record.read_bytes() == (ROOT / "benchmarks" / "raw" / "racing.json").read_bytes()
    racing = (site / "racing" / "index.html").read_text()
    assert 'href="../repo/benchmarks/raw/racing.json#data.races.0.seconds"' in racing
    assert (site / "repo" / "reports" / "example-aggregation_window-smoke.html").is_file()
    assert not (site / "repo" / "results" / "example-atari_nk-smoke").exists()  # not linked


def test_the_readmes_links_resolve_into_files_and_headings_of_the_docs(site):
    readme = (ROOT / "README.md").read_text()
    links = [m for m in LINK.finditer(readme) if "://" not in m["path"]]
    assert any(m["path"].startswith("docs/") for m in links)
    for link in links:
        assert (ROOT / link["path"]).exists(), link[0]
        if link["path"].startswith("docs/") and link["anchor"]:
            page = Path(link["path"]).relative_to("docs")
            built = site / ("" if page.stem == "index" else page.stem) / "index.html"
            assert f'id="{link["anchor"]}"' in built.read_text(), link[0]


def test_a_missing_file_or_heading_fails_the_strict_build(tmp_path):
    """The same settings and hook as mkdocs.yml, on a page with one good and two bad links."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config |= {"docs_dir": "docs", "hooks": [str(HOOK)], "nav": [{"Home": "index.md"}]}
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "present.json").write_text('{"x": 1}')
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# Home\n\n[1](../records/present.json#x), [2](../records/missing.json#x), "
        "[3](index.md#no-such-heading)\n"
    )
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    done = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    warnings = [line for line in done.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 2, done.stderr
    assert "'../records/missing.json' is not found among documentation files" in warnings[0]
    assert "no-such-heading" in warnings[1]
