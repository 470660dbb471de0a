"""`llm-scout run --chat` typed into a real terminal with the real SmolLM2 demo model."""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.cli import main
from tests.fixtures.terminal import Terminal

pytestmark = pytest.mark.e2e

PROMPT = "> "


@pytest.fixture
def chat(scout_home: Path, request: pytest.FixtureRequest) -> Iterator[Terminal]:
    """A chat at a 256-token context, 48 tokens per answer (``indirect`` params: other args)."""
    env = {**os.environ, "LLM_SCOUT_HOME": str(scout_home), "TERM": "dumb"}
    extra = getattr(request, "param", ["--ctx", "256", "--max-tokens", "48"])
    argv = [sys.executable, "-m", "desktop", "run", "smollm2", "--chat", "--temp", "0"]
    terminal = Terminal([*argv, "--seed", "1", *extra], env=env)
    try:
        banner = terminal.read_until(PROMPT)
        assert "/help" in banner
        assert "Ctrl-D" in banner
        yield terminal
    finally:
        terminal.close()


def ask(terminal: Terminal, text: str) -> str:
    """Type a line; return everything up to the next prompt."""
    terminal.type(text + "\n")
    return terminal.read_until(PROMPT)


def test_commands_never_reach_the_model_and_empty_lines_do_nothing(chat: Terminal) -> None:
    out = ask(chat, "/help")
    for command in ("/clear", "/system TEXT", "/save FILE", "/stats", "/exit"):
        assert command in out
    assert "tokens/s" not in out  # nothing was generated
    assert "tokens/s" not in ask(chat, "")
    assert "Unknown command /nope" in ask(chat, "/nope")
    assert "[system prompt set]" in ask(chat, "/system Answer in one word.")
    out = ask(chat, "/stats")
    assert "0 turns kept" in out


@pytest.mark.parametrize("chat", [["--ctx", "2048", "--max-tokens", "1500"]], indirect=True)
def test_ctrl_c_stops_an_answer_and_the_chat_goes_on(chat: Terminal, tmp_path: Path) -> None:
    chat.type("Write a long story about a lighthouse keeper.\n")
    chat.read_until("lighthouse keeper.\n")  # the terminal's echo of the line
    chat.read_until(" ")  # the answer has started streaming (1500 tokens take seconds)
    chat.ctrl_c()
    out = chat.read_until(PROMPT)
    assert "[stopped]" in out
    chat.type("And another one about the sea.\n")  # the chat goes on
    chat.read_until("about the sea.\n")
    chat.read_until(" ")
    chat.ctrl_c()
    assert "[stopped]" in chat.read_until(PROMPT)
    saved = tmp_path / "chat.json"
    assert f"[saved to {saved}]" in ask(chat, f"/save {saved}")
    document = json.loads(saved.read_text())
    reasons = [t["finish_reason"] for t in document["turns"]]
    assert reasons == ["cancelled", "cancelled"]  # stopped answers are kept, marked
    assert document["load"]["n_ctx"] == 2048
    assert document["turns"][1]["metrics"]["generated_tokens"] > 0
    markdown = tmp_path / "chat.md"
    ask(chat, f"/save {markdown}")
    assert markdown.read_text().startswith("# Chat with SmolLM2 135M Instruct Q4_1")


def test_a_conversation_that_outgrows_the_context_keeps_going(chat: Terminal) -> None:
    dropped = False
    long_message = "Please describe the ocean, the waves, the wind and the sky in detail."
    for _ in range(8):
        out = ask(chat, long_message)
        assert "Traceback" not in out
        if "oldest" in out and "dropped" in out:
            dropped = True
            break
    assert dropped
    assert "system prompt kept" in out
    assert "tokens/s" in out  # the turn was answered


def test_ctrl_c_and_ctrl_d_at_the_prompt_leave(scout_home: Path, chat: Terminal) -> None:
    chat.ctrl_d()
    assert chat.wait() == 0


def test_ctrl_c_at_an_empty_prompt_leaves(chat: Terminal) -> None:
    # CPython's readline prints the prompt before it waits in select(): a SIGINT in between
    # is only seen at the next key. No person types within microseconds of the prompt; a
    # program reading the prompt does, so the test waits as a person would.
    time.sleep(0.3)
    chat.ctrl_c()
    assert chat.wait() == 0


def test_a_message_too_long_for_the_context_is_refused_and_the_chat_goes_on(
    chat: Terminal,
) -> None:
    out = ask(chat, "word " * 400)
    assert "does not fit even without the earlier turns" in out
    assert "/clear starts over" in out
    assert "tokens/s, TTFT" in ask(chat, "Hi.")


def test_piped_input_chats_to_the_end_of_input(
    smollm2_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Hello!\n\n/stats\nWhat did I just say?\n"))
    argv = ["run", str(smollm2_path), "--chat", "--max-tokens", "12", "--ctx", "512"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.count("tokens/s, TTFT") == 2
    assert "1 turns kept" in err
