"""Component evaluation: extraction and reconciliation, case by case, for any model.

Two fixture files (JSON lines) hold the cases:

- extraction: a turn, its date, and matchers for the facts expected from it. A
  matcher is ``{"all": [...], "any": [...], "none": [...]}``: case-insensitive
  substrings; ``"a|b"`` accepts either; every "all" item and one "any" item must
  appear in one extracted fact (each matcher needs a fact of its own); no fact
  may contain a "none" item. ``max_facts`` / ``min_facts`` bound the count.
- reconcile: a fact, its date, the memories shown (as [0], [1] ...) and the
  expected op (or a list of acceptable ops), the target index for UPDATE and
  DELETE, and ``text_all`` substrings the stored text must hold.

The model's reconcile answer goes through ``write.reconcile.validate`` before it
is judged, so what is scored is what the write path would apply.

Run it (the rules model by default; any OpenAI-compatible server with ``--model``)::

    python -m benchmarks.components
    python -m benchmarks.components --model openai:gpt-4o-mini --out results.json
    python -m benchmarks.components --model openai:qwen --base-url http://localhost:8000/v1

>>> case = extraction_case({"id": "x", "date": "2026-03-02T10:00:00+00:00",
...     "turn": [{"role": "user", "content": "My sister lives in Delhi."}],
...     "expect": [{"all": ["sister", "Delhi"], "none": ["User lives in Delhi"]}]})
>>> judge_extraction(case, ["User's sister lives in Delhi."])
(True, 'ok')
>>> judge_extraction(case, ["User lives in Delhi."])[1]
"no fact matches expect[0] {'all': ['sister', 'Delhi'], ...}; 'User lives in Delhi.' contains ..."
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar, get_args

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from benchmarks.datasets import assume_utc
from benchmarks.models import default_model_name, named_chat_model
from langgraph_memory import Decision, DecisionOp, Memory
from langgraph_memory.embeddings import default_embeddings
from langgraph_memory.llm import resolve_chat_model
from langgraph_memory.write import ChatMemoryModel, Fact, MemoryModel, Turn
from langgraph_memory.write.rules import RulesModel
from langgraph_memory.write.steps import extract, validate

#: The repository's fixtures, when this module runs from a checkout.
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
DEFAULT_EXTRACTION = FIXTURES / "extraction.jsonl"
DEFAULT_RECONCILE = FIXTURES / "reconcile.jsonl"
#: Scope given to the memories built for reconcile cases (models never see it).
SCOPE = "user:eval"
#: Who may speak in a case's turn: the roles ``Turn.of`` takes (mypy checks at ``extract``'s
#: ``roles=`` that the write path still takes them).
Role = Literal["user", "assistant", "tool", "document"]
ROLES: tuple[str, ...] = get_args(Role)
#: Ops that name a shown memory; ADD and NOOP never do.
TARGETED = (DecisionOp.UPDATE, DecisionOp.DELETE)
#: Curly quotes, which models like to emit, folded to straight ones so "User's" matches.
_FOLD = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def _fold(text: str) -> str:
    return " ".join(text.translate(_FOLD).lower().split())


def contains(text: str, pattern: str) -> bool:
    """Whether ``text`` holds ``pattern``, case-insensitively; ``"a|b"`` accepts either.

    >>> contains("User lives in Pune.", "pune|poona"), contains("User\u2019s dog", "user's")
    (True, True)
    """
    folded = _fold(text)
    return any(_fold(alt) in folded for alt in pattern.split("|") if alt.strip())


# -- cases -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Matcher:
    """What one expected fact must (and no fact may) contain."""

    all_of: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()
    none_of: tuple[str, ...] = ()

    def fits(self, text: str) -> bool:
        """Whether ``text`` holds every "all" item and, if there are any, one "any" item.

        >>> Matcher(all_of=("Pune",), any_of=("live", "based")).fits("User is based in Pune.")
        True
        """
        return all(contains(text, p) for p in self.all_of) and (
            not self.any_of or any(contains(text, p) for p in self.any_of)
        )

    def to_dict(self) -> dict[str, list[str]]:
        """The fixture form (only the keys in use)."""
        out = {"all": list(self.all_of), "any": list(self.any_of), "none": list(self.none_of)}
        return {k: v for k, v in out.items() if v}


@dataclass(frozen=True)
class ExtractionCase:
    """One extraction case: a turn and the facts expected from it."""

    id: str
    messages: tuple[tuple[Role, str], ...]
    date: datetime
    expect: tuple[Matcher, ...]
    tags: tuple[str, ...] = ()
    max_facts: int | None = None
    min_facts: int | None = None
    #: Whose words may become facts (the write path's default: the user's only).
    roles: tuple[Role, ...] = ("user",)

    def turn(self) -> Turn:
        """The case as the write path's ``Turn``."""
        return Turn.of(list(self.messages), when=self.date, turn_id=self.id)

    def expected(self) -> dict[str, Any]:
        """What was expected, JSON-ready, for results."""
        out: dict[str, Any] = {"facts": [m.to_dict() for m in self.expect]}
        if self.max_facts is not None:
            out["max_facts"] = self.max_facts
        if self.min_facts is not None:
            out["min_facts"] = self.min_facts
        return out


@dataclass(frozen=True)
class ReconcileCase:
    """One reconcile case: a fact, the memories shown, and the acceptable outcome."""

    id: str
    fact: str
    date: datetime
    memories: tuple[str, ...]
    ops: tuple[DecisionOp, ...]
    target: int | None = None
    text_all: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    def shown(self) -> list[Memory]:
        """The memories as records, shown in fixture order, created a day before the fact.

        >>> case = reconcile_case({"id": "x", "fact": "User lives in Pune.",
        ...     "date": "2026-03-02T10:00:00+00:00", "memories": ["User lives in Delhi."],
        ...     "expect": {"op": "UPDATE", "target": 0}})
        >>> [(m.id, m.created_at.date().isoformat()) for m in case.shown()]
        [('m0000000', '2026-03-01')]
        """
        created = self.date - timedelta(days=1)
        return [
            Memory(id=f"m{i:07d}", text=text, scope=SCOPE, created_at=created)
            for i, text in enumerate(self.memories)
        ]

    def expected(self) -> dict[str, Any]:
        """What was expected, JSON-ready, for results."""
        ops = [o.value for o in self.ops]
        out: dict[str, Any] = {"op": ops[0] if len(ops) == 1 else ops, "target": self.target}
        if self.text_all:
            out["text_all"] = list(self.text_all)
        return out


C = TypeVar("C", bound="HasId")


class HasId(Protocol):
    """A case: anything with an ``id``."""

    @property
    def id(self) -> str: ...


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{what} must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def _date(value: Any) -> datetime:
    if not isinstance(value, str):
        raise ValueError(f"date must be an ISO 8601 string, got {value!r}")
    return assume_utc(datetime.fromisoformat(value))  # a fixture may write no zone


def _count(row: Mapping[str, Any], key: str) -> int | None:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{key} must be a non-negative int, got {value!r}")
    return value


def _id_and_tags(row: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    case_id = row.get("id")
    if not isinstance(case_id, str) or not case_id.strip():
        raise ValueError(f"id must be a non-empty string, got {case_id!r}")
    return case_id, _strings(row.get("tags"), "tags")


def extraction_case(row: Mapping[str, Any]) -> ExtractionCase:
    """Read and check one extraction case; ``ValueError`` says what is wrong."""
    case_id, tags = _id_and_tags(row)
    turn = row.get("turn")
    if not isinstance(turn, list) or not turn:
        raise ValueError("turn must be a non-empty list of {role, content} objects")
    messages: list[tuple[Role, str]] = []
    for m in turn:
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            raise ValueError(f"each message needs a role in {ROLES}, got {m!r}")
        if not isinstance(m.get("content"), str):
            raise ValueError(f"message content must be a string, got {m!r}")
        messages.append((m["role"], m["content"]))
    if not isinstance(row.get("expect"), list):
        raise ValueError("expect must be a list of matchers ([] when nothing is expected)")
    matchers = []
    for item in row["expect"]:
        if not isinstance(item, dict) or set(item) - {"all", "any", "none"}:
            raise ValueError(f"a matcher takes the keys all, any and none, got {item!r}")
        matcher = Matcher(
            _strings(item.get("all"), "all"),
            _strings(item.get("any"), "any"),
            _strings(item.get("none"), "none"),
        )
        if not matcher.all_of and not matcher.any_of:
            raise ValueError(f"a matcher needs 'all' or 'any' (it would match anything): {item!r}")
        matchers.append(matcher)
    roles = _strings(row.get("roles"), "roles") or ("user",)
    if any(r not in ROLES for r in roles):
        raise ValueError(f"roles must be among {ROLES}, got {roles!r}")
    max_facts, min_facts = _count(row, "max_facts"), _count(row, "min_facts")
    if max_facts is not None and max_facts < max(len(matchers), min_facts or 0):
        raise ValueError(f"max_facts={max_facts} is below what the case expects")
    return ExtractionCase(
        id=case_id,
        messages=tuple(messages),
        date=_date(row.get("date")),
        expect=tuple(matchers),
        tags=tags,
        max_facts=max_facts,
        min_facts=min_facts,
        roles=roles,  # type: ignore[arg-type]  # checked against ROLES just above
    )


def reconcile_case(row: Mapping[str, Any]) -> ReconcileCase:
    """Read and check one reconcile case; ``ValueError`` says what is wrong."""
    case_id, tags = _id_and_tags(row)
    fact = row.get("fact")
    if not isinstance(fact, str) or not fact.strip():
        raise ValueError(f"fact must be a non-empty string, got {fact!r}")
    memories = row.get("memories")
    if not isinstance(memories, list) or not all(isinstance(m, str) and m for m in memories):
        raise ValueError("memories must be a list of strings ([] for none)")
    expect = row.get("expect")
    if not isinstance(expect, dict):
        raise ValueError("expect must be an object with op, target and optional text_all")
    raw_ops = expect.get("op")
    names = raw_ops if isinstance(raw_ops, list) else [raw_ops]
    try:
        ops = tuple(DecisionOp(str(name).upper()) for name in names)
    except ValueError:
        raise ValueError(
            f"op must be ADD, UPDATE, DELETE or NOOP (or a list), got {raw_ops!r}"
        ) from None
    if not ops:
        raise ValueError("op lists no operation")
    target = expect.get("target")
    if any(op in TARGETED for op in ops):
        if isinstance(target, bool) or not isinstance(target, int):
            raise ValueError(f"UPDATE and DELETE need an int target, got {target!r}")
        if not 0 <= target < len(memories):
            raise ValueError(f"target {target} is not an index into {len(memories)} memories")
    elif target is not None:
        raise ValueError(f"ADD and NOOP name no target, got {target!r}")
    return ReconcileCase(
        id=case_id,
        fact=fact,
        date=_date(row.get("date")),
        memories=tuple(memories),
        ops=ops,
        target=target,
        text_all=_strings(expect.get("text_all"), "text_all"),
        tags=tags,
    )


def load_jsonl(path: str | Path, parse: Callable[[Mapping[str, Any]], C]) -> list[C]:
    """The cases of a JSON-lines file, each read by ``parse`` (which raises ``ValueError``
    for a bad row) and each with an ``id`` of its own; ``ValueError`` names the line."""
    cases: list[C] = []
    seen: set[str] = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                case = parse(json.loads(line))
            except ValueError as exc:  # JSONDecodeError is a ValueError too
                raise ValueError(f"{path}:{number}: {exc}") from exc
            if case.id in seen:
                raise ValueError(f"{path}:{number}: duplicate id {case.id!r}")
            seen.add(case.id)
            cases.append(case)
    return cases


def load_extraction(path: str | Path = DEFAULT_EXTRACTION) -> list[ExtractionCase]:
    """The extraction cases of a JSON-lines file, checked (``ValueError`` names the line)."""
    return load_jsonl(path, extraction_case)


def load_reconcile(path: str | Path = DEFAULT_RECONCILE) -> list[ReconcileCase]:
    """The reconcile cases of a JSON-lines file, checked (``ValueError`` names the line)."""
    return load_jsonl(path, reconcile_case)


# -- judging ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseResult:
    """How a model did on one case."""

    id: str
    passed: bool
    expected: Any
    got: Any
    reason: str
    tags: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "id": self.id,
            "passed": self.passed,
            "expected": self.expected,
            "got": self.got,
            "reason": self.reason,
            "tags": list(self.tags),
        }


def _assign(expect: Sequence[Matcher], facts: Sequence[str]) -> list[int]:
    """Indices of the matchers left without a fact of their own (maximum matching).

    Greedy matching could hand a broad matcher the only fact a narrow one fits,
    so this finds augmenting paths (a handful of facts: cost is no concern).
    """
    owner: dict[int, int] = {}  # fact index -> matcher index

    def place(m: int, tried: set[int]) -> bool:
        for f, text in enumerate(facts):
            if f in tried or not expect[m].fits(text):
                continue
            tried.add(f)
            if f not in owner or place(owner[f], tried):
                owner[f] = m
                return True
        return False

    return [m for m in range(len(expect)) if not place(m, set())]


def judge_extraction(case: ExtractionCase, facts: Sequence[str]) -> tuple[bool, str]:
    """Whether extracted ``facts`` meet the case, and why not.

    >>> case = extraction_case({"id": "x", "turn": [{"role": "user", "content": "hi"}],
    ...     "date": "2026-03-02T10:00:00+00:00", "expect": [], "max_facts": 0})
    >>> judge_extraction(case, []), judge_extraction(case, ["User said hi."])
    ((True, 'ok'), (False, '1 facts, at most 0 expected'))
    """
    problems = []
    missing = _assign(case.expect, facts)
    problems += [f"no fact matches expect[{m}] {case.expect[m].to_dict()}" for m in missing]
    for matcher in case.expect:
        for pattern in matcher.none_of:
            problems += [f"{t!r} contains {pattern!r}" for t in facts if contains(t, pattern)]
    if case.max_facts is not None and len(facts) > case.max_facts:
        problems.append(f"{len(facts)} facts, at most {case.max_facts} expected")
    if case.min_facts is not None and len(facts) < case.min_facts:
        problems.append(f"{len(facts)} facts, at least {case.min_facts} expected")
    return (not problems, "; ".join(problems) or "ok")


def judge_reconcile(case: ReconcileCase, decision: Decision) -> tuple[bool, str]:
    """Whether a validated ``decision`` is acceptable for the case, and why not.

    >>> case = reconcile_case({"id": "x", "fact": "User no longer eats meat.",
    ...     "date": "2026-03-02T10:00:00+00:00", "memories": ["User eats meat."],
    ...     "expect": {"op": ["DELETE", "UPDATE"], "target": 0}})
    >>> judge_reconcile(case, Decision(op=DecisionOp.DELETE, fact=case.fact, target_id="m0000000",
    ...                                shown_ids=("m0000000",)))
    (True, 'ok')
    >>> judge_reconcile(case, Decision(op=DecisionOp.ADD, fact=case.fact, text=case.fact))
    (False, 'op ADD, expected DELETE or UPDATE')
    """
    if decision.status == "failed":
        return False, f"no usable answer: {decision.error}"
    if decision.op not in case.ops:
        return False, f"op {decision.op.value}, expected {' or '.join(o.value for o in case.ops)}"
    problems = []
    if decision.op in TARGETED:
        got = target_index(decision)
        if got != case.target:
            problems.append(f"target [{got}], expected [{case.target}]")
    if decision.op in (DecisionOp.ADD, DecisionOp.UPDATE):
        text = decision.text or ""
        problems += [f"text {text!r} lacks {p!r}" for p in case.text_all if not contains(text, p)]
    return (not problems, "; ".join(problems) or "ok")


def target_index(decision: Decision) -> int | None:
    """The shown index a decision's ``target_id`` stands for, if any.

    >>> target_index(Decision(op=DecisionOp.UPDATE, fact="x", target_id="b", shown_ids=("a", "b")))
    1
    """
    if decision.target_id is None or decision.target_id not in decision.shown_ids:
        return None
    return decision.shown_ids.index(decision.target_id)


def _crashed(case: ExtractionCase | ReconcileCase, exc: Exception) -> CaseResult:
    reason = f"the model raised {type(exc).__name__}: {exc}"
    return CaseResult(case.id, False, case.expected(), None, reason, case.tags)


# -- scoring ---------------------------------------------------------------------------------


def resolve_model(model: MemoryModel | BaseChatModel | str | None = None) -> MemoryModel:
    """Any ``MemoryModel`` as is; a chat model (or "provider:model") behind the write path's
    prompts (``ChatMemoryModel``); None: the environment's model, else the offline rules model.

    >>> resolve_model(RulesModel()).name
    'rules'
    """
    if isinstance(model, MemoryModel):
        return model
    chat = resolve_chat_model(model)
    return ChatMemoryModel(chat) if chat is not None else RulesModel()


def score_extraction(
    model: MemoryModel | BaseChatModel | str | None, cases: Iterable[ExtractionCase]
) -> list[CaseResult]:
    """Run the model's extraction on every case and judge it.

    Facts go through ``write.extract.extract`` (its de-duplication included), not
    through the write path's gate: the gate is measured by ``benchmarks.gate_recall``.
    A model that raises or answers unusable output fails the case.
    """
    resolved = resolve_model(model)
    results = []
    for case in cases:
        try:
            extraction = extract(case.turn(), model=resolved, roles=case.roles)
        except Exception as exc:  # one broken case must not end the run
            results.append(_crashed(case, exc))
            continue
        facts = [f.text for f in extraction.facts]
        got: dict[str, Any] = {"facts": facts}
        if extraction.rejected:
            got["rejected"] = [list(r) for r in extraction.rejected]
        if extraction.error:
            got["error"] = extraction.error
            passed, reason = False, f"unusable answer: {extraction.error}"
        else:
            passed, reason = judge_extraction(case, facts)
        results.append(CaseResult(case.id, passed, case.expected(), got, reason, case.tags))
    return results


def decide(
    model: MemoryModel, case: ReconcileCase, embeddings: Embeddings | None = None
) -> Decision:
    """The validated decision the write path would apply for the case's fact
    (``embeddings``: the store's, which measure how related a target is)."""
    shown = case.shown()
    fact = Fact(case.fact)
    return validate(model.choose(fact, shown, today=case.date), fact, shown, embeddings=embeddings)


def score_reconcile(
    model: MemoryModel | BaseChatModel | str | None,
    cases: Iterable[ReconcileCase],
    embeddings: Embeddings | None = None,
) -> list[CaseResult]:
    """Ask the model for one operation per case, validate it as the write path does,
    and judge the validated decision (op, target index, stored text). ``embeddings``
    are the store's (default: the offline MiniLM a ``MemoryStore`` uses): validation
    asks them how related a target that shares no word with the fact is."""
    resolved = resolve_model(model)
    embeddings = embeddings if embeddings is not None else default_embeddings()
    results = []
    for case in cases:
        try:
            decision = decide(resolved, case, embeddings)
        except Exception as exc:  # one broken case must not end the run
            results.append(_crashed(case, exc))
            continue
        got = {
            "op": decision.op.value,
            "target": target_index(decision),
            "text": decision.text,
            "status": decision.status,
            "error": decision.error,
            "raw": decision.raw,
        }
        passed, reason = judge_reconcile(case, decision)
        results.append(CaseResult(case.id, passed, case.expected(), got, reason, case.tags))
    return results


# -- reporting -------------------------------------------------------------------------------


@dataclass
class Tally:
    """Passed and total cases of one tag."""

    passed: int = 0
    total: int = 0
    failed: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Share passed (0.0 for no cases)."""
        return self.passed / self.total if self.total else 0.0


def by_tag(results: Iterable[CaseResult]) -> dict[str, Tally]:
    """Pass counts per tag, plus ``"(all)"`` for every case.

    >>> t = by_tag([CaseResult("a", True, None, None, "ok", ("x",)),
    ...             CaseResult("b", False, None, None, "no", ("x", "y"))])
    >>> {k: (v.passed, v.total) for k, v in t.items()}
    {'(all)': (1, 2), 'x': (1, 2), 'y': (0, 1)}
    """
    tallies: dict[str, Tally] = {"(all)": Tally()}
    for r in results:
        for tag in ("(all)", *r.tags):
            tally = tallies.setdefault(tag, Tally())
            tally.total += 1
            tally.passed += r.passed
            if not r.passed:
                tally.failed.append(r.id)
    return {"(all)": tallies.pop("(all)"), **dict(sorted(tallies.items()))}


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _brief(got: Any) -> Any:
    """What a FAIL line shows: the facts, or the op, target and text (the raw output and
    a clean status are in ``--out``)."""
    if not isinstance(got, dict):
        return got
    if "facts" in got:
        return got["facts"]
    return {
        k: v for k, v in got.items() if k in ("op", "target", "text", "error") and v is not None
    }


def report(results: Sequence[CaseResult], title: str = "results") -> str:
    """One PASS/FAIL line per case, then a per-tag table (Markdown).

    >>> print(report([CaseResult("a", True, None, [], "ok", ("x",))], "demo"))
    ## demo
    PASS a
    <BLANKLINE>
    | tag | passed | cases | rate |
    |---|---:|---:|---:|
    | (all) | 1 | 1 | 100.0% |
    | x | 1 | 1 | 100.0% |
    """
    lines = [f"## {title}"]
    for r in results:
        if r.passed:
            lines.append(f"PASS {r.id}")
        else:
            lines.append(f"FAIL {r.id}: {r.reason} | got: {_short(_brief(r.got))}")
    lines += ["", "| tag | passed | cases | rate |", "|---|---:|---:|---:|"]
    for tag, t in by_tag(results).items():
        lines.append(f"| {tag} | {t.passed} | {t.total} | {t.rate:.1%} |")
    return "\n".join(lines)


def summary(results: Sequence[CaseResult]) -> dict[str, Any]:
    """Per-tag counts, JSON-ready."""
    return {
        tag: {"passed": t.passed, "total": t.total, "rate": round(t.rate, 4), "failed": t.failed}
        for tag, t in by_tag(results).items()
    }


# -- command line ----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point: score the fixtures, print reports, write ``--out``."""
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--extraction", type=Path, default=DEFAULT_EXTRACTION, metavar="PATH")
    p.add_argument("--reconcile", type=Path, default=DEFAULT_RECONCILE, metavar="PATH")
    p.add_argument("--only", choices=("extraction", "reconcile"), help="score one file only")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--model", help="openai:MODEL, served by OpenAI or --base-url")
    which.add_argument("--rules", action="store_true", help="the offline rules model (default)")
    p.add_argument(
        "--base-url", help="an OpenAI-compatible endpoint, e.g. http://localhost:8000/v1"
    )
    p.add_argument("--out", type=Path, help="write every case's result as JSON here")
    args = p.parse_args(argv)

    model: MemoryModel = RulesModel()  # the default: offline and free, whatever the env says
    if args.model or args.base_url:
        chat, _ = named_chat_model(args.model or default_model_name(), args.base_url)
        model = resolve_model(chat)
    out: dict[str, Any] = {"model": model.name}
    for name, path in (("extraction", args.extraction), ("reconcile", args.reconcile)):
        if args.only and args.only != name:
            continue
        if not path.exists():
            print(f"missing {name} fixtures: {path}", file=sys.stderr)
            return 2
        if name == "extraction":
            results = score_extraction(model, load_extraction(path))
        else:
            results = score_reconcile(model, load_reconcile(path))
        print(report(results, f"{name} ({model.name}, {path.name})"), end="\n\n")
        out[name] = {
            "path": str(path),
            "summary": summary(results),
            "results": [r.to_dict() for r in results],
        }
    if args.out:
        args.out.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
