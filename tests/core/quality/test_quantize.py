"""Quantizing through llama.cpp: requantizing the demo model works (with its note), the file
is complete or absent, bad types and outputs get one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.errors import Cancelled, QualityError
from desktop.core.gguf import read_gguf
from desktop.core.quality import (
    QUANT_TYPES,
    default_output,
    k_base_type,
    quant_type,
    quantize_model,
)


def test_requantized_quants_are_real_gguf_files(
    smollm2_path: Path, smollm2_quants: dict[str, Path]
) -> None:
    for key, path in smollm2_quants.items():
        info = read_gguf(path)
        assert info.quant == key.removesuffix("-pure")
        assert info.metadata["general.architecture"] == "llama"
        assert not list(path.parent.glob(".*.part"))
    q8, q2 = (smollm2_quants[t].stat().st_size for t in ("Q8_0", "Q2_K"))
    assert q8 > smollm2_path.stat().st_size > q2 * 0.9


def test_a_quantization_reports_what_it_did(smollm2_path: Path, tmp_path: Path) -> None:
    seen: list[float] = []
    result = quantize_model(
        smollm2_path, "q4_k_m", tmp_path / "out.gguf", on_progress=lambda f, t: seen.append(f)
    )
    assert result.type == "Q4_K_M"
    assert result.source_type == "Q4_1"
    assert result.requantized
    assert result.n_tensors == 272
    assert 0 < result.fallback_tensors < result.n_tensors  # 576-wide rows cannot take K-quants
    assert seen == sorted(seen)
    assert seen[-1] == 1.0
    assert result.output_bytes == (tmp_path / "out.gguf").stat().st_size
    with pytest.raises(QualityError) as caught:
        quantize_model(smollm2_path, "Q8_0", tmp_path / "out.gguf")
    assert caught.value.kind == "quality.output"
    assert "exists already" in str(caught.value)


def test_pure_writes_the_type_itself_where_the_mix_gives_more_bits(
    smollm2_path: Path, tmp_path: Path
) -> None:
    """On SmolLM2 llama.cpp's Q2_K mix holds no Q2_K tensor (the 1536-wide ffn_down rows get
    Q3_K, the 576-wide ones fall back): the result says so. ``pure`` writes Q2_K there."""
    mix = quantize_model(smollm2_path, "Q2_K", tmp_path / "mix.gguf")
    pure = quantize_model(smollm2_path, "Q2_K", tmp_path / "pure.gguf", pure=True)
    mix_types, pure_types = dict(mix.tensor_types), dict(pure.tensor_types)
    assert "Q2_K" not in mix_types
    assert mix_types["Q3_K"] == 30  # one ffn_down per layer
    assert mix.lacks_its_type
    assert not mix.pure
    assert pure.pure
    assert pure_types["Q2_K"] == 30
    assert "Q3_K" not in pure_types
    assert not pure.lacks_its_type
    assert sum(pure_types.values()) == sum(mix_types.values()) == 272
    assert pure.output_bytes < mix.output_bytes
    q8 = quantize_model(smollm2_path, "Q8_0", tmp_path / "q8.gguf")
    assert not q8.lacks_its_type  # not a K-quant: never said


def test_a_stopped_quantization_leaves_no_file(smollm2_path: Path, tmp_path: Path) -> None:
    with pytest.raises(Cancelled):
        quantize_model(smollm2_path, "Q8_0", tmp_path / "stopped.gguf", should_stop=lambda: True)
    assert list(tmp_path.iterdir()) == []


def test_unsupported_types_get_one_sentence() -> None:
    with pytest.raises(QualityError) as caught:
        quant_type("Q9_K")
    assert caught.value.kind == "quality.quantize_type"
    assert "Q9_K is not a type llama.cpp can make here" in str(caught.value)
    assert "Q4_K_M" in str(caught.value)
    with pytest.raises(QualityError, match="importance matrix"):
        quant_type("iq2_xxs")
    assert quant_type(" q8_0 ") == "Q8_0"
    assert "Q2_K" in QUANT_TYPES


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model at all" * 10)
    with pytest.raises(QualityError) as caught:
        quantize_model(bad, "Q8_0", tmp_path / "out.gguf")
    assert caught.value.kind.startswith("gguf")
    assert not (tmp_path / "out.gguf").exists()


def test_default_output_names() -> None:
    folder = Path("/m/quantized")
    assert default_output(Path("/x/SmolLM2-135M-Instruct.Q4_1.gguf"), "Q8_0", folder) == (
        folder / "SmolLM2-135M-Instruct-Q8_0.gguf"
    )
    assert default_output(Path("/x/gemma-3-270m-q4_k_m.gguf"), "Q2_K", folder) == (
        folder / "gemma-3-270m-Q2_K.gguf"
    )
    assert default_output(Path("/x/gemma-3-270m-q4_k_m.gguf"), "Q2_K", folder, pure=True) == (
        folder / "gemma-3-270m-Q2_K-pure.gguf"
    )
    assert [k_base_type(t) for t in ("Q4_K_M", "Q2_K", "Q3_K_S", "Q8_0", "IQ4_NL")] == [
        "Q4_K",
        "Q2_K",
        "Q3_K",
        None,
        None,
    ]
    assert default_output(Path("/x/model.gguf"), "Q6_K", folder) == folder / "model-Q6_K.gguf"
