"""The suite's APPO learner (``suite.learner``) against RLlib's and an independent V-trace.

What is meant to equal RLlib's (the loss, its gradients, clipping, Adam, the logged loss terms) is
compared with RLlib 2.60's ``APPOTorchLearner`` on one fixed batch of real Pendulum chunks, with
RLlib's V-trace handed the same targets; what is meant to differ (V-trace along each chunk, its
bootstrap row masked, lambda read) is compared with V-trace written from its definition.
"""

from __future__ import annotations

import copy
import math

import gymnasium as gym
import numpy as np
import pytest
import torch
from ray.rllib.algorithms.appo import APPOConfig
from ray.rllib.algorithms.appo.torch import appo_torch_learner
from ray.rllib.algorithms.impala.torch.vtrace_torch_v2 import make_time_major, vtrace_torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.learner.learner import ENTROPY_KEY, POLICY_LOSS_KEY, VF_LOSS_KEY, Learner
from ray.rllib.core.learner.torch.torch_learner import TorchLearner
from ray.rllib.core.learner.training_data import TrainingData
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.policy.sample_batch import DEFAULT_POLICY_ID, SampleBatch
from ray.rllib.utils.metrics import NUM_ENV_STEPS_SAMPLED_LIFETIME
from ray.rllib.utils.schedules.piecewise_schedule import PiecewiseSchedule

from suite.configs.settings import apply_settings
from suite.configs.suite_settings import SuiteSettingError, apply_suite_settings, learner_name
from suite.learner.appo import (
    ADVANTAGES,
    CLIP_PARAM_KEY,
    CLIP_SCHEDULE,
    TARGET_LOGP,
    VALUE_TARGETS,
    SuiteAPPOTorchLearner,
    scheduled_value,
)
from suite.learner.minibatches import IndexMinibatches
from suite.learner.vtrace import chunk_layout, vtrace_per_chunk

CHUNK_STEPS = 40  # Pendulum's 200-step episodes cut into whole chunks
CHUNKS = 10
MID = DEFAULT_POLICY_ID


def vtrace_by_definition(chunks, *, gamma, lambda_, clip_rho, clip_pg_rho):
    """V-trace written out from Espeholt et al. (2018), eq. 1, as an explicit sum per chunk:
    ``vs_t = V_t + sum_{s>=t} gamma^(s-t) (prod_{t<=i<s} c_i) rho_s delta_s``."""
    targets, advantages = [], []
    for chunk in chunks:
        rhos = np.exp(chunk["target_logp"] - chunk["behaviour_logp"])
        values = np.append(chunk["values"], chunk["bootstrap_value"])
        discounts = gamma * (1.0 - chunk["terminateds"])
        deltas = np.minimum(rhos, clip_rho) * (
            chunk["rewards"] + discounts * values[1:] - values[:-1]
        )
        traces = lambda_ * np.minimum(rhos, 1.0)
        steps = len(rhos)
        vs = np.empty(steps + 1)
        vs[steps] = values[steps]
        for t in range(steps):
            total, weight = 0.0, 1.0
            for s in range(t, steps):
                total += weight * deltas[s]
                weight *= discounts[s] * traces[s]
            vs[t] = values[t] + total
        targets.append(vs[:-1])
        advantages.append(
            np.minimum(rhos, clip_pg_rho) * (chunk["rewards"] + discounts * vs[1:] - values[:-1])
        )
    return np.concatenate(targets), np.concatenate(advantages)


def random_chunks(rng, lengths, terminal_chunks=()):
    chunks = []
    for index, steps in enumerate(lengths):
        terminateds = np.zeros(steps)
        if index in terminal_chunks:
            terminateds[-1] = 1.0
        chunks.append(
            {
                "behaviour_logp": rng.normal(size=steps) * 0.3,
                "target_logp": rng.normal(size=steps) * 0.3,
                "rewards": rng.normal(size=steps),
                "values": rng.normal(size=steps),
                "bootstrap_value": rng.normal(),
                "terminateds": terminateds,
            }
        )
    return chunks


def flat_batch(chunks):
    """Chunks laid end to end as RLlib's learner connector lays them: each ends with a masked
    bootstrap row holding the value of the state after the chunk's last step."""

    def column(real, bootstrap):
        parts = [np.append(chunk[real], bootstrap(chunk)) for chunk in chunks]
        return torch.tensor(np.concatenate(parts))

    return {
        "behaviour_logp": column("behaviour_logp", lambda chunk: 0.0),
        "target_logp": column("target_logp", lambda chunk: 0.0),
        "rewards": column("rewards", lambda chunk: 0.0),
        "values": column("values", lambda chunk: chunk["bootstrap_value"]),
        "terminateds": column("terminateds", lambda chunk: 0.0),
        "loss_mask": column("values", lambda chunk: np.nan).isfinite(),
    }


@pytest.mark.parametrize("lambda_", [1.0, 0.9])
def test_vtrace_per_chunk_matches_the_definition(lambda_):
    rng = np.random.default_rng(0)
    chunks = random_chunks(rng, [5, 1, 12, 7], terminal_chunks=(1, 3))
    batch = flat_batch(chunks)
    clips = {"clip_rho": 1.0, "clip_pg_rho": 1.0}
    vs, advantages = vtrace_per_chunk(
        layout=chunk_layout(batch["loss_mask"]), gamma=0.95, lambda_=lambda_, **clips, **batch
    )
    expected_vs, expected_advantages = vtrace_by_definition(
        chunks, gamma=0.95, lambda_=lambda_, **clips
    )
    real = batch["loss_mask"]
    np.testing.assert_allclose(vs[real].numpy(), expected_vs, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(advantages[real].numpy(), expected_advantages, atol=1e-10)
    assert torch.all(advantages[~real] == 0) and torch.equal(vs[~real], batch["values"][~real])


def test_vtrace_per_chunk_equals_rllibs_vtrace_given_each_chunks_bootstrap_value():
    """RLlib's own V-trace, called on whole chunks with the right bootstrap values, is the same
    computation: only how RLlib's APPO loss feeds it differs (benchmarks/repro)."""
    rng = np.random.default_rng(1)
    chunks = random_chunks(rng, [9] * 4, terminal_chunks=(2,))
    batch = flat_batch(chunks)
    vs, advantages = vtrace_per_chunk(
        layout=chunk_layout(batch["loss_mask"]), gamma=0.9, clip_rho=1.0, clip_pg_rho=1.0, **batch
    )

    def time_major(key):
        return torch.tensor(np.stack([chunk[key] for chunk in chunks], axis=1))

    rllib_vs, rllib_advantages = vtrace_torch(
        target_action_log_probs=time_major("target_logp"),
        behaviour_action_log_probs=time_major("behaviour_logp"),
        discounts=0.9 * (1.0 - time_major("terminateds")),
        rewards=time_major("rewards"),
        values=time_major("values"),
        bootstrap_values=torch.tensor([chunk["bootstrap_value"] for chunk in chunks]),
        clip_rho_threshold=1.0,
        clip_pg_rho_threshold=1.0,
    )
    real = batch["loss_mask"]
    torch.testing.assert_close(vs[real], rllib_vs.T.reshape(-1))
    torch.testing.assert_close(advantages[real], rllib_advantages.T.reshape(-1))


def test_a_batch_without_bootstrap_rows_is_refused():
    with pytest.raises(ValueError, match="bootstrap row"):
        chunk_layout(torch.tensor([True, True, False, True]))


def test_minibatches_cover_every_real_row_once_per_epoch():
    rows = 10
    columns = {MID: {"x": torch.arange(rows)}}
    minibatches = IndexMinibatches(
        columns,
        env_steps=123,
        num_epochs=3,
        minibatch_size=4,
        shuffle=True,
        num_total=0,
        generator=torch.Generator().manual_seed(0),
    )
    drawn = list(minibatches)
    assert minibatches.count == len(drawn) == 9  # 3 epochs of ceil(10 / 4)
    assert all(batch.env_steps() == 123 for batch in drawn)
    epochs = [torch.cat([b.policy_batches[MID]["x"] for b in drawn[i : i + 3]]) for i in (0, 3, 6)]
    for epoch in epochs:
        assert sorted(epoch.tolist()) == list(range(rows))
    assert not torch.equal(epochs[0], epochs[1])  # a new permutation each epoch


def test_minibatches_follow_num_total_when_set():
    columns = {MID: {"x": torch.arange(10)}}
    minibatches = IndexMinibatches(
        columns,
        env_steps=10,
        num_epochs=1,
        minibatch_size=4,
        shuffle=False,
        num_total=7,
        generator=torch.Generator(),
    )
    drawn = [b.policy_batches[MID]["x"].tolist() for b in minibatches]
    assert len(drawn) == 7
    assert drawn[:4] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9], [0, 1, 2, 3]]


def test_the_learner_setting_selects_the_learner_class():
    config = apply_suite_settings(APPOConfig(), {"learner": "suite"})
    assert config.learner_class is SuiteAPPOTorchLearner
    with pytest.raises(SuiteSettingError, match="learner must be one of rllib, suite"):
        apply_suite_settings(APPOConfig(), {"learner": "mine"})


def test_a_configs_learner_is_named_back():
    assert learner_name(APPOConfig()) == "rllib"
    assert learner_name(apply_suite_settings(APPOConfig(), {"learner": "suite"})) == "suite"
    assert learner_name(apply_suite_settings(APPOConfig(), {"learner": "rllib"})) == "rllib"


# --- against RLlib's learner, on one batch of real Pendulum chunks ---------------------------


def pendulum_config(*, rollout_fragment_length, learner_class=None) -> APPOConfig:
    config = (
        APPOConfig()
        .framework("torch")
        .environment("Pendulum-v1")
        .env_runners(
            num_env_runners=0,
            num_envs_per_env_runner=1,
            rollout_fragment_length=rollout_fragment_length,
        )
        .training(
            train_batch_size_per_learner=CHUNK_STEPS * CHUNKS,
            use_circular_buffer=True,
            use_kl_loss=True,
            grad_clip=0.5,
            grad_clip_by="global_norm",
            lambda_=1.0,  # RLlib's V-trace has no lambda: compare like with like
        )
        .debugging(seed=3)
    )
    return config.learners(learner_class=learner_class) if learner_class else config


@pytest.fixture(scope="module")
def chunked_episodes():
    """10 chunks of 40 real steps: with their bootstrap rows, 41 rows each, so RLlib's
    time-major layout (fragments of 41 rows) puts one whole chunk in each column."""
    runner = SingleAgentEnvRunner(config=pendulum_config(rollout_fragment_length=CHUNK_STEPS))
    try:
        return [
            episode
            for _ in range(CHUNKS)
            for episode in runner.sample(num_timesteps=CHUNK_STEPS, random_actions=False)
        ]
    finally:
        runner.stop()


def built_learners():
    """RLlib's learner and the suite's, with the same perturbed weights (so the target network
    and the behaviour policy differ from the policy trained, and the IS ratios are not 1)."""
    env = gym.make("Pendulum-v1")
    frag = CHUNK_STEPS + 1
    rllib = pendulum_config(rollout_fragment_length=frag).build_learner(env=env)
    suite = pendulum_config(
        rollout_fragment_length=frag, learner_class=SuiteAPPOTorchLearner
    ).build_learner(env=env)
    generator = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for param in rllib.module[MID].parameters():
            param.add_(0.2 * torch.randn(param.shape, generator=generator))
    suite.set_state(rllib.get_state())
    return rllib, suite


def batch_of(learner, episodes):
    """The learner connector's train batch. It changes the episodes it reads (it appends the
    bootstrap step to them), so it gets a copy."""
    return learner._make_batch_if_necessary(TrainingData(episodes=copy.deepcopy(episodes)))


@pytest.fixture
def rllib_fed_suite_targets(monkeypatch):
    """RLlib's APPO loss with its V-trace call answered by the suite's targets for the batch."""
    fed = {}

    def suite_targets(**_):
        return (
            make_time_major(fed[VALUE_TARGETS], trajectory_len=CHUNK_STEPS + 1),
            make_time_major(fed[ADVANTAGES], trajectory_len=CHUNK_STEPS + 1),
        )

    monkeypatch.setattr(appo_torch_learner, "vtrace_torch", suite_targets)
    return fed


def full_batch_targets(suite, batch):
    """The suite's V-trace for every row of ``batch``, as its learner computes it once per batch
    (checked against the definition above)."""
    targets = suite.batch_targets(MID, batch)
    return {VALUE_TARGETS: targets[VALUE_TARGETS], ADVANTAGES: targets[ADVANTAGES]}


def clone(grads):
    return {ref: None if grad is None else grad.clone() for ref, grad in grads.items()}


def assert_same_gradients(suite, suite_grads, rllib, rllib_grads, stage):
    rllib_by_name = dict(rllib.module[MID].named_parameters())
    for name, param in suite.module[MID].named_parameters():
        expected = rllib_grads.get(rllib_by_name[name])
        if expected is None:
            assert suite_grads.get(param) is None, f"{stage} {name}"
            continue
        # float32 sums in another order: a tolerance on the gradient's own scale
        scale = float(expected.abs().max())
        torch.testing.assert_close(
            suite_grads[param], expected, rtol=1e-5, atol=1e-6 * scale, msg=f"{stage} {name}"
        )


def test_loss_gradients_and_logged_terms_equal_rllibs(chunked_episodes, rllib_fed_suite_targets):
    rllib, suite = built_learners()
    batch = batch_of(rllib, chunked_episodes).policy_batches[MID]
    rllib_fed_suite_targets.update(full_batch_targets(suite, batch))
    config = rllib.config.get_config_for_module(MID)

    rllib_loss = rllib.compute_loss_for_module(
        module_id=MID, config=config, batch=batch, fwd_out=rllib.module[MID].forward_train(batch)
    )
    suite_rows = SampleBatch(suite._rows_with_targets(MID, batch))
    suite_loss = suite.compute_loss_for_module(
        module_id=MID,
        config=config,
        batch=suite_rows,
        fwd_out=suite.module[MID].forward_train(suite_rows),
    )
    torch.testing.assert_close(suite_loss, rllib_loss)
    rllib_grads = rllib.compute_gradients({MID: rllib_loss})
    suite_grads = suite.compute_gradients({MID: suite_loss})
    assert_same_gradients(suite, clone(suite_grads), rllib, clone(rllib_grads), "computed")
    # Global-norm clipping to grad_clip 0.5, from a norm of ~10^4.
    rllib_grads = rllib.postprocess_gradients(rllib_grads)
    suite_grads = suite.postprocess_gradients(suite_grads)
    assert_same_gradients(suite, suite_grads, rllib, rllib_grads, "clipped")

    logged = rllib.metrics.reduce()[MID]
    kept = {key: value for (_, key), value in suite._last_minibatch_metrics.items()}
    for key in (POLICY_LOSS_KEY, VF_LOSS_KEY, ENTROPY_KEY, "mean_kl_loss", "mean_IS", "var_IS"):
        # float32 terms, reduced in another order: float32's tolerance, not float64's (as Python
        # floats, assert_close would ask for 1e-7; mean_IS was 2e-7 apart on a fresh install)
        torch.testing.assert_close(
            kept[key].detach().float(), torch.tensor(float(logged[key])), msg=key
        )


def test_one_update_leaves_the_same_weights_as_rllibs(chunked_episodes, rllib_fed_suite_targets):
    """Loss, global-norm clipping and Adam end to end: one update on the whole batch."""
    rllib, suite = built_learners()
    batch = batch_of(rllib, chunked_episodes)
    rllib_fed_suite_targets.update(full_batch_targets(suite, batch.policy_batches[MID]))
    # As APPO's learner thread calls it: RLlib's base update, synchronously.
    rllib_results = Learner.update(rllib, batch=batch, timesteps={})
    suite_results = Learner.update(suite, batch=batch_of(suite, chunked_episodes), timesteps={})
    rllib_params = dict(rllib.module[MID].named_parameters())
    for name, param in suite.module[MID].named_parameters():
        torch.testing.assert_close(param, rllib_params[name], msg=name)
    for key in (POLICY_LOSS_KEY, VF_LOSS_KEY, "gradients_default_optimizer_global_norm"):
        torch.testing.assert_close(
            float(suite_results[MID][key]), float(rllib_results[MID][key]), msg=key
        )


# --- the clip's schedule (rl-zoo3's linear clip), which RLlib 2.60's APPO does not have -------


def test_a_scheduled_value_is_rllibs_piecewise_schedule():
    schedule = [[0, 0.2], [40_000, 0.1], [60_000, 0.0]]
    rllib = PiecewiseSchedule(schedule, outside_value=schedule[-1][-1], framework=None)
    for env_steps in (0, 1, 20_000, 40_000, 45_000, 59_999, 60_000, 90_000):
        assert scheduled_value(schedule, env_steps) == pytest.approx(rllib.value(env_steps))


def suite_learner(env, state, settings) -> SuiteAPPOTorchLearner:
    """The suite's learner with ``settings`` (APPO's or the suite's) and the state ``state`` (its
    optimizer's too); None: as built."""
    config = pendulum_config(
        rollout_fragment_length=CHUNK_STEPS + 1, learner_class=SuiteAPPOTorchLearner
    )
    learner = apply_settings(config, settings).build_learner(env=env)
    if state is not None:
        learner.set_state(state)
    return learner


def loss_on_rows(learner, rows):
    """The learner's loss on ``rows`` (real rows with the once-per-batch targets)."""
    return learner.compute_loss_for_module(
        module_id=MID,
        config=learner.config.get_config_for_module(MID),
        batch=rows,
        fwd_out=learner.module[MID].forward_train(rows),
    )


def suite_loss(learner, batch):
    return loss_on_rows(learner, SampleBatch(learner._rows_with_targets(MID, batch)))


def test_the_clip_follows_its_schedule_over_sampled_env_steps(chunked_episodes):
    """At 45,000 of [[0, 0.2], [60000, 0]] env steps the loss is the loss at clip_param 0.05."""
    rllib, _ = built_learners()  # the perturbed weights: ratios away from 1, so the clip bites
    env, state = gym.make("Pendulum-v1"), rllib.get_state()
    scheduled = suite_learner(env, state, {CLIP_SCHEDULE: [[0, 0.2], [60_000, 0.0]]})
    at_start = suite_learner(env, state, {"clip_param": 0.2})
    expected = suite_learner(env, state, {"clip_param": 0.05})
    batch = batch_of(expected, chunked_episodes).policy_batches[MID]

    scheduled.before_gradient_based_update(timesteps={NUM_ENV_STEPS_SAMPLED_LIFETIME: 45_000})
    torch.testing.assert_close(suite_loss(scheduled, batch), suite_loss(expected, batch))
    assert not torch.allclose(suite_loss(at_start, batch), suite_loss(expected, batch))
    assert float(scheduled.metrics.reduce()[MID][CLIP_PARAM_KEY]) == pytest.approx(0.05)
    # Without the schedule nothing is logged and the config's clip_param holds.
    at_start.before_gradient_based_update(timesteps={NUM_ENV_STEPS_SAMPLED_LIFETIME: 45_000})
    assert CLIP_PARAM_KEY not in at_start.metrics.reduce().get(MID, {})


def test_a_scheduled_learning_rate_trains_and_follows_sampled_env_steps(chunked_episodes):
    """RLlib hands a scheduled lr to the optimizer as a tensor, which foreach Adam refuses."""
    learner = suite_learner(gym.make("Pendulum-v1"), None, {"lr": [[0, 1e-3], [6e4, 0.0]]})
    timesteps = {NUM_ENV_STEPS_SAMPLED_LIFETIME: 45_000}
    Learner.update(learner, batch=batch_of(learner, chunked_episodes), timesteps=timesteps)
    (optimizer,) = learner.get_optimizers_for_module(MID)
    assert optimizer[1].param_groups[0]["lr"] == pytest.approx(2.5e-4)  # set after the update


def test_normalized_advantages_are_sb3s_per_minibatch_normalisation(chunked_episodes):
    """The loss with normalize_advantages on equals the loss without it on a minibatch whose
    advantages were normalised beforehand, as SB3's PPO does (mean 0, std + 1e-8)."""
    rllib, _ = built_learners()
    env, state = gym.make("Pendulum-v1"), rllib.get_state()
    normalizing = suite_learner(env, state, {"normalize_advantages": True})
    plain = suite_learner(env, state, {})
    batch = batch_of(plain, chunked_episodes).policy_batches[MID]
    rows = SampleBatch(plain._rows_with_targets(MID, batch))
    raw = rows[ADVANTAGES].clone()
    assert abs(float(raw.mean())) > 0.1  # so that normalising changes the loss
    expected_rows = SampleBatch(dict(rows) | {ADVANTAGES: (raw - raw.mean()) / (raw.std() + 1e-8)})
    torch.testing.assert_close(loss_on_rows(normalizing, rows), loss_on_rows(plain, expected_rows))
    assert not torch.allclose(loss_on_rows(plain, rows), loss_on_rows(plain, expected_rows))


def test_ppos_ratio_is_the_loss_with_the_target_network_replaced_by_the_behaviour_policy(
    chunked_episodes,
):
    """ratio_to_behaviour: PPO's pi / mu, i.e. IMPACT's loss where the target network's
    log-probs are the behaviour policy's (its IS ratio then 1)."""
    rllib, _ = built_learners()  # perturbed weights: the target and behaviour policies differ
    env, state = gym.make("Pendulum-v1"), rllib.get_state()
    ppo = suite_learner(env, state, {"ratio_to_behaviour": True})
    impact = suite_learner(env, state, {})
    batch = batch_of(impact, chunked_episodes).policy_batches[MID]
    rows = SampleBatch(impact._rows_with_targets(MID, batch))
    as_behaviour = SampleBatch(dict(rows) | {TARGET_LOGP: rows[Columns.ACTION_LOGP].clone()})
    torch.testing.assert_close(loss_on_rows(ppo, rows), loss_on_rows(impact, as_behaviour))
    assert not torch.allclose(loss_on_rows(impact, rows), loss_on_rows(impact, as_behaviour))


# --- one finiteness check per minibatch, on the global norm -------------------------------------


def suite_loss_and_gradients(suite, episodes):
    batch = batch_of(suite, episodes).policy_batches[MID]
    rows = SampleBatch(suite._rows_with_targets(MID, batch))
    config = suite.config.get_config_for_module(MID)
    loss = suite.compute_loss_for_module(
        module_id=MID, config=config, batch=rows, fwd_out=suite.module[MID].forward_train(rows)
    )
    return suite.compute_gradients({MID: loss})


def weights(learner) -> dict[str, torch.Tensor]:
    return {name: param.detach().clone() for name, param in learner.module[MID].named_parameters()}


def test_finite_gradients_step_without_rllibs_per_parameter_checks(chunked_episodes, monkeypatch):
    _, suite = built_learners()
    grads = suite.postprocess_gradients(suite_loss_and_gradients(suite, chunked_episodes))

    def per_parameter_checks(self, gradients_dict):
        raise AssertionError("RLlib's apply_gradients ran")

    monkeypatch.setattr(TorchLearner, "apply_gradients", per_parameter_checks)
    before = weights(suite)
    suite.apply_gradients(grads)
    moved = [
        name
        for name, param in suite.module[MID].named_parameters()
        if not torch.equal(param, before[name])
    ]
    assert moved  # Adam stepped (test_one_update_... checks it steps as RLlib's does)


def test_a_minibatch_with_a_non_finite_gradient_moves_no_weight(chunked_episodes):
    """Its global norm is NaN, so clipping makes every gradient NaN and RLlib's own handling
    (the fallback) zeroes them: the weights stay where they were (a fresh Adam, no momentum)."""
    _, suite = built_learners()
    grads = suite_loss_and_gradients(suite, chunked_episodes)
    next(grad for grad in grads.values() if grad is not None).view(-1)[0] = float("nan")
    before = weights(suite)
    suite.apply_gradients(suite.postprocess_gradients(grads))
    for name, param in suite.module[MID].named_parameters():
        torch.testing.assert_close(param, before[name], msg=name)


def _gram(weight: torch.Tensor) -> torch.Tensor:
    """W W^T or W^T W, whichever is the smaller: gain^2 times the identity for an orthogonal W."""
    return weight @ weight.T if weight.shape[0] <= weight.shape[1] else weight.T @ weight


def _is_orthogonal_with_gain(weight: torch.Tensor, gain: float) -> bool:
    gram = _gram(weight.detach())
    return torch.allclose(gram, gain**2 * torch.eye(gram.shape[0]), atol=1e-5 * max(gain**2, 1))


SB3_LAYOUT = {
    "model.fcnet_hiddens": [64, 64],
    "model.fcnet_activation": "tanh",
    "model.vf_share_layers": False,
}


def test_sb3_init_gives_sb3s_orthogonal_gains_and_zero_biases_and_a_target_network_alike():
    env = gym.make("Pendulum-v1")
    module = suite_learner(env, None, SB3_LAYOUT | {"sb3_init": True}).module[MID]
    gains = {"encoder": math.sqrt(2), "pi": 0.01, "vf": 1.0}
    for part, gain in gains.items():
        layers = [m for m in getattr(module, part).modules() if isinstance(m, torch.nn.Linear)]
        assert layers
        *hidden, output = layers
        for layer in hidden:
            assert _is_orthogonal_with_gain(layer.weight, math.sqrt(2)), part
        assert _is_orthogonal_with_gain(output.weight, gain), part
        assert all(torch.count_nonzero(layer.bias) == 0 for layer in layers), part
    assert len([m for m in module.encoder.modules() if isinstance(m, torch.nn.Linear)]) == 4
    for network, target in module.get_target_network_pairs():
        for mine, theirs in zip(network.parameters(), target.parameters(), strict=True):
            assert torch.equal(mine, theirs)


def test_without_sb3_init_the_policy_output_keeps_torchs_initialisation():
    env = gym.make("Pendulum-v1")
    module = suite_learner(env, None, SB3_LAYOUT).module[MID]
    output = [m for m in module.pi.modules() if isinstance(m, torch.nn.Linear)][-1]
    assert not _is_orthogonal_with_gain(output.weight, 0.01)
    assert torch.count_nonzero(output.bias) > 0


def test_sb3_init_is_a_switch():
    with pytest.raises(SuiteSettingError, match="sb3_init must be True or False"):
        apply_suite_settings(APPOConfig(), {"sb3_init": "yes"})
