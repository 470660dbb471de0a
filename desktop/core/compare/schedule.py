"""Scheduling: fair (one model at a time) or parallel (all at once, when the fit says they fit).

**fair** (the default) runs contestants one after another, each alone on the machine: load A,
run every prompt, unload; then B; ... Speeds are comparable because nothing else runs.

**parallel** loads every contestant at once and runs them side by side. It is allowed only when
the fit estimate says all of them fit together with a margin: the sum of each contestant's
predicted RAM with its whole context in use (``fit.estimate(...).ram_full_context_bytes``)
against the profile's available RAM, and the sum of predicted VRAM per GPU against each GPU's
free memory (one pool on unified-memory machines), each less :data:`MARGIN_FRACTION` (at least
:data:`MARGIN_MIN_BYTES`). Two contestants of the same file are counted twice (their mapped
weights are in fact shared), so the check errs on the safe side. Otherwise
:func:`require_parallel` refuses with the numbers. Side by side, contestants that do not set
their threads share the CPU cores (:func:`parallel_threads`); speeds are then not comparable,
which the report says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from desktop.core.compare.contestants import Contestant
from desktop.core.compare.errors import CompareError
from desktop.core.errors import ScoutError
from desktop.core.fit import estimate
from desktop.core.hardware import HardwareProfile

Mode = Literal["fair", "parallel"]
MODES: tuple[str, ...] = ("fair", "parallel")

MARGIN_FRACTION = 0.10
MARGIN_MIN_BYTES = 256 << 20


@dataclass(frozen=True)
class MemoryNeed:
    """What one contestant is predicted to need: RAM, and VRAM per GPU."""

    contestant: int
    name: str
    ram_bytes: int
    vram_bytes: tuple[int, ...] = ()


@dataclass(frozen=True)
class ParallelCheck:
    """The numbers behind allowing or refusing parallel mode."""

    needs: tuple[MemoryNeed, ...]
    ram_available: int
    vram_free: tuple[int, ...]
    unified: bool
    problems: tuple[str, ...] = ()

    @property
    def ram_needed(self) -> int:
        total = sum(n.ram_bytes for n in self.needs)
        if self.unified:
            total += sum(sum(n.vram_bytes) for n in self.needs)
        return total

    @property
    def ram_usable(self) -> int:
        return _usable(self.ram_available)

    @property
    def vram_needed(self) -> tuple[int, ...]:
        if self.unified:
            return ()
        return tuple(
            sum(n.vram_bytes[g] if g < len(n.vram_bytes) else 0 for n in self.needs)
            for g in range(len(self.vram_free))
        )

    @property
    def vram_usable(self) -> tuple[int, ...]:
        if self.unified:
            return ()
        return tuple(_usable(free) for free in self.vram_free)

    @property
    def fits(self) -> bool:
        if self.problems:
            return False
        if self.ram_needed > self.ram_usable:
            return False
        return all(
            need <= usable
            for need, usable in zip(self.vram_needed, self.vram_usable, strict=True)
            if need
        )

    def explain(self) -> str:
        """One or two sentences with the numbers (what the CLI prints and the window shows)."""
        if self.problems:
            return " ".join(self.problems)
        pool = "memory (RAM and GPU share one pool)" if self.unified else "RAM"
        parts = [
            f"Together the models need {_gib(self.ram_needed)} of {pool}; "
            f"{_gib(self.ram_available)} is available, {_gib(self.ram_usable)} after the "
            f"safety margin"
        ]
        for g, (need, free) in enumerate(zip(self.vram_needed, self.vram_free, strict=False)):
            if need:
                parts.append(
                    f"GPU {g} needs {_gib(need)} of VRAM, {_gib(free)} is free "
                    f"({_gib(_usable(free))} after the margin)"
                )
        each = ", ".join(
            f"{n.name} {_gib(n.ram_bytes + (sum(n.vram_bytes) if self.unified else 0))}"
            for n in self.needs
        )
        return "; ".join(parts) + f" ({each})."


def _usable(available: int) -> int:
    return max(0, available - max(int(available * MARGIN_FRACTION), MARGIN_MIN_BYTES))


def _gib(n: int) -> str:
    if n < 1 << 30:
        return f"{n / (1 << 20):.0f} MiB"
    return f"{n / (1 << 30):.1f} GiB"


def check_parallel(contestants: Sequence[Contestant], profile: HardwareProfile) -> ParallelCheck:
    """Predict every contestant's memory on ``profile`` and compare the sums with what it has."""
    needs: list[MemoryNeed] = []
    problems: list[str] = []
    ram_available = profile.memory.available_bytes
    vram_free = tuple(g.memory_free_bytes for g in profile.gpus if not g.unified_memory)
    for index, contestant in enumerate(contestants):
        name = contestant.display_name
        if contestant.endpoint is not None:
            continue  # runs on its server: takes no memory here
        try:
            result = estimate(
                contestant.model.fit_target(),
                profile,
                n_ctx=contestant.load.n_ctx,
                n_gpu_layers=contestant.load.n_gpu_layers,
                cache_type=contestant.load.cache_type,
                flash_attn=contestant.load.flash_attn,
            )
        except ScoutError as exc:
            problems.append(
                f"The memory of {name} cannot be predicted ({exc.message.rstrip('.')}), so "
                "running the models side by side is not safe; use fair mode."
            )
            continue
        ram = result.ram_full_context_bytes or result.ram_bytes
        needs.append(MemoryNeed(index, name, ram, tuple(result.gpu_vram_bytes)))
        if result.ram_available_bytes:
            ram_available = result.ram_available_bytes
        if result.vram_free_bytes:
            vram_free = tuple(result.vram_free_bytes)
    return ParallelCheck(
        tuple(needs), ram_available, vram_free, profile.unified_memory, tuple(problems)
    )


def require_parallel(contestants: Sequence[Contestant], profile: HardwareProfile) -> ParallelCheck:
    """The check when the contestants fit side by side; CompareError ``compare.no_room`` with
    the numbers otherwise."""
    result = check_parallel(contestants, profile)
    if not result.fits:
        raise CompareError(
            "Parallel mode refused: " + result.explain() + " Use fair mode, which runs one "
            "model at a time.",
            kind="compare.no_room",
        )
    return result


def parallel_threads(
    contestants: Sequence[Contestant], profile: HardwareProfile
) -> list[int | None]:
    """Threads for each contestant side by side: its own setting, else an equal share of the
    physical cores left by those that set theirs (at least one each)."""
    cores = max(1, profile.cpu.physical_cores)
    fixed = sum(c.load.n_threads or 0 for c in contestants)
    open_slots = sum(1 for c in contestants if c.load.n_threads is None)
    share = max(1, (cores - fixed) // open_slots) if open_slots else 1
    return [c.load.n_threads if c.load.n_threads is not None else share for c in contestants]
