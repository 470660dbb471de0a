"""`llm-scout run --chat` outlives its worker (issue 22): killed mid-answer or while idle, the
worker is restarted with the model and the conversation goes on, the error on its own line."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.fixtures.terminal import Terminal

pytestmark = pytest.mark.e2e

PROMPT = "> "


@pytest.fixture
def chat(scout_home: Path) -> Iterator[Terminal]:
    env = {**os.environ, "LLM_SCOUT_HOME": str(scout_home), "TERM": "dumb"}
    argv = [sys.executable, "-m", "desktop", "run", "smollm2", "--chat", "--temp", "0"]
    terminal = Terminal([*argv, "--seed", "1", "--ctx", "2048", "--max-tokens", "1500"], env=env)
    try:
        terminal.read_until(PROMPT)
        yield terminal
    finally:
        terminal.close()


def _worker(terminal: Terminal) -> psutil.Process:
    deadline = time.monotonic() + 60
    while True:
        children = psutil.Process(terminal.pid).children()
        if children:
            return children[0]
        assert time.monotonic() < deadline, "the chat has no worker"
        time.sleep(0.1)


def _kill(worker: psutil.Process) -> None:
    worker.send_signal(signal.SIGKILL)
    worker.wait(30)


def test_a_worker_killed_mid_answer_is_restarted_and_the_chat_goes_on(
    chat: Terminal, tmp_path: Path
) -> None:
    first = _worker(chat)
    chat.type("Write a long story about a lighthouse keeper.\n")
    chat.read_until("lighthouse keeper.\n")  # the terminal's echo of the line
    partial = chat.read_until(" ")  # the answer is streaming
    _kill(first)
    out = chat.read_until(PROMPT)
    assert "Traceback" not in out
    lines = (partial + out).replace("\r\n", "\n").split("\n")
    error = next(line for line in lines if "killed by SIGKILL" in line)
    assert error.startswith("llm-scout: ")  # its own line, not the end of the answer
    assert "the conversation is kept" in out
    second = _worker(chat)
    assert second.pid != first.pid
    chat.type("Now say hello.\n")
    assert "tokens/s, TTFT" in chat.read_until(PROMPT)
    saved = tmp_path / "chat.json"
    chat.type(f"/save {saved}\n")
    chat.read_until(PROMPT)
    turns = json.loads(saved.read_text())["turns"]
    assert [t["finish_reason"] for t in turns[:1]] == ["crashed"]
    assert turns[0]["assistant"].strip()  # what came before the kill is kept
    assert turns[1]["user"] == "Now say hello."
    assert len(turns) == 2


def test_a_worker_that_died_while_idle_is_restarted_for_the_next_message(
    chat: Terminal,
) -> None:
    chat.type("/system Answer in one short sentence.\n")
    chat.read_until(PROMPT)
    _kill(_worker(chat))
    chat.type("Hello!\n")
    out = chat.read_until(PROMPT)
    assert "Traceback" not in out
    assert "start it first" not in out
    assert "killed by SIGKILL" in out
    assert "restarted" in out
    assert "tokens/s, TTFT" in out  # the message itself was answered
    chat.type("/stats\n")
    assert "1 turns kept" in chat.read_until(PROMPT)
