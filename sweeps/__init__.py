"""Named sweeps: one module per sweep, each defining ``SWEEP``; ``python -m suite.sweep --list``."""
