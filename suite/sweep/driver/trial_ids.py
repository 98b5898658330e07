"""Trial ids that stay unique across runs, so two sweeps never share one."""

from __future__ import annotations

import secrets

from ray.tune.search import BasicVariantGenerator

from suite.ray_internals import set_trial_id_prefix

PREFIX_HEX_DIGITS = 8


class UniqueTrialIds(BasicVariantGenerator):
    """Tune's default grid searcher with a random trial-id prefix.

    Tune prefixes ids with 5 hex digits of a time-based uuid1, which only differ between runs
    created more than ~0.4 ms apart and repeat every ~7 minutes: two sweeps started at once
    got the same ids in CI. 8 random hex digits make a clash across runs a 1-in-4-billion event.
    The prefix is part of the searcher's saved state, so a resumed run keeps its ids.
    """

    def __init__(self, max_concurrent: int = 0):
        super().__init__(max_concurrent=max_concurrent)
        # ray 2.60 keeps the prefix in a private attribute; tests/test_trial_ids.py checks it.
        set_trial_id_prefix(self, secrets.token_hex(PREFIX_HEX_DIGITS // 2) + "_")
