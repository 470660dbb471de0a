"""Prompt processing and generation speed, like llama-bench, with the prediction beside it.

One worker, one load, a warm-up, then ``repetitions`` of two tests:

- ``pp<N>``: N prompt tokens evaluated from an empty cache (tokens/s from llama.cpp's
  prompt-eval time, the metrics definition); its TTFT is the request-to-first-token time.
- ``tg<N>``: N tokens generated after a one-token prompt, end-of-generation ignored; tokens/s
  as the client sees them, ``(n - 1) / (t_last - t_first)``.

Results are mean ± sample standard deviation, with peak RSS/VRAM over the whole run, the fit
prediction for the same settings and the bandwidth roofline for this hardware.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.engine import protocol as p
from desktop.core.engine.backend import EngineBackend
from desktop.core.engine.cpu_use import CpuUse, cpu_use_between
from desktop.core.engine.metrics import error_pct, mean_sd
from desktop.core.engine.request import WorkerError
from desktop.core.engine.run import LoadSettings, Prediction, Session
from desktop.core.errors import UsageError
from desktop.core.fit import FitTarget, device_of
from desktop.core.hardware import HardwareProfile, usable_cpus


@dataclass(frozen=True)
class BenchSettings:
    """What to measure: ``pp`` prompt tokens, ``tg`` generated tokens, ``repetitions`` times."""

    pp: int = 512
    tg: int = 128
    repetitions: int = 5

    def __post_init__(self) -> None:
        if self.pp < 1 or self.tg < 2 or self.repetitions < 1:
            raise UsageError("--pp must be at least 1, --tg at least 2 and -r at least 1.")

    def context(self, n_ctx: int | None) -> int:
        """The context to load with: ``n_ctx`` when given (checked), else room for both tests."""
        if n_ctx is None:
            return self.pp + self.tg + 8
        if n_ctx < max(self.pp, self.tg + 1) + 1:
            raise UsageError(
                f"--ctx {n_ctx} cannot hold {self.pp} prompt tokens or {self.tg} generated tokens."
            )
        return n_ctx


@dataclass(frozen=True)
class BenchRun:
    pp_tokens_per_s: float
    tg_tokens_per_s: float
    ttft_ms: float


@dataclass(frozen=True)
class BenchResult:
    """A finished benchmark; :meth:`to_dict` is the ``llm-scout bench --json`` document."""

    path: Path | str
    label: str
    loaded: p.Loaded
    settings: BenchSettings
    runs: tuple[BenchRun, ...]
    rss_peak_bytes: int | None
    vram_peak_bytes: int | None
    private_peak_bytes: int | None
    file_peak_bytes: int | None
    prediction: Prediction
    timing_source: str = "client"
    remote: bool = False
    # Who had the CPU during the counted runs (None: not measured, e.g. a server).
    cpu: CpuUse | None = None

    @property
    def busy_reason(self) -> str | None:
        """Why this benchmark was made under contention (then it does not calibrate), or None."""
        return self.cpu.busy_reason(self._cpu_bound) if self.cpu is not None else None

    @property
    def _cpu_bound(self) -> bool:
        loaded = self.loaded
        return device_of(loaded.n_gpu_layers, loaded.n_layer, loaded.gpu_offload) != "gpu"

    def stat(self, name: str) -> tuple[float, float]:
        """(mean, sd) of one field of the runs."""
        return mean_sd([getattr(run, name) for run in self.runs])

    def to_dict(self) -> dict[str, Any]:
        loaded, settings, prediction = self.loaded, self.settings, self.prediction
        pp_mean, pp_sd = self.stat("pp_tokens_per_s")
        tg_mean, tg_sd = self.stat("tg_tokens_per_s")
        ttft_mean, ttft_sd = self.stat("ttft_ms")
        return {
            "model": str(self.path),
            "model_label": self.label,
            "description": loaded.description,  # llama.cpp's own (its size class, not our count)
            "architecture": loaded.architecture,
            "n_params": loaded.n_params,
            "model_size_bytes": loaded.model_size_bytes,
            "n_ctx": loaded.n_ctx,
            "n_threads": loaded.n_threads,
            "n_gpu_layers": loaded.n_gpu_layers,
            "gpu_offload": loaded.gpu_offload,
            "repetitions": settings.repetitions,
            "pp": settings.pp,
            "tg": settings.tg,
            "pp_tokens_per_s": pp_mean,
            "pp_tokens_per_s_sd": pp_sd,
            "tg_tokens_per_s": tg_mean,
            "tg_tokens_per_s_sd": tg_sd,
            "ttft_ms": ttft_mean,
            "ttft_ms_sd": ttft_sd,
            "load_ms": loaded.load_ms,
            "rss_peak_bytes": self.rss_peak_bytes,
            "private_peak_bytes": self.private_peak_bytes,
            "file_backed_peak_bytes": self.file_peak_bytes,
            "vram_peak_bytes": self.vram_peak_bytes,
            "predicted_ram_bytes": prediction.ram_bytes,
            "predicted_vram_bytes": prediction.vram_bytes,
            "ram_error_pct": error_pct(prediction.ram_bytes, self.rss_peak_bytes),
            "predicted_tokens_per_s": prediction.tokens_per_s,
            "roofline_tokens_per_s": prediction.roofline_tokens_per_s,
            "runs": [dataclasses.asdict(r) for r in self.runs],
            "remote": self.remote,
            "timing_source": self.timing_source,
            "cpu": self.cpu.to_dict(self._cpu_bound) if self.cpu is not None else None,
        }


def bench_prompt(n_tokens: int, n_vocab: int) -> list[int]:
    """A fixed pseudo-random prompt of real token ids (llama-bench uses random tokens too)."""
    return [(7919 * i + 1009) % n_vocab for i in range(1, n_tokens + 1)]


def run_bench(
    path: Path | str,
    load: LoadSettings,
    settings: BenchSettings,
    *,
    label: str,
    target: FitTarget | None = None,
    profile: HardwareProfile | None = None,
    client: EngineBackend | None = None,
) -> BenchResult:
    """Load ``path`` once, warm up, run the tests ``settings.repetitions`` times. ``client``: a
    remote engine (``path`` its base URL); its vocabulary is unknown here, so the prompt is
    text of about ``pp`` tokens and the server's usage says how many it was."""
    sources: set[str] = set()
    with Session(path, load, target=target, profile=profile, client=client) as session:
        loaded = session.open()
        prompt: list[int] | str = (
            bench_prompt(settings.pp, loaded.n_vocab) if loaded.n_vocab else bench_text(settings.pp)
        )
        _one_run(session, prompt, settings.tg, sources)  # warm-up, not counted
        session.client.sample_memory()
        counted_from = time.perf_counter()
        runs = tuple(
            _one_run(session, prompt, settings.tg, sources) for _ in range(settings.repetitions)
        )
        session.client.sample_memory()
        counted_to = time.perf_counter()
        samples = session.client.memory_snapshot(since=session.loaded_at)
    rss = [m.rss_bytes for m in samples]
    vram = [m.vram_bytes for m in samples if m.vram_bytes is not None]
    prediction = Prediction.for_run(
        target,
        profile,
        n_ctx=load.n_ctx,
        n_gpu_layers=loaded.n_gpu_layers,
        prompt_tokens=max(settings.pp, settings.tg + 1),
        n_threads=loaded.n_threads,
    )
    return BenchResult(
        path=path,
        label=label,
        loaded=loaded,
        settings=settings,
        runs=runs,
        rss_peak_bytes=max(rss) if rss else None,
        vram_peak_bytes=max(vram) if vram else None,
        private_peak_bytes=_peak(m.private_bytes for m in samples),
        file_peak_bytes=_peak(m.file_bytes for m in samples),
        prediction=prediction,
        timing_source="server" if "server" in sources else "client",
        remote=client is not None and loaded.architecture == "remote",
        cpu=cpu_use_between(
            samples,
            counted_from,
            counted_to,
            usable_cpus=usable_cpus(),
            n_threads=loaded.n_threads,
        ),
    )


def bench_text(n_tokens: int) -> str:
    """A prompt of about ``n_tokens`` tokens for a server whose tokenizer is unknown here (a
    common short word and a space come to one token in the tokenizers of the families here)."""
    return " ".join(["the"] * max(1, n_tokens - 1))


def _finish(session: Session, request_params: p.SamplingParams, tokens: list[int] | str) -> Any:
    if isinstance(tokens, str):
        request = session.client.generate(prompt=tokens, params=request_params, cache_prompt=False)
    else:
        request = session.client.generate(
            prompt_tokens=tokens, params=request_params, cache_prompt=False
        )
    event = request.wait()
    if isinstance(event, p.Error):
        raise WorkerError(event)
    assert isinstance(event, p.Done)
    return request, event


def _one_run(
    session: Session, prompt: list[int] | str, tg: int, sources: set[str] | None = None
) -> BenchRun:
    pp_params = p.SamplingParams(temperature=0.0, max_tokens=1, ignore_eos=True, seed=1)
    pp_request, pp_done = _finish(session, pp_params, prompt)
    ttft = pp_request.meter.ttft_ms()
    tg_params = p.SamplingParams(temperature=0.0, max_tokens=tg, ignore_eos=True, seed=1)
    tg_request, _ = _finish(session, tg_params, prompt[:1] if isinstance(prompt, list) else "the")
    tg_rate = (
        session.client.measures(tg_request).tokens_per_s or tg_request.meter.finish().tokens_per_s
    )
    if sources is not None:
        sources.add(session.client.measures(tg_request).timing_source)
    if pp_done.prompt_eval_ms <= 0 or ttft is None or tg_rate is None:
        raise WorkerError(
            p.Error(None, "generation_failed", "The benchmark run produced no timings.")
        )
    n_prompt = len(prompt) if isinstance(prompt, list) else pp_done.prompt_tokens
    if not n_prompt:  # a server that does not say: the words sent, about one token each
        n_prompt = len(str(prompt).split()) + 1
    return BenchRun(
        pp_tokens_per_s=n_prompt / (pp_done.prompt_eval_ms / 1000.0),
        tg_tokens_per_s=tg_rate,
        ttft_ms=ttft,
    )


def _peak(values: Iterable[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None
