"""Sweep definitions, grid expansion and planning: pure, no training, no Ray."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from suite.configs.registry import UnknownNameError
from suite.sweep.options import SweepOptions
from suite.sweep.planning.catalog import load_sweep, sweep_names
from suite.sweep.planning.estimate import (
    MEASURED_SOURCE,
    TRIAL_STARTUP_S,
    measured_rates,
    measured_steps_per_s,
    sweep_seconds,
    trial_estimate,
)
from suite.sweep.planning.iterations import iteration_settings
from suite.sweep.planning.plan import PreflightError, check_schedulable, plan_sweep
from suite.sweep.planning.resources import Cluster, concurrent_trials, missing_resources
from suite.sweep.spec import Budget, Sweep, SweepError

TWO_CORES = Cluster(({"CPU": 2.0, "GPU": 0.0},))


def budget(name: str, results_dir: Path, **options) -> SweepOptions:
    """``python -m suite.sweep SWEEP --budget NAME --results-dir RESULTS_DIR`` and ``options``."""
    return SweepOptions(budget=name, results_dir=results_dir, **options)


def test_catalog_lists_the_shipped_sweeps():
    assert {"atari_nk", "cartpole_nk", "learner_scaling", "continuous_nk"} <= set(sweep_names())


def test_unknown_sweep_suggests_the_closest_name():
    with pytest.raises(UnknownNameError, match="Did you mean 'atari_nk'"):
        load_sweep("atari_kn")


def test_atari_nk_full_grid_is_games_by_n_by_k_by_seeds_plus_a_baseline():
    sweep = load_sweep("atari_nk")
    trials = sweep.trials("full")
    assert len(trials) == 3 * (5 * 4 + 1) * 5
    cells = {(t.env, t.axes["n"], t.axes["k"], t.axes["broadcast_interval"]) for t in trials}
    assert len(cells) == 3 * 21
    assert {t.axes["n"] for t in trials} == {1, 2, 4, 8, 16}
    assert {t.axes["k"] for t in trials} == {1, 2, 4, 8}
    # the grid above the largest N, so N can matter; pong_appo.py's own 5 as the baseline
    assert {t.axes["broadcast_interval"] for t in trials} == {20, 5}
    baseline = [t.axes for t in trials if t.axes["broadcast_interval"] == 5]
    assert {(a["n"], a["k"]) for a in baseline} == {(4, 2)}
    assert {t.env for t in trials} == {"ALE/Pong-v5", "ALE/Breakout-v5", "ALE/SpaceInvaders-v5"}


def test_budgets_thin_the_grid_and_change_steps_never_axis_meaning():
    sweep = load_sweep("cartpole_nk")
    smoke, full = sweep.trials("smoke"), sweep.trials("full")
    assert {t.axes["n"] for t in smoke} <= {t.axes["n"] for t in full}
    assert set(smoke[0].axes) == set(full[0].axes)
    assert sweep.budget("smoke").env_steps < sweep.budget("laptop").env_steps
    assert sweep.budget("laptop").env_steps < sweep.budget("full").env_steps


def test_smoke_budgets_keep_their_trial_counts_without_the_baselines():
    assert len(load_sweep("cartpole_nk").trials("smoke")) == 4
    assert len(load_sweep("atari_nk").trials("smoke")) == 8
    assert len(load_sweep("cartpole_nk").trials("laptop")) == (9 + 1) * 2


def test_a_baseline_must_set_every_axis():
    with pytest.raises(SweepError, match="must set exactly the sweep's axes"):
        Sweep("bad", "", ("cartpole_probed",), {"n": (1, 2), "k": (1,)}, {}, baselines=({"n": 4},))


def _own_cell_sweep(configs: tuple[str, ...], **budget) -> Sweep:
    grid = {"n": (2, 8), "k": (1,), "broadcast_interval": (20,)}
    return Sweep(
        "own", "", configs, grid, {"b": Budget(100, 1, "", **budget)}, configs_own_cell=True
    )


def test_each_config_runs_its_own_cell_read_off_its_resolved_config():
    sweep = _own_cell_sweep(("cartpole_probed", "minatar_breakout"))
    cells = {}
    for trial in sweep.trials("b"):
        cells.setdefault(trial.config_name, []).append(
            (trial.axes["n"], trial.axes["k"], trial.axes["broadcast_interval"])
        )
    # the grid, then each config's own N, K and broadcast_interval (its library values)
    assert cells["cartpole_probed"] == [(2, 1, 20), (8, 1, 20), (1, 2, 1)]
    assert cells["minatar_breakout"] == [(2, 1, 20), (8, 1, 20), (16, 2, 5)]


def test_a_budget_without_baselines_leaves_the_configs_own_cell_out():
    sweep = _own_cell_sweep(("cartpole_probed",), with_baselines=False)
    assert [t.axes["n"] for t in sweep.trials("b")] == [2, 8]


def test_the_nk_sweeps_baseline_is_the_config_a_user_gets():
    from suite.configs.axes import axis_values
    from suite.configs.resolve import configured

    for name, budget_name in (("cartpole_nk", "laptop"), ("atari_nk", "laptop")):
        sweep = load_sweep(name)
        trials = sweep.trials(budget_name)
        for config_name in {t.config_name for t in trials}:
            own = axis_values(configured(config_name, {}, dict(sweep.settings)))
            cell = {axis: own[axis] for axis in sweep.axes}
            assert any(
                {axis: t.axes[axis] for axis in sweep.axes} == cell
                for t in trials
                if t.config_name == config_name
            )


def test_a_baseline_already_in_the_grid_runs_once():
    sweep = Sweep(
        "twice",
        "",
        ("cartpole_probed",),
        {"n": (1, 2)},
        {"smoke": Budget(100, 1, "")},
        baselines=({"n": 2},),
    )
    assert [t.axes["n"] for t in sweep.trials("smoke")] == [1, 2]


def test_dry_run_says_per_cell_whether_drops_are_possible(tmp_path):
    plan = plan_sweep(load_sweep("cartpole_nk"), budget("laptop", tmp_path), TWO_CORES)
    labels = {trial.buffer_cell: trial.drops.label for trial in plan.trials}
    assert labels[(1, 1, 20)] == "yes, B=20 > N+1"
    assert labels[(1, 2, 20)] == "yes, rate-dependent"
    # the baseline, the tuned config's own cell: with K=10 its drops depend on the rates
    assert labels[(4, 10, 1)] == "yes, rate-dependent"
    assert plan.drop_warnings() == []  # the grid's cells can drop: N can matter


def test_aggregation_window_grid_has_cells_on_both_sides_of_the_rule(tmp_path):
    plan = plan_sweep(load_sweep("aggregation_window"), budget("smoke", tmp_path), TWO_CORES)
    assert len(plan.trials) == 12
    cannot = {trial.buffer_cell for trial in plan.trials if not trial.drops.possible}
    assert cannot == {(1, 1, 1), (8, 1, 1), (8, 1, 5)}


def test_dry_run_warns_when_n_varies_but_no_cell_can_drop(tmp_path):
    options = budget("smoke", tmp_path, set=("broadcast_interval=1", "k=1"))
    plan = plan_sweep(load_sweep("cartpole_nk"), options, TWO_CORES)
    assert {trial.drops.label for trial in plan.trials} == {"no, B <= N"}
    assert plan.drop_warnings() == [
        "cartpole_probed: N cannot change drops here: broadcast_interval <= N with K=1"
    ]


def test_dry_run_says_which_trials_cannot_broadcast_weights(tmp_path):
    # the quickstart: 6,000 env steps of 500-step batches at broadcast_interval 20; K=1 cells
    # make at most 12 updates, K=2 cells up to 24 (RLlib's own count may still fall short)
    plan = plan_sweep(load_sweep("atari_nk"), budget("smoke", tmp_path), TWO_CORES)
    lines = plan.broadcast_warnings()
    assert lines and all("K=1: at most 12 learner updates" in line for line in lines), lines
    assert all("fewer than broadcast_interval 20" in line for line in lines)
    laptop = plan_sweep(load_sweep("cartpole_nk"), budget("laptop", tmp_path), TWO_CORES)
    assert laptop.broadcast_warnings() == []


def test_seeds_and_overrides_reach_every_trial():
    trials = load_sweep("cartpole_nk").trials("smoke", seeds=3, overrides={"lr": 0.001})
    assert sorted({t.axes["seed"] for t in trials}) == [0, 1, 2]
    assert all(t.overrides["lr"] == 0.001 for t in trials)


def test_sweep_settings_apply_to_all_trials():
    trials = load_sweep("learner_scaling").trials("smoke")
    assert all(t.overrides["num_cpus_for_main_process"] == 0.1 for t in trials)


def test_a_budget_may_not_add_values_to_an_axis():
    with pytest.raises(SweepError, match="not in the sweep's grid"):
        Sweep(
            "bad",
            "",
            ("cartpole_probed",),
            {"n": (1, 2)},
            {"smoke": Budget(100, 1, "", axis_values={"n": (3,)})},
        )


def test_unknown_axis_and_budget_are_refused():
    with pytest.raises(SweepError, match="unknown axes"):
        Sweep("bad", "", ("cartpole_probed",), {"batch": (1,)}, {})
    with pytest.raises(UnknownNameError, match="Known: full, laptop, smoke"):
        load_sweep("cartpole_nk").trials("huge")


def test_dry_run_plan_shows_resources_concurrency_and_estimate(tmp_path):
    plan = plan_sweep(load_sweep("atari_nk"), budget("smoke", tmp_path), TWO_CORES)
    assert len(plan.trials) == 8
    first = plan.trials[0]
    assert first.request.totals == {"CPU": 2.0}
    assert first.request.roles == ("main process", "env runner")
    assert plan.concurrency == 1
    assert 0 < plan.total_seconds < 3600
    assert "8 trials x 6,000 env steps, 1 at once" in plan.estimate_line()


def test_full_atari_sweep_on_a_laptop_says_it_is_far_beyond_the_machine(tmp_path):
    plan = plan_sweep(load_sweep("atari_nk"), budget("full", tmp_path), TWO_CORES)
    assert "far beyond this machine" in plan.estimate_line()


def test_preflight_refuses_gpu_trials_on_a_cpu_only_cluster_naming_them(tmp_path):
    # a fixed trial order: the message names the first few refused trials, in run order
    plan = plan_sweep(
        load_sweep("learner_scaling"), budget("full", tmp_path), TWO_CORES, order_seed=0
    )
    with pytest.raises(PreflightError) as refused:
        check_schedulable(plan)
    message = str(refused.value)
    assert "GPU" in message and "can never be scheduled" in message
    assert "_G0.5_" in message  # the trial labels name the GPU share
    assert "\n" not in message


def test_gpu_trials_plan_when_gpus_are_declared(tmp_path):
    gpu_cluster = Cluster(({"CPU": 8.0, "GPU": 4.0},))
    plan = plan_sweep(load_sweep("learner_scaling"), budget("full", tmp_path), gpu_cluster)
    gpu_trials = [t for t in plan.trials if t.config.num_gpus_per_learner > 0]
    assert gpu_trials and not any(missing_resources(t.request, gpu_cluster) for t in gpu_trials)
    four_learners = [t for t in gpu_trials if t.config.num_learners == 4]
    four_half = next(t for t in four_learners if t.config.num_gpus_per_learner == 0.5)
    assert four_half.request.totals["GPU"] == 2.0


def test_concurrency_is_first_fit_over_nodes():
    from suite.sweep.planning.resources import ResourceRequest

    one_cpu = ResourceRequest(({"CPU": 1.0},), ("main process",), "PACK")
    two_nodes = Cluster(({"CPU": 2.0}, {"CPU": 1.0}))
    assert concurrent_trials([one_cpu] * 5, two_nodes) == 3
    split = ResourceRequest(({"CPU": 1.0}, {"CPU": 2.0}), ("main process", "learner"), "PACK")
    assert concurrent_trials([split] * 2, two_nodes) == 1


def test_estimates_come_from_measured_rates_and_fill_slots():
    rate = measured_steps_per_s("pong")
    estimate = trial_estimate("pong", 1, int(rate * 100), {})
    assert estimate.seconds == pytest.approx(TRIAL_STARTUP_S + 100.0)
    assert trial_estimate("pong", 1, 1000, {"pong": 100.0}).seconds == TRIAL_STARTUP_S + 10.0
    assert math.isnan(trial_estimate("halfcheetah", 1, 1000, {}).seconds)
    assert sweep_seconds([10, 10, 10, 10], 2) == 20
    assert sweep_seconds([30, 10, 10, 10], 2) == 30


def test_a_running_sweeps_trial_that_has_not_stepped_yet_gives_no_rate(tmp_path):
    """A dry run beside a running sweep read its first trials' 0 env steps/s and divided by it."""
    import pandas as pd

    from suite.store.schema import TRIALS_FILE

    run = tmp_path / "pendulum_search" / "20260101-000000-abcdef"
    run.mkdir(parents=True)
    rows = {"config_name": ["pendulum"] * 3, "num_env_runners": [1] * 3}
    pd.DataFrame(rows | {"mean_env_steps_per_s": [0.0, 0.0, 300.0]}).to_parquet(run / TRIALS_FILE)
    assert measured_rates(tmp_path) == {"pendulum": 300.0}


def test_measured_rates_are_read_from_the_benchmark_records(tmp_path, monkeypatch):
    import json

    from suite.configs.evidence import BENCH_RAW_VARIABLE

    record = {"data": {"configs": {"pong": {"sampled": {"median": 250.0}}}}}
    (tmp_path / "atari.json").write_text(json.dumps(record))
    monkeypatch.setenv(BENCH_RAW_VARIABLE, str(tmp_path))
    assert measured_steps_per_s("breakout") == 250.0  # Pong's rate, from row 3's record
    estimate = trial_estimate("pong", 1, 2_500, {})
    assert estimate.seconds == pytest.approx(TRIAL_STARTUP_S + 10.0)
    with pytest.warns(UserWarning, match="no wall-time estimate for cartpole_probed: .*race.json"):
        missing = trial_estimate("cartpole_probed", 1, 1000, {})  # no race.json here
    assert math.isnan(missing.seconds)
    assert missing.source == "no measured throughput: " + str(tmp_path / "race.json") + (
        " (data.configs.cartpole.env_steps_per_s.median) is missing"
    )
    # A record from before the config joined its row: no estimate, the missing key named.
    (tmp_path / "peers.json").write_text(json.dumps({"data": {"envs": {"Pendulum-v1": {}}}}))
    with pytest.warns(UserWarning, match="no wall-time estimate for pendulum: .*'sides'"):
        assert measured_steps_per_s("pendulum") is None
    with pytest.warns(UserWarning):
        lacking = trial_estimate("pendulum", 1, 1000, {})
    assert math.isnan(lacking.seconds) and "'sides' is not there" in lacking.source


def test_a_config_without_a_bench_row_is_estimated_from_its_committed_example_store():
    import pandas as pd

    from suite.sweep.planning.estimate import MEASURED_STEPS_PER_S

    where = MEASURED_STEPS_PER_S["minatar_breakout_base"]
    trials = pd.read_parquet(where.path)
    median = trials.loc[trials["config_name"] == "minatar_breakout_base", "mean_env_steps_per_s"]
    assert measured_steps_per_s("minatar_breakout_base") == pytest.approx(median.median())
    estimate = trial_estimate("minatar_breakout_base", 1, 100_000, {})
    assert estimate.source == MEASURED_SOURCE
    assert estimate.seconds == pytest.approx(TRIAL_STARTUP_S + 100_000 / median.median())


def test_a_search_base_is_estimated_from_its_own_trials_in_the_search_store_not_its_picks():
    import pandas as pd

    from suite.sweep.planning.estimate import MEASURED_STEPS_PER_S

    where = MEASURED_STEPS_PER_S["minatar_space_invaders_base"]
    trials = pd.read_parquet(where.path)
    assert trials["suggestion"].nunique() > 1  # the picks share the base's config_name
    base = trials.loc[trials["suggestion"] == 0, "mean_env_steps_per_s"].median()
    assert measured_steps_per_s("minatar_space_invaders_base") == pytest.approx(base)
    assert base != pytest.approx(trials["mean_env_steps_per_s"].median())
    assert "suggestion 0" in where.describe()


def test_env_steps_option_replaces_the_budgets_steps_in_the_plan(capsys):
    from suite.sweep.driver.cli import main

    assert main(["cartpole_nk", "--dry-run", "--env-steps", "12345", "--wandb", "off"]) == 0
    out = capsys.readouterr().out
    assert "4 trials x 12,345 env steps" in out


USER_SWEEP = """
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="my_cartpole",
    description="a user's own sweep, kept outside the package",
    configs=("cartpole_probed",),
    axes={"n": (1, 2), "k": (1,)},
    budgets={"smoke": Budget(env_steps=1_000, seeds=1, description="tiny")},
)
"""


def test_a_sweep_file_outside_the_package_runs_by_path(tmp_path, capsys):
    from suite.sweep.driver.cli import main

    path = tmp_path / "elsewhere" / "my_sweep.py"
    path.parent.mkdir()
    path.write_text(USER_SWEEP)
    assert main([str(path), "--dry-run", "--wandb", "off"]) == 0
    assert "my_cartpole (smoke): 2 trials" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "words"),
    [(None, "does not exist"), ("X = 1\n", "must define SWEEP")],
    ids=["missing", "no SWEEP"],
)
def test_a_bad_sweep_file_is_one_line(tmp_path, capsys, content, words):
    from suite.sweep.driver.cli import main

    path = tmp_path / "my_sweep.py"
    if content is not None:
        path.write_text(content)
    assert main([str(path), "--dry-run", "--wandb", "off"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err


def test_trial_order_is_shuffled_by_a_recorded_seed(tmp_path):
    sweep = load_sweep("atari_nk")
    grid = [spec.label() for spec in sweep.trials("smoke", None, None)]
    orders = {
        seed: [
            t.spec.label()
            for t in plan_sweep(sweep, budget("smoke", tmp_path), TWO_CORES, order_seed=seed).trials
        ]
        for seed in range(6)
    }
    assert all(sorted(order) == sorted(grid) for order in orders.values())  # nothing lost
    assert orders[3] == [
        t.spec.label()
        for t in plan_sweep(sweep, budget("smoke", tmp_path), TWO_CORES, order_seed=3).trials
    ]  # the seed fixes the order
    assert len({tuple(order) for order in orders.values()}) > 1  # and the seed matters
    assert plan_sweep(sweep, budget("smoke", tmp_path), TWO_CORES, order_seed=3).order_seed == 3


def test_iterations_are_sized_to_a_twentyfifth_of_the_budget(tmp_path):
    plan = plan_sweep(load_sweep("continuous_nk"), budget("smoke", tmp_path), TWO_CORES)
    config = plan.trials[0].config
    assert config.min_time_s_per_iteration == 0  # the 2 s floor made 4,000-step trials run 18,000
    assert config.min_sample_timesteps_per_iteration == 4_000 // 25
    timed = Budget(2_000_000, 1, "", max_trial_s=20.0)  # benchmarks keep time-based iterations
    assert iteration_settings(timed) == {}
    options = budget("smoke", tmp_path, set=("min_time_s_per_iteration=5.0",))
    user = plan_sweep(load_sweep("continuous_nk"), options, TWO_CORES)
    assert user.trials[0].config.min_time_s_per_iteration == 5.0  # the user's --set wins


def test_a_race_plan_says_its_elimination_rule_in_plain_words(tmp_path):
    """Not "at alpha 0.05 (Holm)" (issue 33 lists "at alpha" as jargon): the level, the test
    and where Holm's correction applies, as suite.stats.elimination does it."""
    plan = plan_sweep(load_sweep("continuous_nk"), budget("laptop_k", tmp_path), TWO_CORES)
    line = plan.estimate_line()
    assert "at alpha" not in line
    assert (
        "eliminating after each rung the cells some other cell beats at the 0.05 level "
        "(one-sided Welch tests, Holm-corrected within the rung)"
    ) in line


def test_the_main_job_names_the_sweep_that_answers_it_on_one_machine_with_its_cost():
    from suite.sweep.driver.tables import laptop_answer_lines
    from suite.sweep.planning.costs import laptop_answer_cost

    answer = laptop_answer_cost(load_sweep("atari_nk"), TWO_CORES)
    assert (answer["sweep"], answer["budget"]) == ("minatar_nk", "laptop")
    minatar = plan_sweep(load_sweep("minatar_nk"), SweepOptions(budget="laptop"), TWO_CORES)
    assert answer["cost"]["trials"] == minatar.race.most_trials(len(minatar.race_cells))
    assert answer["cost"]["fits_cluster"] and answer["cost"]["at_most"]
    why, command = laptop_answer_lines(answer)
    assert why.startswith("On one machine: ALE games learn only at cluster scale")
    assert command.startswith("  python -m suite.sweep minatar_nk --budget laptop      # at most")
    assert laptop_answer_cost(load_sweep("cartpole_nk"), TWO_CORES) is None
    assert laptop_answer_lines(None) == []


@pytest.mark.parametrize(
    ("objective", "said", "not_said"),
    [
        ("return", "the return at the budget's env steps", "early stop: none"),
        ("time-to-threshold", "thresholds reached per hour", "stopped when its returns"),
    ],
)
def test_a_search_dry_run_says_the_score_and_stop_of_the_objective_asked(
    tmp_path, capsys, objective, said, not_said
):
    from suite.sweep.driver.cli import main

    argv = ["pendulum_search", "--budget", "laptop", "--dry-run", "--wandb", "off"]
    argv += ["--results-dir", str(tmp_path)]
    assert main([*argv, "--objective", objective]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich folds long lines
    assert f"Score: the mean over the suggestion's seeds of {said}" in out
    assert not_said not in out


def test_a_grid_without_a_measured_rate_says_its_time_is_unknown_not_about_unknown(tmp_path):
    unmeasured = Sweep(
        name="halfcheetah_alone",
        description="HalfCheetah, whose rate no record holds",
        configs=("halfcheetah",),
        axes={},
        budgets={"walk": Budget(env_steps=100_000, seeds=2, description="2 seeds")},
    )
    line = plan_sweep(unmeasured, budget("walk", tmp_path), TWO_CORES).estimate_line()
    assert line.endswith("time unknown (no measured throughput for this config)")
    assert "about unknown" not in line


@pytest.mark.parametrize("walk", ["pendulum_tuned_walk", "cartpole_tuned_walk"])
def test_a_promoted_config_run_by_its_own_name_takes_the_rate_of_the_name_resting_on_it(
    walk, tmp_path
):
    """The tuned walks run the promoted config by its name; row 11 measures it as the library
    name (``pendulum``, ``cartpole``) that rests on it. Their dry runs said "time unknown"."""
    from suite.configs.registry import EVIDENCE_BACKED

    plan = plan_sweep(load_sweep(f"sweeps/{walk}.py"), budget("walk", tmp_path), TWO_CORES)
    (config_name,) = {trial.spec.config_name for trial in plan.trials}
    (library_name,) = [name for name, rests in EVIDENCE_BACKED.items() if rests == config_name]
    assert measured_steps_per_s(config_name) == measured_steps_per_s(library_name) > 0
    assert "time unknown" not in plan.estimate_line()
