"""The fast string-array walk lands exactly where the plain item-by-item walk does, whatever the
strings hold (empty, long, zero bytes, bytes that look like length fields) and wherever the
buffer ends."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core.gguf import GGUFArraySummary, read_gguf
from desktop.core.gguf import strings as gguf_strings
from desktop.core.gguf.strings import skip_strings


def plain_walk(buf: bytes, pos: int, count: int, big_endian: bool) -> tuple[int, int]:
    """The reference: one length at a time, stopping before a string that is not whole."""
    code = ">Q" if big_endian else "<Q"
    done = 0
    while done < count and pos + 8 <= len(buf):
        end = pos + 8 + struct.unpack_from(code, buf, pos)[0]
        if end > len(buf):
            break
        pos = end
        done += 1
    return pos, done


def encode(strings: list[bytes], big_endian: bool) -> bytes:
    code = ">Q" if big_endian else "<Q"
    return b"".join(struct.pack(code, len(s)) + s for s in strings)


# Tokens as they come (short, no zero byte) mixed with everything that breaks the candidate
# chain: empty strings, strings past 255 bytes, zero bytes, and bytes shaped like a length field.
_token = st.binary(min_size=1, max_size=12).filter(lambda b: 0 not in b)
_awkward = st.one_of(
    st.just(b""),
    st.binary(min_size=250, max_size=600),
    st.binary(min_size=1, max_size=20),  # zero bytes allowed
    st.integers(1, 255).map(lambda n: struct.pack("<Q", n) + b"x" * n),
    st.integers(1, 255).map(lambda n: b"a" + struct.pack("<Q", n)),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    strings=st.lists(st.one_of(_token, _token, _token, _awkward), max_size=400),
    lead=st.binary(max_size=9),
    tail=st.binary(max_size=40),
    extra=st.integers(0, 3),
    cut=st.floats(0.0, 1.0),
    big_endian=st.booleans(),
)
def test_fast_walk_matches_the_plain_walk(
    *,
    strings: list[bytes],
    lead: bytes,
    tail: bytes,
    extra: int,
    cut: float,
    big_endian: bool,
) -> None:
    whole = lead + encode(strings, big_endian) + tail
    buf = whole[: len(lead) + int(cut * (len(whole) - len(lead)))]
    count = len(strings) + extra  # past the list: the tail is read as more strings
    with pytest.MonkeyPatch.context() as patch:  # many windows even in small buffers
        patch.setattr(gguf_strings, "_MIN_WINDOW", 64)
        patch.setattr(gguf_strings, "_MAX_WINDOW", 512)
        fast = skip_strings(buf, len(lead), count, big_endian)
    assert fast == plain_walk(buf, len(lead), count, big_endian)


def test_a_whole_vocabulary_in_default_windows() -> None:
    strings = [f"tok{i}".encode() * (1 + i % 7) for i in range(50_000)]
    strings[1234] = b""
    strings[20_000] = b"\x00" * 3
    strings[30_000] = b"y" * 4000
    buf = b"GGUF" + encode(strings, False) + b"\x07" + b"\x00" * 7
    pos, done = skip_strings(buf, 4, len(strings))
    assert done == len(strings)
    assert pos == len(buf) - 8
    assert skip_strings(buf, 4, len(strings) + 1) == (len(buf) - 8, len(strings))


def test_lists_the_candidates_do_not_fit_fall_back_to_the_plain_walk() -> None:
    # Every string holds what reads as a short length field: a candidate between every two
    # item starts, so the chain breaks at each item and jumping does not pay.
    strings = [b"a" + struct.pack("<Q", 5) + b"z" for _ in range(5000)]
    buf = encode(strings, False)
    assert skip_strings(buf, 0, len(strings)) == (len(buf), len(strings))


@pytest.mark.parametrize("fixture", ["smollm2_path", "gemma3_path"])
def test_real_token_lists(fixture: str, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(fixture)
    info = read_gguf(path)
    with path.open("rb") as handle:
        header = handle.read(info.data_offset)
    lists = [
        value
        for value in info.metadata.values()
        if isinstance(value, GGUFArraySummary) and value.item_type_name == "string"
    ]
    assert lists  # tokens (and merges)
    for array in lists:
        assert skip_strings(header, array.offset, array.length) == plain_walk(
            header, array.offset, array.length, False
        )
