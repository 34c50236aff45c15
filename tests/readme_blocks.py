"""The README's Python examples, by the heading they sit under.

Every ```python block of README.md is an example the tests run, except one
right after a ``<!-- fragment -->`` comment (a piece that needs something the
README cannot start, e.g. a Chroma server)."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
FRAGMENT = "<!-- fragment"


def python_blocks(text: str | None = None) -> list[tuple[str, str]]:
    """``(heading, code)`` of each runnable ```python block, in order."""
    lines = (README.read_text() if text is None else text).splitlines()
    blocks: list[tuple[str, str]] = []
    heading, previous, i = "", "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#") and not line.startswith("#!"):
            heading = line.lstrip("#").strip()
        if line.strip() == "```python":
            end = lines.index("```", i + 1)
            if not previous.startswith(FRAGMENT):
                blocks.append((heading, "\n".join(lines[i + 1 : end]) + "\n"))
            i = end
        elif line.strip():
            previous = line.strip()
        i += 1
    return blocks


def block_under(heading: str) -> str:
    """The one example under ``heading`` (a part of its title)."""
    [code] = [c for h, c in python_blocks() if heading in h]
    return code
