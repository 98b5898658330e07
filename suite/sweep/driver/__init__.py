"""The sweep's driver process: the command (``python -m suite.sweep``, its tables and its flow
from plan to report), connecting to Ray, building and running Tune with the suite's searchers,
the run folder and its ``run.json`` record, Ctrl-C, and keeping the libraries' logs in the run
folder. The driver uses every other part of the sweep; none of them imports the driver, but the
race's and the search's Tune searchers, which build on ``state_searcher``."""
