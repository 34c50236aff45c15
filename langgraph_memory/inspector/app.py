"""The inspector's web app: server-rendered pages over one open store.

Pages (GET, which never change anything): ``/`` every scope with its counts; ``/person``
one scope's rules, facts and episodes with their timelines and filters; ``/memory`` a
memory's versions and every decision about it; ``/search`` the agent's read for a
question, each result's score taken apart and the prompt section the agent gets;
``/export`` the scope's export as a download; ``/purge`` the purge's confirmation.
Actions (POST, each with the CSRF token): ``/correct``, ``/pin``, ``/unpin``,
``/archive``, ``/purge-memory`` (hard, one memory), ``/purge`` (hard, the whole scope).
With ``read_only`` no action shows and every POST gets 403.

Every text from the store is escaped by the templates (Jinja2's autoescape) and made
one clean run of printable text first (``for_terminal``: no control, escape, bidi or
invisible characters), so a memory that holds markup or a script shows as its words.

>>> import tempfile
>>> from starlette.testclient import TestClient
>>> from langchain_core.embeddings import DeterministicFakeEmbedding
>>> from langgraph_memory.store import MemoryStore
>>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
>>> _ = store.add("user:alice", "User likes <b>tea</b>.")
>>> client = TestClient(create_app(store, token="t0ken-t0ken"), base_url="http://127.0.0.1:8765")
>>> client.get("/").status_code
401
>>> page = client.get("/person?scope=user:alice&token=t0ken-t0ken")
>>> page.status_code, "User likes &lt;b&gt;tea&lt;/b&gt;." in page.text
(200, True)
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Awaitable, Callable
from datetime import datetime
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from langgraph_memory.errors import (
    InvalidArgumentError,
    InvalidScopeError,
    MemoryArchivedError,
    MemoryKitError,
    MemoryNotFoundError,
)
from langgraph_memory.inspector import actions, views
from langgraph_memory.inspector.guard import Guard, allowed_hosts, csrf_ok
from langgraph_memory.records import Source
from langgraph_memory.scope import Scope
from langgraph_memory.text import for_terminal

if TYPE_CHECKING:
    from langgraph_memory.store import MemoryStore

__all__ = ["MAX_FORM_BYTES", "create_app"]

#: The largest action form read (a corrected text is at most a few KB).
MAX_FORM_BYTES = 256 * 1024
#: Scopes on one page of the scopes list.
SCOPES_PER_PAGE = 50
#: The most results a search shows.
MAX_K = 50
#: What a redirect after an action says on the page it lands on (never text from
#: the request: nothing a link could make the page say).
DONE = {
    "corrected": "Corrected: the new version is below; the old one stays in its history.",
    "pinned": "Pinned: it now comes with every read of this scope.",
    "unpinned": "Unpinned.",
    "archived": "Archived: it no longer reaches the agent, and stays in its history.",
    "purged_memory": "Purged for good: every version and every trace of it.",
    "purged": "Purged for good: everything this scope held, and every trace of it.",
}


class HTTPProblem(MemoryKitError):
    """A request that gets an error page: its status and what to tell the person
    (caught in this module: never raised out of a request)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("langgraph_memory.inspector", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["shown"] = lambda text: for_terminal(str(text), multiline=True)
    env.filters["day"] = lambda t: t.date().isoformat() if isinstance(t, datetime) else "-"
    env.filters["moment"] = lambda t: (
        t.strftime("%Y-%m-%d %H:%M UTC") if isinstance(t, datetime) else "-"
    )
    env.globals["query"] = lambda **kw: urlencode({k: v for k, v in kw.items() if v})
    return env


def create_app(
    store: MemoryStore,
    *,
    token: str | None = None,
    read_only: bool = False,
    host: str = "127.0.0.1",
    port: int = 8765,
) -> Starlette:
    """The inspector over ``store``, guarded by ``token`` (a random one when None),
    answering on ``host:port`` only when that is a loopback address.

    >>> import tempfile
    >>> from langchain_core.embeddings import DeterministicFakeEmbedding
    >>> from langgraph_memory.store import MemoryStore
    >>> store = MemoryStore(tempfile.mkdtemp(), embeddings=DeterministicFakeEmbedding(size=8))
    >>> app = create_app(store, token="t0ken-t0ken", read_only=True)
    >>> app.state.read_only, app.state.token
    (True, 't0ken-t0ken')
    """
    from langgraph_memory.store import check_store

    check_store(store)
    if token is not None and (not isinstance(token, str) or len(token) < 8):
        raise InvalidArgumentError("token must be a str of at least 8 characters, or None")
    token = token or secrets.token_urlsafe(24)
    env = _environment()
    csrf = secrets.token_urlsafe(24)
    css = resources.files("langgraph_memory.inspector").joinpath("static/inspector.css")
    stylesheet = css.read_bytes()
    hosts = allowed_hosts(host, port)

    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        done = request.query_params.get("done")
        html = env.get_template(name).render(
            read_only=read_only,
            csrf=csrf,
            done=DONE.get(done or ""),
            where=store.path or "a Chroma server",
            **context,
        )
        return HTMLResponse(html, status_code=status)

    def handled(
        endpoint: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                return await endpoint(request)
            except HTTPProblem as exc:
                return page(request, "problem.html", exc.status, message=exc.message)
            except MemoryNotFoundError as exc:
                return page(request, "problem.html", 404, message=str(exc))
            except MemoryArchivedError as exc:
                return page(request, "problem.html", 409, message=str(exc))
            except MemoryKitError as exc:  # bad input the store refused: nothing changed
                return page(request, "problem.html", 400, message=str(exc))

        return run

    def held(key: str | None) -> Scope:
        """The scope a request names, when the store holds it."""
        if not key:
            raise HTTPProblem(400, "Name a scope: ?scope=user:alice (the scopes page lists them).")
        try:
            scope = Scope.parse(key)
        except InvalidScopeError as exc:
            raise HTTPProblem(400, str(exc)) from None
        if scope not in store.scopes(scope.kind):
            raise HTTPProblem(404, f"This store holds nothing for {scope.key}.")
        return scope

    def number(value: str | None, name: str, default: int, high: int | None = None) -> int:
        if value in (None, ""):
            return default
        try:
            n = int(value)
        except ValueError:
            n = 0
        if n < 1 or (high is not None and n > high):
            top = f" to {high}" if high is not None else ""
            raise HTTPProblem(400, f"{name} must be a whole number from 1{top}.")
        return n

    @handled
    async def scopes_page(request: Request) -> Response:
        listed = await run_in_threadpool(store.scopes)
        pages = max(1, math.ceil(len(listed) / SCOPES_PER_PAGE))
        n = number(request.query_params.get("page"), "page", 1, pages)
        part = listed[(n - 1) * SCOPES_PER_PAGE : n * SCOPES_PER_PAGE]
        rows = await run_in_threadpool(views.scope_summaries, store, part)
        embedded = store.path is not None
        return page(request, "scopes.html", rows=rows, page=n, pages=pages, embedded=embedded)

    @handled
    async def person(request: Request) -> Response:
        q = request.query_params
        scope = await run_in_threadpool(held, q.get("scope"))
        filters = views.Filters(
            group=q.get("group", ""),
            state=q.get("state", "active"),
            source=q.get("source", ""),
            text=q.get("text", ""),
        )
        n = number(q.get("page"), "page", 1)
        shown = await run_in_threadpool(lambda: views.person_page(store, scope, filters, page=n))
        return page(
            request, "person.html", p=shown, sources=[s.value for s in Source], groups=views.GROUPS
        )

    @handled
    async def memory(request: Request) -> Response:
        q = request.query_params
        scope = await run_in_threadpool(held, q.get("scope"))
        memory_id = q.get("id") or ""
        shown = await run_in_threadpool(views.memory_page, store, scope, memory_id)
        return page(request, "memory.html", m=shown)

    @handled
    async def search(request: Request) -> Response:
        q = request.query_params
        scope = await run_in_threadpool(held, q.get("scope"))
        text = q.get("q", "")
        k = number(q.get("k"), "k", 5, MAX_K)
        found = None
        if text.strip():
            found = await run_in_threadpool(lambda: views.search_page(store, scope, text, k=k))
        return page(request, "search.html", scope=scope, q=text, k=k, found=found)

    @handled
    async def export(request: Request) -> Response:
        scope = await run_in_threadpool(held, request.query_params.get("scope"))
        data = await run_in_threadpool(store.export, scope)
        name = "".join(c if c.isalnum() else "-" for c in scope.key)
        return Response(
            json.dumps(data, ensure_ascii=False, indent=2) + "\n",
            media_type="application/json",
            headers={"content-disposition": f'attachment; filename="{name}.json"'},
        )

    @handled
    async def purge_form(request: Request) -> Response:
        scope = await run_in_threadpool(held, request.query_params.get("scope"))
        if read_only:
            raise HTTPProblem(403, "This inspector is read-only (--read-only): nothing changes.")
        counts = await run_in_threadpool(views.scope_summaries, store, [scope])
        return page(request, "purge.html", scope=scope, row=counts[0])

    async def form_of(request: Request) -> dict[str, str]:
        """The action's form, once the request may act at all."""
        if read_only:
            raise HTTPProblem(403, "This inspector is read-only (--read-only): nothing changes.")
        if request.headers.get("content-type", "").split(";")[0] != (
            "application/x-www-form-urlencoded"
        ):
            raise HTTPProblem(415, "Send the page's own form.")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:
                raise HTTPProblem(413, "That form is too large.")
        form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        if not csrf_ok(form, request.headers.get("origin"), csrf, hosts):
            raise HTTPProblem(
                403, "This form is stale or came from elsewhere: reload the page, then try again."
            )
        return form

    def act(
        change: Callable[[Scope, dict[str, str]], Any],
        done: str,
        *,
        to_memory: bool = True,
    ) -> Callable[[Request], Awaitable[Response]]:
        @handled
        async def run(request: Request) -> Response:
            form = await form_of(request)
            scope = await run_in_threadpool(held, form.get("scope"))
            result = await run_in_threadpool(change, scope, form)
            if to_memory:
                where = f"/memory?{urlencode({'scope': scope.key, 'id': result.id, 'done': done})}"
            elif scope in await run_in_threadpool(store.scopes, scope.kind):
                where = f"/person?{urlencode({'scope': scope.key, 'done': done})}"
            else:  # nothing of it is left: back to the scopes
                where = f"/?{urlencode({'done': done})}"
            return RedirectResponse(where, status_code=303)

        return run

    def memory_id(form: dict[str, str]) -> str:
        if not form.get("id"):
            raise HTTPProblem(400, "Name a memory: the form needs its id.")
        return form["id"]

    async def style(request: Request) -> Response:
        return Response(stylesheet, media_type="text/css")

    def correct(scope: Scope, form: dict[str, str]) -> Any:
        return actions.correct(store, scope, memory_id(form), form.get("text", ""))

    def pin(scope: Scope, form: dict[str, str]) -> Any:
        return actions.pin(store, scope, memory_id(form))

    def unpin(scope: Scope, form: dict[str, str]) -> Any:
        return actions.pin(store, scope, memory_id(form), False)

    def archive(scope: Scope, form: dict[str, str]) -> Any:
        return actions.archive(store, scope, memory_id(form))

    def purge_memory(scope: Scope, form: dict[str, str]) -> Any:
        if form.get("confirm") != "yes":
            raise HTTPProblem(400, "Tick the box that says this cannot be undone, then purge.")
        return actions.purge_memory(store, scope, memory_id(form))

    def purge(scope: Scope, form: dict[str, str]) -> Any:
        return actions.purge_person(store, scope, form.get("confirm", ""))

    routes = [
        Route("/", scopes_page),
        Route("/person", person),
        Route("/memory", memory),
        Route("/search", search),
        Route("/export", export),
        Route("/purge", purge_form, methods=["GET"]),
        Route("/style.css", style),
        Route("/correct", act(correct, "corrected"), methods=["POST"]),
        Route("/pin", act(pin, "pinned"), methods=["POST"]),
        Route("/unpin", act(unpin, "unpinned"), methods=["POST"]),
        Route("/archive", act(archive, "archived"), methods=["POST"]),
        Route(
            "/purge-memory", act(purge_memory, "purged_memory", to_memory=False), methods=["POST"]
        ),
        Route("/purge", act(purge, "purged", to_memory=False), methods=["POST"]),
    ]
    # The guard runs before every route: nothing answers before the token is checked.
    guard = Middleware(Guard, token=token, host=host, port=port)
    app = Starlette(routes=routes, middleware=[guard])
    app.state.token = token
    app.state.read_only = read_only
    return app
