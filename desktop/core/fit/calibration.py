"""Calibration from the user's own runs: this machine's measured speed and memory overhead.

Every ``llm-scout bench`` and ``llm-scout run`` stores what the fit estimator predicted for its
settings next to what was measured (:class:`CalibrationEntry`), keyed by a fingerprint of the
machine (:func:`machine_fingerprint`), in ``calibration.json`` in the user data folder
(:class:`CalibrationStore`: written atomically, the newest :data:`MAX_ENTRIES` kept, a file that
cannot be read is moved aside and the store starts empty).

From a machine's entries :func:`compute_calibration` derives a :class:`MachineCalibration`:

- a generation-speed factor per device kind (``cpu``: no GPU layers, ``gpu``: every layer on the
  GPU): the median of measured / predicted tokens/s over runs that generated at least
  :data:`MIN_GENERATED` tokens (shorter ones say little), the newest :data:`RECENT` of them;
- a RAM offset for CPU runs: the median of measured peak RSS minus the predicted RAM (the fit's
  ``ram_bytes`` is the predicted peak RSS, mapped file pages included). The private and
  file-backed peaks are stored too.

Runs made while other programs used the CPU are left out: the client measures who had the CPU
during the answer (:mod:`desktop.core.engine.cpu_use`) and such a run is stored with the reason
(``busy``) and never counts for the speed (its memory still counts: a busy CPU does not change
what the model occupies); nor do ratios outside 1/100..100. The runs are grouped by clock
hour; within an hour, values more than three robust standard deviations (1.4826 x MAD, with a
floor) from the hour's median are dropped (a page cache that was evicted); the figure is the
median of the hours' medians, so one bad hour of many runs (a contention the measurement missed)
is one vote among the hours, never a majority that outvotes the others. A
figure applies only with at least :data:`MIN_RUNS` runs behind it. What counted and what was
left out, and why, is :func:`~desktop.core.fit.calibration_review.review_calibration` (``llm-scout
calibration``, the Hardware page), which can also take back the newest run or start afresh.

:func:`apply_calibration` is the thin layer the front ends put over an estimate: the speed
scaled, the offset added to the RAM overhead (and so to ``ram_bytes`` and the RAM the verdict
rests on). The estimator itself (``place.py``) is untouched; ``max_ctx`` stays the model's.
Partial offload gets no speed factor (neither device's alone describes it). The predictions
stored with each run are always the raw model's, so calibrating never feeds on itself.

A profile saved with ``hw --save`` carries its machine's :class:`MachineCalibration` under
``"calibration"`` (:func:`calibration_for` prefers it), so an edge box measured once is
predicted well from a laptop.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from desktop.core import paths
from desktop.core.fit.types import FitResult, need_of
from desktop.core.hardware import HardwareProfile

log = logging.getLogger(__name__)

STORE_FORMAT = 1
MAX_ENTRIES = 200  # newest kept in the file, all machines together
RECENT = 50  # newest qualifying runs per figure
MIN_RUNS = 2  # runs a figure needs before it applies
MIN_GENERATED = 16  # generated tokens a run needs to count for the speed
MAX_RATIO = 100.0  # measured/predicted beyond 100x either way is a broken run, not a machine
SPEED_LOG_FLOOR = math.log(1.1)  # outlier scale floor for log ratios
RAM_FLOOR_BYTES = 16 * 1024 * 1024  # outlier scale floor for RAM differences
MAX_RAM_OFFSET_BYTES = 4 * 1024**3

Device = Literal["cpu", "gpu", "partial"]
SPEED_DEVICES: tuple[Device, ...] = ("cpu", "gpu")


def machine_fingerprint(profile: HardwareProfile) -> str:
    """A short stable id of the machine a profile describes: CPU brand and cores, RAM total
    (to the GiB, so a kernel update's few kilobytes do not make a new machine) and GPU names."""
    cpu = profile.cpu
    key = [
        cpu.brand.strip(),
        cpu.physical_cores,
        cpu.logical_cores,
        round(profile.memory.total_bytes / 1024**3),
        sorted(g.name.strip() for g in profile.gpus),
    ]
    return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]


def device_of(n_gpu_layers: int, n_layers: int, gpu_offload: bool = True) -> Device:
    """The device kind of a load: ``cpu`` (no GPU layers or a CPU build), ``gpu`` (every
    layer), else ``partial``."""
    if n_gpu_layers == 0 or not gpu_offload:
        return "cpu"
    if n_gpu_layers < 0 or n_gpu_layers >= n_layers:
        return "gpu"
    return "partial"


@dataclass(frozen=True)
class CalibrationEntry:
    """One run's prediction beside its measurement."""

    machine: str
    source: str  # "bench" or "run"
    model: str
    device: Device
    n_gpu_layers: int
    n_ctx: int
    generated_tokens: int
    predicted_tokens_per_s: float | None = None
    measured_tokens_per_s: float | None = None
    predicted_ram_bytes: int | None = None
    rss_peak_bytes: int | None = None
    private_peak_bytes: int | None = None
    file_peak_bytes: int | None = None
    predicted_vram_bytes: int | None = None
    vram_peak_bytes: int | None = None
    n_threads: int | None = None
    time: float = 0.0
    # Made under contention (why, in one clause; see desktop/core/engine/cpu_use.py): its speed
    # never counts (its memory does). ``others_cpus``: CPUs other programs kept busy meanwhile.
    busy: str | None = None
    others_cpus: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> CalibrationEntry | None:
        """An entry from its JSON object; None when it is not one (skipped, not fatal)."""
        if not isinstance(data, dict):
            return None
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            if isinstance(value, bool):
                return None
            values[f.name] = value
        try:
            entry = cls(**values)
        except TypeError:
            return None
        if not isinstance(entry.machine, str) or entry.device not in ("cpu", "gpu", "partial"):
            return None
        numbers = (
            entry.n_gpu_layers,
            entry.n_ctx,
            entry.generated_tokens,
            entry.predicted_tokens_per_s,
            entry.measured_tokens_per_s,
            entry.predicted_ram_bytes,
            entry.rss_peak_bytes,
            entry.time,
        )
        if not all(v is None or isinstance(v, (int, float)) for v in numbers):
            return None
        if entry.busy is not None and not isinstance(entry.busy, str):
            return None
        return entry

    @property
    def speed_ratio(self) -> float | None:
        """measured / predicted generation tokens/s, when the run says something about it."""
        measured, predicted = self.measured_tokens_per_s, self.predicted_tokens_per_s
        if self.busy is not None:
            return None
        if self.generated_tokens < MIN_GENERATED or not measured or not predicted:
            return None
        if measured <= 0 or predicted <= 0:
            return None
        ratio = measured / predicted
        return ratio if 1 / MAX_RATIO <= ratio <= MAX_RATIO else None

    @property
    def ram_difference(self) -> int | None:
        """measured peak RSS minus the predicted RAM, for CPU runs."""
        if self.device != "cpu" or not self.rss_peak_bytes or not self.predicted_ram_bytes:
            return None
        diff = self.rss_peak_bytes - self.predicted_ram_bytes
        return diff if abs(diff) <= MAX_RAM_OFFSET_BYTES else None


@dataclass(frozen=True)
class MachineCalibration:
    """What a machine's runs say about the model: speed factors and a RAM offset, each with
    the number of runs behind it (a figure is None below :data:`MIN_RUNS`). ``runs``: the
    machine's stored runs that counted for any figure."""

    machine: str
    runs: int = 0
    cpu_speed_factor: float | None = None
    cpu_speed_runs: int = 0
    gpu_speed_factor: float | None = None
    gpu_speed_runs: int = 0
    ram_offset_bytes: int | None = None
    ram_runs: int = 0
    cpu_runs: int = 0  # CPU runs behind the CPU figures (speed or RAM)

    @property
    def applies(self) -> bool:
        return any(
            v is not None
            for v in (self.cpu_speed_factor, self.gpu_speed_factor, self.ram_offset_bytes)
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> MachineCalibration | None:
        """From a profile's ``"calibration"`` object; None (with a warning) when malformed."""
        if not isinstance(data, dict):
            return None
        try:
            cal = cls(
                machine=str(data.get("machine", "")),
                runs=_count(data.get("runs", 0)),
                cpu_speed_factor=_factor(data.get("cpu_speed_factor")),
                cpu_speed_runs=_count(data.get("cpu_speed_runs", 0)),
                gpu_speed_factor=_factor(data.get("gpu_speed_factor")),
                gpu_speed_runs=_count(data.get("gpu_speed_runs", 0)),
                ram_offset_bytes=_offset(data.get("ram_offset_bytes")),
                ram_runs=_count(data.get("ram_runs", 0)),
                cpu_runs=_count(data.get("cpu_runs", data.get("runs", 0))),
            )
        except ValueError as exc:
            log.warning("ignoring the profile's calibration: %s", exc)
            return None
        return cal


@dataclass(frozen=True)
class AppliedCalibration:
    """What :func:`apply_calibration` did to one estimate (``fit --json`` ``"calibration"``).
    ``source``: ``"this machine"`` (the local store) or ``"profile"`` (carried in the file)."""

    runs: int
    speed_factor: float | None
    ram_offset_bytes: int | None
    source: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def text(self) -> str:
        """One line for the human output."""
        where = "this machine" if self.source == "this machine" else "the profile's machine"
        parts = []
        if self.speed_factor is not None:
            digits = 2 if self.speed_factor >= 0.1 else 3
            parts.append(f"generation speed x{self.speed_factor:.{digits}f}")
        if self.ram_offset_bytes is not None:
            mib = self.ram_offset_bytes / (1024 * 1024)
            parts.append(f"RAM {mib:+.1f} MiB")
        detail = f" ({', '.join(parts)})" if parts else ""
        return (
            f"Estimate calibrated on {where} from {self.runs} runs{detail}; "
            "--uncalibrated shows the raw model."
        )


def compute_calibration(entries: Sequence[CalibrationEntry], machine: str) -> MachineCalibration:
    """The calibration of ``machine`` from the stored entries (others' entries ignored)."""
    own = own_entries(entries, machine)
    kept = kept_values(own)
    used: set[int] = set()
    cpu_used: set[int] = set()
    speed: dict[str, tuple[float | None, int]] = {}
    for device in SPEED_DEVICES:
        values = kept[device]
        if len(values) >= MIN_RUNS:
            speed[device] = (math.exp(_median_of_hours(values, own)), len(values))
            used.update(i for i, _ in values)
            if device == "cpu":
                cpu_used.update(i for i, _ in values)
        else:
            speed[device] = (None, len(values))
    kept_ram = kept["ram"]
    ram_offset: int | None = None
    if len(kept_ram) >= MIN_RUNS:
        ram_offset = round(_median_of_hours(kept_ram, own))
        used.update(i for i, _ in kept_ram)
        cpu_used.update(i for i, _ in kept_ram)
    return MachineCalibration(
        machine=machine,
        runs=len(used),
        cpu_speed_factor=speed["cpu"][0],
        cpu_speed_runs=speed["cpu"][1],
        gpu_speed_factor=speed["gpu"][0],
        gpu_speed_runs=speed["gpu"][1],
        ram_offset_bytes=ram_offset,
        ram_runs=len(kept_ram),
        cpu_runs=len(cpu_used),
    )


def own_entries(entries: Sequence[CalibrationEntry], machine: str) -> list[CalibrationEntry]:
    """``machine``'s entries, oldest first."""
    return sorted((e for e in entries if e.machine == machine), key=lambda e: e.time)


def kept_values(own: Sequence[CalibrationEntry]) -> dict[str, list[tuple[int, float]]]:
    """What each figure is computed from: ``"cpu"`` and ``"gpu"`` (log speed ratios) and
    ``"ram"`` (RAM differences), each a list of (index into ``own``, value): the newest
    :data:`RECENT` runs that say something (not busy, not short, plausible), without the
    outliers of their clock hour (a run far from the others made in the same hour)."""
    kept: dict[str, list[tuple[int, float]]] = {}
    for device in SPEED_DEVICES:
        picked = [(i, e.speed_ratio) for i, e in enumerate(own) if e.device == device]
        ratios = [(i, r) for i, r in picked if r is not None][-RECENT:]
        kept[device] = _robust_by_hour([(i, math.log(r)) for i, r in ratios], own, SPEED_LOG_FLOOR)
    diffs = [(i, e.ram_difference) for i, e in enumerate(own)]
    known = [(i, float(d)) for i, d in diffs if d is not None][-RECENT:]
    kept["ram"] = _robust_by_hour(known, own, RAM_FLOOR_BYTES)
    return kept


def _hours(
    values: list[tuple[int, float]], own: Sequence[CalibrationEntry]
) -> dict[int, list[tuple[int, float]]]:
    hours: dict[int, list[tuple[int, float]]] = {}
    for index, value in values:
        hours.setdefault(int(own[index].time // 3600), []).append((index, value))
    return hours


def _robust_by_hour(
    values: list[tuple[int, float]], own: Sequence[CalibrationEntry], floor: float
) -> list[tuple[int, float]]:
    kept = [v for group in _hours(values, own).values() for v in _robust(group, floor)]
    return sorted(kept)


def _median_of_hours(values: list[tuple[int, float]], own: Sequence[CalibrationEntry]) -> float:
    """The median of each clock hour's median of ``values`` ((index into ``own``, value)): one
    bad hour of many runs is one vote among the hours, not a majority of runs."""
    hours = _hours(values, own)
    return float(statistics.median(statistics.median(v for _, v in h) for h in hours.values()))


def _robust(values: list[tuple[int, float]], floor: float) -> list[tuple[int, float]]:
    """``values`` without those more than 3 robust standard deviations from the median."""
    if len(values) < 3:
        return values
    center = statistics.median(v for _, v in values)
    mad = statistics.median(abs(v - center) for _, v in values)
    scale = max(1.4826 * mad, floor)
    return [(i, v) for i, v in values if abs(v - center) <= 3 * scale]


class CalibrationStore:
    """The runs stored in ``path`` (default :func:`desktop.core.paths.calibration_path`)."""

    def __init__(self, path: Path | None = None, *, max_entries: int = MAX_ENTRIES) -> None:
        self.path = path if path is not None else paths.calibration_path()
        self.max_entries = max_entries

    def load(self) -> list[CalibrationEntry]:
        """Every stored entry, oldest first. A file that cannot be read or parsed is moved
        aside (``calibration.json.corrupt-<time>``) with a warning, and the store is empty."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as exc:
            self._move_aside(f"cannot be read ({exc})")
            return []
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            self._move_aside(f"is not JSON ({exc.msg})")
            return []
        if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
            self._move_aside("is not a calibration store")
            return []
        entries = [CalibrationEntry.from_dict(item) for item in data["entries"]]
        return [e for e in entries if e is not None]

    def add(self, entry: CalibrationEntry) -> None:
        """Append ``entry``, keep the newest ``max_entries``, write atomically (OSError when
        the file cannot be written)."""
        entries = [*self.load(), entry][-self.max_entries :]
        self._write(entries)

    def replace(self, entries: Sequence[CalibrationEntry]) -> None:
        """Store exactly ``entries`` (atomically; OSError when the file cannot be written)."""
        self._write(list(entries)[-self.max_entries :])

    def version(self) -> tuple[int, int] | None:
        """(modification time, size) of the file: it changed when this changed (None: none)."""
        try:
            stat = self.path.stat()
        except OSError:
            return None
        return (stat.st_mtime_ns, stat.st_size)

    def calibration(self, machine: str) -> MachineCalibration:
        return compute_calibration(self.load(), machine)

    def _write(self, entries: list[CalibrationEntry]) -> None:
        document = {"format": STORE_FORMAT, "entries": [e.to_dict() for e in entries]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
            os.replace(tmp, self.path)
        finally:
            tmp.unlink(missing_ok=True)

    def _move_aside(self, why: str) -> None:
        aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
        try:
            os.replace(self.path, aside)
        except OSError as exc:
            log.warning("The calibration file %s %s and cannot be moved aside (%s); ignoring it.",
                        self.path, why, exc)  # fmt: skip
            return
        log.warning("The calibration file %s %s; moved it to %s and started afresh.",
                    self.path, why, aside)  # fmt: skip


def calibration_for(
    profile: HardwareProfile, store: CalibrationStore | None = None
) -> tuple[MachineCalibration, str] | None:
    """The calibration to apply to estimates for ``profile`` and where it comes from
    (``"profile"``: carried in a saved profile; ``"this machine"``: this machine's stored runs,
    used for the probed profile only). None when there is none that applies; never raises."""
    carried = MachineCalibration.from_dict(profile.calibration)
    if carried is not None:
        return (carried, "profile") if carried.applies else None
    if profile.source != "probe":
        return None
    try:
        cal = (store or CalibrationStore()).calibration(machine_fingerprint(profile))
    except Exception as exc:  # a calibration problem must never stop an estimate
        log.warning("The calibration could not be read: %s", exc)
        return None
    return (cal, "this machine") if cal.applies else None


def apply_calibration(
    result: FitResult, calibration: tuple[MachineCalibration, str] | None
) -> tuple[FitResult, AppliedCalibration | None]:
    """``result`` with ``calibration`` applied (what :func:`calibration_for` returns), and what
    was applied (None: nothing, the raw estimate back)."""
    if calibration is None or result.format != "gguf":
        return result, None
    cal, source = calibration
    device = device_of(result.n_gpu_layers, result.n_layers)
    if device == "gpu" and result.verdict == "partial":
        device = "partial"  # every layer, output layer on the CPU: close to gpu, but not it
    factor = {"cpu": cal.cpu_speed_factor, "gpu": cal.gpu_speed_factor}.get(device)
    speed_runs = {"cpu": cal.cpu_speed_runs, "gpu": cal.gpu_speed_runs}.get(device, 0)
    offset = cal.ram_offset_bytes if device == "cpu" else None
    if factor is None and offset is None:
        return result, None
    changes: dict[str, Any] = {}
    if factor is not None and result.tokens_per_s is not None:
        changes["tokens_per_s"] = result.tokens_per_s * factor
    else:
        factor = None
    if offset is not None:
        overhead = max(0, result.ram.overhead + offset)
        delta = overhead - result.ram.overhead
        offset = delta
        changes["ram"] = replace(result.ram, overhead=overhead)
        changes["ram_bytes"] = result.ram_bytes + delta
        full = result.ram_full_context_bytes + delta
        changes["ram_full_context_bytes"] = full
        available = result.ram_available_bytes
        if result.verdict == "cpu" and available and full > available:
            changes["verdict"] = "no"
            changes["reasons"] = (
                *result.reasons,
                "Calibrated on this machine's runs, with the whole context in use it needs more "
                f"RAM than is free: {need_of(full, available)}.",
            )
    if not changes:
        return result, None
    runs = cal.cpu_runs if device == "cpu" else speed_runs
    if source == "profile" and not runs:
        runs = cal.runs
    return replace(result, **changes), AppliedCalibration(runs, factor, offset, source)


# --- recording -----------------------------------------------------------------------------


# The engine's objects are read by name (the engine depends on fit, not the other way round).


def record_bench(
    result: Any, profile: HardwareProfile, store: CalibrationStore | None = None
) -> bool:
    """Store a finished benchmark's (a ``desktop.core.engine.BenchResult``) prediction and
    measurement; False (logged) on failure."""
    try:
        tg = statistics.mean(run.tg_tokens_per_s for run in result.runs)
        loaded = result.loaded
        entry = CalibrationEntry(
            machine=machine_fingerprint(profile),
            source="bench",
            model=result.label,
            device=device_of(loaded.n_gpu_layers, loaded.n_layer, loaded.gpu_offload),
            n_gpu_layers=loaded.n_gpu_layers,
            n_ctx=loaded.n_ctx,
            n_threads=loaded.n_threads,
            generated_tokens=result.settings.tg,
            predicted_tokens_per_s=result.prediction.tokens_per_s,
            measured_tokens_per_s=tg,
            predicted_ram_bytes=result.prediction.ram_bytes,
            rss_peak_bytes=result.rss_peak_bytes,
            private_peak_bytes=result.private_peak_bytes,
            file_peak_bytes=result.file_peak_bytes,
            predicted_vram_bytes=result.prediction.vram_bytes,
            vram_peak_bytes=result.vram_peak_bytes,
            time=time.time(),
            busy=getattr(result, "busy_reason", None),
            others_cpus=_others_cpus(result),
        )
        (store or CalibrationStore()).add(entry)
    except Exception as exc:  # recording must never fail the command
        log.warning("Could not record the run for calibration: %s", exc)
        return False
    return True


def calibrates(*, remote: bool, what_if: bool, failed: bool) -> bool:
    """Whether an answer also calibrates this machine's estimates (:func:`record_run`): it ran
    here (a server's speed says nothing about this machine), its prediction was for this
    machine (not for a what-if profile) and it ended without an error. ``llm-scout run`` and the
    Playground ask this one rule."""
    return not (remote or what_if or failed)


def record_run(
    report: Any,
    loaded: Any,
    profile: HardwareProfile,
    *,
    label: str,
    store: CalibrationStore | None = None,
) -> bool:
    """Store a finished run's prediction and measurement (a ``desktop.core.engine.RunReport``
    and the worker's ``loaded`` event); False (logged) on failure."""
    try:
        entry = CalibrationEntry(
            machine=machine_fingerprint(profile),
            source="run",
            model=label,
            device=device_of(loaded.n_gpu_layers, loaded.n_layer, loaded.gpu_offload),
            n_gpu_layers=loaded.n_gpu_layers,
            n_ctx=loaded.n_ctx,
            n_threads=loaded.n_threads,
            generated_tokens=report.metrics.generated_tokens,
            predicted_tokens_per_s=report.predicted_tokens_per_s,
            measured_tokens_per_s=report.metrics.tokens_per_s,
            predicted_ram_bytes=report.predicted_ram_bytes,
            rss_peak_bytes=report.rss_peak_bytes,
            private_peak_bytes=report.private_peak_bytes,
            file_peak_bytes=report.file_peak_bytes,
            predicted_vram_bytes=report.predicted_vram_bytes,
            vram_peak_bytes=report.vram_peak_bytes,
            time=time.time(),
            busy=getattr(report, "busy_reason", None),
            others_cpus=_others_cpus(report),
        )
        (store or CalibrationStore()).add(entry)
    except Exception as exc:  # recording must never fail the command
        log.warning("Could not record the run for calibration: %s", exc)
        return False
    return True


def _others_cpus(result: Any) -> float | None:
    cpu = getattr(result, "cpu", None)
    return float(cpu.others_cpus) if cpu is not None else None


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"a run count cannot be {value!r}")
    return value


def _factor(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"a speed factor cannot be {value!r}")
    if not 1 / MAX_RATIO <= value <= MAX_RATIO:
        raise ValueError(f"a speed factor of {value!r} is not plausible")
    return float(value)


def _offset(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"a RAM offset cannot be {value!r}")
    if abs(value) > MAX_RAM_OFFSET_BYTES:
        raise ValueError(f"a RAM offset of {value!r} bytes is not plausible")
    return value


def with_calibration(
    profile: HardwareProfile, store: CalibrationStore | None = None
) -> HardwareProfile:
    """``profile`` carrying its machine's calibration (for ``hw --save``): this machine's stored
    runs for a probed profile; a profile that already carries one, or has no runs, unchanged."""
    if profile.calibration is not None or profile.source != "probe":
        return profile
    try:
        cal = (store or CalibrationStore()).calibration(machine_fingerprint(profile))
    except Exception as exc:  # saving the profile matters more than its calibration
        log.warning("The calibration could not be read: %s", exc)
        return profile
    return replace(profile, calibration=cal.to_dict()) if cal.runs else profile
