"""Planning a sweep before anything starts: finding a sweep by name or path, expanding it into
trials with resolved configs, their resource requests against a cluster, iterations sized to the
budget, the shuffled run order and wall-time estimates. Nothing here starts Ray or Tune, so a dry
run and the plan tests need neither."""
