"""The report says one thing per fact: one reader per number, whatever the store's row order."""

import re

import pandas as pd
import pytest

from suite.bench.synthetic_store import write_synthetic_run
from suite.report import build_report
from suite.store import schema

GUARD = "deadlock_guard_releases_lifetime"


@pytest.fixture
def small_run(tmp_path):
    return write_synthetic_run(tmp_path / "run", 24, 8, seed=5)


def rewrite(path, name, change) -> None:
    table = pd.read_parquet(path / name)
    change(table).to_parquet(path / name, index=False)


def without_build_time(page: str) -> str:
    return re.sub(r"Generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "Generated", page)


def section(page: str, name: str) -> str:
    start = page.index(f'<section id="{name}">')
    return page[start : page.index("</section>", start)]


def test_guard_releases_come_from_one_reader_even_when_the_trials_table_lacks_them(
    small_run, tmp_path
):
    def fire(iterations):  # CartPole N=2, K=4: 3 releases in each of its trials
        chosen = (iterations["env"] == "CartPole-v1") & (iterations["n"] == 2)
        iterations.loc[chosen & (iterations["k"] == 4), GUARD] = 3.0
        return iterations

    rewrite(small_run, schema.ITERATIONS_FILE, fire)
    rewrite(small_run, schema.TRIALS_FILE, lambda t: t.assign(deadlock_guard_releases=float("nan")))
    page = build_report(small_run, tmp_path / "r.html").read_text()
    hangs = section(page, "reliability")
    assert "not recorded" not in hangs and "predates" not in hangs
    assert re.search(r"<td>CartPole-v1</td><td>2</td><td>4</td>.*?<td>1</td><td>3</td></tr>", hangs)
    window = section(page, "aggregation")
    # the window table's row for K=4, B=20, N=2 shows the same 3 releases
    assert re.search(
        r"<tr><td>4</td><td>20</td><td>2</td>(?:<td[^>]*>[^<]*</td>){5}"
        r'<td class="wide">3</td></tr>',
        window,
    )


def test_a_store_without_the_counter_says_so_once_per_section(small_run, tmp_path):
    rewrite(small_run, schema.ITERATIONS_FILE, lambda t: t.assign(**{GUARD: float("nan")}))
    page = build_report(small_run, tmp_path / "r.html").read_text()
    hangs = section(page, "reliability")
    assert "predates the deadlock guard&#39;s release counter" in hangs
    assert "never had to release" not in hangs


def test_same_store_in_another_row_order_gives_the_same_page(small_run, tmp_path):
    first = build_report(small_run, tmp_path / "a.html").read_text()
    for index, name in enumerate(
        (schema.TRIALS_FILE, schema.ITERATIONS_FILE, schema.LEARNERS_FILE)
    ):
        rewrite(small_run, name, lambda t, i=index: t.sample(frac=1.0, random_state=11 + i))
    second = build_report(small_run, tmp_path / "b.html").read_text()
    assert without_build_time(first) == without_build_time(second)
