"""Who may use the inspector: the holder of its token, from the address it serves.

The page shows a person's memory and can purge it, so every request needs the
token printed with the URL (as Jupyter does). The first visit trades the token in
the URL for a cookie (HttpOnly, SameSite=Strict) and is redirected to the same page
without it, so the token does not stay in the address bar or the history. A request
without the token gets 401; with a wrong one, 403. A request naming another host
than the loopback address it was served on (DNS rebinding) gets 400. Every response
forbids scripts, frames and outside resources (the page has no script at all).

State-changing requests are POSTs whose form carries the CSRF token (``csrf_ok``):
a GET never changes anything.

>>> sorted(allowed_hosts("127.0.0.1", 8765))
['127.0.0.1:8765', 'localhost:8765']
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

__all__ = ["COOKIE", "HEADERS", "Guard", "allowed_hosts", "csrf_ok", "same_token"]

ASGIApp = Callable[..., Awaitable[None]]
Scope = MutableMapping[str, Any]

#: The cookie that carries the token after the first visit.
COOKIE = "lgm_inspect"
#: On every response: no script, no frame, nothing from elsewhere, no referrer to other sites.
HEADERS = {
    "content-security-policy": (
        "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    # same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with
    # the page's own forms, and the origin check (csrf_ok) could not tell them apart.
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}


def same_token(given: str | None, token: str) -> bool:
    """Whether ``given`` is the token, compared in constant time.

    >>> same_token("abc", "abc"), same_token("abd", "abc"), same_token(None, "abc")
    (True, False, False)
    """
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def csrf_ok(
    form: dict[str, str], origin: str | None, csrf: str, allowed_hosts: frozenset[str]
) -> bool:
    """Whether a POST may change anything: its form holds the CSRF token, and its
    ``Origin`` (when the browser sends one) is the inspector's own.

    >>> csrf_ok({"csrf": "t"}, "http://127.0.0.1:8765", "t", frozenset({"127.0.0.1:8765"}))
    True
    >>> csrf_ok({"csrf": "t"}, "http://evil.example", "t", frozenset({"127.0.0.1:8765"}))
    False
    """
    if not same_token(form.get("csrf"), csrf):
        return False
    if origin is None or not allowed_hosts:
        return True
    return origin.split("://", 1)[-1] in allowed_hosts


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` headers a request may carry: served on a loopback address, only
    the loopback names (so a page on another site's name cannot reach it through
    DNS rebinding); served on a network address (``--host``), any, the token alone
    guarding it (an empty set).

    >>> sorted(allowed_hosts("::1", 9000)), allowed_hosts("0.0.0.0", 9000)
    (['[::1]:9000', 'localhost:9000'], frozenset())
    """
    if not _loopback(host):
        return frozenset()
    named = {"localhost", f"[{host}]" if ":" in host else host}
    return frozenset(f"{h}:{port}" for h in named)


class Guard:
    """ASGI middleware: the token check, the host check and the security headers."""

    def __init__(self, app: ASGIApp, *, token: str, host: str, port: int) -> None:
        self.app = app
        self.token = token
        self.allowed_hosts = allowed_hosts(host, port)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # lifespan
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        if self.allowed_hosts and headers.get("host") not in self.allowed_hosts:
            await _answer(send, 400, "This inspector answers on its own address only.")
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = dict(query).get("token")
        if given is not None:
            if not same_token(given, self.token):
                await _answer(send, 403, "Wrong token: open the URL that `inspect` printed.")
                return
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            location = scope["path"] + (f"?{rest}" if rest else "")
            cookie = f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/"
            await _answer(send, 303, "", [("location", location), ("set-cookie", cookie)])
            return
        jar = SimpleCookie(headers.get("cookie", ""))
        held = jar[COOKIE].value if COOKIE in jar else None
        if held is None:
            await _answer(
                send, 401, "Open the URL `langgraph-memory inspect` printed: it holds the token."
            )
            return
        if not same_token(held, self.token):
            await _answer(send, 403, "Wrong token: open the URL that `inspect` printed.")
            return

        async def secured(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    *((k.encode(), v.encode()) for k, v in HEADERS.items()),
                ]
            await send(message)

        await self.app(scope, receive, secured)


async def _answer(
    send: Any, status: int, text: str, headers: list[tuple[str, str]] | None = None
) -> None:
    """A plain-text response of the guard's own."""
    body = text.encode()
    sent = [
        ("content-type", "text/plain; charset=utf-8"),
        ("content-length", str(len(body))),
        *HEADERS.items(),
        *(headers or []),
    ]
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(k.encode(), v.encode()) for k, v in sent],
        }
    )
    await send({"type": "http.response.body", "body": body})
