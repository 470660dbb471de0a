"""An OpenAI-compatible server as an engine: the remote kind behind :class:`EngineBackend`.

:class:`RemoteClient` has the surface of :class:`~desktop.core.engine.client.EngineClient` and
speaks HTTP instead of a worker's pipes: ``load`` checks that the server answers and serves the
model (``GET {base}/models``) and ends with a ``loaded`` event; ``generate`` posts a streaming
``/chat/completions`` (``/completions`` for a raw prompt or token ids) and turns its server-sent
events into ``tokens`` events, each stamped with its arrival time here, and one ``done``.

What is measured where: TTFT and generation tokens/s on the client, from arrival times, as for
a local worker; prompt and completion token counts from the server's ``usage`` when it sends it
(asked for with ``stream_options.include_usage``), else counted here (one token per delta);
llama-server's ``timings`` (prompt and generation speed on the server) replace the client's
speeds when given, and :meth:`RemoteClient.measures` says which source was used. Memory is what
the server exposes (:mod:`~desktop.core.engine.remote_memory`), else unknown.

Bad servers end a request with one ``error`` event whose kind says what happened (``refused``,
``unauthorized``, ``endpoint_not_found``, ``model_not_found``, ``server_error``, ``malformed``,
``timeout``, ``disconnected``) and whose message is one plain sentence; text that had streamed
stays in :attr:`Request.text` and the message says it was kept. ``cancel`` closes the stream;
the request ends with ``done`` (``cancelled``) and keeps its partial answer.

Limits that hold whatever the server does: the answer stops at ``max_tokens`` deltas (finish
``length``) even when the server goes on; a server silent for ``stall_timeout_s`` (the
``remote_timeout_s`` setting) is given up; an answer ends at an overall deadline of that timeout
plus a second per token asked for (a server that drips keep-alives never reaches it otherwise);
stream lines are capped (:data:`~desktop.core.engine.remote_stream.MAX_LINE_BYTES`) and bodies
read whole (errors, the model list) are read only up to :data:`MAX_BODY_BYTES`.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core import threads
from desktop.core.engine import protocol as p
from desktop.core.engine.backend import Measures
from desktop.core.engine.memory import ProcessMemory
from desktop.core.engine.metrics import MemoryPhases
from desktop.core.engine.remote_endpoint import RemoteEndpoint
from desktop.core.engine.remote_memory import PROBE_TIMEOUT_S, ServerMemory, ServerMemoryProbe
from desktop.core.engine.remote_stream import (
    DONE,
    MalformedStream,
    Timings,
    Usage,
    parse_chunk,
    sse_data,
    sse_lines,
)
from desktop.core.engine.request import Request
from desktop.core.errors import EngineError
from desktop.core.kv_cache import CacheType

__all__ = ["RemoteClient", "served_models"]

log = logging.getLogger(__name__)
#: How long a cancelled stream may take to notice its flag before the response is closed under it.
CANCEL_GRACE_S = 1.0
#: The slowest a server may answer before the overall deadline ends it: a second per token.
MIN_TOKENS_PER_S = 1.0
#: Tokens an answer without a ``max_tokens`` is given time for.
UNBOUNDED_TOKENS = 4096
#: The most of a body read whole (an error's text, the model list, /metrics).
MAX_BODY_BYTES = 8 * 1024 * 1024

_FINISH: Mapping[str, p.FinishReason] = {"stop": "stop", "length": "length", "eos": "stop"}


class _Failure(Exception):
    """Ends a request with an error event of ``kind``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass
class _Stream:
    """One generation in flight: what cancel needs, and what the server said about it."""

    request: Request
    cancelled: threading.Event = field(default_factory=threading.Event)
    expired: threading.Event = field(default_factory=threading.Event)  # past the deadline
    response: Any = None
    usage: Usage | None = None
    timings: Timings | None = None
    memory: list[ServerMemory] = field(default_factory=list)
    memory_thread: threading.Thread | None = None


class RemoteClient:
    """One model behind an OpenAI-compatible server (see the module's docstring).

    ``on_event(event)`` is called for every event, on the client's threads. No process is
    started: ``pid`` and ``returncode`` are None, ``alive`` is True from :meth:`start` to
    :meth:`close`. Memory readings of the server are not process readings: ``on_memory`` is
    accepted for the common signature and never called.
    """

    def __init__(
        self,
        endpoint: RemoteEndpoint,
        *,
        on_event: Callable[[p.Event], None] | None = None,
        on_memory: Callable[[ProcessMemory], None] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self._on_event = on_event
        self._on_memory = on_memory
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._http: Any = None
        self._streams: dict[str, _Stream] = {}
        self._measures: dict[str, Measures] = {}
        self._last_error = ""
        self._memory_probe: ServerMemoryProbe | None = None
        self.loaded: p.Loaded | None = None

    # -- life cycle ---------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return None

    @property
    def returncode(self) -> int | None:
        return None

    @property
    def alive(self) -> bool:
        return self._http is not None

    def start(self, timeout: float = 0.0) -> None:
        """Open the HTTP connection pool (nothing is sent yet)."""
        import httpx2

        if self._http is not None:
            return
        e = self.endpoint
        self._http = httpx2.Client(
            timeout=httpx2.Timeout(
                connect=e.connect_timeout_s, read=e.stall_timeout_s, write=30.0, pool=30.0
            ),
            follow_redirects=False,
        )
        self._memory_probe = ServerMemoryProbe(e.root_url, e.model, self._get_text)

    def close(self, timeout: float = 5.0) -> None:
        """Close every open stream (each ends as cancelled) and the connection pool."""
        with self._lock:
            streams = list(self._streams.values())
        for stream in streams:
            self._cancel_stream(stream)
        deadline = time.monotonic() + timeout
        for stream in streams:
            stream.request.wait(max(0.0, deadline - time.monotonic()))
        http, self._http = self._http, None
        if http is not None:
            http.close()

    def kill(self) -> None:
        """What killing a worker does here: every open stream is dropped at once."""
        with self._lock:
            streams = list(self._streams.values())
        for stream in streams:
            self._cancel_stream(stream)

    def __enter__(self) -> RemoteClient:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- commands -----------------------------------------------------------------------

    def load(
        self,
        path: str | Path = "",
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
        """Check the endpoint and the model; the request ends with ``loaded`` or an error.
        ``path`` and the llama.cpp options are the server's business and are not sent."""
        command = p.Load(id=self._next_id("l"), path=self.endpoint.base_url, n_ctx=n_ctx)
        return self.submit(command)

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
        """Stream one answer: chat ``messages`` (``system`` first), or a raw ``prompt`` or
        ``prompt_tokens`` through ``/completions``."""
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

    def cancel(self, request_id: str) -> None:
        """Close the stream of ``request_id``: it ends with ``done`` (cancelled), text kept."""
        with self._lock:
            stream = self._streams.get(request_id)
        if stream is not None:
            self._cancel_stream(stream)

    def submit(self, command: p.Command) -> Request:
        """Run a ``load`` or ``generate`` on its own thread; ``unload`` is answered at once."""
        if self._http is None:
            raise EngineError("The remote engine is closed; start it first.", kind="engine.crashed")
        request = Request(command.id, command)
        request.t_sent = time.perf_counter()
        request.meter.record_sent(request.t_sent)
        if isinstance(command, p.Load):
            self._spawn(self._run_load, request, command)
        elif isinstance(command, p.Generate):
            stream = _Stream(request)
            with self._lock:
                self._streams[command.id] = stream
            self._spawn(self._run_generate, stream, command)
        elif isinstance(command, p.Unload):
            self.loaded = None
            self._deliver(request, p.Done(command.id, "unloaded"))
        else:
            raise EngineError(
                f"A remote engine cannot run a {command.type!r} command.", kind="engine.protocol"
            )
        return request

    # -- measurements -------------------------------------------------------------------

    def sample_memory(self) -> ProcessMemory | None:
        """No process here: the server's memory is in :meth:`measures`."""
        return None

    def memory_snapshot(self, since: float | None = None) -> tuple[ProcessMemory, ...]:
        return ()

    def memory_phases(self, load: Request | None, generation: Request) -> MemoryPhases:
        """Empty phases: no process memory is known for a server (unknown, never 0)."""
        return MemoryPhases()

    def measures(self, request: Request) -> Measures:
        """Where this request's numbers came from (after its terminal event)."""
        return self._measures.get(request.id, Measures("client", "unknown"))

    def stderr_tail(self, lines: int = 40, max_chars: int = 4000) -> str:
        """The last error body the server sent (there is no log of a local process)."""
        return self._last_error[-max_chars:]

    # -- internals ----------------------------------------------------------------------

    def _next_id(self, prefix: str) -> str:
        return f"r{prefix}{next(self._ids)}"

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(
            target=target, args=args, name=f"remote-{self.endpoint.host}", daemon=True
        )
        threads.start(thread)

    def _headers(self) -> dict[str, str]:
        key = self.endpoint.api_key()
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _get_text(self, url: str) -> tuple[int, str]:
        """A short GET for the memory probe: (status, text)."""
        http = self._http
        if http is None:
            return 0, ""
        with http.stream("GET", url, headers=self._headers(), timeout=PROBE_TIMEOUT_S) as response:
            return response.status_code, _read_capped(response).decode("utf-8", "replace")

    def _deliver(self, request: Request, event: p.Event) -> None:
        request._deliver(event, time.perf_counter())
        if isinstance(event, p.Loaded):
            self.loaded = event
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:
                log.exception("an engine event callback failed")

    def _fail(self, request: Request, kind: str, message: str) -> None:
        log.info("remote request %s failed (%s): %s", request.id, kind, message)
        self._deliver(request, p.Error(request.id, kind, message, self._last_error))

    def _cancel_stream(self, stream: _Stream) -> None:
        """Set the flag the reader checks at every line; close the response from here only if
        the reader has not ended a moment later (a stream that sends nothing). Closing it at
        once, while the reader is inside a read, could deadlock in the connection's lock."""
        stream.cancelled.set()

        def close_if_stuck() -> None:
            response = stream.response
            if response is None or stream.request.done:
                return
            try:
                response.close()
            except Exception:  # closing from another thread: the flag still ends the reader
                pass

        timer = threading.Timer(CANCEL_GRACE_S, close_if_stuck)
        timer.daemon = True
        timer.start()

    # -- load ---------------------------------------------------------------------------

    def _run_load(self, request: Request, command: p.Load) -> None:
        started = time.perf_counter()
        try:
            entry = self._check_model()
        except _Failure as failure:
            self._fail(request, failure.kind, failure.message)
            return
        load_ms = (time.perf_counter() - started) * 1000.0
        served_ctx = _positive_int(entry.get("max_model_len"))
        meta = entry.get("meta") if isinstance(entry.get("meta"), Mapping) else {}
        n_ctx_train = _positive_int(meta.get("n_ctx_train")) if meta else None
        probe = self._memory_probe
        if probe is not None:
            probe.probe()
        e = self.endpoint
        self._deliver(
            request,
            p.Loaded(
                id=command.id,
                load_ms=load_ms,
                path=e.base_url,
                architecture="remote",
                description=f"{e.model} served at {e.base_url}",
                n_params=_positive_int(meta.get("n_params")) or 0 if meta else 0,
                model_size_bytes=_positive_int(meta.get("size")) or 0 if meta else 0,
                n_layer=0,
                n_ctx=served_ctx or command.n_ctx,
                n_ctx_train=n_ctx_train or served_ctx or command.n_ctx,
                n_vocab=_positive_int(meta.get("n_vocab")) or 0 if meta else 0,
                n_threads=0,
                n_threads_batch=0,
                n_gpu_layers=0,
                n_gpu_layers_requested=0,
                gpu_offload=False,
                template_name=None,
                template_source="server",
            ),
        )

    def served_models(self) -> list[str]:
        """The model names the server lists (``GET {base}/models``), in its order; EngineError
        (``engine.refused``, ``engine.unauthorized``, ...) with one sentence when it cannot say."""
        if self._http is None:
            raise EngineError("The remote engine is closed; start it first.", kind="engine.crashed")
        try:
            entries = self._model_entries()
        except _Failure as failure:
            raise EngineError(failure.message, kind=f"engine.{failure.kind}") from None
        return [str(m.get("id")) for m in entries if isinstance(m, Mapping) and m.get("id")]

    def _check_model(self) -> Mapping[str, Any]:
        """The server's entry for the model in ``GET /models``; _Failure when it has none."""
        e = self.endpoint
        entries = self._model_entries()
        names = [str(m.get("id")) for m in entries if isinstance(m, Mapping)]
        for entry in entries:
            if isinstance(entry, Mapping) and entry.get("id") == e.model:
                return entry
        served = ", ".join(names[:8]) or "none"
        raise _Failure(
            "model_not_found",
            f"The server at {e.base_url} has no model named {e.model!r}; it serves: {served}.",
        )

    def _model_entries(self) -> list[Any]:
        """The ``data`` list of ``GET /models``; _Failure when the server does not answer it."""
        import httpx2

        e = self.endpoint
        url = f"{e.base_url}/models"
        try:
            with self._http.stream("GET", url, headers=self._headers()) as response:
                status, body = response.status_code, _read_capped(response)
        except httpx2.TimeoutException:
            raise _Failure(
                "timeout",
                f"The server at {e.base_url} did not answer within {e.stall_timeout_s:g} s "
                "(the remote_timeout_s setting).",
            ) from None
        except httpx2.ConnectError:
            raise _Failure("refused", _refused(e)) from None
        except httpx2.RemoteProtocolError:
            raise _Failure("malformed", _not_http(e)) from None
        except httpx2.TransportError as exc:
            raise _Failure(
                "disconnected",
                f"The server at {e.base_url} closed the connection without an answer "
                f"({type(exc).__name__}).",
            ) from None
        text = body.decode("utf-8", "replace")
        self._check_status(status, text, url)
        try:
            data = json.loads(body)
        except ValueError:
            raise _Failure(
                "endpoint_not_found",
                f"{url} did not answer with JSON: give the base URL of an OpenAI-compatible "
                "server (it usually ends in /v1).",
            ) from None
        entries = data.get("data") if isinstance(data, Mapping) else None
        if not isinstance(entries, list):
            raise _Failure(
                "endpoint_not_found",
                f"{url} did not list models: give the base URL of an OpenAI-compatible server "
                "(it usually ends in /v1).",
            )
        return entries

    def _check_status(self, status: int, body: str, url: str) -> None:
        e = self.endpoint
        if status == 200:
            return
        self._last_error = _server_message(body)
        if status in (401, 403):
            if e.api_key():
                raise _Failure(
                    "unauthorized",
                    f"The server at {e.base_url} refused the API key in {e.key_variable} "
                    f"(HTTP {status}).",
                )
            raise _Failure(
                "unauthorized",
                f"The server at {e.base_url} needs an API key (HTTP {status}): set "
                f"{e.key_variable}.",
            )
        if status == 404:
            if url.endswith("/models"):
                raise _Failure(
                    "endpoint_not_found",
                    f"{url} does not exist (HTTP 404): give the base URL of an "
                    "OpenAI-compatible server (it usually ends in /v1).",
                )
            raise _Failure(
                "model_not_found",
                f"The server at {e.base_url} does not serve {e.model!r} (HTTP 404"
                + (f": {self._last_error}" if self._last_error else "")
                + ").",
            )
        if status in (400, 422):
            raise _Failure(
                "invalid_request",
                f"The server refused the request (HTTP {status}"
                + (f": {self._last_error}" if self._last_error else "")
                + ").",
            )
        raise _Failure(
            "server_error",
            f"The server at {e.base_url} answered HTTP {status}"
            + (f": {self._last_error}" if self._last_error else "")
            + ".",
        )

    # -- generate -----------------------------------------------------------------------

    def _run_generate(self, stream: _Stream, command: p.Generate) -> None:
        import httpx2

        request = stream.request
        path, payload = self._payload(command)
        url = self.endpoint.base_url + path
        finish: str | None = None
        ended = False
        max_tokens = command.params.max_tokens
        deadline = threading.Timer(self._deadline_s(max_tokens), self._expire, (stream,))
        deadline.daemon = True
        deadline.start()
        deltas = 0
        try:
            with self._http.stream("POST", url, json=payload, headers=self._headers()) as resp:
                stream.response = resp
                if resp.status_code != 200:
                    body = _read_capped(resp).decode("utf-8", "replace")
                    self._check_status(resp.status_code, body, url)
                for data in sse_data(sse_lines(resp.iter_bytes())):
                    if stream.cancelled.is_set():
                        break
                    if data.strip() == DONE:
                        ended = True
                        break
                    if 0 < max_tokens <= deltas:
                        finish, ended = "length", True  # the server went on past max_tokens
                        break
                    chunk = parse_chunk(data)
                    if chunk.error is not None:
                        self._last_error = chunk.error
                        raise _Failure(
                            "server_error",
                            f"The server reported an error in the middle of the answer: "
                            f"{chunk.error}.{_kept(request)}",
                        )
                    if chunk.text:
                        first = request.meter.t_first is None
                        deltas += 1
                        self._deliver(request, p.Tokens(command.id, chunk.text, 1))
                        if first:
                            self._read_memory(stream)
                    stream.usage = chunk.usage or stream.usage
                    stream.timings = chunk.timings or stream.timings
                    finish = chunk.finish_reason or finish
        except _Failure as failure:
            self._end_failed(stream, failure.kind, failure.message)
            return
        except MalformedStream as exc:
            self._end_failed(stream, "malformed", f"{exc}{_kept(request)}")
            return
        except httpx2.TimeoutException:
            e = self.endpoint
            self._end_failed(
                stream,
                "timeout",
                f"The server sent nothing for {e.stall_timeout_s:g} s (the remote_timeout_s "
                f"setting).{_kept(request)}",
            )
            return
        except httpx2.ConnectError:
            self._end_failed(stream, "refused", _refused(self.endpoint))
            return
        except httpx2.RemoteProtocolError as exc:
            if stream.response is None:  # no HTTP answer at all: garbage, not a dropped line
                self._end_failed(stream, "malformed", _not_http(self.endpoint))
                return
            self._end_failed(
                stream,
                "disconnected",
                f"The server closed the connection in the middle of the answer "
                f"({type(exc).__name__}).{_kept(request)}",
            )
            return
        except (httpx2.TransportError, httpx2.StreamError) as exc:
            self._end_failed(
                stream,
                "disconnected",
                f"The server closed the connection in the middle of the answer "
                f"({type(exc).__name__}).{_kept(request)}",
            )
            return
        finally:
            deadline.cancel()
        if stream.expired.is_set():
            self._end_failed(stream, "timeout", self._expired_sentence(max_tokens, request))
        elif stream.cancelled.is_set():
            self._end_done(stream, "cancelled")
        elif not ended and finish is None:
            self._end_failed(
                stream,
                "disconnected",
                f"The server closed the connection in the middle of the answer.{_kept(request)}",
            )
        else:
            self._end_done(stream, _FINISH.get(finish or "stop", "stop"))

    def _payload(self, command: p.Generate) -> tuple[str, dict[str, Any]]:
        params = command.params
        body: dict[str, Any] = {
            "model": self.endpoint.model,
            "stream": True,
            "stream_options": {"include_usage": True},
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_tokens,
            # Not OpenAI's, but llama-server, llama-cpp-python and vLLM take them:
            "top_k": params.top_k,
            "min_p": params.min_p,
            "repeat_penalty": params.repeat_penalty,
            "cache_prompt": command.cache_prompt,
        }
        if params.seed is not None:
            body["seed"] = params.seed
        if params.stop:
            body["stop"] = list(params.stop)
        if params.ignore_eos:  # llama-server and vLLM take the first, llama-cpp-python the second
            body["ignore_eos"] = True
            body["min_tokens"] = params.max_tokens
        if command.prompt is not None or command.prompt_tokens:
            body["prompt"] = (
                command.prompt if command.prompt is not None else list(command.prompt_tokens)
            )
            return "/completions", body
        messages = [{"role": m.role, "content": m.content} for m in command.messages]
        if command.system:
            messages.insert(0, {"role": "system", "content": command.system})
        body["messages"] = messages
        return "/chat/completions", body

    def _read_memory(self, stream: _Stream) -> None:
        """A memory reading of the server, off the stream's thread (it must not delay it)."""
        probe = self._memory_probe
        if probe is None or (probe._probed and probe.source is None):
            return

        def read() -> None:
            reading = probe.read()
            if reading is not None:
                stream.memory.append(reading)

        thread = threading.Thread(target=read, name="remote-memory", daemon=True)
        stream.memory_thread = thread
        threads.start(thread)

    def _deadline_s(self, max_tokens: int) -> float:
        tokens = max_tokens if max_tokens > 0 else UNBOUNDED_TOKENS
        return self.endpoint.stall_timeout_s + tokens / MIN_TOKENS_PER_S

    def _expire(self, stream: _Stream) -> None:
        """The deadline timer: end the answer as if cancelled, reported as a timeout."""
        if not stream.request.done:
            stream.expired.set()
            self._cancel_stream(stream)

    def _expired_sentence(self, max_tokens: int, request: Request) -> str:
        seconds = self._deadline_s(max_tokens)
        return (
            f"The server did not finish the answer within {seconds:g} s (the remote timeout of "
            f"{self.endpoint.stall_timeout_s:g} s plus a second per token asked for)."
            f"{_kept(request)}"
        )

    def _end_failed(self, stream: _Stream, kind: str, message: str) -> None:
        if stream.expired.is_set() and kind in ("disconnected", "timeout", "malformed"):
            command = stream.request.command
            max_tokens = command.params.max_tokens if isinstance(command, p.Generate) else 0
            kind, message = "timeout", self._expired_sentence(max_tokens, stream.request)
        elif stream.cancelled.is_set() and kind in ("disconnected", "timeout", "malformed"):
            self._end_done(stream, "cancelled")  # closing the stream ourselves broke it
            return
        self._record_measures(stream)
        with self._lock:
            self._streams.pop(stream.request.id, None)
        self._fail(stream.request, kind, message)

    def _end_done(self, stream: _Stream, reason: p.FinishReason) -> None:
        request = stream.request
        meter = request.meter
        t_now = time.perf_counter()
        sent = request.t_sent or t_now
        ttft_ms = meter.ttft_ms()
        usage, timings = stream.usage, stream.timings
        counted = meter.generated_tokens
        generated = (usage.completion_tokens if usage else None) or (
            timings.predicted_n if timings else None
        )
        prompt_tokens = (usage.prompt_tokens if usage else None) or (
            (timings.prompt_n or 0) + (timings.cache_n or 0) if timings else 0
        )
        cached = (timings.cache_n if timings else None) or (usage.cached_tokens if usage else 0)
        if timings is not None and timings.prompt_ms:
            prompt_ms = timings.prompt_ms
        else:  # measured here: the prompt is evaluated before the first token comes back
            prompt_ms = ttft_ms or 0.0
        metrics = meter.finish()
        eval_ms = (
            timings.predicted_ms
            if timings is not None and timings.predicted_ms
            else (metrics.generation_s or 0.0) * 1000.0
        )
        self._record_measures(stream, generated if generated != counted else None)
        with self._lock:
            self._streams.pop(request.id, None)
        self._deliver(
            request,
            p.Done(
                request.id,
                reason,
                prompt_tokens=prompt_tokens or 0,
                generated_tokens=generated or counted,
                prompt_eval_ms=prompt_ms,
                eval_ms=eval_ms,
                first_token_ms=ttft_ms,
                total_ms=(t_now - sent) * 1000.0,
                cached_prompt_tokens=cached or 0,
            ),
        )

    def _record_measures(self, stream: _Stream, generated: int | None = None) -> None:
        request, timings = stream.request, stream.timings
        if stream.memory_thread is not None:
            stream.memory_thread.join(PROBE_TIMEOUT_S + 1.0)
        server_rate = timings.predicted_per_second if timings is not None else None
        tokens_per_s: float | None = server_rate
        if server_rate is None and generated is not None and generated > 1:
            # The server streamed several tokens per event: its count over the client's clock.
            seconds = request.meter.finish().generation_s
            tokens_per_s = (generated - 1) / seconds if seconds else None
        memory = stream.memory
        probe = self._memory_probe
        if probe is not None and probe.source is not None:
            last = probe.read()
            if last is not None:
                memory = [*memory, last]
        kv = [m.kv_cache_usage_pct for m in memory if m.kv_cache_usage_pct is not None]
        vram = [m.vram_bytes for m in memory if m.vram_bytes is not None]
        self._measures[request.id] = Measures(
            timing_source="server" if server_rate is not None else "client",
            memory_source="server" if (kv or vram) else "unknown",
            tokens_per_s=tokens_per_s,
            prompt_tokens_per_s=timings.prompt_per_second if timings is not None else None,
            generated_tokens=generated,
            server_vram_bytes=max(vram) if vram else None,
            kv_cache_usage_pct=max(kv) if kv else None,
        )


def served_models(base_url: str, key_env: str | None = None) -> list[str]:
    """The models an OpenAI-compatible server at ``base_url`` lists (blocking: call it off a
    GUI thread); UsageError for a URL that is not http(s), EngineError when the server cannot
    say (refused, 401, not an OpenAI-compatible base URL)."""
    # The model name is not sent for the listing; the endpoint only needs one to be valid.
    endpoint = RemoteEndpoint(base_url, _LISTING, key_env=key_env)
    with RemoteClient(endpoint) as client:
        return client.served_models()


_LISTING = "(listing)"


def _refused(e: RemoteEndpoint) -> str:
    return f"Nothing answers at {e.base_url}: the connection was refused (is the server running?)."


def _not_http(e: RemoteEndpoint) -> str:
    return (
        f"The server at {e.base_url} answered with bytes that are not HTTP: it is not an "
        "OpenAI-compatible server (or something else listens on that port)."
    )


def _read_capped(response: Any, limit: int = MAX_BODY_BYTES) -> bytes:
    """A response's body, at most ``limit`` bytes of it (the rest is not read)."""
    parts: list[bytes] = []
    size = 0
    for part in response.iter_bytes():
        parts.append(part[: limit - size])
        size += len(parts[-1])
        if size >= limit:
            break
    return b"".join(parts)


def _kept(request: Request) -> str:
    n = len(request.text)
    if not n:
        return ""
    return f" The partial answer ({n} characters) is kept."


def _server_message(body: str) -> str:
    """The server's own error message from a JSON error body, else its first line (short)."""
    text = body.strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, Mapping):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, Mapping):
            error = error.get("message", error)
        if error:
            text = str(error)
    line = text.splitlines()[0] if text else ""
    return line[:200].rstrip(".")


def _positive_int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None
