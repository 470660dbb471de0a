"""``protocol.read_lines``: the lines of a pipe as they come, whatever the chunks."""

from __future__ import annotations

import os
import threading

import pytest

from desktop.core.engine import protocol as p


def _lines_of(chunks: list[bytes]) -> list[bytes]:
    read, write = os.pipe()

    def writer() -> None:
        for chunk in chunks:
            os.write(write, chunk)
        os.close(write)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        return list(p.read_lines(read))
    finally:
        thread.join()
        os.close(read)


def test_lines_split_across_chunks_come_out_whole() -> None:
    chunks = [b'{"a": 1}\n{"b"', b": 2}\n", b'{"c": 3}\n{"d": 4}\n{"e"', b": 5}"]
    assert _lines_of(chunks) == [
        b'{"a": 1}\n',
        b'{"b": 2}\n',
        b'{"c": 3}\n',
        b'{"d": 4}\n',
        b'{"e": 5}',
    ]


def test_many_lines_in_one_chunk_each_come_out() -> None:
    chunk = b"".join(f"line {i}\n".encode() for i in range(1000))
    lines = _lines_of([chunk])
    assert len(lines) == 1000
    assert lines[0] == b"line 0\n"
    assert lines[-1] == b"line 999\n"


def test_a_line_past_the_limit_is_cut_and_decode_rejects_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(p, "MAX_LINE_BYTES", 100)
    lines = _lines_of([b"x" * 150, b"y" * 10 + b"\n", b'{"type": "log"}\n'])
    # Cut once more than the limit is pending without a newline (or, if the rest came in the
    # same read, the whole over-long line).
    assert lines[0].startswith(b"x" * 150)
    assert len(lines[0]) > 100
    with pytest.raises(p.ProtocolError):
        p.decode(lines[0])
    assert lines[-1] == b'{"type": "log"}\n'


def test_events_arrive_in_few_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of event lines costs one read, not one per byte (the client had read its pipe
    byte by byte: ~100 system calls and GIL hand-offs per token on the GUI's process)."""
    read, write = os.pipe()
    burst = b"".join(p.encode(p.Tokens("g1", "word ", 1)) for _ in range(50))
    os.write(write, burst)
    os.close(write)
    calls = 0
    real_read = os.read

    def counting_read(fd: int, n: int) -> bytes:
        nonlocal calls
        calls += 1
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", counting_read)
    try:
        events = [p.decode(line) for line in p.read_lines(read)]
    finally:
        os.close(read)
    assert len(events) == 50
    assert all(isinstance(e, p.Tokens) for e in events)
    assert calls <= 2  # the burst, then the end of the pipe


def test_a_long_line_over_many_reads_comes_out_whole() -> None:
    line = b'{"text": "' + b"z" * 300_000 + b'"}\n'
    pieces = [line[i : i + 7_000] for i in range(0, len(line), 7_000)]
    assert _lines_of([*pieces, b"next\n"]) == [line, b"next\n"]
