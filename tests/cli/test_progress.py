"""Progress that works over a plain SSH session and in a log file: a line rewritten in place
only on a terminal that understands it, one line per step elsewhere, none with --quiet.

The streams are real: a pseudo-terminal, a pipe, a file; the events are the comparison
runner's own event values, for two contestants the demo resolver finds (nothing is loaded)."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest

from desktop.commands.compare import Progress
from desktop.commands.output import interactive
from desktop.core.compare import (
    AnswerText,
    ComparisonPlan,
    ComparisonStarted,
    ContestantFailed,
    ContestantStarted,
    build_contestants,
    single_prompt,
)
from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.workspace import Workspace


@pytest.fixture
def terminal() -> Iterator[tuple[TextIO, int]]:
    """The writing end of a pseudo-terminal as a text stream, and the reading end."""
    master, slave = os.openpty()
    stream = os.fdopen(slave, "w", encoding="utf-8")
    yield stream, master
    stream.close()
    os.close(master)


def read_all(fd: int) -> str:
    return os.read(fd, 65536).decode("utf-8").replace("\r\n", "\n")


def plan(demo_paths: tuple[Path, Path]) -> ComparisonPlan:
    resolver = Workspace.load().resolver
    contestants = build_contestants(
        resolver, ["smollm2", "gemma3"], load=LoadSettings(n_ctx=512), sampling=p.SamplingParams()
    )
    return ComparisonPlan.for_suite(contestants, single_prompt("Hi."), mode="fair")


def run_events(progress: Progress) -> None:
    progress(ComparisonStarted(7, "fair", 2, 1, 2))
    progress(ContestantStarted(0, "SmolLM2"))
    progress(AnswerText(0, 0, "Hello", 3))
    progress(ContestantFailed(1, "not enough memory", "engine.out_of_memory"))
    progress.clear()


def test_a_terminal_rewrites_one_line_and_dumb_terminals_pipes_and_files_do_not(
    terminal: tuple[TextIO, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream, _ = terminal
    monkeypatch.setenv("TERM", "xterm-256color")
    assert interactive(stream)
    monkeypatch.setenv("TERM", "dumb")
    assert not interactive(stream)
    monkeypatch.setenv("TERM", "xterm-256color")
    read, write = os.pipe()
    with os.fdopen(write, "w") as pipe, open(tmp_path / "log.txt", "w") as log:
        assert not interactive(pipe)
        assert not interactive(log)
    os.close(read)
    assert not interactive(io.StringIO())


def test_a_log_gets_one_line_per_step(demo_paths: tuple[Path, Path], tmp_path: Path) -> None:
    with open(tmp_path / "log.txt", "w", encoding="utf-8") as log:
        run_events(Progress(log, plan(demo_paths)))
    text = (tmp_path / "log.txt").read_text(encoding="utf-8")
    assert "\r" not in text
    assert text.splitlines() == [
        "Comparing 2 models on 1 prompts, one model at a time (comparison 7)",
        "[0/2] loading SmolLM2",
        "Gemma 3 270M (base) Q4_K_M failed: not enough memory",
    ]


def test_a_terminal_gets_a_line_rewritten_in_place(
    demo_paths: tuple[Path, Path], terminal: tuple[TextIO, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    stream, master = terminal
    run_events(Progress(stream, plan(demo_paths)))
    shown = read_all(master)
    assert "\r[0/2] loading SmolLM2" in shown
    assert "SmolLM2 135M Instruct Q4_1 · prompt 1/1 · 3 tokens" in shown
    monkeypatch.setenv("TERM", "dumb")
    run_events(Progress(stream, plan(demo_paths)))
    assert "\r" not in read_all(master)


def test_quiet_prints_no_progress(demo_paths: tuple[Path, Path], tmp_path: Path) -> None:
    with open(tmp_path / "log.txt", "w", encoding="utf-8") as log:
        run_events(Progress(log, plan(demo_paths), quiet=True))
    assert (tmp_path / "log.txt").read_text(encoding="utf-8") == ""
