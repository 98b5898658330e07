"""``python -m suite.whatif``: the buffer model's reuse and drops for N x K cells at given rates,
before any compute is spent (the analysis: ``suite.report.analysis.whatif``)."""
