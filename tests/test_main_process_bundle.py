"""Pre-flight refuses a main process with an empty resource bundle beside env runners or
learners (Tune drops the empty bundle; RLlib then asks for a bundle index that is not there)."""

from __future__ import annotations

import pytest
from ray.rllib.algorithms.appo import APPO

from suite.configs.resolve import ConfigError, resolve
from suite.sweep.planning.catalog import load_sweep

EMPTY_MAIN = {
    "local learner, no CPU for it": {
        "num_learners": 0,
        "num_cpus_for_main_process": 0,
        "num_cpus_per_learner": 0,
    },
    "remote learner, no CPU for the main process": {
        "num_learners": 1,
        "num_cpus_for_main_process": 0,
    },
}


@pytest.mark.parametrize("overrides", EMPTY_MAIN.values(), ids=list(EMPTY_MAIN))
def test_empty_main_process_bundle_is_refused_with_the_fix(overrides):
    # The premise: Tune's own factory sees an empty head bundle it will drop.
    with pytest.raises(ConfigError, match="main process asks for no resources") as refused:
        resolve("cartpole_probed", {}, overrides)
    assert "--set num_cpus_for_main_process=0.1" in str(refused.value)


def test_the_refused_configs_really_get_an_empty_head_bundle():
    config = resolve("cartpole_probed", {}, {"num_learners": 1, "num_cpus_for_main_process": 0.1})
    config.num_cpus_for_main_process = 0  # past validation, as Tune would receive it
    assert APPO.default_resource_request(config).head_bundle_is_empty


@pytest.mark.parametrize(
    "overrides",
    [
        {"num_learners": 0, "num_cpus_for_main_process": 0},  # the local learner's CPU remains
        {"num_learners": 1, "num_cpus_for_main_process": 0.1, "num_cpus_per_learner": 0.9},
        {"num_learners": 0, "num_env_runners": 0, "num_cpus_for_main_process": 1},
    ],
)
def test_a_main_process_with_resources_is_accepted(overrides):
    config = resolve("cartpole_probed", {}, overrides)
    assert not APPO.default_resource_request(config).head_bundle_is_empty


def test_learner_scaling_trials_keep_a_main_process_bundle():
    sweep = load_sweep("learner_scaling")
    for budget in sweep.budgets:
        for spec in sweep.trials(budget):
            config = resolve(spec.config_name, spec.axes, spec.overrides)
            assert not APPO.default_resource_request(config).head_bundle_is_empty, spec.axes
