"""The memory inspector as a person uses it: `langgraph-memory inspect` started as a
command, and a real headless Chromium (Debian's `chromium`, driven by Playwright; no
browser is downloaded) that opens the printed URL, reads, searches, corrects, deletes
and purges. Also: the read-only and bad-token refusals, a poisoned memory that stays
inert in the browser, and the page beside a running app on a Chroma server."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import running_server
from processes import serving
from test_inspector import HOSTILE

from langgraph_memory import MemoryStore
from langgraph_memory.embeddings import LocalMiniLM

# A real browser and `inspect` processes: the slow tier.
pytestmark = pytest.mark.slow

playwright = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
URL = re.compile(r"(http://\S+/\?token=\S+)")
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def fill(store: MemoryStore) -> None:
    """Alice: a fact that changed, one that stayed, a rule, what she said, a retired
    fact, and a poisoned note (the tests only read her); Frank, whose memories the
    tests correct and delete; Bob, whom a test purges."""
    old = store.add("user:alice", "User lives in Delhi.", now=T0)
    store.update("user:alice", old.id, "User lives in Pune.", now=T0 + timedelta(days=40))
    store.add("user:alice", "User is allergic to peanuts.", importance=0.9, now=T0)
    store.add(
        "user:alice",
        "User wants PR descriptions as bullet lists.",
        kind="procedural",
        source="explicit",
        now=T0 + timedelta(days=3),
    )
    store.add(
        "user:alice",
        "I just moved to Pune for a new job.",
        kind="episodic",
        metadata={"episode": True},
        now=T0 + timedelta(days=40),
    )
    gone = store.add("user:alice", "User drinks coffee every morning.", now=T0)
    store.archive("user:alice", gone.id, now=T0 + timedelta(days=20))
    store.add("user:alice", HOSTILE, source="tool", trust="low", now=T0 + timedelta(days=41))
    store.add("user:bob", "Bob has a cat named Miso.", now=T0)
    store.add("user:frank", "Frank is allergic to peanuts.", importance=0.9, now=T0)
    gone = store.add("user:frank", "Frank drinks coffee every morning.", now=T0)
    store.archive("user:frank", gone.id, now=T0 + timedelta(days=20))


@contextmanager
def inspector(*args: str, log: Path) -> Iterator[str]:
    """`langgraph-memory inspect ARGS --port 0` running; yields the URL it printed."""
    command = [sys.executable, "-m", "langgraph_memory.cli", "inspect", *args, "--port", "0"]

    def printed() -> str | None:
        found = URL.search(log.read_text(errors="replace")) if log.exists() else None
        return found.group(1) if found else None

    with serving(command, ready=lambda: printed() is not None, log_path=log, what="inspect"):
        url = printed()
        assert url is not None
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail("no chromium: install Debian's chromium package (.ci/run does)")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM)
        yield b
        b.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: LocalMiniLM) -> Iterator[str]:
    """The inspector on an embedded store filled by ``fill``, as `inspect` serves it."""
    root = tmp_path_factory.mktemp("inspect")
    with MemoryStore(root / "store", embeddings=embedder) as store:
        fill(store)
    with inspector("--path", str(root / "store"), log=root / "inspect.log") as url:
        yield url


@pytest.fixture
def page(browser: Any, served: str) -> Iterator[Any]:
    """A fresh browser context (no cookie yet) on the scopes page, with every dialog
    and every request it makes recorded."""
    context = browser.new_context()
    tab = context.new_page()
    tab.dialogs, tab.requests = [], []
    tab.on("dialog", lambda d: (tab.dialogs.append(d.message), d.dismiss()))
    tab.on("request", lambda r: tab.requests.append(r.url))
    tab.goto(served)
    yield tab
    context.close()


def origin(url: str) -> str:
    return url.split("/?", 1)[0]


def open_person(page: Any, key: str) -> None:
    page.get_by_role("link", name=key, exact=True).click()
    page.wait_for_url(re.compile(r"/person\?"))


def test_a_person_reads_their_memory_on_a_timeline(page: Any) -> None:
    assert page.url.endswith("/") and "token" not in page.url  # traded for a cookie
    alice = page.locator("table.scopes tbody tr", has_text="user:alice")
    assert alice.locator("td").all_inner_texts()[:5] == ["user:alice", "3", "1", "1", "2"]
    open_person(page, "user:alice")
    sections = page.locator("section.group h2").all_inner_texts()
    assert sections == [
        "Rules, how to work with this person (1)",
        "Facts (3)",
        "Episodes, what was said (1)",
    ]
    moved = page.locator("li.memory", has_text="User lives in Pune.")
    assert moved.locator("rect").evaluate_all("rs => rs.map(r => r.getAttribute('class'))") == [
        "closed",
        "open",
    ]
    assert "2 versions" in moved.locator(".meta").inner_text()
    page.select_option("select[name=state]", "archived")
    page.get_by_role("button", name="Show").click()
    shown = page.locator("li.memory .text").all_inner_texts()
    assert shown == ["User drinks coffee every morning."]


def test_search_shows_each_score_and_the_agents_prompt(page: Any) -> None:
    open_person(page, "user:alice")
    page.get_by_role("link", name="Search as the agent does").click()
    page.fill("input[name=q]", "Which city does she live in now?")
    page.get_by_role("button", name="Search").click()
    first = page.locator("tr.result").first
    assert first.locator("a.text").inner_text() == "User lives in Pune."
    assert float(first.locator("td.dense").inner_text()) > 0
    assert page.locator("tr.explain code").first.inner_text().startswith("score ")
    prompt = page.locator("pre.prompt").inner_text()
    assert prompt.startswith("How to work with this user")
    assert '"User lives in Pune."' in prompt


def test_correct_a_memory_and_see_the_new_version_and_why(page: Any) -> None:
    open_person(page, "user:frank")
    page.get_by_role("link", name="Frank is allergic to peanuts.").click()
    page.fill("textarea[name=text]", "Frank is allergic to peanuts and cashews.")
    page.get_by_role("button", name="Save the correction").click()
    assert "Corrected" in page.locator(".done").inner_text()
    assert page.locator("h1").inner_text() == "Frank is allergic to peanuts and cashews."
    versions = page.locator("table.versions tbody tr")
    assert versions.count() == 2
    assert versions.nth(1).locator("td").nth(4).inner_text() == "user_correction"
    decision = page.locator("li.decision").last
    assert decision.locator(".op").inner_text() == "UPDATE"
    assert "made by the person in the memory inspector" in decision.inner_text()


def test_delete_one_memory_for_good(page: Any) -> None:
    open_person(page, "user:frank")
    page.select_option("select[name=state]", "archived")
    page.get_by_role("button", name="Show").click()
    page.get_by_role("link", name="Frank drinks coffee every morning.").click()
    page.check("input[name=confirm]")
    page.get_by_role("button", name="Purge for good").click()
    assert "Purged for good" in page.locator(".done").inner_text()
    page.select_option("select[name=state]", "all")
    page.get_by_role("button", name="Show").click()
    assert "coffee" not in page.locator("main").inner_text()


def test_purge_a_person(page: Any) -> None:
    open_person(page, "user:bob")
    page.get_by_role("link", name="Purge this person").click()
    page.fill("input[name=confirm]", "user:bob")
    page.get_by_role("button", name="Purge for good").click()
    assert "Purged for good" in page.locator(".done").inner_text()
    assert "user:bob" not in page.locator("table.scopes").inner_text()
    assert "user:alice" in page.locator("table.scopes").inner_text()


def test_a_poisoned_memory_stays_inert_in_the_browser(page: Any, served: str) -> None:
    open_person(page, "user:alice")
    note = page.locator("li.memory", has_text="javascript:alert(1)")
    note.locator("a.text").click()
    page.goto(page.url.split("/memory")[0] + "/search?scope=user%3Aalice&q=note+click+done")
    for path in ("/", "/person?scope=user%3Aalice"):
        page.goto(origin(served) + path)
    assert page.dialogs == []
    assert all(u.startswith(origin(served) + "/") for u in page.requests), page.requests
    assert page.locator("script, img, iframe").count() == 0
    shown = page.locator("main").inner_text()
    assert "<script>alert('x')</script>" in shown and "\u202e" not in shown


def test_bad_tokens_and_read_only_refuse(
    browser: Any, served: str, tmp_path: Path, embedder: LocalMiniLM
) -> None:
    context = browser.new_context()
    tab = context.new_page()
    assert tab.goto(origin(served) + "/").status == 401
    assert tab.goto(origin(served) + "/?token=not-the-token").status == 403
    context.close()
    with MemoryStore(tmp_path / "store", embeddings=embedder) as store:
        memory = store.add("user:carol", "Carol likes jazz.")
    with inspector(
        "--path", str(tmp_path / "store"), "--read-only", log=tmp_path / "inspect.log"
    ) as url:
        context = browser.new_context()
        tab = context.new_page()
        tab.goto(url)
        assert tab.locator("#read-only").inner_text() == "read-only"
        tab.goto(origin(url) + f"/memory?scope=user%3Acarol&id={memory.id}")
        assert tab.locator("form[method=post]").count() == 0
        refused = tab.request.post(
            origin(url) + "/purge-memory",
            form={"scope": "user:carol", "id": memory.id, "confirm": "yes"},
        )
        assert refused.status == 403
        context.close()
    with MemoryStore(tmp_path / "store", embeddings=embedder) as store:
        assert [m.id for m in store.active("user:carol")] == [memory.id]


def test_beside_a_running_app_on_a_chroma_server(
    browser: Any, tmp_path: Path, embedder: LocalMiniLM
) -> None:
    with running_server(tmp_path / "server") as server:
        app = MemoryStore(client=server.client(), embeddings=embedder)
        app.add("user:dana", "Dana plays the cello.")
        address = f"{server.host}:{server.port}"
        with inspector("--server", address, log=tmp_path / "inspect.log") as url:
            context = browser.new_context()
            tab = context.new_page()
            tab.goto(url)
            open_person(tab, "user:dana")
            assert tab.locator("li.memory .text").all_inner_texts() == ["Dana plays the cello."]
            app.add("user:dana", "Dana moved to Lisbon.")  # the app goes on writing
            tab.reload()
            assert sorted(tab.locator("li.memory .text").all_inner_texts()) == [
                "Dana moved to Lisbon.",
                "Dana plays the cello.",
            ]
            context.close()
        app.close()


def test_an_embedded_store_an_app_holds_says_how_to_inspect_it(
    tmp_path: Path, embedder: LocalMiniLM
) -> None:
    with MemoryStore(tmp_path / "store", embeddings=embedder) as store:
        store.add("user:erin", "Erin likes tea.")
        out = subprocess.run(
            [sys.executable, "-m", "langgraph_memory.cli", "inspect", "--path",
             str(tmp_path / "store"), "--port", "0"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert out.returncode == 1
    assert "--server localhost:8000" in out.stderr and "Traceback" not in out.stderr


def test_the_demos_store(browser: Any, tmp_path: Path) -> None:
    """What `langgraph-memory demo` wrote, as its person sees it: the move from Delhi to
    Pune is one memory with two versions, and why it changed is on its page."""
    store = tmp_path / "demo"
    demo = [sys.executable, "-m", "langgraph_memory.cli", "demo", "--path", str(store)]
    subprocess.run(demo, check=True, capture_output=True, timeout=600)
    with inspector("--path", str(store), log=tmp_path / "inspect.log") as url:
        context = browser.new_context()
        tab = context.new_page()
        tab.goto(url)
        open_person(tab, "user:priya")
        moved = tab.locator("li.memory", has_text="User lives in Pune.")
        assert "2 versions" in moved.locator(".meta").inner_text()
        # The text is a link and looks like one: underlined, in the links' colour.
        link = moved.locator("a.text")
        style = link.evaluate(
            "a => { const s = getComputedStyle(a); "
            "return [s.textDecorationLine, s.color, getComputedStyle(document.body).color]; }"
        )
        assert style[0] == "underline" and style[1] != style[2], style
        link.click()
        versions = tab.locator("table.versions tbody tr td.text").all_inner_texts()
        assert versions == ["User lives in Delhi.", "User lives in Pune."]
        ops = tab.locator("li.decision .op").all_inner_texts()
        assert ops == ["ADD", "UPDATE"]
        shown = tab.locator("li.decision").last.locator("ol.shown li").all_inner_texts()
        assert any("User lives in Delhi." in line for line in shown)
        context.close()
