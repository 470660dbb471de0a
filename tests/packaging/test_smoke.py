"""``llm-scout --smoke-test``: one JSON line, exit 0 when the build works here.

The end-to-end test runs the source tree's smoke test for real: a real engine worker started the
way the frozen executable starts one (the entry point with ``--engine-worker``), the real SmolLM2
demo model, one token. The others check the report's rules with fake checks.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import desktop
from desktop import entry, smoke

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _platform_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """check_window sets QT_QPA_PLATFORM when unset; the variable is put back after each test."""
    monkeypatch.setenv("QT_QPA_PLATFORM", os.environ.get("QT_QPA_PLATFORM", "offscreen"))


def _one_json_line(stdout: str) -> dict[str, Any]:
    lines = stdout.strip().splitlines()
    assert len(lines) == 1, stdout
    report: dict[str, Any] = json.loads(lines[0])
    return report


@pytest.mark.e2e
def test_the_smoke_test_of_the_source_tree_runs_a_real_worker_and_model() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "desktop", "--smoke-test"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    report = _one_json_line(out.stdout)
    assert out.returncode == 0, (report["problems"], out.stderr[-3000:])
    assert report["ok"] is True
    assert report["problems"] == []
    assert report["version"]["app"] == desktop.__version__
    assert report["version"]["frozen"] is False
    assert report["resources"]["found"] is True
    assert report["resources"]["hardware_profiles"] >= 1
    assert report["resources"]["app_icon"] is True
    assert report["catalog"]["models"] > 0
    assert report["catalog"]["variants"] >= report["catalog"]["models"]
    assert report["hardware"]["logical_cores"] >= 1
    assert report["hardware"]["ram_total_bytes"] > 0
    engine = report["engine"]
    assert engine["worker_command"] == [sys.executable, "-m", "desktop", "--engine-worker"]
    assert engine["worker_pid"] > 0
    assert engine["generated_tokens"] == 1
    assert engine["text"]
    assert "CPU" in engine["backends"]
    assert "CPU :" in engine["system_info"]
    assert engine["summary"].startswith("llama.cpp ")
    assert Path(engine["model"]).name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    if importlib.util.find_spec("desktop.ui.smoke") is None:
        assert report["window"] is None
    else:
        assert report["window"]["pages"]
        assert report["window"]["seconds_to_shown"] >= 0


def _fake_checks(monkeypatch: pytest.MonkeyPatch, **overrides: Any) -> None:
    checks = {
        "check_version": lambda: {"app": "x"},
        "check_resources": lambda: {"found": True},
        "check_catalog": lambda: {"models": 1},
        "check_hardware": lambda: {"cpu": "fake"},
        "check_engine": lambda model, timeout: {"generated_tokens": 1},
        "check_window": lambda: None,
    }
    checks.update(overrides)
    for name, fake in checks.items():
        monkeypatch.setattr(smoke, name, fake)


def test_a_passing_report_exits_0_with_one_json_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_checks(monkeypatch)
    assert smoke.main([]) == 0
    report = _one_json_line(capsys.readouterr().out)
    assert report["ok"] is True
    assert report["window"] is None
    assert set(report) >= {"version", "resources", "catalog", "hardware", "engine", "window"}


def test_a_failing_check_is_named_the_others_still_run_and_the_exit_code_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken_engine(model: Path | None, timeout: float) -> dict[str, Any]:
        raise smoke.SmokeFailure("the worker generated 0 tokens, not 1", {"worker_pid": 7})

    def broken_catalog() -> dict[str, Any]:
        raise ValueError("bad catalog")

    _fake_checks(monkeypatch, check_engine=broken_engine, check_catalog=broken_catalog)
    assert smoke.main(["--no-window"]) == 1
    report = _one_json_line(capsys.readouterr().out)
    assert report["ok"] is False
    assert report["problems"] == [
        "catalog: ValueError: bad catalog",
        "engine: the worker generated 0 tokens, not 1",
    ]
    assert report["engine"] == {"worker_pid": 7}
    assert report["catalog"] is None
    assert report["hardware"] == {"cpu": "fake"}
    assert "window" not in report


def test_whatever_a_check_prints_goes_to_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def noisy() -> dict[str, Any]:
        print("chatter from a library")
        return {"cpu": "fake"}

    _fake_checks(monkeypatch, check_hardware=noisy)
    assert smoke.main([]) == 0
    captured = capsys.readouterr()
    assert _one_json_line(captured.out)["hardware"] == {"cpu": "fake"}
    assert "chatter from a library" in captured.err


@pytest.mark.parametrize("missing", ["desktop.ui.smoke", "desktop.ui", "PySide6", "PySide6.QtCore"])
def test_the_window_is_null_without_its_hook_or_without_qt(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    def not_there() -> Any:
        raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)

    monkeypatch.setattr(smoke, "load_window_hook", not_there)
    assert smoke.check_window() is None


def test_a_broken_window_hook_is_not_mistaken_for_a_missing_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken() -> Any:
        raise ModuleNotFoundError("No module named 'desktop.ui.gone'", name="desktop.ui.gone")

    monkeypatch.setattr(smoke, "load_window_hook", broken)
    with pytest.raises(ModuleNotFoundError):
        smoke.check_window()


def test_the_window_hook_report_comes_through_offscreen(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, str | None] = {}

    def window_report() -> dict[str, Any]:
        seen["platform"] = os.environ.get("QT_QPA_PLATFORM")
        return {"pages": ["models"], "profile": "this machine", "seconds_to_shown": 0.1}

    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setitem(
        sys.modules, smoke.WINDOW_HOOK, SimpleNamespace(window_report=window_report)
    )
    assert smoke.check_window() == {
        "pages": ["models"],
        "profile": "this machine",
        "seconds_to_shown": 0.1,
    }
    assert seen["platform"] == "offscreen"


def test_the_worker_is_started_as_the_frozen_executable_starts_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert smoke.worker_command() == [sys.executable, "-m", "desktop", "--engine-worker"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert smoke.worker_command() == [sys.executable, "--engine-worker"]


def test_the_entry_point_routes_the_flag_after_the_worker_flag(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[list[str]] = []

    def fake_main(argv: list[str]) -> int:
        calls.append(list(argv))
        return 5

    monkeypatch.setattr(smoke, "main", fake_main)
    assert entry.main(["--smoke-test", "--no-window"]) == 5
    assert calls == [["--no-window"]]
    # The worker flag stays first: it never reaches the smoke test.
    source = Path(entry.__file__).read_text(encoding="utf-8")
    assert source.index("WORKER_FLAG]") < source.index("SMOKE_FLAG]")
