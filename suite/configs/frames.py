"""Connector pieces that give the model ale_py's native frames the way RLlib's wrapper stack does.

``AleVectorAtariEnv`` returns stacked uint8 frames, channels first: (4, 64, 64), 0-255. RLlib's
wrapper stack with its frame-stacking connectors gives the model float32 frames, channels last,
scaled to [-1, 1): (64, 64, 4), ``pixel / 128 - 1``. Episodes keep the compact uint8 frames (the
same bytes per step as today's unstacked float frames); these pieces convert them on their way
into the batch, on the env runner and on the learner.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.core.columns import Columns


def frames_for_model(frames: np.ndarray) -> np.ndarray:
    """(..., stack, h, w) uint8 -> (..., h, w, stack) float32 in [-1, 1), the arithmetic of
    RLlib's ``NormalizedImageEnv``."""
    channels_last = np.moveaxis(frames, -3, -1)
    return channels_last.astype(np.float32, order="C") / 128.0 - 1.0


class AleFramesToModel(ConnectorV2):
    """Adds the episodes' frames to the batch as ``frames_for_model`` lays them out."""

    def recompute_output_observation_space(
        self, input_observation_space: gym.Space, input_action_space: gym.Space
    ) -> gym.Space:
        stack, height, width = input_observation_space.shape
        return gym.spaces.Box(-1.0, 1.0, shape=(height, width, stack), dtype=np.float32)

    def __init__(
        self,
        input_observation_space: gym.Space | None = None,
        input_action_space: gym.Space | None = None,
        *,
        as_learner_connector: bool = False,
        **kwargs,
    ):
        super().__init__(input_observation_space, input_action_space, **kwargs)
        self._as_learner_connector = as_learner_connector

    def __call__(self, *, rl_module, batch: dict[str, Any], episodes, **kwargs) -> Any:
        if self._as_learner_connector:
            for episode in self.single_agent_episode_iterator(
                episodes, agents_that_stepped_only=False
            ):
                self.add_n_batch_items(
                    batch,
                    Columns.OBS,
                    items_to_add=frames_for_model(episode.get_observations(slice(0, len(episode)))),
                    num_items=len(episode),
                    single_agent_episode=episode,
                )
        else:
            for episode in self.single_agent_episode_iterator(episodes):
                self.add_batch_item(
                    batch,
                    Columns.OBS,
                    item_to_add=frames_for_model(episode.get_observations(-1)),
                    single_agent_episode=episode,
                )
        return batch


def ale_frames_env_to_module(env=None, spaces=None, device=None) -> ConnectorV2:
    return AleFramesToModel()


def ale_frames_learner(
    input_observation_space=None, input_action_space=None, device=None
) -> ConnectorV2:
    return AleFramesToModel(as_learner_connector=True)
