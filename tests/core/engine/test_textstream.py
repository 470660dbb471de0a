"""Token bytes to streamed text: whole characters only, stop strings cut exactly."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from desktop.core.engine.textstream import TextStream

CHINESE = "长城是中国古代的军事防御工程。🙂"


def _stream(pieces: list[bytes], stop: tuple[str, ...] = ()) -> tuple[list[str], TextStream]:
    stream = TextStream(stop)
    out = [stream.feed(piece) for piece in pieces]
    out.append(stream.finish())
    return out, stream


def test_characters_split_across_tokens_arrive_whole() -> None:
    data = CHINESE.encode()
    pieces = [data[i : i + 1] for i in range(len(data))]  # one byte per "token"
    out, _ = _stream(pieces)
    assert "".join(out) == CHINESE
    assert all("\ufffd" not in chunk for chunk in out)
    # A 3-byte character shows up only with its last byte: two empty chunks, then the character.
    assert out[:3] == ["", "", "长"]


def test_naive_per_token_decoding_would_break_these_pieces() -> None:
    data = "长".encode()
    assert data[:2].decode("utf-8", errors="replace") != "长"  # what a naive stream shows
    out, _ = _stream([data[:2], data[2:]])
    assert out == ["", "长", ""]


def test_stop_string_split_across_tokens_is_cut_and_never_shown() -> None:
    out, stream = _stream([b"Hello <end", b"_of_", b"turn> ignored", b" more"], ("<end_of_turn>",))
    assert "".join(out) == "Hello "
    assert out[0] == "Hello "  # the possible start of the stop string is held back
    assert stream.stopped
    assert stream.stop_string == "<end_of_turn>"


def test_held_back_text_is_released_when_it_is_not_a_stop_string() -> None:
    out, stream = _stream([b"a <", b"b>", b" c <"], ("<end>",))
    assert out == ["a ", "<b>", " c ", "<"]
    assert not stream.stopped


def test_the_earliest_of_several_stop_strings_wins() -> None:
    out, stream = _stream([b"one STOP two END"], ("END", "STOP"))
    assert "".join(out) == "one "
    assert stream.stop_string == "STOP"


def test_invalid_bytes_are_dropped_and_an_unfinished_character_at_the_end_too() -> None:
    out, _ = _stream([b"ok\xff", "长".encode()[:2]])
    assert "".join(out) == "ok"


def test_nothing_is_emitted_after_a_stop() -> None:
    stream = TextStream(("x",))
    assert stream.feed(b"abxcd") == "ab"
    assert stream.feed(b"more") == ""
    assert stream.finish() == ""


@given(
    text=st.text(alphabet=st.sampled_from("ab<>/长城🙂 \n"), max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=12),
    stops=st.lists(
        st.text(alphabet=st.sampled_from("ab<>/长"), min_size=1, max_size=4), max_size=3
    ),
)
def test_stream_equals_text_before_the_first_stop(
    text: str, cuts: list[int], stops: list[str]
) -> None:
    data = text.encode()
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    pieces = [data[a:b] for a, b in itertools.pairwise(bounds)]
    out, _ = _stream(pieces, tuple(stops))
    # The reference is llama-cpp-python's non-streamed completion: after each token it looks for
    # the stop strings in the text so far and cuts at the earliest one found. A longer stop that
    # starts earlier but would only complete later never gets the chance.
    expected = text
    seen = b""
    for piece in pieces:
        seen += piece
        prefix = seen.decode("utf-8", errors="ignore")
        positions = [prefix.find(s) for s in stops if s in prefix]
        if positions:
            expected = prefix[: min(positions)]
            break
    assert "".join(out) == expected
    assert all("\ufffd" not in chunk for chunk in out)


def test_a_shorter_stop_completing_first_wins_over_a_longer_one_starting_earlier() -> None:
    """Found by hypothesis: with stops '>' and '<><', the text '<>' already stops at '>'."""
    out, stream = _stream([b"<>", b"<"], (">", "<><"))
    assert "".join(out) == "<"
    assert stream.stop_string == ">"
