"""run.json's ``budgets`` and ``configs_own``: what each budget would cost, planned without
training, and the configs' own N and K (``suite.sweep.planning.costs``)."""

from __future__ import annotations

from suite.sweep.options import SweepOptions
from suite.sweep.planning.catalog import load_sweep
from suite.sweep.planning.costs import budget_costs, configs_own
from suite.sweep.planning.plan import plan_sweep
from suite.sweep.planning.resources import Cluster

TWO_CORES = Cluster(({"CPU": 2.0, "GPU": 0.0},))


def test_every_budget_is_costed_as_it_would_run_here():
    sweep = load_sweep("continuous_nk")
    costs = budget_costs(sweep, SweepOptions(name="continuous_nk", budget="smoke"), TWO_CORES)
    assert set(costs) == set(sweep.budgets)
    # a race: at most 6 cells x 5 seeds (3, then 2 more) x 100k env steps
    laptop = costs["laptop"]
    assert (laptop["trials"], laptop["env_steps"], laptop["at_most"]) == (30, 3_000_000, True)
    assert laptop["env_steps_per_trial"] == 100_000 and laptop["seeds"] == 5
    # the full grid: 2 envs x 20 cells x 5 seeds x 10M env steps, 2 CPUs per trial
    full = costs["full"]
    assert (full["trials"], full["env_steps"], full["at_most"]) == (200, 2_000_000_000, False)
    assert full["cpus_per_trial"] == 2.0 and full["fits_cluster"]
    assert full["estimated_s"] is None  # HalfCheetah has no measured throughput


def test_a_budget_that_needs_gpus_does_not_fit_two_cores():
    sweep = load_sweep("learner_scaling")
    full = budget_costs(sweep, SweepOptions(name="learner_scaling"), TWO_CORES)["full"]
    assert full["gpus_per_trial"] >= 1 and not full["fits_cluster"]


def test_the_configs_own_n_and_k_are_the_config_before_the_sweeps_axes():
    sweep = load_sweep("continuous_nk")
    plan = plan_sweep(sweep, SweepOptions(name="continuous_nk", budget="laptop"), TWO_CORES)
    own = configs_own(plan)
    assert own == {
        "pendulum": {"n": 1, "k": 1, "broadcast_interval": 1, "train_batch_size_per_learner": 4000}
    }
