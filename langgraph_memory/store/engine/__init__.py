"""What runs under both of the store's faces.

``engine`` is one per store location in a process (the client, collection handles,
the gate, lexical indexes); ``core`` is what both faces share (embedder, writes
under a scope's lock, version chains); ``scope_locks`` and ``shared_queue`` are the
locks and the Postgres queue processes share; ``access_log``, ``field_cache`` and
``rule_cache`` are what the engine keeps in memory between calls; ``candidates``
gathers a read's candidates; ``dependents`` archives reflections whose sources
closed; ``building`` makes memory versions from a caller's arguments.
"""
