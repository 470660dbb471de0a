"""A real fake Hugging Face Hub on 127.0.0.1 for tests and benchmarks.

It speaks what ``huggingface_hub`` 2.x asks for, over real HTTP/1.1 sockets:

- ``HEAD``/``GET /{repo}/resolve/{revision}/{path}``: ``X-Repo-Commit``, ``ETag`` (git blob sha1
  for plain files), and for LFS files a ``302`` to a second "CDN" server (another port, so the
  client drops its ``Authorization`` header as it does for the real CDN) with ``X-Linked-Etag``
  (the sha256) and ``X-Linked-Size``. Content is served with ``Range`` support (``206`` and
  ``Content-Range``, ``416`` when unsatisfiable).
- Hub errors as the Hub sends them (``X-Error-Code``): ``RepoNotFound`` (401 without a token, 404
  with one), ``RevisionNotFound``, ``EntryNotFound``, ``GatedRepo`` (401 without a token, 403 with
  a token that did not accept the licence).
- API routes: ``GET /api/models/{repo}[/revision/{rev}]`` (``?blobs=true`` adds sizes and LFS
  data), ``GET /api/models/{repo}/tree/{rev}[/{path}]`` (``?recursive=true``) and
  ``POST /api/models/{repo}/paths-info/{rev}``.

Faults for tests: per file, a queue of :class:`Fault` (a status code, a connection cut after N
body bytes, a stall) consumed by the next matching requests, and persistent per-file switches
(``rate_bps`` to serve slowly, ``wrong_bytes`` to serve corrupted content under the right headers).
Every request is logged (:attr:`FakeHub.requests`) with its range and the body bytes really sent.
A request in absolute form (``GET http://host/...``) is served too and logged as ``proxied``, so
the hub can stand in for an HTTP proxy (``HTTP_PROXY=hub.url``).

Use it as a context manager::

    with FakeHub() as hub:
        hub.add_file("org/model-GGUF", "model.Q4_K_M.gguf", b"GGUF...")
        os.environ["HF_ENDPOINT"] = hub.url

or from another process (benchmarks): ``python -m tests.hubserver --file REPO PATH LOCALFILE``
prints the endpoint URL on stdout and serves until stdin closes.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import hashlib
import json
import os
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, Literal
from urllib.parse import parse_qs, quote, unquote, urlsplit

from desktop.core.hashing import sha256_file

# Suffixes the Hub stores through LFS by default (.gitattributes of a new repo).
LFS_SUFFIXES = (".gguf", ".safetensors", ".bin", ".pt", ".pth", ".onnx", ".h5", ".msgpack")
_SEND_PIECE = 64 * 1024


@dataclass
class Fault:
    """One injected failure, consumed by the next request it applies to.

    ``on``: ``"head"`` (the metadata request), ``"get"`` (a content download) or ``"any"``.
    ``status``: answer with this HTTP status instead of the real response.
    ``drop_after``: send the real headers, then only this many body bytes, then cut the
    connection (``drop_mode`` ``"close"``: orderly close; ``"reset"``: TCP RST).
    ``stall_s``: wait this long before answering (combine with a client timeout).
    """

    on: Literal["head", "get", "any"] = "get"
    status: int | None = None
    drop_after: int | None = None
    drop_mode: Literal["close", "reset"] = "close"
    stall_s: float = 0.0


@dataclass
class HubFile:
    """A file in a fake repo. ``source`` (a path) serves large files from disk."""

    path: str
    size: int
    sha256: str
    git_sha1: str  # blob id of the content (plain files) or of the LFS pointer (LFS files)
    lfs: bool
    content: bytes | None = None
    source: Path | None = None
    rate_bps: float | None = None  # serve this file's body at this many bytes per second
    wrong_bytes: bool = False  # serve corrupted bytes under the announced size and hash
    faults: collections.deque[Fault] = field(default_factory=collections.deque)

    @property
    def etag(self) -> str:
        """What a client stores as the file's etag: the sha256 for LFS, else the git sha1."""
        return self.sha256 if self.lfs else self.git_sha1

    def pointer(self) -> bytes:
        return (
            "version https://git-lfs.github.com/spec/v1\n"
            f"oid sha256:{self.sha256}\nsize {self.size}\n"
        ).encode()


@dataclass
class HubRepo:
    repo_id: str
    commit: str
    gated: bool = False
    tokens: frozenset[str] = frozenset()  # tokens whose users accepted the licence
    files: dict[str, HubFile] = field(default_factory=dict)


@dataclass(frozen=True)
class RequestRecord:
    """One request as the server saw it."""

    server: Literal["hub", "cdn"]
    method: str
    path: str  # unquoted, without the query
    query: str
    status: int
    range: str | None  # the Range header as sent
    range_start: int | None
    body_bytes: int  # body bytes actually handed to the socket
    authorization: str | None
    repo_id: str | None = None
    filename: str | None = None
    proxied: bool = False  # the request line held an absolute URL: it came through a proxy


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def blob(n: int, seed: int = 0) -> bytes:
    """``n`` deterministic, incompressible-looking bytes (a different run for each seed)."""
    out = bytearray()
    counter = 0
    while len(out) < n:
        out += hashlib.sha256(b"%d-%d" % (seed, counter)).digest()
        counter += 1
    return bytes(out[:n])


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, hub: FakeHub, kind: Literal["hub", "cdn"]) -> None:
        self.hub = hub
        self.kind = kind
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        self.hub._track(request)
        super().process_request(request, client_address)


class FakeHub:
    """Two real HTTP servers (hub + CDN) on 127.0.0.1 serving fake repos; see the module doc."""

    def __init__(self, *, cdn: bool = True) -> None:
        self.use_cdn = cdn
        self.rate_bps: float | None = None  # default speed limit for every file body
        self._repos: dict[str, HubRepo] = {}
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._inflight = 0  # requests being answered right now
        self._requests: list[RequestRecord] = []
        self._sockets: set[socket.socket] = set()
        self._hub = _Server(self, "hub")
        self._cdn = _Server(self, "cdn")
        self._threads: list[threading.Thread] = []
        self._started = False

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The endpoint to put in ``HF_ENDPOINT``."""
        return f"http://127.0.0.1:{self._hub.server_address[1]}"

    @property
    def cdn_url(self) -> str:
        return f"http://127.0.0.1:{self._cdn.server_address[1]}"

    def start(self) -> FakeHub:
        if not self._started:
            for server in (self._hub, self._cdn):
                thread = threading.Thread(
                    target=server.serve_forever,
                    kwargs={"poll_interval": 0.05},
                    name=f"fakehub-{server.kind}",
                    daemon=True,
                )
                thread.start()
                self._threads.append(thread)
            self._started = True
        return self

    def close(self) -> None:
        """Stop both servers and cut every open connection."""
        if self._started:
            for server in (self._hub, self._cdn):
                server.shutdown()
        for server in (self._hub, self._cdn):
            server.server_close()
        with self._lock:
            sockets = list(self._sockets)
            self._sockets.clear()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads.clear()
        self._started = False

    def __enter__(self) -> FakeHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _track(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.add(sock)

    def _untrack(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.discard(sock)

    # --- content ---------------------------------------------------------------------------

    def add_repo(
        self, repo_id: str, *, gated: bool = False, tokens: tuple[str, ...] = ()
    ) -> HubRepo:
        """Create (or update) a repo. A gated repo serves files only to ``tokens``."""
        with self._lock:
            repo = self._repos.get(repo_id)
            if repo is None:
                commit = hashlib.sha1(repo_id.encode(), usedforsecurity=False).hexdigest()
                repo = HubRepo(repo_id, commit)
                self._repos[repo_id] = repo
            repo.gated = gated
            repo.tokens = frozenset(tokens)
            return repo

    def add_file(
        self,
        repo_id: str,
        path: str,
        content: bytes | None = None,
        *,
        source: Path | None = None,
        sha256: str | None = None,
        lfs: bool | None = None,
    ) -> HubFile:
        """Add a file from bytes or from a file on disk (``sha256`` skips hashing it)."""
        if (content is None) == (source is None):
            raise ValueError("give exactly one of content or source")
        if content is not None:
            size = len(content)
            digest = sha256 or hashlib.sha256(content).hexdigest()
        else:
            assert source is not None
            size = source.stat().st_size
            digest = sha256 or sha256_file(source)
        is_lfs = path.endswith(LFS_SUFFIXES) if lfs is None else lfs
        hub_file = HubFile(path=path, size=size, sha256=digest, git_sha1="", lfs=is_lfs)
        hub_file.content = content
        hub_file.source = source
        if is_lfs:
            hub_file.git_sha1 = git_blob_sha1(hub_file.pointer())
        else:
            data = content if content is not None else Path(str(source)).read_bytes()
            hub_file.git_sha1 = git_blob_sha1(data)
        repo = self._repos.get(repo_id) or self.add_repo(repo_id)
        with self._lock:
            repo.files[path] = hub_file
        return hub_file

    def file(self, repo_id: str, path: str) -> HubFile:
        return self._repos[repo_id].files[path]

    def repo(self, repo_id: str) -> HubRepo:
        return self._repos[repo_id]

    def inject(self, repo_id: str, path: str, *faults: Fault) -> None:
        """Queue faults for the next requests on one file (consumed in order)."""
        with self._lock:
            self._repos[repo_id].files[path].faults.extend(faults)

    # --- request log ---------------------------------------------------------------------

    @property
    def requests(self) -> list[RequestRecord]:
        """Every request so far. Waits (up to 2 s) for requests still being answered, since a
        client can see a whole response before the server thread has logged it."""
        with self._idle:
            self._idle.wait_for(lambda: self._inflight == 0, timeout=2.0)
            return list(self._requests)

    def content_gets(self, repo_id: str, path: str) -> list[RequestRecord]:
        """The GET requests that served (or tried to serve) the file's bytes."""
        return [
            r
            for r in self.requests
            if r.method == "GET"
            and r.repo_id == repo_id
            and r.filename == path
            and r.status not in (301, 302, 307)
        ]

    def bytes_sent(self, repo_id: str, path: str) -> int:
        return sum(r.body_bytes for r in self.content_gets(repo_id, path))

    def clear_log(self) -> None:
        with self._lock:
            self._requests.clear()

    def _begin(self) -> None:
        with self._lock:
            self._inflight += 1

    def _log(self, record: RequestRecord) -> None:
        with self._idle:
            self._requests.append(record)
            self._inflight -= 1
            self._idle.notify_all()

    def _take_fault(self, hub_file: HubFile, kind: Literal["head", "get"]) -> Fault | None:
        with self._lock:
            if hub_file.faults and hub_file.faults[0].on in (kind, "any"):
                return hub_file.faults.popleft()
        return None

    def _find(self, parts: list[str]) -> tuple[HubRepo, list[str]] | None:
        """Split URL path parts into a known repo (``owner/name`` or ``name``) and the rest."""
        for n in (2, 1):
            if len(parts) >= n:
                repo = self._repos.get("/".join(parts[:n]))
                if repo is not None:
                    return repo, parts[n:]
        return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = 60

    # quiet: tests read the request log instead
    def log_message(self, format: str, *args: Any) -> None:
        return

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        self.server.hub._untrack(self.connection)

    # --- dispatch ------------------------------------------------------------------------

    def do_HEAD(self) -> None:
        self._dispatch()

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def _dispatch(self) -> None:
        hub = self.server.hub
        hub._begin()
        split = urlsplit(self.path)
        path = unquote(split.path)
        self._record: dict[str, Any] = {
            "server": self.server.kind,
            "method": self.command,
            "path": path,
            "query": split.query,
            "status": 0,
            "range": self.headers.get("Range"),
            "range_start": None,
            "body_bytes": 0,
            "authorization": self.headers.get("Authorization"),
            "proxied": self.path.startswith(("http://", "https://")),
        }
        try:
            parts = [p for p in path.split("/") if p]
            if self.server.kind == "cdn":
                self._cdn(parts)
            elif parts[:2] == ["api", "models"]:
                self._api(parts[2:], parse_qs(split.query))
            else:
                found = hub._find(parts)
                if found is None or len(found[1]) < 3 or found[1][0] != "resolve":
                    self._error(404, "RepoNotFound", "Repository not found")
                else:
                    repo, rest = found
                    self._resolve(repo, unquote(rest[1]), "/".join(rest[2:]))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            hub._log(RequestRecord(**self._record))

    # --- responses -----------------------------------------------------------------------

    def _send(self, status: int, headers: dict[str, str], body: bytes = b"") -> None:
        self._record["status"] = status
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)
            self._record["body_bytes"] += len(body)

    def _json(self, document: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(document).encode()
        self._send(200, {"Content-Type": "application/json", **(headers or {})}, body)

    def _error(
        self, status: int, code: str | None, message: str, extra: dict[str, str] | None = None
    ) -> None:
        headers = {"Content-Type": "application/json", "X-Error-Message": message}
        if code:
            headers["X-Error-Code"] = code
        headers.update(extra or {})
        self._send(status, headers, json.dumps({"error": message}).encode())

    def _token(self) -> str | None:
        value = self.headers.get("Authorization") or ""
        return value[len("Bearer ") :] if value.startswith("Bearer ") else None

    def _check_repo_access(self, repo: HubRepo | None, repo_id: str) -> bool:
        """Answer the Hub's error for a missing or gated repo; True when access is fine."""
        token = self._token()
        if repo is None:
            self._error(401 if token is None else 404, "RepoNotFound", "Repository not found")
            return False
        if repo.gated and token not in repo.tokens:
            if token is None:
                message = (
                    f"Access to model {repo_id} is restricted. You must have access to it and be"
                    " authenticated to access it. Please log in."
                )
                self._error(401, "GatedRepo", message)
            else:
                message = (
                    f"Access to model {repo_id} is restricted and you are not in the authorized"
                    f" list. Visit https://huggingface.co/{repo_id} to ask for access."
                )
                self._error(403, "GatedRepo", message)
            return False
        return True

    # --- resolve -------------------------------------------------------------------------

    def _resolve(self, repo: HubRepo, revision: str, filename: str) -> None:
        hub = self.server.hub
        self._record.update(repo_id=repo.repo_id, filename=filename)
        if not self._check_repo_access(repo, repo.repo_id):
            return
        if revision not in ("main", repo.commit):
            self._error(404, "RevisionNotFound", "Invalid rev id: " + revision)
            return
        hub_file = repo.files.get(filename)
        commit = {"X-Repo-Commit": repo.commit}
        if hub_file is None:
            self._error(404, "EntryNotFound", "Entry not found", commit)
            return
        kind: Literal["head", "get"] = "head" if self.command == "HEAD" else "get"
        fault = hub._take_fault(hub_file, kind)
        if fault is not None and fault.stall_s:
            time.sleep(fault.stall_s)
        if fault is not None and fault.status is not None:
            self._error(fault.status, None, "Injected failure", commit)
            return
        headers = {
            **commit,
            "Accept-Ranges": "bytes",
            "ETag": f'"{hub_file.git_sha1}"',
        }
        if hub_file.lfs:
            headers["X-Linked-Etag"] = f'"{hub_file.sha256}"'
            headers["X-Linked-Size"] = str(hub_file.size)
        if hub_file.lfs and hub.use_cdn:
            quoted = quote(filename)
            location = f"{hub.cdn_url}/cdn/{repo.repo_id}/{repo.commit}/{quoted}"
            self._send(302, {**headers, "Location": location}, b"Found.")
            return
        if hub_file.lfs:
            headers["ETag"] = f'"{hub_file.sha256}"'
        self._content(hub_file, headers, fault if kind == "get" else None)

    def _cdn(self, parts: list[str]) -> None:
        hub = self.server.hub
        # /cdn/{repo...}/{commit}/{path...}
        found = hub._find(parts[1:]) if parts[:1] == ["cdn"] else None
        if found is None or len(found[1]) < 2:
            self._error(404, None, "Not found")
            return
        repo, rest = found
        filename = "/".join(rest[1:])
        self._record.update(repo_id=repo.repo_id, filename=filename)
        hub_file = repo.files.get(filename)
        if hub_file is None or rest[0] != repo.commit:
            self._error(404, None, "Not found")
            return
        fault = hub._take_fault(hub_file, "get") if self.command == "GET" else None
        if fault is not None and fault.stall_s:
            time.sleep(fault.stall_s)
        if fault is not None and fault.status is not None:
            self._error(fault.status, None, "Injected failure")
            return
        self._content(hub_file, {"ETag": f'"{hub_file.sha256}"', "Accept-Ranges": "bytes"}, fault)

    # --- content with ranges, throttling and faults ----------------------------------------

    def _parse_range(self, size: int) -> tuple[int, int] | Literal["bad"] | None:
        value = self.headers.get("Range")
        if not value:
            return None
        if not value.startswith("bytes=") or "," in value:
            return "bad"
        first, _, last = value[len("bytes=") :].strip().partition("-")
        try:
            if first == "":
                length = int(last)
                start, end = max(size - length, 0), size - 1
            else:
                start = int(first)
                end = min(int(last), size - 1) if last else size - 1
        except ValueError:
            return "bad"
        if start >= size or start > end:
            return "bad"
        return start, end

    def _content(self, hub_file: HubFile, headers: dict[str, str], fault: Fault | None) -> None:
        hub = self.server.hub
        size = hub_file.size
        wanted = self._parse_range(size)
        if wanted == "bad":
            self._send(416, {"Content-Range": f"bytes */{size}"})
            return
        status = 200
        start, end = 0, size - 1
        if wanted is not None:
            start, end = wanted
            status = 206
            headers = {**headers, "Content-Range": f"bytes {start}-{end}/{size}"}
            self._record["range_start"] = start
        length = end - start + 1 if size else 0
        self._send(status, {**headers, "Content-Length": str(length)})
        if self.command == "HEAD" or length == 0:
            return
        limit = length
        if fault is not None and fault.drop_after is not None:
            limit = min(length, fault.drop_after)
        rate = hub_file.rate_bps or hub.rate_bps
        plain = rate is None and limit == length and not hub_file.wrong_bytes
        with self._open(hub_file) as source:
            if plain and hub_file.source is not None:
                sent = self.connection.sendfile(source, start, length)
                self._record["body_bytes"] += sent
            else:
                self._stream(hub_file, source, start, limit, rate)
        if limit < length:
            self._cut(fault.drop_mode if fault is not None else "close")

    @contextlib.contextmanager
    def _open(self, hub_file: HubFile) -> Iterator[BinaryIO | None]:
        if hub_file.source is None:
            yield None
        else:
            with hub_file.source.open("rb") as f:
                yield f

    def _stream(
        self,
        hub_file: HubFile,
        source: BinaryIO | None,
        start: int,
        count: int,
        rate: float | None,
    ) -> None:
        piece = _SEND_PIECE if rate is None else max(1024, min(_SEND_PIECE, int(rate / 20)))
        bad_at = hub_file.size // 2 if hub_file.wrong_bytes else -1
        began = time.monotonic()
        sent = 0
        while sent < count:
            n = min(piece, count - sent)
            offset = start + sent
            if source is None:
                assert hub_file.content is not None
                data = hub_file.content[offset : offset + n]
            else:
                source.seek(offset)
                data = source.read(n)
            if offset <= bad_at < offset + n:
                mutable = bytearray(data)
                mutable[bad_at - offset] ^= 0xFF
                data = bytes(mutable)
            if rate is not None:
                due = began + (sent + n) / rate
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            self.wfile.write(data)
            sent += n
            self._record["body_bytes"] += n

    def _cut(self, mode: Literal["close", "reset"]) -> None:
        self.close_connection = True
        if mode == "reset":
            # SO_LINGER with a zero timeout makes close() send a TCP RST.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR if mode == "close" else socket.SHUT_RD)
        if mode == "reset":
            self.connection.close()

    # --- API -----------------------------------------------------------------------------

    def _api(self, parts: list[str], query: dict[str, list[str]]) -> None:
        hub = self.server.hub
        found = hub._find(parts)
        if found is None:
            self._check_repo_access(None, "/".join(parts[:2]))
            return
        repo, rest = found
        self._record["repo_id"] = repo.repo_id
        revision = unquote(rest[1]) if len(rest) >= 2 else "main"
        if revision not in ("main", repo.commit):
            self._error(404, "RevisionNotFound", "Invalid rev id: " + revision)
            return
        if not rest or rest[0] == "revision":
            blobs = query.get("blobs", ["false"])[0].lower() == "true"
            self._json(self._model_info(repo, blobs))
        elif rest[0] == "tree" and self.command == "GET":
            prefix = "/".join(rest[2:])
            recursive = query.get("recursive", ["false"])[0].lower() == "true"
            self._json(self._tree(repo, prefix, recursive))
        elif rest[0] == "paths-info" and self.command == "POST":
            length = int(self.headers.get("Content-Length") or 0)
            form = parse_qs(self.rfile.read(length).decode())
            wanted = form.get("paths", [])
            self._json([self._entry(repo.files[p]) for p in wanted if p in repo.files])
        else:
            self._error(404, None, "Not found")

    def _entry(self, hub_file: HubFile) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "type": "file",
            "oid": hub_file.git_sha1,
            "size": hub_file.size,
            "path": hub_file.path,
        }
        if hub_file.lfs:
            entry["lfs"] = {
                "oid": hub_file.sha256,
                "size": hub_file.size,
                "pointerSize": len(hub_file.pointer()),
            }
        return entry

    def _tree(self, repo: HubRepo, prefix: str, recursive: bool) -> list[dict[str, Any]]:
        base = f"{prefix}/" if prefix else ""
        entries: list[dict[str, Any]] = []
        folders: set[str] = set()
        for path in sorted(repo.files):
            if not path.startswith(base):
                continue
            rest = path[len(base) :]
            if "/" in rest:
                folder = base + rest.split("/", 1)[0]
                if folder not in folders:
                    folders.add(folder)
                    oid = hashlib.sha1(folder.encode(), usedforsecurity=False).hexdigest()
                    entries.append({"type": "directory", "oid": oid, "size": 0, "path": folder})
                if not recursive:
                    continue
            entries.append(self._entry(repo.files[path]))
        return entries

    def _model_info(self, repo: HubRepo, blobs: bool) -> dict[str, Any]:
        siblings: list[dict[str, Any]] = []
        for hub_file in sorted(repo.files.values(), key=lambda f: f.path):
            sibling: dict[str, Any] = {"rfilename": hub_file.path}
            if blobs:
                sibling["size"] = hub_file.size
                sibling["blobId"] = hub_file.git_sha1
                if hub_file.lfs:
                    sibling["lfs"] = {
                        "sha256": hub_file.sha256,
                        "size": hub_file.size,
                        "pointerSize": len(hub_file.pointer()),
                    }
            siblings.append(sibling)
        author = repo.repo_id.split("/")[0] if "/" in repo.repo_id else None
        return {
            "_id": repo.commit[:24],
            "id": repo.repo_id,
            "modelId": repo.repo_id,
            "author": author,
            "sha": repo.commit,
            "lastModified": "2025-01-01T00:00:00.000Z",
            "private": False,
            "gated": "manual" if repo.gated else False,
            "disabled": False,
            "downloads": 0,
            "likes": 0,
            "tags": ["gguf"],
            "siblings": siblings,
        }


def main(argv: list[str] | None = None) -> int:
    """Serve files from disk in this process until stdin closes (for benchmarks)."""
    parser = argparse.ArgumentParser(description="Serve a fake Hugging Face Hub on 127.0.0.1.")
    parser.add_argument(
        "--file",
        nargs=3,
        action="append",
        default=[],
        metavar=("REPO", "PATH", "LOCALFILE"),
        help="serve LOCALFILE as REPO's PATH (repeatable)",
    )
    parser.add_argument("--sha256", action="append", default=[], help="known sha256 per --file")
    parser.add_argument("--no-cdn", action="store_true", help="serve LFS files without redirect")
    parser.add_argument("--rate-bps", type=float, help="serve every body at this many bytes/s")
    args = parser.parse_args(argv)
    with FakeHub(cdn=not args.no_cdn) as hub:
        hub.rate_bps = args.rate_bps
        for i, (repo, path, local) in enumerate(args.file):
            known = args.sha256[i] if i < len(args.sha256) else None
            hub.add_file(repo, path, source=Path(local), sha256=known)
        sys.stdout.write(hub.url + "\n")
        sys.stdout.flush()
        with contextlib.suppress(KeyboardInterrupt):
            sys.stdin.read()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
