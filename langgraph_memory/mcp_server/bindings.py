"""Whose memory an MCP connection reaches: a ``Binding`` (one scope, the trust its
requests to remember get, a name for the log), fixed when the server starts
(stdio) or by the bearer token a request carries (HTTP).

The HTTP server reads its tokens from a JSON file the operator writes; each token
is bound to one scope::

    {"tokens": [
      {"name": "alice-laptop", "scope": "user:alice", "trust": "medium",
       "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
      {"name": "bob-cursor", "scope": "user:bob", "token": "a long random string"}
    ]}

``sha256`` (the token's SHA-256, hex) keeps the token itself out of the file;
``token`` is accepted for a file only the server's user can read. A presented
token is hashed and compared with every entry in constant time
(``hmac.compare_digest``); tokens are never logged. ``trust`` is ``high``,
``medium`` (the default: the server cannot tell that the user asked) or ``low``.

>>> entry = {"name": "a", "scope": "user:alice", "token": "s3cret-token"}
>>> table = TokenTable.parse({"tokens": [entry]})
>>> table.binding("s3cret-token")
Binding(scope=Scope(kind='user', id='alice'), trust=<Trust.MEDIUM: 'medium'>, name='a')
>>> table.binding("wrong") is None
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph_memory.errors import InvalidArgumentError, MemoryKitError
from langgraph_memory.records import Trust
from langgraph_memory.scope import Scope, check_path_scope

__all__ = ["DEFAULT_TRUST", "MIN_TOKEN_CHARS", "Binding", "TokenTable", "token_sha256"]

#: The trust a request to remember gets unless a binding says otherwise: the client's
#: model asked, and the server cannot tell whether the user did.
DEFAULT_TRUST = Trust.MEDIUM
#: The shortest token a file may hold in clear (a guessable token is no lock).
MIN_TOKEN_CHARS = 12
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_FIELDS = frozenset({"name", "scope", "trust", "token", "sha256"})


@dataclass(frozen=True)
class Binding:
    """One connection's scope, the trust of what it asks to remember, and its name.

    >>> Binding(Scope.parse("user:alice")).trust
    <Trust.MEDIUM: 'medium'>
    """

    scope: Scope
    trust: Trust = DEFAULT_TRUST
    name: str = "stdio"


def token_sha256(token: str) -> str:
    """The SHA-256 of a token, hex: what the tokens file's ``sha256`` holds.

    >>> token_sha256("test")
    '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenTable:
    """The tokens file, read: each token's hash and its binding."""

    entries: tuple[tuple[str, Binding], ...]

    @classmethod
    def read(cls, path: str | Path) -> TokenTable:
        """The tokens file at ``path``; ``InvalidArgumentError`` says what is wrong.

        >>> TokenTable.read("/nonexistent.json")
        Traceback (most recent call last):
        ...
        langgraph_memory.errors.InvalidArgumentError: cannot read the tokens file ...
        """
        try:
            data = json.loads(Path(path).read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidArgumentError(
                f"cannot read the tokens file {path} ({exc}); it is JSON: "
                '{"tokens": [{"name": ..., "scope": "user:ID", "sha256": ...}]}'
            ) from None
        return cls.parse(data, where=str(path))

    @classmethod
    def parse(cls, data: Any, *, where: str = "the tokens file") -> TokenTable:
        """The table from the file's JSON; ``InvalidArgumentError`` names the entry and
        what it must be.

        >>> TokenTable.parse({"tokens": [{"name": "a", "scope": "org:acme", "token": "x" * 20}]})
        Traceback (most recent call last):
        ...
        langgraph_memory.errors.InvalidArgumentError: the tokens file, entry 0 ('a'): ...
        """
        tokens = data.get("tokens") if isinstance(data, Mapping) else None
        if not isinstance(tokens, list) or not tokens:
            raise InvalidArgumentError(
                f'{where}: expected {{"tokens": [...]}} with at least one entry'
            )
        entries = [_entry(item, i, where) for i, item in enumerate(tokens)]
        names = [b.name for _, b in entries]
        hashes = [h for h, _ in entries]
        if len(set(names)) < len(names) or len(set(hashes)) < len(hashes):
            raise InvalidArgumentError(f"{where}: two entries share a name or a token")
        return cls(tuple(entries))

    def binding(self, token: str) -> Binding | None:
        """The binding of ``token``, or None for a token the file does not hold.
        Every entry is compared, in constant time, whatever matches first."""
        presented = token_sha256(token)
        found = None
        for digest, binding in self.entries:
            if hmac.compare_digest(presented, digest):
                found = binding
        return found


def _entry(item: Any, i: int, where: str) -> tuple[str, Binding]:
    name = item.get("name") if isinstance(item, Mapping) else None
    here = f"{where}, entry {i} ({name!r})"
    if not isinstance(item, Mapping):
        raise InvalidArgumentError(f"{here}: an entry is a JSON object")
    unknown = set(item) - _FIELDS
    if unknown:
        raise InvalidArgumentError(f"{here}: unknown fields {sorted(unknown)}")
    if not isinstance(name, str) or not name.strip():
        raise InvalidArgumentError(f"{here}: give each entry a name (for the logs)")
    try:
        scope = check_path_scope(Scope.parse(str(item.get("scope", ""))))
        trust = Trust(item.get("trust", DEFAULT_TRUST.value))
    except (MemoryKitError, ValueError) as exc:
        raise InvalidArgumentError(
            f"{here}: {exc} (scope: kind:id, not org; trust: high, medium or low)"
        ) from None
    token, digest = item.get("token"), item.get("sha256")
    if (token is None) == (digest is None):
        raise InvalidArgumentError(f"{here}: give exactly one of token and sha256")
    if token is not None:
        if not isinstance(token, str) or len(token) < MIN_TOKEN_CHARS:
            raise InvalidArgumentError(
                f"{here}: a token is a string of at least {MIN_TOKEN_CHARS} characters "
                '(make one: python -c "import secrets; print(secrets.token_urlsafe(32))")'
            )
        digest = token_sha256(token)
    if not isinstance(digest, str) or not _HEX64.match(digest):
        raise InvalidArgumentError(f"{here}: sha256 is 64 lowercase hex digits")
    return digest, Binding(scope, trust, name.strip())
