"""The same model with the same settings on two or more machines, side by side.

:func:`models_across_machines` lists the model files that have answers stored, each with the
machines and the load settings they ran with; :func:`across_machines` gives, for one model and
one group of settings, a :class:`MachineFigures` per machine: the median generation and prompt
tokens/s, TTFT and peak memory of its answers (finished ones only), how many answers that is,
the threads they used, and the newest quality measurement of each kind, beside the machine's
profile. The window's "Across machines" view and ``llm-scout history across`` show these same
figures.

A model is the same file on every machine: the same sha256 when one is known, else the same
size in bytes (a file's path differs between machines; two different GGUF files of exactly the
same size are not a practical worry). Settings are the same when the context, GPU layers, KV
cache type and flash attention are: what changes speed and memory for one file. Threads are a
machine's own (shown, not matched).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop.core.hardware import THIS_MACHINE
from desktop.core.history.machines import (
    MachineQueries,
    MachineRecord,
    MeasurementRecord,
    fingerprint_of,
)
from desktop.core.history.records import HistoryNotFound


@dataclass(frozen=True, order=True)
class SettingsKey:
    """The load settings that make answers comparable across machines."""

    n_ctx: int | None = None
    n_gpu_layers: int | None = None
    cache_type: str | None = None
    flash_attn: bool | None = None

    @classmethod
    def of(cls, settings: Any) -> SettingsKey:
        load = settings.get("load") if isinstance(settings, dict) else None
        if not isinstance(load, dict):
            return cls()

        def get(name: str, kind: type) -> Any:
            value = load.get(name)
            return value if isinstance(value, kind) and not isinstance(value, bool) else None

        flash = load.get("flash_attn")
        return cls(
            n_ctx=get("n_ctx", int),
            n_gpu_layers=get("n_gpu_layers", int),
            cache_type=get("cache_type", str),
            flash_attn=flash if isinstance(flash, bool) else None,
        )

    @property
    def id(self) -> str:
        """A short stable text for choosing these settings (``ctx=4096,ngl=0,kv=f16,fa=off``)."""
        fa = {True: "on", False: "off", None: "-"}[self.flash_attn]
        return (
            f"ctx={_text(self.n_ctx)},ngl={_text(self.n_gpu_layers)},"
            f"kv={self.cache_type or '-'},fa={fa}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "n_ctx": self.n_ctx,
            "n_gpu_layers": self.n_gpu_layers,
            "cache_type": self.cache_type,
            "flash_attn": self.flash_attn,
        }


def _text(value: int | None) -> str:
    return "-" if value is None else str(value)


@dataclass(frozen=True)
class ModelChoice:
    """A model file with answers stored: its label, and per settings group the machines
    (keys) that ran it so."""

    key: str
    label: str
    settings: tuple[tuple[SettingsKey, tuple[str, ...]], ...]

    @property
    def machines(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for _, keys in self.settings:
            seen.update(dict.fromkeys(keys))
        return tuple(seen)

    def best_settings(self) -> SettingsKey | None:
        """The settings most machines ran it with (the first such)."""
        if not self.settings:
            return None
        return max(self.settings, key=lambda s: len(s[1]))[0]


@dataclass(frozen=True)
class MachineFigures:
    """One machine's column: the medians over its ``runs`` finished answers (None: nothing
    measured), the threads seen, and its newest quality measurement per kind and metric."""

    machine: MachineRecord
    runs: int
    generation_tokens_per_s: float | None
    prompt_tokens_per_s: float | None
    ttft_ms: float | None
    rss_peak_bytes: int | None
    vram_peak_bytes: int | None
    threads: tuple[int, ...]
    quality: tuple[MeasurementRecord, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "machine": self.machine.name,
            "machine_key": self.machine.key,
            "runs": self.runs,
            "generation_tokens_per_s": self.generation_tokens_per_s,
            "prompt_tokens_per_s": self.prompt_tokens_per_s,
            "ttft_ms": self.ttft_ms,
            "rss_peak_bytes": self.rss_peak_bytes,
            "vram_peak_bytes": self.vram_peak_bytes,
            "threads": list(self.threads),
            "quality": [q.to_dict() for q in self.quality],
            "calibration": None
            if self.machine.calibration is None
            else self.machine.calibration.to_dict(),
            "profile": None if self.machine.profile is None else self.machine.profile.to_dict(),
        }


@dataclass(frozen=True)
class AcrossMachines:
    """One model with one group of settings on every machine that ran it so."""

    model: str
    model_key: str
    settings: SettingsKey
    columns: tuple[MachineFigures, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "model_key": self.model_key,
            "settings": self.settings.to_dict(),
            "machines": [c.to_dict() for c in self.columns],
        }


@dataclass(frozen=True)
class _Answer:
    model_key: str
    label: str
    machine: tuple[str, str]
    settings: SettingsKey
    row: Any


def _model_keys(history: MachineQueries) -> dict[int, str]:
    """Model id -> identity (see the module docstring), for every model file on record."""
    rows = history._read(
        "SELECT id AS model_id, size_bytes AS m_size, sha256 AS m_sha256 FROM models"
    )
    shas: dict[int, set[str]] = {}
    for r in rows:
        if r["m_sha256"]:
            shas.setdefault(int(r["m_size"]), set()).add(r["m_sha256"])
    out: dict[int, str] = {}
    for r in rows:
        size = int(r["m_size"])
        sha = r["m_sha256"]
        if not sha and len(shas.get(size, ())) == 1:
            sha = next(iter(shas[size]))
        out[int(r["model_id"])] = f"sha256:{sha}" if sha else f"size:{size}"
    return out


def _answers(history: MachineQueries) -> list[_Answer]:
    rows = history._read(
        "SELECT runs.*, machines.name AS machine_name, machines.profile AS machine_profile, "
        "models.size_bytes AS m_size, models.sha256 AS m_sha256, models.label AS m_label "
        "FROM runs JOIN models ON models.id = runs.model_id "
        "LEFT JOIN machines ON machines.id = runs.machine_id "
        "WHERE runs.error IS NULL AND runs.generation_tokens_per_s IS NOT NULL"
    )
    keys = _model_keys(history)
    out = []
    for r in rows:
        name = r["machine_name"] or THIS_MACHINE
        group = (
            (THIS_MACHINE, "")
            if name == THIS_MACHINE
            else (name, fingerprint_of(r["machine_profile"]))
        )
        settings = SettingsKey.of(json.loads(r["settings"] or "{}"))
        out.append(_Answer(keys[int(r["model_id"])], r["m_label"], group, settings, r))
    return out


def _machine_key(group: tuple[str, str]) -> str:
    return THIS_MACHINE if group[0] == THIS_MACHINE else f"{group[0]}@{group[1]}"


def models_across_machines(history: MachineQueries) -> list[ModelChoice]:
    """Every model file with finished answers, those on the most machines first."""
    return history.store.guard(lambda: _choices(history))


def _choices(history: MachineQueries) -> list[ModelChoice]:
    by_model: dict[str, dict[SettingsKey, dict[str, None]]] = {}
    labels: dict[str, dict[str, int]] = {}
    for a in _answers(history):
        machines = by_model.setdefault(a.model_key, {}).setdefault(a.settings, {})
        machines[_machine_key(a.machine)] = None
        counts = labels.setdefault(a.model_key, {})
        counts[a.label] = counts.get(a.label, 0) + 1
    choices = [
        ModelChoice(
            key=key,
            label=max(labels[key].items(), key=lambda kv: (kv[1], kv[0]))[0],
            settings=tuple(
                sorted(
                    ((s, tuple(m)) for s, m in groups.items()),
                    key=lambda item: (-len(item[1]), item[0].id),
                )
            ),
        )
        for key, groups in by_model.items()
    ]
    choices.sort(key=lambda c: (-len(c.machines), c.label.casefold()))
    return choices


def find_model(choices: Sequence[ModelChoice], text: str) -> ModelChoice:
    """The model a person named: its key, its label (any case), or a part of the label that
    only one has; HistoryNotFound otherwise (the sentence lists the candidates)."""
    wanted = text.strip().casefold()
    exact = [c for c in choices if c.key.casefold() == wanted or c.label.casefold() == wanted]
    if exact:
        return exact[0]
    partial = [c for c in choices if wanted in c.label.casefold()]
    if len(partial) == 1:
        return partial[0]
    names = ", ".join(c.label for c in (partial or choices)) or "none yet"
    if partial:
        raise HistoryNotFound(f"Several models match {text!r}: {names}.")
    raise HistoryNotFound(f"No answers of a model {text!r} are stored (models: {names}).")


def across_machines(
    history: MachineQueries, model_key: str, settings: SettingsKey | None = None
) -> AcrossMachines:
    """One model (a :class:`ModelChoice` key) on every machine that ran it with ``settings``
    (None: those most machines used). HistoryNotFound when no answer of it is stored."""
    return history.store.guard(lambda: _across(history, model_key, settings))


def _across(
    history: MachineQueries, model_key: str, settings: SettingsKey | None
) -> AcrossMachines:
    answers = [a for a in _answers(history) if a.model_key == model_key]
    if not answers:
        raise HistoryNotFound("No finished answers of this model are stored.")
    if settings is None:
        groups: dict[SettingsKey, set[tuple[str, str]]] = {}
        for a in answers:
            groups.setdefault(a.settings, set()).add(a.machine)
        settings = max(sorted(groups, key=lambda s: s.id), key=lambda s: len(groups[s]))
    chosen = [a for a in answers if a.settings == settings]
    machines = {m.key: m for m in history.machines()}
    label_counts: dict[str, int] = {}
    for a in answers:
        label_counts[a.label] = label_counts.get(a.label, 0) + 1
    label = max(label_counts.items(), key=lambda kv: (kv[1], kv[0]))[0]
    quality = _quality(history, model_key)
    columns = []
    by_machine: dict[str, list[_Answer]] = {}
    for a in chosen:
        by_machine.setdefault(_machine_key(a.machine), []).append(a)
    for key in sorted(by_machine, key=lambda k: (k != THIS_MACHINE, k.casefold())):
        record = machines.get(key) or MachineRecord(name=key.split("@")[0], fingerprint="")
        rows = [a.row for a in by_machine[key]]
        columns.append(
            MachineFigures(
                machine=record,
                runs=len(rows),
                generation_tokens_per_s=_median(rows, "generation_tokens_per_s"),
                prompt_tokens_per_s=_median(rows, "prompt_tokens_per_s"),
                ttft_ms=_median(rows, "ttft_ms"),
                rss_peak_bytes=_median_int(rows, "rss_peak_bytes"),
                vram_peak_bytes=_median_int(rows, "vram_peak_bytes"),
                threads=_threads(rows),
                quality=quality.get(key, ()),
            )
        )
    return AcrossMachines(label, model_key, settings, tuple(columns))


def _median(rows: Sequence[Any], column: str) -> float | None:
    values = [float(r[column]) for r in rows if r[column] is not None]
    return statistics.median(values) if values else None


def _median_int(rows: Sequence[Any], column: str) -> int | None:
    value = _median(rows, column)
    return None if value is None else round(value)


def _threads(rows: Sequence[Any]) -> tuple[int, ...]:
    seen: set[int] = set()
    for r in rows:
        metrics = json.loads(r["metrics"]) if r["metrics"] else {}
        n = metrics.get("n_threads") if isinstance(metrics, dict) else None
        if isinstance(n, int) and not isinstance(n, bool):
            seen.add(n)
    return tuple(sorted(seen))


def _quality(history: MachineQueries, model_key: str) -> dict[str, tuple[MeasurementRecord, ...]]:
    """Machine key -> the newest quality measurement per (kind, metric) of this model."""
    rows = history._read(
        "SELECT x.id, x.model_id, machines.name AS machine_name, "
        "machines.profile AS machine_profile FROM measurements x "
        "JOIN models ON models.id = x.model_id LEFT JOIN machines ON machines.id = x.machine_id "
        "WHERE x.kind = 'quality' OR x.kind LIKE 'quality.%'"
    )
    if not rows:
        return {}
    keys = _model_keys(history)
    wanted = [r for r in rows if keys.get(int(r["model_id"])) == model_key]
    by_id = {m.id: m for m in history.measurements(ids=[int(r["id"]) for r in wanted])}
    out: dict[str, dict[tuple[str, str], MeasurementRecord]] = {}
    for r in wanted:
        name = r["machine_name"] or THIS_MACHINE
        group = (
            (THIS_MACHINE, "")
            if name == THIS_MACHINE
            else (name, fingerprint_of(r["machine_profile"]))
        )
        record = by_id.get(int(r["id"]))
        if record is None:
            continue
        slot = out.setdefault(_machine_key(group), {})
        previous = slot.get((record.kind, record.metric))
        if previous is None or record.created_at > previous.created_at:
            slot[(record.kind, record.metric)] = record
    return {k: tuple(v.values()) for k, v in out.items()}
