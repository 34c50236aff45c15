"""The one door to Chroma: what the kit needs of a vector database, as two small
protocols, and their one implementation over Chroma.

Everything else in the package reaches its collections through
``VectorClient`` and ``VectorCollection``; no other module imports ``chromadb``
or calls a collection's methods (``tests/test_architecture.py`` fails on
either). Chroma's internals that a hard delete needs (its SQLite file, its
system cache) stay in ``internals``, behind its version check. A second backend
implements these two protocols, and ``client_of``/``persistent`` learn to build
it (see docs/architecture.md, "Where a new feature goes").

What the kit asks of a collection is little: records (an id, a vector, a
document, flat metadata) read by ids or by a metadata filter, in pages; the k
nearest records to a vector by cosine, with a filter; add, upsert, remove;
change the metadata of records in place; and a name and collection metadata it
can change (the store's format stamp, a rebuild's staging names). A read
returns ``Rows``, a query ``NearRows``: plain lists aligned with ``ids``.

>>> import tempfile
>>> client = persistent(tempfile.mkdtemp())
>>> c = client.open_or_create("demo", metadata={"lgm_format": 5}, cosine=True)
>>> c.add(["a", "b"], [[1.0, 0.0], [0.0, 1.0]], ["tea", "coffee"], [{"n": 1}, {"n": 2}])
>>> c.read(where={"n": 2}, include=["documents"])["documents"], c.size()
(['coffee'], 2)
>>> found = c.nearest([0.9, 0.1], 1, include=["documents", "distances"])
>>> found["ids"], round(1.0 - found["distances"][0], 2)
(['a'], 0.99)
>>> client.open("nothing here")
Traceback (most recent call last):
...
langgraph_memory.store.chroma.door.MissingCollectionError: no collection 'nothing here' ...
>>> client.close()
True
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, ParamSpec, Protocol, TypedDict, TypeVar, cast

import chromadb
import numpy as np
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.config import Settings
from chromadb.errors import InternalError, NotFoundError

from langgraph_memory.errors import MemoryKitError
from langgraph_memory.store.chroma import internals as chroma_internals

__all__ = [
    "CHROMA_VERSION",
    "PAGE",
    "Field",
    "MissingCollectionError",
    "NearField",
    "NearRows",
    "RawClient",
    "Rows",
    "VectorClient",
    "VectorCollection",
    "chroma_server",
    "client_of",
    "is_raw_client",
    "persistent",
]

#: What a read may return besides ids.
Field = Literal["documents", "metadatas", "embeddings"]
#: What a nearest-neighbour query may return besides ids.
NearField = Literal["documents", "metadatas", "distances"]
#: A metadata filter, in Chroma's operators (``{"a": 1}``, ``{"$and": [...]}``,
#: ``{"k": {"$in": [...]}}``): the one query language the kit speaks.
Where = Mapping[str, Any]
#: The client a caller hands to ``MemoryStore(client=...)``.
RawClient = ClientAPI
#: Records read per call: Chroma's get of every record of a collection over ~32k records
#: fails ("too many SQL variables"), so larger ones are read in pages.
PAGE = 10_000
#: The chromadb version installed (the store's format stamp records it).
CHROMA_VERSION = str(chromadb.__version__)


class MissingCollectionError(MemoryKitError, LookupError):
    """A collection that is not there: never made, dropped, or replaced by a
    rebuild in another process (a handle to it is stale; open it again)."""


class Rows(TypedDict):
    """Records read by ``VectorCollection.read``: lists aligned with ``ids``; a
    field not asked for is None. ``embeddings`` is a matrix, a row per id."""

    ids: list[str]
    documents: list[str] | None
    metadatas: list[Mapping[str, Any]] | None
    embeddings: Any


class NearRows(TypedDict):
    """The records ``VectorCollection.nearest`` found, best first: lists aligned
    with ``ids``. A record deleted between the index lookup and the record read
    comes back with ``None`` metadata. ``distances`` are cosine distances."""

    ids: list[str]
    documents: list[str] | None
    metadatas: list[Mapping[str, Any] | None] | None
    distances: list[float] | None


class VectorCollection(Protocol):
    """One collection of records: what the store needs of it."""

    @property
    def name(self) -> str:
        """The collection's name."""
        ...

    @property
    def uid(self) -> str:
        """An id of this collection that a rebuild changes: what caches key on."""
        ...

    @property
    def metadata(self) -> Mapping[str, Any] | None:
        """The collection's own metadata (the store's format stamp)."""
        ...

    def size(self) -> int:
        """How many records it holds."""
        ...

    def read(
        self,
        *,
        ids: Sequence[str] | None = None,
        where: Where | None = None,
        where_document: Where | None = None,
        include: Sequence[Field] = (),
        limit: int | None = None,
        offset: int | None = None,
    ) -> Rows:
        """The records with ``ids`` (those there), or matching ``where``, with the
        fields in ``include``; ``limit``/``offset`` page through them."""
        ...

    def nearest(
        self,
        vector: Sequence[float],
        k: int,
        *,
        where: Where | None = None,
        include: Sequence[NearField] = (),
    ) -> NearRows:
        """The ``k`` records nearest to ``vector`` (those matching ``where``), best first."""
        ...

    def add(
        self,
        ids: Sequence[str],
        vectors: Any,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> None:
        """Add new records (an id already there is refused by the backend)."""
        ...

    def put(
        self,
        ids: Sequence[str],
        vectors: Any,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> None:
        """Add records, or replace those with the same ids whole."""
        ...

    def patch(
        self,
        ids: Sequence[str],
        metadatas: Sequence[Mapping[str, Any]],
        *,
        vectors: Any = None,
        documents: Sequence[str] | None = None,
    ) -> None:
        """Change the records with ``ids`` in place (no new record): merge
        ``metadatas`` into theirs (a key set to None goes), and replace their
        vectors and documents when given."""
        ...

    def remove(self, *, ids: Sequence[str] | None = None, where: Where | None = None) -> None:
        """Remove the records with ``ids``, or matching ``where``."""
        ...

    def rename(self, name: str) -> None:
        """Give the collection another name (a rebuild's staging steps)."""
        ...

    def restamp(self, metadata: Mapping[str, Any]) -> None:
        """Replace the collection's own metadata (a migration's new format stamp)."""
        ...

    def persist_every_write(self) -> None:
        """Write the collection's vector index to disk after every write from now on,
        and now: one an earlier release made was written every 1,000 changes (see
        ``ChromaCollection._persisted``). Nothing for one that does already. Call it
        once the store's format is known to be readable (it writes), and before the
        collection is read in this process (Chroma keeps the setting an index had
        when a read loaded it)."""
        ...

    def persist_now_and_then(self) -> None:
        """Write the collection's vector index to disk every ``PLACEHOLDER_PERSIST``
        changes from now on: a collection of placeholder vectors that grows with the
        number of people (the registry). Nothing for one that does already. Like
        ``persist_every_write``, call it once the store's format is known to be
        readable."""
        ...

    @property
    def index(self) -> Mapping[str, Any] | None:
        """The settings of its vector index (a copy is made with the same)."""
        ...


class VectorClient(Protocol):
    """A database of collections: what the store needs of it."""

    @property
    def raw(self) -> Any:
        """The backend's own client: what ``internals(store).client`` gives users."""
        ...

    #: How many collection handles this client made (``open``, and ``open_or_create`` of
    #: one that exists): what an embedded Chroma may have loaded and written since it
    #: started, which the store bounds by starting a new one (``Engine.recycle_if_due``).
    opened: int

    @property
    def directory(self) -> Path | None:
        """The directory of an embedded database; None for a server."""
        ...

    @property
    def data_name(self) -> str:
        """What the data lives in, named the same by every process that reaches it:
        a server's tenant and database; "" for an embedded database."""
        ...

    @property
    def server(self) -> str:
        """The address of the server the data is on (``http://host:port``), which
        other processes may write too; "" when it is in this process (a directory,
        or memory)."""
        ...

    def open(self, name: str) -> VectorCollection:
        """The collection ``name``; ``MissingCollectionError`` when there is none."""
        ...

    def open_or_create(
        self,
        name: str,
        *,
        metadata: Mapping[str, Any] | None = None,
        cosine: bool = False,
        placeholders: bool = False,
    ) -> VectorCollection:
        """The collection ``name``, made (with ``metadata``; a cosine index when
        ``cosine``) when there is none; an existing one keeps its metadata. With
        ``placeholders`` its records' vectors are placeholders (``dummy_vectors``)
        that nothing reads: a new one's index is written to disk only now and then
        (see ``PLACEHOLDER_PERSIST``; ``persist_now_and_then`` for an existing one)."""
        ...

    def create(
        self,
        name: str,
        *,
        metadata: Mapping[str, Any] | None = None,
        index: Mapping[str, Any] | None = None,
    ) -> VectorCollection:
        """A new collection ``name`` with ``metadata`` and the vector ``index``
        settings of another (``VectorCollection.index``); refused when it exists."""
        ...

    def drop(self, name: str) -> None:
        """Delete the collection ``name``; ``MissingCollectionError`` when there is none."""
        ...

    def names(self) -> list[str]:
        """The names of every collection in the database, the store's or not."""
        ...

    def max_batch(self) -> int:
        """The most records one write may carry."""
        ...

    def close(self) -> bool:
        """Let go of the database; True when an embedded one's directory is free
        in this process (another process may write it now)."""
        ...


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _gone(what: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Chroma's ``NotFoundError`` as the door's ``MissingCollectionError``."""

    def wrap(call: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(call)
        def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return call(*args, **kwargs)
            except NotFoundError as exc:
                raise MissingCollectionError(f"{what}: {exc}") from exc

        return run

    return wrap


def _emptied_index(exc: InternalError) -> bool:
    """Whether Chroma failed to load a vector index it wrote with no records in it.

    Chroma (1.5) reads an index written empty (every record of a collection that had
    some deleted) as "Nothing found on disk" once it loads it again (after a restart,
    or after its cache let it go), and fails a read that needs it: a get with vectors
    and a nearest query without a filter, even where the answer is nothing. The
    door's reads answer what is there instead: nothing.
    """
    return "Nothing found on disk" in str(exc)


def _vectors(vectors: Any) -> Any:
    return np.asarray(vectors, dtype=np.float32)


def _records(
    ids: Sequence[str],
    vectors: Any,
    documents: Sequence[str | None] | None,
    metadatas: Sequence[Mapping[str, Any] | None] | None,
) -> dict[str, Any]:
    """A write's records as Chroma's ``add`` and ``upsert`` take them."""
    return {
        "ids": list(ids),
        "embeddings": _vectors(vectors),
        "documents": None if documents is None else list(documents),
        "metadatas": None if metadatas is None else list(metadatas),
    }


class ChromaCollection:
    """``VectorCollection`` over a Chroma collection."""

    __slots__ = ("chroma",)

    def __init__(self, chroma: Collection) -> None:
        self.chroma = chroma

    def __repr__(self) -> str:
        return f"ChromaCollection({self.chroma.name!r})"

    @property
    def name(self) -> str:
        return str(self.chroma.name)

    @property
    def uid(self) -> str:
        return str(self.chroma.id.hex)

    @property
    def metadata(self) -> Mapping[str, Any] | None:
        return self.chroma.metadata

    @_gone("a collection count")
    def size(self) -> int:
        return int(self.chroma.count())

    @_gone("a collection read")
    def read(
        self,
        *,
        ids: Sequence[str] | None = None,
        where: Where | None = None,
        where_document: Where | None = None,
        include: Sequence[Field] = (),
        limit: int | None = None,
        offset: int | None = None,
    ) -> Rows:
        def get(fields: Sequence[Field]) -> Rows:
            return cast(
                Rows,
                self.chroma.get(
                    ids=None if ids is None else list(ids),
                    where=cast(Any, where),  # chromadb's Where type is narrower than its operators
                    where_document=cast(Any, where_document),
                    include=cast(Any, list(fields)),
                    limit=limit,
                    offset=offset,
                ),
            )

        try:
            return get(include)
        except InternalError as exc:
            if not _emptied_index(exc):
                raise
            # The records asked for are looked up without their vectors: none there
            # is an empty answer; some there is an index truly missing, raised.
            found = get([f for f in include if f != "embeddings"])
            if found["ids"]:
                raise
            return {**found, "embeddings": []}

    @_gone("a nearest-neighbour query")
    def nearest(
        self,
        vector: Sequence[float],
        k: int,
        *,
        where: Where | None = None,
        include: Sequence[NearField] = (),
    ) -> NearRows:
        try:
            found = self.chroma.query(
                query_embeddings=_vectors([vector]),
                n_results=k,
                where=cast(Any, where),
                include=cast(Any, list(include)),
            )
        except InternalError as exc:
            if not _emptied_index(exc) or self.chroma.count():
                raise
            return {
                "ids": [],
                "documents": [] if "documents" in include else None,
                "metadatas": [] if "metadatas" in include else None,
                "distances": [] if "distances" in include else None,
            }
        return {
            "ids": found["ids"][0],
            "documents": None if found["documents"] is None else found["documents"][0],
            "metadatas": None if found["metadatas"] is None else list(found["metadatas"][0]),
            "distances": None if found["distances"] is None else found["distances"][0],
        }

    def _persisted(self, changes: int) -> None:
        """Make Chroma write the index to disk after a write of ``changes`` records.

        Chroma (1.5) writes a collection's vector index to disk once ``sync_threshold``
        changes gathered (the store's collections say 2, the least it takes), and when
        it lets go of an index in memory (its cache is full) it reloads the last one
        written: an index that was not written is read as missing ("Nothing found on
        disk") or without the records added since, until the process restarts.
        Measured: 30 collections, a cache of 4 indexes, one record added to each per
        round: 8 of 30 read wrong in the third round. So a write of one record is
        followed by the delete of an id no record has, which Chroma counts as a
        change: every write leaves its index on disk, and the cache may drop any.
        """
        if changes < PERSIST_EVERY and not holds_placeholders(self.index):
            self.chroma.delete(ids=[PHANTOM_ID])

    @_gone("a configuration change")
    def persist_now_and_then(self) -> None:
        if not holds_placeholders(self.index):
            self.chroma.modify(configuration=_PLACEHOLDERS)

    @_gone("a configuration change")
    def persist_every_write(self) -> None:
        hnsw = (self.chroma.configuration_json or {}).get("hnsw") or {}
        if hnsw.get("sync_threshold") not in (None, PERSIST_EVERY):
            self.chroma.modify(configuration=cast(Any, {"hnsw": {"sync_threshold": PERSIST_EVERY}}))
            self.chroma.delete(ids=[PHANTOM_ID])  # what it holds unwritten, written now

    @_gone("a write")
    def add(
        self,
        ids: Sequence[str],
        vectors: Any,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> None:
        self.chroma.add(**_records(ids, vectors, documents, metadatas))
        self._persisted(len(ids))

    @_gone("a write")
    def put(
        self,
        ids: Sequence[str],
        vectors: Any,
        documents: Sequence[str | None] | None = None,
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> None:
        self.chroma.upsert(**_records(ids, vectors, documents, metadatas))
        self._persisted(len(ids))

    @_gone("a metadata write")
    def patch(
        self,
        ids: Sequence[str],
        metadatas: Sequence[Mapping[str, Any]],
        *,
        vectors: Any = None,
        documents: Sequence[str] | None = None,
    ) -> None:
        self.chroma.update(
            ids=list(ids),
            metadatas=cast(Any, [dict(m) for m in metadatas]),
            embeddings=None if vectors is None else _vectors(vectors),
            documents=None if documents is None else list(documents),
        )
        if vectors is not None:  # metadata alone changes nothing the vector index holds
            self._persisted(len(ids))

    @_gone("a delete")
    def remove(self, *, ids: Sequence[str] | None = None, where: Where | None = None) -> None:
        self.chroma.delete(ids=None if ids is None else list(ids), where=cast(Any, where))
        self._persisted(0 if ids is None else len(ids))  # a filter's count is unknown

    @_gone("a rename")
    def rename(self, name: str) -> None:
        self.chroma.modify(name=name)

    @_gone("a metadata change")
    def restamp(self, metadata: Mapping[str, Any]) -> None:
        self.chroma.modify(metadata=dict(metadata))

    @property
    def index(self) -> Mapping[str, Any] | None:
        hnsw = {
            k: v
            for k, v in ((self.chroma.configuration_json or {}).get("hnsw") or {}).items()
            if v is not None
        }
        return {"hnsw": hnsw} if hnsw else None


#: Chroma writes a collection's vector index to disk after this many changes (its least):
#: see ``ChromaCollection._persisted``.
PERSIST_EVERY = 2
#: An id no record has (not of the kit's ids, which are UUIDs or ``lgm-`` hashes).
PHANTOM_ID = "lgm-persist-index"
_PLAIN: Any = {"hnsw": {"sync_threshold": PERSIST_EVERY}}
_COSINE: Any = {"hnsw": {"space": "cosine", "sync_threshold": PERSIST_EVERY}}
#: How often Chroma writes the index of a collection of placeholder vectors (the
#: registry, an entry per person: ``open_or_create(..., placeholders=True)``). Chroma
#: writes a whole index each time, and the registry's grows with every person: written
#: on every write, one entry's write took 7.5 ms beside 1,000 others and 55 ms beside
#: 100,000 (1,000 changes a write: 4.6 and 6.3 ms). No read needs those vectors: reads
#: go by id, and a copy writes placeholders again (``rebuild.read_all``), so an index
#: Chroma let go unwritten loses nothing. The value also marks such a collection.
PLACEHOLDER_PERSIST = 1024
_PLACEHOLDERS: Any = {"hnsw": {"sync_threshold": PLACEHOLDER_PERSIST}}


def dummy_vectors(n: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    """Placeholder vectors for records that need none (Chroma wants one per record).

    >>> dummy_vectors(2).tolist()
    [[1.0], [1.0]]
    """
    return np.ones((n, 1), dtype=np.float32)


def holds_placeholders(index: Mapping[str, Any] | None) -> bool:
    """Whether a collection with these index settings (``VectorCollection.index``)
    holds placeholder vectors (see ``PLACEHOLDER_PERSIST``).

    >>> holds_placeholders({"hnsw": {"sync_threshold": PLACEHOLDER_PERSIST}})
    True
    >>> holds_placeholders({"hnsw": {"sync_threshold": PERSIST_EVERY}}), holds_placeholders(None)
    (False, False)
    """
    return ((index or {}).get("hnsw") or {}).get("sync_threshold") == PLACEHOLDER_PERSIST


class ChromaClient:
    """``VectorClient`` over a Chroma client (embedded or a server's)."""

    __slots__ = ("chroma", "opened")

    def __init__(self, chroma: ClientAPI) -> None:
        self.chroma = chroma
        self.opened = 0

    def __repr__(self) -> str:
        return f"ChromaClient({self.directory or self.data_name or 'server'})"

    @property
    def raw(self) -> ClientAPI:
        return self.chroma

    @property
    def directory(self) -> Path | None:
        settings = self.chroma.get_settings()
        if settings.is_persistent and settings.persist_directory:
            return Path(settings.persist_directory).resolve()
        return None

    @property
    def data_name(self) -> str:
        tenant = getattr(self.chroma, "tenant", None)
        database = getattr(self.chroma, "database", None)
        return f"{tenant}/{database}" if tenant and database else ""

    @property
    def server(self) -> str:
        settings = self.chroma.get_settings()
        # HttpClient (and Chroma Cloud's client) talk to a server through the FastAPI
        # implementation; an embedded or in-memory client runs Chroma in this process.
        if "fastapi" not in settings.chroma_api_impl.lower() or not settings.chroma_server_host:
            return ""
        scheme = "https" if settings.chroma_server_ssl_enabled else "http"
        return f"{scheme}://{settings.chroma_server_host}:{settings.chroma_server_http_port}"

    def open(self, name: str) -> VectorCollection:
        self.opened += 1  # a race between threads may miss one: a count, not a ledger
        try:
            return ChromaCollection(self.chroma.get_collection(name, embedding_function=None))
        except NotFoundError as exc:
            raise MissingCollectionError(f"no collection {name!r} ({exc})") from exc

    @_gone("a collection open")
    def open_or_create(
        self,
        name: str,
        *,
        metadata: Mapping[str, Any] | None = None,
        cosine: bool = False,
        placeholders: bool = False,
    ) -> VectorCollection:
        # A get first, and get_or_create only when there is none: Chroma's (1.5)
        # get_or_create of an existing collection takes the database's write lock
        # (BEGIN IMMEDIATE) and returns without ending that transaction, which its
        # pool rolls back a moment later. A configuration change right after it
        # (``persist_now_and_then``: a read, then a write in one transaction) then
        # fails at once with "database is locked", busy timeout or not. Measured on
        # the embedded client, the two cores busy: 28 and 53 of 3,000 open + modify
        # pairs failed with get_or_create, 0 of 3,000 with a get.
        try:
            return self.open(name)
        except MissingCollectionError:
            pass  # made below; get_or_create: another process may be making it too
        return ChromaCollection(
            self.chroma.get_or_create_collection(
                name,
                embedding_function=None,
                configuration=_PLACEHOLDERS if placeholders else _COSINE if cosine else _PLAIN,
                metadata=None if metadata is None else dict(metadata),
            )
        )

    @_gone("a collection create")
    def create(
        self,
        name: str,
        *,
        metadata: Mapping[str, Any] | None = None,
        index: Mapping[str, Any] | None = None,
    ) -> VectorCollection:
        persist = PLACEHOLDER_PERSIST if holds_placeholders(index) else PERSIST_EVERY
        hnsw = {**((index or {}).get("hnsw") or {}), "sync_threshold": persist}
        return ChromaCollection(
            self.chroma.create_collection(
                name,
                metadata=None if metadata is None else dict(metadata),
                configuration=cast(Any, {**(index or {}), "hnsw": hnsw}),
                embedding_function=None,
            )
        )

    @_gone("a collection drop")
    def drop(self, name: str) -> None:
        self.chroma.delete_collection(name)

    #: Collections listed per call (Chroma pages its listing).
    LIST_PAGE = 1000

    def names(self) -> list[str]:
        names: list[str] = []
        while True:
            page = self.chroma.list_collections(limit=self.LIST_PAGE, offset=len(names))
            names += [c.name for c in page]
            if len(page) < self.LIST_PAGE:
                return names

    def max_batch(self) -> int:
        try:
            return max(1, int(self.chroma.get_max_batch_size()))
        except Exception:  # older or remote clients may not say; Chroma's floor is 1,000+
            return 1000

    def close(self) -> bool:
        # Chroma shares one system per path in a process and stops it when the last
        # client on it closes; where that cannot be checked, assume it did not.
        close = getattr(self.chroma, "close", None)  # not on every ClientAPI
        if not callable(close):
            return False
        directory = self.directory
        close()
        return directory is not None and chroma_internals.open_in_process(str(directory)) is False


def is_raw_client(value: object) -> bool:
    """Whether ``value`` is a client ``MemoryStore(client=...)`` takes.

    >>> is_raw_client(object())
    False
    """
    return isinstance(value, ClientAPI)


def client_of(raw: Any) -> VectorClient:
    """The door over a client a caller passed in (``MemoryStore(client=...)``).

    >>> import chromadb
    >>> memory = client_of(chromadb.EphemeralClient())
    >>> memory.directory is None, memory.server  # in this process: no server
    (True, '')
    """
    return ChromaClient(raw)


def persistent(directory: str | os.PathLike[str], *, indexes: int | None = None) -> VectorClient:
    """An embedded database in ``directory`` (made when missing), keeping at most
    ``indexes`` collections' vector indexes in memory (None: Chroma's default, a fifth
    of the process's open-file limit), least recently used out.

    >>> import tempfile
    >>> persistent(tempfile.mkdtemp(), indexes=8).names()
    []
    """
    path = str(directory)
    settings = Settings(anonymized_telemetry=False, is_persistent=True, persist_directory=path)
    if indexes is not None:
        chroma_internals.start_embedded(settings, indexes)
    return ChromaClient(chromadb.PersistentClient(path=path, settings=settings))


def chroma_server(
    host: str,
    port: int,
    *,
    ssl: bool = False,
    headers: Mapping[str, str] | None = None,
    tenant: str | None = None,
    database: str | None = None,
) -> RawClient:
    """A client of a Chroma server (``chroma run``), as ``MemoryStore(client=...)``
    takes it; a missing tenant or database raises ``MissingCollectionError``, a
    server that does not answer Chroma's ``ValueError``.

    >>> chroma_server("127.0.0.1", 9)  # nothing listens on port 9
    Traceback (most recent call last):
    ...
    ValueError: Could not connect to a Chroma server. Are you sure it is running?
    """
    kwargs: dict[str, Any] = {
        "host": host,
        "port": port,
        "ssl": ssl,
        "headers": dict(headers or {}),
        "settings": Settings(anonymized_telemetry=False),
    }
    if tenant is not None:
        kwargs["tenant"] = tenant
    if database is not None:
        kwargs["database"] = database
    try:
        return chromadb.HttpClient(**kwargs)
    except NotFoundError as exc:
        raise MissingCollectionError(str(exc)) from exc
