"""CPU probe: brand, cores, the ISA flags llama.cpp cares about, and cache sizes.

Linux reads ``/proc/cpuinfo`` and ``/sys/devices/system/cpu``; macOS asks ``sysctl``; Windows
uses the registry and ``IsProcessorFeaturePresent``; anything else falls back to ``platform`` and
``os.cpu_count()``. Flags use the kernel's lower-case names, filtered to what changes which
llama.cpp kernels run (``pni`` is reported as ``sse3``, ARM ``asimd`` as ``neon``).
"""

from __future__ import annotations

import logging
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path

from desktop.core.hardware._fs import (
    Runner,
    parse_colon_table,
    parse_cpu_list,
    parse_size,
    read_int,
    read_str,
    read_text,
    run_command,
    under,
)
from desktop.core.hardware.profile import CpuInfo

log = logging.getLogger(__name__)

# x86 /proc/cpuinfo "flags" names -> our names (only what matters to llama.cpp's CPU backend).
X86_FLAGS = {
    "pni": "sse3",
    "ssse3": "ssse3",
    "sse4_1": "sse4_1",
    "sse4_2": "sse4_2",
    "avx": "avx",
    "avx2": "avx2",
    "fma": "fma",
    "f16c": "f16c",
    "avx_vnni": "avx_vnni",
    "avx512f": "avx512f",
    "avx512bw": "avx512bw",
    "avx512cd": "avx512cd",
    "avx512dq": "avx512dq",
    "avx512vl": "avx512vl",
    "avx512vbmi": "avx512_vbmi",
    "avx512_vnni": "avx512_vnni",
    "avx512_bf16": "avx512_bf16",
    "avx512_fp16": "avx512_fp16",
    "amx_tile": "amx_tile",
    "amx_int8": "amx_int8",
    "amx_bf16": "amx_bf16",
}

# ARM /proc/cpuinfo "Features" names -> our names.
ARM_FLAGS = {
    "asimd": "neon",
    "neon": "neon",  # 32-bit kernels
    "asimdhp": "fp16",
    "asimddp": "dotprod",
    "i8mm": "i8mm",
    "bf16": "bf16",
    "sve": "sve",
    "sve2": "sve2",
    "sme": "sme",
}

# macOS sysctl names -> our names (arm64: hw.optional.*, x86: machdep.cpu.*features words).
DARWIN_FLAGS = {
    "hw.optional.neon": "neon",
    "hw.optional.arm.FEAT_FP16": "fp16",
    "hw.optional.arm.FEAT_DotProd": "dotprod",
    "hw.optional.arm.FEAT_I8MM": "i8mm",
    "hw.optional.arm.FEAT_BF16": "bf16",
    "hw.optional.arm.FEAT_SME": "sme",
}
DARWIN_X86_WORDS = {
    "SSE3": "sse3",
    "SSSE3": "ssse3",
    "SSE4.1": "sse4_1",
    "SSE4.2": "sse4_2",
    "AVX1.0": "avx",
    "AVX2": "avx2",
    "FMA": "fma",
    "F16C": "f16c",
    "AVX512F": "avx512f",
    "AVX512BW": "avx512bw",
    "AVX512CD": "avx512cd",
    "AVX512DQ": "avx512dq",
    "AVX512VL": "avx512vl",
    "AVX512VNNI": "avx512_vnni",
}

# Windows IsProcessorFeaturePresent constants (winnt.h) -> our names.
WINDOWS_FEATURES = {
    13: "sse3",  # PF_SSE3_INSTRUCTIONS_AVAILABLE
    36: "ssse3",  # PF_SSSE3_INSTRUCTIONS_AVAILABLE
    37: "sse4_1",  # PF_SSE4_1_INSTRUCTIONS_AVAILABLE
    38: "sse4_2",  # PF_SSE4_2_INSTRUCTIONS_AVAILABLE
    39: "avx",  # PF_AVX_INSTRUCTIONS_AVAILABLE
    40: "avx2",  # PF_AVX2_INSTRUCTIONS_AVAILABLE
    41: "avx512f",  # PF_AVX512F_INSTRUCTIONS_AVAILABLE
    19: "neon",  # PF_ARM_NEON_INSTRUCTIONS_AVAILABLE
    43: "dotprod",  # PF_ARM_V82_DP_INSTRUCTIONS_AVAILABLE
}

# ARM "CPU implementer" / "CPU part" ids (Linux arch/arm64/include/asm/cputype.h).
ARM_PARTS = {
    0x41: {
        0xD03: "Cortex-A53",
        0xD04: "Cortex-A35",
        0xD05: "Cortex-A55",
        0xD07: "Cortex-A57",
        0xD08: "Cortex-A72",
        0xD09: "Cortex-A73",
        0xD0A: "Cortex-A75",
        0xD0B: "Cortex-A76",
        0xD0C: "Neoverse-N1",
        0xD0D: "Cortex-A77",
        0xD40: "Neoverse-V1",
        0xD41: "Cortex-A78",
        0xD42: "Cortex-A78AE",
        0xD44: "Cortex-X1",
        0xD46: "Cortex-A510",
        0xD47: "Cortex-A710",
        0xD48: "Cortex-X2",
        0xD49: "Neoverse-N2",
        0xD4D: "Cortex-A715",
        0xD4E: "Cortex-X3",
        0xD4F: "Neoverse-V2",
        0xD80: "Cortex-A520",
        0xD81: "Cortex-A720",
        0xD82: "Cortex-X4",
    },
    0x4E: {0x004: "Carmel"},  # NVIDIA (Jetson Xavier)
}
ARM_IMPLEMENTERS = {0x41: "ARM", 0x4E: "NVIDIA", 0x51: "Qualcomm", 0x61: "Apple", 0xC0: "Ampere"}


def probe_cpu(
    root: Path = Path("/"),
    *,
    system: str | None = None,
    run: Runner | None = None,
) -> CpuInfo:
    """Describe the CPU; never raises for a missing source (fields stay None / empty)."""
    system = system or platform.system()
    if system == "Linux":
        return _probe_linux(root)
    if system == "Darwin":
        return probe_cpu_darwin(run or run_command)
    if system == "Windows":
        return _probe_windows()
    return _fallback()


def usable_cpus() -> int:
    """The logical CPUs this process may run on now: its affinity where the OS has one
    (containers, ``taskset``), else every CPU. llama.cpp's threads that many leave no CPU to
    anything else in the process (the window's drawing then comes out of their time)."""
    if hasattr(os, "sched_getaffinity"):
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except OSError:  # pragma: no cover - the calling process always has an affinity
            pass
    return max(1, os.cpu_count() or 1)


# --- Linux ---------------------------------------------------------------------------------


def _probe_linux(root: Path) -> CpuInfo:
    text = read_text(under(root, "/proc/cpuinfo")) or ""
    blocks = [parse_colon_table(b) for b in text.split("\n\n") if b.strip()]
    first = blocks[0] if blocks else {}
    # On arm64 the per-processor blocks come first and the board lines ("Hardware") last.
    merged: dict[str, str] = {}
    for block in blocks:
        for key, value in block.items():
            merged.setdefault(key, value)

    processors = [b for b in blocks if "processor" in b]
    sys_cpu = under(root, "/sys/devices/system/cpu")
    online = parse_cpu_list(read_str(sys_cpu / "online") or "")
    logical = len(online) or len(processors) or os.cpu_count() or 1
    physical = _physical_cores(sys_cpu, online) or _physical_from_cpuinfo(processors) or logical

    flags = _linux_flags(merged)
    l1d, l2, l3 = _linux_caches(sys_cpu, online[0] if online else 0, logical)
    if l3 is None and l2 is None and "cache size" in first:
        l2 = parse_size(first["cache size"].replace(" ", ""))

    arch = platform.machine() if root == Path("/") else _arch_from_cpuinfo(merged)
    return CpuInfo(
        brand=_linux_brand(merged, processors, root),
        arch=arch or platform.machine(),
        physical_cores=physical,
        logical_cores=logical,
        flags=flags,
        l1d_bytes=l1d,
        l2_bytes=l2,
        l3_bytes=l3,
    )


def _linux_brand(merged: dict[str, str], processors: list[dict[str, str]], root: Path) -> str:
    for key in ("model name", "Model Name", "cpu model", "uarch"):
        if merged.get(key):
            return " ".join(merged[key].split())
    parts: list[str] = []
    for proc in processors:
        name = _arm_part_name(proc.get("CPU implementer"), proc.get("CPU part"))
        if name and name not in parts:
            parts.append(name)
    if parts:
        return " + ".join(parts)
    if merged.get("Hardware"):
        return merged["Hardware"]
    model = read_str(under(root, "/proc/device-tree/model"))
    return model or platform.processor() or platform.machine() or "unknown CPU"


def _arm_part_name(implementer: str | None, part: str | None) -> str | None:
    try:
        imp = int(implementer or "", 16)
        prt = int(part or "", 16)
    except ValueError:
        return None
    name = ARM_PARTS.get(imp, {}).get(prt)
    vendor = ARM_IMPLEMENTERS.get(imp, f"ARM implementer 0x{imp:02x}")
    return f"{vendor} {name}" if name else f"{vendor} part 0x{prt:03x}"


def _arch_from_cpuinfo(merged: dict[str, str]) -> str:
    if "flags" in merged and "vendor_id" in merged:
        return "x86_64"
    if "CPU implementer" in merged:
        return "aarch64" if merged.get("CPU architecture", "8") != "7" else "armv7l"
    if "isa" in merged:
        return "riscv64"
    return ""


def _linux_flags(merged: dict[str, str]) -> tuple[str, ...]:
    words = (merged.get("flags") or merged.get("Features") or "").split()
    found: set[str] = set()
    for word in words:
        name = X86_FLAGS.get(word) or ARM_FLAGS.get(word)
        if name:
            found.add(name)
    isa = merged.get("isa", "")
    if isa.startswith("rv") and "v" in isa[4:].split("_")[0]:
        found.add("riscv_v")
    return tuple(sorted(found))


def _physical_cores(sys_cpu: Path, online: list[int]) -> int:
    cores: set[tuple[str, str]] = set()
    for cpu in online:
        topo = sys_cpu / f"cpu{cpu}" / "topology"
        siblings = read_str(topo / "core_cpus_list") or read_str(topo / "thread_siblings_list")
        if siblings is None:
            return 0
        cores.add((read_str(topo / "physical_package_id") or "0", siblings))
    return len(cores)


def _physical_from_cpuinfo(processors: list[dict[str, str]]) -> int:
    pairs = {(p.get("physical id"), p.get("core id")) for p in processors if "core id" in p}
    return len(pairs)


def _linux_caches(sys_cpu: Path, cpu: int, logical: int) -> tuple[int | None, ...]:
    """Per-core L1d and L2, and the total L3 (one instance times the number of instances)."""
    l1d = l2 = l3 = None
    cache_dir = sys_cpu / f"cpu{cpu}" / "cache"
    for index in sorted(cache_dir.glob("index*")):
        level = read_int(index / "level")
        kind = read_str(index / "type") or ""
        size = parse_size(read_str(index / "size") or "")
        if size is None:
            continue
        if level == 1 and kind == "Data":
            l1d = size
        elif level == 2 and kind in ("Unified", "Data"):
            l2 = size
        elif level == 3:
            sharing = len(parse_cpu_list(read_str(index / "shared_cpu_list") or "")) or logical
            l3 = size * max(1, -(-logical // sharing))
    return l1d, l2, l3


# --- macOS ---------------------------------------------------------------------------------


def read_sysctl(run: Runner) -> dict[str, str]:
    """The macOS sysctl values the probes use, as a dict (sysctl prints ``name: value`` lines)."""
    out = run(["sysctl", "hw", "machdep", "iogpu", "vm.swapusage", "kern.osproductversion"])
    return parse_colon_table(out) if out else {}


def probe_cpu_darwin(run: Runner, table: dict[str, str] | None = None) -> CpuInfo:
    info = table if table is not None else read_sysctl(run)

    def num(key: str) -> int | None:
        try:
            return int(info[key])
        except (KeyError, ValueError):
            return None

    flags: set[str] = {name for key, name in DARWIN_FLAGS.items() if info.get(key) == "1"}
    for key in ("machdep.cpu.features", "machdep.cpu.leaf7_features"):
        words = info.get(key, "").split()
        flags.update(DARWIN_X86_WORDS[w] for w in words if w in DARWIN_X86_WORDS)
    logical = num("hw.logicalcpu") or num("hw.ncpu") or os.cpu_count() or 1
    # Apple Silicon reports caches per performance level; perflevel0 is the P cores.
    l2 = num("hw.perflevel0.l2cachesize") or num("hw.l2cachesize")
    return CpuInfo(
        brand=info.get("machdep.cpu.brand_string") or platform.processor() or "unknown CPU",
        arch=info.get("hw.machine") or platform.machine(),
        physical_cores=num("hw.physicalcpu") or logical,
        logical_cores=logical,
        flags=tuple(sorted(flags)),
        l1d_bytes=num("hw.perflevel0.l1dcachesize") or num("hw.l1dcachesize"),
        l2_bytes=l2,
        l3_bytes=num("hw.l3cachesize") or None,
    )


# --- Windows and the rest ------------------------------------------------------------------


def windows_flags(is_present: Callable[[int], bool]) -> tuple[str, ...]:
    """Flags from ``IsProcessorFeaturePresent`` (passed in, so it can be exercised anywhere)."""
    return tuple(sorted({name for code, name in WINDOWS_FEATURES.items() if is_present(code)}))


def _probe_windows() -> CpuInfo:  # pragma: no cover - only runs on Windows
    brand = platform.processor()
    flags: tuple[str, ...] = ()
    if sys.platform == "win32":
        import ctypes
        import winreg

        try:
            key = winreg.OpenKey(
                winreg.HKEY_LOCAL_MACHINE, r"HARDWARE\DESCRIPTION\System\CentralProcessor\0"
            )
            brand = str(winreg.QueryValueEx(key, "ProcessorNameString")[0]).strip()
        except OSError as exc:
            log.debug("no CPU name in the registry: %s", exc)
        kernel32 = ctypes.windll.kernel32
        flags = windows_flags(lambda code: bool(kernel32.IsProcessorFeaturePresent(code)))
    base = _fallback()
    return CpuInfo(
        brand=brand or base.brand,
        arch=base.arch,
        physical_cores=base.physical_cores,
        logical_cores=base.logical_cores,
        flags=flags,
    )


def _fallback() -> CpuInfo:
    import psutil

    logical = psutil.cpu_count(logical=True) or os.cpu_count() or 1
    physical = psutil.cpu_count(logical=False) or logical
    return CpuInfo(
        brand=platform.processor() or platform.machine() or "unknown CPU",
        arch=platform.machine(),
        physical_cores=physical,
        logical_cores=logical,
    )
