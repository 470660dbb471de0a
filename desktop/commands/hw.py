"""`llm-scout hw [--json] [--save FILE] [--measure-disk] [--profile FILE|NAME] [--list-profiles]`.

Shows this machine's hardware as LLM Scout sees it (CPU, memory, the disk holding the models
folder, GPUs), or a what-if profile. The first run measures the CPU memory bandwidth once (a
fraction of a second) and caches it; ``--measure-disk`` also times a sequential read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from desktop.commands.common import add_json_argument, add_profile_argument, workspace
from desktop.commands.output import emit_json, human_bytes, print_table
from desktop.core.errors import UsageError
from desktop.core.fit import MachineCalibration, with_calibration
from desktop.core.hardware import HardwareProfile, list_profiles, load_profile


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "hw",
        help="show this machine's hardware (or a what-if profile)",
        description="Show the hardware LLM Scout sees here, or a what-if hardware profile.",
    )
    add_json_argument(parser)
    parser.add_argument(
        "--save", metavar="FILE", type=Path, help="also write the profile to FILE (JSON)"
    )
    parser.add_argument(
        "--measure-disk",
        action="store_true",
        help="measure the models disk's read speed (reads up to 256 MiB)",
    )
    add_profile_argument(
        parser,
        help="show a saved profile file or a bundled what-if profile instead of this machine",
    )
    parser.add_argument(
        "--list-profiles", action="store_true", help="list the bundled what-if profiles"
    )
    parser.set_defaults(handler=run_hw)


def run_hw(args: argparse.Namespace) -> int:
    if args.list_profiles:
        if args.profile or args.save or args.measure_disk:
            raise UsageError("--list-profiles cannot be combined with other options.")
        return _list(list_profiles(), as_json=args.json)
    if args.profile and args.measure_disk:
        raise UsageError("--measure-disk measures this machine; it cannot go with --profile.")

    profile, name = workspace(with_demos=False).profile(
        args.profile, measure_disk=args.measure_disk
    )
    title = f"{name} ({profile.source})" if args.profile else "This machine"
    if args.save is not None:
        profile = with_calibration(profile)  # this machine's runs travel with the file
        profile.save(args.save)

    if args.json:
        emit_json(profile.to_dict())
    else:
        _print_profile(profile, title)
        if args.save is not None:
            sys.stdout.write(f"\nSaved to {args.save}{_carried(profile)}\n")
    return 0


def _carried(profile: HardwareProfile) -> str:
    cal = MachineCalibration.from_dict(profile.calibration)
    if cal is None or not cal.runs:
        return ""
    return f", with the calibration from {cal.runs} measured runs"


def _list(names: list[str], *, as_json: bool) -> int:
    rows = [load_profile(name).summary_dict(name) for name in names]
    if as_json:
        emit_json({"profiles": rows})
        return 0
    print_table(
        ["name", "machine", "RAM", "GPU", "GPU memory"],
        [
            [
                r["name"],
                r["title"],
                human_bytes(r["memory_total_bytes"]),
                r["gpu"] or "-",
                ("unified " if r["unified_memory"] else "")
                + human_bytes(r["gpu_memory_total_bytes"]),
            ]
            for r in rows
        ],
    )
    return 0


def _print_profile(profile: HardwareProfile, title: str) -> None:
    out = sys.stdout
    cpu, memory = profile.cpu, profile.memory
    out.write(f"{title}" + (f" - {profile.os}" if profile.os else "") + "\n\n")
    out.write(
        f"CPU     {cpu.brand} ({cpu.arch}), {cpu.physical_cores} cores / "
        f"{cpu.logical_cores} threads\n"
    )
    caches = ", ".join(
        f"{label} {human_bytes(size)}"
        for label, size in (("L1d", cpu.l1d_bytes), ("L2", cpu.l2_bytes), ("L3", cpu.l3_bytes))
        if size
    )
    if caches:
        out.write(f"        caches: {caches}\n")
    out.write(f"        flags: {' '.join(cpu.flags) or '-'}\n")
    bandwidth = cpu.memory_bandwidth_gbps
    out.write(f"        memory bandwidth: {f'{bandwidth:.1f} GB/s' if bandwidth else '-'}\n")
    limit = f" (container limit {human_bytes(memory.limit_bytes)})" if memory.limit_bytes else ""
    out.write(
        f"Memory  {human_bytes(memory.total_bytes)} total{limit}, "
        f"{human_bytes(memory.available_bytes)} available, "
        f"swap {human_bytes(memory.swap_total_bytes)}\n\n"
    )

    out.write("Disk (models folder)\n")
    if profile.disks:
        print_table(
            ["path", "device", "kind", "total", "free", "read speed"],
            [
                [
                    d.path,
                    d.device,
                    d.kind,
                    human_bytes(d.total_bytes),
                    human_bytes(d.free_bytes),
                    f"{d.read_bytes_per_s / 1e6:.0f} MB/s" if d.read_bytes_per_s else "-",
                ]
                for d in profile.disks
            ],
        )
    else:
        out.write("(not known)\n")

    out.write("\nGPUs\n")
    if profile.gpus:
        print_table(
            ["#", "vendor", "name", "memory", "free", "bandwidth", "compute", "unified"],
            [
                [
                    g.index,
                    g.vendor,
                    g.name,
                    human_bytes(g.memory_total_bytes),
                    human_bytes(g.memory_free_bytes),
                    f"{g.bandwidth_gbps:.0f} GB/s" if g.bandwidth_gbps else "-",
                    g.compute_capability or "-",
                    "yes" if g.unified_memory else "no",
                ]
                for g in profile.gpus
            ],
        )
    else:
        out.write("none found (models run on the CPU)\n")

    if profile.notes:
        out.write("\nNotes\n")
        for note in profile.notes:
            out.write(f"- {note}\n")
    if profile.sources:
        out.write("\nSources\n")
        for source in profile.sources:
            out.write(f"- {source}\n")
