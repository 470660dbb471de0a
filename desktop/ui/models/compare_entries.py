"""The contestants a person sets up on the Compare page, before they are resolved (no Qt).

A :class:`ContestantEntry` is a model (a demo key, a file path or a catalog variant id) plus the
settings that differ from the page's defaults. It turns into the CLI's spec syntax
(``smollm2@temp=0.2,ctx=1024``), which :func:`desktop.core.compare.build_contestants` resolves and
checks, so the window and ``llm-scout compare`` mean the same thing by the same words. A stored
comparison's contestants come back as entries (:func:`entry_from_info`) to be run again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop.core.compare import ContestantInfo

CACHE_CHOICES = ("f16", "q8_0", "q4_0")


@dataclass(frozen=True)
class ContestantEntry:
    """One column of the setup. ``None`` (and ``cache`` f16) means the page's default."""

    spec: str
    label: str
    quant: str | None = None
    ctx: int | None = None
    ngl: int | None = None
    threads: int | None = None
    cache: str = "f16"
    temp: float | None = None
    seed: int | None = None
    name: str = ""

    def settings(self) -> list[tuple[str, str]]:
        """The ``key=value`` settings of the spec syntax, in a fixed order."""
        pairs: list[tuple[str, str]] = []
        if self.ctx is not None:
            pairs.append(("ctx", str(self.ctx)))
        if self.ngl is not None:
            pairs.append(("ngl", str(self.ngl)))
        if self.threads is not None:
            pairs.append(("threads", str(self.threads)))
        if self.cache != "f16":
            pairs.append(("cache", self.cache))
        if self.temp is not None:
            pairs.append(("temp", f"{self.temp:g}"))
        if self.seed is not None:
            pairs.append(("seed", str(self.seed)))
        if self.name.strip():
            pairs.append(("name", self.name.strip().replace(",", " ").replace("@", " ")))
        return pairs

    def spec_text(self) -> str:
        pairs = ",".join(f"{key}={value}" for key, value in self.settings())
        return f"{self.spec}@{pairs}" if pairs else self.spec

    @property
    def display_label(self) -> str:
        return self.name.strip() or self.label


def entry_from_info(info: ContestantInfo) -> ContestantEntry:
    """A stored contestant as a setup entry (its settings as they were)."""
    load: dict[str, Any] = dict(info.settings.get("load") or {})
    sampling: dict[str, Any] = dict(info.settings.get("sampling") or {})
    cache = str(load.get("cache_type") or info.settings.get("cache_type") or "f16")
    return ContestantEntry(
        spec=info.spec,
        label=info.label or info.name,
        quant=info.quant,
        ctx=_int(load.get("n_ctx")),
        ngl=_int(load.get("n_gpu_layers")) or None,
        threads=_int(load.get("n_threads")),
        cache=cache if cache in CACHE_CHOICES else "f16",
        temp=_float(sampling.get("temperature")),
        seed=_int(sampling.get("seed")),
    )


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
