"""SB3 PPO's settings for MinAtar, for rl-zoo3's ``--conf-file`` (rl-zoo3 has no MinAtar entry).

rl-zoo3's own ``atari`` entry of ``hyperparams/ppo.yml`` (8 envs x 128 steps, 4 epochs of
256-sample minibatches, lr and clip decaying linearly from 2.5e-4 and 0.1, vf 0.5, entropy
0.01), the closest tuned PPO it ships, without what MinAtar already does or does not need: no
``AtariWrapper`` (MinAtar has no frames to skip, resize or max-pool) and no frame stack (its
channels already show motion trails). The network is the suite's MinAtar model
(``suite.configs.layers.minatar``): one 3x3 convolution of 16 channels, then 128 ReLU units per
head, over a shared extractor, so both sides train the same network. Episodes are cut at the
suite's ``MINATAR_MAX_EPISODE_STEPS``.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from suite.configs.envs import MINATAR_MAX_EPISODE_STEPS

MINATAR_CHANNELS = 16


class MinAtarCNN(BaseFeaturesExtractor):
    """MinAtar's convolution over (height, width, channels) grids, flattened."""

    def __init__(self, observation_space: gym.spaces.Box):
        height, width, channels = observation_space.shape
        super().__init__(observation_space, features_dim=height * width * MINATAR_CHANNELS)
        self.conv = torch.nn.Sequential(
            torch.nn.Conv2d(channels, MINATAR_CHANNELS, kernel_size=3, stride=1, padding=1),
            torch.nn.ReLU(),
            torch.nn.Flatten(),
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.conv(observations.permute(0, 3, 1, 2))


SETTINGS = {
    "policy": "MlpPolicy",  # the features extractor below is the network's body
    "policy_kwargs": {
        "features_extractor_class": MinAtarCNN,
        "net_arch": {"pi": [128], "vf": [128]},
        "activation_fn": torch.nn.ReLU,
    },
    "env_wrapper": [
        {"gymnasium.wrappers.TimeLimit": {"max_episode_steps": MINATAR_MAX_EPISODE_STEPS}}
    ],
    "n_envs": 8,
    "n_steps": 128,
    "n_epochs": 4,
    "batch_size": 256,
    "n_timesteps": 1e7,
    "learning_rate": "lin_2.5e-4",
    "clip_range": "lin_0.1",
    "vf_coef": 0.5,
    "ent_coef": 0.01,
}

hyperparams = {  # the name rl-zoo3 reads
    "MinAtar/Breakout-v1": SETTINGS,
    "MinAtar/SpaceInvaders-v1": SETTINGS,
}
