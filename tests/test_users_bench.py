"""The users benchmark (``python -m benchmarks users``) end to end at tiny sizes.

No timing is asserted (benchmarks measure, tests check behaviour): every size has every
figure, growth and targets are made of that same run's rows, the Markdown renders. It
reads LongMemEval-S from ``../shared/data`` (skipped where it is absent).
"""

from __future__ import annotations

import functools
import json
import os
import signal
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from conftest import SHARED_DATA, data_file

from benchmarks import __main__ as dispatcher
from benchmarks import real_text, users
from benchmarks.datasets import DATASETS

#: The corpus, read once for the file's runs of the benchmark: reading LongMemEval-S takes
#: ~10 s, and the kept run's test runs the benchmark three times (CI's time, not what is
#: tested: every run still deals the same texts from it).
_corpus_once = functools.cache(real_text.load_corpus)


@pytest.fixture(autouse=True)
def corpus_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(users, "load_corpus", _corpus_once)


FIGURES = ("read_cold", "read_warm", "graph_read", "add", "first_add", "new_user")


def test_the_user_sizes_are_long_tailed_and_bounded() -> None:
    counts = users.memory_counts(5000)
    assert min(counts) == users.MEMORIES[0] and max(counts) <= users.MEMORIES[1]
    assert sorted(counts)[2500] < sum(counts) / len(counts), "a tail above the median"


def test_bad_sizes_and_modes_are_refused() -> None:
    bad_args = (
        ["--sizes", "1000,200"],
        ["--sizes", "5"],
        ["--modes", "cloud"],
        ["--modes", "server-copy"],  # a copy of the embedded store: embedded is needed
        ["--server-cache", "0"],
        ["--disk-users", "0"],
    )
    for bad in bad_args:
        with pytest.raises(SystemExit):
            users.parse_args(bad)
    assert users.parse_args(["--quick"]).plan == users.QUICK
    assert users.parse_args(["--server-cache", "64"]).plan.server_cache == 64
    assert users.parse_args(["--disk-users", "16"]).plan.disk_users == 16
    assert users.parse_args([]).plan.disk_users == users.DISK_USERS == 256


def test_missing_data_says_what_to_put_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert users.main(["--data", str(tmp_path), "--quick"]) == 2
    assert DATASETS["longmemeval-s"] in capsys.readouterr().err


@pytest.mark.slow  # a benchmark's run on real data, on a store and on `chroma run`
def test_tiny_run_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_file(DATASETS["longmemeval-s"])  # skips where the data is absent
    out = tmp_path / "users.json"
    # 16 new users for the disk figure, not 256: their adds were most of the run's time.
    argv = [
        "users",
        "--quick",
        "--data",
        str(SHARED_DATA),
        "--sizes",
        "20,40",
        "--disk-users",
        "16",
    ]
    modes = "embedded,server,server-copy"
    assert dispatcher.main([*argv, "--modes", modes, "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [m["mode"] for m in report["modes"]] == ["embedded", "server-copy", "server"]
    for mode in report["modes"]:
        rows = mode["rows"]
        assert [r["users"] for r in rows] == [20, 40]
        for row in rows:
            assert all(0 < row[f]["p50_ms"] <= row[f]["p95_ms"] for f in FIGURES)
            assert row["disk_per_new_user_kb"] > 0 and row["open_s"] > 0
            assert row["memories"] == sum(users.memory_counts(40)[: row["users"]])
        targets = {t["name"]: t for t in users.targets(mode)}
        cold = rows[1]["read_cold"]["p50_ms"] / rows[0]["read_cold"]["p50_ms"]
        assert targets["read p50 growth, cold"]["value"] == pytest.approx(cold)
    for served in report["modes"][1:]:
        assert all(r["server_rss_mb"] and r["server_rss_mb"] > 0 for r in served["rows"])
    markdown = capsys.readouterr().out
    assert "## embedded" in markdown and "## server" in markdown and "read p50 growth" in markdown
    assert "## server-copy" in markdown


@pytest.mark.slow  # two runs of the benchmark on real data
def test_a_kept_run_stopped_between_users_goes_on_where_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--keep``: a run stopped by SIGINT while loading stops between two users with its
    store closed whole, and the same command goes on from there: the same people and
    texts as a run never stopped, and no size measured twice."""
    data_file(DATASETS["longmemeval-s"])  # skips where the data is absent
    argv = ["--quick", "--data", str(SHARED_DATA), "--sizes", "20,40", "--disk-users", "16"]
    whole = tmp_path / "whole"
    assert users.main([*argv, "--keep", str(whole)]) == 0
    kept = tmp_path / "kept"
    write = users.Progress.write

    asked: list[int] = []

    def stop_at_30(progress: users.Progress, path: Path) -> None:
        write(progress, path)
        if progress.loaded == 30 and not asked:
            asked.append(30)
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C: noted, acted on after the user

    # The loading in this process (its own process in a run), ten people at a time, so
    # that the stop can be asked between two groups of them.
    monkeypatch.setattr(users, "load_in_child", users.load_job)
    monkeypatch.setattr(users, "LOAD_AT_ONCE", 10)
    monkeypatch.setattr(users.Progress, "write", stop_at_30)
    assert users.main([*argv, "--keep", str(kept)]) == 3
    stopped = users.Progress.parse((kept / "embedded.progress.json").read_text("utf-8"))
    assert stopped.loaded == 30 and [r["users"] for r in stopped.rows] == [20]
    assert read_meta(kept / "embedded" / "lexical" / "buckets.db")["open"] == "0"
    monkeypatch.setattr(users.Progress, "write", write)
    out = tmp_path / "users.json"
    assert users.main([*argv, "--keep", str(kept), "--out", str(out)]) == 0
    went_on = users.Progress.parse((kept / "embedded.progress.json").read_text("utf-8"))
    never = users.Progress.parse((whole / "embedded.progress.json").read_text("utf-8"))
    assert (went_on.loaded, went_on.texts_next, went_on.extra) == (
        never.loaded,
        never.texts_next,
        never.extra,
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    rows = report["modes"][0]["rows"]
    assert [r["users"] for r in rows] == [20, 40] and rows[0] == stopped.rows[0]
    assert all(r["commit"] == rows[0]["commit"] for r in rows)


def read_meta(path: Path) -> dict[str, str]:
    """The ``meta`` table of the buckets' file."""
    with closing(sqlite3.connect(path)) as con:
        return dict(con.execute("SELECT key, value FROM meta").fetchall())
