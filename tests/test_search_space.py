"""A search space and schedule are checked where they are declared: each bad input is one
``SpaceError``/``SweepError`` line, and the CLI turns it into exit 2 with nothing written.
No Ray is started."""

from __future__ import annotations

import functools
import textwrap

import pytest
from cli_runs import assert_one_line_error, run_main

from suite.sweep.search import spaces
from suite.sweep.search.checks import check_space, probes
from suite.sweep.search.schedule import Search, most_trials
from suite.sweep.search.space import (
    Choice,
    IntUniform,
    LogUniform,
    SearchSpace,
    SpaceError,
    Uniform,
)
from suite.sweep.spec import Budget, Sweep, SweepError


def _sweep(space: SearchSpace, seeds: int = 3, axes=None, settings=None) -> Sweep:
    return Sweep(
        name="s",
        description="d",
        configs=("pendulum",),
        axes=axes or {},
        settings=settings or {},
        budgets={"b": Budget(4_000, seeds, "d", search=Search(space, suggestions=2))},
    )


@pytest.mark.parametrize(
    ("distribution", "message"),
    [
        (Uniform(1.0, 1.0), "is empty"),
        (Uniform(2.0, 1.0), "is inverted"),
        (LogUniform(0.0, 1.0), "a log range must lie above 0"),
        (LogUniform(-1.0, 1.0), "a log range must lie above 0"),
        (IntUniform(1, 10, log=True), None),
        (IntUniform(0, 10, log=True), "a log range must lie above 0"),
        (IntUniform(1.5, 10), "takes integers"),
        (Choice(), "at least one value"),
        (Choice(1, 1), "lists a value twice"),
    ],
)
def test_each_bad_distribution_is_refused_with_its_reason(distribution, message):
    if message is None:
        SearchSpace({"num_epochs": distribution})
        return
    with pytest.raises(SpaceError, match=message):
        SearchSpace({"num_epochs": distribution})


def test_an_empty_space_and_a_non_distribution_are_refused():
    with pytest.raises(SpaceError, match="at least one setting"):
        SearchSpace({})
    with pytest.raises(SpaceError, match="is not a distribution"):
        SearchSpace({"lr": (1e-4, 1e-3)})


def test_seeds_per_suggestion_below_3_are_refused_at_declaration():
    with pytest.raises(SweepError, match="at least 3 seeds"):
        _sweep(SearchSpace({"lr": LogUniform(1e-4, 1e-3)}), seeds=2)


def test_a_setting_that_a_fixed_axis_or_setting_also_sets_is_refused():
    space = SearchSpace({"circular_buffer_num_batches": Choice(1, 4)})
    with pytest.raises(SweepError, match="the sweep's axis 'n' also sets"):
        _sweep(space, axes={"n": (1, 2)})
    with pytest.raises(SweepError, match="fixed setting 'lr'"):
        _sweep(SearchSpace({"lr": LogUniform(1e-4, 1e-3)}), settings={"lr": 1e-3})


def test_validation_below_its_minimums_is_refused():
    space = SearchSpace({"lr": LogUniform(1e-4, 1e-3)})
    with pytest.raises(SpaceError, match="at least 10 held-out seeds"):
        Search(space, suggestions=3, validate_seeds=5)
    with pytest.raises(SpaceError, match="validate_top must be at least 3"):
        Search(space, suggestions=3, validate_top=2)


def test_unknown_settings_and_combinations_rllib_refuses_are_caught_before_a_run():
    with pytest.raises(SpaceError, match="unknown config key 'lrr'"):
        check_space("pendulum", SearchSpace({"lrr": Uniform(0.1, 0.2)}), {}, {})
    with pytest.raises(SpaceError, match=r"unknown model setting model\.width"):
        check_space("pendulum", SearchSpace({"model.width": Choice(64)}), {}, {})
    tied = SearchSpace({"minibatch_size": Choice(100, 75)})  # rollout fragments are 50 steps
    with pytest.raises(
        SpaceError, match=r"minibatch_size=75.*multiple of `rollout_fragment_length`"
    ):
        check_space("pendulum", tied, {}, {})


def test_probes_cover_every_combination_of_rllibs_tied_choices():
    space = SearchSpace(
        {
            "minibatch_size": Choice(100, 250),
            "train_batch_size_per_learner": Choice(500, 1000, 2000),
            "lr": LogUniform(1e-4, 1e-3),
        }
    )
    found = {(p["minibatch_size"], p["train_batch_size_per_learner"]) for p in probes(space)}
    assert len(found) == 6
    assert all(p["lr"] == 1e-4 for p in probes(space))


@pytest.mark.parametrize(
    ("config", "space"),
    [
        ("pendulum", spaces.classic_continuous()),
        ("cartpole", spaces.cartpole()),
        ("halfcheetah", spaces.mujoco()),
        ("pong", spaces.atari()),
    ],
)
def test_every_shipped_space_passes_rllibs_checks_on_its_config(config, space):
    check_space(config, space, {}, {})


def test_choice_values_round_trip_through_optunas_labels():
    choice = Choice([64, 64], [256, 256], "tanh", True, None)
    for value in choice.values:
        label = choice.as_optuna().choices[choice.values.index(value)]
        assert choice.value(label) == value


def test_the_worst_case_counts_every_seed_and_the_validation():
    search = Search(SearchSpace({"lr": LogUniform(1e-4, 1e-3)}), suggestions=10)
    assert most_trials(search, seeds=3) == 10 * 3 + (3 + 1) * 10


def test_the_cli_refuses_a_bad_space_and_too_few_seeds_in_one_line_writing_nothing(
    tmp_path, monkeypatch, capsys
):
    # in this process: tests/test_cli_errors.py runs the sweep command's exit code and one-line
    # error as a real subprocess; these errors are raised before the run folder would be made
    monkeypatch.chdir(tmp_path)
    sweep_file = tmp_path / "bad_search.py"
    sweep_file.write_text(
        textwrap.dedent(
            """
            from suite.sweep.search.schedule import Search
            from suite.sweep.search.space import LogUniform, SearchSpace
            from suite.sweep.spec import Budget, Sweep

            SWEEP = Sweep(
                name="bad_search", description="d", configs=("pendulum",), axes={},
                budgets={"smoke": Budget(4000, 3, "d", search=Search(
                    SearchSpace({"lr": LogUniform(0.0, 1e-3)}), suggestions=2))},
            )
            """
        )
    )
    results = tmp_path / "results"
    for args, message in (
        ((str(sweep_file),), "a log range must lie above 0"),
        (("pendulum_search", "--seeds", "2"), "at least 3 seeds"),
        (("pendulum_search", "--set", "lr=0.001"), "which --set 'lr' also sets"),
    ):
        done = run_main(
            capsys, "suite.sweep", *args, "--results-dir", str(results), "--wandb", "off"
        )
        assert_one_line_error(done, message)
    assert not results.exists()
    assert [path.name for path in tmp_path.iterdir()] == ["bad_search.py"]


def test_a_first_suggestion_is_checked_against_the_space_and_asked_before_sampling():
    from suite.sweep.search.suggester import OptunaSuggester

    space = SearchSpace({"lr": LogUniform(1e-4, 1e-2), "model.fcnet_hiddens": Choice([64, 64])})
    first = {"lr": 1e-3, "model.fcnet_hiddens": [64, 64]}
    suggester = OptunaSuggester(space, seed=0, startup_suggestions=2, first=(first,))
    assert suggester.ask() == (0, first)
    assert suggester.ask()[1]["lr"] != 1e-3  # then the sampler
    with pytest.raises(SpaceError, match=r"lr=0\.5 lies outside log-uniform"):
        Search(space, suggestions=2, first=({"lr": 0.5, "model.fcnet_hiddens": [64, 64]},))
    with pytest.raises(SpaceError, match=r"missing \['model.fcnet_hiddens'\]"):
        Search(space, suggestions=2, first=({"lr": 1e-3},))


def test_the_objective_option_replaces_the_searchs_and_the_run_record_keeps_it(tmp_path):
    from suite.sweep.driver.run_record import search_schedule
    from suite.sweep.options import SweepOptions
    from suite.sweep.planning.catalog import load_sweep
    from suite.sweep.planning.plan import plan_sweep
    from suite.sweep.planning.resources import Cluster

    sweep = load_sweep("pendulum_search")
    two_cores = Cluster(({"CPU": 2.0, "GPU": 0.0},))
    default = plan_sweep(sweep, SweepOptions(budget="laptop", results_dir=tmp_path), two_cores)
    assert default.search.objective == "return"
    options = SweepOptions(budget="laptop", results_dir=tmp_path, objective="time-to-threshold")
    timed = plan_sweep(sweep, options, two_cores)
    assert timed.search.objective == "time-to-threshold"
    assert timed.search.space == default.search.space  # only the objective moved
    recorded = search_schedule(timed)
    assert recorded["objective"] == "time-to-threshold" and recorded["max_trial_s"] == 180.0
    assert "scored by wall time to the threshold -300" in timed.estimate_line()


def test_a_suggestion_with_the_configs_own_settings_is_recognised_as_the_config_itself():
    """pendulum was promoted from rl-zoo3's layout without what only the suite's learner reads:
    asked again, that suggestion would rerun the config on the same held-out seeds."""
    from suite.configs.resolve import resolve
    from suite.sweep.driver.runner import _as_read, _same_as_config
    from suite.sweep.planning.catalog import load_sweep

    sweep = load_sweep("sweeps/pendulum_search.py")
    first, second = sweep.budget("laptop").search.first[:2]
    off = {"normalize_advantages": False, "ratio_to_behaviour": False}
    as_promoted = first | off | {"shuffle_batch_per_epoch": False}
    where = ("pendulum", {"seed": 0}, dict(sweep.settings))
    same = functools.partial(_same_as_config, _as_read(resolve(*where)), *where)
    assert same(as_promoted)
    assert not same(first)  # SB3's normalisation, ratio and shuffled minibatches
    assert not same(as_promoted | {"lr": 2e-3})
    assert not same(second)  # 32 envs per env runner
