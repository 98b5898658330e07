"""SB3's initialisation of an actor-critic (``ActorCriticPolicy`` with ``ortho_init``), applied
to RLlib's default APPO module: orthogonal weights and zero biases, with gain sqrt(2) in the
encoders and the heads' hidden layers, 0.01 in the policy's output layer and 1 in the value's.

RLlib's default module keeps torch's own initialisation (uniform in +-1/sqrt(fan_in)), and its
PPO catalog passes no initialiser to the heads, so no model setting reaches the output layers.
"""

from __future__ import annotations

import math

import torch
from torch import nn

HIDDEN_GAIN = math.sqrt(2)
POLICY_OUTPUT_GAIN = 0.01
VALUE_OUTPUT_GAIN = 1.0
_WEIGHTED = (nn.Linear, nn.Conv2d)


def sb3_initialise(module: nn.Module) -> None:
    """Initialise ``module`` (with ``encoder``, ``pi`` and ``vf`` parts) in place, as SB3 does."""
    parts = {"encoder": HIDDEN_GAIN, "pi": POLICY_OUTPUT_GAIN, "vf": VALUE_OUTPUT_GAIN}
    missing = [name for name in parts if not isinstance(getattr(module, name, None), nn.Module)]
    if missing:
        raise ValueError(
            f"sb3_init needs RLlib's default module (encoder, pi and vf); "
            f"{type(module).__name__} has no {', '.join(missing)}"
        )
    with torch.no_grad():
        for name, output_gain in parts.items():
            layers = [
                layer for layer in getattr(module, name).modules() if isinstance(layer, _WEIGHTED)
            ]
            for index, layer in enumerate(layers):
                gain = output_gain if index == len(layers) - 1 else HIDDEN_GAIN
                nn.init.orthogonal_(layer.weight, gain=gain)
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)
