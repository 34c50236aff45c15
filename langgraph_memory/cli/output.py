r"""What the commands print: memory and decision lines, JSON, and a progress bar.

What the CLI prints of a store went in from users, tools and documents: every
such field goes through ``for_terminal`` (text) or :func:`dumps` (JSON), so it
cannot move the cursor, clear the screen, reorder a line or start a fake one.

>>> print(dumps({"text": "tea\u202e"}))
{
  "text": "tea\u202e"
}
"""

from __future__ import annotations

import functools
import json
import re
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from langgraph_memory.records import Decision, Memory, Status
from langgraph_memory.text import for_terminal

__all__ = ["decision_line", "dumps", "memory_lines", "progress"]

#: A progress bar appears only when a step lasts longer than this (seconds), so a
#: quick command never flashes one.
PROGRESS_DELAY = 0.4

# Characters a JSON dump keeps raw that a terminal may obey rather than show:
# everything outside printable ASCII is checked (for_terminal decides).
_MAYBE_UNSAFE = re.compile(r"[^\x20-\x7e\n]")


@functools.lru_cache(maxsize=4096)  # a text in one script repeats its few characters
def _escaped(ch: str) -> str:
    if for_terminal(ch) == ch:  # a visible character: keep it readable
        return ch
    units = ch.encode("utf-16-be")  # JSON spells a character past U+FFFF as two escapes
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


def dumps(data: Any) -> str:
    r"""``data`` as indented JSON, readable text kept, every character a terminal
    would obey (escapes, bidi controls, zero-width ones) written as ``\uXXXX``:
    the same data, safe to print.

    >>> dumps(["Pune", "Puné\x9b1m", "\U000e0041"]).split()
    ['[', '"Pune",', '"Puné\\u009b1m",', '"\\udb40\\udc41"', ']']
    >>> json.loads(dumps(["x\u200by"])) == ["x\u200by"]
    True
    """
    return _MAYBE_UNSAFE.sub(
        lambda m: _escaped(m.group()), json.dumps(data, indent=2, ensure_ascii=False)
    )


def counted(n: int, thing: str, many: str | None = None) -> str:
    """``n`` and the word, singular for one.

    >>> counted(1, "decision"), counted(3, "decision"), counted(1, "memory version")
    ('1 decision', '3 decisions', '1 memory version')
    >>> counted(2, "memory", "memories")
    '2 memories'
    """
    return f"{n} {thing if n == 1 else many or thing + 's'}"


def memory_lines(memories: Sequence[Memory]) -> list[str]:
    """One line per memory: its id (for ``history`` and ``why``), text and validity."""
    return [
        f"  [{for_terminal(m.id)}] {for_terminal(m.text)}  (since {m.created_at.date().isoformat()}"
        + (f", until {m.valid_until.date().isoformat()})" if m.valid_until else ")")
        for m in memories
    ]


def decision_line(d: Decision) -> str:
    """One line per write-path decision: op, target and result ids, text, note."""
    what = for_terminal(d.text or d.fact)
    target = f" [{for_terminal(d.target_id)}]" if d.target_id else ""
    result = f" -> [{for_terminal(d.result_id)}]" if d.result_id else ""
    why = d.error or d.note  # a failure's error; a rejection's reason, or a correction
    label = "note" if d.status is Status.APPLIED else d.status.value
    note = f"  ({label}: {for_terminal(why)})" if why else ""
    return f"    {d.op.value:<6}{target}{result} {what}{note}"


@contextmanager
def progress(
    what: str, *, total: int | None = None, enabled: bool = True
) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr while a long step runs; yields ``advance()``.

    With ``total`` the bar fills as ``advance()`` is called; without, it pulses
    (a purge or an export is one call to the store) and shows the time taken.
    Only on a terminal, only after ``PROGRESS_DELAY`` seconds, and never on
    stdout, so it never mixes with JSON or piped output; ``enabled=False``
    (``--json``) turns it off. It disappears when the step ends.

    >>> with progress("counting", total=2) as advance:  # not a terminal: nothing shows
    ...     advance(); advance()
    """
    if not (enabled and sys.stderr.isatty()):
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn()]
    columns += [MofNCompleteColumn()] if total is not None else []
    bar = Progress(*columns, TimeElapsedColumn(), console=Console(stderr=True), transient=True)
    task = bar.add_task(for_terminal(what), total=total)
    timer = threading.Timer(PROGRESS_DELAY, bar.start)
    timer.daemon = True
    timer.start()
    try:
        yield lambda: bar.advance(task)
    finally:
        timer.cancel()
        if timer.is_alive():
            timer.join()
        bar.stop()
