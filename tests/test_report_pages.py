"""What the committed example pages say, against their own stores: each claim a reader of the
pages found untrue or undecodable (issue 33, item 5), now computed and worded at its source."""

import re
from pathlib import Path

import pytest

from suite.report import build_report
from suite.report.analysis import search
from suite.store.reader import load_run

EXAMPLES = Path(__file__).parent.parent / "results"


def words(page: str) -> str:
    """The page's text as a reader sees it: no tags, one space between words."""
    text = re.sub(r"<style>.*?</style>|<script.*?</script>", " ", page, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text).replace("&#39;", "'").replace("&amp;", "&")
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """example name -> the page's words, built once per module (figures not drawn)."""
    built = {}
    folder = tmp_path_factory.mktemp("pages")

    def page(example: str) -> str:
        if example not in built:
            with pytest.MonkeyPatch.context() as patch:
                from unrendered import skip_rendering

                skip_rendering(patch)
                path = build_report(EXAMPLES / example, folder / f"{example}.html")
            built[example] = words(path.read_text())
        return built[example]

    return page


@pytest.mark.parametrize(
    ("example", "reached", "short", "span"),
    [
        ("example-pendulum_search-laptop", 55, 9, "79,400-99,600"),
        ("example-cartpole_search-laptop", 62, 11, "26,795-49,982"),
    ],
)
def test_search_pages_count_the_trials_that_stopped_short_of_the_budget(
    pages, example, reached, short, span
):
    run = load_run(EXAMPLES / example)
    reach = search.budget_reach(run.search, search.search_trials(run))
    assert (reach.reached, reach.short_trials) == (reached, short)
    text = pages(example)
    assert "ran to their budget" not in text and "every trial is read at the same" not in text
    assert "every trial finished" not in text
    assert f"{reached} reached" in text and "are scored at exactly" in text
    assert f"stopped short at {span} env steps" in text
    assert "Failed trials: none errored, but not every trial reached" in text
    assert "Cells can still lack data" not in text


def test_the_search_baseline_is_named_by_what_it_ran_not_by_a_library_name_that_moved(pages):
    """``pendulum`` now resolves to this search's pick; the baseline ran the older pendulum."""
    run = load_run(EXAMPLES / "example-pendulum_search-laptop")
    found = search.baseline(run)
    assert (found.config, found.commit) == ("pendulum", "5b6a2fb")
    assert (found.settings["n"], found.settings["k"], found.settings["lr"]) == (
        "16",
        "4",
        "0.00132",
    )
    assert found.settings["model.fcnet_hiddens"] == "256x256"
    text = pages("example-pendulum_search-laptop")
    assert "(the config itself)" not in text
    assert "beats the baseline (pendulum as this search ran it) on 10 held-out seeds" in text
    assert "when this search ran at commit 5b6a2fb" in text and "n=16, " in text
