"""Hyperparameter search: a space over config settings, suggestions from Optuna's TPE, several
seeds per suggestion, early stops by the race's rule, and validation on held-out seeds."""
