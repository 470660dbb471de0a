"""Reference packs on disk, the shipped texts and how a text becomes chunks."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from desktop.core.errors import QualityError
from desktop.core.quality import (
    BUILTIN_TEXTS,
    ReferencePack,
    load_text,
    plan_chunks,
    read_pack,
    write_pack,
)
from desktop.core.quality.pack import MAGIC, new_header


def _pack(chunks: int = 3, ctx: int = 16, k: int = 4) -> ReferencePack:
    rng = np.random.default_rng(0)
    n = ctx // 2
    header = new_header(
        tokenizer="ab" * 32,
        n_vocab=100,
        reference="Ref Q8_0",
        reference_file="ref.gguf",
        reference_bytes=123,
        text="en",
        text_sha256="cd" * 32,
        ctx=ctx,
        first_output=ctx // 2 - 1,
        n_outputs=n,
        top_k=k,
        chunks=chunks,
        chunks_planned=chunks + 1,
    )
    return ReferencePack(
        header,
        rng.integers(0, 100, (chunks, ctx)).astype(np.int32),
        rng.normal(-2, 1, (chunks, n)).astype(np.float32),
        rng.integers(0, 100, (chunks, n, k)).astype(np.int32),
        rng.normal(-3, 1, (chunks, n, k)).astype(np.float32),
        rng.normal(-4, 1, (chunks, n)).astype(np.float32),
    )


def test_a_pack_round_trips_and_is_small(tmp_path: Path) -> None:
    pack = _pack(chunks=4, ctx=512, k=32)
    path = tmp_path / "ref.refpack"
    size = write_pack(pack, path)
    back = read_pack(path)
    assert back.header == pack.header
    for name in ("tokens", "target_lp", "top_ids", "top_lp", "rest_lp"):
        np.testing.assert_array_equal(getattr(back, name), getattr(pack, name))
    assert not back.complete
    per_1000 = size * 1000 / pack.scored_tokens
    assert per_1000 < 2_000_000  # the ceiling: 2 MB per 1,000 tokens
    assert per_1000 < 300_000
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda b: b"GGUF" + b[4:], "is not a reference pack"),
        (lambda b: b[: len(b) // 2], "cut short"),
        (lambda b: b + b"xx", "bytes more"),
        (lambda b: MAGIC + bytes([9]) + b[len(MAGIC) + 1 :], "format 9"),
        (lambda b: b.replace(b'"n_vocab": 100', b'"n_vocab": -1'), "damaged header"),
    ],
)
def test_a_damaged_pack_is_refused_in_one_sentence(tmp_path: Path, damage, words) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.refpack"
    write_pack(_pack(), path)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(QualityError) as caught:
        read_pack(path)
    assert words in str(caught.value)
    assert caught.value.kind == "quality.pack"
    assert str(caught.value).count(". ") == 0


def test_missing_pack_and_folder(tmp_path: Path) -> None:
    with pytest.raises(QualityError, match="no reference pack"):
        read_pack(tmp_path / "nope.refpack")
    with pytest.raises(QualityError, match="folder"):
        read_pack(tmp_path)


def test_the_shipped_texts_are_long_enough_and_licensed() -> None:
    for name in BUILTIN_TEXTS:
        text = load_text(name)
        assert text.builtin
        assert len(text.sha256) == 64
    english = load_text("en").text
    chinese = load_text("zh").text
    assert 2000 <= len(english.split()) <= 3500
    assert 2500 <= len(re.findall(r"[\u4e00-\u9fff]", chinese)) <= 5000
    licence = (Path(__file__).resolve().parents[3] / "resources/quality/texts/LICENSE").read_text()
    assert "CC0 1.0 Universal" in licence


def test_a_text_file_and_bad_ones(tmp_path: Path) -> None:
    good = tmp_path / "t.txt"
    good.write_text("hello world", encoding="utf-8")
    assert load_text(good).text == "hello world"
    bad = tmp_path / "b.txt"
    bad.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(QualityError, match="not UTF-8"):
        load_text(bad)
    with pytest.raises(QualityError, match="no text file"):
        load_text(tmp_path / "missing.txt")
    (tmp_path / "empty.txt").write_text("  \n")
    with pytest.raises(QualityError, match="empty"):
        load_text(tmp_path / "empty.txt")


def test_chunks_tile_the_text_and_start_with_bos() -> None:
    tokens = np.arange(100, 100 + 70, dtype=np.int32)
    plan = plan_chunks(tokens, 16, bos=1, title="t")
    assert plan.tokens.shape == (7, 16)  # (70 - 16) // 8 + 1
    assert (plan.tokens[:, 0] == 1).all()
    assert plan.first_output == 7
    assert plan.n_outputs == 8
    scored = [
        plan.tokens[c, plan.first_output + 1 : plan.first_output + 1 + plan.n_outputs]
        for c in range(plan.n_chunks)
    ]
    targets = np.concatenate(scored)
    # Each scored token once, in order: the text from its ninth token on.
    np.testing.assert_array_equal(targets, tokens[8 : 8 + 7 * 8])
    assert plan.scored_tokens == 56
    no_bos = plan_chunks(tokens, 16, bos=None, title="t")
    assert no_bos.tokens[0, 0] == 100


def test_a_text_shorter_than_one_chunk_gets_one_sentence() -> None:
    with pytest.raises(QualityError) as caught:
        plan_chunks(np.arange(10), 512, bos=None, title="notes.txt")
    message = str(caught.value)
    assert "notes.txt is 10 tokens long" in message
    assert "512" in message
    assert caught.value.kind == "quality.text"
    with pytest.raises(QualityError, match="even number"):
        plan_chunks(np.arange(100), 15, bos=None, title="t")
