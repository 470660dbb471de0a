"""Builds LLM Scout's installers: ``python packaging/build.py STEP...`` (``make package`` runs
``all``; see packaging/README.md).

Steps, each reading what the one before wrote (paths relative to the repository):

- ``icons``: resources/icons/llm-scout.svg rendered to PNGs (hicolor sizes) and a Windows .ico,
  in build/icons/ (PySide6's QtSvg, offscreen: no other tool needed);
- ``bundle``: PyInstaller, one folder: dist/llm-scout/ (packaging/llm-scout.spec);
- ``deb``: dist/llm-scout_VERSION_amd64.deb: the bundle in /opt/llm-scout, the launcher
  /usr/bin/llm-scout, the menu entry, hicolor icons, maintainer scripts, and Depends read from
  the bundle's ELF files (every library it needs that it does not carry);
- ``tarball``: dist/llm-scout-VERSION-linux-x86_64.tar.gz, a portable AppDir (AppRun, .desktop,
  icon; ``appimagetool`` turns the folder into an AppImage where it is installed);
- ``nsis``: the Windows installer (packaging/windows/llm-scout.nsi) around ``--payload DIR`` (a
  frozen Windows build) or, with ``--stand-in``, around placeholder files: what Linux CI can
  check with ``makensis -WX``;
- ``check``: the packaging proof CI runs: the bundle's ``--smoke-test``, the .deb unpacked with
  ``dpkg-deb -x`` and its launcher's ``--smoke-test``, ``desktop-file-validate`` on both menu
  entries, the tarball's AppRun ``--smoke-test``, and the NSIS installer built with ``-WX``;
- ``all``: icons, bundle, deb and tarball.

Standard library only, except ``icons`` (PySide6) and ``bundle`` (PyInstaller).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
BUILD = ROOT / "build"
DIST = ROOT / "dist"
BUNDLE = DIST / "llm-scout"
ICONS = BUILD / "icons"
SVG_ICON = ROOT / "resources" / "icons" / "llm-scout.svg"
DESKTOP_FILE = PACKAGING / "linux" / "llm-scout.desktop"

APP = "llm-scout"
PNG_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 256)  # 256 as PNG, the others as bitmaps (any Windows)
SMOKE_TIMEOUT_S = 300

# Libraries of the system's packages the bundle needs, by soname -> Debian/Ubuntu package: the
# table the window's own start-up check uses too (desktop/preflight.py). A soname not listed there
# is looked up with `dpkg -S` on the build machine.
sys.path.insert(0, str(ROOT))
from desktop.preflight import SONAME_PACKAGES  # noqa: E402

# The package whose version the highest symbol version needs, and how to say it.
GLIBC_PACKAGE = "libc6"
STDCXX_PACKAGE = "libstdc++6"
# GLIBCXX_3.4.N -> the GCC release that brought it (libstdc++6's version starts with it).
GLIBCXX_GCC = {28: 9, 29: 11, 30: 12, 31: 13, 32: 13, 33: 14, 34: 15}


def log(message: str) -> None:
    sys.stderr.write(f"[package] {message}\n")
    sys.stderr.flush()


def run(cmd: Sequence[str | Path], **kwargs: object) -> subprocess.CompletedProcess[str]:
    log("$ " + " ".join(str(c) for c in cmd))
    return subprocess.run([str(c) for c in cmd], check=True, text=True, **kwargs)  # type: ignore[call-overload, no-any-return]


def version() -> str:
    text = (ROOT / "desktop" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    if not found:
        raise SystemExit("desktop/__init__.py has no __version__")
    return found.group(1)


def tree_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.lstat().st_size for f in path.rglob("*") if f.is_file() or f.is_symlink())


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


# -- icons -------------------------------------------------------------------------------------


def build_icons(out: Path = ICONS) -> Path:
    """PNGs of every hicolor size and a Windows .ico, rendered from the SVG with QtSvg."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # The build needs the gui extra (PySide6) like the app it packages; the core never does.
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt  # noqa: TID251
    from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: TID251
    from PySide6.QtSvg import QSvgRenderer  # noqa: TID251

    _app = QGuiApplication.instance() or QGuiApplication([APP])
    renderer = QSvgRenderer(str(SVG_ICON))
    if not renderer.isValid():
        raise SystemExit(f"{SVG_ICON} is not a valid SVG")
    out.mkdir(parents=True, exist_ok=True)

    def render(size: int) -> QImage:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        return image.convertToFormat(QImage.Format.Format_ARGB32)

    def png_bytes(image: QImage) -> bytes:
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stub says bytes; only str works
        buffer.close()
        return bytes(data.data())

    for size in PNG_SIZES:
        (out / f"{APP}-{size}.png").write_bytes(png_bytes(render(size)))
    entries: list[tuple[int, bytes]] = []
    for size in ICO_SIZES:
        image = render(size)
        if size >= 256:
            entries.append((size, png_bytes(image)))
        else:
            entries.append((size, _ico_bitmap(bytes(image.constBits()), size)))
    (out / f"{APP}.ico").write_bytes(_ico(entries))
    shutil.copy2(SVG_ICON, out / f"{APP}.svg")
    log(f"icons in {out}")
    return out


def _ico_bitmap(bgra: bytes, size: int) -> bytes:
    """One .ico image as a 32-bit DIB: BITMAPINFOHEADER, rows bottom-up, an empty AND mask."""
    header = struct.pack("<IiiHHIIiiII", 40, size, size * 2, 1, 32, 0, 0, 0, 0, 0, 0)
    stride = size * 4
    rows = b"".join(bgra[r * stride : (r + 1) * stride] for r in reversed(range(size)))
    mask = b"\0" * (((size + 31) // 32) * 4 * size)
    return header + rows + mask


def _ico(entries: Sequence[tuple[int, bytes]]) -> bytes:
    directory = struct.pack("<HHH", 0, 1, len(entries))
    offset = 6 + 16 * len(entries)
    blobs = b""
    for size, blob in entries:
        side = 0 if size >= 256 else size
        directory += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(blob), offset)
        offset += len(blob)
        blobs += blob
    return directory + blobs


# -- bundle ------------------------------------------------------------------------------------


def build_bundle() -> Path:
    """PyInstaller, one folder (dist/llm-scout)."""
    if not (ICONS / f"{APP}.ico").is_file():
        build_icons()
    started = time.perf_counter()
    run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--clean",
            "--log-level",
            "WARN",
            "--distpath",
            DIST,
            "--workpath",
            BUILD / "pyinstaller",
            PACKAGING / "llm-scout.spec",
        ],
        cwd=ROOT,
    )
    _strip_python_library(BUNDLE)
    log(
        f"bundle {BUNDLE.relative_to(ROOT)}: {mib(tree_size(BUNDLE))} in "
        f"{time.perf_counter() - started:.0f} s"
    )
    return BUNDLE


def _strip_python_library(bundle: Path) -> None:
    """Strip the debug symbols of libpython (a locally built Python keeps them: ~18 MiB). Only
    that one: the wheels' libraries are stripped already, and stripping a library auditwheel
    patched (numpy's OpenBLAS) breaks it ("ELF load command address/offset not page-aligned")."""
    tool = shutil.which("strip")
    if tool is None or sys.platform != "linux":
        return
    for lib in (bundle / "_internal").glob("libpython3*.so*"):
        if lib.is_file() and not lib.is_symlink():
            run([tool, "--strip-debug", lib])


# -- ELF: what the bundle needs from the system ---------------------------------------------------


def elf_needed(path: Path) -> list[str] | None:
    """The DT_NEEDED sonames of a 64-bit little-endian ELF file; None for anything else."""
    try:
        with path.open("rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return None
            phoff, phentsize, phnum = (
                struct.unpack_from("<Q", head, 0x20)[0],
                struct.unpack_from("<H", head, 0x36)[0],
                struct.unpack_from("<H", head, 0x38)[0],
            )
            f.seek(phoff)
            table = f.read(phentsize * phnum)
            loads: list[tuple[int, int, int]] = []
            dynamic: tuple[int, int] | None = None
            for i in range(phnum):
                p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = struct.unpack_from(
                    "<IIQQQQ", table, i * phentsize
                )
                if p_type == 1:  # PT_LOAD
                    loads.append((p_vaddr, p_offset, p_filesz))
                elif p_type == 2:  # PT_DYNAMIC
                    dynamic = (p_offset, p_filesz)
            if dynamic is None:
                return []
            f.seek(dynamic[0])
            raw = f.read(dynamic[1])
            needed: list[int] = []
            strtab = None
            for i in range(len(raw) // 16):
                tag, value = struct.unpack_from("<qQ", raw, i * 16)
                if tag == 0:
                    break
                if tag == 1:  # DT_NEEDED
                    needed.append(value)
                elif tag == 5:  # DT_STRTAB
                    strtab = value
            if strtab is None:
                return []
            base = next(
                (off + strtab - va for va, off, size in loads if va <= strtab < va + size), None
            )
            if base is None:
                return []
            names = []
            for offset in needed:
                f.seek(base + offset)
                chunk = f.read(256)
                names.append(chunk.split(b"\0", 1)[0].decode("ascii", "replace"))
            return names
    except (OSError, struct.error):
        return None


def elf_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink() and elf_needed(path) is not None:
            yield path


@dataclass
class SystemNeeds:
    sonames: dict[str, list[str]]  # soname -> bundle files that need it
    glibc: tuple[int, int] | None  # highest GLIBC_x.y symbol version referenced
    glibcxx: int | None  # highest GLIBCXX_3.4.N referenced


def system_needs(bundle: Path) -> SystemNeeds:
    """Every library the bundle's ELF files need and do not carry themselves."""
    carried = {p.name for p in bundle.rglob("*")}
    sonames: dict[str, list[str]] = {}
    glibc: tuple[int, int] | None = None
    glibcxx: int | None = None
    for path in elf_files(bundle):
        for name in elf_needed(path) or []:
            if name not in carried:
                sonames.setdefault(name, []).append(str(path.relative_to(bundle)))
        data = path.read_bytes()
        for major, minor in re.findall(rb"GLIBC_(\d+)\.(\d+)", data):
            found = (int(major), int(minor))
            glibc = max(glibc, found) if glibc else found
        for n in re.findall(rb"GLIBCXX_3\.4\.(\d+)", data):
            glibcxx = max(glibcxx or 0, int(n))
    return SystemNeeds(sonames, glibc, glibcxx)


def _dpkg_package(soname: str) -> str | None:
    """The package that ships ``soname`` on this machine (`dpkg -S`), without a t64 suffix."""
    if shutil.which("dpkg") is None:
        return None
    for folder in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib"):
        out = subprocess.run(
            ["dpkg", "-S", f"{folder}/{soname}"], capture_output=True, text=True, check=False
        )
        if out.returncode == 0 and out.stdout:
            package = out.stdout.split(":", 1)[0].strip()
            return re.sub(r"t64$", "", package)
    return None


def debian_depends(bundle: Path) -> list[str]:
    """The .deb's Depends: one package per library the bundle needs from the system."""
    needs = system_needs(bundle)
    packages: set[str] = set()
    unknown: list[str] = []
    for soname in sorted(needs.sonames):
        package = SONAME_PACKAGES.get(soname) or _dpkg_package(soname)
        if package is None:
            unknown.append(f"{soname} (needed by {needs.sonames[soname][0]})")
        else:
            packages.add(package)
    if unknown:
        raise SystemExit(
            "No Debian package known for: " + ", ".join(unknown) + ". Add them to "
            "SONAME_PACKAGES in desktop/preflight.py."
        )
    depends = []
    for package in sorted(packages):
        if package == GLIBC_PACKAGE and needs.glibc:
            depends.append(f"{package} (>= {needs.glibc[0]}.{needs.glibc[1]})")
        elif package == STDCXX_PACKAGE and needs.glibcxx in GLIBCXX_GCC:
            depends.append(f"{package} (>= {GLIBCXX_GCC[needs.glibcxx]})")
        else:
            depends.append(package)
    return depends


# -- Linux: .deb and AppDir tarball --------------------------------------------------------------


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def _copy_tree(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)


def _install_icons(share: Path) -> None:
    hicolor = share / "icons" / "hicolor"
    for size in PNG_SIZES:
        target = hicolor / f"{size}x{size}" / "apps" / f"{APP}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ICONS / f"{APP}-{size}.png", target)
    scalable = hicolor / "scalable" / "apps" / f"{APP}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(SVG_ICON, scalable)


def _normalise_modes(root: Path) -> None:
    """Directories 755, executables and shared libraries 755, everything else 644."""
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        if path.is_dir() or path.stat().st_mode & stat.S_IXUSR or ".so" in path.name:
            path.chmod(0o755)
        else:
            path.chmod(0o644)


def _need_bundle() -> None:
    if not (BUNDLE / APP).is_file():
        raise SystemExit(f"No bundle in {BUNDLE}: run `python packaging/build.py bundle` first.")
    if not (ICONS / f"{APP}-16.png").is_file():
        build_icons()


def build_deb() -> Path:
    _need_bundle()
    ver = version()
    stage = BUILD / "deb" / f"{APP}_{ver}_amd64"
    if stage.exists():
        shutil.rmtree(stage)
    _copy_tree(BUNDLE, stage / "opt" / APP)
    _write(stage / "usr" / "bin" / APP, (PACKAGING / "linux" / "launcher.sh").read_text(), 0o755)
    shutil.copy2(
        DESKTOP_FILE, _mkparent(stage / "usr" / "share" / "applications" / f"{APP}.desktop")
    )
    _install_icons(stage / "usr" / "share")
    doc = stage / "usr" / "share" / "doc" / APP
    _write(doc / "copyright", (PACKAGING / "linux" / "copyright").read_text())
    _normalise_modes(stage)
    depends = debian_depends(BUNDLE)
    installed_kib = (tree_size(stage) + 1023) // 1024
    control = (
        (PACKAGING / "linux" / "control.in")
        .read_text()
        .format(
            version=ver,
            installed_size=installed_kib,
            depends=", ".join(depends),
            maintainer=os.environ.get(
                "DEB_MAINTAINER", "LLM Scout developers <llm-scout@users.noreply.github.com>"
            ),
        )
    )
    debian = stage / "DEBIAN"
    _write(debian / "control", control)
    for script in ("postinst", "postrm"):
        _write(debian / script, (PACKAGING / "linux" / script).read_text(), 0o755)
    out = DIST / f"{APP}_{ver}_amd64.deb"
    out.unlink(missing_ok=True)
    started = time.perf_counter()
    # xz -6 (dpkg's default) takes minutes on 2 cores; CI proves the package, not its size, and
    # sets LLM_SCOUT_DEB_LEVEL=1 (releases keep the default).
    level = os.environ.get("LLM_SCOUT_DEB_LEVEL", "6")
    run(["dpkg-deb", "--root-owner-group", "-Zxz", f"-z{level}", "--build", stage, out])
    log(
        f"{out.name}: {mib(out.stat().st_size)} (installed {mib(installed_kib * 1024)}), "
        f"{time.perf_counter() - started:.0f} s; Depends: {', '.join(depends)}"
    )
    return out


def _mkparent(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def build_tarball() -> Path:
    """A portable AppDir in a .tar.gz: unpack anywhere, run AppRun (or install.sh for a menu
    entry); `appimagetool llm-scout.AppDir` makes it an AppImage."""
    _need_bundle()
    ver = version()
    name = f"{APP}-{ver}-linux-x86_64"
    appdir = BUILD / "appdir" / name
    if appdir.exists():
        shutil.rmtree(appdir)
    _copy_tree(BUNDLE, appdir / "usr" / "lib" / APP)
    _write(appdir / "AppRun", (PACKAGING / "linux" / "AppRun").read_text(), 0o755)
    _write(appdir / "install.sh", (PACKAGING / "linux" / "install.sh").read_text(), 0o755)
    _write(
        appdir / "README.txt",
        (PACKAGING / "linux" / "README.txt")
        .read_text()
        .format(version=ver, depends=", ".join(_apt_names(debian_depends(BUNDLE)))),
    )
    shutil.copy2(DESKTOP_FILE, appdir / f"{APP}.desktop")
    shutil.copy2(
        DESKTOP_FILE, _mkparent(appdir / "usr" / "share" / "applications" / f"{APP}.desktop")
    )
    shutil.copy2(SVG_ICON, appdir / f"{APP}.svg")
    shutil.copy2(ICONS / f"{APP}-256.png", appdir / f"{APP}.png")
    (appdir / ".DirIcon").symlink_to(f"{APP}.png")
    _install_icons(appdir / "usr" / "share")
    _normalise_modes(appdir)
    out = DIST / f"{name}.tar.gz"
    started = time.perf_counter()
    with tarfile.open(out, "w:gz", compresslevel=6) as tar:
        tar.add(appdir, arcname=name, filter=_owned_by_root)
    log(f"{out.name}: {mib(out.stat().st_size)}, {time.perf_counter() - started:.0f} s")
    return out


def _apt_names(depends: Iterable[str]) -> list[str]:
    return [d.split(" ", 1)[0] for d in depends]


def _owned_by_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


# -- Windows: NSIS -----------------------------------------------------------------------------


def stand_in_payload(where: Path) -> Path:
    """Placeholder files shaped like the frozen Windows folder: what Linux CI wraps with NSIS
    to check the installer script (the real payload comes from the Windows runner)."""
    if where.exists():
        shutil.rmtree(where)
    (where / "_internal" / "resources").mkdir(parents=True)
    for exe in (f"{APP}.exe", f"{APP}-cli.exe"):
        (where / exe).write_bytes(b"MZ stand-in for the frozen executable\n")
    (where / "_internal" / "README.txt").write_text("Stand-in payload for makensis checks.\n")
    return where


def makensis() -> str:
    found = os.environ.get("MAKENSIS") or shutil.which("makensis")
    if not found:
        raise SystemExit("makensis is not installed (Debian/Ubuntu: apt-get install nsis).")
    return found


def build_nsis(payload: Path | None, out_dir: Path = DIST, icons: Path = ICONS) -> Path:
    """The Windows installer around ``payload`` (None: a stand-in payload), in ``out_dir``."""
    if not (icons / f"{APP}.ico").is_file():
        build_icons(icons)
    suffix = ""
    if payload is None:
        payload = stand_in_payload(
            BUILD / "nsis-stand-in" if out_dir == DIST else out_dir / "payload"
        )
        suffix = "-stand-in"
    ver = version()
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{APP}-{ver}-windows-x86_64-setup{suffix}.exe"
    run(
        [
            makensis(),
            "-WX",
            "-V2",
            f"-DVERSION={ver}",
            f"-DPAYLOAD={payload.resolve()}",
            f"-DOUTFILE={out.resolve()}",
            f"-DICON={(icons / f'{APP}.ico').resolve()}",
            PACKAGING / "windows" / f"{APP}.nsi",
        ]
    )
    log(f"{out.name}: {mib(out.stat().st_size)}")
    return out


# -- the packaging proof -------------------------------------------------------------------------


def smoke(executable: Path, *, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``EXECUTABLE --smoke-test`` with a fresh home; its JSON report (must say ok)."""
    with tempfile.TemporaryDirectory(prefix="llm-scout-smoke-") as home:
        full_env = {**os.environ, "LLM_SCOUT_HOME": home, "QT_QPA_PLATFORM": "offscreen"}
        full_env.update(env or {})
        started = time.perf_counter()
        out = subprocess.run(
            [str(executable), "--smoke-test"],
            capture_output=True,
            text=True,
            env=full_env,
            timeout=SMOKE_TIMEOUT_S,
            check=False,
        )
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or len(lines) != 1:
        sys.stderr.write(out.stderr[-4000:])
        raise SystemExit(
            f"{executable} --smoke-test exited {out.returncode} with {len(lines)} stdout "
            f"lines: {out.stdout[-2000:]}"
        )
    report: dict[str, Any] = json.loads(lines[0])
    log(f"{executable} --smoke-test: ok in {time.perf_counter() - started:.1f} s")
    return report


# Never in a bundle: development tools, and the Qt parts the spec leaves out.
FORBIDDEN_IN_BUNDLE = (
    "pytest",
    "_pytest",
    "pytestqt",
    "hypothesis",
    "mypy",
    "ruff",
    "PyInstaller",
    "setuptools",
    "pip",
    "libQt6WebEngine*",
    "libQt6Quick*",
    "libQt6Qml*",
    "libQt6Pdf*",
    "libQt6Network*",
    "libqgtk3*",
    "libqeglfs*",
    "libqvnc*",
)


def bundle_problems(bundle: Path) -> list[str]:
    """What the bundle carries that it must not (see FORBIDDEN_IN_BUNDLE)."""
    internal = bundle / "_internal"
    found = []
    for pattern in FORBIDDEN_IN_BUNDLE:
        if "*" in pattern:
            found += [str(p.relative_to(bundle)) for p in internal.rglob(pattern)]
        elif (internal / pattern).exists():
            found.append(f"_internal/{pattern}")
    return found


def validate_desktop_file(path: Path) -> None:
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        raise SystemExit(
            "desktop-file-validate is not installed (apt-get install desktop-file-utils)."
        )
    out = run([tool, path], capture_output=True)
    if out.stdout.strip() or out.stderr.strip():  # it prints nothing for a valid file
        raise SystemExit(f"{path}: {out.stdout}{out.stderr}")


def check() -> dict[str, object]:
    """What CI proves: the bundle, the unpacked .deb and the tarball start and generate a token;
    the menu entries validate; the NSIS script builds with warnings as errors."""
    ver = version()
    results: dict[str, object] = {"bundle_bytes": tree_size(BUNDLE)}
    shipped = bundle_problems(BUNDLE)
    if shipped:
        raise SystemExit("The bundle carries what it must not: " + ", ".join(shipped))
    report = smoke(BUNDLE / APP)
    results["bundle_smoke"] = report
    deb = DIST / f"{APP}_{ver}_amd64.deb"
    results["deb_bytes"] = deb.stat().st_size
    with tempfile.TemporaryDirectory(prefix="llm-scout-deb-") as tmp:
        run(["dpkg-deb", "-x", deb, tmp])
        launcher = Path(tmp) / "usr" / "bin" / APP
        deb_report = smoke(launcher)
        if deb_report["version"]["executable"] != str((Path(tmp) / "opt" / APP / APP).resolve()):
            raise SystemExit(f"the unpacked launcher ran {deb_report.get('version')}")
        validate_desktop_file(Path(tmp) / "usr" / "share" / "applications" / f"{APP}.desktop")
        fields = run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True).stdout.strip()
        results["deb_depends"] = fields
    tarball = DIST / f"{APP}-{ver}-linux-x86_64.tar.gz"
    results["tarball_bytes"] = tarball.stat().st_size
    with tempfile.TemporaryDirectory(prefix="llm-scout-tar-") as tmp:
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp, filter="tar")
        appdir = Path(tmp) / f"{APP}-{ver}-linux-x86_64"
        validate_desktop_file(appdir / f"{APP}.desktop")
        smoke(appdir / "AppRun")
    results["nsis_stand_in_bytes"] = build_nsis(None).stat().st_size
    log("packaging proof passed")
    return results


# -- command line ------------------------------------------------------------------------------


STEPS = ("icons", "bundle", "deb", "tarball", "nsis", "check", "depends", "all")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "steps",
        nargs="+",
        choices=STEPS,
        metavar="STEP",
        help="one or more of: " + ", ".join(STEPS),
    )
    payload = parser.add_mutually_exclusive_group()
    payload.add_argument("--payload", type=Path, help="nsis: the frozen Windows folder to wrap")
    payload.add_argument(
        "--stand-in",
        action="store_true",
        help="nsis: wrap placeholder files (checks the script on Linux)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="icons, nsis: write here instead of build/icons and dist/ (the tests use it)",
    )
    args = parser.parse_args(argv)
    if args.payload is None and not args.stand_in and "nsis" in args.steps:
        parser.error("nsis needs --payload DIR (a frozen Windows build) or --stand-in")
    started = time.perf_counter()
    for step in args.steps:
        if step == "icons":
            build_icons(args.out or ICONS)
        elif step == "bundle":
            build_bundle()
        elif step == "deb":
            build_deb()
        elif step == "tarball":
            build_tarball()
        elif step == "nsis":
            build_nsis(
                None if args.stand_in else args.payload,
                out_dir=args.out or DIST,
                icons=args.out / "icons" if args.out else ICONS,
            )
        elif step == "depends":
            sys.stdout.write(", ".join(debian_depends(BUNDLE)) + "\n")
        elif step == "check":
            sys.stdout.write(json.dumps(check()) + "\n")
        elif step == "all":
            build_icons()
            build_bundle()
            build_deb()
            build_tarball()
    log(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
