"""The fit against what a real GPU measured (tests/fixtures/ground_truth, an H200 with CUDA).

The catalog variant of each shape gives the same numbers as its file (the shared README checks
that), so the rows are predicted without the files: VRAM within +-10% and never more than 5%
under (under is the dangerous direction: a load that was said to fit fails), generation speed
within +-25% of the bench-equivalent figure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.catalog import load_catalog
from desktop.core.fit import FitTarget, estimate
from desktop.core.hardware import HardwareProfile

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "ground_truth"
SHAPES = {
    "qwen25-1p5b-shape.Q8_0.gguf": "qwen2.5-1.5b-instruct:Q8_0",
    "phi35-mini-shape.Q8_0.gguf": "phi-3.5-mini-instruct:Q8_0",
    "llama31-8b-shape.Q8_0.gguf": "llama-3.1-8b-instruct:Q8_0",
}
PYTHON_LOOP_S = 0.00075  # the measuring loop's own cost per token, beyond `llm-scout bench`


def rows() -> list[dict[str, Any]]:
    lines = (HERE / "gpu-h200-llama-cpp-python.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="module")
def h200() -> HardwareProfile:
    return HardwareProfile.load(HERE / "h200-profile.json")


@pytest.mark.parametrize("row", rows(), ids=lambda r: f"{r['model'][:12]}-{r['n_ctx']}-{r['ngl']}")
def test_measured_gpu_loads_are_predicted(row: dict[str, Any], h200: HardwareProfile) -> None:
    model, variant = load_catalog().variant(SHAPES[row["model"]])
    result = estimate(
        FitTarget.from_variant(model, variant), h200, n_ctx=row["n_ctx"], n_gpu_layers=row["ngl"]
    )
    expected_layers = model.arch.n_layers if row["ngl"] == -1 else row["ngl"]
    assert result.n_gpu_layers == expected_layers
    error = result.vram_bytes / row["vram_peak"] - 1
    assert -0.05 <= error <= 0.10, f"VRAM {result.vram_bytes:,} vs {row['vram_peak']:,}"
    bench = 1 / (1 / row["tg_tok_s"] - PYTHON_LOOP_S)
    assert result.tokens_per_s is not None
    assert result.tokens_per_s == pytest.approx(bench, rel=0.25)


def test_fewer_layers_than_fit_is_said(h200: HardwareProfile) -> None:
    model, variant = load_catalog().variant("llama-3.1-8b-instruct:Q8_0")
    target = FitTarget.from_variant(model, variant)
    asked = estimate(target, h200, n_ctx=8192, n_gpu_layers=16)
    assert asked.verdict == "partial"
    assert asked.n_gpu_layers == 16
    assert "You asked for 16 GPU layers; all 32 of 32 would fit." in asked.reasons
    # The layers on the GPU are the ones asked for, not "what fits" (which is all of them).
    assert "16 of 32 layers on the GPU, as asked; the rest run on the CPU." in asked.reasons
    assert not any("layers fit on the GPU" in r for r in asked.reasons)
    chosen = estimate(target, h200, n_ctx=8192)
    assert chosen.verdict == "gpu"
    assert not any("You asked" in r for r in chosen.reasons)
