"""The engine worker: one llama.cpp model in its own process.

Started as ``python -m desktop.core.engine.worker`` or, in a frozen build, as the app's own
executable with ``--engine-worker`` (``desktop/cli.py`` routes that flag here). It reads protocol
commands (``desktop.core.engine.protocol``) as JSON lines on stdin and writes events on stdout.
stdout carries protocol lines only: before llama.cpp is imported the real stdout is duplicated
for the protocol and file descriptor 1 is pointed at stderr, so nothing llama.cpp or Python
prints can corrupt the stream. stderr is llama.cpp's log; the client keeps its tail.

Threads: a reader thread parses commands, handles ``cancel`` at once (it sets a flag the token
loop checks and a byte llama.cpp's abort callback reads inside a decode, so a long prompt stops
within one graph node) and queues the rest; the main thread runs them in order.

Generation renders chat messages with the model's template (``templates.py``), evaluates the
prompt, then samples token by token with llama-cpp-python's sampler chain (the same tokens as
``Llama.create_completion`` for the same seed). Token bytes become text through
:class:`~desktop.core.engine.textstream.TextStream` (whole UTF-8 characters, stop strings cut);
text goes out in batches every 40 ms, the first token at once.
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
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from desktop.core.engine import protocol as p
from desktop.core.engine.loadcheck import LoadFailure, check_model_file, classify_load_failure
from desktop.core.engine.textstream import TextStream

log = logging.getLogger(__name__)

BATCH_INTERVAL_S = 0.04
LOG_TAIL_LINES = 200


def physical_cores() -> int:
    """Physical cores, the thread count llama.cpp runs best with (hyperthreads do not help)."""
    try:
        import psutil

        count = psutil.cpu_count(logical=False)
    except ImportError:  # pragma: no cover - psutil is a dependency
        count = None
    return max(1, count or os.cpu_count() or 1)


# --------------------------------------------------------------------------- output


class EventWriter:
    """Writes events to the protocol descriptor, one whole line at a time, from any thread."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()
        self.on_broken: Callable[[], None] = lambda: None
        self.broken = False

    def send(self, event: p.Event) -> None:
        data = memoryview(p.encode(event))
        with self._lock:
            if self.broken:
                return
            try:
                while data:
                    written = os.write(self._fd, data)
                    data = data[written:]
            except OSError:  # the client is gone
                self.broken = True
        if self.broken:
            self.on_broken()


class LlamaLog:
    """llama.cpp's log: copied to stderr as it comes, its last lines kept for error messages."""

    def __init__(self, llama_cpp: Any, max_lines: int = LOG_TAIL_LINES) -> None:
        from collections import deque

        self._lines: deque[str] = deque(maxlen=max_lines)
        self._partial = ""
        self._lock = threading.Lock()

        def callback(level: int, text: bytes, user_data: Any) -> None:
            self.write(text)

        self._callback = llama_cpp.llama_log_callback(callback)  # must stay referenced
        llama_cpp.llama_log_set(self._callback, ctypes.c_void_p(0))

    def write(self, text: bytes) -> None:
        with contextlib.suppress(OSError):
            os.write(2, text)
        with self._lock:
            chunk = self._partial + text.decode("utf-8", errors="replace")
            *complete, self._partial = chunk.split("\n")
            self._lines.extend(complete)

    def mark(self) -> None:
        with self._lock:
            self._lines.clear()
            self._partial = ""

    def tail(self, n: int = 40) -> str:
        with self._lock:
            lines = [*list(self._lines), self._partial] if self._partial else list(self._lines)
        return "\n".join(lines[-n:])


# --------------------------------------------------------------------------- llama.cpp hooks


class AbortFlag:
    """A byte llama.cpp reads through its abort callback during every decode.

    The callback is C's ``strlen`` on a two-byte buffer: it returns 0 ("continue") while the
    first byte is NUL and 1 ("abort") once it is set. ``bool f(void *)`` and ``size_t
    strlen(const char *)`` return in the same register on every ABI llama.cpp supports, so the
    check costs nanoseconds and never takes the GIL (a Python callback would, per graph node).
    Without a C library to borrow from, cancellation falls back to the check between tokens.
    """

    def __init__(self, llama_cpp: Any) -> None:
        self._buffer = ctypes.create_string_buffer(2)
        self._callback: Any = None
        strlen = _libc_strlen()
        if strlen is not None:
            address = ctypes.cast(strlen, ctypes.c_void_p).value
            self._callback = llama_cpp.ggml_abort_callback(address)
        self._llama_cpp = llama_cpp

    @property
    def native(self) -> bool:
        return self._callback is not None

    def attach(self, ctx: Any) -> None:
        if self._callback is not None:
            self._llama_cpp.llama_set_abort_callback(
                ctx, self._callback, ctypes.cast(self._buffer, ctypes.c_void_p)
            )

    def set(self) -> None:
        self._buffer[0] = b"x"

    def clear(self) -> None:
        self._buffer[0] = b"\0"


def _libc_strlen() -> Any | None:
    candidates: list[Callable[[], Any]] = [lambda: ctypes.CDLL(None).strlen]
    if sys.platform == "win32":
        candidates.insert(0, lambda: ctypes.cdll.msvcrt.strlen)
    for get in candidates:
        try:
            return get()
        except (OSError, AttributeError, TypeError):
            continue
    return None


@contextlib.contextmanager
def load_progress_hook(low_level: Any, keep_going: Callable[[], bool]) -> Iterator[None]:
    """Give ``Llama(...)`` a progress callback that aborts the load when ``keep_going()`` fails.

    ``Llama`` builds its model parameters from ``llama_model_default_params()`` with no way to
    pass a progress callback, so the function is wrapped for the duration of one load (the
    worker loads one model at a time, on one thread).
    """
    original = low_level.llama_model_default_params

    def progress(fraction: float, user_data: Any) -> bool:
        return bool(keep_going())

    callback = low_level.llama_progress_callback(progress)

    def params_with_progress() -> Any:
        params = original()
        params.progress_callback = callback
        return params

    low_level.llama_model_default_params = params_with_progress
    try:
        yield
    finally:
        low_level.llama_model_default_params = original


def _release_free_memory() -> None:
    """Hand freed heap pages back to the OS (glibc keeps them otherwise)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6").malloc_trim(0)


# --------------------------------------------------------------------------- the worker


class Worker:
    """Runs commands in order on the calling thread; :meth:`submit` is called by the reader."""

    def __init__(self, writer: EventWriter, llama_cpp: Any, llama_log: LlamaLog) -> None:
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
            if cmd.template:
                choose_template({}, "", cmd.template)  # a bad override fails before the load
        except LoadFailure as exc:
            self.send(p.Error(cmd.id, exc.kind, str(exc)))
            return
        except TemplateError as exc:
            self.send(p.Error(cmd.id, "invalid_request", str(exc)))
            return
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
        threads = cmd.n_threads or physical_cores()
        threads_batch = cmd.n_threads_batch or threads
        self._llama_log.mark()
        started = time.perf_counter()
        try:
            with load_progress_hook(self._lc, lambda: not self._cancel.is_set()):
                llm = Llama(
                    model_path=str(path),
                    n_ctx=cmd.n_ctx,
                    n_batch=cmd.n_batch,
                    n_threads=threads,
                    n_threads_batch=threads_batch,
                    n_gpu_layers=n_gpu_layers,
                    flash_attn=cmd.flash_attn,
                    verbose=True,
                )
        except (ValueError, RuntimeError, OSError, MemoryError) as exc:
            _release_free_memory()
            if self._cancel.is_set():
                self.send(p.Error(cmd.id, "cancelled", "Loading the model was cancelled."))
                return
            failure = classify_load_failure(path, cmd.n_ctx, exc, self._llama_log.tail(400))
            self.send(p.Error(cmd.id, failure.kind, str(failure), self._llama_log.tail()))
            return
        load_ms = (time.perf_counter() - started) * 1000.0
        self._llm = llm
        self._abort.attach(llm.ctx)
        metadata = _typed_metadata(llm)
        architecture = str(metadata.get("general.architecture", ""))
        try:
            self._template = choose_template(metadata, architecture, cmd.template)
        except TemplateError as exc:
            self._close_model()
            self.send(p.Error(cmd.id, "invalid_request", str(exc)))
            return
        self._stops = _template_stops(self._template)
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
                n_ctx=int(llm.n_ctx()),
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

    def _close_model(self) -> None:
        if self._llm is not None:
            self._llm.close()
            self._llm = None
            self._template = None
            _release_free_memory()

    # -- generate -------------------------------------------------------------------------

    def _prompt(self, cmd: p.Generate) -> tuple[list[int], tuple[str, ...]]:
        """Prompt tokens and the template's stop strings (none for raw prompts)."""
        from desktop.core.engine.templates import render_chat

        llm = self._llm
        if cmd.prompt_tokens:
            return list(cmd.prompt_tokens), ()
        if cmd.prompt is not None:
            return self._tokenize(cmd.prompt), ()
        messages = [{"role": m.role, "content": m.content} for m in cmd.messages]
        if cmd.system:
            messages.insert(0, {"role": "system", "content": cmd.system})
        bos, eos = llm.token_bos(), llm.token_eos()
        text = render_chat(
            self._template,
            messages,
            bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
            eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
        )
        return self._tokenize(text), self._stops

    def _tokenize(self, text: str) -> list[int]:
        return prompt_tokens(self._llm, text)

    def _generate(self, cmd: p.Generate, t_start: float) -> None:
        from desktop.core.engine.templates import TemplateError

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
        try:
            tokens, template_stops = self._prompt(cmd)
        except TemplateError as exc:
            self.send(p.Error(cmd.id, "invalid_request", str(exc)))
            return
        n_ctx = int(llm.n_ctx())
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
        self._run_tokens(cmd, llm, tokens, max_tokens=max_tokens, stops=stops, t_start=t_start)

    def _run_tokens(
        self,
        cmd: p.Generate,
        llm: Any,
        tokens: list[int],
        *,
        max_tokens: int,
        stops: Sequence[str],
        t_start: float,
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
        finish: p.FinishReason = "length"
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


def prompt_tokens(llm: Any, text: str) -> list[int]:
    """Tokenize a prompt as llama-cpp-python does: special tokens parsed, one BOS in front when
    the model wants one (not a second one when the rendered template already starts with it)."""
    tokens: list[int] = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
    bos = llm.token_bos()
    if llm._model.add_bos_token() and bos != -1 and tokens[:1] != [bos]:
        tokens.insert(0, bos)
    return tokens


def reusable_prefix(llm: Any, tokens: Sequence[int]) -> int:
    """Prompt tokens ``Llama.generate`` will take from the KV cache instead of evaluating
    (the common prefix with what the context holds; at least one token is always evaluated)."""
    held = int(llm.n_tokens)
    if held <= 0:
        return 0
    common = 0
    for cached, token in zip(llm._input_ids[:held].tolist(), tokens, strict=False):
        if cached != token:
            break
        common += 1
    return common - 1 if common == len(tokens) else common


def _typed_metadata(llm: Any) -> dict[str, Any]:
    """llama.cpp's metadata strings, with integers as ints (the template chooser reads them)."""
    metadata: dict[str, Any] = {}
    for key, value in dict(llm.metadata).items():
        metadata[key] = int(value) if isinstance(value, str) and value.isdigit() else value
    arch = metadata.get("general.architecture")
    if isinstance(arch, str) and f"{arch}.vocab_size" not in metadata:
        metadata[f"{arch}.vocab_size"] = int(llm.n_vocab())
    return metadata


def _template_stops(template: Any) -> tuple[str, ...]:
    from desktop.core.engine.templates import stop_strings

    return tuple(stop_strings(template))


# --------------------------------------------------------------------------- entry point


def _claim_stdout() -> int:
    """Keep the real stdout for the protocol and send everything else written to fd 1 to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol_fd


def _lines(fd: int) -> Iterator[bytes]:
    """Lines from a raw descriptor. Unbuffered reads: a daemon thread blocked in a buffered
    ``readline`` holds the buffer's lock and makes interpreter shutdown abort the process."""
    pending = b""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            if pending:
                yield pending
            return
        pending += chunk
        while True:
            end = pending.find(b"\n")
            if end < 0:
                if len(pending) > p.MAX_LINE_BYTES:
                    yield pending  # too long: decode() rejects it
                    pending = b""
                break
            yield pending[: end + 1]
            pending = pending[end + 1 :]


def _read_commands(worker: Worker, writer: EventWriter, ready: threading.Event) -> None:
    ready.wait()  # the ready event goes out first
    for line in _lines(sys.stdin.fileno()):
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


def _limit_address_space(headroom: int) -> None:
    """Cap the address space at what is mapped now plus ``headroom`` bytes (tests use this to
    make a load run out of memory for real)."""
    import resource

    import psutil

    limit = int(psutil.Process().memory_info().vms) + headroom
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


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
    return parser.parse_args(list(argv) if argv is not None else None)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    protocol_fd = _claim_stdout()
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
    worker = Worker(writer, low_level, llama_log)
    writer.on_broken = worker.stop
    ready_sent = threading.Event()
    # Started before the address-space limit applies: a thread's stack is address space too.
    reader = threading.Thread(
        target=_read_commands, args=(worker, writer, ready_sent), name="commands", daemon=True
    )
    reader.start()
    if args.address_space_headroom is not None:
        _limit_address_space(args.address_space_headroom)
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


if __name__ == "__main__":
    sys.exit(main())
