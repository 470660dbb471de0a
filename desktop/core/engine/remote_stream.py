"""Server-sent events of an OpenAI-compatible streaming completion, parsed and checked.

Pure functions: :func:`sse_lines` cuts a response's bytes into text lines, each at most
:data:`MAX_LINE_BYTES` long (a server that never ends a line is stopped there, not buffered: a
700 MB line would otherwise be read whole) and strictly UTF-8 (bytes that are not text are
called so); :func:`sse_data` turns the lines into the ``data``
payloads of its events (``[DONE]`` included), :func:`parse_chunk` turns one payload into a
:class:`Chunk` (the text of the delta, a finish reason, usage, llama-server's ``timings``, or
an error the server reported mid-stream). Anything else raises :class:`MalformedStream` with a
sentence that quotes the start of what came.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

DONE = "[DONE]"
#: The longest line a stream may send. One event is one JSON chunk of a few hundred bytes
#: (a few KiB with log-probabilities); a line past this is not a stream of events.
MAX_LINE_BYTES = 4 * 1024 * 1024
_LINE_END = re.compile(rb"\r\n|\r|\n")


class MalformedStream(Exception):
    """The server's stream is not server-sent events of completion chunks."""


@dataclass(frozen=True)
class Timings:
    """llama-server's ``timings``: prompt and generation counts and milliseconds."""

    prompt_n: int | None = None
    prompt_ms: float | None = None
    predicted_n: int | None = None
    predicted_ms: float | None = None
    cache_n: int | None = None

    @property
    def prompt_per_second(self) -> float | None:
        if self.prompt_n and self.prompt_ms:
            return self.prompt_n / (self.prompt_ms / 1000.0)
        return None

    @property
    def predicted_per_second(self) -> float | None:
        if self.predicted_n and self.predicted_ms:
            return self.predicted_n / (self.predicted_ms / 1000.0)
        return None


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None


@dataclass(frozen=True)
class Chunk:
    """One event of the stream. ``error``: what the server reported instead of a chunk."""

    text: str = ""
    finish_reason: str | None = None
    usage: Usage | None = None
    timings: Timings | None = None
    error: str | None = None


def _preview(text: str, limit: int = 60) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def sse_lines(chunks: Iterable[bytes], max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[str]:
    """The lines of a byte stream (ended by CRLF, LF or CR, as server-sent events may be),
    decoded as UTF-8; :class:`MalformedStream` for a line longer than ``max_line_bytes`` (at
    most that much is ever held) or bytes that are not UTF-8."""
    buffer = bytearray()
    for chunk in chunks:
        buffer += chunk
        start = 0
        while True:
            match = _LINE_END.search(buffer, start)
            if match is None or (match.group() == b"\r" and match.end() == len(buffer)):
                break  # no whole line yet (a CR at the end may be half of a CRLF)
            yield _decode(buffer[start : match.start()])
            start = match.end()
        del buffer[:start]
        if len(buffer) > max_line_bytes:
            raise MalformedStream(
                f"The server sent a line longer than {max_line_bytes:,} bytes "
                f"(it starts {_preview(_decode(buffer[:60], strict=False))}); a stream's lines "
                "hold one event each."
            )
    if buffer:
        yield _decode(buffer.rstrip(b"\r"))


def _decode(raw: bytes | bytearray, *, strict: bool = True) -> str:
    try:
        return bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        if not strict:
            return bytes(raw).decode("utf-8", "replace")
        raise MalformedStream(
            f"The server sent bytes that are not text: {bytes(raw[:24])!r}..."
        ) from None


def sse_data(lines: Iterable[str]) -> Iterator[str]:
    """The ``data`` of each event (lines of one event joined with newlines). Comments (``:``)
    and the ``event``, ``id`` and ``retry`` fields are skipped; a line that is no field at all
    is :class:`MalformedStream`."""
    data: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        name, colon, value = line.partition(":")
        if not colon:
            raise MalformedStream(f"The server sent a line that is not an event: {_preview(line)}.")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name not in ("event", "id", "retry"):
            raise MalformedStream(f"The server sent a line that is not an event: {_preview(line)}.")
    if data:
        yield "\n".join(data)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _error_text(error: Any) -> str:
    if isinstance(error, Mapping):
        message = error.get("message")
        code = error.get("code")
        text = str(message) if message else json.dumps(error)[:200]
        return f"{text} (code {code})" if code is not None and str(code) not in text else text
    return str(error)[:200]


def parse_chunk(payload: str) -> Chunk:
    """One ``data`` payload (not ``[DONE]``) as a :class:`Chunk`."""
    try:
        data = json.loads(payload)
    except json.JSONDecodeError:
        raise MalformedStream(
            f"The server sent an event that is not JSON: {_preview(payload)}."
        ) from None
    if not isinstance(data, Mapping):
        raise MalformedStream(
            f"The server sent an event that is not an object: {_preview(payload)}."
        )
    if data.get("error"):
        return Chunk(error=_error_text(data["error"]))
    choices = data.get("choices")
    if not isinstance(choices, list):
        raise MalformedStream(f"The server sent an event without choices: {_preview(payload)}.")
    text, finish = "", None
    if choices:
        choice = choices[0]
        if not isinstance(choice, Mapping):
            raise MalformedStream(f"The server sent a malformed choice: {_preview(payload)}.")
        delta = choice.get("delta")
        if isinstance(delta, Mapping):
            content = delta.get("content")
            text = content if isinstance(content, str) else ""
        elif isinstance(choice.get("text"), str):  # /completions streams text, not a delta
            text = choice["text"]
        reason = choice.get("finish_reason")
        finish = reason if isinstance(reason, str) and reason else None
    return Chunk(text=text, finish_reason=finish, usage=_usage(data), timings=_timings(data))


def _usage(data: Mapping[str, Any]) -> Usage | None:
    usage = data.get("usage")
    if not isinstance(usage, Mapping):
        return None
    details = usage.get("prompt_tokens_details")
    cached = _int(details.get("cached_tokens")) if isinstance(details, Mapping) else None
    return Usage(_int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens")), cached)


def _timings(data: Mapping[str, Any]) -> Timings | None:
    timings = data.get("timings")
    if not isinstance(timings, Mapping):
        return None
    return Timings(
        prompt_n=_int(timings.get("prompt_n")),
        prompt_ms=_float(timings.get("prompt_ms")),
        predicted_n=_int(timings.get("predicted_n")),
        predicted_ms=_float(timings.get("predicted_ms")),
        cache_n=_int(timings.get("cache_n")),
    )
