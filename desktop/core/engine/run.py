"""A measured run: one model loaded in its own worker, answers generated, predicted vs measured.

:class:`Session` is what ``llm-scout run``, its chat and the window's Playground share: it starts
a worker, loads the model with :class:`LoadSettings`, streams answers, and turns each finished
answer into a :class:`~desktop.core.engine.metrics.RunReport` that carries the fit prediction for
the same settings (:class:`Prediction`) next to what was measured.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop.core.engine import protocol as p
from desktop.core.engine.backend import EngineBackend
from desktop.core.engine.client import EngineClient
from desktop.core.engine.memory import ProcessMemory
from desktop.core.engine.metrics import RunReport
from desktop.core.engine.request import Request, WorkerError
from desktop.core.errors import ScoutError, UsageError
from desktop.core.fit import FitTarget, device_of, estimate
from desktop.core.hardware import HardwareProfile
from desktop.core.kv_cache import CACHE_TYPES, CacheType, check_flash_attn

log = logging.getLogger(__name__)

MIN_CTX = 16


@dataclass(frozen=True)
class LoadSettings:
    """How to load a model: the worker's ``load`` command without the path.

    ``n_threads`` None: the physical core count. ``template``: a chat template name or Jinja
    text that overrides the file's own. ``cache_type``: the KV cache's type (f16, q8_0, q4_0);
    a quantized one needs ``flash_attn``.
    """

    n_ctx: int = 4096
    n_gpu_layers: int = 0
    n_threads: int | None = None
    flash_attn: bool = False
    template: str | None = None
    cache_type: CacheType = "f16"
    rpc_servers: tuple[str, ...] = ()  # llama.cpp RPC servers, HOST:PORT (a GGML_RPC build)

    def __post_init__(self) -> None:
        # A list from JSON (a stored comparison) or the command line: kept as a tuple.
        object.__setattr__(self, "rpc_servers", tuple(self.rpc_servers))
        for endpoint in self.rpc_servers:
            host, sep, port = endpoint.rpartition(":")
            if not (sep and host and port.isdigit() and 0 < int(port) < 65536):
                raise UsageError(f"An RPC server is HOST:PORT, not {endpoint!r}.")
        if self.n_ctx < MIN_CTX:
            raise UsageError(f"The context must be at least {MIN_CTX} tokens, not {self.n_ctx}.")
        if self.n_ctx > p.MAX_CTX:
            raise UsageError(p.too_long_context(self.n_ctx))
        if self.n_gpu_layers < -1:
            raise UsageError(f"GPU layers must be -1 (all) or more, not {self.n_gpu_layers}.")
        if self.n_threads is not None and self.n_threads < 1:
            raise UsageError(f"Threads must be at least 1, not {self.n_threads}.")
        if self.cache_type not in CACHE_TYPES:
            raise UsageError(
                f"The KV cache type must be one of {', '.join(CACHE_TYPES)}, "
                f"not {self.cache_type!r}."
            )
        check_flash_attn(self.cache_type, self.flash_attn)


@dataclass(frozen=True)
class Prediction:
    """What the fit estimator predicts for one load and run; None where it cannot say."""

    ram_bytes: int | None = None
    vram_bytes: int | None = None
    tokens_per_s: float | None = None
    roofline_tokens_per_s: float | None = None

    @classmethod
    def for_run(
        cls,
        target: FitTarget | None,
        profile: HardwareProfile | None,
        *,
        n_ctx: int,
        n_gpu_layers: int,
        prompt_tokens: int,
        cache_type: CacheType = "f16",
        flash_attn: bool | None = None,
        n_threads: int | None = None,
    ) -> Prediction:
        """The estimate for these settings on ``profile``; empty when either is missing or the
        estimator cannot place the model (the run itself is what counts). ``flash_attn`` None:
        the estimator's own default for the cache type."""
        if target is None or profile is None:
            return cls()
        try:
            result = estimate(
                target,
                profile,
                n_ctx=n_ctx,
                n_gpu_layers=n_gpu_layers,
                prompt_tokens=prompt_tokens,
                cache_type=cache_type,
                flash_attn=flash_attn,
                n_threads=n_threads,
            )
        except ScoutError as exc:
            log.info("no fit prediction for %s: %s", target.label, exc)
            return cls()
        return cls(
            result.ram_bytes,
            result.vram_bytes,
            result.tokens_per_s,
            result.roofline_tokens_per_s,
        )


class Session:
    """One model in one worker, measured. Use as a context manager, or call :meth:`close`.

    ``target``/``profile`` give the prediction each report carries (None: no prediction).
    ``on_event`` and ``on_memory`` are the client's callbacks (called on its threads).
    ``client``: the engine to run on (default: a new local worker); a
    :class:`~desktop.core.engine.remote.RemoteClient` runs the session on a server, and
    ``path`` is then its base URL.
    """

    def __init__(
        self,
        path: Path | str,
        load: LoadSettings,
        *,
        target: FitTarget | None = None,
        profile: HardwareProfile | None = None,
        on_event: Callable[[p.Event], None] | None = None,
        on_memory: Callable[[ProcessMemory], None] | None = None,
        client: EngineBackend | None = None,
    ) -> None:
        self.path = path
        self.load_settings = load
        self.target = target
        self.profile = profile
        self.client: EngineBackend = client or EngineClient(on_event=on_event, on_memory=on_memory)
        self.loaded: p.Loaded | None = None
        self._load_request: Request | None = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def open(self, timeout: float | None = None) -> p.Loaded:
        """Start the worker and load the model; WorkerError when the worker refuses."""
        if not self.client.alive:
            self.client.start()
        settings = self.load_settings
        if settings.rpc_servers:
            self._load_request = self.client.submit(_rpc_load(self.path, settings))
        else:
            self._load_request = self.client.load(
                self.path,
                n_ctx=settings.n_ctx,
                n_gpu_layers=settings.n_gpu_layers,
                n_threads=settings.n_threads,
                flash_attn=settings.flash_attn,
                template=settings.template,
                cache_type=settings.cache_type,
            )
        event = self._load_request.result(timeout)
        assert isinstance(event, p.Loaded)
        self.loaded = event
        return event

    def close(self) -> None:
        self.client.close()

    def reopen(self, timeout: float | None = None) -> p.Loaded:
        """A fresh worker with the model loaded again, after the last one died (the dead one
        is reaped first); WorkerError when the new one refuses."""
        self.client.close()
        self.loaded = None
        return self.open(timeout)

    @property
    def loaded_at(self) -> float | None:
        """When the load finished (``perf_counter``): memory is counted from there on, by
        ``run`` and ``bench`` alike (the load itself touches every page of the file)."""
        request = self._load_request
        return request.t_terminal if request is not None else None

    def generate(
        self,
        *,
        messages: Sequence[p.ChatMessage | Mapping[str, str]] = (),
        prompt: str | None = None,
        system: str | None = None,
        params: p.SamplingParams | None = None,
        cache_prompt: bool = True,
    ) -> Request:
        """Send one request; read its events or call :meth:`report` when it is done.

        ``cache_prompt=False`` evaluates the whole prompt afresh: an answer then does not
        depend on what the worker answered before (llama.cpp's logits for the tokens after a
        reused prefix differ in the last bits from a whole-prompt batch, enough to change a
        greedy answer)."""
        return self.client.generate(
            messages=messages,
            prompt=prompt,
            system=system,
            params=params,
            cache_prompt=cache_prompt,
        )

    def stream(self, request: Request, on_text: Callable[[str], None] | None = None) -> p.Done:
        """Deliver the request's text as it comes and return its ``done``; raise WorkerError on
        an error event. KeyboardInterrupt cancels the answer (what came stays in ``request``)."""
        try:
            for event in request.events():
                if isinstance(event, p.Tokens) and event.text and on_text is not None:
                    on_text(event.text)
                elif isinstance(event, p.Error):
                    raise WorkerError(event)
                elif isinstance(event, p.Done):
                    return event
        except KeyboardInterrupt:
            self.client.cancel(request.id)
            request.wait(10.0)
            raise
        raise WorkerError(p.Error(request.id, "protocol", "The answer ended without a result."))

    def prediction(self, prompt_tokens: int) -> Prediction:
        loaded = self.loaded
        n_gpu_layers = loaded.n_gpu_layers if loaded is not None else 0
        return Prediction.for_run(
            self.target,
            self.profile,
            n_ctx=self.load_settings.n_ctx,
            n_gpu_layers=n_gpu_layers,
            prompt_tokens=prompt_tokens,
            cache_type=self.load_settings.cache_type,
            flash_attn=self.load_settings.flash_attn,
            n_threads=loaded.n_threads if loaded is not None else self.load_settings.n_threads,
        )

    def report(self, request: Request) -> RunReport:
        """Measured vs predicted for a finished request (memory over this load and answer)."""
        metrics = request.meter.finish()
        measures = self.client.measures(request)
        if measures.tokens_per_s is not None or measures.generated_tokens is not None:
            metrics = dataclasses.replace(
                metrics,
                tokens_per_s=measures.tokens_per_s or metrics.tokens_per_s,
                generated_tokens=measures.generated_tokens or metrics.generated_tokens,
            )
        if measures.prompt_tokens_per_s is not None:
            metrics = dataclasses.replace(metrics, prompt_tokens_per_s=measures.prompt_tokens_per_s)
        prediction = self.prediction(metrics.prompt_tokens + metrics.generated_tokens)
        loaded = self.loaded
        done = request.terminal
        return RunReport.build(
            request.text,
            metrics,
            self.client.memory_phases(self._load_request, request),
            load_ms=loaded.load_ms if loaded is not None else None,
            predicted_ram_bytes=prediction.ram_bytes,
            predicted_vram_bytes=prediction.vram_bytes,
            predicted_tokens_per_s=prediction.tokens_per_s,
            finish_reason=done.finish_reason if isinstance(done, p.Done) else None,
            n_ctx=loaded.n_ctx if loaded is not None else self.load_settings.n_ctx,
            n_threads=loaded.n_threads if loaded is not None else None,
            timing_source=measures.timing_source,
            memory_source=measures.memory_source,
            server_vram_bytes=measures.server_vram_bytes,
            kv_cache_usage_pct=measures.kv_cache_usage_pct,
            cpu_bound=loaded is None
            or device_of(loaded.n_gpu_layers, loaded.n_layer, loaded.gpu_offload) != "gpu",
        )


@dataclass(frozen=True)
class EngineInfo:
    """The llama.cpp build a worker runs: version, whether it can offload, and its backends with
    the features each was built with (``{"CPU": ("AVX2", "FMA", ...)}``; a CUDA build adds
    ``"CUDA"``)."""

    llama_cpp_version: str
    gpu_offload: bool
    backends: dict[str, tuple[str, ...]]
    system_info: str

    @classmethod
    def from_ready(cls, ready: p.Ready) -> EngineInfo:
        return cls(
            ready.llama_cpp_version,
            ready.gpu_offload,
            parse_system_info(ready.system_info),
            ready.system_info,
        )

    @property
    def cpu_variant(self) -> str | None:
        """The widest vector instructions the CPU backend was built for ("AVX2", "NEON")."""
        features = self.backends.get("CPU", ())
        return next((f for f in _CPU_VARIANTS if f in features), None)

    def summary(self) -> str:
        """The build in a few words, for the status bar and ``hw``: "llama.cpp 0.3.36 · CPU
        AVX2", or "llama.cpp 0.3.36 · CUDA + CPU AVX2"."""
        parts = []
        for name in sorted(self.backends, key=lambda n: n == "CPU"):
            variant = self.cpu_variant if name == "CPU" else None
            parts.append(f"{name} {variant}" if variant else name)
        return f"llama.cpp {self.llama_cpp_version} · " + " + ".join(parts or ["CPU"])

    def to_dict(self) -> dict[str, object]:
        return {
            "llama_cpp_version": self.llama_cpp_version,
            "gpu_offload": self.gpu_offload,
            "backends": {k: list(v) for k, v in self.backends.items()},
        }


_CPU_VARIANTS = ("AVX512", "AVX2", "AVX", "SVE", "NEON", "SSE3")


def parse_system_info(text: str) -> dict[str, tuple[str, ...]]:
    """``llama_print_system_info()`` as backends and the features set to 1 (or valued) in each:
    "CPU : SSE3 = 1 | AVX = 0 | CUDA : ARCHS = 900 |" -> {"CPU": ("SSE3",), "CUDA": ("ARCHS",)}."""
    backends: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.split("|"):
        entry = raw.strip()
        if not entry:
            continue
        if " : " in entry:
            name, _, entry = entry.partition(" : ")
            current = backends.setdefault(name.strip(), [])
        key, _, value = entry.partition("=")
        key, value = key.strip(), value.strip()
        if current is not None and key and value not in ("0", ""):
            current.append(key)
    return {name: tuple(features) for name, features in backends.items()}


def engine_info(timeout: float = 60.0) -> EngineInfo:
    """Start a worker, read which llama.cpp build it runs, stop it (a second or so)."""
    client = EngineClient()
    try:
        return EngineInfo.from_ready(client.start(timeout))
    finally:
        client.close()


def _rpc_load(path: Path | str, settings: LoadSettings) -> p.Load:
    """The ``load`` command of a load with RPC servers (the clients' ``load`` takes none)."""
    import uuid

    return p.Load(
        id=f"rpc-{uuid.uuid4().hex[:12]}",
        path=str(path),
        n_ctx=settings.n_ctx,
        n_gpu_layers=settings.n_gpu_layers,
        n_threads=settings.n_threads,
        flash_attn=settings.flash_attn,
        template=settings.template,
        cache_type=settings.cache_type,
        rpc_servers=settings.rpc_servers,
    )
