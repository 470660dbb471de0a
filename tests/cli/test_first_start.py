"""The first start of the window as a newcomer meets it: a missing system library or a missing
display is one sentence that says what to do, never a silent exit or Qt's abort."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.preflight import (
    SONAME_PACKAGES,
    MissingLibraries,
    linux_platform,
    missing_window_libraries,
    parse_ldd_not_found,
)

LDD_OUTPUT = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /x/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f)
\tlibxcb-icccm.so.4 => not found
"""


def test_ldd_not_found_lines_are_read_once_each_in_order() -> None:
    assert parse_ldd_not_found(LDD_OUTPUT) == ("libxcb-icccm.so.4", "libxcb-keysyms.so.1")
    assert parse_ldd_not_found("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == ()


def test_the_sentence_names_the_packages_to_install() -> None:
    missing = MissingLibraries("xcb", ("libxcb-icccm.so.4", "libxcb-keysyms.so.1"))
    assert missing.packages == ("libxcb-icccm4", "libxcb-keysyms1")
    sentence = missing.sentence()
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in sentence
    assert "`sudo apt-get install libxcb-icccm4 libxcb-keysyms1`" in sentence


@pytest.mark.parametrize(
    ("environ", "platform"),
    [
        ({"DISPLAY": ":0"}, "xcb"),
        ({"QT_QPA_PLATFORM": "offscreen"}, None),
        ({"QT_QPA_PLATFORM": "xcb;wayland"}, "xcb"),
        ({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, "wayland"),
        ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, "xcb"),
    ],
)
def test_the_platform_qt_will_load(environ: dict[str, str], platform: str | None) -> None:
    assert linux_platform(environ) == platform


def _plugin_needing_a_library_that_is_gone(folder: Path) -> Path:
    """A real shared object linked against a real library that is then removed: the dynamic
    loader cannot find it, as on a system without the package."""
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc is not None, "the test machine has a C compiler (python kind)"
    (folder / "stub.c").write_text("int stub_symbol(void) { return 1; }\n")
    (folder / "plugin.c").write_text(
        "int stub_symbol(void);\nint plugin_entry(void) { return stub_symbol(); }\n"
    )
    library = folder / "libxcb-icccm.so.4"
    subprocess.run(
        [
            cc,
            "-shared",
            "-fPIC",
            "-Wl,-soname,libxcb-icccm.so.4",
            "-o",
            str(library),
            str(folder / "stub.c"),
        ],
        check=True,
    )
    plugin = folder / "libqxcb.so"
    subprocess.run(
        [
            cc,
            "-shared",
            "-fPIC",
            "-o",
            str(plugin),
            str(folder / "plugin.c"),
            "-Wl,--no-as-needed",
            str(library),
        ],
        check=True,
    )
    library.unlink()
    return plugin


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ldd and Qt's xcb: Linux")
def test_a_plugin_whose_library_is_missing_is_found_out(tmp_path: Path) -> None:
    plugin = _plugin_needing_a_library_that_is_gone(tmp_path)
    missing = missing_window_libraries({"DISPLAY": ":0"}, plugin=plugin)
    assert missing is not None
    assert missing.sonames == ("libxcb-icccm.so.4",)
    assert missing.packages == ("libxcb-icccm4",)
    # Nothing to check offscreen, and nothing missing from a plugin that links only libc.
    assert missing_window_libraries({"QT_QPA_PLATFORM": "offscreen"}, plugin=plugin) is None


def test_the_deb_and_the_window_check_use_one_table(monkeypatch: pytest.MonkeyPatch) -> None:
    # Loaded from its file: the name `build` may already be PyPA's build package, or a build/
    # folder that `make package` leaves in the checkout.
    path = Path(__file__).resolve().parents[2] / "packaging" / "build.py"
    spec = importlib.util.spec_from_file_location("llm_scout_packaging_build", path)
    assert spec is not None
    assert spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, build)  # its dataclasses look themselves up
    spec.loader.exec_module(build)
    assert build.SONAME_PACKAGES is SONAME_PACKAGES


def _cli(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def test_without_a_display_a_bare_command_says_why_there_is_no_window(scout_home: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env["LLM_SCOUT_HOME"] = str(scout_home)
    done = _cli(env)
    assert done.returncode == 0, done.stderr
    assert "CPU" in done.stdout  # the hardware summary still prints
    assert "No window: no display was found" in done.stderr
    assert "llm-scout gui" in done.stderr
    # Asked for explicitly, a command prints no such note.
    assert "No window" not in _cli(env, "hw").stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ldd and Qt's xcb: Linux")
def test_gui_refuses_in_one_sentence_before_qt_can_abort(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop import preflight
    from desktop.cli import main

    plugin = _plugin_needing_a_library_that_is_gone(tmp_path)
    monkeypatch.setattr(preflight, "plugin_path", lambda platform: plugin)
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["gui"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert "libxcb-icccm.so.4" in err
    assert "`sudo apt-get install libxcb-icccm4` installs them." in err
