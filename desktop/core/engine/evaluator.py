"""The worker's quality commands: tokenize, evaluate logits, quantize a file.

Runs inside the engine worker on the loaded ``llama_cpp.Llama`` through llama.cpp's low-level
API: a batch of token ids goes through ``llama_decode`` with logits requested only for the
positions that are scored, and each block of logits is scored with NumPy
(:func:`~desktop.core.engine.logits.score_rows`) straight from llama.cpp's buffer before the
next decode. A chunk is one or a few decodes: the positions before the scored ones in as few
decodes as the batch size allows, the scored ones in blocks whose logits take at most
:data:`LOGITS_BUDGET_BYTES` (so a 262k-token vocabulary does not need gigabytes). Scoring works
on slices of :data:`SCORE_BLOCK_BYTES`, small enough to stay in the CPU's cache.

The KV cache is llama-cpp-python's too: after an evaluation its record of what the cache holds
is reset, so a later ``generate`` evaluates its prompt afresh. ``keep_prefix`` reuses the cache
for the prefix an evaluation shares with the previous one.

Quantization calls ``llama_model_quantize`` and reports progress from llama.cpp's own log lines
(``[  12/ 272] blk.0.attn_k.weight ...``); it cannot be interrupted (the app kills the worker).
"""

from __future__ import annotations

import ctypes
import hashlib
import re
import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from desktop.core.engine import protocol as p
from desktop.core.engine.cpu_threads import default_threads
from desktop.core.engine.loadcheck import LoadFailure, check_model_file
from desktop.core.engine.logits import (
    Scores,
    concat_scores,
    decode_ints,
    encode_ints,
    pack_scores,
    score_rows,
)
from desktop.core.engine.worker_support import LlamaLog, ProgressThrottle

LOGITS_BUDGET_BYTES = 128 << 20  # llama.cpp's logits buffer for one decode's scored positions
SCORE_BLOCK_BYTES = 2 << 20  # rows scored at a time (NumPy scratch), about an L2 cache
MAX_TOP_K = 256

_TENSOR_LINE = re.compile(rb"\[\s*(\d+)\s*/\s*(\d+)\s*\]\s+(\S+)")
_FALLBACK_LINE = re.compile(rb"(\d+) of (\d+) tensor\(s\) required fallback quantization")


class Evaluator:
    """Holds the batch buffer and what the KV cache holds between evaluations."""

    def __init__(self, llama_cpp: Any, llama_log: LlamaLog) -> None:
        self._lc = llama_cpp
        self._log = llama_log
        self._batch: Any = None
        self._batch_size = 0
        self._held: list[int] = []
        self._held_for: int | None = None  # id() of the Llama whose cache _held describes
        self._digests: dict[int, str] = {}
        self._scratch = np.empty(0, np.float32)

    def close(self) -> None:
        if self._batch is not None:
            self._lc.llama_batch_free(self._batch)
            self._batch = None
            self._batch_size = 0

    # -- tokenize ---------------------------------------------------------------------------

    def tokenize(self, llm: Any, cmd: p.Tokenize) -> p.Event:
        tokens: list[int] = llm.tokenize(cmd.text.encode("utf-8"), add_bos=False, special=False)
        bos = llm.token_bos()
        if cmd.add_bos and llm._model.add_bos_token() and bos != -1:
            tokens.insert(0, bos)
        digest = self.vocab_digest(llm) if cmd.vocab_digest else ""
        return p.Tokenized(cmd.id, encode_ints(tokens), len(tokens), int(llm.n_vocab()), digest)

    def vocab_digest(self, llm: Any) -> str:
        """sha256 over the vocabulary: its size, every token's text, attributes and the special
        tokens' ids. Equal digests: the same ids mean the same tokens."""
        key = id(llm)
        if key in self._digests:
            return self._digests[key]
        lc = self._lc
        vocab = llm._model.vocab
        n = int(lc.llama_vocab_n_tokens(vocab))
        h = hashlib.sha256(f"llama-vocab {n} {lc.llama_vocab_type(vocab)}\n".encode())
        get_text, get_attr = lc.llama_vocab_get_text, lc.llama_vocab_get_attr
        pack = struct.Struct("<iI").pack
        for i in range(n):
            text = get_text(vocab, i) or b""
            h.update(pack(len(text), int(get_attr(vocab, i)) & 0xFFFFFFFF))
            h.update(text)
        digest = h.hexdigest()
        self._digests = {key: digest}
        return digest

    # -- evaluate ---------------------------------------------------------------------------

    def evaluate(self, llm: Any, cmd: p.Evaluate, cancelled: Callable[[], bool]) -> p.Event:
        started = time.perf_counter()
        problem, tokens, gather = self._check(llm, cmd)
        if problem is not None:
            return p.Error(cmd.id, "invalid_request", problem)
        assert tokens is not None
        lc = self._lc
        n_vocab = int(llm.n_vocab())
        first, n_out = cmd.first_output, cmd.n_outputs
        end = first + n_out  # tokens [0, end) go through the model
        if self._held_for != id(llm) or int(llm.n_tokens) != 0:
            self._held = []  # another model, or a generate ran since: the cache is not ours
        common = 0
        if cmd.keep_prefix:
            for held, token in zip(self._held, tokens[:first], strict=False):
                if held != token:
                    break
                common += 1
        memory = lc.llama_get_memory(llm.ctx)
        if common == 0 or not lc.llama_memory_seq_rm(memory, 0, common, -1):
            lc.llama_memory_clear(memory, True)
            common = 0
        llm.reset()  # llama-cpp-python's record of the cache no longer holds
        self._held, self._held_for = [], id(llm)
        n_batch = max(1, int(lc.llama_n_batch(llm.ctx)))
        rows_cap = max(1, min(n_batch, LOGITS_BUDGET_BYTES // (4 * n_vocab)))
        block = max(1, SCORE_BLOCK_BYTES // (4 * n_vocab))
        if self._scratch.size < block * n_vocab:
            self._scratch = np.empty(block * n_vocab, np.float32)
        token_view, pos_view, logit_view = self._batch_views(n_batch)
        targets = np.full(n_out, -1, np.int32)
        targets[: max(0, min(n_out, len(tokens) - first - 1))] = tokens[
            first + 1 : first + 1 + n_out
        ]
        parts: list[Scores] = []
        decode_s = 0.0
        start = common
        while start < end:
            stop = min(end, start + n_batch)
            stop = min(stop, max(start, first) + rows_cap)  # at most rows_cap outputs
            count = stop - start
            token_view[:count] = tokens[start:stop]
            pos_view[:count] = np.arange(start, stop, dtype=np.int32)
            logit_view[:count] = np.arange(start, stop) >= first
            self._batch.n_tokens = count
            t = time.perf_counter()
            status = int(lc.llama_decode(llm.ctx, self._batch))
            decode_s += time.perf_counter() - t
            if status != 0:
                lc.llama_memory_clear(memory, True)
                if status == 2 or cancelled():
                    return p.Error(cmd.id, "cancelled", "The evaluation was cancelled.")
                return p.Error(
                    cmd.id,
                    "generation_failed",
                    f"llama.cpp could not evaluate the tokens (llama_decode returned {status}).",
                    self._log.tail(),
                )
            outputs = stop - max(start, first)
            if outputs > 0:
                row0 = max(start, first) - first
                logits = np.ctypeslib.as_array(
                    lc.llama_get_logits(llm.ctx), shape=(outputs, n_vocab)
                )
                for r in range(0, outputs, block):
                    rows = slice(row0 + r, row0 + min(outputs, r + block))
                    parts.append(
                        score_rows(
                            logits[r : r + block],
                            targets[rows],
                            top_k=cmd.top_k,
                            gather=None if gather is None else gather[rows],
                            scratch=self._scratch,
                        )
                    )
            start = stop
            if cancelled():
                lc.llama_memory_clear(memory, True)
                return p.Error(cmd.id, "cancelled", "The evaluation was cancelled.")
        self._held = [int(t) for t in tokens[:end]]
        scores = concat_scores(parts, cmd.top_k, cmd.gather_width)
        return p.Evaluated(
            id=cmd.id,
            n_tokens=len(tokens),
            n_evaluated=end - common,
            n_outputs=n_out,
            top_k=cmd.top_k,
            gather_width=cmd.gather_width,
            data=pack_scores(scores),
            decode_ms=decode_s * 1000.0,
            total_ms=(time.perf_counter() - started) * 1000.0,
        )

    def _check(
        self, llm: Any, cmd: p.Evaluate
    ) -> tuple[str | None, np.ndarray[Any, Any] | None, np.ndarray[Any, Any] | None]:
        """(problem, tokens, gather ids shaped (n_outputs, width)); the problem as a sentence."""
        try:
            tokens = decode_ints(cmd.tokens)
            gather_ids = decode_ints(cmd.gather) if cmd.gather else None
        except ValueError:
            return "The token ids are not base64 of int32 values.", None, None
        n, n_vocab = len(tokens), int(llm.n_vocab())
        n_ctx = min(int(llm.n_ctx()), len(llm.input_ids))
        if n == 0:
            return "There are no tokens to evaluate.", None, None
        if n > n_ctx:
            return (
                f"{n} tokens do not fit the context of {n_ctx}; load with a larger context.",
                None,
                None,
            )
        if int(tokens.min()) < 0 or int(tokens.max()) >= n_vocab:
            return f"A token id is outside the model's vocabulary of {n_vocab}.", None, None
        first, n_out = cmd.first_output, cmd.n_outputs
        if first < 0 or n_out < 1 or first + n_out > n:
            return (
                f"Positions {first} to {first + n_out - 1} are not all among {n} tokens.",
                None,
                None,
            )
        if not 0 <= cmd.top_k <= min(MAX_TOP_K, n_vocab):
            return f"top_k must be 0 to {min(MAX_TOP_K, n_vocab)}.", None, None
        gather = None
        if gather_ids is not None or cmd.gather_width:
            width = cmd.gather_width
            if gather_ids is None or width < 1 or gather_ids.size != width * n_out:
                return f"gather needs {n_out} x gather_width token ids.", None, None
            if int(gather_ids.min()) < 0 or int(gather_ids.max()) >= n_vocab:
                return f"A gathered id is outside the model's vocabulary of {n_vocab}.", None, None
            gather = gather_ids.reshape(n_out, width)
        return None, tokens, gather

    def _batch_views(self, n_batch: int) -> tuple[Any, Any, Any]:
        """NumPy views of the batch's token, position and logits-flag arrays (sequence 0)."""
        lc = self._lc
        if self._batch is None or self._batch_size < n_batch:
            self.close()
            self._batch = lc.llama_batch_init(n_batch, 0, 1)
            self._batch_size = n_batch
            for i in range(n_batch):
                self._batch.n_seq_id[i] = 1
                self._batch.seq_id[i][0] = 0
        size = self._batch_size
        token = np.ctypeslib.as_array(self._batch.token, shape=(size,))
        pos = np.ctypeslib.as_array(self._batch.pos, shape=(size,))
        flags = np.ctypeslib.as_array(
            ctypes.cast(self._batch.logits, ctypes.POINTER(ctypes.c_int8)), shape=(size,)
        )
        return token, pos, flags

    # -- quantize ---------------------------------------------------------------------------

    def quantize(self, cmd: p.Quantize, send: Callable[[p.Event], None]) -> p.Event:
        lc = self._lc
        source = Path(cmd.source)
        try:
            check_model_file(source)
        except LoadFailure as exc:
            return p.Error(cmd.id, exc.kind, str(exc))
        state: dict[str, Any] = {"tensor": "", "n": 0, "fallback": 0}
        progress = ProgressThrottle(
            lambda fraction: send(p.QuantizeProgress(cmd.id, fraction, state["tensor"]))
        )

        def listen(text: bytes) -> None:
            match = _TENSOR_LINE.search(text)
            if match:
                done, total = int(match.group(1)), int(match.group(2))
                state["tensor"] = match.group(3).decode("utf-8", "replace")
                state["n"] = total
                if total > 0:
                    progress.update(min(1.0, max(0.0, (done - 1) / total)))
            fallback = _FALLBACK_LINE.search(text)
            if fallback:
                state["fallback"] = int(fallback.group(1))

        params = lc.llama_model_quantize_default_params()
        params.ftype = cmd.ftype
        params.allow_requantize = cmd.allow_requantize
        params.pure = cmd.pure
        params.nthread = default_threads(cmd.n_threads)
        self._log.mark()
        started = time.perf_counter()
        self._log.listener = listen
        try:
            status = int(
                lc.llama_model_quantize(
                    str(source).encode("utf-8"), cmd.output.encode("utf-8"), ctypes.byref(params)
                )
            )
        finally:
            self._log.listener = None
        if status != 0:
            return p.Error(
                cmd.id, "quantize_failed", _quantize_failure(self._log.tail(12)), self._log.tail()
            )
        progress.finish()
        output = Path(cmd.output)
        return p.Quantized(
            id=cmd.id,
            output=str(output),
            source_bytes=source.stat().st_size,
            output_bytes=output.stat().st_size if output.exists() else 0,
            elapsed_ms=(time.perf_counter() - started) * 1000.0,
            n_tensors=int(state["n"]),
            fallback_tensors=int(state["fallback"]),
        )


def _quantize_failure(tail: str) -> str:
    """One sentence from llama.cpp's last words about a failed quantization."""
    for line in reversed(tail.splitlines()):
        text = line.strip()
        if "failed to quantize" in text:
            reason = text.split("failed to quantize:", 1)[-1].strip().rstrip(".")
            return f"llama.cpp could not quantize the file: {reason}."
    return "llama.cpp could not quantize the file (its log says more)."
