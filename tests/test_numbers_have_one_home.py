"""A measured number lives in one file; the README, the docs pages (docs/*.md) and the config
docstrings only point to it.

The homes: the benchmark records (benchmarks/raw/<row>.json), the promoted configs' evidence
(suite/configs/promoted/<name>.json), the notes (benchmarks/notes/<row>.md), and what a stored
run writes (results/example-*/, reports/example-*). RESULTS.md is their rendering
(tests/test_bench_units.py checks it is exactly that).

The scheme, so that a copy can be checked:

- Where the README, a docs page (or a docstring) states a measured number, it is a link to its
  home, relative to the file it is in:
  ``[48.4 min](benchmarks/raw/racing.json#data.races.1.seconds)`` in the README,
  ``[48.4 min](../benchmarks/raw/racing.json#data.races.1.seconds)`` on a page under docs/ (so
  the link also resolves on GitHub and in the built site). A link to a docs page or to the
  README is a way to read on, not a number's home, and is not checked here (tests/test_docs.py
  builds the pages strictly, which checks it). For a JSON file the part
  after ``#`` is the dotted key (a number indexes a list); the number shown must be that value
  as printed, to the digits shown (``%`` shows a fraction times 100, ``min``/``h`` show seconds,
  ``k``/``M`` thousands and millions; a leading ``~`` or ``about`` allows 5%). A JSON string, a
  notes file's ``#part``, a RESULTS.md ``#row`` section or any other file must contain the text
  shown.
- A tuned config's docstring states none: its Expect headline names the evidence file its
  registry entry reads, and ``python -m suite.configs`` shows the number. A measured-looking
  number anywhere in it (a time, a rate, a share, an IQM, CI, median or mean, an ``~`` figure,
  a return in the Expect headline) fails, unless it is a link as above.
"""

from __future__ import annotations

import functools
import json
import math
import re
from pathlib import Path

import pytest

from suite.bench.notes import parse_notes
from suite.bench.rows import get_row
from suite.configs.evidence import read_json, shown_path, value_at
from suite.configs.registry import TUNED_CONFIGS

ROOT = Path(__file__).resolve().parents[1]
SPAN = re.compile(
    r"\[(?P<shown>[^\]\n]+)\]\((?P<path>[\w./-]+\.(?:json|md|html))(?:#(?P<key>[^)\n]+))?\)"
)
SHOWN = re.compile(
    r"^(?P<approx>~|about )?(?P<num>[-−]?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?)\s*(?P<unit>%|k|M|min|s|h)?$"
)
NUMBER = r"[-−~]?\d[\d,]*(?:\.\d+)?"
MEASURED = re.compile(
    rf"(?<![\w.]){NUMBER}\s*%"  # a share
    rf"|(?<![\w.]){NUMBER}\s*(?:s|sec|seconds?|min|minutes?|h|hours?)\b"  # a wall time
    rf"|(?<![\w.]){NUMBER}\s*[kM]?\s*(?:env |time)?steps/s\b"  # a throughput
    rf"|\b(?:IQM|CI|median|mean|near|about)\s+(?:of\s+)?{NUMBER}"  # a statistic
    rf"|~\s*{NUMBER}[kM]?"  # an approximate figure
)
PATH = re.compile(
    r"\b(?:benchmarks|suite|results|reports|sweeps|tests|tuned_examples)/[\w./-]*"
    r"|[\w./-]+\.(?:py|json|md|html|yml)\b"
)
RETURN = re.compile(rf"\breturns?\s+(?:of\s+)?{NUMBER}")
HEADLINES = ("Expect", "Hardware", "Source", "Run")


def number_matches(shown: str, value: float) -> bool:
    """Whether ``shown`` is ``value`` as printed (see the module docstring for units)."""
    found = SHOWN.match(shown.strip())
    if not found:
        raise ValueError(f"{shown!r} is not one number (with an optional unit)")
    text = found["num"].replace(",", "").replace("−", "-")
    mantissa, _, exponent = text.partition("e")
    decimals = len(mantissa.partition(".")[2])
    scale = {"k": 1e3, "M": 1e6}.get(found["unit"], 1.0)
    shown_value = float(text) * scale
    printed = value * {"%": 100.0, "min": 1 / 60, "h": 1 / 3600}.get(found["unit"], 1.0)
    tolerance = 0.5 * 10 ** (int(exponent or 0) - decimals) * scale
    if found["approx"]:
        tolerance = max(tolerance, 0.05 * abs(shown_value))
    return math.isfinite(printed) and abs(printed - shown_value) <= tolerance * (1 + 1e-9)


def contains(text: str, shown: str) -> bool:
    """``shown`` appears in ``text`` as a whole token (``6%`` is not in ``96%``): not after a
    word character, ``.`` or ``,``, nor before a word character or ``.``/``,`` and a digit."""
    flat = _one_line(text)
    at = flat.find(shown)  # str.find, not a regex: 35 spans point into a 3 MB report
    while at != -1:
        end = at + len(shown)
        if not re.match(r"[\w.,]", flat[at - 1 : at]) and not re.match(
            r"\w|[.,]\d", flat[end : end + 2]
        ):
            return True
        at = flat.find(shown, at + 1)
    return False


@functools.lru_cache(maxsize=8)
def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@functools.lru_cache(maxsize=8)
def _read_text(file: Path) -> str:
    """One read per file (and so one ``_one_line`` of it), however many spans point into it."""
    return file.read_text()


def check_span(
    shown: str, path: str, key: str | None, root: Path = ROOT, base: Path | None = None
) -> str | None:
    """None when ``path`` (and ``key``) hold ``shown``; else what is wrong. ``path`` is relative
    to ``base``, the folder of the file that links (default ``root``)."""
    where = f"[{shown}]({path}{'#' + key if key else ''})"
    file = ((base or root) / path).resolve()
    if not file.exists():
        return f"{where}: {path} does not exist"
    if file.suffix == ".json":
        if not key:
            return f"{where}: a JSON home needs #key"
        try:
            value = value_at(read_json(file), key)
        except KeyError as error:
            return f"{where}: {error.args[0]}"
        if isinstance(value, str):
            held = contains(value, shown)
        elif isinstance(value, bool) or not isinstance(value, int | float):
            return f"{where}: {key} is {value!r}, not a number or text"
        else:
            held = number_matches(shown, float(value))
        return None if held else f"{where}: {path} holds {value!r} at {key}"
    text = _read_text(file)
    if key and file.parent.name == "notes":
        parts = parse_notes(text, file).parts
        if key not in parts:
            return f"{where}: {path} has no part '## {key}'"
        text = parts[key]
    elif key and file.name == "RESULTS.md":
        title = f"## {get_row(key).title}\n"
        text = text.partition(title)[2].partition("\n## ")[0]
    return None if contains(text, shown) else f"{where}: {path} does not say {shown!r}"


def wrong_spans(text: str, root: Path = ROOT, base: Path | None = None) -> list[str]:
    homes = [m for m in SPAN.finditer(text) if not _is_page((base or root) / m["path"], root)]
    problems = (check_span(m["shown"], m["path"], m["key"], root, base) for m in homes)
    return [problem for problem in problems if problem]


def _is_page(target: Path, root: Path) -> bool:
    """A docs page or the README: where a reader goes on, not where a number lives."""
    target = target.resolve()
    docs = (root / "docs").resolve()
    page = target.suffix == ".md" and target.is_relative_to(docs)
    return page or target == (root / "README.md").resolve()


def headline(doc: str, name: str) -> str:
    """The text of headline ``name:`` up to the next headline or blank line."""
    names = "|".join(HEADLINES)
    found = re.search(rf"^\s*{name}:(.*?)(?=^\s*(?:{names}):|\n\s*\n|\Z)", doc, re.M | re.S)
    return found[1] if found else ""


def bare_measured_numbers(doc: str) -> list[str]:
    """Measured-looking numbers in a config docstring that are not links to their home."""
    text = SPAN.sub("", doc)
    text = re.sub(r"``[^`]*``", "", text)  # code: settings, commands
    text = PATH.sub("", text)  # paths and file names
    found = [m[0] for m in MEASURED.finditer(text)]
    return found + [m[0] for m in RETURN.finditer(headline(text, "Expect"))]


# --- the checks ----------------------------------------------------------------------------------


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_a_page_states_only_numbers_its_sources_hold(page):
    assert wrong_spans(page.read_text(), base=page.parent) == []


def test_the_findings_link_their_numbers_to_their_home():
    """The findings moved from the README to the docs with their links."""
    spans = {page.name: len(SPAN.findall(page.read_text())) for page in PAGES}
    assert sum(spans.values()) >= 100, spans
    assert spans["racing.md"] >= 30 and spans["search.md"] >= 10 and spans["buffer.md"] >= 30


@pytest.mark.parametrize("tuned", TUNED_CONFIGS, ids=lambda tuned: tuned.name)
def test_a_config_docstring_states_no_number_of_its_own(tuned):
    doc = tuned.build.__doc__ or ""
    bare = [f"{number!r}: link it to its home or drop it" for number in bare_measured_numbers(doc)]
    assert bare + wrong_spans(doc) == [], tuned.name


@pytest.mark.parametrize("tuned", TUNED_CONFIGS, ids=lambda tuned: tuned.name)
def test_a_config_docstring_has_each_headline_once_and_expect_names_its_evidence(tuned):
    doc = tuned.build.__doc__ or ""
    for name in HEADLINES:
        assert len(re.findall(rf"^\s*{name}:", doc, re.M)) == 1, f"{tuned.name}: {name}"
    if tuned.evidence is not None:
        evidence_file = tuned.evidence.pointer.split(" ")[0]
        assert evidence_file in headline(doc, "Expect"), (tuned.name, evidence_file)
        assert tuned.measured() is not None, f"{tuned.name}: {evidence_file} is missing"


# --- the scheme itself, on hand-made cases -------------------------------------------------------


def test_a_shown_number_matches_its_value_to_the_digits_shown():
    assert number_matches("2,671", 2671.4) and not number_matches("2,672", 2671.4)
    assert number_matches("48.4 min", 2906.0) and not number_matches("48 min", 2926.0)
    assert number_matches("87%", 0.8667) and not number_matches("86%", 0.8667)
    assert number_matches("500k", 500_000) and number_matches("6e-5", 6.2e-5)
    assert number_matches("-1,203", -1203.06) and number_matches("~6,600", 6_400.0)
    assert not number_matches("96", math.inf)
    with pytest.raises(ValueError, match="not one number"):
        number_matches("4 to 5 s", 4.5)


def test_a_wrong_or_dangling_link_is_named(tmp_path):
    (tmp_path / "benchmarks" / "raw").mkdir(parents=True)
    record = {"data": {"seconds": 2399.0, "runs": [{"share": 0.87}], "text": "41 measured"}}
    (tmp_path / "benchmarks" / "raw" / "racing.json").write_text(json.dumps(record))
    text = (
        "[40.0 min](benchmarks/raw/racing.json#data.seconds), "
        "[87%](benchmarks/raw/racing.json#data.runs.0.share), "
        "[41](benchmarks/raw/racing.json#data.text); "
        "[45 min](benchmarks/raw/racing.json#data.seconds), "
        "[1](benchmarks/raw/racing.json#data.runs.3.share), [2](benchmarks/raw/gone.json#x)"
    )
    assert wrong_spans(text, tmp_path) == [
        "[45 min](benchmarks/raw/racing.json#data.seconds): benchmarks/raw/racing.json holds "
        "2399.0 at data.seconds",
        "[1](benchmarks/raw/racing.json#data.runs.3.share): no 'data.runs.3.share': '3' is not "
        "there",
        "[2](benchmarks/raw/gone.json#x): benchmarks/raw/gone.json does not exist",
    ]


def test_a_link_is_read_relative_to_the_page_that_has_it(tmp_path):
    (tmp_path / "benchmarks" / "raw").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    record = {"data": {"seconds": 2399.0}}
    (tmp_path / "benchmarks" / "raw" / "racing.json").write_text(json.dumps(record))
    page = "[40.0 min](../benchmarks/raw/racing.json#data.seconds)"
    assert wrong_spans(page, tmp_path, base=tmp_path / "docs") == []
    readme_style = "[40.0 min](benchmarks/raw/racing.json#data.seconds)"
    assert wrong_spans(readme_style, tmp_path, base=tmp_path / "docs") == [
        f"{readme_style}: benchmarks/raw/racing.json does not exist"
    ]


def test_a_docstring_number_that_is_a_measurement_is_caught():
    doc = (
        "CartPole-v1, N=1, K=2, 4 envs of 500-step batches, 2 CPUs.\n\n"
        "Expect: return 450 after a median 96 s (84-115 s) at ~2,700 env steps/s, 87% of it.\n"
        "Hardware: 2 CPUs.\n"
        "Source: RLlib's script stops at return 450 within 2M env steps.\n"
        "Run: ``python -m suite.sweep cartpole_nk --budget laptop``; see benchmarks/raw/race.json."
    )
    assert bare_measured_numbers(doc) == [
        "median 96",
        "115 s",
        "~2,700 env steps/s",
        "87%",
        "return 450",  # in Expect; Source's return 450 is RLlib's stop criterion
    ]
    assert headline(doc, "Hardware").strip() == "2 CPUs."
    linked = doc.replace("median 96 s", "median [96 s](benchmarks/raw/race.json#k)")
    assert "median 96" not in bare_measured_numbers(linked)


def test_shown_paths_are_relative_to_the_repository():
    assert shown_path(ROOT / "benchmarks" / "raw" / "race.json") == "benchmarks/raw/race.json"
