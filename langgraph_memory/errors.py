"""Errors raised by langgraph_memory.

Every error says what went wrong and what to do about it. They all derive from
:class:`MemoryKitError`, and each also derives from the closest built-in
exception (``ValueError``, ``TypeError``, ``KeyError``, ``LookupError`` ...), so
``except ValueError`` keeps working for callers who do not know this package.
Bad input (an argument of the wrong type or value, a scope or namespace that
cannot be, a record that cannot be read) always raises one of these, never a
bare built-in error or a dependency's: tests/test_error_contract.py walks the
public API to hold that.

One more lives in ``langgraph_memory.store``, since it also derives from LangGraph's
``InvalidNamespaceError`` and this module imports nothing heavy:
``InvalidStoreNamespaceError``.

>>> from langgraph_memory.errors import InvalidScopeError, InvalidTypeError, MemoryKitError
>>> issubclass(InvalidScopeError, ValueError) and issubclass(InvalidScopeError, MemoryKitError)
True
>>> issubclass(InvalidTypeError, TypeError) and issubclass(InvalidTypeError, ValueError)
True
"""

from __future__ import annotations

from collections.abc import Sequence


class MemoryKitError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidScopeError(MemoryKitError, ValueError):
    """A scope string, namespace or id that cannot name a scope."""


class MissingScopeKeyError(MemoryKitError, KeyError):
    """A run's config lacks the ``configurable`` key that names the scope."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0]) if self.args else ""


class InvalidMemoryError(MemoryKitError, ValueError):
    """A memory field (text, importance, metadata ...) that cannot be stored."""


class MemoryNotFoundError(MemoryKitError, LookupError):
    """No memory with that id in that scope."""


class ScopeNotEmptyError(MemoryKitError, ValueError):
    """An import into a scope that already holds data (it only fills an empty one)."""


class MemoryArchivedError(MemoryKitError, ValueError):
    """The memory was archived; only active memories can change."""


class InvalidArgumentError(MemoryKitError, ValueError):
    """An argument a call cannot use: a ``k`` out of range, an id that is not a
    str, a naive datetime, text that is not valid Unicode ..."""


class InvalidTypeError(InvalidArgumentError, TypeError):
    """An argument of a type the call cannot take: ``5`` where a ``MemoryStore``
    goes, one str where a list of them goes, a keyword the call does not know.
    Python reports these as ``TypeError``; this is one, and an
    ``InvalidArgumentError`` too, so either ``except`` catches it."""


class MissingStateKeyError(MemoryKitError, KeyError):
    """A graph state lacks a key a memory node reads (``messages``)."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0]) if self.args else ""


class EmbeddingMismatchError(MemoryKitError, ValueError):
    """A vector the store cannot use: from another embedder, of another
    dimension, or holding NaN or infinite values."""


class EmbedderError(MemoryKitError, RuntimeError):
    """The offline embedder cannot load or run its model."""


class ModelFileError(MemoryKitError, RuntimeError):
    """A model file the package ships (the offline model's classifier of acts) is
    altered or unreadable: reinstall the package."""


class StoreLockedError(MemoryKitError, RuntimeError):
    """Another process holds the embedded store's directory (or the child of a purge
    whose app was killed still held it when the open's wait ran out:
    ``$LANGGRAPH_MEMORY_PURGE_WAIT``)."""


class StoreFormatError(MemoryKitError, RuntimeError):
    """A store written in a format this release does not open as it is: a newer
    one (upgrade the package), or an older one that needs ``langgraph-memory
    migrate`` first."""


class StoreClosedError(MemoryKitError, RuntimeError):
    """The store was closed; open it again to use it."""


class CompactionError(MemoryKitError, RuntimeError):
    """Purged records are deleted, but the files could not be compacted yet."""


class ChromaInternalsError(CompactionError):
    """The installed chromadb is not one whose internals the hard delete was checked
    against, or lacks one of them: a purge refuses before it deletes anything
    (``store/chroma/internals.py``); install a chromadb the package supports."""


class NestedPurgeError(MemoryKitError, RuntimeError):
    """A purge (or another call that needs the store alone) called from inside a
    store operation of the same thread, which it would wait for forever: call it
    after that operation returns."""


class ScriptExhaustedError(MemoryKitError, RuntimeError):
    """A ``ScriptedChatModel`` was asked for more answers than its script holds
    (and has no ``default``): the test script is too short."""


class MissingDependencyError(MemoryKitError, ImportError):
    """An optional dependency a name needs is not installed (``MemoryMiddleware``
    needs langchain); the message says what to install."""


class ConflictingPackageError(MemoryKitError, ImportError):
    """Another installed package (PyPI's ``langgraph-memory``) uses the import name
    ``langgraph_memory``; the message says what to uninstall and reinstall."""


class AmbiguousMemoryError(MemoryKitError, LookupError):
    """A description matches several memories; ``matches`` lists them."""

    def __init__(self, message: str, matches: Sequence[object] | None = None) -> None:
        super().__init__(message)
        self.matches = list(matches or [])

    @property
    def candidates(self) -> list[object]:
        """Deprecated name of ``matches`` (until release 0.4.0)."""
        import warnings

        warnings.warn(
            "AmbiguousMemoryError.candidates is renamed matches", DeprecationWarning, stacklevel=2
        )
        return self.matches


class ModelConfigError(MemoryKitError, ValueError):
    """A chat model that cannot be built from what was given."""


class QueueFullError(MemoryKitError, RuntimeError):
    """The background writer already holds ``max_pending`` turns."""


class QueueConfigError(MemoryKitError, ValueError):
    """A shared queue for deferred turns that cannot be set up from what was given
    (``BackgroundWriter(queue=...)`` or ``$LANGGRAPH_MEMORY_QUEUE_URL``): a URL of an
    unknown kind, a server that does not answer, or a store it cannot serve. The
    message says what to pass."""


class QueueError(MemoryKitError, RuntimeError):
    """The shared queue did not answer while a turn was handed to it: the turn was
    not accepted (nothing was queued); retry the submit."""


class WriterClosedError(MemoryKitError, RuntimeError):
    """The background writer was closed; it takes no more turns."""


class AdminRequiredError(MemoryKitError, PermissionError):
    """A write to an org scope through a store that is no admin view (see
    ``MemoryStore.admin``), or through the write path or its tools, which never
    write one."""


class ReviewNotFoundError(MemoryKitError, LookupError):
    """No review with that id (``MemoryStore.reviews`` lists them)."""


class ReviewInvalidError(MemoryKitError, ValueError):
    """A review the store cannot vouch for: it moves a memory sideways or down, or
    its memory is not (or no longer) what its source scope holds and proposed."""


class ReviewDecidedError(MemoryKitError, ValueError):
    """The review was approved or rejected already; a decision is made once."""


class JournalError(MemoryKitError, ValueError):
    """A journal record that cannot be read back, a damaged journal that cannot be
    kept, or a journal used after ``close()``."""


class LockConfigError(MemoryKitError, ValueError):
    """A cross-process scope lock that cannot be set up from what was given
    (``MemoryStore(lock=...)`` or ``$LANGGRAPH_MEMORY_LOCK_URL``): a URL of an
    unknown kind (the other value taken is ``"in-process"``), ``"in-process"``
    beside a shared queue, or a server that does not answer. The message says what
    to pass."""


class ScopeLockError(MemoryKitError, RuntimeError):
    """A write whose cross-process scope lock could not be taken within its bound
    (``lock_timeout``), or was lost while held (a Redis lease that ran out, a
    Postgres session that dropped): the write stopped before it was applied, and
    nothing was written unlocked. Retry the write (a deferred turn is retried
    from its queue)."""
