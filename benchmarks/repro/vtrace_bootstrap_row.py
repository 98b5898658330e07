"""Reproduce two bootstrap defects of RLlib 2.60's APPO V-trace with plain RLlib (no suite code).

    python benchmarks/repro/vtrace_bootstrap_row.py      # exit 1: both reproduced

RLlib's learner connector (``AddOneTsToEpisodesAndTruncate``) ends every episode chunk of a
train batch with one extra, masked "bootstrap" row holding the state after the chunk's last step.
``APPOTorchLearner.compute_loss_for_module`` (ray/rllib/algorithms/appo/torch/
appo_torch_learner.py) then cuts the rows it gets into time-major columns of
``rollout_fragment_length`` rows and calls ``vtrace_torch`` on them:

1. **The bootstrap row's own TD error is not masked.** Its discount is zeroed (``* loss_mask``),
   but its delta ``rho_b * (0 + 0 - V(s_b))`` stays, and the V-trace recursion carries it into
   the chunk's last real step: that step's target becomes
   ``r + gamma * V(s_b) - gamma * c * rho_b * V(s_b)`` instead of ``r + gamma * V(s_b)``.
2. **A minibatch's last column bootstraps from the minibatch's first row** ("can use any
   arbitrary value here", the source says): with ``minibatch_size`` set, every minibatch is cut
   the same way, and the last row of each bootstraps from the value of a state of another
   trajectory.

The script builds an APPO learner on Pendulum, makes a train batch of chunks exactly one
fragment long (bootstrap row included), so columns and chunks line up, and records what the loss
hands ``vtrace_torch``. (1): the loss's target for each chunk's last real step against RLlib's own
``vtrace_torch`` called on the chunk's real steps with the bootstrap row's value as
``bootstrap_values``, and against the leak predicted above. (2): the bootstrap value the loss
hands ``vtrace_torch`` for a minibatch's last column against the value of the row that follows.

Tested with ray[rllib]==2.60.0, torch 2.13.0 (CPU), gymnasium 1.2.2, Python 3.11.
"""

import sys

import gymnasium as gym
import torch
from ray.rllib.algorithms.appo import APPOConfig
from ray.rllib.algorithms.appo.torch import appo_torch_learner
from ray.rllib.algorithms.impala.torch.vtrace_torch_v2 import vtrace_torch
from ray.rllib.core.learner.training_data import TrainingData
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

STEPS, CHUNKS, GAMMA = 40, 8, 0.95
ROWS = STEPS + 1  # a chunk and its bootstrap row: one time-major column
MODULE = "default_policy"


def config(fragment: int) -> APPOConfig:
    return (
        APPOConfig()
        .environment("Pendulum-v1")
        .env_runners(num_env_runners=0, rollout_fragment_length=fragment)
        .training(train_batch_size_per_learner=STEPS * CHUNKS, gamma=GAMMA, use_kl_loss=False)
        .debugging(seed=0)
    )


def train_batch(learner):
    runner = SingleAgentEnvRunner(config=config(STEPS))
    episodes = [e for _ in range(CHUNKS) for e in runner.sample(num_timesteps=STEPS)]
    runner.stop()
    return learner._make_batch_if_necessary(TrainingData(episodes=episodes)).policy_batches[MODULE]


def loss_vtrace_calls(learner, batch) -> list[dict]:
    """What RLlib's APPO loss hands vtrace_torch (and gets back) on ``batch``."""
    calls = []

    def recording(**inputs):
        outputs = vtrace_torch(**inputs)
        calls.append({**inputs, "vs": outputs[0]})
        return outputs

    appo_torch_learner.vtrace_torch = recording
    try:
        module = learner.module[MODULE]
        learner.compute_loss_for_module(
            module_id=MODULE,
            config=learner.config.get_config_for_module(MODULE),
            batch=batch,
            fwd_out=module.forward_train(batch),
        )
    finally:
        appo_torch_learner.vtrace_torch = vtrace_torch
    return calls


def unmasked_bootstrap_delta(call) -> tuple[float, float, float]:
    """Largest gap between the loss's target for a chunk's last real step and V-trace on the
    chunk's real steps bootstrapped from the bootstrap row; and the leak predicted."""
    inputs = {k: call[k][:STEPS] for k in ("rewards", "values", "discounts")}
    logps = {k: call[k][:STEPS] for k in ("target_action_log_probs", "behaviour_action_log_probs")}
    right, _ = vtrace_torch(**inputs, **logps, bootstrap_values=call["values"][STEPS])
    rho = torch.exp(call["target_action_log_probs"] - call["behaviour_action_log_probs"])
    last, boot = STEPS - 1, STEPS
    predicted = (
        -call["discounts"][last]
        * torch.clamp(rho[last], max=1.0)
        * torch.clamp(rho[boot], max=1.0)
        * call["values"][boot]
    )
    gap = call["vs"][last] - right[last]
    worst = int(torch.argmax(gap.abs()))
    return float(gap[worst]), float(predicted[worst]), float(call["values"][boot][worst])


def main() -> int:
    env = gym.make("Pendulum-v1")
    learner = config(ROWS).build_learner(env=env)
    with torch.no_grad():
        for param in learner.module[MODULE].parameters():  # values far from 0, rho != 1
            param.add_(0.3 * torch.randn_like(param))
        batch = train_batch(learner)
        (call,) = loss_vtrace_calls(learner, batch)
        gap, predicted, value = unmasked_bootstrap_delta(call)
        print(f"1. last real step's target - correct target: {gap:+.4f} (V(s_b) = {value:+.3f});")
        print(f"   predicted from the unmasked bootstrap delta: {predicted:+.4f}")
        minibatch = batch.slice(0, 2 * ROWS)  # two chunks, as a minibatch_size of 2 fragments
        (call,) = loss_vtrace_calls(learner, minibatch)
        handed = float(call["bootstrap_values"][-1])
        first_row = float(call["values"][0][0])
        print(f"2. a minibatch's last column bootstraps from {handed:+.4f}, the value of the")
        print(f"   minibatch's first row ({first_row:+.4f}), a state of another trajectory")
    leak = abs(gap) > 1e-4 and abs(gap - predicted) < 1e-3 * max(1.0, abs(predicted))
    arbitrary = abs(handed - first_row) < 1e-6
    print("reproduced" if leak and arbitrary else "not reproduced")
    return 1 if leak and arbitrary else 0


if __name__ == "__main__":
    sys.exit(main())
