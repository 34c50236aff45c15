"""``python -m langgraph_memory.cli``: the ``langgraph-memory`` command."""

from langgraph_memory.cli.app import main

raise SystemExit(main())
