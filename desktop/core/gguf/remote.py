"""Remote GGUF headers: HTTP(S) range requests with the standard library.

Bytes are fetched in growing chunks (1 MiB, then doubling) only as far as the header goes.
Proxies come from the environment (HTTP_PROXY, HTTPS_PROXY, NO_PROXY) through urllib. Redirects
are followed (the Hub sends ``resolve`` URLs to a CDN); ``Authorization`` is dropped whenever a
redirect leaves the origin it was meant for. A server that ignores ``Range`` and answers 200 is
read as a stream and closed as soon as the header is complete. Tokens never appear in messages.
"""

from __future__ import annotations

import http.client
import logging
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from email.message import Message
from typing import IO, Any

from desktop.core.errors import HubError
from desktop.core.gguf.format import GGUFRemoteError, RawHeader
from desktop.core.gguf.parse import parse_header
from desktop.core.gguf.reader import GGUFInfo, build_info
from desktop.core.hub import Hub, same_origin

log = logging.getLogger(__name__)

USER_AGENT = "llm-scout/0.1 (GGUF header reader)"
#: Pauses before the second and third try after a 429/5xx answer or a dropped connection.
RETRY_DELAYS: tuple[float, ...] = (0.5, 1.5)
_RETRY_STATUSES = {429, 500, 502, 503, 504}
_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_UNSATISFIED_RANGE = re.compile(r"bytes\s+\*/(\d+)")


def _host(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or "the server"
    return f"{host}:{parts.port}" if parts.port else host


def _display(url: str) -> str:
    path = urllib.parse.urlsplit(url).path
    return urllib.parse.unquote(path.rsplit("/", 1)[-1]) or url


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """Follows redirects but never carries Authorization to another origin."""

    def redirect_request(  # noqa: PLR0917 (urllib fixes this signature)
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and not same_origin(newurl, req.full_url):
            new.remove_header("Authorization")
        return new


class _Retry(Exception):
    def __init__(self, error: GGUFRemoteError) -> None:
        super().__init__(str(error))
        self.error = error


class HttpRangeSource:
    """A :class:`~desktop.core.gguf.format.ByteSource` over HTTP range requests."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None,
        timeout: float,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._url = url
        self._auth_url = url
        self._token = token
        self._timeout = timeout
        self._sleep = sleep
        self._size: int | None = None
        self._stream: http.client.HTTPResponse | None = None
        self._stream_pos = 0
        self._opener = urllib.request.build_opener(_RedirectHandler())
        self._host = _host(url)
        self._display = _display(url)
        self.bytes_received = 0
        self.requests = 0

    @property
    def size(self) -> int | None:
        return self._size

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def read(self, offset: int, length: int) -> bytes:
        if self._stream is not None:
            return self._read_stream(offset, length)
        attempts = len(RETRY_DELAYS) + 1
        for attempt in range(attempts):
            try:
                data = self._request(offset, length)
            except _Retry as retry:
                if attempt == attempts - 1:
                    raise retry.error from None
                log.debug("retrying %s after: %s", self._host, retry.error)
                self._sleep(RETRY_DELAYS[attempt])
                continue
            self.bytes_received += len(data)
            return data
        raise AssertionError("unreachable")  # pragma: no cover

    # -- one request -----------------------------------------------------------------------

    def _headers(self, offset: int, length: int) -> dict[str, str]:
        headers = {
            "Range": f"bytes={offset}-{offset + length - 1}",
            "User-Agent": USER_AGENT,
            "Accept-Encoding": "identity",
        }
        if self._token and same_origin(self._url, self._auth_url):
            headers["Authorization"] = f"Bearer {self._token}"
        return headers

    def _request(self, offset: int, length: int) -> bytes:
        request = urllib.request.Request(self._url, headers=self._headers(offset, length))
        self.requests += 1
        try:
            response = self._opener.open(request, timeout=self._timeout)
        except urllib.error.HTTPError as exc:
            with exc:
                return self._http_error(exc.code, exc.headers, offset)
        except TimeoutError:
            raise self._timeout_error(offset) from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError):
                raise self._timeout_error(offset) from None
            if isinstance(reason, ConnectionResetError):
                raise _Retry(self._connection_error(reason, offset)) from None
            raise self._connection_error(reason, offset) from None
        except (http.client.HTTPException, ConnectionError) as exc:
            raise _Retry(self._connection_error(exc, offset)) from None
        final_url = response.geturl()
        if final_url != self._url:
            log.debug("%s redirected to %s", self._host, _host(final_url))
            self._url = final_url
        if response.status == 200:
            return self._start_stream(response, offset, length)
        with response:
            if response.status != 206:
                raise GGUFRemoteError(
                    f"{self._host} answered HTTP {response.status} for {self._display}",
                    status=response.status,
                )
            match = _CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", "").strip())
            if match is None or int(match.group(1)) != offset:
                raise GGUFRemoteError(
                    f"{self._host} sent the wrong part of {self._display}", offset=offset
                )
            if match.group(3) != "*":
                self._size = int(match.group(3))
            return self._read_body(response, length, offset)

    def _read_body(self, response: http.client.HTTPResponse, length: int, offset: int) -> bytes:
        try:
            return response.read(length)
        except TimeoutError:
            raise self._timeout_error(offset) from None
        except (http.client.HTTPException, ConnectionError) as exc:
            raise _Retry(self._connection_error(exc, offset)) from None

    def _start_stream(self, response: http.client.HTTPResponse, offset: int, length: int) -> bytes:
        """The server ignored Range: read the body as a stream from here on."""
        log.debug("%s ignores range requests; reading %s as a stream", self._host, self._display)
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit():
            self._size = int(declared)
        self._stream = response
        self._stream_pos = 0
        return self._read_stream(offset, length)

    def _read_stream(self, offset: int, length: int) -> bytes:
        stream = self._stream
        assert stream is not None
        while self._stream_pos < offset:  # skip forward (the parser reads in order)
            skipped = self._read_body(stream, min(offset - self._stream_pos, 1 << 20), offset)
            if not skipped:
                return b""
            self._stream_pos += len(skipped)
        if self._stream_pos != offset:
            raise GGUFRemoteError(
                f"{self._host} cannot serve {self._display} from byte {offset} again",
                offset=offset,
            )
        try:
            data = self._read_body(stream, length, offset)
        except _Retry as retry:
            raise retry.error from None
        self._stream_pos += len(data)
        self.bytes_received += len(data)
        return data

    # -- errors ----------------------------------------------------------------------------

    def _http_error(self, status: int, headers: Message, offset: int) -> bytes:
        where = offset or None
        if status == 416:
            match = _UNSATISFIED_RANGE.fullmatch((headers.get("Content-Range") or "").strip())
            if match is not None:
                self._size = int(match.group(1))
            return b""  # past the end: the parser reports the file as cut short
        name, host = self._display, self._host
        if status == 401:
            hint = (
                "the token was not accepted"
                if self._token
                else "a Hugging Face token with access is needed"
            )
            message = f"{host} refused access to {name} (HTTP 401): {hint}"
        elif status == 403:
            message = (
                f"{host} forbids access to {name} (HTTP 403): the repository may be gated, "
                "so accept its terms on the Hub and use a token with access"
            )
        elif status == 404:
            message = (
                f"{name} was not found on {host} (HTTP 404): check the repository, "
                "revision and file name"
            )
        elif status == 429:
            message = f"{host} is limiting requests (HTTP 429): try again later"
        elif status >= 500:
            message = f"{host} failed with HTTP {status} while sending {name}: try again later"
        else:
            message = f"{host} answered HTTP {status} for {name}"
        error = GGUFRemoteError(message, offset=where, status=status)
        if status in _RETRY_STATUSES:
            raise _Retry(error)
        raise error

    def _timeout_error(self, offset: int) -> GGUFRemoteError:
        return GGUFRemoteError(
            f"{self._host} did not answer within {self._timeout:g} seconds",
            offset=offset or None,
            kind="gguf.remote.timeout",
        )

    def _connection_error(self, reason: Any, offset: int) -> GGUFRemoteError:
        if isinstance(reason, OSError) and reason.strerror:
            detail = reason.strerror
        else:
            detail = str(reason) or type(reason).__name__
        return GGUFRemoteError(
            f"Could not read {self._display} from {self._host}: {detail}",
            offset=offset or None,
            kind="gguf.remote.connection",
        )


def read_url(url: str, *, token: str | None = None, timeout: float = 30.0) -> tuple[RawHeader, str]:
    """Parse the header behind ``url``; returns it with the name messages use for the file."""
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise GGUFRemoteError(
            f"{url!r} is not an http or https address", kind="gguf.remote.bad_name"
        )
    display = _display(url)
    source = HttpRangeSource(url, token=token, timeout=timeout)
    try:
        raw = parse_header(source, display)
    finally:
        source.close()
    log.debug(
        "read remote GGUF header of %s: %d bytes in %d requests",
        display,
        source.bytes_received,
        source.requests,
    )
    return raw, display


def read_gguf_url(
    url: str, *, token: str | None = None, hub: Hub | None = None, timeout: float = 30.0
) -> GGUFInfo:
    """Read the header of a GGUF file over HTTP(S) with range requests.

    ``token`` is sent as ``Authorization: Bearer``; without one, ``hub``'s token is sent when
    the URL is on that Hub's endpoint. Never across a redirect to another origin.
    """
    if not token and hub is not None:
        token = hub.token_for(url)
    raw, display = read_url(url, token=token, timeout=timeout)
    return build_info(raw, url, display)


def read_remote_gguf(
    hub: Hub, repo: str, filename: str, *, revision: str = "main", timeout: float = 30.0
) -> GGUFInfo:
    """Read the header of ``filename`` in the Hugging Face repo ``repo`` on ``hub``."""
    try:
        url = hub.file_url(repo, filename, revision)
    except HubError as exc:
        raise GGUFRemoteError(exc.message, kind="gguf.remote.bad_name") from exc
    raw, display = read_url(url, token=hub.token_for(url), timeout=timeout)
    return build_info(raw, url, display)
