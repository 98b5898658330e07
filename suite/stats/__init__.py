"""Honest aggregate statistics (rliable's recipe): IQM, stratified bootstrap CIs, P(improvement)."""

from suite.stats.intervals import (
    Interval,
    IntervalBand,
    probability_of_improvement_ci,
    stratified_bootstrap_band,
    stratified_bootstrap_ci,
)
from suite.stats.metrics import (
    interquartile_mean,
    mean,
    median,
    performance_profile,
    probability_of_improvement,
)

__all__ = [
    "Interval",
    "IntervalBand",
    "interquartile_mean",
    "mean",
    "median",
    "performance_profile",
    "probability_of_improvement",
    "probability_of_improvement_ci",
    "stratified_bootstrap_band",
    "stratified_bootstrap_ci",
]
