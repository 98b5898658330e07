"""The report says one thing per fact: one reader per number, whatever the store's row order."""

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from suite.bench.synthetic_store import write_synthetic_run
from suite.report import build_report
from suite.report.analysis.rllib_counter import rllib_relation
from suite.report.analysis.trials import prepared_trials, train_batch_per_learner
from suite.store import schema
from suite.store.reader import load_run

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
    small_run, tmp_path, unrendered_figures
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
        r"<tr><td>4</td><td>20</td><td>2</td>(?:<td[^>]*>[^<]*</td>){6}"
        r'<td class="wide">3</td></tr>',
        window,
    )


def test_a_store_without_the_counter_says_so_once_per_section(
    small_run, tmp_path, unrendered_figures
):
    rewrite(small_run, schema.ITERATIONS_FILE, lambda t: t.assign(**{GUARD: float("nan")}))
    page = build_report(small_run, tmp_path / "r.html").read_text()
    hangs = section(page, "reliability")
    assert "predates the deadlock guard&#39;s release counter" in hangs
    assert "never had to release" not in hangs


def test_same_store_in_another_row_order_gives_the_same_page(grid_store, grid_page, tmp_path):
    # grid_store: 3 seeds per cell; grid_page: its page, figures drawn, built once per session
    shuffled = Path(shutil.copytree(grid_store, tmp_path / "run"))
    for index, name in enumerate(
        (schema.TRIALS_FILE, schema.ITERATIONS_FILE, schema.LEARNERS_FILE)
    ):
        rewrite(shuffled, name, lambda t, i=index: t.sample(frac=1.0, random_state=11 + i))
    second = build_report(shuffled, tmp_path / "b.html").read_text()
    # the Next commands name the run's folder, which differs here
    first = without_build_time(grid_page).replace(str(grid_store), "RUN")
    assert first == without_build_time(second).replace(str(shuffled), "RUN")


EXAMPLES = Path(__file__).parents[1] / "results"


def relation_of(example: str) -> pd.DataFrame:
    run = load_run(EXAMPLES / example)
    trials = prepared_trials(run)
    return rllib_relation(run.iterations, trials).join(trials.set_index("trial_id")[["k"]])


def test_rllib_counter_is_one_over_reuse_on_the_pendulum_race():
    table = relation_of("example-continuous_nk-laptop_k-race")
    assert set(table["matches"]) == {"1/reuse"}
    assert table.loc[table["k"] == 1, "ratio"].eq(1.0).all()  # K=1: each batch used once


def test_rllib_counter_counts_every_epoch_on_the_aggregation_window_grid():
    table = relation_of("example-aggregation_window-smoke")
    at_b1 = table[table["broadcast_interval"] == 1]
    assert set(at_b1["matches"]) <= {"x num_epochs", "num_epochs/reuse"}
    assert at_b1["ratio"].between(58, 61).all()  # 60 epochs, not a lag
    assert (table["matches"] == "none").sum() == 2  # N=1 at B=20: too few updates to report


def test_rllib_counter_never_reported_on_the_atari_smoke_and_no_panel_is_drawn(
    tmp_path, unrendered_figures
):
    table = relation_of("example-atari_nk-smoke")
    assert set(table["matches"]) == {"none"} and table["updates"].max() < 20
    page = build_report(EXAMPLES / "example-atari_nk-smoke", tmp_path / "r.html").read_text()
    assert "RLlib / suite env steps trained" not in page
    most = int(table["updates"].max())
    assert f"made at most {most} updates against broadcast_interval 20" in page


@pytest.mark.parametrize(
    ("settings", "learners"),
    [({"train_batch_size_per_learner": 4000}, 0), ({"train_batch_size": 1000}, 2)],
)
def test_the_train_batch_the_report_states_is_the_one_rllib_trains_on(settings, learners):
    """The stored config serialises the per-learner batch as a private field beside the
    old-stack ``train_batch_size`` (500 by default); the report must read RLlib's value."""
    from ray.rllib.algorithms.appo import APPOConfig

    from suite.configs.resolve import to_serializable

    config = APPOConfig().training(**settings).learners(num_learners=learners)
    stored = to_serializable(config)
    assert train_batch_per_learner(stored) == config.train_batch_size_per_learner
