"""Download throughput and resume cost: the app's downloader against a plain streaming GET.

One 512 MB file (written to a temp dir, deleted at the end) is served by the fake Hub
(``tests/hubserver.py``) in a separate process on 127.0.0.1: HEAD on the resolve URL answers
302 to a "CDN" port, as the real Hub does. Three ways to fetch it, alternating (the order
rotates every round), in the same run:

- **app**: ``desktop.core.download.download`` — HEAD for size/hash/location, huggingface_hub's
  ``http_get`` into the partial, sha256 computed while writing (helper thread), verification,
  ``fsync``, atomic move; the whole call is timed.
- **plain**: the same CDN URL with one streaming httpx GET written to a file (no hash, no
  fsync): the most Python can pull from this server.
- **plain+verify**: the plain GET plus what any verifying downloader must also do: sha256 of
  every byte in a helper thread and an ``fsync`` before the file counts as complete.

At full loopback speed (no limit) the transfer is CPU-bound, so sha256 and fsync show up in the
app/plain ratio; at 100 MB/s (a 1 Gbit/s line, faster than most users' internet) the server
sets the pace, as it does in real use. Target: app/plain >= 0.9. Then the resume cost: the
server (in this process, so its log can be read) cuts the connection at several offsets and the
table gives the bytes fetched twice per drop, against the chunk size (target: <= one chunk).

    .venv/bin/python benchmarks/download_throughput.py [--size-mb 512] [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import median, print_markdown_table  # noqa: E402
from desktop.core.download import RetryPolicy, download, request_for_files  # noqa: E402
from desktop.core.download.fetch import CHUNK_SIZE  # noqa: E402
from desktop.core.hub import Hub  # noqa: E402
from tests.fixtures.hubserver import FakeHub, Fault  # noqa: E402

REPO = "bench/Throughput-GGUF"
FILE = "throughput.Q4_K_M.gguf"
TARGET_RATIO = 0.9


def write_source(path: Path, size: int) -> str:
    """``size`` pseudo-random bytes (1 MiB random block, varied per MiB); returns the sha256."""
    digest = hashlib.sha256()
    block = os.urandom(1 << 20)
    with path.open("wb") as f:
        written = 0
        index = 0
        while written < size:
            piece = (index.to_bytes(8, "little") + block[8:])[: size - written]
            f.write(piece)
            digest.update(piece)
            written += len(piece)
            index += 1
    return digest.hexdigest()


def start_server(
    source: Path, sha256: str, rate_bps: float | None
) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "tests.fixtures.hubserver", "--file", REPO, FILE, str(source)]
    command += ["--sha256", sha256]
    if rate_bps:
        command += ["--rate-bps", str(rate_bps)]
    process = subprocess.Popen(
        command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    if not url.startswith("http://"):
        process.kill()
        raise SystemExit("the fake Hub did not start")
    return process, url


def cdn_url(endpoint: str) -> str:
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    meta = get_hf_file_metadata(hf_hub_url(REPO, FILE, endpoint=endpoint), token=False)
    return meta.location


def run_app(endpoint: str, url: str, work: Path, size: int) -> float:
    del url
    began = time.perf_counter()
    result = download(
        request_for_files(REPO, [FILE]), models_dir=work / "models", hub=Hub(endpoint)
    )
    elapsed = time.perf_counter() - began
    assert result.files[0].size == size
    result.path.unlink()
    return elapsed


def _plain_get(url: str, target: Path, sink: Callable[[bytes], None] | None) -> None:
    import httpx2

    with (
        httpx2.Client(timeout=60) as client,
        client.stream("GET", url) as response,
        target.open("wb") as f,
    ):
        response.raise_for_status()
        for chunk in response.iter_raw():
            f.write(chunk)
            if sink is not None:
                sink(chunk)
        if sink is not None:
            f.flush()
            os.fsync(f.fileno())


def run_plain(endpoint: str, url: str, work: Path, size: int) -> float:
    del endpoint
    target = work / "plain.bin"
    began = time.perf_counter()
    _plain_get(url, target, None)
    elapsed = time.perf_counter() - began
    assert target.stat().st_size == size
    target.unlink()
    return elapsed


def run_plain_verify(endpoint: str, url: str, work: Path, size: int) -> float:
    del endpoint
    target = work / "plain.bin"
    chunks: queue.Queue[bytes | None] = queue.Queue(maxsize=64)
    digest = hashlib.sha256()

    def hash_chunks() -> None:
        while (chunk := chunks.get()) is not None:
            digest.update(chunk)

    began = time.perf_counter()
    hasher = threading.Thread(target=hash_chunks)
    hasher.start()
    try:
        _plain_get(url, target, chunks.put)
    finally:
        chunks.put(None)
        hasher.join()
    elapsed = time.perf_counter() - began
    assert target.stat().st_size == size
    target.unlink()
    return elapsed


RUNNERS: dict[str, Callable[[str, str, Path, int], float]] = {
    "app": run_app,
    "plain": run_plain,
    "plain+verify": run_plain_verify,
}


def throughput(
    size: int, rounds: int, source: Path, sha256: str, work: Path, *, rate_bps: float | None
) -> list[list[object]]:
    process, endpoint = start_server(source, sha256, rate_bps)
    label = "no limit" if rate_bps is None else f"{rate_bps / 1e6:.0f} MB/s"
    try:
        url = cdn_url(endpoint)
        run_plain(endpoint, url, work, size)  # warm the page cache and the sockets once
        names = list(RUNNERS)
        seconds: dict[str, list[float]] = {name: [] for name in names}
        for i in range(rounds):
            order = names[i % len(names) :] + names[: i % len(names)]
            for name in order:
                seconds[name].append(RUNNERS[name](endpoint, url, work, size))
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(30)
    mb = size / 1e6
    rows: list[list[object]] = []
    for i in range(rounds):
        app, plain, verify = (seconds[n][i] for n in names)
        rows.append(
            [label, f"round {i + 1}", mb / app, mb / plain, mb / verify, plain / app, verify / app]
        )
    app_m, plain_m, verify_m = (median(seconds[n]) for n in names)
    ratios = [seconds["plain"][i] / seconds["app"][i] for i in range(rounds)]
    vratios = [seconds["plain+verify"][i] / seconds["app"][i] for i in range(rounds)]
    rows.append(
        [label, "median", mb / app_m, mb / plain_m, mb / verify_m, median(ratios), median(vratios)]
    )
    return rows


def resume_cost(source: Path, sha256: str, work: Path, size: int) -> list[list[object]]:
    offsets = [size // 5 + 1, size // 2 + 77_777, size * 4 // 5 + CHUNK_SIZE - 1]
    rows: list[list[object]] = []
    with FakeHub() as hub:
        hub.add_file(REPO, FILE, source=source, sha256=sha256)
        for offset in offsets:
            hub.clear_log()
            hub.inject(REPO, FILE, Fault(drop_after=offset))
            models = work / "resume"
            result = download(
                request_for_files(REPO, [FILE]),
                models_dir=models,
                hub=Hub(hub.url),
                retry=RetryPolicy(base_delay_s=0.1),
            )
            served = hub.bytes_sent(REPO, FILE)
            gets = hub.content_gets(REPO, FILE)
            refetched = served - size
            rows.append(
                [
                    f"{offset:,}",
                    len(gets),
                    f"{gets[1].range_start:,}" if len(gets) > 1 else "-",
                    f"{refetched:,}",
                    f"{CHUNK_SIZE:,}",
                    "yes" if refetched <= CHUNK_SIZE else "NO",
                ]
            )
            result.path.unlink()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Download throughput and resume cost.")
    parser.add_argument("--size-mb", type=int, default=512, help="file size in MB (10^6 bytes)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the three variants")
    parser.add_argument(
        "--rate-mb", type=float, default=100.0, help="the limited run's speed (MB/s; 0: skip)"
    )
    args = parser.parse_args(argv)
    from huggingface_hub.utils import logging as hub_logging

    hub_logging.set_verbosity(logging.ERROR)  # no reconnect warnings in the table
    size = args.size_mb * 1_000_000
    with tempfile.TemporaryDirectory(prefix="llm-scout-bench-") as tmp:
        work = Path(tmp)
        source = work / "source.gguf"
        sha256 = write_source(source, size)
        rows = throughput(size, args.rounds, source, sha256, work, rate_bps=None)
        if args.rate_mb:
            rows += throughput(size, args.rounds, source, sha256, work, rate_bps=args.rate_mb * 1e6)
        sys.stdout.write(
            f"Throughput, {args.size_mb} MB from the fake Hub (separate process, HEAD + 302 to a "
            f"CDN port), {os.cpu_count()} CPUs; ratio = app / plain, target >= {TARGET_RATIO}\n\n"
        )
        print_markdown_table(
            ["server", "run", "app MB/s", "plain MB/s", "plain+verify MB/s", "app/plain",
             "app/(plain+verify)"],
            rows,
        )  # fmt: skip
        sys.stdout.write("\nResume after a dropped connection (server cuts at the offset)\n\n")
        print_markdown_table(
            ["cut at byte", "GETs", "resumed from", "bytes fetched twice", "chunk", "<= 1 chunk"],
            resume_cost(source, sha256, work, size),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
