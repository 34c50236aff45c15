"""A Griffe extension that makes the package's freeform docstrings render as Markdown.

The docstrings are written for ``help()`` and ``pytest --doctest-modules``, not for a
Markdown renderer, which would read them wrongly in three ways:

- a doctest's lines run into the prose around them, and an output line such as
  ``['Likes tea.']`` is a Markdown reference link (mkdocs-autorefs then warns that it
  finds no such target, which fails ``mkdocs build --strict``);
- an RST literal block (a paragraph ending in ``::`` and an indented block) keeps its
  ``::``;
- an RST role (``:meth:`import_scope```) shows its role name;
- a placeholder such as ``<action>`` outside a code span is an HTML tag, and vanishes.

So, before mkdocstrings renders a docstring, each doctest (a run of ``>>>`` and ``...``
lines and the output lines after them, up to a blank line, as doctest itself reads it)
becomes a fenced ``pycon`` block, each RST literal block a fenced ``text`` block after a
single colon, each role its plain code span, and a ``<`` that would open a tag in prose
``&lt;``. The docstrings themselves stay as they
are: their doctests run under pytest. mkdocs.yml loads this file by path
(``extensions: [docs/_ext/docstrings.py]``); tests/test_docs_build.py checks it.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

__all__ = ["MarkdownDocstrings", "to_markdown"]

_PROMPT = re.compile(r"^(\s*)>>>(?: |$)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_ROLE = re.compile(r":(?:class|data|func|meth|attr|mod|obj|exc):`~?([^`]+)`")
_CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?(?<!`)\1(?!`)")
_TAG = re.compile(r"<(?=[A-Za-z/!?])(?!https?:)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def to_markdown(text: str) -> str:
    """The docstring ``text`` with its doctests and literal blocks fenced and its roles
    made code spans (see the module docstring).

    >>> to_markdown("Use it:\\n\\n>>> f([1])\\n['a']\\n\\nSee :meth:`g`.").splitlines()
    ['Use it:', '', '```pycon', '>>> f([1])', "['a']", '```', '', 'See `g`.']
    >>> to_markdown("on <weekday>, ``<b>`` or <https://x.org>")
    'on &lt;weekday>, ``<b>`` or <https://x.org>'
    """
    lines = text.splitlines()
    out: list[str] = []
    prose: list[int] = []  # indices into out of lines outside fences
    i = 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
            i += 1
            continue
        if in_fence:
            out.append(line)
            i += 1
            continue
        prompt = _PROMPT.match(line)
        if prompt:
            pad = prompt.group(1)
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(pad) :] if lines[i].startswith(pad) else lines[i])
                i += 1
            if out and out[-1].strip():
                out.append("")
            out.extend([f"{pad}```pycon", *(pad + b for b in block), f"{pad}```"])
            continue
        if line.rstrip().endswith("::") and line.strip() != "::":
            literal, j = _literal_block(lines, i + 1, _indent(line))
            if literal:
                out.append(_ROLE.sub(r"`\1`", line.rstrip()[:-1]))
                pad = " " * _indent(line)
                out.extend(["", f"{pad}```text", *(pad + b for b in literal), f"{pad}```"])
                i = j
                continue
        prose.append(len(out))
        out.append(_ROLE.sub(r"`\1`", line))
        i += 1
    return _escape_tags(out, prose)


def _escape_tags(out: list[str], prose: list[int]) -> str:
    """``out`` joined, with a tag-opening ``<`` in its prose lines (outside code spans,
    which may run over several lines of one stretch of prose) written ``&lt;``."""
    is_prose = set(prose)
    result: list[str] = []
    n = 0
    while n < len(out):
        if n not in is_prose:
            result.append(out[n])
            n += 1
            continue
        end = n
        while end < len(out) and end in is_prose:
            end += 1
        result.append(_escape_outside_code("\n".join(out[n:end])))
        n = end
    return "\n".join(result)


def _escape_outside_code(text: str) -> str:
    pieces: list[str] = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        pieces.extend([_TAG.sub("&lt;", text[last : span.start()]), span.group(0)])
        last = span.end()
    pieces.append(_TAG.sub("&lt;", text[last:]))
    return "".join(pieces)


def _literal_block(lines: list[str], start: int, base: int) -> tuple[list[str], int]:
    """The indented block after an RST ``::`` line (dedented), and the index after it;
    no lines when none follows."""
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == start or i >= len(lines) or _indent(lines[i]) <= base:
        return [], start
    body: list[str] = []
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > base):
        body.append(lines[i])
        i += 1
    while body and not body[-1].strip():
        body.pop()
        i -= 1
    cut = min(_indent(b) for b in body if b.strip())
    return [b[cut:] for b in body], i


class MarkdownDocstrings(griffe.Extension):
    """Rewrite every docstring with :func:`to_markdown` as Griffe loads it."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)
