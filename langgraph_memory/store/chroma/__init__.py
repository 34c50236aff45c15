"""The store's records in Chroma, behind one door.

``door`` is the only module that calls Chroma: the ``VectorClient`` and
``VectorCollection`` protocols the rest of the kit uses, implemented once over
Chroma. Beside it, what keeps records there: where each scope's collections live
(``layout``), how a memory or a decision becomes a record (``codec``), batched
reads and writes (``collection_io``), the decision log (``decision_log``), the
reviews' records (``review_records``), the store's format number and its
migrations (``formats``, ``migrations``), rebuilding and compacting collections
so that deleted data leaves the disk (``rebuild``, ``compaction``), the embedded
directory's process lock (``directory_lock``), and every reach into Chroma's
internals, behind a version check (``internals``).
"""
