"""`llm-scout gui`: open the window (a bare `llm-scout` does too when there is a display)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from desktop.core.errors import UsageError


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


def run_gui(args: argparse.Namespace) -> int:
    if not gui_available():
        raise UsageError(
            "The window needs PySide6: install LLM Scout with the gui extra "
            "(pip install 'llm-scout[gui]'); every command works without it."
        )
    missing = [f for f in args.files if not Path(f).expanduser().exists()]
    if missing:
        raise UsageError(f"There is no file at {missing[0]}.")
    from desktop.ui.app import run  # PySide6 only when the window opens

    return run(files=[Path(f) for f in args.files])
