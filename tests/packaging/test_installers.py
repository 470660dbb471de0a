"""The installers' parts, checked without freezing the app (seconds): the icon, the menu entry,
the launchers, the ELF reader and the dependencies it derives, a .deb and an AppDir tarball
built around a stand-in bundle, and the NSIS script built with warnings as errors.

The real bundle is proved by `.ci/run` (`python packaging/build.py check`): frozen, started, a
token generated, the .deb unpacked and started, the tarball unpacked and started.
"""

from __future__ import annotations

import importlib.util
import shutil
import struct
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
LINUX = PACKAGING / "linux"
SVG = ROOT / "resources" / "icons" / "llm-scout.svg"


def _llama_lib() -> Path:
    spec = importlib.util.find_spec("llama_cpp")
    assert spec is not None
    assert spec.origin is not None
    return Path(spec.origin).parent / "lib"


def _needs(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        pytest.skip(f"{tool} is not installed (.ci/run installs it)")
    return found


@pytest.fixture(scope="module")
def icons(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Rendered in a subprocess: a QGuiApplication here would stand in the way of the UI tests'
    QApplication."""
    out = tmp_path_factory.mktemp("icons")
    subprocess.run(
        [sys.executable, str(PACKAGING / "build.py"), "icons", "--out", str(out)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out


# -- the icon ---------------------------------------------------------------------------------


def test_the_app_icon_is_a_small_square_svg() -> None:
    root = ET.parse(SVG).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox") == "0 0 64 64"
    assert SVG.stat().st_size < 2048


def test_pngs_of_every_hicolor_size_and_a_windows_ico_are_rendered(
    icons: Path, build_script: ModuleType
) -> None:
    for size in build_script.PNG_SIZES:
        data = (icons / f"llm-scout-{size}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", data[16:24]) == (size, size)
    ico = (icons / "llm-scout.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", ico, 0)
    assert (reserved, kind, count) == (0, 1, len(build_script.ICO_SIZES))
    for i, size in enumerate(build_script.ICO_SIZES):
        width, height, _, _, planes, bits, length, offset = struct.unpack_from(
            "<BBBBHHII", ico, 6 + 16 * i
        )
        assert (width, height) == ((0, 0) if size >= 256 else (size, size))
        assert (planes, bits) == (1, 32)
        image = ico[offset : offset + length]
        if size >= 256:
            assert image[:8] == b"\x89PNG\r\n\x1a\n"
        else:
            assert struct.unpack_from("<Iii", image, 0) == (40, size, 2 * size)
            # The middle pixel (BGRA, rows bottom-up) is opaque: the icon is drawn, not blank.
            row = 40 + (size // 2) * size * 4
            assert image[row + (size // 2) * 4 + 3] == 255


# -- Linux --------------------------------------------------------------------------------------


def test_the_menu_entry_validates() -> None:
    tool = _needs("desktop-file-validate")
    out = subprocess.run(
        [tool, str(LINUX / "llm-scout.desktop")], capture_output=True, text=True, check=False
    )
    assert (out.returncode, out.stdout + out.stderr) == (0, "")
    text = (LINUX / "llm-scout.desktop").read_text(encoding="utf-8")
    assert "\nExec=llm-scout gui\n" in text
    assert "\nIcon=llm-scout\n" in text


@pytest.mark.parametrize("script", ["launcher.sh", "AppRun", "install.sh", "postinst", "postrm"])
def test_shell_scripts_parse(script: str) -> None:
    subprocess.run(["sh", "-n", str(LINUX / script)], check=True)


def _fake_executable(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('#!/bin/sh\necho "$0|$*"\n')
    path.chmod(0o755)


def _install_script(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst)
    dst.chmod(0o755)
    return dst


def test_the_launcher_runs_the_bundle_unpacked_beside_it_even_through_a_link(
    tmp_path: Path,
) -> None:
    _fake_executable(tmp_path / "opt" / "llm-scout" / "llm-scout")
    launcher = _install_script(LINUX / "launcher.sh", tmp_path / "usr" / "bin" / "llm-scout")
    link = tmp_path / "elsewhere" / "llm-scout"
    link.parent.mkdir()
    link.symlink_to(launcher)
    for start in (launcher, link):
        out = subprocess.run(
            [str(start), "--smoke-test", "two words"], capture_output=True, text=True, check=True
        )
        ran, args = out.stdout.strip().split("|")
        assert Path(ran).resolve() == (tmp_path / "opt" / "llm-scout" / "llm-scout").resolve()
        assert args == "--smoke-test two words"


def test_apprun_runs_the_bundle_in_the_appdir(tmp_path: Path) -> None:
    _fake_executable(tmp_path / "usr" / "lib" / "llm-scout" / "llm-scout")
    apprun = _install_script(LINUX / "AppRun", tmp_path / "AppRun")
    out = subprocess.run([str(apprun), "hw"], capture_output=True, text=True, check=True)
    ran, args = out.stdout.strip().split("|")
    assert Path(ran).resolve() == (tmp_path / "usr" / "lib" / "llm-scout" / "llm-scout").resolve()
    assert args == "hw"


def test_the_elf_reader_lists_what_a_library_needs(build_script: ModuleType) -> None:
    needed = build_script.elf_needed(_llama_lib() / "libllama.so")
    assert "libggml.so.0" in needed
    assert "libc.so.6" in needed
    assert build_script.elf_needed(PACKAGING / "build.py") is None
    assert build_script.elf_needed(Path("/nonexistent")) is None


def _stand_in_bundle(root: Path) -> Path:
    """The shape of dist/llm-scout: an executable and llama.cpp's real libraries."""
    bundle = root / "llm-scout"
    _fake_executable(bundle / "llm-scout")
    lib = bundle / "_internal" / "llama_cpp" / "lib"
    lib.mkdir(parents=True)
    for name in ("libllama.so", "libggml.so.0", "libggml-base.so.0", "libggml-cpu.so.0"):
        shutil.copy2(_llama_lib() / name, lib / name)
    return bundle


def test_dependencies_are_the_system_libraries_the_bundle_does_not_carry(
    tmp_path: Path, build_script: ModuleType
) -> None:
    depends = build_script.debian_depends(_stand_in_bundle(tmp_path))
    names = [d.split(" ")[0] for d in depends]
    assert names == sorted(set(names))
    assert {"libc6", "libstdc++6", "libgcc-s1"} <= set(names)
    assert not [n for n in names if "ggml" in n or "llama" in n]
    (libc,) = [d for d in depends if d.startswith("libc6 ")]
    assert libc.startswith("libc6 (>= 2.")


def test_a_library_of_no_known_package_stops_the_build(
    tmp_path: Path, build_script: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(build_script.SONAME_PACKAGES, "libstdc++.so.6")
    monkeypatch.setattr(build_script, "_dpkg_package", lambda soname: None)
    with pytest.raises(SystemExit, match=r"libstdc\+\+\.so\.6"):
        build_script.debian_depends(_stand_in_bundle(tmp_path))


@pytest.fixture
def stand_in_build(
    tmp_path: Path, icons: Path, build_script: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """build.py pointed at a stand-in bundle and a scratch build/ and dist/."""
    bundle = _stand_in_bundle(tmp_path / "dist")
    monkeypatch.setattr(build_script, "BUNDLE", bundle)
    monkeypatch.setattr(build_script, "DIST", tmp_path / "dist")
    monkeypatch.setattr(build_script, "BUILD", tmp_path / "build")
    monkeypatch.setattr(build_script, "ICONS", icons)
    return tmp_path


def test_the_deb_installs_under_opt_with_launcher_menu_entry_icons_and_scripts(
    stand_in_build: Path, build_script: ModuleType
) -> None:
    _needs("dpkg-deb")
    deb = build_script.build_deb()
    assert deb.name == f"llm-scout_{build_script.version()}_amd64.deb"

    def field(name: str) -> str:
        return subprocess.run(
            ["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True
        ).stdout.strip()

    assert field("Package") == "llm-scout"
    assert field("Architecture") == "amd64"
    assert "libc6 (>= 2." in field("Depends")
    assert int(field("Installed-Size")) > 0
    listing = subprocess.run(
        ["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True
    ).stdout
    for path in (
        "./opt/llm-scout/llm-scout",
        "./opt/llm-scout/_internal/llama_cpp/lib/libllama.so",
        "./usr/bin/llm-scout",
        "./usr/share/applications/llm-scout.desktop",
        "./usr/share/icons/hicolor/16x16/apps/llm-scout.png",
        "./usr/share/icons/hicolor/512x512/apps/llm-scout.png",
        "./usr/share/icons/hicolor/scalable/apps/llm-scout.svg",
        "./usr/share/doc/llm-scout/copyright",
    ):
        assert f" {path}\n" in listing, path
    assert "root/root" in listing
    unpacked = stand_in_build / "unpacked"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
    out = subprocess.run(
        [str(unpacked / "usr" / "bin" / "llm-scout"), "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().endswith("|--version")
    control = stand_in_build / "control"
    subprocess.run(["dpkg-deb", "-e", str(deb), str(control)], check=True)
    for script in ("postinst", "postrm"):
        assert (control / script).stat().st_mode & 0o111


def test_the_tarball_is_a_portable_appdir(stand_in_build: Path, build_script: ModuleType) -> None:
    tarball = build_script.build_tarball()
    top = f"llm-scout-{build_script.version()}-linux-x86_64"
    with tarfile.open(tarball) as tar:
        members = {m.name: m for m in tar.getmembers()}
        tar.extractall(stand_in_build / "unpacked", filter="tar")
    for name in (
        "AppRun",
        "llm-scout.desktop",
        "llm-scout.png",
        "llm-scout.svg",
        ".DirIcon",
        "install.sh",
        "README.txt",
        "usr/lib/llm-scout/llm-scout",
        "usr/share/icons/hicolor/256x256/apps/llm-scout.png",
    ):
        assert f"{top}/{name}" in members, name
    assert members[f"{top}/AppRun"].mode & 0o111
    assert members[f"{top}/AppRun"].uname == "root"
    readme = (stand_in_build / "unpacked" / top / "README.txt").read_text()
    assert "sudo apt-get install libc6" in readme
    out = subprocess.run(
        [str(stand_in_build / "unpacked" / top / "AppRun"), "hw"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().endswith("|hw")


# -- Windows ------------------------------------------------------------------------------------


def test_the_nsis_installer_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    _needs("makensis")
    subprocess.run(
        [sys.executable, str(PACKAGING / "build.py"), "nsis", "--stand-in", "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (setup,) = tmp_path.glob("llm-scout-*-windows-x86_64-setup-stand-in.exe")
    assert setup.read_bytes()[:2] == b"MZ"


def test_the_nsis_script_installs_per_user_and_keeps_models_unless_asked() -> None:
    script = (PACKAGING / "windows" / "llm-scout.nsi").read_text(encoding="utf-8")
    assert "RequestExecutionLevel user" in script
    assert 'InstallDir "$LOCALAPPDATA\\Programs\\${APP_NAME}"' in script
    assert '"$SMPROGRAMS\\${APP_NAME}.lnk"' in script
    assert '"$DESKTOP\\${APP_NAME}.lnk"' in script
    assert "Software\\Classes\\.gguf\\OpenWithProgids" in script
    assert "HKLM" not in script
    # The data section of the uninstaller is unticked (/o) and is the only one deleting data.
    assert 'Section /o "un.$(UN_DATA)"' in script
    assert script.count('RMDir /r "${DATA_DIR}"') == 1
