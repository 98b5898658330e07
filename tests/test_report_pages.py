"""What the committed example pages say, against their own stores: each claim a reader of the
pages found untrue or undecodable (issue 33, item 5), now computed and worded at its source."""

import html
import re
from pathlib import Path

import numpy as np
import pytest

from suite.report import build_report
from suite.report.analysis import search
from suite.stats.validation import validate
from suite.store.reader import load_run

EXAMPLES = Path(__file__).parent.parent / "results"


def words(page: str) -> str:
    """The page's text as a reader sees it: no tags, one space between words."""
    text = re.sub(r"<style>.*?</style>|<script.*?</script>", " ", page, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
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


def test_the_cartpole_search_headline_names_every_suggestion_that_beats_the_baseline(pages):
    text = pages("example-cartpole_search-laptop")
    status = text[text.index("Promote suggestion 1:") :]
    status = status[: status.index(". ")]
    assert "suggestion 1 and suggestion 3 each beat the baseline" in status
    assert "suggestion 3 IQM 220 [179, 263], p = 0.02 under its Holm limit 0.025" in status
    assert "it also beats suggestion 3 (p = 0.019 < 0.05)" in status


def test_suggestions_that_beat_the_baseline_but_not_each_other_are_named_as_tied():
    base = np.arange(10.0)
    verdict = validate(
        {"base": base, "a": base + 20.0, "b": base + 19.5, "c": base - 1}, "base", 0.05
    )
    assert verdict.pick == "a" and verdict.tied == ("b",)
    reason = verdict.reason()
    assert "a and b each beat base" in reason
    assert "a ties with b (p = " in reason and "cannot order them" in reason
    assert "c" not in reason.split("each beat")[0]


def test_small_returns_keep_their_digits_in_the_verdict():
    base = np.linspace(1.0, 1.9, 10)  # MinAtar-sized returns: rounding to integers hid them
    reason = validate({"base": base, "a": base + 2.8}, "base", 0.05).reason()
    assert "IQM 4.25 [" in reason and "against 1.45 [" in reason, reason


def test_the_pendulum_search_draws_no_panel_for_lambda_or_for_a_setting_with_one_value(pages):
    record = load_run(EXAMPLES / "example-pendulum_search-laptop").search
    plotted, unread, constant = search.settings_to_plot(record)
    assert "lambda" in unread and "lambda" not in plotted
    assert constant == {
        "grad_clip": "0.5",
        "model.fcnet_activation": "tanh",
        "observation_filter": "mean_std",
        "target_network_update_freq": "2",
    }
    text = pages("example-pendulum_search-laptop")
    assert "Not drawn: lambda: RLlib 2.60's APPO never reads lambda" in text
    cartpole = search.settings_to_plot(load_run(EXAMPLES / "example-cartpole_search-laptop").search)
    assert cartpole[2] == {"train_batch_size_per_learner": "256"}


def test_the_search_early_stop_is_said_in_plain_words(pages):
    text = pages("example-cartpole_search-laptop")
    assert "at alpha, once per suggestion" not in text
    assert "once per suggestion, when its seeds reach 25,000 env steps" in text
    assert "stopped when p is under 0.05" in text


def test_the_quickstart_says_which_cells_dropped_and_what_its_batches_held(pages):
    text = pages("example-atari_nk-smoke")
    assert "cannot drop, and none of them did" not in text
    assert (
        "Drops only where the rule allows them: 4 of 4 cells can drop and 3 of them did "
        "(steady-state drop fraction 0.165-0.167)" in text
    )
    assert "train batch per learner 500 (the setting; measured: each batch held 846" in text
    assert "each batch held 816 env steps" in text


# The figures whose lines stand for cells or suggestions, by the start of their alt text.
LINE_FIGURES = ("learning curves", "buffer over time", "each suggestion")


def drawn_figures(example: str, tmp_path, monkeypatch, kinds=LINE_FIGURES) -> dict:
    """alt text -> the matplotlib figure, for every figure of the example's page."""
    from suite.report.presentation import figures

    found = {}
    drawn = figures.encode

    def keep(figure, alt):
        found[alt] = figure
        return figures.Image("data:,", 1, alt)

    import sys

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("suite.") and (
            getattr(module, "encode", None) is drawn
        ):
            monkeypatch.setattr(module, "encode", keep)
    build_report(EXAMPLES / example, tmp_path / "page.html")
    return {alt: figure for alt, figure in found.items() if alt.startswith(kinds)}


@pytest.mark.parametrize(
    "example",
    [
        "example-atari_nk-smoke",
        "example-continuous_nk-laptop-race",
        "example-cartpole_search-laptop",
        "example-aggregation_window-smoke",
    ],
)
def test_every_drawn_line_has_its_own_legend_entry_and_look(example, tmp_path, monkeypatch):
    """The quickstart's wall-time panel drew 4 lines with 1 entry, the race's 6 with 4, the
    buffer diagnostics drew K=1's lines in K=32's colour with one entry per K, and the CartPole
    search's legend covered a point."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    checked = 0
    for alt, figure in drawn_figures(example, tmp_path, monkeypatch).items():
        renderer = FigureCanvasAgg(figure).get_renderer()
        for axis in figure.axes:
            lines = [
                line
                for line in axis.get_lines()
                if len(line.get_xdata()) and line.get_gid() != "reference"
            ]
            if not lines:
                continue
            legend = axis.get_legend()
            assert legend is not None, f"{alt}, {axis.get_title()}: no legend"
            entries = [text.get_text() for text in legend.get_texts()]
            assert len(entries) == len(lines), f"{alt}, {axis.get_title()}: {entries}"
            assert sorted(entries) == sorted(line.get_label() for line in lines)
            looks = {
                (str(line.get_color()), line.get_linestyle(), line.get_marker()) for line in lines
            }
            assert len(looks) == len(lines), f"{alt}, {axis.get_title()}: two lines look alike"
            # outside the axes: a legend inside can cover data (CartPole's suggestion 11)
            box = legend.get_window_extent(renderer)
            assert not box.overlaps(axis.get_window_extent(renderer)), f"{alt}: legend on data"
            checked += 1
    assert checked >= 1


def test_a_race_row_says_what_each_number_compares(pages):
    text = pages("example-continuous_nk-laptop-race")
    assert "P(leader better)" not in text
    assert (
        "N=16, K=32 (5 seeds, IQM -949): kept: its strongest test, N=16, K=4 better than "
        "N=16, K=32, one-sided Welch p = 0.125, is above its Holm limit 0.00167; P(the leader, "
        "N=1, K=1, beats N=16, K=32) 0.60 (95% CI 0.20-1.00)" in text
    )


def test_a_race_that_eliminated_nothing_draws_no_chart_of_equal_bars(pages):
    from suite.report.presentation.race import race_section

    run = load_run(EXAMPLES / "example-continuous_nk-laptop-race")
    assert race_section(run.race, run.trials)["image"] is None
    assert "Every cell raced every rung and spent the same 500,000 env steps" in pages(
        "example-continuous_nk-laptop-race"
    )
    tuned = load_run(EXAMPLES / "example-continuous_nk-laptop_k-race")  # eliminated nothing too
    assert race_section(tuned.race, tuned.trials)["image"] is None


def test_a_colour_bar_is_labelled_at_both_ends_of_its_scale(tmp_path, monkeypatch):
    """The race's staleness bar ran to 5.05 with its top tick labelled 5, under a cell of 5.05."""
    found = drawn_figures(
        "example-continuous_nk-laptop-race", tmp_path, monkeypatch, kinds=("staleness",)
    )
    (figure,) = found.values()
    bar = figure.axes[-1]  # the colour bar's own axes
    labels = [label.get_text() for label in bar.get_yticklabels()]
    assert labels[0] == "0" and labels[-1] == "5.05"


def test_maps_of_one_colour_are_left_out_with_one_line(pages):
    race = pages("example-continuous_nk-laptop-race")
    assert (
        "Not mapped, since every cell would show one colour: reuse, whole run 1 to 1.04 in every "
        "cell (every batch was trained on about once: K never binds)" in race
    )
    quickstart = pages("example-atari_nk-smoke")
    assert "return at budget 0.272 in every cell" in quickstart


def test_the_buffer_table_drops_advice_it_cannot_give_and_says_its_units(pages):
    text = pages("example-atari_nk-smoke")
    assert "No advice for any cell" not in text and "busy s" not in text
    assert "The advice columns are left out: each cell put at most 6 batches" in text
    assert "advice (measured)" not in text and "model's advice" not in text
    assert "learner speed, env steps trained per second of learner work" in text
    assert "drop ±" not in text and "drop fraction ±" not in text
    assert "drop fraction off by 0.294, reuse by 0.128 (absolute)" in text


def test_rllib_counter_on_the_pendulum_race_is_explained_as_minibatch_updates(pages):
    """RLlib ÷ suite = 158-164 there: 10 epochs x 4,080 / 250 minibatches, once per batch."""
    from suite.report.analysis.rllib_counter import rllib_relation
    from suite.report.analysis.trials import prepared_trials

    run = load_run(EXAMPLES / "example-continuous_nk-laptop-race")
    table = rllib_relation(run.iterations, prepared_trials(run))
    assert set(table["matches"]) == {"minibatch updates"}
    assert table["minibatches"].round(2).eq(16.32).all()
    text = pages("example-continuous_nk-laptop-race")
    assert "matching none of" not in text
    assert (
        "RLlib ÷ suite = 158–164. RLlib adds a batch's env steps to its counter on every "
        "minibatch update: 10 epochs × 16.3 minibatches of 250 rows in a 4,080-env-step batch"
        in text
    )


def test_an_older_race_records_rule_is_shown_in_plain_words(pages):
    """run.json's ``estimate`` of the laptop race keeps the plan's old "at alpha 0.05 (Holm)";
    its page's metadata says the rule as the plan says it now."""
    run = load_run(EXAMPLES / "example-continuous_nk-laptop-race")
    assert "eliminating after each rung at alpha 0.05 (Holm)" in run.metadata["estimate"]
    text = pages("example-continuous_nk-laptop-race")
    assert "at alpha" not in text
    assert (
        "eliminating after each rung the cells some other cell beats at the 0.05 level "
        "(one-sided Welch tests, Holm-corrected within the rung)"
    ) in text
