"""Racing: spend seeds only on the N x K cells still in contention (see ``elimination.py``)."""
