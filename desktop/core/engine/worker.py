"""The engine worker: one llama.cpp model in its own process.

Started as ``python -m desktop.core.engine.worker`` or, in a frozen build, as the app's own
executable with ``--engine-worker`` (``desktop/entry.py`` routes that flag here). It reads protocol
commands (``desktop.core.engine.protocol``) as JSON lines on stdin and writes events on stdout.
stdout carries protocol lines only: before llama.cpp is imported the real stdout is duplicated
for the protocol and file descriptor 1 is pointed at stderr, so nothing llama.cpp or Python
prints can corrupt the stream. stderr is llama.cpp's log; the client keeps its tail.

Threads: a reader thread parses commands, handles ``cancel`` at once (it sets a flag the token
loop checks and a byte llama.cpp's abort callback reads inside a decode, so a long prompt stops
within one graph node) and queues the rest; the main thread runs them in order.

Generation renders chat messages with the model's template (``templates.py``) under a time and
memory limit that Stop also ends (``render_limits.py``), evaluates the prompt, then samples
token by token with llama-cpp-python's sampler chain (the same tokens as
``Llama.create_completion`` for the same seed). Token bytes become text through
:class:`~desktop.core.engine.textstream.TextStream` (whole UTF-8 characters, stop strings cut);
text goes out in batches every 40 ms, the first token at once. A load reports llama.cpp's
progress as ``load_progress`` events (throttled, 1.0 always last, before ``loaded``).

The worker ends when the process that started it ends, even in the middle of a render or a
decode (:func:`~desktop.core.engine.worker_support.end_with_parent`), and when its stdin closes.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import logging
import os
import queue
import random
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop.core.engine import protocol as p
from desktop.core.engine.cpu_threads import default_threads, physical_cores
from desktop.core.engine.loadcheck import LoadFailure, check_model_file, classify_load_failure
from desktop.core.engine.prompt import (
    prompt_tokens,
    render_messages,
    reusable_prefix,
    stop_strings,
    typed_metadata,
)
from desktop.core.engine.render_limits import (
    RenderCancelled,
    RenderGuard,
    RenderLimits,
    RenderTimeout,
)
from desktop.core.engine.textstream import TextStream
from desktop.core.engine.worker_support import (
    AbortFlag,
    EventWriter,
    LlamaLog,
    ProgressThrottle,
    claim_stdout,
    end_with_parent,
    limit_address_space,
    load_progress_hook,
    lower_priority,
    parent_pid_from_env,
    release_free_memory,
    without_chat_handlers,
)
from desktop.core.kv_cache import GGML_TYPE_IDS

log = logging.getLogger(__name__)

BATCH_INTERVAL_S = 0.04
# A rendered prompt longer than this many characters per context token cannot fit the context
# (no tokenizer packs more into a token): the render stops there, before it costs more.
MAX_CHARS_PER_TOKEN = 256
MIN_PROMPT_CHARS = 1024 * 1024


# --------------------------------------------------------------------------- the worker


class Worker:
    """Runs commands in order on the calling thread; :meth:`submit` is called by the reader."""

    def __init__(
        self,
        writer: EventWriter,
        llama_cpp: Any,
        llama_log: LlamaLog,
        render_limits: RenderLimits | None = None,
    ) -> None:
        self.send = writer.send
        self._lc = llama_cpp  # the low-level module, llama_cpp.llama_cpp
        self._llama_log = llama_log
        self._queue: queue.Queue[p.Command | None] = queue.Queue()
        self._lock = threading.Lock()
        self._active: str | None = None
        self._pending: set[str] = set()
        self._cancelled: set[str] = set()
        self._cancel = threading.Event()
        self._shutdown = threading.Event()
        self._abort = AbortFlag(llama_cpp)
        self._llm: Any = None
        self._template: Any = None
        self._stops: tuple[str, ...] = ()
        self._piece_buffer = ctypes.create_string_buffer(64)
        self._cached = 0
        self._evaluator: Any = None  # the quality commands' state (evaluator.py), on first use
        self._guard = RenderGuard(render_limits)

    # -- reader thread side -------------------------------------------------------------

    def submit(self, command: p.Command | None) -> None:
        """Queue a command (``None``: stdin closed). Cancel and shutdown act at once."""
        if command is None or isinstance(command, p.Shutdown):
            self.stop()
            self._queue.put(command)
            return
        if isinstance(command, p.Cancel):
            self.cancel(command.id)
            return
        with self._lock:
            self._pending.add(command.id)
        self._queue.put(command)

    def cancel(self, request_id: str) -> None:
        with self._lock:
            if request_id == self._active:
                self._cancel.set()
                self._abort.set()
            elif request_id in self._pending:
                self._cancelled.add(request_id)

    def stop(self) -> None:
        """Shutdown or a lost client: stop what runs; queued commands end as cancelled."""
        with self._lock:
            self._shutdown.set()
            self._cancel.set()
            self._abort.set()

    # -- main thread ----------------------------------------------------------------------

    def run(self) -> None:
        while True:
            command = self._queue.get()
            if command is None or isinstance(command, p.Shutdown):
                break
            with self._lock:
                self._pending.discard(command.id)
                skip = command.id in self._cancelled or self._shutdown.is_set()
                self._cancelled.discard(command.id)
                if not skip:
                    self._active = command.id
                    self._cancel.clear()
                    self._abort.clear()
            try:
                if skip:
                    self._answer_cancelled(command)
                else:
                    self._dispatch(command)
            except Exception as exc:  # a request must never stay unanswered
                log.exception("command %s failed", command.type)
                self.send(
                    p.Error(
                        command.id,
                        "load_failed" if isinstance(command, p.Load) else "generation_failed",
                        f"The engine failed unexpectedly: {type(exc).__name__}: {exc}.",
                        self._llama_log.tail(),
                    )
                )
            finally:
                with self._lock:
                    self._active = None
        self._close_model()

    def _dispatch(self, command: p.Command) -> None:
        if isinstance(command, p.Load):
            self._load(command)
        elif isinstance(command, p.Generate):
            self._generate(command, time.perf_counter())
        elif isinstance(command, p.Unload):
            self._close_model()
            self.send(p.Done(command.id, "unloaded"))
        elif isinstance(command, (p.Tokenize, p.Evaluate, p.Quantize)):
            self._quality(command)

    def _quality(self, command: p.Tokenize | p.Evaluate | p.Quantize) -> None:
        """Tokenize, evaluate logits or quantize a file (``evaluator.py``)."""
        from desktop.core.engine.evaluator import Evaluator

        if self._evaluator is None:
            self._evaluator = Evaluator(self._lc, self._llama_log)
        evaluator = self._evaluator
        if isinstance(command, p.Quantize):
            self.send(evaluator.quantize(command, self.send))
        elif self._llm is None:
            self.send(p.Error(command.id, "not_loaded", "No model is loaded; load one first."))
        elif isinstance(command, p.Tokenize):
            self.send(evaluator.tokenize(self._llm, command))
        else:
            self.send(evaluator.evaluate(self._llm, command, self._cancel.is_set))

    def _answer_cancelled(self, command: p.Command) -> None:
        if isinstance(command, p.Load):
            self.send(p.Error(command.id, "cancelled", "Loading the model was cancelled."))
        elif isinstance(command, p.Unload):
            self.send(p.Done(command.id, "unloaded"))
        else:
            self.send(p.Done(command.id, "cancelled"))

    # -- load -----------------------------------------------------------------------------

    def _load(self, cmd: p.Load) -> None:
        from llama_cpp import Llama

        from desktop.core.engine.templates import TemplateError, choose_template

        self._close_model()
        path = Path(cmd.path)
        try:
            check_model_file(path)
            if cmd.template:  # a bad override fails before the load
                override = cmd.template
                self._guard.run(lambda: choose_template({}, "", override), self._cancel.is_set)
        except LoadFailure as exc:
            self.send(p.Error(cmd.id, exc.kind, str(exc)))
            return
        except (TemplateError, RenderTimeout) as exc:
            self.send(p.Error(cmd.id, "invalid_request", _template_sentence(exc)))
            return
        except RenderCancelled:
            self.send(p.Error(cmd.id, "cancelled", "Loading the model was cancelled."))
            return
        if cmd.n_ctx > p.MAX_CTX:
            self.send(p.Error(cmd.id, "invalid_request", p.too_long_context(cmd.n_ctx)))
            return
        if cmd.cache_type != "f16" and not cmd.flash_attn:
            self.send(
                p.Error(
                    cmd.id,
                    "invalid_request",
                    f"A {cmd.cache_type} KV cache needs flash attention: llama.cpp cannot "
                    "create a quantized V cache without it.",
                )
            )
            return
        if cmd.rpc_servers and not self._add_rpc_servers(cmd):
            return
        # f16 is llama.cpp's default: left unset, as it was before cache types existed.
        cache = GGML_TYPE_IDS[cmd.cache_type] if cmd.cache_type != "f16" else None
        offload = bool(self._lc.llama_supports_gpu_offload())
        n_gpu_layers = cmd.n_gpu_layers if offload else 0
        if cmd.n_gpu_layers != 0 and not offload:
            self.send(
                p.Log(
                    "warning",
                    "GPU offload is unavailable in this llama.cpp build (CPU only); "
                    "the model runs on the CPU.",
                )
            )
        threads = default_threads(cmd.n_threads)
        threads_batch = cmd.n_threads_batch or threads
        self._llama_log.mark()
        progress = ProgressThrottle(lambda fraction: self.send(p.LoadProgress(cmd.id, fraction)))
        started = time.perf_counter()
        try:
            with (
                load_progress_hook(self._lc, lambda: not self._cancel.is_set(), progress.update),
                without_chat_handlers(sys.modules["llama_cpp.llama"]),
            ):
                llm = Llama(
                    model_path=str(path),
                    n_ctx=cmd.n_ctx,
                    n_batch=cmd.n_batch,
                    n_threads=threads,
                    n_threads_batch=threads_batch,
                    n_gpu_layers=n_gpu_layers,
                    flash_attn=cmd.flash_attn,
                    type_k=cache,
                    type_v=cache,
                    verbose=True,
                )
        except (ValueError, RuntimeError, OSError, MemoryError) as exc:
            release_free_memory()
            if self._cancel.is_set():
                self.send(p.Error(cmd.id, "cancelled", "Loading the model was cancelled."))
                return
            failure = classify_load_failure(path, cmd.n_ctx, exc, self._llama_log.tail(400))
            self.send(p.Error(cmd.id, failure.kind, str(failure), self._llama_log.tail()))
            return
        load_ms = (time.perf_counter() - started) * 1000.0
        progress.finish()  # 1.0 before "loaded", whatever llama.cpp reported last
        self._llm = llm
        self._abort.attach(llm.ctx)
        metadata = typed_metadata(llm)
        architecture = str(metadata.get("general.architecture", ""))
        try:
            self._template = choose_template(metadata, architecture, cmd.template)
        except TemplateError as exc:
            self._close_model()
            self.send(p.Error(cmd.id, "invalid_request", str(exc)))
            return
        self._stops = stop_strings(self._template)
        lc = self._lc
        self.send(
            p.Loaded(
                id=cmd.id,
                load_ms=load_ms,
                path=str(path),
                architecture=architecture,
                description=llm._model.desc(),
                n_params=int(llm._model.n_params()),
                model_size_bytes=int(llm._model.size()),
                n_layer=int(lc.llama_model_n_layer(llm.model)),
                n_ctx=_usable_ctx(llm),
                n_ctx_train=int(lc.llama_model_n_ctx_train(llm.model)),
                n_vocab=int(llm.n_vocab()),
                n_threads=int(lc.llama_n_threads(llm.ctx)),
                n_threads_batch=int(lc.llama_n_threads_batch(llm.ctx)),
                n_gpu_layers=n_gpu_layers,
                n_gpu_layers_requested=cmd.n_gpu_layers,
                gpu_offload=offload,
                template_name=self._template.name,
                template_source=self._template.source,
                has_bos=bool(llm._model.add_bos_token()),
            )
        )

    def _add_rpc_servers(self, cmd: p.Load) -> bool:
        """Register the load's RPC servers with ggml (llama-cpp-python 0.3.36's Llama takes
        none); False after answering with an error."""
        from desktop.core.engine import rpc
        from desktop.core.errors import EngineError

        try:
            devices = rpc.add_servers(cmd.rpc_servers)
        except EngineError as exc:
            self.send(p.Error(cmd.id, "load_failed", str(exc)))
            return False
        names = ", ".join(
            f"{d.name} at {d.endpoint} ({d.free_bytes >> 20} MiB free)" for d in devices
        )
        self.send(p.Log("info", f"RPC devices: {names}."))
        if cmd.n_gpu_layers == 0:
            self.send(
                p.Log(
                    "warning",
                    "RPC servers are registered but n_gpu_layers is 0: every layer stays on "
                    "this machine's CPU (-1 offloads them all).",
                )
            )
        return True

    def _close_model(self) -> None:
        if self._evaluator is not None:
            self._evaluator.close()
        if self._llm is not None:
            self._llm.close()
            self._llm = None
            self._template = None
            release_free_memory()

    # -- generate -------------------------------------------------------------------------

    def _prompt(self, cmd: p.Generate) -> tuple[list[int], tuple[str, ...]]:
        """Prompt tokens and the template's stop strings (none for raw prompts). The template
        renders under the guard's limits: RenderTimeout, RenderCancelled, TemplateError."""
        if cmd.prompt_tokens:
            return list(cmd.prompt_tokens), ()
        if cmd.prompt is not None:
            return prompt_tokens(self._llm, cmd.prompt), ()
        messages = [{"role": m.role, "content": m.content} for m in cmd.messages]
        if cmd.system:
            messages.insert(0, {"role": "system", "content": cmd.system})
        llm, template = self._llm, self._template
        max_chars = max(MIN_PROMPT_CHARS, MAX_CHARS_PER_TOKEN * _usable_ctx(llm))
        text = self._guard.run(
            lambda: render_messages(llm, template, messages, max_chars), self._cancel.is_set
        )
        return prompt_tokens(llm, text), self._stops

    def _generate(self, cmd: p.Generate, t_start: float) -> None:
        from desktop.core.engine.templates import PromptTooLong, TemplateError

        llm = self._llm
        if llm is None:
            self.send(p.Error(cmd.id, "not_loaded", "No model is loaded; load one first."))
            return
        if sum((bool(cmd.messages), cmd.prompt is not None, bool(cmd.prompt_tokens))) != 1:
            self.send(
                p.Error(
                    cmd.id,
                    "invalid_request",
                    "A request needs exactly one of messages, a prompt or prompt tokens.",
                )
            )
            return
        n_ctx = _usable_ctx(llm)
        try:
            tokens, template_stops = self._prompt(cmd)
        except RenderCancelled:
            self.send(p.Done(cmd.id, "cancelled", total_ms=(time.perf_counter() - t_start) * 1e3))
            return
        except PromptTooLong as exc:
            self.send(
                p.Error(
                    cmd.id,
                    "context_overflow",
                    f"The prompt is longer than {exc.max_chars:,} characters, more than a "
                    f"context of {n_ctx} tokens can hold; use a larger context or a shorter "
                    "prompt.",
                )
            )
            return
        except (TemplateError, RenderTimeout) as exc:
            self.send(p.Error(cmd.id, "invalid_request", _template_sentence(exc)))
            return
        if not tokens:
            self.send(p.Error(cmd.id, "invalid_request", "The prompt is empty."))
            return
        if len(tokens) >= n_ctx:
            self.send(
                p.Error(
                    cmd.id,
                    "context_overflow",
                    f"The prompt is {len(tokens)} tokens long but the context holds {n_ctx}; "
                    "use a larger context or a shorter prompt.",
                )
            )
            return
        params = cmd.params
        room = n_ctx - len(tokens)
        max_tokens = min(params.max_tokens, room) if params.max_tokens > 0 else room
        llm.set_seed(params.seed if params.seed is not None else random.randrange(2**31))
        if not cmd.cache_prompt:
            llm.reset()
        self._cached = reusable_prefix(llm, tokens)
        self._lc.llama_perf_context_reset(llm.ctx)
        stops = params.stop + template_stops
        context_full = params.max_tokens <= 0 or params.max_tokens > room
        self._run_tokens(
            cmd,
            llm,
            tokens,
            max_tokens=max_tokens,
            stops=stops,
            t_start=t_start,
            limit_reason="context" if context_full else "length",
        )

    def _run_tokens(
        self,
        cmd: p.Generate,
        llm: Any,
        tokens: list[int],
        *,
        max_tokens: int,
        stops: Sequence[str],
        t_start: float,
        limit_reason: p.FinishReason = "length",
    ) -> None:
        params = cmd.params
        stream = TextStream(stops)
        vocab = llm._model.vocab
        is_eog = self._lc.llama_vocab_is_eog
        parts: list[str] = []
        batch_tokens = 0
        n_generated = 0
        t_first: float | None = None
        last_flush = 0.0
        finish: p.FinishReason = limit_reason
        failure: BaseException | None = None

        def flush() -> None:
            nonlocal batch_tokens, parts
            if batch_tokens or parts:
                self.send(p.Tokens(cmd.id, "".join(parts), batch_tokens))
            parts, batch_tokens = [], 0

        generator = llm.generate(
            tokens,
            top_k=params.top_k,
            top_p=params.top_p,
            min_p=params.min_p,
            temp=params.temperature,
            repeat_penalty=params.repeat_penalty,
        )
        try:
            for token in generator:
                now = time.perf_counter()
                if t_first is None:
                    t_first = now
                if not params.ignore_eos and is_eog(vocab, token):
                    finish = "stop"
                    break
                n_generated += 1
                batch_tokens += 1
                text = stream.feed(self._piece(vocab, token))
                if text:
                    parts.append(text)
                if stream.stopped:
                    finish = "stop"
                    break
                if n_generated == 1 or now - last_flush >= BATCH_INTERVAL_S:
                    flush()
                    last_flush = now
                if n_generated >= max_tokens:
                    break
                if self._cancel.is_set():
                    finish = "cancelled"
                    break
        except RuntimeError as exc:  # llama_decode failed, or was aborted by a cancel
            if self._cancel.is_set():
                finish = "cancelled"
            else:
                failure = exc
            llm.reset()
        except MemoryError as exc:
            failure = exc
            llm.reset()
        finally:
            generator.close()
        tail = stream.finish()
        if tail:
            parts.append(tail)
        flush()
        if failure is not None:
            kind = "out_of_memory" if isinstance(failure, MemoryError) else "generation_failed"
            self.send(
                p.Error(
                    cmd.id,
                    kind,
                    f"llama.cpp failed while generating: {failure}.",
                    self._llama_log.tail(),
                )
            )
            return
        perf = self._lc.llama_perf_context(llm.ctx)
        self.send(
            p.Done(
                id=cmd.id,
                finish_reason=finish,
                prompt_tokens=len(tokens),
                generated_tokens=n_generated,
                prompt_eval_ms=float(perf.t_p_eval_ms),
                eval_ms=float(perf.t_eval_ms),
                first_token_ms=None if t_first is None else (t_first - t_start) * 1000.0,
                total_ms=(time.perf_counter() - t_start) * 1000.0,
                cached_prompt_tokens=self._cached,
            )
        )

    def _piece(self, vocab: Any, token: int) -> bytes:
        buffer = self._piece_buffer
        n = self._lc.llama_token_to_piece(vocab, token, buffer, len(buffer), 0, False)
        if n < 0:
            buffer = self._piece_buffer = ctypes.create_string_buffer(-n)
            n = self._lc.llama_token_to_piece(vocab, token, buffer, len(buffer), 0, False)
        return buffer.raw[:n]


# --------------------------------------------------------------------------- entry point


def _read_commands(worker: Worker, writer: EventWriter, ready: threading.Event) -> None:
    ready.wait()  # the ready event goes out first
    for line in p.read_lines(sys.stdin.fileno()):
        if not line.strip():
            continue
        try:
            message = p.decode(line)
        except p.ProtocolError as exc:
            writer.send(p.Error(None, "protocol", str(exc)))
            continue
        if not isinstance(message, p.COMMAND_TYPES):
            reason = f"A worker takes commands, not '{message.type}' events."
            writer.send(p.Error(None, "protocol", reason))
            continue
        worker.submit(message)
    worker.submit(None)


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="llm-scout --engine-worker",
        description="LLM Scout engine worker: protocol commands on stdin, events on stdout.",
    )
    parser.add_argument(
        "--address-space-headroom",
        type=int,
        default=None,
        metavar="BYTES",
        help="limit the worker's address space to its size at start plus BYTES (POSIX)",
    )
    parser.add_argument(
        "--dry-run",
        default=None,
        metavar="SPEC",
        help="one no_alloc load (JSON settings): print llama.cpp's projected buffers and exit",
    )
    parser.add_argument(
        "--template-time-limit",
        type=float,
        default=RenderLimits.time_s,
        metavar="S",
        help="stop a chat template's render after S seconds (default %(default)s)",
    )
    parser.add_argument(
        "--template-memory-limit",
        type=int,
        default=RenderLimits.memory_bytes,
        metavar="BYTES",
        help="memory a chat template's render may add (POSIX; 0: no limit)",
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        metavar="N",
        help="run at a lower CPU priority (POSIX niceness N; below normal on Windows)",
    )
    return parser.parse_args(list(argv) if argv is not None else None)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.nice > 0:
        lower_priority(args.nice)  # before any thread starts: threads inherit it
    end_with_parent(parent_pid_from_env())  # before anything is loaded: an orphan loads nothing
    protocol_fd = claim_stdout()
    if args.dry_run is not None:
        from desktop.core.engine.dryrun import child_main

        return child_main(args.dry_run, protocol_fd)
    with contextlib.suppress(ValueError, AttributeError):
        import signal

        # Ctrl+C in a terminal reaches the whole process group; the client decides what stops.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="worker %(message)s")
    writer = EventWriter(protocol_fd)
    try:
        import llama_cpp
        import llama_cpp.llama_cpp as low_level
    except ImportError as exc:
        writer.send(p.Error(None, "engine_missing", f"llama-cpp-python is not installed ({exc})."))
        return 1
    llama_log = LlamaLog(low_level)
    limits = RenderLimits(args.template_time_limit, args.template_memory_limit)
    worker = Worker(writer, low_level, llama_log, limits)
    writer.on_broken = worker.stop
    ready_sent = threading.Event()
    # Started before the address-space limit applies: a thread's stack is address space too.
    reader = threading.Thread(
        target=_read_commands, args=(worker, writer, ready_sent), name="commands", daemon=True
    )
    reader.start()
    if args.address_space_headroom is not None:
        limit_address_space(args.address_space_headroom)
    writer.send(
        p.Ready(
            protocol_version=p.PROTOCOL_VERSION,
            pid=os.getpid(),
            llama_cpp_version=str(getattr(llama_cpp, "__version__", "")),
            gpu_offload=bool(low_level.llama_supports_gpu_offload()),
            physical_cores=physical_cores(),
            system_info=low_level.llama_print_system_info().decode("utf-8", "replace").strip(),
        )
    )
    ready_sent.set()
    worker.run()
    return 0


def _template_sentence(exc: Exception) -> str:
    if isinstance(exc, RenderTimeout):
        return (
            f"The chat template was stopped after {exc.seconds:g} s without finishing its "
            "render; choose another template."
        )
    return str(exc)


def _usable_ctx(llm: Any) -> int:
    """The context a request may fill. llama.cpp can round a small n_ctx up (16 -> 256), but
    llama-cpp-python sizes its token buffer by the n_ctx it was asked for: the smaller wins."""
    return min(int(llm.n_ctx()), len(llm.input_ids))


if __name__ == "__main__":
    sys.exit(main())
