"""Text handling lives in one place, ``langgraph_memory/text/``: the package's word
patterns, stemming, month and weekday names, names, terminal and prompt safety.

These tests keep it so: ``text`` sits at the bottom of the package (it imports no
store, read, write or graph module), no module outside it compiles a word pattern of
its own or spells out month or weekday names, and the lexical index's terms are
pinned to its schema, so that a change of tokeniser or stemmer rebuilds stored
indexes instead of leaving them with terms no query makes any more.
"""

from __future__ import annotations

import ast
import re
import sqlite3
import warnings
from pathlib import Path

import pytest
from conftest import own_collections
from langchain_core.embeddings import DeterministicFakeEmbedding

import langgraph_memory
from langgraph_memory import MemoryStore, text
from langgraph_memory.scope import Scope
from langgraph_memory.store import internals, lexical
from langgraph_memory.store.chroma.layout import scope_hash

PACKAGE = Path(langgraph_memory.__file__).parent
TEXT = PACKAGE / "text"
OUTSIDE_TEXT = sorted(p for p in PACKAGE.rglob("*.py") if TEXT not in p.parents)

# -- text sits at the bottom ---------------------------------------------------------------

#: What ``text`` may import from the package: itself and the error types.
TEXT_MAY_IMPORT = ("langgraph_memory.text", "langgraph_memory.errors")


def test_text_imports_nothing_above_it() -> None:
    offences = []
    for path in sorted(TEXT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                ours = name.split(".")[0] == "langgraph_memory"
                if ours and not name.startswith(TEXT_MAY_IMPORT):
                    offences.append(f"{path.name}:{node.lineno} imports {name}")
    assert offences == []


def test_the_text_surface_resolves() -> None:
    for name in text.__all__:
        assert getattr(text, name) is not None, name


# -- no word pattern or month list outside text ----------------------------------------------

#: A pattern that splits a text into words: one character class (or ``\w``, ``\S``)
#: repeated, maybe after a leading class (a capital) and before an optional group (an
#: apostrophe's tail), maybe between word boundaries or anchors.
_WORD_PATTERN = re.compile(
    r"(?:\\b|\^)?(?:\[[^\]]+\])?(?:\\[wS]|\[[^\]]+\])\+(?:\(\?:[^()]*\)[?*])?(?:\\b|\$)?"
)
_RE_FUNCTIONS = {"compile", "findall", "finditer", "split", "search", "match", "fullmatch", "sub"}


def word_patterns(source: str) -> list[tuple[int, str]]:
    """The word-splitting patterns a module hands to ``re`` (line, pattern)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in _RE_FUNCTIONS
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            continue
        pattern = node.args[0].value
        if _WORD_PATTERN.fullmatch(pattern):
            found.append((node.lineno, pattern))
    return found


def test_the_word_pattern_check_finds_word_patterns_and_only_them() -> None:
    # The patterns the package had in six places before ``text`` held them.
    for pattern in (
        r"[a-z0-9']+",
        r"[A-Za-z]+(?:'[A-Za-z]+)?",
        r"[^\W_]+",
        r"\S+",
        r"\b[A-Z][a-z]+(?:'s)?\b",
        r"\w+",
        r"\b\w+\b",
    ):
        assert word_patterns(f"import re\nX = re.compile({pattern!r})") == [(2, pattern)], pattern
    for pattern in (
        r"^[0-9a-f]{8}$",
        r"[^\x20-\x7e\n]",
        r"[\[\]{}]",
        r"(?<=[.!?;])\s+|\n+",
        r"[^aeiou]y$",
        r"\bUser (\w+)s\b",
        r"\s*,\s*(?:and\s+|or\s+)?|\s+and\s+",
    ):
        assert word_patterns(f"import re\nX = re.compile({pattern!r})") == [], pattern


def test_no_module_outside_text_has_a_word_pattern_of_its_own() -> None:
    offences = [
        f"{path.relative_to(PACKAGE.parent)}:{line} splits words with {pattern!r}: "
        "use langgraph_memory.text (words, spoken_words, tokenize, names_in)"
        for path in OUTSIDE_TEXT
        for line, pattern in word_patterns(path.read_text("utf-8"))
    ]
    assert offences == []


_MONTHS = [m.casefold() for m in text.MONTHS]
_NAMED = {
    "month": re.compile(rf"\b(?:{'|'.join(_MONTHS)})\b", re.I),
    "weekday": re.compile(rf"\b(?:{'|'.join(text.WEEKDAYS)})\b", re.I),
}


def name_lists(source: str) -> list[tuple[int, str]]:
    """The assignments of a module whose value spells out three or more month names
    (in full, or short as strings of their own) or weekday names: (line, which)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        strings = [
            c.value
            for c in ast.walk(node.value)
            if isinstance(c, ast.Constant) and isinstance(c.value, str)
        ]
        joined = " ".join(strings)
        for which, pattern in _NAMED.items():
            if len({m.casefold() for m in pattern.findall(joined)}) >= 3:
                found.append((node.lineno, which))
        short = {s.casefold() for s in strings} & set(text.MONTH_ABBREVIATIONS)
        if len(short) >= 3:
            found.append((node.lineno, "month"))
    return found


def test_the_name_list_check_finds_month_and_weekday_lists() -> None:
    for source in (
        '_MONTHS = ("January", "February", "March")',
        'M = "january|february|march|april"',
        'M = {"jan": 1, "feb": 2, "mar": 3}',
        'D = "monday tuesday wednesday".split()',
    ):
        assert name_lists(source), source
    for source in ('X = "We met in May, and again in March."', 'X = "on Monday"'):
        assert name_lists(source) == [], source


def test_no_module_outside_text_lists_month_or_weekday_names() -> None:
    offences = [
        f"{path.relative_to(PACKAGE.parent)}:{line} lists {which} names: "
        "use langgraph_memory.text (MONTHS, MONTH_ABBREVIATIONS, WEEKDAYS, month_number)"
        for path in OUTSIDE_TEXT
        for line, which in name_lists(path.read_text("utf-8"))
    ]
    assert offences == []


# -- the index's terms and its schema ----------------------------------------------------------

SAMPLE = "Caroline's painting classes started on 8 May 2023; LH-761 flights to Zürich, generously."


def test_the_lexical_index_terms_are_pinned_to_its_schema() -> None:
    """A stored index holds the terms of the tokeniser and stemmer that made it: when
    they change, its schema must too, so that stored indexes are rebuilt from Chroma."""
    terms = " ".join(text.tokenize(SAMPLE))
    assert (lexical.SCHEMA, terms) == (
        5,
        "carolin paint class start 8 may 2023 lh 761 flight zürich gener",
    ), "the index's terms changed: bump store.lexical.SCHEMA (index.py), then this test"


def test_an_index_of_another_schema_is_rebuilt_from_chroma(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=8)) as store:
        own_collections(store, "user:a")  # a scope in a bucket has its index in memory
        added = store.add("user:a", "Caroline's painting classes.")
    path = tmp_path / "m" / "lexical" / f"{scope_hash(Scope.parse('user:a'))}.sqlite3"
    with sqlite3.connect(path) as con:  # as an older release's terms left it
        con.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(lexical.SCHEMA - 1),))
        con.execute("DELETE FROM doc")
        con.execute("INSERT INTO doc(rowid, body) SELECT n, 'caroline painting' FROM rec")
    con.close()
    with MemoryStore(tmp_path / "m", embeddings=DeterministicFakeEmbedding(size=8)) as store:
        assert [h.memory.id for h in internals(store).keyword("user:a", "paints")] == [added.id]
    index = lexical.LexicalIndex(path)
    try:
        assert index.schema() == lexical.SCHEMA
    finally:
        index.close()


# -- the old module names ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "name", "new"),
    [
        ("langgraph_memory.porter", "stem", "langgraph_memory.text.porter"),
        ("langgraph_memory.text_safety", "for_terminal", "langgraph_memory.text.safety"),
        ("langgraph_memory.text_safety", "for_prompt", "langgraph_memory.text.safety"),
    ],
)
def test_the_moved_modules_answer_with_a_deprecation_warning(old: str, name: str, new: str) -> None:
    import importlib

    module = importlib.import_module(old)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)
    assert [w.category for w in caught] == [DeprecationWarning]
    assert new in str(caught[0].message)
