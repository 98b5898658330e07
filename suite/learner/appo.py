"""``SuiteAPPOTorchLearner``: RLlib 2.60's APPO loss, its once-per-batch work done once per batch.

RLlib's ``Learner.update`` runs the whole APPO loss on every minibatch: the target network's
forward pass, V-trace (a Python loop over the rollout fragment's time steps), eight
``make_time_major`` reshapes and a metrics ``log_dict``; then it clips gradients through a
per-tensor Python loop and steps a single-tensor Adam. With PPO's gradient density (rl-zoo3's
Pendulum: 640 minibatch steps per 4,096 env steps) that per-minibatch overhead is most of the
learner's time (``python -m suite.bench --rows learner_cost``). This learner, plugged in through
RLlib's own hook (``config.learners(learner_class=...)``, the suite setting ``learner="suite"``):

- computes the target network's log-probs and V-trace once per batch, V-trace along each
  episode chunk (``suite.learner.vtrace``), and draws minibatches of the batch's real rows by
  index (``suite.learner.minibatches``; ``shuffle_batch_per_epoch`` permutes them per epoch);
- logs the loss statistics once per update (the last minibatch's, which is all RLlib's
  ``window=1`` keeps), and clips the gradients' global norm with one ``foreach`` norm;
- checks that the gradients are finite once per minibatch, on that norm, where RLlib checks each
  parameter's gradient twice (once before the optimizer step, once to allow it);
- uses Adam's ``foreach`` kernel (its learning rate a Python float, scheduled or not);
- reads a schedule for the surrogate's clip (``learner_config_dict["clip_param_schedule"]``,
  ``[[env_steps, clip], ...]`` as RLlib's ``lr`` schedules, interpolated linearly, over the same
  sampled env steps), which RLlib 2.60's APPO does not have: rl-zoo3 decays CartPole's clip
  linearly to 0 with its learning rate;
- normalises the advantages of each minibatch to mean 0 and standard deviation 1 when
  ``learner_config_dict["normalize_advantages"]`` is true, as SB3's PPO does by default (RLlib's
  APPO never does);
- takes the surrogate's ratio against the behaviour policy (PPO's ``pi / mu``, clipped to
  ``1 +- clip``) instead of IMPACT's target network (``clip(mu / target, 0, 2) * pi / mu``) when
  ``learner_config_dict["ratio_to_behaviour"]`` is true;
- initialises the module as SB3's PPO does (``suite.learner.sb3_init``: orthogonal weights, a
  policy output layer at gain 0.01) when ``learner_config_dict["sb3_init"]`` is true.

What stays RLlib's: the surrogate (IMPACT's clipped ratio against the target network, with the
IS ratio clipped to [0, 2]), the value, entropy and KL terms and their coefficients, the target
network's update rule, the circular buffer, the learner thread and every counter RLlib logs.

What differs, on purpose (``tests/test_suite_learner.py`` compares each against an independent
computation): V-trace reads the batch's values once per update instead of the current network's
on each minibatch; its targets follow whole episode chunks, bootstrapped from the chunk's next
state (RLlib's carry the bootstrap row's TD error into the chunk's last step and, on a
minibatch, bootstrap its last row from its first); its traces are scaled by the config's
``lambda_`` (RLlib 2.60 reads none); and minibatches hold only real rows, so an epoch is
``ceil(real rows / minibatch_size)`` minibatches. A minibatch with a NaN or infinite gradient
moves no weight by its gradients (beyond Adam's momentum): its global norm is then not finite
(RLlib's reads a NaN tensor norm as 0), clipping turns every gradient into NaN, and RLlib's own
handling zeroes them, where RLlib's learner zeroes only the entries that are not finite.
"""

from __future__ import annotations

import numpy as np
import torch
import tree
from ray.rllib.algorithms.appo.appo import (
    LEARNER_RESULTS_CURR_KL_COEFF_KEY,
    LEARNER_RESULTS_KL_KEY,
    LEARNER_RESULTS_MEAN_IS_KEY,
    LEARNER_RESULTS_VAR_IS_KEY,
)
from ray.rllib.algorithms.appo.torch.appo_torch_learner import APPOTorchLearner
from ray.rllib.core.columns import Columns
from ray.rllib.core.learner.learner import ENTROPY_KEY, POLICY_LOSS_KEY, VF_LOSS_KEY
from ray.rllib.core.rl_module.apis import TARGET_NETWORK_ACTION_DIST_INPUTS
from ray.rllib.utils.metrics import NUM_ENV_STEPS_SAMPLED_LIFETIME

from suite.learner.minibatches import IndexMinibatches
from suite.learner.sb3_init import sb3_initialise
from suite.learner.vtrace import chunk_layout, vtrace_per_chunk
from suite.ray_internals import learner_rank

# Columns this learner adds to each module's rows, once per batch.
TARGET_LOGP = "suite_target_logp"
TARGET_DIST_INPUTS = "suite_target_dist_inputs"
VALUE_TARGETS = "suite_vtrace_targets"
ADVANTAGES = "suite_vtrace_advantages"

# Keys in the config's learner_config_dict that only this learner reads (the suite settings of
# the same names), and the metric the clip's schedule logs.
CLIP_SCHEDULE = "clip_param_schedule"
NORMALIZE_ADVANTAGES = "normalize_advantages"
RATIO_TO_BEHAVIOUR = "ratio_to_behaviour"
SB3_INIT = "sb3_init"
CLIP_PARAM_KEY = "clip_param"


class SuiteAPPOTorchLearner(APPOTorchLearner):
    """APPO's torch learner with its per-batch work done once per batch (module docstring)."""

    def build(self) -> None:
        super().build()
        if self.config.learner_config_dict.get(SB3_INIT):
            self.module.foreach_module(lambda _, module: _initialise_as_sb3(module))
        stateful = [mid for mid, module in self.module.items() if module.is_stateful()]
        if stateful:
            raise ValueError(
                f"learner='suite' does not train stateful (recurrent) modules {stateful}: "
                "use RLlib's own learner (learner='rllib')"
            )
        self._last_minibatch_metrics: dict[tuple[str, str], torch.Tensor] = {}
        seed = int(self.config.seed or 0) + learner_rank(self)
        self._minibatch_generator = torch.Generator().manual_seed(seed)
        self._scheduled_clip: float | None = None  # None: each module's config.clip_param
        self._global_norms: dict[str, torch.Tensor] = {}  # this minibatch's, per module

    def before_gradient_based_update(self, *, timesteps) -> None:
        super().before_gradient_based_update(timesteps=timesteps)
        schedule = self.config.learner_config_dict.get(CLIP_SCHEDULE)
        if schedule is None:
            return
        env_steps = timesteps.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0)
        self._scheduled_clip = scheduled_value(schedule, env_steps)
        for module_id, _ in self.module.items():
            self.metrics.log_value((module_id, CLIP_PARAM_KEY), self._scheduled_clip, window=1)

    def configure_optimizers_for_module(self, module_id, config=None) -> None:
        params = self.get_parameters(self._module[module_id])
        self.register_optimizer(
            module_id=module_id,
            optimizer=torch.optim.Adam(params, foreach=True),
            params=params,
            lr_or_lr_schedule=config.lr,
        )

    @staticmethod
    def _set_optimizer_lr(optimizer, lr) -> None:
        """As RLlib's, but a Python float: RLlib sets a scheduled ``lr`` as a tensor at first,
        which a ``foreach`` Adam refuses (the learner thread then dies)."""
        for group in optimizer.param_groups:
            group["lr"] = float(lr)

    def _create_iterator_if_necessary(
        self,
        *,
        training_data,
        num_total_minibatches: int = 0,
        num_epochs: int = 1,
        minibatch_size: int | None = None,
        shuffle_batch_per_epoch: bool = False,
        **kwargs,
    ):
        if training_data.data_iterators:  # offline data, not APPO's path
            return super()._create_iterator_if_necessary(
                training_data=training_data,
                num_total_minibatches=num_total_minibatches,
                num_epochs=num_epochs,
                minibatch_size=minibatch_size,
                shuffle_batch_per_epoch=shuffle_batch_per_epoch,
                **kwargs,
            )
        batch = self._make_batch_if_necessary(training_data=training_data)
        for module_id in list(batch.policy_batches):
            if not self.should_module_be_updated(module_id, batch):
                del batch.policy_batches[module_id]
        if not batch.policy_batches:
            return {}
        super()._compute_off_policyness(batch.policy_batches)
        columns = {
            module_id: self._rows_with_targets(module_id, module_batch)
            for module_id, module_batch in batch.policy_batches.items()
        }
        return IndexMinibatches(
            columns,
            env_steps=batch.env_steps(),
            num_epochs=num_epochs,
            minibatch_size=minibatch_size,
            shuffle=shuffle_batch_per_epoch,
            num_total=num_total_minibatches,
            generator=self._minibatch_generator,
        )

    def _compute_off_policyness(self, batch) -> None:
        """Once per batch (``_create_iterator_if_necessary``), not on every minibatch."""

    @torch.no_grad()
    def _rows_with_targets(self, module_id: str, batch) -> dict:
        """The batch's real rows, with the target network's log-probs and V-trace's targets."""
        mask = batch[Columns.LOSS_MASK].bool()
        columns = {key: value for key, value in batch.items() if _per_row(value, len(mask))}
        added = self.batch_targets(module_id, batch)
        return tree.map_structure(lambda column: column[mask], columns | added)

    @torch.no_grad()
    def batch_targets(self, module_id: str, batch) -> dict:
        """The columns computed once per batch, for every row of ``batch`` (bootstrap rows
        included: zero advantage, ``vs = V``): the target network's log-probs (and its action
        distribution's inputs for the KL loss), V-trace's value targets and advantages."""
        module = self.module[module_id].unwrapped()
        config = self.config.get_config_for_module(module_id)
        target_inputs = module.forward_target(batch)[TARGET_NETWORK_ACTION_DIST_INPUTS]
        dist_class = module.get_train_action_dist_cls()
        target_logp = dist_class.from_logits(target_inputs).logp(batch[Columns.ACTIONS])
        mask = batch[Columns.LOSS_MASK].bool()
        value_targets, advantages = vtrace_per_chunk(
            layout=chunk_layout(mask),
            behaviour_logp=batch[Columns.ACTION_LOGP],
            target_logp=target_logp,
            rewards=batch[Columns.REWARDS],
            values=module.compute_values(batch),
            terminateds=batch[Columns.TERMINATEDS],
            loss_mask=mask,
            gamma=config.gamma,
            lambda_=config.lambda_,
            clip_rho=config.vtrace_clip_rho_threshold,
            clip_pg_rho=config.vtrace_clip_pg_rho_threshold,
        )
        added = {TARGET_LOGP: target_logp, VALUE_TARGETS: value_targets, ADVANTAGES: advantages}
        if config.use_kl_loss:
            added[TARGET_DIST_INPUTS] = target_inputs
        return added

    def compute_loss_for_module(self, *, module_id, config, batch, fwd_out):
        """IMPACT's loss as RLlib's APPO computes it, from the batch's precomputed targets."""
        module = self.module[module_id].unwrapped()
        dist_class = module.get_train_action_dist_cls()
        policy = dist_class.from_logits(fwd_out[Columns.ACTION_DIST_INPUTS])
        behaviour_logp = batch[Columns.ACTION_LOGP]
        is_ratio = torch.clip(torch.exp(behaviour_logp - batch[TARGET_LOGP]), 0.0, 2.0)
        # PPO's ratio, the policy against the sampler's, drops the IS weight (still logged below)
        weight = 1.0 if self.config.learner_config_dict.get(RATIO_TO_BEHAVIOUR) else is_ratio
        ratio = weight * torch.exp(policy.logp(batch[Columns.ACTIONS]) - behaviour_logp)
        advantages = batch[ADVANTAGES]
        if self.config.learner_config_dict.get(NORMALIZE_ADVANTAGES):
            advantages = normalized(advantages)
        clip = config.clip_param if self._scheduled_clip is None else self._scheduled_clip
        clipped = torch.clip(ratio, 1 - clip, 1 + clip)
        policy_loss = -torch.mean(torch.minimum(advantages * ratio, advantages * clipped))
        values = module.compute_values(batch, embeddings=fwd_out.get(Columns.EMBEDDINGS))
        value_loss = 0.5 * torch.mean(torch.square(values - batch[VALUE_TARGETS]))
        entropy = torch.mean(policy.entropy())
        kl = (
            torch.mean(dist_class.from_logits(batch[TARGET_DIST_INPUTS]).kl(policy))
            if config.use_kl_loss
            else torch.zeros(())
        )
        kl_coeff = self.curr_kl_coeffs_per_module[module_id]
        entropy_coeff = self.entropy_coeff_schedulers_per_module[module_id].get_current_value()
        self._keep_minibatch_metrics(
            module_id,
            {
                POLICY_LOSS_KEY: policy_loss,
                VF_LOSS_KEY: value_loss,
                ENTROPY_KEY: entropy,
                LEARNER_RESULTS_KL_KEY: kl,
                LEARNER_RESULTS_CURR_KL_COEFF_KEY: kl_coeff,
                LEARNER_RESULTS_MEAN_IS_KEY: torch.mean(is_ratio),
                LEARNER_RESULTS_VAR_IS_KEY: torch.var(is_ratio, correction=0),
            },
        )
        return (
            policy_loss
            + config.vf_loss_coeff * value_loss
            - entropy_coeff * entropy
            + kl_coeff * kl
        )

    def postprocess_gradients_for_module(self, *, module_id, config=None, module_gradients_dict):
        """RLlib's global-norm clipping with one ``foreach`` norm; other modes are RLlib's."""
        optimizers = self.get_optimizers_for_module(module_id)
        if config.grad_clip_by != "global_norm" or not config.grad_clip or len(optimizers) != 1:
            return super().postprocess_gradients_for_module(
                module_id=module_id, config=config, module_gradients_dict=module_gradients_dict
            )
        grads = [grad for grad in module_gradients_dict.values() if grad is not None]
        norm = torch.nn.utils.get_total_norm(grads, foreach=True)
        scale = torch.clamp(
            config.grad_clip / torch.clamp(norm + 1e-6, min=config.grad_clip), max=1.0
        )
        for grad in grads:
            grad.mul_(scale)
        name = optimizers[0][0]
        self._keep_minibatch_metrics(module_id, {f"gradients_{name}_global_norm": norm})
        self._global_norms[module_id] = norm
        return dict(module_gradients_dict)

    def apply_gradients(self, gradients_dict) -> None:
        """RLlib's, with one finiteness check per minibatch instead of two per parameter: a
        global norm is finite only when every gradient it sums is. Anything else (a module
        clipped another way, a non-finite norm, lr schedulers, grad scalers) goes RLlib's way,
        which zeroes non-finite gradients and warns."""
        norms, self._global_norms = self._global_norms, {}
        if not self._all_finite_by_norm(norms):
            return super().apply_gradients(gradients_dict)
        for param_ref, grad in gradients_dict.items():
            self._params[param_ref].grad = grad
        for module_id, optimizer_names in self._module_optimizers.items():
            for optimizer_name in optimizer_names:
                self.get_optimizer(module_id, optimizer_name).step()

    def _all_finite_by_norm(self, norms: dict[str, torch.Tensor]) -> bool:
        if self._lr_scheduler_classes is not None or self._grad_scalers is not None:
            return False
        if set(norms) != set(self._module_optimizers):
            return False
        return bool(torch.isfinite(torch.stack(list(norms.values()))).all())

    def _keep_minibatch_metrics(self, module_id: str, metrics: dict) -> None:
        for key, value in metrics.items():
            self._last_minibatch_metrics[(module_id, key)] = value

    def after_gradient_based_update(self, *, timesteps) -> None:
        # The last minibatch's statistics, as RLlib's per-minibatch window=1 logs leave them
        # (the KL coefficient's update below reads the KL from them).
        for key, value in self._last_minibatch_metrics.items():
            self.metrics.log_value(key, value.detach(), window=1)
        self._last_minibatch_metrics.clear()
        super().after_gradient_based_update(timesteps=timesteps)


def _initialise_as_sb3(module) -> None:
    """SB3's initialisation, the target network a copy of it (the env runners get the learner's
    weights when the algorithm is set up, before they sample)."""
    sb3_initialise(module)
    for network, target in module.get_target_network_pairs():
        target.load_state_dict(network.state_dict())


def normalized(advantages: torch.Tensor) -> torch.Tensor:
    """Mean 0, standard deviation 1, as SB3's PPO normalises a minibatch's advantages."""
    if advantages.numel() < 2:
        return advantages
    return (advantages - advantages.mean()) / (advantages.std() + 1e-8)


def scheduled_value(schedule, env_steps: float) -> float:
    """``schedule`` (``[[env_steps, value], ...]``, env steps ascending from 0) at ``env_steps``:
    interpolated linearly between its points and held at its last value, as RLlib's
    ``PiecewiseSchedule`` reads an ``lr`` schedule."""
    points, values = zip(*schedule, strict=True)
    return float(np.interp(env_steps, points, values))


def _per_row(value, rows: int) -> bool:
    """A column (a tensor, or a nested structure of them) with one entry per row."""
    leaves = tree.flatten(value)
    return bool(leaves) and all(
        torch.is_tensor(leaf) and leaf.dim() > 0 and leaf.shape[0] == rows for leaf in leaves
    )
