"""The release of langgraph-memory-kit this is (what ``langgraph_memory.__version__`` says).

A module of its own so that the store can record which release wrote it without
importing the package's top level.

>>> RELEASE.count(".")
2
"""

RELEASE = "0.3.0"
