"""What a remote engine's HTTP says when it goes wrong: one plain sentence per failure.

:class:`RemoteFailure` ends a request with an ``error`` event of its kind (``refused``,
``unauthorized``, ``endpoint_not_found``, ``model_not_found``, ``invalid_request``,
``server_error``, ``malformed``, ``timeout``, ``disconnected``). :func:`status_failure` is the
failure an HTTP status other than 200 means, with the server's own message
(:func:`server_message`) when its body has one. Bodies read whole (an error's text, the model
list, /metrics) are read only up to :data:`MAX_BODY_BYTES` (:func:`read_capped`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from desktop.core.engine.remote_endpoint import RemoteEndpoint
from desktop.core.engine.request import Request

#: The most of a body read whole (an error's text, the model list, /metrics).
MAX_BODY_BYTES = 8 * 1024 * 1024


class RemoteFailure(Exception):
    """Ends a request with an error event of ``kind``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def status_failure(e: RemoteEndpoint, status: int, said: str, url: str) -> RemoteFailure:
    """The failure HTTP ``status`` (not 200) of ``url`` means; ``said``: the server's own
    message (:func:`server_message`), or empty."""
    if status in (401, 403):
        if e.api_key():
            return RemoteFailure(
                "unauthorized",
                f"The server at {e.base_url} refused the API key in {e.key_variable} "
                f"(HTTP {status}).",
            )
        return RemoteFailure(
            "unauthorized",
            f"The server at {e.base_url} needs an API key (HTTP {status}): set {e.key_variable}.",
        )
    if status == 404:
        if url.endswith("/models"):
            return RemoteFailure(
                "endpoint_not_found",
                f"{url} does not exist (HTTP 404): give the base URL of an "
                "OpenAI-compatible server (it usually ends in /v1).",
            )
        return RemoteFailure(
            "model_not_found",
            f"The server at {e.base_url} does not serve {e.model!r} (HTTP 404"
            + (f": {said}" if said else "")
            + ").",
        )
    if status in (400, 422):
        return RemoteFailure(
            "invalid_request",
            f"The server refused the request (HTTP {status}" + (f": {said}" if said else "") + ").",
        )
    return RemoteFailure(
        "server_error",
        f"The server at {e.base_url} answered HTTP {status}" + (f": {said}" if said else "") + ".",
    )


def refused(e: RemoteEndpoint) -> str:
    return f"Nothing answers at {e.base_url}: the connection was refused (is the server running?)."


def not_http(e: RemoteEndpoint) -> str:
    return (
        f"The server at {e.base_url} answered with bytes that are not HTTP: it is not an "
        "OpenAI-compatible server (or something else listens on that port)."
    )


def kept(request: Request) -> str:
    """`` The partial answer (n characters) is kept.`` when text had streamed, else empty."""
    n = len(request.text)
    if not n:
        return ""
    return f" The partial answer ({n} characters) is kept."


def read_capped(response: Any, limit: int = MAX_BODY_BYTES) -> bytes:
    """A response's body, at most ``limit`` bytes of it (the rest is not read)."""
    parts: list[bytes] = []
    size = 0
    for part in response.iter_bytes():
        parts.append(part[: limit - size])
        size += len(parts[-1])
        if size >= limit:
            break
    return b"".join(parts)


def server_message(body: str) -> str:
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
