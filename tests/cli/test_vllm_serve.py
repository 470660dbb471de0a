"""`llm-scout vllm serve`: a real process with the stand-in executable as vLLM
(``LLM_SCOUT_VLLM``), stopped with SIGINT as Ctrl+C does; without vLLM it says what is needed."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from desktop import cli
from desktop.core.engine import managed
from tests.fixtures.vllm_stand_in import ANSWER, stand_in_executable

ROOT = Path(__file__).resolve().parents[2]
AWQ = "qwen2.5-0.5b-instruct:AWQ"
REPO = "Qwen/Qwen2.5-0.5B-Instruct-AWQ"


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_serve_starts_the_server_prints_how_to_use_it_and_ctrl_c_stops_it(
    scout_home: Path, tmp_path: Path
) -> None:
    fake = stand_in_executable(tmp_path / "bin")
    env = {
        **os.environ,
        "LLM_SCOUT_HOME": str(scout_home),
        "LLM_SCOUT_VLLM": str(fake),
        "STAND_IN_DELAY": "1.5",  # a second and more of waiting: progress lines come first
    }
    argv = [sys.executable, "-m", "desktop", "vllm", "serve", AWQ, "--ctx", "4096"]
    proc = subprocess.Popen(
        [*argv, "--profile", "rtx-3060-12gb"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    try:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("Press Ctrl+C"):
                break
            assert time.monotonic() < deadline, "the server never became ready"
        out = "".join(lines)
        found = re.search(r"at (http://127\.0\.0\.1:(\d+)/v1)\n", out)
        assert found is not None, out
        base_url = found.group(1)
        assert f"vLLM serves {REPO} at {base_url}" in out
        assert f"  llm-scout run --endpoint {base_url} --model {REPO}\n" in out
        # It really serves: the model list, and a streamed answer.
        with urllib.request.urlopen(base_url + "/models", timeout=5) as response:
            assert json.load(response)["data"][0]["id"] == REPO
        body = json.dumps({"model": REPO, "stream": True, "messages": []}).encode()
        request = urllib.request.Request(
            base_url + "/chat/completions", body, {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            stream = response.read().decode()
        assert stream.rstrip().endswith("data: [DONE]")
        assert ANSWER[0] in stream
        # The stand-in (vLLM) and its helper process run under the CLI process.
        family = psutil.Process(proc.pid).children(recursive=True)
        assert len(family) >= 2
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "Waiting for vLLM to answer:" in err  # the progress line, on stderr
    assert "Its log: " in err
    assert "the vLLM server was stopped" in err
    assert "Traceback" not in err
    assert rest == ""
    # No orphan: the server and the helper it started are gone.
    assert all(gone(p.pid) for p in family), [p.pid for p in family if not gone(p.pid)]
    logs = list(scout_home.rglob("vllm-*.log"))
    assert len(logs) == 1
    assert "stand-in starting: serve " + REPO in logs[0].read_text(encoding="utf-8")


def test_serve_without_vllm_says_what_is_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("LLM_SCOUT_VLLM", raising=False)
    monkeypatch.setattr("desktop.core.engine.managed.platform.system", lambda: "Linux")
    monkeypatch.setattr(managed, "NVIDIA_DRIVER", tmp_path / "no-nvidia-driver")
    code = cli.main(["vllm", "serve", AWQ])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.startswith("llm-scout: vLLM needs an NVIDIA GPU")
    assert err.count("\n") == 1  # one line, no traceback


def test_serve_with_a_missing_stand_in_and_a_gguf_variant_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LLM_SCOUT_VLLM", str(tmp_path / "no-such-vllm"))
    assert cli.main(["vllm", "serve", AWQ]) == 2
    err = capsys.readouterr().err
    assert "LLM_SCOUT_VLLM names" in err
    assert "no-such-vllm" in err
    monkeypatch.setenv("LLM_SCOUT_VLLM", str(stand_in_executable(tmp_path / "bin")))
    assert cli.main(["vllm", "serve", "qwen2.5-0.5b-instruct:Q4_K_M"]) == 2
    assert "vLLM serves the AWQ variants" in capsys.readouterr().err


def test_a_server_that_fails_to_start_is_reported_with_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LLM_SCOUT_VLLM", str(stand_in_executable(tmp_path / "bin")))
    monkeypatch.setenv("STAND_IN_MODE", "fail")
    monkeypatch.setenv("STAND_IN_DELAY", "0.1")
    code = cli.main(["vllm", "serve", AWQ, "--profile", "rtx-3060-12gb", "--ctx", "4096"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "exited with code 3 before it was ready" in err
    assert "CUDA out of memory" in err
    assert "Press Ctrl+C" not in out
