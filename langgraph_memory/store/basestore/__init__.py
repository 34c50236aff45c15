"""LangGraph's ``BaseStore`` on a MemoryStore.

``ops`` runs ``batch``'s ops (get, put, search, delete, list namespaces);
``namespaces`` holds the namespace checks and error; ``indexing`` reads
``IndexConfig``; ``ttl`` is LangGraph's TTL (the ``store.ttl`` sub-object);
``async_batches`` gathers single async calls into one batch.
"""
