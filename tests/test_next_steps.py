"""The reports' Next commands are true of the run they follow, and say what they cost.

Issue 33, item 4: the quickstart's smoke page offered ``atari_nk --budget laptop`` for "seeds
enough to compare cells" (it has 1 seed), and the race offered ``--budget full --dry-run`` for
more seeds (the same 5 seeds, 200 trials x 10M env steps, a cluster) where the cells are the same
runs. These tests read the committed stores' first screens and search pages.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from suite.configs.promoted import PROMOTED_DIR_VARIABLE
from suite.report.analysis.next_steps import NO_TRAINING, budget_cost, next_steps
from suite.report.presentation.page import report_context, search_context
from suite.store.reader import load_run

RESULTS = Path(__file__).resolve().parents[1] / "results"
GRIDS = [
    "example-aggregation_window-smoke",
    "example-atari_nk-smoke",
    "example-continuous_nk-laptop-race",
    "example-continuous_nk-laptop_k-race",
    "example-continuous_nk-laptop_k-tuned",
    "example-impact_k-laptop-race",
    "example-impact_k-laptop_cartpole-race",
    "example-minatar_nk-laptop-race",
]
SEARCHES = [
    "example-cartpole_search-laptop",
    "example-halfcheetah_search-laptop",
    "example-pendulum_search-laptop",
    "example-minatar_search-laptop",
    "example-minatar_search-laptop_space_invaders",
]
COST = re.compile(
    r"\d[\d,]* trials? × [\d,]+(?: to [\d,]+)? env steps \([\d,]+ env steps, \d+ seeds? per cell\)"
)


@pytest.fixture(scope="module")
def screens() -> dict:
    return {name: report_context(load_run(RESULTS / name))["first_screen"] for name in GRIDS}


def steps_of(screen: dict) -> list:
    return [screen["next"], *screen["also"]]


@pytest.mark.parametrize("name", GRIDS)
def test_every_next_line_states_its_cost(name, screens):
    for step in steps_of(screens[name]):
        if step.cost == NO_TRAINING:
            assert step.command.startswith(("python -m suite.whatif", "python -m suite."))
            continue
        assert COST.search(step.cost), step.cost
        assert re.search(r"about [\d.]+ (s|min|h|days?)|time unknown", step.cost), step.cost
        assert "CPUs per trial" in step.cost


def test_the_quickstart_points_a_laptop_to_minatar_and_its_next_budget_has_one_seed(screens):
    # issue 34, item 4: the Atari-family run that can answer on one machine, with its cost
    answer = screens["example-atari_nk-smoke"]["next"]
    assert answer.command == "python -m suite.sweep minatar_nk --budget laptop"
    assert "no budget of atari_nk can tell N and K apart on a laptop" in answer.why
    assert re.match(r"at most 40 trials × [\d,]+ to [\d,]+ env steps .* about \d+ min", answer.cost)
    (step,) = [
        s for s in screens["example-atari_nk-smoke"]["also"] if "suite.sweep atari_nk" in s.command
    ]
    assert step.command == "python -m suite.sweep atari_nk --budget laptop --dry-run"
    assert "seeds enough" not in step.why
    assert "1 seed per cell it cannot tell cells' returns apart" in step.why
    assert step.cost.startswith("13 trials × 40,000 env steps (520,000 env steps, 1 seed per cell)")


def test_where_n_and_k_change_nothing_no_line_offers_more_seeds(screens):
    for name in ("example-continuous_nk-laptop-race", "example-continuous_nk-laptop_k-tuned"):
        screen = screens[name]
        assert [block["regime"].kind for block in screen["regimes"]] == ["neither"]
        assert screen["next"].command.startswith("python -m suite.whatif continuous_nk")
        (full,) = [s for s in screen["also"] if "--budget full" in s.command]
        # the full budget: its 5 seeds, its 200 trials x 10M env steps, days here: a cluster
        assert "--address" in full.command and "cannot separate" in full.why
        assert full.cost.startswith("200 trials × 10,000,000 env steps")
        assert "days" in full.cost and "a cluster (--address)" in full.cost


def test_a_leaning_race_repeats_on_fresh_seeds_and_says_its_budget_changed(screens):
    step = screens["example-continuous_nk-laptop_k-race"]["next"]
    seeds = load_run(RESULTS / "example-continuous_nk-laptop_k-race").trials["seed"]
    assert step.command.endswith(f"--first-seed {int(seeds.max()) + 1}")
    assert "has changed since this run" in step.why  # laptop_k ran 500k steps then, 100k now
    assert step.cost.startswith("at most 24 trials × 100,000 env steps")


def test_a_race_whose_budget_changed_does_not_promise_to_settle_its_verdict(screens):
    """The run raced laptop_k as it was (N=16, 500k env steps, RLlib's settings); the command
    runs laptop_k as it is now, whose cost run.json's backfilled ``budgets`` state (its
    ``budgets_note``). The line says that, not "the same budget ... to settle the verdict"."""
    run = load_run(RESULTS / "example-continuous_nk-laptop_k-race")
    assert "describe laptop_k as it is now" in run.metadata["budgets_note"]
    step = screens["example-continuous_nk-laptop_k-race"]["next"]
    assert step.command.startswith("python -m suite.sweep continuous_nk --budget laptop_k ")
    assert "the same budget" not in step.why and "to settle the leaning verdict" not in step.why
    assert step.why.startswith("Budget laptop_k has changed since this run (then: ")
    assert "3 cells x 3 seeds x 500k steps" in step.why  # then
    assert "3 cells x 3 seeds x 100k steps" in step.why  # now: what the command runs
    assert "No budget repeats this run's grid today" in step.why
    assert "a different run, which cannot settle this one's verdict" in step.why
    assert step.cost == budget_cost(run.metadata, "laptop_k")  # today's grid's cost


def test_a_budget_that_did_not_change_is_still_the_same_budget_on_fresh_seeds():
    run = load_run(RESULTS / "example-continuous_nk-laptop_k-race")
    metadata = run.metadata | {"budget": run.metadata["budget"] | {"env_steps": 100_000}}
    step = next_steps(metadata, run.path, [400], {"leaning"}, [], None)[0]
    assert step.why == "the same budget on fresh seeds, to settle the leaning verdict."


def test_a_tie_of_k_cells_that_reused_alike_points_to_a_faster_learner_not_more_seeds(screens):
    # impact_k on Pendulum: K=1 eliminated; K=4 and K=10 tied, both reusing about 3.2 times
    screen = screens["example-impact_k-laptop-race"]
    assert screen["next"].command.startswith("python -m suite.whatif impact_k --budget laptop")
    assert "--learner-speedup 4" in screen["next"].command  # 10 / 3.19, rounded up
    assert "K=4, K=10 reused each batch alike" in screen["next"].why
    assert "expect it to stay a tie" in screen["also"][0].why
    # CartPole's tie (K=1 against K=20, reusing 1 and 4.4) is no such case: more seeds may
    cartpole = screens["example-impact_k-laptop_cartpole-race"]
    assert "more seeds may" in cartpole["next"].why


def test_a_one_seed_budget_is_offered_with_three_seeds_and_their_cost(screens):
    step = screens["example-aggregation_window-smoke"]["next"]
    assert "--seeds 3" in step.command
    assert step.cost.startswith("36 trials × 12,000 env steps (432,000 env steps, 3 seeds")


@pytest.mark.parametrize("name", SEARCHES)
def test_a_search_page_has_its_next_with_the_promotion(name):
    (step,) = search_context(load_run(RESULTS / name))["next_steps"]
    # each of these picks is in the config library already: the page says so, by name
    assert step.command == "python -m suite.configs"
    assert "in the config library already, as" in step.why and "--promote NAME" in step.why
    assert step.cost == NO_TRAINING


def test_a_search_not_promoted_yet_offers_promote(tmp_path, monkeypatch):
    monkeypatch.setenv(PROMOTED_DIR_VARIABLE, str(tmp_path))  # an empty library
    run = load_run(RESULTS / "example-pendulum_search-laptop")
    (step,) = search_context(run)["next_steps"]
    assert step.command == "python -m suite.report results/example-pendulum_search-laptop --promote"
    assert "beats the baseline (pendulum as this search ran it)" in step.why


def test_a_run_without_recorded_budgets_says_its_cost_is_unknown():
    run = load_run(RESULTS / "example-continuous_nk-laptop-race")
    metadata = {key: value for key, value in run.metadata.items() if key != "budgets"}
    assert budget_cost(metadata, "laptop").startswith("cost not recorded")
    steps = next_steps(metadata, run.path, [500], {"leaning"}, [], None)
    assert steps[0].cost.startswith("cost not recorded")


def test_a_budget_beyond_this_machine_needs_a_cluster():
    metadata = {
        "cluster": {"nodes": [{"CPU": 2.0}]},
        "budgets": {
            "full": {
                "trials": 36,
                "env_steps": 180_000_000,
                "env_steps_per_trial": 5_000_000,
                "seeds": 2,
                "cpus_per_trial": 3.0,
                "gpus_per_trial": 1.0,
                "estimated_s": 3600.0,
                "fits_cluster": False,
                "at_most": False,
            }
        },
    }
    text = budget_cost(metadata, "full")
    assert "3 CPUs per trial and 1 GPUs" in text
    assert "more than this machine has, so a cluster (--address)" in text
    assert dataclasses.is_dataclass(next_steps(metadata, Path("r"), [0], {"decisive"}, [])[0])


def test_a_race_says_on_its_first_screen_what_it_eliminated_and_what_is_left(screens):
    from suite.report.presentation.race import race_decided

    text = screens["example-minatar_nk-laptop-race"]["race"]
    assert text.startswith("Eliminated: N=1, K=1, broadcast_interval=20 at rung 1 (IQM 2.29 ")
    assert "N=16, K=4, broadcast_interval=20 at rung 1 (IQM 2.16 against N=1, K=4" in text
    assert "p = 0.00013" in text
    left = text.split("Left after the last rung: ")[1]
    assert set(left.rstrip(".").split("; ")) == {
        "N=1, K=4, broadcast_interval=20",
        "N=16, K=1, broadcast_interval=20",
        "N=4, K=2, broadcast_interval=5",
    }
    assert screens["example-continuous_nk-laptop-race"]["race"].startswith(
        "No cell was eliminated."
    )
    assert screens["example-atari_nk-smoke"]["race"] == race_decided(None, None) == ""


def test_the_minatar_race_names_its_regime_learner_bound_from_its_own_numbers(screens):
    (block,) = screens["example-minatar_nk-laptop-race"]["regimes"]
    found = block["regime"]
    assert found.title == "learner-bound (K binds and N can drop)"
    (line,) = [e for e in found.evidence if e.startswith("Where the learner set the pace")]
    assert "N=16 (B=20) dropped 17%, its batches 9.3 updates stale" in line
