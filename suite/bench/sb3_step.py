"""SB3's PPO update in rl-zoo3's Pendulum layout, timed per minibatch step: row 12's SB3 sides.

``Sb3Side`` runs in row 12's own process, beside RLlib's learners. ``python -m
suite.bench.sb3_step LAYOUT_JSON`` times one update alone, in a fresh process that never imports
RLlib, as rl-zoo3's users run SB3, and prints its seconds and minibatch steps as JSON.
"""

from __future__ import annotations

import json
import sys
import time

import torch

ENV = "Pendulum-v1"
SEED = 0
# The layout's settings SB3's PPO takes (suite.configs.ppo_layouts.PENDULUM's names).
LAYOUT_KEYS = (
    "num_envs_per_env_runner",
    "train_batch_size_per_learner",
    "minibatch_size",
    "num_epochs",
    "lr",
    "gamma",
    "lambda",
    "clip_param",
    "grad_clip",
)


class Sb3Side:
    """SB3's PPO in rl-zoo3's Pendulum settings (no gSDE), its rollout buffer filled once."""

    def __init__(self, layout: dict):
        from stable_baselines3 import PPO
        from stable_baselines3.common.env_util import make_vec_env

        envs = layout["num_envs_per_env_runner"]
        self.model = PPO(
            "MlpPolicy",
            make_vec_env(ENV, n_envs=envs, seed=SEED),
            n_steps=layout["train_batch_size_per_learner"] // envs,
            batch_size=layout["minibatch_size"],
            n_epochs=layout["num_epochs"],
            learning_rate=layout["lr"],
            gamma=layout["gamma"],
            gae_lambda=layout["lambda"],
            clip_range=layout["clip_param"],
            max_grad_norm=layout["grad_clip"],
            ent_coef=0.0,
            seed=SEED,
            device="cpu",
        )
        self.model.learn(total_timesteps=layout["train_batch_size_per_learner"])
        self.steps = (
            self.model.n_epochs
            * self.model.rollout_buffer.buffer_size
            * envs
            // (self.model.batch_size)
        )

    def update(self) -> tuple[float, int]:
        started = time.perf_counter()
        self.model.train()
        return time.perf_counter() - started, self.steps


def time_one_update(layout: dict) -> dict:
    """One update's seconds and minibatch steps, after a warm-up update."""
    torch.set_num_threads(1)
    side = Sb3Side(layout)
    side.update()
    seconds, steps = side.update()
    return {"seconds": seconds, "steps": steps}


if __name__ == "__main__":
    print(json.dumps(time_one_update(json.loads(sys.argv[1]))))
