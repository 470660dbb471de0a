"""``llm-scout --smoke-test``: does this build of LLM Scout work on this machine?

Prints exactly one JSON line on stdout and exits 0 when every check passed, 1 otherwise (the
line says which failed, in ``problems``). CI runs it on the frozen bundle and on the unpacked
.deb; a user can run it to see what the app found. Every check runs even when an earlier one
failed, and takes a few seconds in all:

- ``version``: the app and Python versions, and whether this is a frozen build;
- ``resources``: the resources folder (hardware profiles, icons, translations) was found;
- ``catalog``: the bundled catalog loaded (models and variants counted);
- ``hardware``: a summary of the hardware probe (CPU, memory, GPUs);
- ``engine``: a real engine worker, started the way the frozen executable starts one (the app's
  own executable with ``--engine-worker``; from a checkout ``python -m desktop
  --engine-worker``), reports its llama.cpp build and backends, loads the SmolLM2 demo model
  (found through :mod:`desktop.core.demo`; the bundle carries it) and generates one token;
- ``window``: when the window's smoke hook exists (``desktop.ui.smoke.window_report()``), the
  main window is built offscreen, shown and closed; ``null`` when the hook or PySide6 is not
  there (a core-only install), and left out with ``--no-window``.

This module composes the core and the window, so it lives outside ``desktop/core``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from desktop import __version__

SMOKE_FLAG = "--smoke-test"
WINDOW_HOOK = "desktop.ui.smoke"
DEFAULT_TIMEOUT_S = 120.0
PROMPT = "The capital of France is"


def worker_command() -> list[str]:
    """The engine worker as the frozen executable starts it: the app's entry point with the
    worker flag (the frozen executable itself, or ``python -m desktop`` from a checkout)."""
    if getattr(sys, "frozen", False):
        from desktop.core.engine import worker_command as frozen_command

        return frozen_command()
    return [sys.executable, "-m", "desktop", "--engine-worker"]


def check_version() -> dict[str, Any]:
    return {
        "app": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "frozen": bool(getattr(sys, "frozen", False)),
        "executable": sys.executable,
    }


def check_resources() -> dict[str, Any]:
    from desktop.core import paths

    root = paths.resources_dir()

    def count(sub: str, pattern: str) -> int:
        folder = root / sub
        return sum(1 for _ in folder.glob(pattern)) if folder.is_dir() else 0

    found = {
        "dir": str(root),
        "found": root.is_dir(),
        "hardware_profiles": count("hardware_profiles", "*.json"),
        "icons": count("icons", "*.svg"),
        "app_icon": (root / "icons" / "llm-scout.svg").is_file(),
        "translations": count("i18n", "*.qm"),
    }
    if not found["found"]:
        raise SmokeFailure(f"the resources folder {root} is missing")
    if not found["hardware_profiles"]:
        raise SmokeFailure(f"no hardware profiles in {root / 'hardware_profiles'}")
    return found


def check_catalog() -> dict[str, Any]:
    from desktop.core import paths
    from desktop.core.catalog import load_catalog_safe

    catalog, errors = load_catalog_safe()
    result = {
        "path": str(paths.bundled_catalog_path()),
        "models": len(catalog.models),
        "variants": sum(len(m.variants) for m in catalog.models),
        "errors": [str(e) for e in errors],
    }
    if not catalog.models:
        raise SmokeFailure("the bundled catalog has no models", result)
    return result


def check_hardware() -> dict[str, Any]:
    from desktop.core.hardware import probe

    profile = probe()
    cpu = profile.cpu
    wide = ("avx", "avx2", "avx512f", "fma", "f16c", "neon", "sve")
    return {
        "os": profile.os,
        "cpu": cpu.brand,
        "arch": cpu.arch,
        "physical_cores": cpu.physical_cores,
        "logical_cores": cpu.logical_cores,
        "cpu_flags": [f for f in wide if f in cpu.flags],
        "ram_total_bytes": profile.memory.total_bytes,
        "ram_available_bytes": profile.memory.available_bytes,
        "gpus": [
            {"vendor": str(g.vendor), "name": g.name, "memory_total_bytes": g.memory_total_bytes}
            for g in profile.gpus
        ],
        "notes": len(profile.notes),
    }


def check_engine(model: Path | None, timeout: float) -> dict[str, Any]:
    """A real worker: its llama.cpp build, then one token from ``model`` (the SmolLM2 demo)."""
    from desktop.core import demo
    from desktop.core.engine import EngineClient, EngineInfo, protocol

    command = worker_command()
    result: dict[str, Any] = {"worker_command": command}
    started = time.perf_counter()
    client = EngineClient(command=command)
    try:
        ready = client.start(timeout)
        info = EngineInfo.from_ready(ready)
        result.update(
            worker_pid=ready.pid,
            llama_cpp_version=info.llama_cpp_version,
            summary=info.summary(),
            gpu_offload=info.gpu_offload,
            cpu_variant=info.cpu_variant,
            backends={k: list(v) for k, v in info.backends.items()},
            system_info=info.system_info,
        )
        path = model if model is not None else demo.smollm2_path()
        result["model"] = str(path)
        loaded = client.load_model(path, timeout, n_ctx=256, n_batch=64)
        result.update(load_ms=round(loaded.load_ms, 1), architecture=loaded.architecture)
        request = client.generate(
            prompt=PROMPT,
            params=protocol.SamplingParams(temperature=0.0, seed=1, max_tokens=1, ignore_eos=True),
        )
        done = request.result(timeout)
        assert isinstance(done, protocol.Done)
        result.update(
            generated_tokens=done.generated_tokens,
            text=request.text,
            finish_reason=done.finish_reason,
        )
        if done.generated_tokens != 1:
            raise SmokeFailure(f"the worker generated {done.generated_tokens} tokens, not 1")
    except SmokeFailure as exc:
        exc.partial = result
        raise
    except Exception as exc:
        tail = client.stderr_tail(lines=8, max_chars=2000)
        if tail:
            result["worker_log_tail"] = tail
        raise SmokeFailure(f"{type(exc).__name__}: {exc}", result) from exc
    finally:
        client.close()
        result["seconds"] = round(time.perf_counter() - started, 2)
    return result


def load_window_hook() -> Any:
    return importlib.import_module(WINDOW_HOOK)


def check_window() -> dict[str, Any] | None:
    """The window's own smoke hook, offscreen; None when it (or PySide6) is not there."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        hook = load_window_hook()
    except ImportError as exc:
        missing = getattr(exc, "name", None) or ""
        if missing in ("desktop.ui", WINDOW_HOOK) or missing.split(".")[0] in (
            "PySide6",
            "shiboken6",
            "pyqtgraph",
        ):
            return None
        raise
    report: Callable[[], dict[str, Any]] = hook.window_report
    return dict(report())


class SmokeFailure(Exception):
    """A check failed: the message for ``problems`` and what the check found before it did."""

    def __init__(self, message: str, partial: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.partial = partial


def smoke_report(
    *, window: bool = True, model: Path | None = None, timeout: float = DEFAULT_TIMEOUT_S
) -> dict[str, Any]:
    """Run every check; the report has one key per check, ``problems`` and ``ok``."""
    started = time.perf_counter()
    report: dict[str, Any] = {"smoke_test": 1}
    problems: list[str] = []
    checks: list[tuple[str, Callable[[], Any]]] = [
        ("version", check_version),
        ("resources", check_resources),
        ("catalog", check_catalog),
        ("hardware", check_hardware),
        ("engine", lambda: check_engine(model, timeout)),
    ]
    if window:
        checks.append(("window", check_window))
    for name, check in checks:
        try:
            report[name] = check()
        except SmokeFailure as exc:
            report[name] = exc.partial
            problems.append(f"{name}: {exc}")
        except Exception as exc:
            report[name] = None
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
    report["problems"] = problems
    report["ok"] = not problems
    report["seconds"] = round(time.perf_counter() - started, 2)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=f"llm-scout {SMOKE_FLAG}",
        description="Check this build: resources, catalog, hardware probe, a real engine worker "
        "generating one token, and the window offscreen. Prints one JSON line.",
    )
    parser.add_argument("--no-window", action="store_true", help="leave the window check out")
    parser.add_argument(
        "--model", type=Path, default=None, help="a GGUF file instead of the SmolLM2 demo model"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help="seconds each engine step may take (default: %(default)s)",
    )
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    # Stdout carries the one JSON line: anything a check prints goes to stderr.
    with contextlib.redirect_stdout(sys.stderr):
        report = smoke_report(window=not args.no_window, model=args.model, timeout=args.timeout)
    sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return 0 if report["ok"] else 1
