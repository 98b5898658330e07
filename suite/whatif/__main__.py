"""``python -m suite.whatif SWEEP [--budget B]`` or ``--config NAME --n N --k K``, with rates
``--rates-from RUN_DIR``, ``--sampling S --learning L`` or ``--measure``; ``--learner-speedup X``.

Prints, per config and env, every cell's predicted steady-state drop fraction and reuse from the
buffer model at those rates, the model's stated error, and which cells can differ at all (the
others the model cannot tell apart). Bad input: one line on stderr, exit code 2.
"""

from __future__ import annotations

import sys

from suite.argtypes import EXIT_BAD_INPUT
from suite.whatif.command import main

if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(EXIT_BAD_INPUT)
