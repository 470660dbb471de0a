"""Remote GGUF headers against a real HTTP server on 127.0.0.1 serving real files."""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from desktop.core.gguf import (
    GGUFInfo,
    GGUFRemoteError,
    GGUFTruncatedError,
    read_gguf,
    read_gguf_url,
    read_remote_gguf,
)
from desktop.core.gguf import remote as gguf_remote
from desktop.core.hub import Hub
from tests.fixtures.tiny_models import write_tiny_model

MiB = 1024 * 1024
TOKEN = "hf_secret_token_value"
_RANGE = re.compile(r"bytes=(\d+)-(\d*)")


@dataclass
class Hits:
    path: str
    range: str | None
    authorization: str | None


@dataclass
class Server:
    """State shared with the handler: files served, what was asked and how much was sent."""

    files: dict[str, Path]
    base: str = ""
    other_base: str = ""  # the second server (another origin) for cross-origin redirects
    bytes_sent: int = 0
    hits: list[Hits] = field(default_factory=list)
    failures_left: dict[str, int] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    server_state: Server  # set per server class
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def do_GET(self) -> None:
        try:
            self._get()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            return  # the client hung up, which is what a header reader does

    def _get(self) -> None:
        state = self.server_state
        path = unquote(urlsplit(self.path).path)  # absolute URIs arrive through the proxy test
        auth = self.headers.get("Authorization")
        with state.lock:
            state.hits.append(Hits(self.path, self.headers.get("Range"), auth))
        first, _, rest = path.lstrip("/").partition("/")
        if first == "redirect":
            return self._redirect(f"/{rest}")
        if first == "away":
            return self._redirect(f"{state.other_base}/{rest}")
        if first == "private" and auth != f"Bearer {TOKEN}":
            return self._status(401)
        if first == "gated":
            return self._status(403)
        if first == "broken":
            return self._status(500)
        if first == "flaky":
            with state.lock:
                left = state.failures_left.get(rest, 1)
                state.failures_left[rest] = left - 1
            if left > 0:
                return self._status(503)
        if first == "slow":
            state.stop.wait(5)
            return self._status(504)
        key = rest if first in {"private", "flaky", "norange", "wrongrange"} else path.lstrip("/")
        target = state.files.get(key)
        if target is None:
            return self._status(404)
        self._send_file(
            target, ranged=first != "norange", shift=100 if first == "wrongrange" else 0
        )

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _status(self, code: int) -> None:
        body = b"{}"
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send_file(self, target: Path, *, ranged: bool, shift: int) -> None:
        size = target.stat().st_size
        match = _RANGE.fullmatch(self.headers.get("Range", "")) if ranged else None
        if match is None:
            start, end = 0, size - 1
            self.send_response(200)
        else:
            start = int(match.group(1))
            end = min(int(match.group(2)) if match.group(2) else size - 1, size - 1)
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start + shift}-{end + shift}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        with target.open("rb") as handle:
            handle.seek(start)
            left = end - start + 1
            while left > 0 and not self.server_state.stop.is_set():
                chunk = handle.read(min(left, 64 * 1024))
                self.wfile.write(chunk)
                with self.server_state.lock:
                    self.server_state.bytes_sent += len(chunk)
                left -= len(chunk)


@pytest.fixture
def tiny_path(tmp_path: Path) -> Path:
    return write_tiny_model(tmp_path / "tiny.gguf", arch="qwen2", n_vocab=512, ftype="Q8_0")


def _start(files: dict[str, Path]) -> tuple[Server, ThreadingHTTPServer, threading.Thread]:
    state = Server(files=files)
    handler = type("Handler", (_Handler,), {"server_state": state})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="test-http", daemon=True
    )
    thread.start()
    return state, httpd, thread


@pytest.fixture
def servers(smollm2_path: Path, tiny_path: Path) -> Iterator[tuple[Server, Server]]:
    """Two servers (two origins) serving the SmolLM2 demo file and a tiny model."""
    files = {
        "org/smol/resolve/main/smol.gguf": smollm2_path,
        "org/smol/resolve/refs/pr/1/smol.gguf": smollm2_path,
        "smol.gguf": smollm2_path,
        "tiny.gguf": tiny_path,
    }
    truncated = tiny_path.with_name("cut.gguf")
    truncated.write_bytes(tiny_path.read_bytes()[:-4096])
    files["cut.gguf"] = truncated
    empty = tiny_path.with_name("empty.gguf")
    empty.write_bytes(b"")
    files["empty.gguf"] = empty
    first, httpd1, thread1 = _start(files)
    second, httpd2, thread2 = _start(files)
    first.other_base, second.other_base = second.base, first.base
    yield first, second
    for state, httpd, thread in ((first, httpd1, thread1), (second, httpd2, thread2)):
        state.stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


@pytest.fixture
def server(servers: tuple[Server, Server]) -> Server:
    return servers[0]


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gguf_remote, "RETRY_DELAYS", (0.0, 0.0))
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("HF_HUB_DISABLE_IMPLICIT_TOKEN", raising=False)


def _same_header(remote: GGUFInfo, local: GGUFInfo) -> None:
    assert remote.file_size == local.file_size
    assert dict(remote.metadata) == dict(local.metadata)
    assert remote.tensors == local.tensors
    assert remote.arch == local.arch
    assert remote.data_offset == local.data_offset
    assert remote.layer_tensor_bytes == local.layer_tensor_bytes
    assert dict(remote.special_tokens) == dict(local.special_tokens)


def test_reads_only_the_header_of_a_98_mb_file(server: Server, smollm2_path: Path) -> None:
    info = read_gguf_url(f"{server.base}/smol.gguf")
    _same_header(info, read_gguf(smollm2_path))
    assert info.source == f"{server.base}/smol.gguf"
    assert info.header_bytes <= server.bytes_sent < 4 * MiB  # of 98 MB
    assert len(server.hits) <= 3
    assert all(hit.range and hit.range.startswith("bytes=") for hit in server.hits)


def test_read_remote_gguf_honours_hf_endpoint(
    server: Server, smollm2_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", server.base + "/")
    info = read_remote_gguf(Hub.from_settings(), "org/smol", "smol.gguf")
    assert info.source == f"{server.base}/org/smol/resolve/main/smol.gguf"
    assert server.hits[0].path == "/org/smol/resolve/main/smol.gguf"
    assert info.arch == read_gguf(smollm2_path).arch


def test_read_remote_gguf_uses_the_configured_mirror_over_hf_endpoint(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there
    hub = Hub.from_settings(server.base)  # the settings' hub_endpoint wins
    info = read_remote_gguf(hub, "org/smol", "smol.gguf")
    assert info.arch.n_layers == 30
    assert server.hits[0].path == "/org/smol/resolve/main/smol.gguf"


def test_revision_is_quoted_and_endpoint_argument_wins(server: Server) -> None:
    hub = Hub.from_settings("hf-mirror", endpoint=server.base)
    info = read_remote_gguf(hub, "org/smol", "smol.gguf", revision="refs/pr/1")
    assert server.hits[0].path == "/org/smol/resolve/refs%2Fpr%2F1/smol.gguf"
    assert info.arch.n_layers == 30


@pytest.mark.parametrize(
    ("repo", "filename"),
    [("", "f.gguf"), ("a/b/c", "f.gguf"), ("../b", "f.gguf"), ("a/b", "../f.gguf"), ("a/b", "")],
)
def test_read_remote_gguf_refuses_bad_names(repo: str, filename: str) -> None:
    with pytest.raises(GGUFRemoteError) as caught:
        read_remote_gguf(Hub("http://127.0.0.1:9"), repo, filename)
    assert caught.value.kind == "gguf.remote.bad_name"


def test_redirect_to_another_origin_drops_the_token(
    servers: tuple[Server, Server], smollm2_path: Path
) -> None:
    first, second = servers
    info = read_gguf_url(f"{first.base}/away/smol.gguf", token=TOKEN)
    assert info.arch == read_gguf(smollm2_path).arch
    assert first.hits[0].authorization == f"Bearer {TOKEN}"
    assert second.hits
    assert all(hit.authorization is None for hit in second.hits)
    # later chunks go straight to where the redirect led
    assert all(not hit.path.startswith("/away") for hit in first.hits[1:])


def test_same_origin_redirect_keeps_the_token(server: Server, tiny_path: Path) -> None:
    info = read_gguf_url(f"{server.base}/redirect/private/tiny.gguf", token=TOKEN)
    assert info.tensors == read_gguf(tiny_path).tensors
    assert [h.authorization for h in server.hits] == [f"Bearer {TOKEN}"] * len(server.hits)


def test_hf_token_is_sent_to_the_hub_endpoint_only(
    servers: tuple[Server, Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = servers
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("HF_ENDPOINT", first.base)
    hub = Hub.from_settings()
    assert read_gguf_url(f"{first.base}/private/tiny.gguf", hub=hub).arch.architecture == "qwen2"
    with pytest.raises(GGUFRemoteError) as caught:
        read_gguf_url(f"{second.base}/private/tiny.gguf", hub=hub)
    assert caught.value.status == 401
    assert all(hit.authorization is None for hit in second.hits)
    monkeypatch.setenv("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1")
    with pytest.raises(GGUFRemoteError):
        read_gguf_url(f"{first.base}/private/tiny.gguf", hub=Hub.from_settings())


def test_stored_hub_token_is_used(
    server: Server, monkeypatch: pytest.MonkeyPatch, scout_home: Path
) -> None:
    from huggingface_hub import constants

    token_file = scout_home / "hf" / "token"
    token_file.parent.mkdir(parents=True, exist_ok=True)
    token_file.write_text(TOKEN)
    # huggingface_hub fixes its token path at import time, before this test's HF_HOME
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(token_file))
    monkeypatch.setenv("HF_ENDPOINT", server.base)
    hub = Hub.from_settings()
    assert read_gguf_url(f"{server.base}/private/tiny.gguf", hub=hub).arch.architecture == "qwen2"
    assert server.hits[0].authorization == f"Bearer {TOKEN}"


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/private/tiny.gguf", 401, "token"),
        ("/gated/tiny.gguf", 403, "gated"),
        ("/missing.gguf", 404, "not found"),
        ("/broken/tiny.gguf", 500, "try again"),
    ],
)
def test_http_errors_are_plain_sentences(
    server: Server, path: str, status: int, words: str
) -> None:
    with pytest.raises(GGUFRemoteError) as caught:
        read_gguf_url(f"{server.base}{path}", token="wrong-token-value")
    error = caught.value
    assert error.status == status
    assert words in str(error)
    assert "wrong-token-value" not in str(error)
    assert "\n" not in str(error)
    assert "127.0.0.1" in str(error)


def test_server_errors_are_retried(server: Server, tiny_path: Path) -> None:
    info = read_gguf_url(f"{server.base}/flaky/tiny.gguf")
    assert info.tensors == read_gguf(tiny_path).tensors
    assert len([h for h in server.hits if h.path == "/flaky/tiny.gguf"]) == 2
    with pytest.raises(GGUFRemoteError):
        read_gguf_url(f"{server.base}/broken/tiny.gguf")
    assert len([h for h in server.hits if h.path == "/broken/tiny.gguf"]) == 3


def test_timeout(server: Server) -> None:
    with pytest.raises(GGUFRemoteError) as caught:
        read_gguf_url(f"{server.base}/slow/tiny.gguf", timeout=0.3)
    assert caught.value.kind == "gguf.remote.timeout"
    assert "0.3 seconds" in str(caught.value)


def test_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(GGUFRemoteError) as caught:
        read_gguf_url(f"http://127.0.0.1:{port}/tiny.gguf", timeout=2)
    assert caught.value.kind == "gguf.remote.connection"


def test_server_without_range_support(server: Server, smollm2_path: Path) -> None:
    info = read_gguf_url(f"{server.base}/norange/smol.gguf")
    _same_header(info, read_gguf(smollm2_path))
    assert len(server.hits) == 1
    # the reader stops as soon as the header is in; socket buffers hold a little more
    assert server.bytes_sent < 32 * MiB


def test_truncated_remote_file(server: Server, tiny_path: Path) -> None:
    with pytest.raises(GGUFTruncatedError) as caught:
        read_gguf_url(f"{server.base}/cut.gguf")
    assert caught.value.offset == tiny_path.stat().st_size - 4096
    assert server.bytes_sent < tiny_path.stat().st_size


def test_empty_remote_file(server: Server) -> None:
    with pytest.raises(GGUFTruncatedError):
        read_gguf_url(f"{server.base}/empty.gguf")


def test_wrong_content_range(server: Server) -> None:
    with pytest.raises(GGUFRemoteError, match="wrong part"):
        read_gguf_url(f"{server.base}/wrongrange/tiny.gguf")


def test_only_http_urls(tmp_path: Path) -> None:
    with pytest.raises(GGUFRemoteError) as caught:
        read_gguf_url(f"file://{tmp_path}/x.gguf")
    assert caught.value.kind == "gguf.remote.bad_name"


def test_proxy_from_environment(
    server: Server, tiny_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", server.base)
    monkeypatch.setenv("http_proxy", server.base)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    info = read_gguf_url("http://models.example.invalid/tiny.gguf")
    assert info.tensors == read_gguf(tiny_path).tensors
    assert server.hits[0].path == "http://models.example.invalid/tiny.gguf"
