"""The search spaces the shipped search sweeps use, one per config family.

Ranges follow what tuned PPO and APPO configs of the field use (rl-zoo3's ``hyperparams/ppo.yml``
and its Optuna samplers, RLlib's tuned examples, IMPACT's N and K), widened where those differ.
Minibatch SGD matters most here: without ``minibatch_size`` and ``num_epochs`` each use of a
batch is one gradient step. The batch-size choices are multiples of every rollout fragment the
space allows, so RLlib's rule (``minibatch_size`` a multiple of ``rollout_fragment_length`` and
at most the batch) holds for every combination; ``checks.check_space`` verifies it with RLlib.
"""

from __future__ import annotations

from suite.configs import ppo_layouts
from suite.sweep.search.space import Choice, IntUniform, LogUniform, SearchSpace, Uniform

# A third of 2 cores per trial (main process, its local learner, one env runner), so a search's
# 3 seeds of a suggestion run at once on a laptop and their set-up and hand-over overlap the
# others' training instead of idling the CPUs between trials. A sweep's fixed settings.
THIRD_OF_TWO_CORES = {
    "num_cpus_for_main_process": 0.33,
    "num_cpus_per_learner": 0.33,  # the learner runs in the main process
    "num_cpus_per_env_runner": 0.33,
}

# What every APPO search covers: the loss, the optimiser, minibatch SGD and the circular buffer.
# Not ``lambda``: RLlib 2.60's APPO learner never reads it (its V-trace takes no lambda; only
# PPO's GAE does), so a searched lambda would spend suggestions on a setting with no effect. The
# suite's learner (``learner="suite"``) reads it: a sweep that trains with it takes
# ``SUITE_LEARNER`` as a setting and ``with_suite_learner`` of its space.
TRAINING = {
    "lr": LogUniform(1e-4, 3e-3),
    "gamma": Uniform(0.9, 0.999),
    "clip_param": Uniform(0.1, 0.4),
    "vf_loss_coeff": Uniform(0.1, 1.0),
    "entropy_coeff": Choice(0.0, 0.001, 0.01),
    "grad_clip": Choice(0.5, 5.0, 40.0),
    "num_epochs": IntUniform(1, 10),
    "target_network_update_freq": Choice(1, 2, 4),
    "n": Choice(1, 4, 16),
    "k": Choice(1, 2, 4, 10),
}
# Vector observations: the env runners' batching, the MLP and observation normalisation.
CLASSIC = {
    "train_batch_size_per_learner": Choice(500, 1000, 2000, 4000),
    "minibatch_size": Choice(100, 250, 500),
    "num_envs_per_env_runner": Choice(4, 8, 16),
    "model.fcnet_hiddens": Choice([64, 64], [128, 128], [256, 256]),
    "model.fcnet_activation": Choice("tanh", "relu"),
    "observation_filter": Choice("none", "mean_std"),
    # RLlib's MLP shares its layers between policy and value by default; SB3's PPO does not.
    "model.vf_share_layers": Choice(True, False),
}


# SB3's PPO defaults that rl-zoo3's tuned entries keep (``suite.configs.ppo_layouts``): the part
# of a sweep's "rl-zoo3's PPO settings first" suggestion that does not depend on the env.
SB3_PPO_DEFAULTS = ppo_layouts.SB3_PPO_DEFAULTS


# The suite's learner: V-trace and the target network's pass once per batch, about half RLlib's
# learner's time per minibatch step (benchmarks/RESULTS.md, row 12), so PPO-dense layouts fit a
# search's time cap more often.
SUITE_LEARNER = {"learner": "suite"}


# What the suite's learner reads and RLlib 2.60's APPO learner does not (docs/configs.md, "The
# suite's learner"): V-trace's lambda over the range of rl-zoo3's PPO entries (gae_lambda 0.8 to
# 0.99, and 1: no decay), and three things SB3's PPO does that APPO does not: advantage
# normalisation, PPO's ratio against the behaviour policy, and minibatches drawn from a
# permutation of the batch each epoch. Row 23 of benchmarks/RESULTS.md measures each on Pendulum.
SUITE_LEARNER_SPACE = {
    "lambda": Uniform(0.8, 1.0),
    "normalize_advantages": Choice(False, True),
    "ratio_to_behaviour": Choice(False, True),
    "shuffle_batch_per_epoch": Choice(False, True),
}


def with_suite_learner(space: SearchSpace) -> SearchSpace:
    """``space`` and what only the suite's learner reads, for a search trained by it."""
    return SearchSpace(dict(space.distributions) | SUITE_LEARNER_SPACE)


def cartpole() -> SearchSpace:
    """CartPole and other classic discrete-action envs: the classic space, with the batches and
    epochs of rl-zoo3's PPO in reach. SB3 takes 20 gradient steps per 256 samples there (8 envs
    x 32 steps, one 256-sample minibatch, 20 epochs); the classic space's densest is 10 epochs
    of 100-sample minibatches on 500-step batches. RLlib needs minibatches that are multiples of
    the rollout fragment, so the fragment is 32 steps (SB3's) or 64, never RLlib's "auto"
    (``check_space`` verifies)."""
    return SearchSpace(
        TRAINING
        | CLASSIC
        | {
            "num_epochs": IntUniform(1, 20),
            "rollout_fragment_length": Choice(32, 64),
            "train_batch_size_per_learner": Choice(256, 512, 1024),
            "minibatch_size": Choice(64, 128, 256),
        }
    )


def classic_continuous() -> SearchSpace:
    """Pendulum and other classic control envs with continuous actions: also the KL loss,
    whether the action's log std is a free parameter or an output of the network, and up to 32
    envs per env runner (row 21 of benchmarks/RESULTS.md: with PPO's batches, more envs per
    vector step spread the env runner's per-call cost)."""
    return SearchSpace(
        TRAINING
        | CLASSIC
        | {
            "num_envs_per_env_runner": Choice(4, 8, 16, 32),
            "use_kl_loss": Choice(False, True),
            "model.free_log_std": Choice(False, True),
        }
    )


def mujoco() -> SearchSpace:
    """MuJoCo locomotion: larger batches, the same loss and buffer settings."""
    return SearchSpace(
        TRAINING
        | CLASSIC
        | {
            "rollout_fragment_length": Choice(64, 128, 256),
            "train_batch_size_per_learner": Choice(1024, 2048, 4096),
            "minibatch_size": Choice(256, 512, 1024),
            "num_envs_per_env_runner": Choice(4, 8),
            "use_kl_loss": Choice(False, True),
            "model.free_log_std": Choice(False, True),
        }
    )


def atari() -> SearchSpace:
    """ALE games: the loss, the optimiser and the buffer (the CNN and frames stay the config's)."""
    return SearchSpace(
        TRAINING
        | {
            "rollout_fragment_length": Choice(50, 125),
            "train_batch_size_per_learner": Choice(500, 1000, 2000),
            "minibatch_size": Choice(250, 500),
        }
    )


def minatar() -> SearchSpace:
    """MinAtar's games: the loss, the optimiser, the buffer and the batching (the network stays
    MinAtar's). Every batch choice is a multiple of every fragment and minibatch choice."""
    return SearchSpace(
        TRAINING
        | {
            "rollout_fragment_length": Choice(16, 32),
            "train_batch_size_per_learner": Choice(512, 1024),
            "minibatch_size": Choice(128, 256, 512),
            "num_envs_per_env_runner": Choice(8, 16, 32),
        }
    )
