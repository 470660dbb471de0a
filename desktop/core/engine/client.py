"""Starts and stops engine workers, sends commands, delivers events, samples memory.

One :class:`EngineClient` owns one worker process (several clients hold several models side by
side). Plain threads, no Qt: a reader thread turns the worker's stdout into events, a second one
keeps the tail of its stderr (llama.cpp's log), a third samples its memory at 4-10 Hz.

Events reach callers in two ways: the ``on_event`` callback (called on the reader thread) and
:class:`Request` objects, whose :meth:`Request.events` iterator yields the events of one request
until its terminal event (``loaded``, ``done`` or ``error``); a load's ``load_progress`` events
come before it and also set :attr:`Request.load_fraction`. Each request also measures itself
as events arrive (:class:`~desktop.core.engine.metrics.GenerationMeter`), so timings are taken
on the reader thread at arrival, not whenever a consumer gets round to them.

A worker that dies (crash, SIGKILL, out-of-memory kill) or writes something that is not a
protocol line ends every open request with one ``error`` event (kind ``crashed`` or
``protocol``) carrying the tail of its stderr; text already streamed stays in
:attr:`Request.text`. The process is always reaped (no zombies) and :meth:`EngineClient.start`
may be called again at once.
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from desktop.core import threads
from desktop.core.engine import protocol as p
from desktop.core.engine.backend import Measures
from desktop.core.engine.log_lines import log_excerpt
from desktop.core.engine.memory import MemorySampler, NvmlReader, ProcessMemory
from desktop.core.engine.metrics import MemoryPhases
from desktop.core.engine.request import Request, WorkerError
from desktop.core.engine.worker_support import PARENT_PID_ENV
from desktop.core.errors import EngineError
from desktop.core.kv_cache import CacheType

__all__ = ["EngineClient", "Request", "WorkerError", "worker_command"]

log = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0
CLOSE_TIMEOUT_S = 5.0
STDERR_LINES = 400
MEMORY_HISTORY = 8 * 60 * 30  # half an hour at 8 Hz


def worker_command() -> list[str]:
    """How to start a worker: the frozen app's own executable with a flag, else ``python -m``."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--engine-worker"]
    return [sys.executable, "-m", "desktop.core.engine.worker"]


class EngineClient:
    """One engine worker process.

    Callbacks (called on the client's threads, keep them short): ``on_event(event)`` for every
    event, ``on_memory(ProcessMemory)`` for every memory reading.
    """

    def __init__(
        self,
        *,
        command: Sequence[str] | None = None,
        worker_args: Sequence[str] = (),
        on_event: Callable[[p.Event], None] | None = None,
        on_memory: Callable[[ProcessMemory], None] | None = None,
        sample_hz: float = 8.0,
        nvml: NvmlReader | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.command = list(command) if command is not None else worker_command()
        self.worker_args = list(worker_args)
        self._on_event = on_event
        self._on_memory = on_memory
        self._sample_hz = sample_hz
        self._nvml = nvml if nvml is not None else NvmlReader()
        self._env = dict(env) if env is not None else None
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._requests: dict[str, Request] = {}
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._threads: list[threading.Thread] = []
        self._sampler: MemorySampler | None = None
        self._ready_queue: queue.Queue[p.Event | None] = queue.Queue()
        self._closing = False
        self._failed = False
        self.ready: p.Ready | None = None
        self.loaded: p.Loaded | None = None
        self._memory: deque[ProcessMemory] = deque(maxlen=MEMORY_HISTORY)
        self._memory_lock = threading.Lock()
        self.spawn_ms: float | None = None

    # -- life cycle ---------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode if self._proc is not None else None

    @property
    def exit_sentence(self) -> str | None:
        """How the worker ended, in one sentence (None while it runs or before it started)."""
        proc = self._proc
        if proc is None or proc.poll() is None:
            return None
        return _crash_message(proc, list(self._stderr))

    def start(self, timeout: float = START_TIMEOUT_S) -> p.Ready:
        """Spawn the worker and wait for its ``ready`` event (protocol version checked)."""
        if self.alive:
            raise EngineError("This engine client already runs a worker.", kind="engine.busy")
        self._reset()
        started = time.perf_counter()
        try:
            self._proc = subprocess.Popen(
                [*self.command, *self.worker_args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                env=self._worker_env(),
                close_fds=True,
            )
        except OSError as exc:
            raise EngineError(
                f"The engine worker could not be started: {exc.strerror or exc}.",
                kind="engine.spawn_failed",
            ) from exc
        proc = self._proc
        assert proc.stdout is not None
        assert proc.stderr is not None
        self._spawn_thread(self._read_stderr, proc.stderr, "stderr")
        self._spawn_thread(self._read_events, proc.stdout, "events")
        try:
            first = self._ready_queue.get(timeout=timeout)
        except queue.Empty:
            self._kill_and_reap()
            raise EngineError(
                f"The engine worker did not start within {timeout:.0f} s.", kind="engine.timeout"
            ) from None
        if not isinstance(first, p.Ready):
            self._kill_and_reap()
            if isinstance(first, p.Error):
                raise WorkerError(first)
            raise EngineError(
                "The engine worker stopped before it was ready: " + self._stderr_sentence(),
                kind="engine.crashed",
            )
        if first.protocol_version != p.PROTOCOL_VERSION:
            self._kill_and_reap()
            raise EngineError(
                f"The engine worker speaks protocol version {first.protocol_version}; "
                f"this app needs version {p.PROTOCOL_VERSION}.",
                kind="engine.protocol",
            )
        self.spawn_ms = (time.perf_counter() - started) * 1000.0
        self.ready = first
        self._sampler = MemorySampler(
            first.pid, self._record_memory, hz=self._sample_hz, nvml=self._nvml
        )
        self._sampler.start()
        return first

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """Shut the worker down (killing it if it does not exit in ``timeout``) and reap it."""
        proc = self._proc
        if proc is None:
            return
        self._closing = True
        if proc.poll() is None:
            try:
                self._write(p.Shutdown(self._next_id("s")))
            except EngineError:
                pass
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log.warning("engine worker %s did not exit; killing it", proc.pid)
        self._kill_and_reap()

    def kill(self) -> None:
        """SIGKILL the worker, as the out-of-memory killer would (open requests get ``crashed``)."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            if hasattr(signal, "SIGKILL"):
                os.kill(proc.pid, signal.SIGKILL)
            else:  # pragma: no cover - Windows
                proc.kill()

    def __enter__(self) -> EngineClient:
        if not self.alive:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- commands -----------------------------------------------------------------------

    def load(
        self,
        path: str | Path,
        *,
        n_ctx: int = 2048,
        n_gpu_layers: int = 0,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        n_batch: int = 512,
        flash_attn: bool = False,
        template: str | None = None,
        cache_type: CacheType = "f16",
    ) -> Request:
        """Send ``load``; ``.result()`` on the returned request gives the ``Loaded`` event.
        ``cache_type`` is the KV cache's type (a quantized one needs ``flash_attn``)."""
        command = p.Load(
            id=self._next_id("l"),
            path=str(path),
            n_ctx=n_ctx,
            n_gpu_layers=n_gpu_layers,
            n_threads=n_threads,
            n_threads_batch=n_threads_batch,
            n_batch=n_batch,
            flash_attn=flash_attn,
            template=template,
            cache_type=cache_type,
        )
        return self.submit(command)

    def load_model(
        self, path: str | Path, timeout: float | None = None, **options: Any
    ) -> p.Loaded:
        """Load and wait; raise :class:`WorkerError` when the worker refuses."""
        event = self.load(path, **options).result(timeout)
        assert isinstance(event, p.Loaded)
        return event

    def generate(
        self,
        *,
        messages: Sequence[p.ChatMessage | Mapping[str, str]] = (),
        prompt: str | None = None,
        prompt_tokens: Sequence[int] = (),
        system: str | None = None,
        params: p.SamplingParams | None = None,
        cache_prompt: bool = True,
    ) -> Request:
        """Send ``generate`` with exactly one of messages, prompt or prompt tokens."""
        command = p.Generate(
            id=self._next_id("g"),
            messages=p.chat_messages(messages),
            prompt=prompt,
            prompt_tokens=tuple(prompt_tokens),
            system=system,
            params=params or p.SamplingParams(),
            cache_prompt=cache_prompt,
        )
        return self.submit(command)

    def tokenize(self, text: str, *, add_bos: bool = True, vocab_digest: bool = False) -> Request:
        """Send ``tokenize``: the loaded model's tokens for ``text`` (``Tokenized``)."""
        return self.submit(p.Tokenize(self._next_id("t"), text, add_bos, vocab_digest))

    def evaluate(
        self,
        tokens: str,
        first_output: int,
        n_outputs: int,
        *,
        top_k: int = 0,
        gather: str = "",
        gather_width: int = 0,
        keep_prefix: bool = False,
    ) -> Request:
        """Send ``evaluate`` (token ids and gathered ids as base64 int32, see
        ``engine.logits``); the answer is ``Evaluated``."""
        command = p.Evaluate(
            self._next_id("e"),
            tokens,
            first_output,
            n_outputs,
            top_k=top_k,
            gather=gather,
            gather_width=gather_width,
            keep_prefix=keep_prefix,
        )
        return self.submit(command)

    def quantize(
        self,
        source: str | Path,
        output: str | Path,
        ftype: int,
        *,
        allow_requantize: bool = True,
        n_threads: int | None = None,
        pure: bool = False,
    ) -> Request:
        """Send ``quantize`` (no model needs to be loaded); ``QuantizeProgress`` events, then
        ``Quantized``. It cannot be cancelled: :meth:`kill` the worker to stop it."""
        command = p.Quantize(
            self._next_id("q"), str(source), str(output), ftype, allow_requantize, n_threads, pure
        )
        return self.submit(command)

    def cancel(self, request_id: str) -> None:
        """Ask the worker to stop a load or generation (a no-op once it has finished)."""
        if self.alive:
            try:
                self._write(p.Cancel(request_id))
            except EngineError:
                pass

    def unload(self, timeout: float | None = 60.0) -> None:
        """Free the model and wait until the worker says so."""
        self.submit(p.Unload(self._next_id("u"))).result(timeout)
        self.loaded = None

    def submit(self, command: p.Command) -> Request:
        """Send any command that expects an answer and track its request."""
        request = Request(command.id, command)
        with self._lock:
            if self._proc is None or self._failed or self._proc.poll() is not None:
                raise EngineError(
                    "The engine worker is not running; start it first.", kind="engine.crashed"
                )
            self._requests[command.id] = request
        request.t_sent = time.perf_counter()
        request.meter.record_sent(request.t_sent)
        try:
            self._write(command)
        except EngineError:
            with self._lock:
                self._requests.pop(command.id, None)
            raise
        return request

    # -- memory -------------------------------------------------------------------------

    def sample_memory(self) -> ProcessMemory | None:
        """Read the worker's memory now (also recorded in :attr:`memory`)."""
        sampler = self._sampler
        return sampler.sample_now() if sampler is not None else None

    def memory_snapshot(self, since: float | None = None) -> tuple[ProcessMemory, ...]:
        """The readings kept so far (the last half hour), oldest first; ``since``: only those
        taken at or after that ``perf_counter`` time. Safe from any thread."""
        with self._memory_lock:
            readings = tuple(self._memory)
        if since is None:
            return readings
        return tuple(r for r in readings if r.t >= since)

    def memory_phases(self, load: Request | None, generation: Request) -> MemoryPhases:
        """Memory after load, after the first token and at peak for one load + generation."""
        phases = MemoryPhases()
        if load is not None and load.t_terminal is not None:
            phases.record_load_done(load.t_terminal)
        if generation.meter.t_first is not None:
            phases.record_first_token(generation.meter.t_first)
        if generation.t_terminal is not None:
            phases.record_generation_done(generation.t_terminal)
        for reading in self.memory_snapshot():
            phases.add(reading.as_sample())
        return phases

    def measures(self, request: Request) -> Measures:
        """Where a run's numbers come from: token arrival times seen here, the worker's memory."""
        return Measures(timing_source="client", memory_source="process")

    def _record_memory(self, reading: ProcessMemory) -> None:
        with self._memory_lock:
            memory = self._memory
            # Two threads may read at once (the sampler, and the reader thread at the phase
            # instants): the later reading can arrive first. Keep the history in time order.
            index = len(memory)
            while index and memory[index - 1].t > reading.t:
                index -= 1
            if index == len(memory):
                memory.append(reading)
            elif len(memory) != memory.maxlen:
                memory.insert(index, reading)
            elif index:  # full: the oldest reading makes room
                memory.popleft()
                memory.insert(index - 1, reading)
        if self._on_memory is not None:
            self._on_memory(reading)

    # -- logs ---------------------------------------------------------------------------

    def stderr_tail(self, lines: int = 40, max_chars: int = 4000) -> str:
        """The last lines the worker wrote to stderr (llama.cpp's log), at most ``max_chars``."""
        return "\n".join(list(self._stderr)[-lines:])[-max_chars:]

    def stderr_excerpt(self) -> str:
        """The lines of llama.cpp's log that explain a failure (:func:`log_excerpt`): what a
        failure's detail carries."""
        return log_excerpt(self._stderr)

    def _stderr_sentence(self) -> str:
        last = next((line for line in reversed(self._stderr) if line.strip()), "")
        return (last.strip() or "no message") + ("" if last.endswith(".") else ".")

    # -- internals ----------------------------------------------------------------------

    def _reset(self) -> None:
        self._requests.clear()
        self._stderr.clear()
        self._threads = []
        self._ready_queue = queue.Queue()
        self._closing = False
        self._failed = False
        self.ready = None
        self.loaded = None

    def _worker_env(self) -> dict[str, str]:
        env = dict(os.environ if self._env is None else self._env)
        root = str(Path(__file__).resolve().parents[3])
        current = env.get("PYTHONPATH", "")
        if root not in current.split(os.pathsep):
            env["PYTHONPATH"] = root + (os.pathsep + current if current else "")
        env[PARENT_PID_ENV] = str(os.getpid())  # the worker ends when this process does
        return env

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids)}"

    def _spawn_thread(
        self, target: Callable[[IO[bytes]], None], stream: IO[bytes], name: str
    ) -> None:
        thread = threading.Thread(
            target=target, args=(stream,), name=f"engine-{name}-{self.pid}", daemon=True
        )
        self._threads.append(thread)
        threads.start(thread)

    def _write(self, command: p.Command) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise EngineError("The engine worker is not running.", kind="engine.crashed")
        data = p.encode(command)
        with self._write_lock:
            try:
                proc.stdin.write(data)
                proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError) as exc:
                raise EngineError(
                    "The engine worker is not running.", kind="engine.crashed"
                ) from exc

    def _read_stderr(self, stream: IO[bytes]) -> None:
        for raw in p.read_lines(stream.fileno()):
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            self._stderr.append(line)
        stream.close()

    def _read_events(self, stream: IO[bytes]) -> None:
        proc = self._proc  # this thread's process, even if a new one is started later
        failure: p.Error | None = None
        for line in p.read_lines(stream.fileno()):
            t = time.perf_counter()
            try:
                event = p.decode(line)
                if not isinstance(event, p.EVENT_TYPES):
                    raise p.ProtocolError(f"The worker sent a '{event.type}' command.")
            except p.ProtocolError as exc:
                preview = line[:80].decode("utf-8", errors="replace").strip()
                failure = p.Error(
                    None,
                    "protocol",
                    f"The engine worker sent a line that is not a protocol message ({exc}): "
                    f"{preview!r}.",
                )
                break
            self._dispatch(event, t)
        stream.close()
        self._worker_ended(proc, failure)

    def _dispatch(self, event: p.Event, t: float) -> None:
        if isinstance(event, p.Ready) or (isinstance(event, p.Error) and self.ready is None):
            self._ready_queue.put(event)
        request_id = getattr(event, "id", None)
        request = self._requests.get(request_id) if isinstance(request_id, str) else None
        if request is not None:
            first_token = isinstance(event, p.Tokens) and request.meter.t_first is None
            request._deliver(event, t)
            if isinstance(event, p.TERMINAL_EVENTS):
                with self._lock:
                    self._requests.pop(event.id or "", None)
            if isinstance(event, p.Loaded):
                self.loaded = event
            if first_token or isinstance(event, (p.Loaded, p.Done)):
                self.sample_memory()  # a reading at the instants the phases are defined by
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:
                log.exception("an engine event callback failed")

    def _worker_ended(self, proc: subprocess.Popen[bytes] | None, failure: p.Error | None) -> None:
        """The worker's stdout closed: reap it, then end every open request with one error."""
        if failure is not None:
            self._failed = True
        if proc is not None:
            if failure is not None and proc.poll() is None:
                proc.kill()
            try:
                proc.wait(timeout=CLOSE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._close_stdin(proc)
        for thread in self._threads:
            if thread is not threading.current_thread() and thread.name.startswith("engine-stderr"):
                thread.join(timeout=2.0)
        if self._sampler is not None:
            self._sampler.stop()
        with self._lock:
            open_requests = list(self._requests.values())
            self._requests.clear()
        if failure is None:
            if self._closing and not open_requests:
                self._ready_queue.put(None)
                return
            failure = p.Error(
                None, "crashed", _crash_message(proc, list(self._stderr)), self.stderr_excerpt()
            )
        else:
            failure = p.Error(None, failure.kind, failure.message, self.stderr_excerpt())
        self._failed = True
        self._ready_queue.put(failure if self.ready is None else None)
        t = time.perf_counter()
        for request in open_requests:
            error = p.Error(request.id, failure.kind, failure.message, failure.detail)
            request._deliver(error, t)
            self._notify(error)
        if not open_requests and self.ready is not None and not self._closing:
            self._notify(failure)

    def _notify(self, event: p.Event) -> None:
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:
                log.exception("an engine event callback failed")

    def _close_stdin(self, proc: subprocess.Popen[bytes] | None) -> None:
        if proc is None or proc.stdin is None:
            return
        with self._write_lock:
            try:
                proc.stdin.close()
            except OSError:
                pass  # the pipe was broken: the worker is gone either way

    def _kill_and_reap(self) -> None:
        proc = self._proc
        if proc is None:
            return
        self._closing = True
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        self._close_stdin(proc)
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=5.0)
        if self._sampler is not None:
            self._sampler.stop()


def _crash_message(proc: subprocess.Popen[bytes] | None, stderr: Sequence[str] = ()) -> str:
    """How the worker ended, with llama.cpp's last words when it said what went wrong."""
    code = proc.returncode if proc is not None else None
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = " (often the system's out-of-memory killer)" if name == "SIGKILL" else ""
        ended = f"The engine worker was killed by {name}{hint}"
    else:
        ended = f"The engine worker stopped unexpectedly (exit status {code})"
    said = last_words(stderr)
    return f"{ended}; its last words: {said}" if said else f"{ended}."


# What a dying llama.cpp (or the C++ runtime, or Python) writes about why.
_FAILURE = re.compile(
    r"GGML_ASSERT|GGML_ABORT|\berror\b|\bfailed\b|\bfatal\b|\babort|terminate called|"
    r"what\(\):|exception|segmentation fault|out of memory|\bcannot\b|\bunable\b",
    re.IGNORECASE,
)
# A frame of the backtrace ggml prints after its message: "lib.so(ggml_abort+0x11f) [0x7f..]".
_FRAME = re.compile(r"\+0x[0-9a-f]+\)\s*\[0x[0-9a-f]+\]|^#\d+\s", re.IGNORECASE)
LAST_WORDS_CHARS = 300


def last_words(lines: Sequence[str], look_back: int = STDERR_LINES) -> str | None:
    """The last line of a worker's stderr that says something went wrong (an assertion, an
    error, an exception), shortened to one line; None when none does."""
    for line in reversed(list(lines)[-look_back:]):
        text = " ".join(line.split())
        if text and _FAILURE.search(text) and not _FRAME.search(text):
            if len(text) > LAST_WORDS_CHARS:
                text = text[: LAST_WORDS_CHARS - 1] + "…"
            return text if text.endswith((".", "!", "?", "…")) else f"{text}."
    return None
