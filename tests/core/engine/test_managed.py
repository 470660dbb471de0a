"""The managed server process (vLLM's, in the app) with a stand-in executable: a small Python
script that serves ``/v1/models`` over http.server after a delay, exits early with an error, or
never answers. Real processes, real sockets on 127.0.0.1, real signals."""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from desktop.core.catalog import load_catalog
from desktop.core.engine.managed import (
    ManagedServer,
    ServerExited,
    ServerProgress,
    free_port,
    run_command_line,
    vllm_available,
    vllm_server,
)
from desktop.core.errors import EngineError
from desktop.core.fit import FitTarget, plan_vllm
from desktop.core.hardware import load_profile
from tests.fixtures.vllm_stand_in import stand_in, stand_in_executable


def server(tmp_path: Path, mode: str, delay: float = 0.5) -> ManagedServer:
    port = free_port()
    argv = [sys.executable, str(stand_in(tmp_path)), "serve", "demo", "--port", str(port)]
    env = {"STAND_IN_MODE": mode, "STAND_IN_DELAY": str(delay)}
    return ManagedServer(argv, port=port, log_path=tmp_path / "logs" / "vllm.log", env=env)


def child_pids(server: ManagedServer) -> list[int]:
    """The stand-in's helper process, as it announced it in its log."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pids = [int(line.split()[-1]) for line in server.log_lines() if "child" in line]
        if pids:
            return pids
        time.sleep(0.05)
    raise AssertionError("the stand-in never announced its child")


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_start_waits_for_ready_with_progress_and_stop_leaves_no_process(tmp_path: Path) -> None:
    managed = server(tmp_path, "serve", delay=1.0)
    progress: list[ServerProgress] = []
    managed.start()
    try:
        base = managed.wait_ready(30, on_progress=progress.append)
        assert base == f"http://127.0.0.1:{managed.port}/v1"
        assert managed.ready
        # Progress came while it was starting: elapsed grows, fraction of the limit below 1.
        assert len(progress) >= 2
        assert progress[-1].elapsed_s > progress[0].elapsed_s
        assert all(0 <= p.fraction < 1 for p in progress)
        assert any(p.last_line.startswith("INFO") for p in progress)
        with urllib.request.urlopen(base + "/models", timeout=5) as response:
            assert json.load(response)["data"][0]["id"] == "demo"  # the REPO it serves
        pids = [managed.pid, *child_pids(managed)]
        assert all(p is not None and not gone(p) for p in pids)
    finally:
        code = managed.stop(grace=5)
    assert code is not None
    assert not managed.running
    assert not managed.ready
    assert all(gone(p) for p in pids if p is not None)
    # The whole output went to the log file too.
    text = (tmp_path / "logs" / "vllm.log").read_text(encoding="utf-8")
    assert "stand-in starting" in text
    assert "Uvicorn running" in text


def test_early_exit_reports_the_code_and_the_log_tail(tmp_path: Path) -> None:
    managed = server(tmp_path, "fail", delay=0.3)
    managed.start()
    try:
        with pytest.raises(ServerExited) as caught:
            managed.wait_ready(30)
    finally:
        managed.stop()
    error = caught.value
    assert error.kind == "engine.crashed"
    assert error.returncode == 3
    assert "CUDA out of memory" in error.log_tail
    assert "exited with code 3 before it was ready" in str(error)
    assert "CUDA out of memory" in str(error)
    assert str(tmp_path / "logs" / "vllm.log") in str(error)


def test_a_server_that_never_answers_times_out_and_is_stopped(tmp_path: Path) -> None:
    managed = server(tmp_path, "hang", delay=0.1)
    managed.start()
    pid = managed.pid
    assert pid is not None
    child = child_pids(managed)
    started = time.monotonic()
    try:
        with pytest.raises(EngineError) as caught:
            managed.wait_ready(1.5)
    finally:
        managed.stop()
    assert 1.4 <= time.monotonic() - started < 20
    assert caught.value.kind == "engine.timeout"
    assert "did not answer within 1.5 s" in str(caught.value)
    assert "loading weights forever" in str(caught.value)
    assert not managed.running
    assert gone(pid)
    assert all(gone(c) for c in child)


def test_a_server_that_ignores_sigterm_is_killed_after_the_grace_period(tmp_path: Path) -> None:
    managed = server(tmp_path, "stubborn", delay=0.1)
    managed.start()
    pid = managed.pid
    assert pid is not None
    managed.wait_ready(30)
    started = time.monotonic()
    code = managed.stop(grace=0.5)
    assert time.monotonic() - started >= 0.5
    assert code == -9  # SIGKILL
    assert gone(pid)
    assert any("ignoring SIGTERM" in line for line in managed.log_lines())


def test_cancel_stops_the_start(tmp_path: Path) -> None:
    managed = server(tmp_path, "hang", delay=0.1)
    managed.start()
    pid = managed.pid
    assert pid is not None
    with pytest.raises(EngineError) as caught:
        managed.wait_ready(30, cancelled=lambda: True)
    assert caught.value.kind == "engine.cancelled"
    assert gone(pid)


def test_a_missing_executable_is_a_spawn_error(tmp_path: Path) -> None:
    managed = ManagedServer(
        [str(tmp_path / "no-such-vllm"), "serve"], port=free_port(), log_path=tmp_path / "v.log"
    )
    with pytest.raises(EngineError) as caught:
        managed.start()
    assert caught.value.kind == "engine.spawn_failed"
    assert "no-such-vllm" in str(caught.value)


def test_a_plan_becomes_a_managed_vllm_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, variant = load_catalog().variant("qwen2.5-0.5b-instruct:AWQ")
    target = FitTarget.from_variant(model, variant)
    plan = plan_vllm(target, load_profile("rtx-3060-12gb"), n_ctx=4096)
    monkeypatch.setenv("STAND_IN_MODE", "serve")
    monkeypatch.setenv("STAND_IN_DELAY", "0.2")
    managed = vllm_server(plan, command=(sys.executable, str(stand_in(tmp_path))))
    assert managed.argv[2:5] == ("serve", "Qwen/Qwen2.5-0.5B-Instruct-AWQ", "--quantization")
    assert managed.argv[-4:] == ("--host", "127.0.0.1", "--port", str(managed.port))
    assert managed.log_path.name == f"vllm-{managed.port}.log"
    with managed:
        assert managed.wait_ready(30) == managed.base_url
        assert "--gpu-memory-utilization" in managed.log_lines()[0]
    assert not managed.running
    no_gpu = plan_vllm(target, load_profile("laptop-16gb-cpu"), n_ctx=4096)
    with pytest.raises(EngineError, match=r"compute capability 7\.5"):
        vllm_server(no_gpu, command=("vllm",))


def test_vllm_available_says_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.core.engine import managed

    monkeypatch.delenv("LLM_SCOUT_VLLM", raising=False)
    monkeypatch.setattr("desktop.core.engine.managed.platform.system", lambda: "Darwin")
    mac = vllm_available(has_nvidia_gpu=True)
    assert not mac.ok
    assert "Linux" in mac.reason
    assert "Darwin" in mac.reason
    monkeypatch.setattr("desktop.core.engine.managed.platform.system", lambda: "Linux")
    no_gpu = vllm_available(has_nvidia_gpu=False)
    assert not no_gpu.ok
    assert "NVIDIA GPU" in no_gpu.reason
    monkeypatch.setattr(managed, "vllm_executable", lambda: None)
    missing = vllm_available(has_nvidia_gpu=True)
    assert not missing.ok
    assert "llm-scout[vllm]" in missing.reason
    monkeypatch.setattr(managed, "vllm_executable", lambda: ("/opt/bin/vllm",))
    ready = vllm_available(has_nvidia_gpu=True)
    assert ready.ok
    assert ready.command == ("/opt/bin/vllm",)


def test_vllm_executable_finds_the_script_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.core.engine import managed

    monkeypatch.delenv("LLM_SCOUT_VLLM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("desktop.core.engine.managed.importlib.util.find_spec", lambda name: None)
    assert managed.vllm_executable() is None
    monkeypatch.setattr(
        "desktop.core.engine.managed.importlib.util.find_spec", lambda name: object()
    )
    assert managed.vllm_executable() == (sys.executable, "-m", "vllm.entrypoints.cli.main")
    script = tmp_path / "vllm"
    script.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    script.chmod(0o755)
    assert managed.vllm_executable() == (str(script),)


def test_llm_scout_vllm_replaces_vllm_and_skips_the_platform_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.core.engine import managed

    monkeypatch.setattr("desktop.core.engine.managed.platform.system", lambda: "Darwin")
    fake = stand_in_executable(tmp_path / "my bin")  # a path with a space: one word
    monkeypatch.setenv("LLM_SCOUT_VLLM", str(fake))
    assert managed.vllm_executable() == (str(fake),)
    found = vllm_available(has_nvidia_gpu=False)
    assert found.ok
    assert found.command == (str(fake),)
    script = stand_in(tmp_path)
    monkeypatch.setenv("LLM_SCOUT_VLLM", f"{sys.executable} {script}")  # a command line
    assert vllm_available().command == (sys.executable, str(script))
    monkeypatch.setenv("LLM_SCOUT_VLLM", str(tmp_path / "missing-vllm"))
    missing = vllm_available(has_nvidia_gpu=True)
    assert not missing.ok
    assert "LLM_SCOUT_VLLM names" in missing.reason
    assert "missing-vllm" in missing.reason


def test_launch_waits_and_a_failed_launch_leaves_no_process(tmp_path: Path) -> None:
    ready = server(tmp_path, "serve", delay=0.2)
    try:
        assert ready.launch(30) == ready.base_url
        assert ready.running
        assert run_command_line(ready.base_url, "Org/Model AWQ") == (
            f"llm-scout run --endpoint {ready.base_url} --model 'Org/Model AWQ'"
        )
    finally:
        ready.stop()
    failing = server(tmp_path, "hang", delay=0.1)
    with pytest.raises(EngineError) as caught:
        failing.launch(0.8)
    assert caught.value.kind == "engine.timeout"
    assert not failing.running
    pid = failing.pid
    assert pid is not None
    assert gone(pid)
