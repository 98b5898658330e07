"""The tuned config library: every config builds and validates without starting Ray."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from suite.configs.registry import UnknownNameError, all_configs, config_for_env, get_config
from suite.configs.resolve import ConfigError, resolve, to_serializable

NAMES = [tuned.name for tuned in all_configs()]


@pytest.mark.parametrize("name", NAMES)
def test_every_config_builds_and_validates(name):
    config = get_config(name).build()
    config.validate()
    assert config.use_circular_buffer
    assert config.circular_buffer_num_batches >= 1
    assert config.circular_buffer_iterations_per_batch >= 1


@pytest.mark.parametrize("name", NAMES)
def test_every_config_documents_env_expectation_hardware_and_source(name):
    tuned = get_config(name)
    doc = tuned.build.__doc__ or ""
    assert tuned.env in doc or tuned.env.removeprefix("ALE/") in doc
    assert "Expect" in doc and "Hardware" in doc
    assert tuned.source and tuned.expected


def test_building_every_config_starts_no_ray():
    # In a fresh interpreter: this test session itself may hold a Ray instance by now.
    code = (
        "import ray\n"
        "from suite.configs.registry import all_configs\n"
        "for tuned in all_configs():\n"
        "    tuned.build().validate()\n"
        "print('ray initialized:', ray.is_initialized())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert "ray initialized: False" in out


def test_builders_are_pure():
    first, second = get_config("pong").build(), get_config("pong").build()
    first.training(lr=1.0)
    assert second.lr != 1.0


def test_atari_configs_use_standard_preprocessing_and_impact_nk():
    for name in ("pong", "breakout", "space_invaders"):
        config = get_config(name).build()
        assert config.env_config["game"].startswith("ALE/")
        assert config.clip_rewards is True
        assert (
            config.circular_buffer_num_batches,
            config.circular_buffer_iterations_per_batch,
        ) == (
            4,
            2,
        )


@pytest.mark.parametrize(
    ("name", "env_class", "vectorize_mode"),
    [
        ("pong", "suite.configs.envs.AleVectorAtariEnv", "vector_entry_point"),
        ("breakout", "suite.configs.envs.AleVectorAtariEnv", "vector_entry_point"),
        ("pong_rllib", "suite.configs.envs.AtariEnv", "sync"),
    ],
)
def test_the_atari_sampler_is_recorded_in_the_resolved_config(name, env_class, vectorize_mode):
    data = to_serializable(resolve(name, {}))
    assert (data["env"], data["gym_env_vectorize_mode"]) == (env_class, vectorize_mode)
    if vectorize_mode == "vector_entry_point":
        assert data["env_config"]["noop_max"] == 30
        assert data["_learner_connector"] == "suite.configs.frames.ale_frames_learner"


def test_continuous_configs_start_from_impact_continuous_setting():
    assert get_config("halfcheetah_rllib").build().circular_buffer_num_batches == 16
    assert get_config("halfcheetah_rllib").build().circular_buffer_iterations_per_batch == 20
    assert get_config("pendulum_rllib").build().circular_buffer_num_batches == 16


def test_layers_apply_in_order_axes_then_overrides():
    config = resolve("cartpole_probed", {"n": 4, "k": 8, "seed": 3}, {"k": 2, "lr": 1e-3})
    assert config.circular_buffer_num_batches == 4
    assert config.circular_buffer_iterations_per_batch == 2  # the command line wins over the axis
    assert config.seed == 3
    assert config.lr == 1e-3


def test_resolved_config_is_json_serialisable():
    data = to_serializable(resolve("pong", {"n": 2, "k": 4}))
    text = json.dumps(data)
    assert json.loads(text)["circular_buffer_num_batches"] == 2
    assert "AtariEnv" in data["env"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"n": 0}, "N (circular_buffer_num_batches) must be a positive integer"),
        ({"k": -1}, "K (circular_buffer_iterations_per_batch) must be a positive integer"),
        ({"k": 2.5}, "K (circular_buffer_iterations_per_batch) must be a positive integer"),
        ({"n": "four"}, "N (circular_buffer_num_batches) must be a positive integer"),
        ({"num_learners": -1}, "num_learners must be an integer >= 0"),
        ({"num_gpus_per_learner": -0.5}, "num_gpus_per_learner must be a number >= 0"),
        ({"learning_rate": 0.1}, "unknown config key 'learning_rate'"),
        ({"clip_param_schedule": [[0, 0.2], [6e4, 0.0]]}, "read by the suite's learner only"),
        (
            {"learner": "suite", "clip_param_schedule": [[100, 0.2], [6e4, 0.0]]},
            "env steps ascending from 0",
        ),
        ({"learner": "suite", "clip_param_schedule": 0.1}, r"must be None or \[\[env_steps"),
        (
            {"learner": "suite", "clip_param_schedule": [[0, 0.2], [6e4, -0.1]]},
            "clips >= 0",
        ),
        ({"normalize_advantages": True}, "normalize_advantages is read by the suite's learner"),
        ({"learner": "suite", "ratio_to_behaviour": 1}, "ratio_to_behaviour must be True or"),
        ({"shuffle_batch_per_epoch": True}, "time-major sequences for V-trace"),
    ],
)
def test_invalid_values_are_refused_with_a_clear_message(overrides, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve("cartpole_probed", {}, overrides)


def test_unknown_names_list_the_known_ones():
    with pytest.raises(UnknownNameError, match=r"Did you mean 'cartpole'.*Known: .*pong"):
        get_config("cartpol")
    with pytest.raises(UnknownNameError, match=r"Known: .*ALE/Pong-v5"):
        config_for_env("Pong-v9")


def test_a_clip_schedule_is_carried_in_learner_config_dict_and_survives_its_overrides():
    linear = [[0, 0.2], [60_000, 0.0]]
    settings = {"learner": "suite", "clip_param_schedule": linear}
    config = resolve("cartpole_probed", {}, settings)
    assert config.learner_config_dict["clip_param_schedule"] == [[0.0, 0.2], [60_000.0, 0.0]]
    # --no-deadlock-guard's learner_config_dict adds to the config's, as RLlib's .learners() does
    config = resolve("cartpole_probed", {}, settings | {"learner_config_dict": {"x": False}})
    assert config.learner_config_dict["clip_param_schedule"] == [[0.0, 0.2], [60_000.0, 0.0]]
    assert config.learner_config_dict["x"] is False
    config = resolve("cartpole_probed", {}, settings | {"clip_param_schedule": None})
    assert config.learner_config_dict["clip_param_schedule"] is None


def test_settings_behind_properties_can_be_overridden():
    config = resolve("cartpole_probed", {}, {"train_batch_size_per_learner": 300})
    assert config.train_batch_size_per_learner == 300


def test_a_promoted_config_builds_its_base_with_its_settings(tmp_path, monkeypatch):
    from suite.configs.promoted import PromotedConfig, write_promoted

    monkeypatch.setenv("SUITE_PROMOTED_DIR", str(tmp_path))
    for name, settings in {"pendulum_good": {"n": 8, "k": 3}, "pendulum_bad": {"nn": 8}}.items():
        base = "pendulum_rllib"
        write_promoted(PromotedConfig(name, base, "Pendulum-v1", settings, "", {}), tmp_path)
    built = get_config("pendulum_good").build()
    assert (built.circular_buffer_num_batches, built.circular_buffer_iterations_per_batch) == (8, 3)
    assert built.lr == get_config("pendulum_rllib").build().lr
    with pytest.raises(ConfigError, match="unknown config key 'nn'"):
        get_config("pendulum_bad").build()


def test_promote_writes_a_decided_cell_without_the_runs_seed_and_sizing(tmp_path, monkeypatch):
    from suite.configs.promote import promote
    from suite.configs.registry import base_of

    monkeypatch.setenv("SUITE_PROMOTED_DIR", str(tmp_path))
    spec = {
        "config_name": "pendulum",
        "axes": {"n": 16, "k": 10, "seed": 3},
        "overrides": {"lr": 1e-4, "min_sample_timesteps_per_iteration": 5000},
    }
    evidence = {"verdict": "leaning", "held_out_seeds": [7, 8]}
    path = promote(spec, env="Pendulum-v1", sweep="search", expected="x", evidence=evidence)
    assert path == tmp_path / "pendulum_search.json"
    record = json.loads(path.read_text())
    # pendulum is a promoted config itself: the new one starts from its base and settings
    base, inherited = base_of("pendulum")
    assert base == record["base"] == "pendulum_rllib"
    assert record["settings"] == inherited | {"n": 16, "k": 10, "lr": 1e-4}
    assert record["evidence"] == evidence
    built = get_config("pendulum_search").build()
    assert built.circular_buffer_iterations_per_batch == 10 and built.lr == 1e-4
    assert (
        built.gamma
        == get_config("pendulum").build().gamma
        != get_config("pendulum_rllib").build().gamma
    )
    with pytest.raises(ValueError, match="tuned config of the library"):
        promote(spec, env="Pendulum-v1", sweep="x", expected="", evidence={}, name="pendulum")


def test_expected_results_are_read_from_their_evidence_not_written_in_code():
    import json
    from pathlib import Path

    record = json.loads(
        (Path(__file__).resolve().parents[1] / "benchmarks" / "raw" / "race.json").read_text()
    )
    cartpole = record["data"]["configs"]["cartpole"]
    found = get_config("cartpole_probed").measured()
    assert found.date == record["measured_at"] and record["machine"] in found.hardware
    assert f"median {cartpole['seconds']['median']:.0f} s" in found.result
    assert found.seeds == str(cartpole["seeds"])
    assert get_config("cartpole_probed").expected == found.result
    baseline = get_config("pendulum_rllib").measured()
    assert baseline.env_steps == "500,000 env steps" and "pendulum_continuous_nk" in baseline.source
    assert "pendulum_search_laptop_suite.json" in get_config("pendulum").measured().source


def test_cartpole_is_the_search_pick_built_on_cartpole_probed():
    from suite.configs.registry import EVIDENCE_BACKED, TUNED_CONFIGS, base_of, library_names

    # One definition per name: an evidence-backed name's library entry is removed, not shadowed.
    assert not {tuned.name for tuned in TUNED_CONFIGS} & set(EVIDENCE_BACKED)
    assert {"cartpole", "cartpole_probed"} <= library_names()
    base, settings = base_of("cartpole")
    assert base == "cartpole_probed"
    built = to_serializable(resolve("cartpole", {}))
    assert built == to_serializable(resolve("cartpole_probed", {}, settings))
    assert built != to_serializable(resolve("cartpole_probed", {}))
    assert "cartpole_search_laptop_suite.json" in get_config("cartpole").measured().source


def test_a_missing_evidence_file_is_said_not_guessed(tmp_path, monkeypatch):
    from suite.configs.evidence import BENCH_RAW_VARIABLE

    monkeypatch.setenv(BENCH_RAW_VARIABLE, str(tmp_path))
    tuned = get_config("cartpole_probed")
    assert tuned.measured() is None
    assert tuned.expected.startswith("see ") and tuned.expected.endswith("that file is missing")
    assert get_config("pong").expected.startswith("not measured by us")


def test_a_ppo_layout_config_reads_its_result_from_row_11(tmp_path, monkeypatch):
    import json

    from suite.configs.evidence import BENCH_RAW_VARIABLE

    monkeypatch.setenv(BENCH_RAW_VARIABLE, str(tmp_path))
    side = {
        "seeds": 5,
        "reached": 4,
        "return_at": {"100000": {"point": -201.4, "low": -260.0, "high": -170.2}},
    }
    data = {
        "seeds": 5,
        "first_seed": 30_000,
        "declared_cpus": {"pendulum_ppo_layout": 2.0},
        "envs": {
            "Pendulum-v1": {"marks": [50_000, 100_000], "sides": {"pendulum_ppo_layout": side}}
        },
    }
    record = {"measured_at": "2026-12-02T17:00:00+00:00", "machine": "vm", "data": data}
    (tmp_path / "peers.json").write_text(json.dumps(record))
    found = get_config("pendulum_ppo_layout").measured()
    assert found.result.startswith("return -201 (IQM, 95% CI -260 to -170) at 100,000 env steps")
    assert "4 of 5 seeds reached -300" in found.result
    assert found.seeds == "5 (from 30000)" and found.hardware == "vm, 2.0 CPUs"
    # A record without this config's side says nothing of it.
    assert get_config("cartpole_ppo_layout").measured() is None
