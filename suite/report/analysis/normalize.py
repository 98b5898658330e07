"""Scores on one scale across envs: human-normalized for Atari, a stated rescaling elsewhere.

Atari random and human scores: DeepMind's DQN Zoo, ``dqn_zoo/atari_data.py``
(https://github.com/deepmind/dqn_zoo), the table rliable and most Atari papers normalize with:
random = uniformly random actions, human = the professional tester of Mnih et al. (2015),
"Human-level control through deep reinforcement learning", Nature 518, and van Hasselt et al.
(2016), "Deep reinforcement learning with double Q-learning", AAAI. Both were measured on full
games; the suite's ``AtariEnv`` ends an episode on each lost life (Breakout has 5), so its
returns understate a full game's and its human-normalized scores are a lower bound.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

# game -> (random, human), from dqn_zoo/atari_data.py
ATARI_RANDOM_HUMAN: dict[str, tuple[float, float]] = {
    "Pong": (-20.7, 14.6),
    "Breakout": (1.7, 30.5),
    "SpaceInvaders": (148.0, 1668.7),
    "Seaquest": (68.4, 42054.7),
    "BeamRider": (363.9, 16926.5),
    "Qbert": (163.9, 13455.0),
    "Enduro": (0.0, 860.5),
}
# the lowest and highest returns a game allows, where the rules fix them
ATARI_SCORE_RANGE: dict[str, tuple[float, float]] = {"Pong": (-21.0, 21.0)}


@dataclass(frozen=True)
class Normalization:
    """Maps an env's returns onto a shared scale: 0 = ``zero``, 1 = ``one``."""

    env: str
    zero: float
    one: float
    name: str  # what 0 and 1 mean, for the page
    floor: float | None  # at or below this nothing has been learned (random play)
    ceiling: float | None  # the most the env allows

    def __call__(self, returns: np.ndarray) -> np.ndarray:
        return (np.asarray(returns, dtype=float) - self.zero) / (self.one - self.zero)


def atari_game(env: str) -> str | None:
    """``ALE/Pong-v5`` -> ``Pong``; None for anything that is not a known ALE game."""
    match = re.fullmatch(r"(?:ALE/)?([A-Za-z]+?)(?:NoFrameskip)?-v\d+", env)
    return match.group(1) if match and match.group(1) in ATARI_RANDOM_HUMAN else None


def normalization(env: str, threshold: float | None, lowest: float) -> Normalization:
    """Human-normalized for a known Atari game; elsewhere 0 = the lowest return any run of the
    env recorded (``lowest``) and 1 = the env's return threshold."""
    game = atari_game(env)
    if game is not None:
        random, human = ATARI_RANDOM_HUMAN[game]
        _, high = ATARI_SCORE_RANGE.get(game, (None, None))
        return Normalization(
            env, random, human, "human-normalized (0 = random play, 1 = human)", random, high
        )
    top = threshold if threshold is not None and threshold > lowest else lowest + 1.0
    return Normalization(
        env, lowest, top, "0 = the lowest return recorded, 1 = the return threshold", None, None
    )
