"""The suite's opt-in APPO learner (``learner="suite"``): RLlib's APPO loss with its per-batch
work done once per batch instead of once per minibatch (``appo.py``), V-trace along each episode
chunk (``vtrace.py``) and minibatches drawn by index (``minibatches.py``)."""
