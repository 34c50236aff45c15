"""The store's records in Chroma, behind one door.

``door`` is the only module that calls Chroma: the ``VectorClient`` and
``VectorCollection`` protocols the rest of the kit uses, implemented once over
Chroma. Beside it, what keeps records there: where each scope's collections live
(``layout``), how a memory or a decision becomes a record (``codec``), batched
reads and writes, the decision log among them (``collection_io``), the
reviews' records (``review_records``), the store's format number and its
migrations (``formats``, ``migrations``), rebuilding and compacting collections
so that deleted data leaves the disk (``rebuild``, ``compaction``), the embedded
directory's process lock (``directory_lock``), and every reach into Chroma's
internals, behind a version check (``internals``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph_memory.lazy import faces

if TYPE_CHECKING:
    from langgraph_memory.store.chroma.codec import CHAIN_KEY as CHAIN_KEY
    from langgraph_memory.store.chroma.codec import EXPIRES_KEY as EXPIRES_KEY
    from langgraph_memory.store.chroma.codec import FIELDS_KEY as FIELDS_KEY
    from langgraph_memory.store.chroma.codec import INDEXED_KEY as INDEXED_KEY
    from langgraph_memory.store.chroma.codec import NOT_EPISODE as NOT_EPISODE
    from langgraph_memory.store.chroma.codec import SOURCES as SOURCES
    from langgraph_memory.store.chroma.codec import TEXT_FIELDS as TEXT_FIELDS
    from langgraph_memory.store.chroma.codec import USER_PREFIX as USER_PREFIX
    from langgraph_memory.store.chroma.codec import all_of as all_of
    from langgraph_memory.store.chroma.codec import decision_document as decision_document
    from langgraph_memory.store.chroma.codec import decision_from_document as decision_from_document
    from langgraph_memory.store.chroma.codec import decision_metadata as decision_metadata
    from langgraph_memory.store.chroma.codec import metadata_clauses as metadata_clauses
    from langgraph_memory.store.chroma.codec import revalue as revalue
    from langgraph_memory.store.chroma.codec import to_epoch as to_epoch
    from langgraph_memory.store.chroma.codec import version_from_record as version_from_record
    from langgraph_memory.store.chroma.codec import version_metadata as version_metadata
    from langgraph_memory.store.chroma.collection_io import append_decisions as append_decisions
    from langgraph_memory.store.chroma.collection_io import chunks as chunks
    from langgraph_memory.store.chroma.collection_io import cosines as cosines
    from langgraph_memory.store.chroma.collection_io import fetch as fetch
    from langgraph_memory.store.chroma.collection_io import field_matrices as field_matrices
    from langgraph_memory.store.chroma.collection_io import (
        finish_interrupted_bucket_moves as finish_interrupted_bucket_moves,
    )
    from langgraph_memory.store.chroma.collection_io import (
        finish_interrupted_moves as finish_interrupted_moves,
    )
    from langgraph_memory.store.chroma.collection_io import free_ids as free_ids
    from langgraph_memory.store.chroma.collection_io import ids_where as ids_where
    from langgraph_memory.store.chroma.collection_io import insert as insert
    from langgraph_memory.store.chroma.collection_io import insert_shares as insert_shares
    from langgraph_memory.store.chroma.collection_io import log_id as log_id
    from langgraph_memory.store.chroma.collection_io import max_batch as max_batch
    from langgraph_memory.store.chroma.collection_io import nearest_ids as nearest_ids
    from langgraph_memory.store.chroma.collection_io import new_ids as new_ids
    from langgraph_memory.store.chroma.collection_io import query as query
    from langgraph_memory.store.chroma.collection_io import query_versions as query_versions
    from langgraph_memory.store.chroma.collection_io import read_decisions as read_decisions
    from langgraph_memory.store.chroma.collection_io import similar as similar
    from langgraph_memory.store.chroma.collection_io import stored_vectors as stored_vectors
    from langgraph_memory.store.chroma.compaction import SQLITE_FILE as SQLITE_FILE
    from langgraph_memory.store.chroma.compaction import compact_directory as compact_directory
    from langgraph_memory.store.chroma.compaction import recover_staged as recover_staged
    from langgraph_memory.store.chroma.directory_lock import LOCK_FILE as LOCK_FILE
    from langgraph_memory.store.chroma.directory_lock import DirectoryLock as DirectoryLock
    from langgraph_memory.store.chroma.directory_lock import purge_wait as purge_wait
    from langgraph_memory.store.chroma.directory_lock import try_lock as try_lock
    from langgraph_memory.store.chroma.door import MissingCollectionError as MissingCollectionError
    from langgraph_memory.store.chroma.door import RawClient as RawClient
    from langgraph_memory.store.chroma.door import VectorClient as VectorClient
    from langgraph_memory.store.chroma.door import VectorCollection as VectorCollection
    from langgraph_memory.store.chroma.door import chroma_server as chroma_server
    from langgraph_memory.store.chroma.door import client_of as client_of
    from langgraph_memory.store.chroma.door import is_raw_client as is_raw_client
    from langgraph_memory.store.chroma.door import persistent as persistent
    from langgraph_memory.store.chroma.formats import FORMAT as FORMAT
    from langgraph_memory.store.chroma.formats import RELEASES as RELEASES
    from langgraph_memory.store.chroma.layout import JOURNAL_FILE as JOURNAL_FILE
    from langgraph_memory.store.chroma.layout import ScopeCollections as ScopeCollections
    from langgraph_memory.store.chroma.layout import mark_ttl as mark_ttl
    from langgraph_memory.store.chroma.layout import scope_hash as scope_hash
    from langgraph_memory.store.chroma.layout import ttl_scopes as ttl_scopes
    from langgraph_memory.store.chroma.rebuild import copy_collection as copy_collection
    from langgraph_memory.store.chroma.review_records import delete_reviews as delete_reviews
    from langgraph_memory.store.chroma.review_records import get_review as get_review
    from langgraph_memory.store.chroma.review_records import known_reviews as known_reviews
    from langgraph_memory.store.chroma.review_records import list_reviews as list_reviews
    from langgraph_memory.store.chroma.review_records import restore_reviews as restore_reviews
    from langgraph_memory.store.chroma.review_records import reviews_involving as reviews_involving
    from langgraph_memory.store.chroma.review_records import save_reviews as save_reviews

#: Where each name the other rooms use lives: loaded on first use (PEP 562), so that
#: importing one module of the room loads no other.
_LAZY = {
    "append_decisions": "langgraph_memory.store.chroma.collection_io",
    "delete_reviews": "langgraph_memory.store.chroma.review_records",
    "get_review": "langgraph_memory.store.chroma.review_records",
    "known_reviews": "langgraph_memory.store.chroma.review_records",
    "list_reviews": "langgraph_memory.store.chroma.review_records",
    "log_id": "langgraph_memory.store.chroma.collection_io",
    "read_decisions": "langgraph_memory.store.chroma.collection_io",
    "restore_reviews": "langgraph_memory.store.chroma.review_records",
    "reviews_involving": "langgraph_memory.store.chroma.review_records",
    "save_reviews": "langgraph_memory.store.chroma.review_records",
    "ScopeCollections": "langgraph_memory.store.chroma.layout",
    "mark_ttl": "langgraph_memory.store.chroma.layout",
    "scope_hash": "langgraph_memory.store.chroma.layout",
    "ttl_scopes": "langgraph_memory.store.chroma.layout",
    "CHAIN_KEY": "langgraph_memory.store.chroma.codec",
    "DirectoryLock": "langgraph_memory.store.chroma.directory_lock",
    "EXPIRES_KEY": "langgraph_memory.store.chroma.codec",
    "FIELDS_KEY": "langgraph_memory.store.chroma.codec",
    "FORMAT": "langgraph_memory.store.chroma.formats",
    "INDEXED_KEY": "langgraph_memory.store.chroma.codec",
    "JOURNAL_FILE": "langgraph_memory.store.chroma.layout",
    "LOCK_FILE": "langgraph_memory.store.chroma.directory_lock",
    "MissingCollectionError": "langgraph_memory.store.chroma.door",
    "NOT_EPISODE": "langgraph_memory.store.chroma.codec",
    "RELEASES": "langgraph_memory.store.chroma.formats",
    "RawClient": "langgraph_memory.store.chroma.door",
    "SOURCES": "langgraph_memory.store.chroma.codec",
    "SQLITE_FILE": "langgraph_memory.store.chroma.compaction",
    "TEXT_FIELDS": "langgraph_memory.store.chroma.codec",
    "USER_PREFIX": "langgraph_memory.store.chroma.codec",
    "VectorClient": "langgraph_memory.store.chroma.door",
    "VectorCollection": "langgraph_memory.store.chroma.door",
    "all_of": "langgraph_memory.store.chroma.codec",
    "chroma_server": "langgraph_memory.store.chroma.door",
    "chunks": "langgraph_memory.store.chroma.collection_io",
    "client_of": "langgraph_memory.store.chroma.door",
    "compact_directory": "langgraph_memory.store.chroma.compaction",
    "copy_collection": "langgraph_memory.store.chroma.rebuild",
    "cosines": "langgraph_memory.store.chroma.collection_io",
    "decision_document": "langgraph_memory.store.chroma.codec",
    "decision_from_document": "langgraph_memory.store.chroma.codec",
    "decision_metadata": "langgraph_memory.store.chroma.codec",
    "fetch": "langgraph_memory.store.chroma.collection_io",
    "insert_shares": "langgraph_memory.store.chroma.collection_io",
    "new_ids": "langgraph_memory.store.chroma.collection_io",
    "field_matrices": "langgraph_memory.store.chroma.collection_io",
    "finish_interrupted_bucket_moves": "langgraph_memory.store.chroma.collection_io",
    "finish_interrupted_moves": "langgraph_memory.store.chroma.collection_io",
    "free_ids": "langgraph_memory.store.chroma.collection_io",
    "ids_where": "langgraph_memory.store.chroma.collection_io",
    "insert": "langgraph_memory.store.chroma.collection_io",
    "is_raw_client": "langgraph_memory.store.chroma.door",
    "max_batch": "langgraph_memory.store.chroma.collection_io",
    "metadata_clauses": "langgraph_memory.store.chroma.codec",
    "nearest_ids": "langgraph_memory.store.chroma.collection_io",
    "persistent": "langgraph_memory.store.chroma.door",
    "purge_wait": "langgraph_memory.store.chroma.directory_lock",
    "query": "langgraph_memory.store.chroma.collection_io",
    "query_versions": "langgraph_memory.store.chroma.collection_io",
    "recover_staged": "langgraph_memory.store.chroma.compaction",
    "revalue": "langgraph_memory.store.chroma.codec",
    "similar": "langgraph_memory.store.chroma.collection_io",
    "stored_vectors": "langgraph_memory.store.chroma.collection_io",
    "to_epoch": "langgraph_memory.store.chroma.codec",
    "try_lock": "langgraph_memory.store.chroma.directory_lock",
    "version_from_record": "langgraph_memory.store.chroma.codec",
    "version_metadata": "langgraph_memory.store.chroma.codec",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = faces(__name__, _LAZY, globals())
