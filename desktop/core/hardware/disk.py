"""Disk probe for the models folder: device, kind (nvme / ssd / hdd / unknown), size, free space.

The device comes from the folder's ``st_dev`` through ``/sys/dev/block/MAJOR:MINOR`` (or, for
btrfs/overlay where ``st_dev`` is anonymous, from ``/proc/self/mountinfo``); partitions map to
their disk, device-mapper and md devices to the disks below them. The kind comes from the device
name (``nvme*``) and ``queue/rotational``. Virtual disks (virtio ``vd*``, Xen ``xvd*``) report
``rotational=1`` by default whatever backs them, so only their ``0`` is trusted; SD cards and
eMMC (``mmcblk*``), loop, zram and network filesystems are ``unknown``.

The optional read speed (``measure=True``) costs real I/O: it reads up to 256 MiB of the largest
model file in the folder, or writes and reads back a 128 MiB scratch file, after asking the
kernel to drop that file from the page cache so the disk, not RAM, is measured. A measured speed
is cached in ``cache_dir()/disk_read_speed.json`` by device, and every later probe of a folder
on that device reports it: the window's Measure button, ``hw --measure-disk`` and ``fit``'s load
time then agree.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from desktop.core.hardware._fs import read_int, read_str, read_text, under
from desktop.core.hardware.profile import DiskInfo, DiskKind

log = logging.getLogger(__name__)

MEASURE_READ_BYTES = 256 << 20
SCRATCH_BYTES = 128 << 20
MIN_SAMPLE_FILE = 64 << 20
_CHUNK = 8 << 20
_VIRTUAL_PREFIXES = ("vd", "xvd")
_UNKNOWN_PREFIXES = ("mmcblk", "loop", "zram", "ram", "nbd", "rbd", "sr")


def nearest_existing(path: Path) -> Path:
    """``path`` or its closest parent that exists (the models folder may not be created yet)."""
    current = path.expanduser().absolute()
    while not current.exists() and current != current.parent:
        current = current.parent
    return current


def probe_disk(
    path: Path,
    root: Path = Path("/"),
    *,
    measure: bool = False,
    read_bytes: int = MEASURE_READ_BYTES,
    scratch_bytes: int = SCRATCH_BYTES,
) -> DiskInfo:
    folder = nearest_existing(path)
    usage = shutil.disk_usage(folder)
    device, kind = identify(folder, root)
    speed = None
    if measure:
        # Sample an existing model file only inside the models folder itself, never elsewhere.
        in_models_dir = folder == path.expanduser().absolute()
        speed = measure_read_speed(folder, read_bytes, scratch_bytes, use_files=in_models_dir)
        if speed is not None:
            store_read_speed(device, speed)
    else:
        speed = cached_read_speed(device)
    return DiskInfo(
        path=str(path),
        device=device,
        kind=kind,
        total_bytes=int(usage.total),
        free_bytes=int(usage.free),
        read_bytes_per_s=speed,
    )


def identify(folder: Path, root: Path = Path("/")) -> tuple[str, DiskKind]:
    """Block device name and kind of the filesystem holding ``folder``."""
    block = _block_dir_from_stat(folder, root) or _block_dir_from_mountinfo(folder, root)
    if block is None:
        return _mount_source(folder, root) or "unknown", "unknown"
    return block.name, kind_of(block)


def kind_of(block: Path, depth: int = 0) -> DiskKind:
    """Kind of a ``/sys/.../block/<name>`` folder (a disk, a partition or a dm/md device)."""
    disk = block.parent if (block / "partition").exists() else block
    name = disk.name
    slaves = sorted((disk / "slaves").glob("*")) if (disk / "slaves").is_dir() else []
    if slaves and depth < 4:
        kinds = [kind_of(s.resolve(), depth + 1) for s in slaves]
        # A mirror of an SSD and an HDD reads at the slower one's pace.
        for candidate in ("hdd", "unknown", "ssd", "nvme"):
            if candidate in kinds:
                return candidate
    if name.startswith("nvme"):
        return "nvme"
    if name.startswith(_UNKNOWN_PREFIXES):
        return "unknown"
    rotational = read_int(disk / "queue" / "rotational")
    if name.startswith(_VIRTUAL_PREFIXES):
        return "ssd" if rotational == 0 else "unknown"
    if rotational == 0:
        return "ssd"
    if rotational == 1:
        return "hdd"
    return "unknown"


def _block_dir_from_stat(folder: Path, root: Path) -> Path | None:
    try:
        dev = os.stat(folder).st_dev
    except OSError:
        return None
    return _block_dir(root, os.major(dev), os.minor(dev))


def _block_dir(root: Path, major: int, minor: int) -> Path | None:
    if major == 0:  # anonymous device: btrfs subvolume, overlayfs, tmpfs, NFS
        return None
    link = under(root, f"/sys/dev/block/{major}:{minor}")
    if not link.exists():
        return None
    return link.resolve()


def _mount_entry(folder: Path, root: Path) -> tuple[str, str, str] | None:
    """(major:minor, fstype, source) of the longest mount point containing ``folder``."""
    text = read_text(under(root, "/proc/self/mountinfo")) or ""
    target = str(folder)
    best: tuple[int, tuple[str, str, str]] | None = None
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields_left, fields_right = left.split(), right.split()
        if not sep or len(fields_left) < 5 or len(fields_right) < 2:
            continue
        mount_point = fields_left[4].replace("\\040", " ")
        inside = target == mount_point or target.startswith(mount_point.rstrip("/") + "/")
        if inside and (best is None or len(mount_point) > best[0]):
            best = (len(mount_point), (fields_left[2], fields_right[0], fields_right[1]))
    return best[1] if best else None


def _block_dir_from_mountinfo(folder: Path, root: Path) -> Path | None:
    entry = _mount_entry(folder, root)
    if entry is None:
        return None
    numbers, _fstype, source = entry
    major, _, minor = numbers.partition(":")
    if major.isdigit() and minor.isdigit():
        found = _block_dir(root, int(major), int(minor))
        if found is not None:
            return found
    if source.startswith("/dev/"):
        name = Path(source).name
        if source.startswith("/dev/mapper/"):
            name = _dm_name(root, name) or name
        link = under(root, f"/sys/class/block/{name}")
        if link.exists():
            return link.resolve()
    return None


def _dm_name(root: Path, mapper_name: str) -> str | None:
    for dm in sorted(under(root, "/sys/block").glob("dm-*")):
        if read_str(dm / "dm" / "name") == mapper_name:
            return dm.name
    return None


def _mount_source(folder: Path, root: Path) -> str | None:
    entry = _mount_entry(folder, root)
    return entry[2] if entry else None


# --- measured read speed ---------------------------------------------------------------------

SPEED_CACHE_FILE = "disk_read_speed.json"


def _speed_cache_path(ensure: bool = False) -> Path:
    from desktop.core import paths

    return paths.cache_dir(ensure=ensure) / SPEED_CACHE_FILE


def cached_read_speed(device: str) -> float | None:
    """The read speed last measured on ``device`` (bytes/s), or None."""
    if not device:
        return None
    try:
        data = json.loads(_speed_cache_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    entry = data.get(device) if isinstance(data, dict) else None
    value = entry.get("bytes_per_s") if isinstance(entry, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def store_read_speed(device: str, bytes_per_s: float) -> None:
    """Remember ``device``'s measured read speed for later probes (never fails the probe)."""
    if not device:
        return
    path = _speed_cache_path(ensure=True)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    data[device] = {
        "bytes_per_s": round(bytes_per_s),
        "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        log.warning("cannot cache the disk read speed in %s: %s", path, exc)
        tmp.unlink(missing_ok=True)


def measure_read_speed(
    folder: Path,
    read_bytes: int = MEASURE_READ_BYTES,
    scratch_bytes: int = SCRATCH_BYTES,
    *,
    use_files: bool = True,
) -> float | None:
    """Sequential read speed in bytes/s of the disk holding ``folder``; None when not possible.

    With ``use_files`` the largest file already in ``folder`` is read (no writes); otherwise,
    or when there is none, a scratch file is written, flushed, dropped from the cache and read.
    """
    min_size = min(MIN_SAMPLE_FILE, read_bytes)
    sample = _largest_file(folder, min_size=min_size) if use_files else None
    try:
        if sample is not None:
            return _timed_read(sample, read_bytes)
        return _scratch_read(folder, scratch_bytes, read_bytes)
    except OSError as exc:
        log.info("cannot measure the disk read speed in %s: %s", folder, exc)
        return None


def _largest_file(folder: Path, min_size: int, max_entries: int = 2000) -> Path | None:
    best: tuple[int, Path] | None = None
    for count, path in enumerate(folder.rglob("*")):
        if count >= max_entries:
            break
        try:
            if not path.is_file() or path.is_symlink():
                continue
            size = path.stat().st_size
        except OSError:
            continue
        if size >= min_size and (best is None or size > best[0]):
            best = (size, path)
    return best[1] if best else None


def _scratch_read(folder: Path, scratch_bytes: int, read_bytes: int) -> float | None:
    handle, name = tempfile.mkstemp(prefix=".llm-scout-readtest-", dir=folder)
    path = Path(name)
    try:
        block = os.urandom(1 << 20)  # incompressible, so compressing filesystems cannot cheat
        with os.fdopen(handle, "wb") as out:
            for _ in range(max(1, scratch_bytes >> 20)):
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
        return _timed_read(path, read_bytes)
    finally:
        path.unlink(missing_ok=True)


def _timed_read(path: Path, limit: int) -> float | None:
    fd = os.open(path, os.O_RDONLY)
    try:
        _drop_cache(fd)
        buffer = bytearray(_CHUNK)
        view = memoryview(buffer)
        total = 0
        start = time.perf_counter()
        with os.fdopen(fd, "rb", buffering=0, closefd=False) as raw:
            while total < limit:
                got = raw.readinto(view)
                if not got:
                    break
                total += got
        elapsed = time.perf_counter() - start
    finally:
        os.close(fd)
    if total == 0 or elapsed <= 0:
        return None
    return total / elapsed


def _drop_cache(fd: int) -> None:
    """Ask the kernel to forget the file's cached pages (clean pages only, no root needed)."""
    if hasattr(os, "posix_fadvise"):
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    elif sys.platform == "darwin":  # pragma: no cover - macOS only
        import fcntl

        fcntl.fcntl(fd, 48, 1)  # F_NOCACHE: bypass the unified buffer cache for this fd
