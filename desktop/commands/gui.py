"""`llm-scout gui`: open the window (a bare `llm-scout` does too when there is a display)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from desktop.core.errors import ScoutError, UsageError
from desktop.preflight import missing_window_libraries


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "gui",
        help="open the window",
        description="Open the LLM Scout window (needs the gui extra: PySide6 and pyqtgraph).",
    )
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="a .gguf model to open in the Playground (several: imported into the library) "
        "or a saved hardware profile (.json) to make active",
    )
    parser.set_defaults(handler=run_gui)


def gui_available() -> bool:
    """PySide6 is installed (the `gui` extra)."""
    return importlib.util.find_spec("PySide6") is not None


def display_available() -> bool:
    """A screen to open a window on: always on Windows and macOS; X11 or Wayland on Linux."""
    if sys.platform.startswith(("win", "darwin")):
        return True
    if os.environ.get("QT_QPA_PLATFORM", "") in ("offscreen", "minimal", "vnc"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def no_window_reason() -> str | None:
    """Why a bare ``llm-scout`` shows the hardware summary instead of the window (``None``:
    the window opens)."""
    if not gui_available():
        return (
            "No window: the gui extra is not installed (pip install 'llm-scout[gui]'). "
            "This is the hardware summary; `llm-scout --help` lists the commands."
        )
    if not display_available():
        return (
            "No window: no display was found (DISPLAY and WAYLAND_DISPLAY are not set). "
            "This is the hardware summary; run `llm-scout gui` on a machine with a screen "
            "(or over `ssh -X`), and `llm-scout --help` lists the commands."
        )
    return None


def run_gui(args: argparse.Namespace) -> int:
    if not gui_available():
        raise UsageError(
            "The window needs PySide6: install LLM Scout with the gui extra "
            "(pip install 'llm-scout[gui]'); every command works without it."
        )
    missing = [f for f in args.files if not Path(f).expanduser().exists()]
    if missing:
        raise UsageError(f"There is no file at {missing[0]}.")
    # Qt aborts the process when its display plugin cannot load, naming one library at most:
    # say every missing one, and the packages, before it gets the chance.
    missing_libraries = missing_window_libraries()
    if missing_libraries is not None:
        raise ScoutError(missing_libraries.sentence())
    from desktop.ui.app import run  # PySide6 only when the window opens

    return run(files=[Path(f) for f in args.files])
