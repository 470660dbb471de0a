"""Memory of a remote engine, where the server exposes it; unknown (None) otherwise, never 0.

Two sources, both read over HTTP from the server's root:

- Prometheus ``/metrics`` (llama-server started with ``--metrics``, vLLM): the KV cache in
  use as a fraction, ``llamacpp:kv_cache_usage_ratio``, ``vllm:kv_cache_usage_perc`` or the
  older ``vllm:gpu_cache_usage_perc`` (all 0 to 1, whatever the name says).
- Ollama's ``/api/ps``: ``size_vram`` of the running model, in bytes.

The parsers are pure functions; :class:`ServerMemoryProbe` finds out once which source the
server has and reads it again on request, with a short timeout (a slow ``/metrics`` must never
hold an answer up).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

log = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 2.0

#: Prometheus gauges of KV cache use as a 0-1 fraction, in order of preference.
KV_USAGE_METRICS = (
    "llamacpp:kv_cache_usage_ratio",
    "vllm:kv_cache_usage_perc",
    "vllm:gpu_cache_usage_perc",
)

Source = Literal["metrics", "ollama"]


@dataclass(frozen=True)
class ServerMemory:
    """One reading: KV cache use in percent and/or the model's VRAM in bytes (None: unknown)."""

    source: Source
    kv_cache_usage_pct: float | None = None
    vram_bytes: int | None = None


def parse_prometheus_kv_usage(text: str) -> float | None:
    """The KV cache in use, in percent, from a Prometheus text exposition (the mean over the
    series of the first known gauge, several engines or labels); None when none is there."""
    values: dict[str, list[float]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name_part, _, rest = line.partition(" ")
        name = name_part.split("{", 1)[0]
        if name not in KV_USAGE_METRICS:
            continue
        if "{" in name_part and "}" not in name_part:  # a label value with a space in it
            rest = line[line.index("}") + 1 :] if "}" in line else ""
        fields = rest.split()
        if not fields:
            continue
        try:
            value = float(fields[0])
        except ValueError:
            continue
        if math.isfinite(value):
            values.setdefault(name, []).append(value)
    for name in KV_USAGE_METRICS:
        found = values.get(name)
        if found:
            return max(0.0, min(1.0, sum(found) / len(found))) * 100.0
    return None


def parse_ollama_ps(data: Any, model: str) -> int | None:
    """``size_vram`` of ``model`` (or of a model whose name starts with it, ``llama3`` for
    ``llama3:latest``) in an Ollama ``/api/ps`` answer; None when it is not running there."""
    if not isinstance(data, Mapping):
        return None
    models = data.get("models")
    if not isinstance(models, list):
        return None
    for entry in models:
        if not isinstance(entry, Mapping):
            continue
        names = {str(entry.get("name", "")), str(entry.get("model", ""))}
        if model in names or any(n.split(":", 1)[0] == model for n in names):
            vram = entry.get("size_vram")
            if isinstance(vram, int) and not isinstance(vram, bool) and vram >= 0:
                return vram
    return None


class ServerMemoryProbe:
    """Reads a server's memory through whichever source it has (found once by :meth:`probe`).

    ``get(url) -> (status, text)`` does the HTTP; the probe never raises: a failure reads as
    unknown."""

    def __init__(self, root_url: str, model: str, get: Any) -> None:
        self.root_url = root_url.rstrip("/")
        self.model = model
        self._get = get
        self.source: Source | None = None
        self._probed = False

    def probe(self) -> ServerMemory | None:
        """Find the source (metrics first, then Ollama) and take a first reading."""
        self._probed = True
        sources: tuple[Source, ...] = ("metrics", "ollama")
        for source in sources:
            reading = self._read(source)
            if reading is not None:
                self.source = reading.source
                return reading
        return None

    def read(self) -> ServerMemory | None:
        if not self._probed:
            return self.probe()
        if self.source is None:
            return None
        return self._read(self.source)

    def _read(self, source: Source) -> ServerMemory | None:
        try:
            if source == "metrics":
                status, text = self._get(self.root_url + "/metrics")
                if status != 200:
                    return None
                usage = parse_prometheus_kv_usage(text)
                return None if usage is None else ServerMemory("metrics", kv_cache_usage_pct=usage)
            status, text = self._get(self.root_url + "/api/ps")
            if status != 200:
                return None
            import json

            vram = parse_ollama_ps(json.loads(text), self.model)
            return None if vram is None else ServerMemory("ollama", vram_bytes=vram)
        except Exception as exc:  # memory is a nice-to-have: never fail an answer for it
            log.debug(
                "no server memory from %s (%s): %s", self.root_url, source, type(exc).__name__
            )
            return None
