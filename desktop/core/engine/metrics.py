"""Generation and memory metrics, defined once for the CLI, the GUI and the reports.

Pure values and arithmetic: no I/O, no clocks of its own. Every timestamp is a float in seconds
from ``time.perf_counter()`` taken by the caller (the engine client, as events arrive).

Definitions:

- TTFT: request sent -> first token received by the client, in milliseconds.
- prompt tokens/s: prompt tokens / prompt-eval seconds, as the worker reports them.
- generation tokens/s: ``(n - 1) / (t_last - t_first)`` over the token arrival times seen by the
  client; a batch of ``k`` tokens arriving at ``t`` counts as ``k`` tokens at ``t``. The first
  token only starts the clock, so ``n < 2`` (or no elapsed time) gives ``None``.
- live tokens/s (:meth:`GenerationMeter.live_rate`, what the window shows while an answer
  streams): the generation tokens/s so far during the first ``LIVE_WINDOW_S`` after the first
  token, then the tokens that arrived in the last ``LIVE_WINDOW_S`` seconds divided by it
  (:meth:`GenerationMeter.live_tokens_per_s` for any window).
- per-second series: the tokens/s of each whole second since the first token, with right-closed
  bins ``(t_first + i, t_first + i + 1]``; the first batch counts all but its first token in
  bin 0, so the bins of a steady stream all read the same rate and sum to ``n - 1`` when the run
  lasts a whole number of seconds. A trailing partial second is left out.
- memory phases: the first sample at or after load finished, the first sample at or after the
  first token, and the peak over samples from load finished to generation done.
- estimate error: ``(predicted - measured) / measured * 100`` (positive: the estimate was high).
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop.core.engine.cpu_use import CpuUse, cpu_use_between

__all__ = [
    "LIVE_WINDOW_S",
    "GenerationMeter",
    "GenerationMetrics",
    "MemoryPhases",
    "MemorySample",
    "RunReport",
    "error_pct",
    "generation_tokens_per_s",
    "mean_sd",
]

# Timestamps are differences of perf_counter floats: 11.3 - 10.3 is 1.0000000000000009, which
# must still land in the first second. A nanosecond of slack is far below any clock we read.
_EPS = 1e-9

#: The live tokens/s counts the tokens of the last second.
LIVE_WINDOW_S = 1.0


def generation_tokens_per_s(n_tokens: int, t_first: float, t_last: float) -> float | None:
    """``(n - 1) / (t_last - t_first)``; ``None`` below two tokens or without elapsed time."""
    if n_tokens < 2:
        return None
    elapsed = t_last - t_first
    if elapsed <= 0.0:
        return None
    return (n_tokens - 1) / elapsed


def error_pct(predicted: float | None, measured: float | None) -> float | None:
    """Signed error of an estimate in percent of the measured value; ``None`` if unknown."""
    if predicted is None or measured is None or measured == 0:
        return None
    return (predicted - measured) / measured * 100.0


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (``0.0`` for a single value) of repeated runs."""
    if not values:
        raise ValueError("mean_sd needs at least one value")
    mean = statistics.fmean(values)
    if len(values) == 1:
        return mean, 0.0
    return mean, statistics.stdev(values)


@dataclass(frozen=True)
class GenerationMetrics:
    """What one generation measured, as seen by the client. Rates are ``None`` when undefined."""

    ttft_ms: float | None
    prompt_tokens: int
    prompt_tokens_per_s: float | None
    generated_tokens: int
    tokens_per_s: float | None
    per_second: tuple[float, ...]
    t_first: float | None
    t_last: float | None

    @property
    def live_series(self) -> tuple[float, ...]:
        """Same as ``per_second`` (the name the engine brief uses)."""
        return self.per_second

    @property
    def generation_s(self) -> float | None:
        """Seconds from the first to the last token received."""
        if self.t_first is None or self.t_last is None:
            return None
        return self.t_last - self.t_first


class GenerationMeter:
    """Collects the timestamps of one generation as the client receives its events.

    Feed it ``record_sent`` when the request goes out, ``record_tokens`` for every tokens
    event, ``record_prompt`` from the worker's done event; read ``live_tokens_per_s`` while it
    runs and ``finish`` at the end (``finish`` does not reset anything and may be called again).
    """

    def __init__(self) -> None:
        self._t_sent: float | None = None
        self._arrivals: list[tuple[float, int]] = []
        # Arrival times and the tokens up to and including each, while they come in order (they
        # do: one reader thread): the live rate is then two binary searches, not a sum over the
        # whole answer (the Playground asks for it at every batch of a long answer).
        self._times: list[float] = []
        self._cumulative: list[int] = []
        self._in_order = True
        self._generated = 0
        self._t_first: float | None = None
        self._t_last: float | None = None
        self._prompt_tokens = 0
        self._prompt_eval_s: float | None = None

    def record_sent(self, t: float) -> None:
        self._t_sent = t

    def record_tokens(self, t: float, n_tokens: int) -> None:
        """A batch of ``n_tokens`` tokens arrived at ``t`` (an empty batch is ignored)."""
        if n_tokens < 0:
            raise ValueError("a batch cannot hold a negative number of tokens")
        if n_tokens == 0:
            return
        self._arrivals.append((t, n_tokens))
        if self._times and t < self._times[-1]:
            self._in_order = False
        self._times.append(t)
        self._cumulative.append(self._generated + n_tokens)
        self._generated += n_tokens
        if self._t_first is None or t < self._t_first:
            self._t_first = t
        if self._t_last is None or t > self._t_last:
            self._t_last = t

    def record_prompt(self, n_prompt_tokens: int, prompt_eval_s: float) -> None:
        self._prompt_tokens = n_prompt_tokens
        self._prompt_eval_s = prompt_eval_s

    @property
    def generated_tokens(self) -> int:
        return self._generated

    @property
    def t_first(self) -> float | None:
        return self._t_first

    @property
    def batches(self) -> int:
        """How many batches of tokens arrived (the worker sends one every 40 ms or so)."""
        return len(self._arrivals)

    def ttft_ms(self) -> float | None:
        if self._t_sent is None or self._t_first is None:
            return None
        return (self._t_first - self._t_sent) * 1000.0

    def live_tokens_per_s(self, now: float, window_s: float = 1.0) -> float | None:
        """Tokens that arrived in ``(now - window_s, now]`` per second; ``None`` before any."""
        if window_s <= 0.0:
            raise ValueError("the window must be longer than zero seconds")
        if self._t_first is None or now < self._t_first:
            return None
        start = now - window_s
        if not self._in_order:
            return sum(n for t, n in self._arrivals if start < t <= now) / window_s
        times, cumulative = self._times, self._cumulative
        end_index = bisect.bisect_right(times, now)  # arrivals at or before now
        start_index = bisect.bisect_right(times, start)  # ... and at or before start
        up_to_now = cumulative[end_index - 1] if end_index else 0
        up_to_start = cumulative[start_index - 1] if start_index else 0
        return (up_to_now - up_to_start) / window_s

    def live_rate(self, now: float) -> float | None:
        """The live tokens/s at ``now`` (the module's definition): within ``LIVE_WINDOW_S`` of
        the first token the rate so far (the window is not full yet), then the tokens of the
        last ``LIVE_WINDOW_S``; None below two tokens, as the generation rate."""
        t_first = self._t_first
        if t_first is None or self._generated < 2:
            return None
        if now - t_first < LIVE_WINDOW_S:
            return generation_tokens_per_s(self._generated, t_first, self._t_last or t_first)
        return self.live_tokens_per_s(now, LIVE_WINDOW_S)

    def _per_second(self) -> tuple[float, ...]:
        if self._t_first is None or self._t_last is None:
            return ()
        t_first = self._t_first
        whole = math.floor(self._t_last - t_first + _EPS)
        if whole <= 0:
            return ()
        bins = [0] * whole
        bins[0] = -1  # the first token starts the clock and is not counted
        for t, n in self._arrivals:
            offset = t - t_first
            index = 0 if offset <= _EPS else math.ceil(offset - _EPS) - 1
            if index < whole:
                bins[index] += n
        return tuple(float(count) for count in bins)

    def finish(self) -> GenerationMetrics:
        prompt_rate: float | None = None
        if self._prompt_eval_s is not None and self._prompt_eval_s > 0 and self._prompt_tokens:
            prompt_rate = self._prompt_tokens / self._prompt_eval_s
        rate: float | None = None
        if self._t_first is not None and self._t_last is not None:
            rate = generation_tokens_per_s(self._generated, self._t_first, self._t_last)
        return GenerationMetrics(
            ttft_ms=self.ttft_ms(),
            prompt_tokens=self._prompt_tokens,
            prompt_tokens_per_s=prompt_rate,
            generated_tokens=self._generated,
            tokens_per_s=rate,
            per_second=self._per_second(),
            t_first=self._t_first,
            t_last=self._t_last,
        )


@dataclass(frozen=True)
class MemorySample:
    """One reading of the worker's memory: resident set and, on NVIDIA, its VRAM."""

    t: float
    rss_bytes: int
    vram_bytes: int | None = None
    private_bytes: int | None = None  # RSS without mapped files: must stay free
    file_bytes: int | None = None  # mapped file pages the OS can drop
    # CPU clocks at the same instant (see cpu_use.py): the worker's, the reader's own, and the
    # busy time of the CPUs the reader may use.
    cpu_s: float | None = None
    own_cpu_s: float | None = None
    busy_s: float | None = None


class MemoryPhases:
    """Memory at the three phases of a run, from samples the client takes at 4-10 Hz.

    - ``after_load``: RSS of the first sample at or after ``record_load_done``.
    - ``after_first_token``: RSS of the first sample at or after ``record_first_token``.
    - ``peak`` / ``peak_vram``: the largest RSS / VRAM from load done (or the first sample when
      load was not marked) up to ``record_generation_done`` (or the last sample).
    """

    def __init__(self) -> None:
        self._samples: list[MemorySample] = []
        self._t_load: float | None = None
        self._t_first_token: float | None = None
        self._t_done: float | None = None

    def record_load_done(self, t: float) -> None:
        self._t_load = t

    def record_first_token(self, t: float) -> None:
        self._t_first_token = t

    def record_generation_done(self, t: float) -> None:
        self._t_done = t

    def add(self, sample: MemorySample) -> None:
        self._samples.append(sample)

    @property
    def samples(self) -> tuple[MemorySample, ...]:
        return tuple(sorted(self._samples, key=lambda s: s.t))

    def _first_at_or_after(self, t: float | None) -> MemorySample | None:
        if t is None:
            return None
        return next((s for s in self.samples if s.t >= t), None)

    def _window(self) -> list[MemorySample]:
        start = -math.inf if self._t_load is None else self._t_load
        end = math.inf if self._t_done is None else self._t_done
        return [s for s in self._samples if start <= s.t <= end]

    @property
    def after_load(self) -> int | None:
        sample = self._first_at_or_after(self._t_load)
        return None if sample is None else sample.rss_bytes

    @property
    def after_first_token(self) -> int | None:
        sample = self._first_at_or_after(self._t_first_token)
        return None if sample is None else sample.rss_bytes

    @property
    def peak(self) -> int | None:
        window = self._window()
        return max((s.rss_bytes for s in window), default=None)

    @property
    def peak_vram(self) -> int | None:
        return max((s.vram_bytes for s in self._window() if s.vram_bytes is not None), default=None)

    @property
    def peak_private(self) -> int | None:
        return max(
            (s.private_bytes for s in self._window() if s.private_bytes is not None), default=None
        )

    @property
    def peak_file(self) -> int | None:
        return max((s.file_bytes for s in self._window() if s.file_bytes is not None), default=None)

    def cpu_use(self, n_threads: int | None = None) -> CpuUse | None:
        """Who had the CPU from the first token to the end of the answer (None: too short, or
        no CPU clocks in the readings)."""
        from desktop.core.hardware import usable_cpus

        return cpu_use_between(
            self.samples,
            self._t_first_token,
            self._t_done,
            usable_cpus=usable_cpus(),
            n_threads=n_threads,
        )


@dataclass(frozen=True)
class RunReport:
    """One run as every front end reports it (``llm-scout run --json``, the GUI, the store)."""

    text: str
    metrics: GenerationMetrics
    load_ms: float | None = None
    rss_after_load_bytes: int | None = None
    rss_after_first_token_bytes: int | None = None
    rss_peak_bytes: int | None = None
    vram_peak_bytes: int | None = None
    private_peak_bytes: int | None = None
    file_peak_bytes: int | None = None
    predicted_ram_bytes: int | None = None
    predicted_vram_bytes: int | None = None
    predicted_tokens_per_s: float | None = None
    finish_reason: str | None = None  # stop, length, context, cancelled (None: did not finish)
    n_ctx: int | None = None
    n_threads: int | None = None
    # Where the numbers came from: speeds "client" (arrival times here) or "server" (its own
    # timings); memory "process" (the local worker), "server" (what a server exposes) or
    # "unknown" (a server that exposes nothing: the memory fields are None, never 0).
    timing_source: str = "client"
    memory_source: str = "process"
    server_vram_bytes: int | None = None
    kv_cache_usage_pct: float | None = None
    # Who had the CPU while the answer was generated (None: not measured, e.g. a server), and
    # whether llama.cpp's threads did the work on the CPU (not every layer on a GPU).
    cpu: CpuUse | None = None
    cpu_bound: bool = True

    @property
    def busy_reason(self) -> str | None:
        """Why this run was made under contention (then it does not calibrate), or None."""
        return self.cpu.busy_reason(self.cpu_bound) if self.cpu is not None else None

    @classmethod
    def build(
        cls,
        text: str,
        metrics: GenerationMetrics,
        memory: MemoryPhases,
        *,
        load_ms: float | None = None,
        predicted_ram_bytes: int | None = None,
        predicted_vram_bytes: int | None = None,
        predicted_tokens_per_s: float | None = None,
        finish_reason: str | None = None,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        timing_source: str = "client",
        memory_source: str = "process",
        server_vram_bytes: int | None = None,
        kv_cache_usage_pct: float | None = None,
        cpu_bound: bool = True,
    ) -> RunReport:
        """A report from a finished meter and the memory phases of the same run."""
        return cls(
            text=text,
            metrics=metrics,
            load_ms=load_ms,
            rss_after_load_bytes=memory.after_load,
            rss_after_first_token_bytes=memory.after_first_token,
            rss_peak_bytes=memory.peak,
            vram_peak_bytes=memory.peak_vram,
            private_peak_bytes=memory.peak_private,
            file_peak_bytes=memory.peak_file,
            predicted_ram_bytes=predicted_ram_bytes,
            predicted_vram_bytes=predicted_vram_bytes,
            predicted_tokens_per_s=predicted_tokens_per_s,
            finish_reason=finish_reason,
            n_ctx=n_ctx,
            n_threads=n_threads,
            timing_source=timing_source,
            memory_source=memory_source,
            server_vram_bytes=server_vram_bytes,
            kv_cache_usage_pct=kv_cache_usage_pct,
            cpu=memory.cpu_use(n_threads),
            cpu_bound=cpu_bound,
        )

    def slow_run(self, min_tokens: int = 16) -> SlowRun | None:
        """The facts behind :meth:`speed_warning` (each front end words them), or None."""
        measured, predicted = self.metrics.tokens_per_s, self.predicted_tokens_per_s
        if measured is None or not predicted or self.metrics.generated_tokens < min_tokens:
            return None
        busy = self.cpu.busy_kind(self.cpu_bound) if self.cpu is not None else None
        if busy is not None and measured < predicted * 0.9:
            return SlowRun(measured / predicted, busy, self.cpu, self.n_threads)
        if measured >= predicted / 2:
            return None
        return SlowRun(measured / predicted, None, self.cpu, self.n_threads)

    def speed_warning(self, min_tokens: int = 16) -> str | None:
        """A sentence when generation ran at under half the predicted speed (over at least
        ``min_tokens`` tokens, below that the measurement says little), with the likely causes;
        under contention (then the run does not calibrate) below 90% already."""
        slow = self.slow_run(min_tokens)
        if slow is None:
            return None
        share = slow.share_text
        if slow.busy is not None:
            return (
                f"Generation ran at {share} of the predicted speed: {self.busy_reason}, "
                "so this run does not calibrate the estimates."
            )
        threads = f" ({self.n_threads} threads)" if self.n_threads else ""
        return (
            f"Generation ran at {share} of the predicted speed: other "
            "programs may be using the CPU or GPU, the machine may be throttling (heat, power "
            f"saving), or the run used fewer threads than the machine has cores{threads}."
        )

    @property
    def speed_error_pct(self) -> float | None:
        """Predicted vs measured generation speed, in percent of the measured."""
        return error_pct(self.predicted_tokens_per_s, self.metrics.tokens_per_s)

    @property
    def speed_compared(self) -> bool:
        """Whether the measured speed is compared with the prediction: not for a run made
        under contention (:attr:`busy_reason`), whose speed error (often hundreds of percent)
        measures the machine's load, not the estimate. Front ends say so in words there."""
        return self.busy_reason is None

    @property
    def ram_error_pct(self) -> float | None:
        return error_pct(self.predicted_ram_bytes, self.rss_peak_bytes)

    @property
    def vram_error_pct(self) -> float | None:
        return error_pct(self.predicted_vram_bytes, self.vram_peak_bytes)

    def to_dict(self) -> dict[str, Any]:
        """The ``llm-scout run --json`` document. Generation speed is
        ``generation_tokens_per_s`` (as in ``bench``); ``tokens_per_s`` is its old name, kept
        for one release."""
        m = self.metrics
        return {
            "text": self.text,
            "finish_reason": self.finish_reason,
            "n_ctx": self.n_ctx,
            "n_threads": self.n_threads,
            "ttft_ms": m.ttft_ms,
            "prompt_tokens": m.prompt_tokens,
            "prompt_tokens_per_s": m.prompt_tokens_per_s,
            "generated_tokens": m.generated_tokens,
            "generation_tokens_per_s": m.tokens_per_s,
            "tokens_per_s": m.tokens_per_s,
            "predicted_tokens_per_s": self.predicted_tokens_per_s,
            "speed_error_pct": self.speed_error_pct,
            "speed_compared": self.speed_compared,
            "load_ms": self.load_ms,
            "rss_after_load_bytes": self.rss_after_load_bytes,
            "rss_peak_bytes": self.rss_peak_bytes,
            "private_peak_bytes": self.private_peak_bytes,
            "file_backed_peak_bytes": self.file_peak_bytes,
            "vram_peak_bytes": self.vram_peak_bytes,
            "predicted_ram_bytes": self.predicted_ram_bytes,
            "predicted_vram_bytes": self.predicted_vram_bytes,
            "rss_after_first_token_bytes": self.rss_after_first_token_bytes,
            "ram_error_pct": self.ram_error_pct,
            "per_second_tokens_per_s": list(m.per_second),
            "timing_source": self.timing_source,
            "memory_source": self.memory_source,
            "server_vram_bytes": self.server_vram_bytes,
            "kv_cache_usage_pct": self.kv_cache_usage_pct,
            "cpu": self.cpu.to_dict(self.cpu_bound) if self.cpu is not None else None,
        }


@dataclass(frozen=True)
class SlowRun:
    """A generation well under its predicted speed: ``share`` of it (measured / predicted);
    ``busy``: ``others`` or ``starved`` when it ran under contention (see
    :meth:`CpuUse.busy_kind`; such a run does not calibrate), None when the cause is unknown."""

    share: float
    busy: str | None
    cpu: CpuUse | None
    n_threads: int | None

    @property
    def share_text(self) -> str:
        """The share in words: "6%", or "under 1%" (never "0%")."""
        return "under 1%" if f"{self.share:.0%}" == "0%" else f"{self.share:.0%}"
