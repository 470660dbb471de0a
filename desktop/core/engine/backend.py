"""What a :class:`~desktop.core.engine.run.Session` needs from an engine: one interface, two kinds.

:class:`EngineBackend` is the surface the measured session, the chat, a comparison and the CLI
use. Two kinds stand behind it: the local llama.cpp worker process
(:class:`~desktop.core.engine.client.EngineClient`) and an OpenAI-compatible server
(:class:`~desktop.core.engine.remote.RemoteClient`). Both turn what their engine says into
protocol events delivered to :class:`~desktop.core.engine.request.Request` objects, which
measure themselves as the events arrive.

:class:`Measures` says where a run's numbers came from, which only the backend knows: the speed
measured on the client or reported by the server, memory read from the worker process or from
what the server exposes (or unknown).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from desktop.core.engine import protocol as p
from desktop.core.engine.memory import ProcessMemory
from desktop.core.engine.metrics import MemoryPhases
from desktop.core.engine.request import Request
from desktop.core.kv_cache import CacheType

TimingSource = Literal["client", "server"]
MemorySource = Literal["process", "server", "unknown"]


@dataclass(frozen=True)
class Measures:
    """Where one run's numbers came from.

    ``timing_source``: ``client`` (token arrival times seen here) or ``server`` (the server's
    own timings, llama-server's ``timings`` object). ``memory_source``: ``process`` (the local
    worker, sampled from outside), ``server`` (what the server exposes) or ``unknown``.
    ``tokens_per_s``/``prompt_tokens_per_s``/``generated_tokens``: what the backend vouches for
    where it differs from the client's meter (the server's own timings, or a server that streams
    several tokens per event and says how many in its usage); None: the meter's value stands.
    ``server_vram_bytes``: the model's VRAM as the server reports it (Ollama's ``size_vram``);
    ``kv_cache_usage_pct``: the KV cache in use, in percent (Prometheus ``/metrics``).
    """

    timing_source: TimingSource = "client"
    memory_source: MemorySource = "process"
    tokens_per_s: float | None = None
    prompt_tokens_per_s: float | None = None
    generated_tokens: int | None = None
    server_vram_bytes: int | None = None
    kv_cache_usage_pct: float | None = None


class EngineBackend(Protocol):
    """One model behind an engine: start, load, generate, cancel, measure, close."""

    @property
    def pid(self) -> int | None: ...

    @property
    def alive(self) -> bool: ...

    @property
    def returncode(self) -> int | None: ...

    def start(self, timeout: float = ...) -> p.Ready | None: ...

    def close(self, timeout: float = ...) -> None: ...

    def kill(self) -> None: ...

    def load(
        self,
        path: str | Path,
        *,
        n_ctx: int = ...,
        n_gpu_layers: int = ...,
        n_threads: int | None = ...,
        n_threads_batch: int | None = ...,
        n_batch: int = ...,
        flash_attn: bool = ...,
        template: str | None = ...,
        cache_type: CacheType = ...,
    ) -> Request: ...

    def generate(
        self,
        *,
        messages: Sequence[p.ChatMessage | Mapping[str, str]] = ...,
        prompt: str | None = ...,
        prompt_tokens: Sequence[int] = ...,
        system: str | None = ...,
        params: p.SamplingParams | None = ...,
        cache_prompt: bool = ...,
    ) -> Request: ...

    def cancel(self, request_id: str) -> None: ...

    def submit(self, command: p.Command) -> Request: ...

    def sample_memory(self) -> ProcessMemory | None: ...

    def memory_snapshot(self, since: float | None = None) -> tuple[ProcessMemory, ...]: ...

    def memory_phases(self, load: Request | None, generation: Request) -> MemoryPhases: ...

    def measures(self, request: Request) -> Measures: ...

    def stderr_tail(self, lines: int = ..., max_chars: int = ...) -> str: ...
