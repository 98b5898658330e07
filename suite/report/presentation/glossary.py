"""The report's terms, defined once and printed at the end of the page."""

TERMS = [
    ("N", "circular_buffer_num_batches: how many train batches the learner's buffer holds."),
    ("K", "circular_buffer_iterations_per_batch: the most times one batch is trained on."),
    (
        "broadcast_interval",
        "every broadcast_interval-th learner update() call waits for that many learner updates "
        "(RLlib 2.60's aggregation window); it decides whether the buffer can drop at all.",
    ),
    (
        "regime",
        "what the buffer did in steady state, per env and hardware: K binds (some K > 1 cell "
        "trained each batch more than once, so K decides the reuse), N can drop (a cell the "
        "broadcast rule lets drop threw env steps away, so N decides which), or neither (every "
        "cell trained each batch about once and dropped none: the cells are the same runs).",
    ),
    (
        "what-if",
        "python -m suite.whatif: the buffer model's reuse and drop fraction for every N, K cell "
        "at given rates (an earlier run's, typed in, or measured), with its stated error "
        "(benchmarks/RESULTS.md row 14). It trains nothing.",
    ),
    (
        "cell",
        "one setting of env × learners × N × K × broadcast_interval; its seeds are the runs "
        "pooled.",
    ),
    (
        "budget",
        "the env-step count every trial is read at: the run's planned env steps, or "
        "the fewest any finished trial of the env reached if lower. Values are interpolated on "
        "each trial's curve, so all cells compare the same amount of experience.",
    ),
    (
        "return at budget",
        "the mean return of recent episodes (RLlib's smoothing window) at the budget.",
    ),
    (
        "AUC",
        "area under the return curve from the first finished episode to the budget, "
        "divided by the env steps it spans: a mean return over training.",
    ),
    ("IQM", "interquartile mean: the mean of the middle 50% of seeds' scores."),
    ("95% CI", "percentile stratified-bootstrap confidence interval, 2,000 resamples."),
    (
        "P(improvement)",
        "the chance that a random seed of one cell scores higher than a "
        "random seed of another (ties count half).",
    ),
    ("performance profile", "the fraction of seeds scoring above each return τ."),
    ("reuse", "env steps trained on / env steps added to the buffer; at most K."),
    (
        "drop fraction",
        "env steps of batches evicted before they were trained on even once, over env steps added.",
    ),
    ("lost uses", "over evicted batches, K minus the times each was trained on."),
    ("staleness", "learner updates between a batch entering the buffer and being trained on."),
    (
        "learner wait",
        "seconds the learner thread waited on an empty buffer, within the iteration's own seconds.",
    ),
    (
        "warm-up",
        "a trial's iterations up to and including the first in which its learner "
        "trained; buffer diagnostics leave them out.",
    ),
    ("local learner", "num_learners = 0: RLlib's one learner inside the main process."),
    (
        "decisive / leaning / inconclusive",
        "decisive: ≥ 3 seeds in every cell, every cell has "
        "data, scores off the floor, and the best cell's CI clears all others with "
        "P(improvement) above 0.5; leaning: separated but short of that, or P(improvement) ≥ 0.75 "
        "over every other cell; inconclusive: anything less.",
    ),
]
