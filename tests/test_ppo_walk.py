"""The walks of rows 13, 19 and 21 to 30: each step differs from its base as its label says."""

from __future__ import annotations

import math

import pytest

from suite.bench import ppo_walk
from suite.configs.resolve import resolve, to_serializable
from suite.sweep.options import parse_overrides
from suite.sweep.planning.catalog import load_sweep


def appo_config(walk: ppo_walk.Walk, key: str) -> dict:
    step = next(step for step in walk.steps if step.key == key)
    sweep = load_sweep(ppo_walk.sweep_of(walk, step)[0])
    (config_name,) = sweep.configs
    return to_serializable(resolve(config_name, {}, parse_overrides(step.sets)))


def changed_keys(config: dict, other: dict) -> set[str]:
    return {key for key in config.keys() | other.keys() if config.get(key) != other.get(key)}


def test_cartpoles_appo_steps_differ_in_lr_and_the_clip_schedule_only():
    constant = appo_config(ppo_walk.CARTPOLE, "suite-constant")
    linear = appo_config(ppo_walk.CARTPOLE, "suite-linear")
    differing = changed_keys(constant, linear)
    assert differing == {"lr", "learner_config_dict"}
    assert constant["lr"] == 0.001
    assert constant["learner_config_dict"]["clip_param_schedule"] is None
    end = ppo_walk.CARTPOLE.run_env_steps  # where SB3's linear schedules reach 0 (its -n)
    assert linear["lr"] == [[0, 0.001], [end, 0.0]]
    assert linear["learner_config_dict"]["clip_param_schedule"] == [[0, 0.2], [end, 0.0]]


def test_cartpoles_normalized_step_adds_advantage_normalisation_only():
    constant = appo_config(ppo_walk.CARTPOLE, "suite-constant")
    normalized = appo_config(ppo_walk.CARTPOLE, "suite-constant-normalized")
    differing = changed_keys(constant, normalized)
    assert differing == {"learner_config_dict"}
    added = normalized["learner_config_dict"].items() - constant["learner_config_dict"].items()
    assert added == {("normalize_advantages", True)}


def test_cartpoles_sb3_steps_differ_in_the_replaced_schedules_only():
    shipped, constant = (step.zoo for step in ppo_walk.CARTPOLE.steps[:2])
    assert shipped.hyperparams == ()
    assert constant.hyperparams == ("learning_rate:0.001", "clip_range:0.2")
    assert (shipped.conf_file, shipped.gym_packages) == (constant.conf_file, constant.gym_packages)


@pytest.mark.parametrize("walk", ppo_walk.WALKS)
def test_every_walk_runs_its_sweeps_walk_budget_past_its_mark(walk):
    for step in walk.steps:
        if step.zoo is None:
            sweep_file, sweep_name = ppo_walk.sweep_of(walk, step)
            sweep = load_sweep(sweep_file)
            assert sweep.name == sweep_name
            assert sweep.budget(ppo_walk.BUDGET).env_steps == walk.run_env_steps >= walk.mark


def test_the_pendulum_configs_walk_runs_the_two_configs_the_library_names():
    walk = ppo_walk.PENDULUM_CONFIGS
    tuned, layout = appo_config(walk, "tuned"), appo_config(walk, "layout")
    assert tuned == to_serializable(resolve("pendulum", {}, {}))
    assert layout == to_serializable(resolve("pendulum_ppo_layout", {}, {}))


@pytest.mark.parametrize("walk", ppo_walk.WALKS)
def test_every_base_is_an_earlier_step_on_the_same_side(walk):
    earlier: dict[str, ppo_walk.Step] = {}
    for step in walk.steps:
        if step.base is not None:
            assert (earlier[step.base].zoo is None) == (step.zoo is None)
        earlier[step.key] = step


def test_a_step_is_compared_with_its_base_by_a_two_sided_welch_test():
    low, high = [10.0, 12.0, 11.0, 13.0, 9.0], [20.0, 22.0, 21.0, 19.0, 23.0]
    assert ppo_walk.compared(high, low, "`b`") == "mean above `b`'s, p = 8.5e-06"
    assert ppo_walk.compared(low, high, "`b`") == "mean below `b`'s, p = 8.5e-06"
    assert ppo_walk.compared([500.0] * 5, [500.0] * 5, "`b`") == "the same as `b` on every seed"
    assert ppo_walk.compared([1.0], low, "`b`") == "too few seeds to compare with `b`"


def test_the_rendered_walk_names_each_steps_base():
    data = {
        "env": "CartPole-v1",
        "mark": 50_000,
        "threshold": 475.0,
        "seeds": [7, 8],
        "steps": {
            step.key: {
                "label": step.label,
                "base": step.base,
                "returns": {"7": 100.0 + i, "8": 300.0 + 2 * i},
                "iqm": {"point": 1.0, "low": 0.0, "high": 2.0},
                "seconds_at_mark": {"median": 1.0},
                "seconds_to_threshold": {"median": math.inf},
                "reached": 0,
            }
            for i, step in enumerate(ppo_walk.CARTPOLE.steps)
        },
    }
    lines = ppo_walk.render(data)
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| step |")]
    bases = [step.base for step in ppo_walk.CARTPOLE.steps]
    for row, base in zip(rows, bases, strict=True):
        assert (f"`{base}`'s, p = " in row) if base else "| - |" in row
        assert "| not reached | 0 of 2 |" in row


def test_a_walk_read_at_an_early_mark_too_compares_each_step_there_as_well():
    walk = ppo_walk.PENDULUM_TUNED
    late, early = {"7": -200.0, "8": -210.0, "9": -190.0}, {"7": -900.0, "8": -950.0, "9": -990.0}
    steps = {}
    for i, step in enumerate(walk.steps):
        shift = 500.0 * i  # the shuffled step far ahead at the early mark only
        steps[step.key] = {
            "label": step.label,
            "base": step.base,
            "returns": late,
            "iqm": {"point": -200.0, "low": -210.0, "high": -190.0},
            "seconds_at_mark": {"median": 50.0},
            "seconds_to_threshold": {"median": 40.0 - i},
            "reached": 3,
            "early": {
                "returns": {seed: value + shift for seed, value in early.items()},
                "iqm": {"point": -950.0 + shift, "low": -990.0 + shift, "high": -900.0 + shift},
            },
        }
    data = {"env": walk.env, "mark": walk.mark, "early_mark": walk.early_mark, "seeds": [7, 8, 9]}
    lines = ppo_walk.render(data | {"threshold": walk.threshold, "steps": steps})
    at_early = lines[lines.index("The same runs at 50,000 env steps:") :]
    (shuffled,) = [line for line in at_early if line.startswith("| ... with minibatches")]
    assert "| -450 [-490, -400] | mean above `tuned`'s, p = " in shuffled
    (late_row,) = [line for line in lines[: len(lines) - len(at_early)] if "| ... with" in line]
    assert "`tuned`'s, p = 1 | 50 | 39 | 3 of 3 |" in late_row  # level at the late mark


def test_cartpoles_entropy_step_adds_the_entropy_bonus_only():
    ratio = appo_config(ppo_walk.CARTPOLE, "suite-constant-ppo-ratio")
    entropy = appo_config(ppo_walk.CARTPOLE, "suite-ppo-ratio-entropy")
    differing = changed_keys(ratio, entropy)
    assert differing == {"entropy_coeff"}
    assert (ratio["entropy_coeff"], entropy["entropy_coeff"]) == (0.0, 0.01)


def test_a_seed_without_a_return_at_the_mark_is_left_out_of_the_comparison():
    base = {"returns": {"7": 10.0, "8": 12.0, "9": 11.0}}
    step = {"returns": {"7": 20.0, "8": 22.0, "9": None}}
    expected = ppo_walk.compared([20.0, 22.0], [10.0, 12.0], "`b`")
    assert ppo_walk._against(step, base, "b") == expected


def test_cartpoles_lag_step_changes_the_broadcast_interval_and_the_buffers_capacity_only():
    ratio = appo_config(ppo_walk.CARTPOLE, "suite-constant-ppo-ratio")
    lag = appo_config(ppo_walk.CARTPOLE, "suite-ppo-ratio-lag")
    differing = changed_keys(ratio, lag)
    assert differing == {"broadcast_interval", "circular_buffer_num_batches"}
    assert (lag["broadcast_interval"], lag["circular_buffer_num_batches"]) == (2, 2)
    assert lag["circular_buffer_iterations_per_batch"] == 1  # K=1: no drop while B <= N


@pytest.mark.parametrize("key", ["suite-16envs", "suite-32envs"])
def test_the_sampler_walks_steps_change_the_envs_per_env_runner_only(key):
    base = appo_config(ppo_walk.PENDULUM_SAMPLER, "suite-4envs")
    more = appo_config(ppo_walk.PENDULUM_SAMPLER, key)
    assert changed_keys(base, more) == {"num_envs_per_env_runner"}
    assert base["num_envs_per_env_runner"] == 4  # rl-zoo3's
    assert more["_train_batch_size_per_learner"] == base["_train_batch_size_per_learner"] == 4096


def test_a_record_is_rendered_with_its_own_bases_not_the_codes():
    # a walk no longer defined, or redefined since: its record alone says what each step changed
    step = {
        "iqm": {"point": 1.0, "low": 0.0, "high": 2.0},
        "seconds_at_mark": {"median": 1.0},
        "seconds_to_threshold": {"median": 1.0},
        "reached": 2,
    }
    data = {
        "walk": "bench-a-walk-since-removed",
        "env": "CartPole-v1",
        "mark": 50_000,
        "early_mark": None,
        "threshold": 475.0,
        "seeds": [7, 8],
        "steps": {
            "a": step | {"label": "A", "base": None, "returns": {"7": 1.0, "8": 2.0}},
            "b": step | {"label": "B", "base": "a", "returns": {"7": 3.0, "8": 5.0}},
        },
    }
    rows = [line for line in ppo_walk.render(data) if line.startswith(("| A |", "| B |"))]
    assert "| - |" in rows[0] and "mean above `a`'s, p = " in rows[1]


@pytest.mark.parametrize("walk", [ppo_walk.PENDULUM_INIT, ppo_walk.CARTPOLE_INIT])
def test_the_init_walks_step_switches_on_sb3s_initialisation_only(walk):
    layout, initialised = appo_config(walk, "layout"), appo_config(walk, "sb3-init")
    assert changed_keys(layout, initialised) == {"learner_config_dict"}
    assert initialised["learner_config_dict"] == layout["learner_config_dict"] | {"sb3_init": True}


@pytest.mark.parametrize("walk", [ppo_walk.PENDULUM_IN_PROCESS, ppo_walk.CARTPOLE_IN_PROCESS])
def test_the_in_process_walks_step_removes_the_env_runner_actor_only(walk):
    tuned, in_process = appo_config(walk, "tuned"), appo_config(walk, "in-process")
    assert changed_keys(tuned, in_process) == {"num_env_runners"}
    assert (tuned["num_env_runners"], in_process["num_env_runners"]) == (1, 0)


@pytest.mark.parametrize(
    ("key", "changed"),
    [
        ("k1", {"circular_buffer_iterations_per_batch": 1}),
        ("no-entropy", {"entropy_coeff": 0.0}),
        ("no-filter", {"_env_to_module_connector": None}),  # MeanStdFilter's connector gone
    ],
)
def test_the_tuned_cartpole_walks_steps_take_one_setting_back(key, changed):
    tuned = appo_config(ppo_walk.CARTPOLE_TUNED, "tuned")
    step = appo_config(ppo_walk.CARTPOLE_TUNED, key)
    assert changed_keys(tuned, step) == set(changed)
    assert {name: step[name] for name in changed} == changed


def test_the_tuned_cartpole_walks_network_and_ratio_steps_change_only_those():
    tuned = appo_config(ppo_walk.CARTPOLE_TUNED, "tuned")
    tanh = appo_config(ppo_walk.CARTPOLE_TUNED, "tanh64")
    ratio = appo_config(ppo_walk.CARTPOLE_TUNED, "impact-ratio")
    assert changed_keys(tuned, tanh) == {"_model_config"}
    model = "fcnet_hiddens=[{}], fcnet_activation='{}'"  # the resolved model config, as text
    assert model.format("256, 256", "relu") in tuned["_model_config"]
    assert tanh["_model_config"] == tuned["_model_config"].replace(
        model.format("256, 256", "relu"), model.format("64, 64", "tanh")
    )
    assert changed_keys(tuned, ratio) == {"learner_config_dict"}
    assert ratio["learner_config_dict"]["ratio_to_behaviour"] is False
    assert tuned["learner_config_dict"]["ratio_to_behaviour"] is True


@pytest.mark.parametrize(
    ("key", "changed"),
    [
        ("suite-normalized", {"normalize_advantages": True}),
        ("suite-ppo-ratio", {"ratio_to_behaviour": True}),
    ],
)
def test_the_early_pendulum_walks_learner_steps_switch_one_learner_setting(key, changed):
    base = appo_config(ppo_walk.PENDULUM_EARLY, "suite")
    step = appo_config(ppo_walk.PENDULUM_EARLY, key)
    assert changed_keys(base, step) == {"learner_config_dict"}
    assert step["learner_config_dict"] == base["learner_config_dict"] | changed


def test_the_early_pendulum_walks_noise_step_samples_the_torque_itself():
    base = appo_config(ppo_walk.PENDULUM_EARLY, "suite")
    raw = appo_config(ppo_walk.PENDULUM_EARLY, "suite-raw-actions")
    assert changed_keys(base, raw) == {"normalize_actions"}
    assert raw["normalize_actions"] is False and raw["clip_actions"] is False  # the env clips
    assert base["_model_config"] == raw["_model_config"]
    assert "free_log_std=True" in base["_model_config"]  # a log std that starts at 0, as SB3's


def test_the_early_pendulum_walks_sb3_steps_take_away_gsde_then_the_normalisation():
    steps = {step.key: step for step in ppo_walk.PENDULUM_EARLY.steps}
    assert steps["sb3-no-sde"].zoo.hyperparams == ("use_sde:False",)
    assert steps["sb3-no-sde-no-norm"].zoo.hyperparams == (
        *steps["sb3-no-sde"].zoo.hyperparams,
        "normalize_advantage:False",
    )
    assert steps["sb3-no-sde-no-norm"].base == "sb3-no-sde"


def test_the_early_pendulum_walks_shuffled_step_permutes_the_minibatches_only():
    base = appo_config(ppo_walk.PENDULUM_EARLY, "suite")
    shuffled = appo_config(ppo_walk.PENDULUM_EARLY, "suite-shuffled")
    assert changed_keys(base, shuffled) == {"shuffle_batch_per_epoch"}
    assert base["shuffle_batch_per_epoch"] is False and shuffled["shuffle_batch_per_epoch"] is True


def test_the_early_pendulum_walks_sb3_like_step_is_the_three_steps_together():
    base = appo_config(ppo_walk.PENDULUM_EARLY, "suite")
    together = appo_config(ppo_walk.PENDULUM_EARLY, "suite-sb3-like")
    assert changed_keys(base, together) == {"learner_config_dict", "shuffle_batch_per_epoch"}
    switches = {"normalize_advantages": True, "ratio_to_behaviour": True}
    assert together["learner_config_dict"] == base["learner_config_dict"] | switches
    assert together["shuffle_batch_per_epoch"] is True
