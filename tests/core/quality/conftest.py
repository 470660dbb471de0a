"""Real models for the quality tests: the SmolLM2 demo, quants made from it once per session
with llama.cpp's quantizer (cached under the session's temp dir), and a short text."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.quality import LossSettings, load_text, make_pack, quantize_model, write_pack

# The first ~360 tokens of the shipped English text: ten chunks of 64 tokens, quick to score.
SHORT_TEXT_CHARS = 1600
CTX = 64


@pytest.fixture(scope="session")
def short_text(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from desktop.core.paths import resources_dir

    text = (resources_dir() / "quality" / "texts" / "en.txt").read_text(encoding="utf-8")
    path = tmp_path_factory.mktemp("texts") / "short.txt"
    path.write_text(text[:SHORT_TEXT_CHARS], encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def smollm2_quants(tmp_path_factory: pytest.TempPathFactory, smollm2_path: Path) -> dict[str, Path]:
    """SmolLM2 requantized from its Q4_1 file to Q8_0, Q2_K (llama.cpp's mix) and Q2_K pure
    (key ``Q2_K-pure``)."""
    folder = tmp_path_factory.mktemp("quants")
    quants = {
        qtype: quantize_model(smollm2_path, qtype, folder / f"smollm2-{qtype}.gguf").output
        for qtype in ("Q8_0", "Q2_K")
    }
    pure = folder / "smollm2-Q2_K-pure.gguf"
    quants["Q2_K-pure"] = quantize_model(smollm2_path, "Q2_K", pure, pure=True).output
    return quants


@pytest.fixture(scope="session")
def smollm2_pack(
    tmp_path_factory: pytest.TempPathFactory, smollm2_path: Path, short_text: Path
) -> Path:
    """The reference pack of the SmolLM2 demo on the short text (64-token chunks)."""
    pack = make_pack(
        smollm2_path, load_text(short_text), LossSettings(ctx=CTX, n_threads=2), label="SmolLM2"
    )
    path = tmp_path_factory.mktemp("packs") / "smollm2.refpack"
    write_pack(pack, path)
    return path
