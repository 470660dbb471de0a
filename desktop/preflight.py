"""Can the window open here? Checked before Qt is imported, so a missing piece is one sentence.

Qt aborts the whole process (no exception to catch) when its platform plugin cannot load, and its
message names only the first library it looked for. On Linux the X11 plugin (``libqxcb.so``)
needs a dozen ``libxcb-*`` libraries that a desktop usually has and a minimal system does not
(Debian 12 lacks ``libxcb-icccm4`` and ``libxcb-keysyms1`` even with a display). So before the
window starts, :func:`missing_window_libraries` asks the system's dynamic loader (``ldd``) which
libraries of the plugin cannot be found and names the packages that bring them.

:data:`SONAME_PACKAGES` is the one table from library names to Debian/Ubuntu packages: the .deb's
``Depends`` (packaging/build.py) is computed with it too.

Standard library only: this runs before PySide6 is imported, and in the packaging script.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# Libraries of the system's packages, by soname, named as Debian 12 / Ubuntu 22.04 name them
# (Ubuntu 24.04's "t64" packages provide these names on 64-bit machines).
SONAME_PACKAGES = {
    "libc.so.6": "libc6",
    "libm.so.6": "libc6",
    "libdl.so.2": "libc6",
    "libpthread.so.0": "libc6",
    "librt.so.1": "libc6",
    "libutil.so.1": "libc6",
    "ld-linux-x86-64.so.2": "libc6",
    "libgcc_s.so.1": "libgcc-s1",
    "libstdc++.so.6": "libstdc++6",
    "libgomp.so.1": "libgomp1",
    "libz.so.1": "zlib1g",
    "libbz2.so.1.0": "libbz2-1.0",
    "liblzma.so.5": "liblzma5",
    "libzstd.so.1": "libzstd1",
    "libffi.so.8": "libffi8",
    "libexpat.so.1": "libexpat1",
    "libuuid.so.1": "libuuid1",
    "libssl.so.3": "libssl3",
    "libcrypto.so.3": "libssl3",
    "libsqlite3.so.0": "libsqlite3-0",
    "libreadline.so.8": "libreadline8",
    "libtinfo.so.6": "libtinfo6",
    "libncursesw.so.6": "libncursesw6",
    "libpanelw.so.6": "libncursesw6",
    "libgdbm.so.6": "libgdbm6",
    "libgdbm_compat.so.4": "libgdbm-compat4",
    "libnsl.so.2": "libnsl2",
    "libtirpc.so.3": "libtirpc3",
    "libcrypt.so.1": "libcrypt1",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgio-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libpng16.so.16": "libpng16-16",
    "libharfbuzz.so.0": "libharfbuzz0b",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libOpenGL.so.0": "libopengl0",
    "libgbm.so.1": "libgbm1",
    "libdrm.so.2": "libdrm2",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
    "libgssapi_krb5.so.2": "libgssapi-krb5-2",
    "libvulkan.so.1": "libvulkan1",
}

#: The Qt platform plugin file of each platform name a person may set in ``QT_QPA_PLATFORM``.
PLATFORM_PLUGINS = {"xcb": "libqxcb.so", "wayland": "libqwayland.so"}


@dataclass(frozen=True)
class MissingLibraries:
    """Libraries the window's platform plugin needs and the system lacks."""

    platform: str
    sonames: tuple[str, ...]

    @property
    def packages(self) -> tuple[str, ...]:
        """The Debian/Ubuntu packages that bring them (known ones; unknown sonames are left out)."""
        names = {SONAME_PACKAGES[s] for s in self.sonames if s in SONAME_PACKAGES}
        return tuple(sorted(names))

    def sentence(self) -> str:
        libraries = ", ".join(self.sonames)
        text = (
            f"The window cannot open: Qt's {self.platform} display plugin needs system libraries "
            f"this machine lacks ({libraries})."
        )
        if self.packages:
            command = "sudo apt-get install " + " ".join(self.packages)
            text += f" On Debian or Ubuntu, `{command}` installs them."
        return text


def linux_platform(environ: Mapping[str, str] | None = None) -> str | None:
    """The Qt platform plugin the window will load on Linux, or ``None`` when it needs no
    system libraries to check (offscreen, minimal, vnc...)."""
    env = os.environ if environ is None else environ
    asked = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if asked:
        return asked if asked in PLATFORM_PLUGINS else None
    # Qt 6 picks Wayland in a Wayland session and X11 otherwise.
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    return "xcb"


def plugin_path(platform: str) -> Path | None:
    """PySide6's plugin file for ``platform`` (``None`` when PySide6 is not installed or the
    plugin is not where the wheel puts it)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "Qt" / "plugins" / "platforms" / PLATFORM_PLUGINS[platform]
        if path.exists():
            return path
    return None


def unresolved_libraries(path: Path) -> tuple[str, ...]:
    """The sonames the dynamic loader cannot find for ``path`` and what it needs in turn
    (``ldd``'s "not found" lines), in order; empty when ``ldd`` is not there or fails."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return ()
    try:
        done = subprocess.run(
            [ldd, str(path)], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ()
    return parse_ldd_not_found(done.stdout)


def parse_ldd_not_found(output: str) -> tuple[str, ...]:
    """``libfoo.so.1 => not found`` lines of ``ldd``'s output, each soname once, in order."""
    found: list[str] = []
    for line in output.splitlines():
        name, arrow, where = line.strip().partition("=>")
        if arrow and where.strip() == "not found" and name.strip() not in found:
            found.append(name.strip())
    return tuple(found)


def missing_window_libraries(
    environ: Mapping[str, str] | None = None, plugin: Path | None = None
) -> MissingLibraries | None:
    """What keeps the window's platform plugin from loading here (Linux only), or ``None``.

    ``plugin`` overrides the plugin file to check (tests); by default it is PySide6's own for
    the platform Qt will choose."""
    if not sys.platform.startswith("linux"):
        return None
    platform = linux_platform(environ)
    if platform is None:
        return None
    path = plugin if plugin is not None else plugin_path(platform)
    if path is None:
        return None
    sonames = unresolved_libraries(path)
    return MissingLibraries(platform, sonames) if sonames else None
