"""The report's presentation: figures, the page's sections as template contexts, formatting, the
glossary and the templates. It reads ``suite.report.analysis``'s results and never the other way
round (``tests/test_import_graph.py``)."""
