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
read whole (errors, the model list) are read only up to
:data:`~desktop.core.engine.remote_http.MAX_BODY_BYTES`.

The client holds the life cycle, the commands and ``load`` (the model list); one answer, from
its request to its last event with those limits, is a
:class:`~desktop.core.engine.remote_answer.RemoteAnswer` on its own thread; the failures'
sentences are in :mod:`~desktop.core.engine.remote_http`.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from desktop.core import threads
from desktop.core.engine import protocol as p
from desktop.core.engine.backend import Measures
from desktop.core.engine.memory import ProcessMemory
from desktop.core.engine.metrics import MemoryPhases
from desktop.core.engine.remote_answer import AnswerHooks, RemoteAnswer
from desktop.core.engine.remote_endpoint import RemoteEndpoint
from desktop.core.engine.remote_http import (
    RemoteFailure,
    not_http,
    read_capped,
    refused,
    server_message,
    status_failure,
)
from desktop.core.engine.remote_memory import PROBE_TIMEOUT_S, ServerMemoryProbe
from desktop.core.engine.request import Request
from desktop.core.errors import EngineError
from desktop.core.kv_cache import CacheType

__all__ = ["RemoteClient", "served_models"]

log = logging.getLogger(__name__)


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
        self._streams: dict[str, RemoteAnswer] = {}
        self._measures: dict[str, Measures] = {}
        self._last_error = ""
        self._memory_probe: ServerMemoryProbe | None = None
        self._hooks = AnswerHooks(
            deliver=self._deliver,
            fail=self._fail,
            server_error=self._on_server_error,
            ended=self._on_answer_ended,
        )
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
            stream.cancel()
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
            stream.cancel()

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
            stream.cancel()

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
            answer = RemoteAnswer(request, self.endpoint, self._memory_probe, self._hooks)
            with self._lock:
                self._streams[command.id] = answer
            self._spawn(self._run_answer, answer, command)
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
            return response.status_code, read_capped(response).decode("utf-8", "replace")

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

    def _on_server_error(self, text: str) -> None:
        self._last_error = text

    def _on_answer_ended(self, request: Request, measures: Measures) -> None:
        self._measures[request.id] = measures
        with self._lock:
            self._streams.pop(request.id, None)

    def _run_answer(self, answer: RemoteAnswer, command: p.Generate) -> None:
        answer.run(self._http, self._headers(), command)

    # -- load ---------------------------------------------------------------------------

    def _run_load(self, request: Request, command: p.Load) -> None:
        started = time.perf_counter()
        try:
            entry = self._check_model()
        except RemoteFailure as failure:
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
        except RemoteFailure as failure:
            raise EngineError(failure.message, kind=f"engine.{failure.kind}") from None
        return [str(m.get("id")) for m in entries if isinstance(m, Mapping) and m.get("id")]

    def _check_model(self) -> Mapping[str, Any]:
        """The server's entry for the model in ``GET /models``; RemoteFailure when it has none."""
        e = self.endpoint
        entries = self._model_entries()
        names = [str(m.get("id")) for m in entries if isinstance(m, Mapping)]
        for entry in entries:
            if isinstance(entry, Mapping) and entry.get("id") == e.model:
                return entry
        served = ", ".join(names[:8]) or "none"
        raise RemoteFailure(
            "model_not_found",
            f"The server at {e.base_url} has no model named {e.model!r}; it serves: {served}.",
        )

    def _model_entries(self) -> list[Any]:
        """The ``data`` list of ``GET /models``; RemoteFailure when the server does not answer
        it."""
        import httpx2

        e = self.endpoint
        url = f"{e.base_url}/models"
        try:
            with self._http.stream("GET", url, headers=self._headers()) as response:
                status, body = response.status_code, read_capped(response)
        except httpx2.TimeoutException:
            raise RemoteFailure(
                "timeout",
                f"The server at {e.base_url} did not answer within {e.stall_timeout_s:g} s "
                "(the remote_timeout_s setting).",
            ) from None
        except httpx2.ConnectError:
            raise RemoteFailure("refused", refused(e)) from None
        except httpx2.RemoteProtocolError:
            raise RemoteFailure("malformed", not_http(e)) from None
        except httpx2.TransportError as exc:
            raise RemoteFailure(
                "disconnected",
                f"The server at {e.base_url} closed the connection without an answer "
                f"({type(exc).__name__}).",
            ) from None
        text = body.decode("utf-8", "replace")
        self._check_status(status, text, url)
        try:
            data = json.loads(body)
        except ValueError:
            raise RemoteFailure(
                "endpoint_not_found",
                f"{url} did not answer with JSON: give the base URL of an OpenAI-compatible "
                "server (it usually ends in /v1).",
            ) from None
        entries = data.get("data") if isinstance(data, Mapping) else None
        if not isinstance(entries, list):
            raise RemoteFailure(
                "endpoint_not_found",
                f"{url} did not list models: give the base URL of an OpenAI-compatible server "
                "(it usually ends in /v1).",
            )
        return entries

    def _check_status(self, status: int, body: str, url: str) -> None:
        if status == 200:
            return
        self._last_error = server_message(body)
        raise status_failure(self.endpoint, status, self._last_error, url)


def served_models(base_url: str, key_env: str | None = None) -> list[str]:
    """The models an OpenAI-compatible server at ``base_url`` lists (blocking: call it off a
    GUI thread); UsageError for a URL that is not http(s), EngineError when the server cannot
    say (refused, 401, not an OpenAI-compatible base URL)."""
    # The model name is not sent for the listing; the endpoint only needs one to be valid.
    endpoint = RemoteEndpoint(base_url, _LISTING, key_env=key_env)
    with RemoteClient(endpoint) as client:
        return client.served_models()


_LISTING = "(listing)"


def _positive_int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None
