"""The sweep's live sinks: Tune callbacks on the driver that take each trial's results as they
come (the results store, W&B, the progress view). They name a trial one way, through
``identity.identify``."""
