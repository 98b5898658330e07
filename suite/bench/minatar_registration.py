"""Importing this module registers MinAtar's env ids: rl-zoo3's ``--gym-packages`` hook, which
registers an env by importing a module (the one module of the suite that acts on import;
``minatar.gym`` itself registers only when ``register_envs()`` is called)."""

import minatar.gym

minatar.gym.register_envs()
