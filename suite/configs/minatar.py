"""Configs for MinAtar (Young and Tian 2019), the Atari family at laptop scale: the same games'
dynamics on 10x10 grids, fast enough for many-seed experiments on 2 cores. The optional
``minatar`` extra (GPL) provides the envs."""

from __future__ import annotations

from ray.rllib.algorithms.appo import APPOConfig

from suite.configs.layers import minatar


def minatar_breakout_base() -> APPOConfig:
    """MinAtar/Breakout-v1 with MinAtar's network and IMPACT's discrete setting (N=4, K=2).

    The base a search tunes ``minatar_breakout`` from (``minatar_search``): hand-set, not tuned.
    Expect: measured beside the tuned config on the search's held-out seeds
    (``python -m suite.configs`` shows the tuned one's evidence).
    Hardware: 1 env runner of 16 envs and the learner in the main process, 2 CPUs, no GPU.
    Source: MinAtar's network (arXiv:1903.03176); lr, entropy and the 512-step batch from
    PPO's usual Atari settings; N and K from IMPACT (arXiv:1912.00167).
    Run: ``python -m suite.sweep minatar_search --budget laptop``.

    broadcast_interval=5, as ``pong``: every 5th learner update() waits for 5 learner updates
    (suite/rllib_buffer.py).
    """
    return minatar("MinAtar/Breakout-v1")


def minatar_space_invaders_base() -> APPOConfig:
    """MinAtar/SpaceInvaders-v1 with the same network and settings as ``minatar_breakout_base``.

    The base a search tunes ``minatar_space_invaders`` from: hand-set, not tuned.
    Expect: measured beside the tuned config on the search's held-out seeds.
    Hardware: as ``minatar_breakout_base``.
    Source: as ``minatar_breakout_base``.
    Run: ``python -m suite.sweep minatar_search --budget laptop_space_invaders``.

    broadcast_interval=5, as ``minatar_breakout_base``.
    """
    return minatar("MinAtar/SpaceInvaders-v1")
