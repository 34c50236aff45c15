"""The Python examples of the README and of docs/, by the page and heading they sit under.

Every ```python block of these pages is an example, with two exceptions, each marked
by an HTML comment on the line before the block:

- ``<!-- fragment: why -->``: a piece that cannot run alone (it needs a Chroma
  server, a Postgres, names from the text around it); no test runs it.
- ``<!-- served: where -->``: it runs against a server a test starts (a
  ``langgraph dev`` in tests/test_platform.py); the examples' test leaves it to that one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
FRAGMENT = "<!-- fragment"
SERVED = "<!-- served"


@dataclass(frozen=True)
class Block:
    """One ```python block: where it is and what it says."""

    page: str  # relative to the repository root, e.g. "docs/guide/store.md"
    heading: str
    code: str
    served: bool
    nth: int = 1  # the first, second ... block under its heading

    @property
    def name(self) -> str:
        return f"{self.page}: {self.heading}" + (f" ({self.nth})" if self.nth > 1 else "")


def pages() -> list[Path]:
    """The README, then every Markdown page of docs/, in path order."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def blocks(path: Path = README) -> list[Block]:
    """The page's ```python blocks, fragments left out, in order."""
    lines = path.read_text().splitlines()
    page = path.relative_to(ROOT).as_posix()
    found: list[Block] = []
    heading, previous, i = "", "", 0
    fenced = False  # inside another fence (```bash ...): its "#" lines are no headings
    while i < len(lines):
        line = lines[i]
        if line.strip() == "```python":
            end = lines.index("```", i + 1)
            if not previous.startswith(FRAGMENT):
                code = "\n".join(lines[i + 1 : end]) + "\n"
                nth = 1 + sum(b.heading == heading for b in found)
                found.append(Block(page, heading, code, previous.startswith(SERVED), nth))
            i = end
        elif line.startswith("```"):
            fenced = not fenced
        elif line.startswith("#") and not fenced:
            heading = line.lstrip("#").strip()
        if line.strip():
            previous = line.strip()
        i += 1
    return found


def block_under(heading: str, path: Path = README) -> str:
    """The one example of ``path`` under ``heading`` (a part of its title)."""
    [code] = [b.code for b in blocks(path) if heading in b.heading]
    return code
