"""One answer streamed by an OpenAI-compatible server, from the request sent to its last event.

:class:`RemoteAnswer` posts a streaming ``/chat/completions`` (``/completions`` for a raw
prompt or token ids; the body is :func:`payload`), turns the server-sent events into ``tokens``
events and ends with one ``done`` or ``error``, with the answer's figures
(:class:`~desktop.core.engine.backend.Measures`) handed to its client just before. It holds the
limits that hold whatever the server does: ``max_tokens`` deltas at most (finish ``length``),
the stall timeout of the HTTP client, an overall deadline of that timeout plus a second per
token asked for, and ``cancel`` (the stream is closed; the answer ends ``cancelled`` and keeps
its text). The client (:class:`~desktop.core.engine.remote.RemoteClient`) starts it on its own
thread and hears from it through :class:`AnswerHooks`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from desktop.core import threads
from desktop.core.engine import protocol as p
from desktop.core.engine.backend import Measures
from desktop.core.engine.remote_endpoint import RemoteEndpoint
from desktop.core.engine.remote_http import (
    RemoteFailure,
    kept,
    not_http,
    read_capped,
    refused,
    server_message,
    status_failure,
)
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

#: How long a cancelled stream may take to notice its flag before the response is closed under it.
CANCEL_GRACE_S = 1.0
#: The slowest a server may answer before the overall deadline ends it: a second per token.
MIN_TOKENS_PER_S = 1.0
#: Tokens an answer without a ``max_tokens`` is given time for.
UNBOUNDED_TOKENS = 4096

_FINISH: Mapping[str, p.FinishReason] = {"stop": "stop", "length": "length", "eos": "stop"}


@dataclass(frozen=True)
class AnswerHooks:
    """What an answer tells its client, on the answer's thread.

    ``deliver(request, event)``: an event of the answer. ``fail(request, kind, message)``: its
    error event. ``server_error(text)``: what the server said went wrong (kept for the error
    event and the engine's log tail). ``ended(request, measures)``: the answer is over, with its
    figures; called just before its ``done`` or ``error``.
    """

    deliver: Callable[[Request, p.Event], None]
    fail: Callable[[Request, str, str], None]
    server_error: Callable[[str], None]
    ended: Callable[[Request, Measures], None]


class RemoteAnswer:
    """One generation in flight: what cancel needs, and what the server said about it."""

    def __init__(
        self,
        request: Request,
        endpoint: RemoteEndpoint,
        probe: ServerMemoryProbe | None,
        hooks: AnswerHooks,
    ) -> None:
        self.request = request
        self.endpoint = endpoint
        self.cancelled = threading.Event()
        self.expired = threading.Event()  # past the deadline
        self.response: Any = None
        self.usage: Usage | None = None
        self.timings: Timings | None = None
        self.memory: list[ServerMemory] = []
        self.memory_thread: threading.Thread | None = None
        self._probe = probe
        self._hooks = hooks

    def cancel(self) -> None:
        """Set the flag the reader checks at every line; close the response from here only if
        the reader has not ended a moment later (a stream that sends nothing). Closing it at
        once, while the reader is inside a read, could deadlock in the connection's lock."""
        self.cancelled.set()

        def close_if_stuck() -> None:
            response = self.response
            if response is None or self.request.done:
                return
            try:
                response.close()
            except Exception:  # closing from another thread: the flag still ends the reader
                pass

        timer = threading.Timer(CANCEL_GRACE_S, close_if_stuck)
        timer.daemon = True
        timer.start()

    def run(self, http: Any, headers: Mapping[str, str], command: p.Generate) -> None:
        """Stream the answer to ``command`` over ``http`` until its last event (blocking)."""
        import httpx2

        request = self.request
        path, body = payload(command, self.endpoint.model)
        url = self.endpoint.base_url + path
        finish: str | None = None
        ended = False
        max_tokens = command.params.max_tokens
        deadline = threading.Timer(self._deadline_s(max_tokens), self._expire)
        deadline.daemon = True
        deadline.start()
        deltas = 0
        try:
            with http.stream("POST", url, json=body, headers=headers) as resp:
                self.response = resp
                if resp.status_code != 200:
                    said = server_message(read_capped(resp).decode("utf-8", "replace"))
                    self._hooks.server_error(said)
                    raise status_failure(self.endpoint, resp.status_code, said, url)
                for data in sse_data(sse_lines(resp.iter_bytes())):
                    if self.cancelled.is_set():
                        break
                    if data.strip() == DONE:
                        ended = True
                        break
                    if 0 < max_tokens <= deltas:
                        finish, ended = "length", True  # the server went on past max_tokens
                        break
                    chunk = parse_chunk(data)
                    if chunk.error is not None:
                        self._hooks.server_error(chunk.error)
                        raise RemoteFailure(
                            "server_error",
                            f"The server reported an error in the middle of the answer: "
                            f"{chunk.error}.{kept(request)}",
                        )
                    if chunk.text:
                        first = request.meter.t_first is None
                        deltas += 1
                        self._hooks.deliver(request, p.Tokens(command.id, chunk.text, 1))
                        if first:
                            self._read_memory()
                    self.usage = chunk.usage or self.usage
                    self.timings = chunk.timings or self.timings
                    finish = chunk.finish_reason or finish
        except RemoteFailure as failure:
            self._end_failed(failure.kind, failure.message)
            return
        except MalformedStream as exc:
            self._end_failed("malformed", f"{exc}{kept(request)}")
            return
        except httpx2.TimeoutException:
            self._end_failed(
                "timeout",
                f"The server sent nothing for {self.endpoint.stall_timeout_s:g} s (the "
                f"remote_timeout_s setting).{kept(request)}",
            )
            return
        except httpx2.ConnectError:
            self._end_failed("refused", refused(self.endpoint))
            return
        except httpx2.RemoteProtocolError as exc:
            if self.response is None:  # no HTTP answer at all: garbage, not a dropped line
                self._end_failed("malformed", not_http(self.endpoint))
                return
            self._end_failed(
                "disconnected",
                f"The server closed the connection in the middle of the answer "
                f"({type(exc).__name__}).{kept(request)}",
            )
            return
        except (httpx2.TransportError, httpx2.StreamError) as exc:
            self._end_failed(
                "disconnected",
                f"The server closed the connection in the middle of the answer "
                f"({type(exc).__name__}).{kept(request)}",
            )
            return
        finally:
            deadline.cancel()
        if self.expired.is_set():
            self._end_failed("timeout", self._expired_sentence(max_tokens))
        elif self.cancelled.is_set():
            self._end_done("cancelled")
        elif not ended and finish is None:
            self._end_failed(
                "disconnected",
                f"The server closed the connection in the middle of the answer.{kept(request)}",
            )
        else:
            self._end_done(_FINISH.get(finish or "stop", "stop"))

    def _read_memory(self) -> None:
        """A memory reading of the server, off the stream's thread (it must not delay it)."""
        probe = self._probe
        if probe is None or (probe._probed and probe.source is None):
            return

        def read() -> None:
            reading = probe.read()
            if reading is not None:
                self.memory.append(reading)

        thread = threading.Thread(target=read, name="remote-memory", daemon=True)
        self.memory_thread = thread
        threads.start(thread)

    def _deadline_s(self, max_tokens: int) -> float:
        tokens = max_tokens if max_tokens > 0 else UNBOUNDED_TOKENS
        return self.endpoint.stall_timeout_s + tokens / MIN_TOKENS_PER_S

    def _expire(self) -> None:
        """The deadline timer: end the answer as if cancelled, reported as a timeout."""
        if not self.request.done:
            self.expired.set()
            self.cancel()

    def _expired_sentence(self, max_tokens: int) -> str:
        seconds = self._deadline_s(max_tokens)
        return (
            f"The server did not finish the answer within {seconds:g} s (the remote timeout of "
            f"{self.endpoint.stall_timeout_s:g} s plus a second per token asked for)."
            f"{kept(self.request)}"
        )

    def _end_failed(self, kind: str, message: str) -> None:
        if self.expired.is_set() and kind in ("disconnected", "timeout", "malformed"):
            command = self.request.command
            max_tokens = command.params.max_tokens if isinstance(command, p.Generate) else 0
            kind, message = "timeout", self._expired_sentence(max_tokens)
        elif self.cancelled.is_set() and kind in ("disconnected", "timeout", "malformed"):
            self._end_done("cancelled")  # closing the stream ourselves broke it
            return
        self._hooks.ended(self.request, self._measures())
        self._hooks.fail(self.request, kind, message)

    def _end_done(self, reason: p.FinishReason) -> None:
        request = self.request
        meter = request.meter
        t_now = time.perf_counter()
        sent = request.t_sent or t_now
        ttft_ms = meter.ttft_ms()
        usage, timings = self.usage, self.timings
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
        self._hooks.ended(request, self._measures(generated if generated != counted else None))
        self._hooks.deliver(
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

    def _measures(self, generated: int | None = None) -> Measures:
        """Where the answer's numbers came from, and the server's own when it gave them."""
        request, timings = self.request, self.timings
        if self.memory_thread is not None:
            self.memory_thread.join(PROBE_TIMEOUT_S + 1.0)
        server_rate = timings.predicted_per_second if timings is not None else None
        tokens_per_s: float | None = server_rate
        if server_rate is None and generated is not None and generated > 1:
            # The server streamed several tokens per event: its count over the client's clock.
            seconds = request.meter.finish().generation_s
            tokens_per_s = (generated - 1) / seconds if seconds else None
        memory = self.memory
        probe = self._probe
        if probe is not None and probe.source is not None:
            last = probe.read()
            if last is not None:
                memory = [*memory, last]
        kv = [m.kv_cache_usage_pct for m in memory if m.kv_cache_usage_pct is not None]
        vram = [m.vram_bytes for m in memory if m.vram_bytes is not None]
        return Measures(
            timing_source="server" if server_rate is not None else "client",
            memory_source="server" if (kv or vram) else "unknown",
            tokens_per_s=tokens_per_s,
            prompt_tokens_per_s=timings.prompt_per_second if timings is not None else None,
            generated_tokens=generated,
            server_vram_bytes=max(vram) if vram else None,
            kv_cache_usage_pct=max(kv) if kv else None,
        )


def payload(command: p.Generate, model: str) -> tuple[str, dict[str, Any]]:
    """The path (below the base URL) and the JSON body that ask ``model`` for ``command``."""
    params = command.params
    body: dict[str, Any] = {
        "model": model,
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
