"""The load panel's sentences: the prediction, the warning before a load, what is measured.

Plain functions over the core's values, translated in the load panel's context (its strings
stay where the translators know them): the fit's prediction for the panel's settings, the
numbers behind "this model will probably not fit", and the worker's (or a server's) figures
measured now.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from desktop.core.engine import ProcessMemory
from desktop.core.fit import FitResult
from desktop.ui import format as fmt


def _tr(text: str) -> str:
    return QCoreApplication.translate("LoadPanel", text)


def prediction(result: FitResult, where: str) -> str:
    """``predicted for this machine: CPU · RAM ≈210 MiB · VRAM ≈0 B · ≈105 t/s · load ≈0.2 s``
    (``where``: the profile the fit was for)."""
    parts = [
        fmt.verdict_word(result),
        _tr("RAM ≈%1").replace("%1", fmt.size(result.ram_bytes)),
        _tr("VRAM ≈%1").replace("%1", fmt.size(result.vram_bytes)),
        fmt.rate(result.tokens_per_s, predicted=True),
        _tr("load ≈%1").replace("%1", fmt.seconds(result.load_seconds)),
    ]
    return _tr("predicted for %1: %2").replace("%1", where).replace("%2", " · ".join(parts))


def fit_warning(result: FitResult, label: str) -> str:
    """Why the fit says a model will not fit, with the numbers (asked before loading)."""
    lines = [
        _tr("The fit says %1 will not fit with these settings.").replace("%1", label),
        _tr("Needs about %1 of RAM; %2 is available.")
        .replace("%1", fmt.size(result.ram_full_context_bytes or result.ram_bytes))
        .replace("%2", fmt.size(result.ram_available_bytes)),
    ]
    if result.vram_bytes:
        lines.append(
            _tr("Needs about %1 of VRAM; %2 is free.")
            .replace("%1", fmt.size(result.vram_bytes))
            .replace("%2", fmt.size(sum(result.vram_free_bytes)))
        )
    lines.extend(result.reasons[:3])
    lines.append(_tr("Load anyway? The worker may be stopped for lack of memory."))
    return "\n".join(lines)


def measured(reading: ProcessMemory, tokens_per_s: float | None) -> str:
    """The worker's memory now and the speed (live, or the last answer's)."""
    parts = [_tr("RAM %1").replace("%1", fmt.size(reading.rss_bytes))]
    if reading.private_bytes is not None:
        parts.append(_tr("private %1").replace("%1", fmt.size(reading.private_bytes)))
    if reading.vram_bytes is not None:
        parts.append(_tr("VRAM %1").replace("%1", fmt.size(reading.vram_bytes)))
    if reading.gpu_util_pct is not None:
        parts.append(_tr("GPU %1%").replace("%1", fmt.number(reading.gpu_util_pct)))
    if tokens_per_s is not None:
        parts.append(fmt.rate(tokens_per_s))
    return _tr("measured: %1").replace("%1", " · ".join(parts))


def remote_measured(tokens_per_s: float | None, timing_source: str) -> str:
    """A server's figures: memory unknown unless it said, the speed and where it came from
    (measured on this client, or the server's own timings)."""
    parts = [_tr("memory unknown")]
    if tokens_per_s is not None:
        where = _tr("server timings") if timing_source == "server" else _tr("client")
        parts.append(_tr("%1 (%2)").replace("%1", fmt.rate(tokens_per_s)).replace("%2", where))
    return _tr("measured: %1").replace("%1", " · ".join(parts))
