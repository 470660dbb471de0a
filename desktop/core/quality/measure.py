"""Runs a loss measurement: the reference pass (or a pack), then the model against it.

Each model runs in its own engine worker (``desktop.core.engine``), one after the other, so only
one of them is in memory at a time. The reference pass evaluates every chunk of the text and
keeps its top tokens (:func:`make_pack`); a pack of a reference file is cached (keyed by the
file's path, size and modification time, the text and the settings), so comparing four quants
with one F16 file evaluates the F16 file once. The model pass evaluates the same chunks and
scores each against the pack (:func:`score_against_pack`).

Progress comes as :class:`LossProgress` after each chunk, with the running result in the model
pass. ``should_stop`` is polled while a chunk runs (the worker is asked to cancel it); a time
budget skips the chunks that would end past it. Either way the chunks done make the result
(``complete`` False). At least one chunk is always evaluated.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from desktop.core.engine import (
    EngineClient,
    Request,
    WorkerError,
    decode_ints,
    encode_ints,
    unpack_scores,
)
from desktop.core.engine import protocol as p
from desktop.core.errors import Cancelled, QualityError
from desktop.core.paths import cache_dir
from desktop.core.quality.loss import ChunkStats, LossResult, Stopped, chunk_stats, summarize
from desktop.core.quality.pack import (
    FORMAT,
    SUFFIX,
    ReferencePack,
    new_header,
    read_pack,
    write_pack,
)
from desktop.core.quality.texts import EvalText, check_ctx, plan_chunks

POLL_S = 0.1
LOAD_TIMEOUT_S = 600.0

ProgressCallback = Callable[["LossProgress"], None]
StopCheck = Callable[[], bool]


@dataclass(frozen=True)
class LossSettings:
    """``ctx``: chunk length in tokens (half context, half scored); ``top_k``: reference
    tokens kept per position; ``max_seconds``: the whole measurement's time budget."""

    ctx: int = 512
    top_k: int = 32
    n_threads: int | None = None
    n_gpu_layers: int = 0
    max_seconds: float | None = None

    def __post_init__(self) -> None:
        check_ctx(self.ctx)
        if not 1 <= self.top_k <= 256:
            raise QualityError("The reference keeps 1 to 256 tokens per position.")
        if self.max_seconds is not None and self.max_seconds <= 0:
            raise QualityError("The time budget must be positive.")


@dataclass(frozen=True)
class LossProgress:
    """After each chunk: ``phase`` and its chunks ``done`` of ``total``; ``result`` the running
    figures (model phase only)."""

    phase: Literal["vocabulary", "reference", "model"]
    done: int
    total: int
    elapsed_s: float
    result: LossResult | None = None


@dataclass(frozen=True)
class Vocabulary:
    digest: str
    n_vocab: int
    bos: int | None


# --------------------------------------------------------------------------- a worker


@contextmanager
def _worker(
    path: Path, settings: LossSettings, ctx: int
) -> Iterator[tuple[EngineClient, p.Loaded]]:
    """One worker with ``path`` loaded for chunks of ``ctx`` tokens (one decode per chunk)."""
    client = EngineClient()
    client.start()
    try:
        loaded = client.load_model(
            path,
            timeout=LOAD_TIMEOUT_S,
            n_ctx=ctx,
            n_batch=ctx,
            n_threads=settings.n_threads,
            n_gpu_layers=settings.n_gpu_layers,
        )
        yield client, loaded
    finally:
        client.close()


def _vocabulary(client: EngineClient, loaded: p.Loaded) -> Vocabulary:
    event = client.tokenize("", add_bos=True, vocab_digest=True).result(LOAD_TIMEOUT_S)
    assert isinstance(event, p.Tokenized)
    ids = decode_ints(event.tokens)
    bos = int(ids[0]) if loaded.has_bos and ids.size else None
    return Vocabulary(event.vocab_digest, event.n_vocab, bos)


def _tokens(client: EngineClient, text: EvalText) -> np.ndarray:
    event = client.tokenize(text.text, add_bos=False).result(LOAD_TIMEOUT_S)
    assert isinstance(event, p.Tokenized)
    return decode_ints(event.tokens)


def _run(client: EngineClient, request: Request, should_stop: StopCheck) -> p.Event:
    """Wait for ``request``, asking the worker to cancel it when ``should_stop``."""
    asked = False
    while not request.done:
        request.wait(POLL_S)
        if not asked and should_stop():
            client.cancel(request.id)
            asked = True
    return request.wait()


def model_vocabulary(path: Path, settings: LossSettings) -> Vocabulary:
    """Load ``path`` briefly and read its vocabulary's identity."""
    with _worker(path, settings, settings.ctx) as (client, loaded):
        return _vocabulary(client, loaded)


# --------------------------------------------------------------------------- reference pass


def make_pack(
    reference: Path,
    text: EvalText,
    settings: LossSettings,
    *,
    label: str,
    on_progress: ProgressCallback | None = None,
    should_stop: StopCheck = lambda: False,
    budget_s: float | None = None,
    model: tuple[str, Vocabulary] | None = None,
) -> ReferencePack:
    """Evaluate ``text`` with the reference and keep its top tokens. With a budget or a stop,
    the pack holds the chunks done (at least one). ``model``: the label and vocabulary of the
    model to be scored, checked before any chunk is evaluated."""
    started = time.monotonic()
    with _worker(reference, settings, settings.ctx) as (client, loaded):
        vocab = _vocabulary(client, loaded)
        if model is not None and model[1].digest != vocab.digest:
            raise _tokenizer_mismatch(model[0], model[1], label, vocab.n_vocab, "gguf")
        plan = plan_chunks(_tokens(client, text), settings.ctx, vocab.bos, title=text.title)
        first, n_out, k = plan.first_output, plan.n_outputs, settings.top_k
        target = np.zeros((plan.n_chunks, n_out), np.float32)
        top_ids = np.zeros((plan.n_chunks, n_out, k), np.int32)
        top_lp = np.zeros((plan.n_chunks, n_out, k), np.float32)
        rest = np.zeros((plan.n_chunks, n_out), np.float32)
        done = 0
        chunk_s: list[float] = []
        for i in range(plan.n_chunks):
            if done and _out_of_time(started, budget_s, chunk_s):
                break
            t = time.monotonic()
            chunk = encode_ints(plan.tokens[i])
            event = _run(client, client.evaluate(chunk, first, n_out, top_k=k), should_stop)
            if _stopped(event):
                if done:
                    break
                raise Cancelled("The measurement was stopped before the first chunk ended.")
            scores = unpack_scores(_evaluated(event).data, n_out, k, 0)
            target[i], top_ids[i], top_lp[i], rest[i] = (
                scores.target_lp,
                scores.topk_ids,
                scores.topk_lp,
                scores.topk_rest_lp,
            )
            done += 1
            chunk_s.append(time.monotonic() - t)
            if on_progress is not None:
                on_progress(
                    LossProgress("reference", done, plan.n_chunks, time.monotonic() - started)
                )
            if should_stop():
                break
    header = new_header(
        tokenizer=vocab.digest,
        n_vocab=vocab.n_vocab,
        reference=label,
        reference_file=reference.name,
        reference_bytes=reference.stat().st_size,
        text=text.name,
        text_sha256=text.sha256,
        ctx=settings.ctx,
        first_output=first,
        n_outputs=n_out,
        top_k=k,
        chunks=done,
        chunks_planned=plan.n_chunks,
    )
    return ReferencePack(
        header, plan.tokens[:done].copy(), target[:done], top_ids[:done], top_lp[:done], rest[:done]
    )


def cached_pack_path(reference: Path, text: EvalText, settings: LossSettings) -> Path:
    """Where the pack of ``reference`` on ``text`` is cached (complete packs only)."""
    st = reference.stat()
    key = f"{reference.resolve()}|{st.st_size}|{st.st_mtime_ns}|{text.sha256}|"
    key += f"{settings.ctx}|{settings.top_k}|{FORMAT}"
    name = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
    return cache_dir() / "quality" / "packs" / f"{name}{SUFFIX}"


def _out_of_time(started: float, budget_s: float | None, chunk_s: list[float]) -> bool:
    """True when the next chunk (as long as the mean so far) would end past the budget."""
    if budget_s is None:
        return False
    expected = sum(chunk_s) / len(chunk_s) if chunk_s else 0.0
    return time.monotonic() - started + expected > budget_s


def _stopped(event: p.Event) -> bool:
    if isinstance(event, p.Done) and event.finish_reason == "cancelled":
        return True
    return isinstance(event, p.Error) and event.kind == "cancelled"


def _evaluated(event: p.Event) -> p.Evaluated:
    if isinstance(event, p.Error):
        raise WorkerError(event)
    if not isinstance(event, p.Evaluated):
        raise QualityError(f"The engine answered an evaluation with '{event.type}'.")
    return event


# --------------------------------------------------------------------------- model pass


def score_against_pack(
    model: Path,
    pack: ReferencePack,
    settings: LossSettings,
    *,
    model_label: str,
    reference_path: str,
    reference_kind: Literal["gguf", "pack"],
    on_progress: ProgressCallback | None = None,
    should_stop: StopCheck = lambda: False,
    budget_s: float | None = None,
) -> LossResult:
    """Evaluate the pack's chunks with ``model`` and score each against the pack."""
    h = pack.header
    with _worker(model, settings, h.ctx) as (client, loaded):
        vocab = _vocabulary(client, loaded)
        if vocab.digest != h.tokenizer:
            raise _tokenizer_mismatch(model_label, vocab, h.reference, h.n_vocab, reference_kind)
        about = {
            "model": model_label,
            "model_path": str(model),
            "reference": h.reference,
            "reference_path": reference_path,
            "reference_kind": reference_kind,
            "text": h.text,
            "text_sha256": h.text_sha256,
            "ctx": h.ctx,
            "top_k": h.top_k,
        }
        stats: list[ChunkStats] = []
        klds: list[np.ndarray] = []
        chunk_s: list[float] = []
        started = time.monotonic()
        stopped: Stopped | None = None
        result: LossResult | None = None
        for i in range(h.chunks):
            if stats and _out_of_time(started, budget_s, chunk_s):
                stopped = "budget"
                break
            t = time.monotonic()
            chunk, gather = encode_ints(pack.tokens[i]), encode_ints(pack.top_ids[i])
            request = client.evaluate(
                chunk, h.first_output, h.n_outputs, gather=gather, gather_width=h.top_k
            )
            event = _run(client, request, should_stop)
            if _stopped(event):
                if not stats:
                    raise Cancelled("The measurement was stopped before the first chunk ended.")
                stopped = "cancelled"
                break
            scores = unpack_scores(_evaluated(event).data, h.n_outputs, 0, h.top_k)
            one, per_position = chunk_stats(
                pack.target_lp[i], pack.top_ids[i], pack.top_lp[i], pack.rest_lp[i], scores
            )
            stats.append(one)
            klds.append(per_position)
            chunk_s.append(time.monotonic() - t)
            result = summarize(
                stats,
                np.concatenate(klds),
                seconds=sum(chunk_s),
                tokens_evaluated=len(stats) * (h.first_output + h.n_outputs),
                chunks_planned=h.chunks_planned,
                stopped=None,
                **about,
            )
            if on_progress is not None:
                on_progress(
                    LossProgress("model", len(stats), h.chunks, time.monotonic() - started, result)
                )
            if should_stop() and i + 1 < h.chunks:
                stopped = "cancelled"
                break
        if stopped is None and h.chunks < h.chunks_planned:
            stopped = "budget"  # the pack itself was cut short
        assert result is not None
        return summarize(
            stats,
            np.concatenate(klds),
            seconds=result.seconds,
            tokens_evaluated=result.tokens_evaluated,
            chunks_planned=h.chunks_planned,
            stopped=stopped,
            **about,
        )


def _tokenizer_mismatch(
    model: str, vocab: Vocabulary, reference: str, ref_vocab: int, kind: str
) -> QualityError:
    if kind == "pack":
        return QualityError(
            f"This reference pack was made with another tokenizer ({reference}, {ref_vocab} "
            f"tokens) than {model}'s ({vocab.n_vocab} tokens); make a pack with a model of the "
            "same family.",
            kind="quality.pack_tokenizer",
        )
    return QualityError(
        f"{model} ({vocab.n_vocab} tokens) and the reference {reference} ({ref_vocab} tokens) "
        "have different vocabularies; KL divergence compares the same tokens, so the reference "
        "must use the same tokenizer.",
        kind="quality.vocab_mismatch",
    )


# --------------------------------------------------------------------------- both


def measure_loss(
    model: Path,
    reference: Path,
    text: EvalText | None,
    settings: LossSettings,
    *,
    model_label: str,
    reference_label: str,
    on_progress: ProgressCallback | None = None,
    should_stop: StopCheck = lambda: False,
) -> LossResult:
    """``model`` against ``reference``: a GGUF file (its pack made or taken from the cache) or
    a reference pack (``text`` is then the pack's own and may be None)."""
    started = time.monotonic()
    budget = settings.max_seconds
    if reference.suffix.lower() != ".gguf" or _is_pack(reference):
        pack = read_pack(reference)
        return score_against_pack(
            model,
            pack,
            settings,
            model_label=model_label,
            reference_path=str(reference),
            reference_kind="pack",
            on_progress=on_progress,
            should_stop=should_stop,
            budget_s=budget,
        )
    if text is None:
        raise QualityError("A reference model needs a text to evaluate.", kind="quality.text")
    cached = cached_pack_path(reference, text, settings)
    found = _read_cached(cached)
    if found is not None:
        pack = found
    else:
        if on_progress is not None:
            on_progress(LossProgress("vocabulary", 0, 1, 0.0))
        ours = model_vocabulary(model, settings)
        share = None
        if budget is not None:
            ref_bytes, model_bytes = reference.stat().st_size, model.stat().st_size
            share = budget * ref_bytes / max(1, ref_bytes + model_bytes)
        pack = make_pack(
            reference,
            text,
            settings,
            label=reference_label,
            on_progress=on_progress,
            should_stop=should_stop,
            budget_s=share,
            model=(model_label, ours),
        )
        if pack.complete:
            write_pack(pack, cached)
        if should_stop():
            raise Cancelled("The measurement was stopped during the reference pass.")
    remaining = None if budget is None else max(1.0, budget - (time.monotonic() - started))
    return score_against_pack(
        model,
        pack,
        settings,
        model_label=model_label,
        reference_path=str(reference),
        reference_kind="gguf",
        on_progress=on_progress,
        should_stop=should_stop,
        budget_s=remaining,
    )


def _is_pack(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(8) == b"LLMSCOUT"
    except OSError:
        return False


def _read_cached(path: Path) -> ReferencePack | None:
    if not path.is_file():
        return None
    try:
        return read_pack(path)
    except QualityError:
        path.unlink(missing_ok=True)  # a damaged cache entry is made again
        return None
