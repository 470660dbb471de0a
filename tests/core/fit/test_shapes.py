"""Catalog variants estimated from their shapes, and the tokenizer's memory.

A variant not on disk gets its tensors from the architecture and llama.cpp's type choice for its
quant mix (:func:`desktop.core.gguf.quant_layout`): the same weights, per-layer bytes, embedding
and output bytes and repacked types as the real file, so sizes and speeds come in a sane order.
The tokenizer's tables (per token and per BPE merge) and the load's own peak are part of the
memory estimate.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from desktop.core.catalog import Variant, VariantFile, load_catalog
from desktop.core.fit import FitTarget, estimate
from desktop.core.fit import memory as fm
from desktop.core.gguf import TokenizerFacts, read_gguf
from desktop.core.hardware import load_profile

ORDER = ("Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0")


def test_catalog_sizes_and_speeds_follow_the_quant_order() -> None:
    catalog = load_catalog()
    profile = load_profile("laptop-16gb-cpu")
    for model in catalog.models:
        targets = {
            v.quant: FitTarget.from_variant(model, v) for v in model.variants if v.format == "gguf"
        }
        sizes = [targets[q].file_bytes or 0 for q in ORDER if q in targets]
        assert sizes == sorted(sizes), model.id
        assert len(set(sizes)) == len(sizes), model.id
        speeds = [
            estimate(targets[q], profile, n_ctx=2048, n_gpu_layers=0).tokens_per_s or 0.0
            for q in ORDER
            if q in targets
        ]
        assert speeds == sorted(speeds, reverse=True), model.id
    # The examples: Gemma 3 270M Q3_K_M < Q4_K_M < Q5_K_M (the 262k x 640 embeddings
    # are Q8_0 in every K mix: 640 is not a multiple of 256); SmolLM2 Q4_K_M > Q4_1.
    smol = catalog.model("smollm2-135m-instruct")
    q41, q4km = (catalog.variant(f"{smol.id}:{q}")[1] for q in ("Q4_1", "Q4_K_M"))
    small, large = FitTarget.from_variant(smol, q41), FitTarget.from_variant(smol, q4km)
    assert (large.file_bytes or 0) > (small.file_bytes or 0)
    gemma = catalog.model("gemma-3-270m-it")
    sizes = [
        FitTarget.from_variant(gemma, catalog.variant(f"{gemma.id}:{q}")[1]).file_bytes or 0
        for q in ("Q3_K_M", "Q4_K_M", "Q5_K_M")
    ]
    assert sizes == sorted(sizes)


@pytest.mark.parametrize(
    ("variant_id", "demo"),
    [("gemma-3-270m:Q4_K_M", "gemma3"), ("smollm2-135m-instruct:Q4_1", "smollm2")],
)
def test_variant_matches_the_real_file(
    variant_id: str, demo: str, smollm2_path: Path, gemma3_path: Path
) -> None:
    model, variant = load_catalog().variant(variant_id)
    estimated = FitTarget.from_variant(model, variant)
    path = gemma3_path if demo == "gemma3" else smollm2_path
    exact = FitTarget.from_gguf(read_gguf(path))
    assert estimated.weights_bytes == exact.weights_bytes
    assert estimated.layer_bytes == exact.layer_bytes
    assert estimated.token_embd_bytes == exact.token_embd_bytes
    assert estimated.output_bytes == exact.output_bytes == 0  # tied embeddings
    assert estimated.weight_types == exact.weight_types
    assert exact.file_bytes is not None
    assert estimated.file_bytes is not None
    assert abs(estimated.file_bytes - exact.file_bytes) / exact.file_bytes < 0.005
    # Not verified on the Hub: the download is the estimate, not the catalog's number.
    assert estimated.download_bytes == estimated.file_bytes
    profile = load_profile("laptop-16gb-cpu")
    a = estimate(estimated, profile, n_ctx=4096, n_gpu_layers=0)
    b = estimate(exact, profile, n_ctx=4096, n_gpu_layers=0)
    assert abs(a.ram_bytes - b.ram_bytes) / b.ram_bytes < 0.01


def test_a_verified_size_is_the_download_and_the_shapes_the_weights() -> None:
    model, variant = load_catalog().variant("llama-3.1-8b-instruct:Q4_K_M")
    real = 4_920_739_232  # what a refresh from the Hub would record
    verified = replace(
        variant, files=(VariantFile(variant.files[0].name, real, "ab" * 32, verified=True),)
    )
    target = FitTarget.from_variant(model, verified)
    unverified = FitTarget.from_variant(model, variant)
    assert target.download_bytes == target.file_bytes == real
    assert target.weights_bytes == unverified.weights_bytes
    assert target.layer_bytes == unverified.layer_bytes
    assert unverified.file_bytes is not None
    assert abs(unverified.file_bytes - real) / real < 0.01
    assert variant.size_bytes != unverified.download_bytes  # the catalog's guess is not used


def test_unknown_quant_falls_back_to_bits_per_weight() -> None:
    model, variant = load_catalog().variant("llama-3.1-8b-instruct:Q4_K_M")
    odd = replace(variant, quant="Q5_0", id="llama-3.1-8b-instruct:Q5_0")
    target = FitTarget.from_variant(model, odd)  # Q5_0 is a known mix: from shapes
    assert target.layer_bytes is not None
    exotic: Variant = replace(variant, quant="EXL2", id="x:EXL2")
    fallback = FitTarget.from_variant(model, exotic)
    assert fallback.weights_bytes == variant.size_bytes


def _tokenizer(n_tokens: int, n_merges: int) -> TokenizerFacts:
    return TokenizerFacts("gpt2", n_tokens, n_merges, 9 * n_tokens, 10 * n_merges, False)


def test_tokenizer_tables_cost_memory(smollm2_path: Path) -> None:
    profile = load_profile("laptop-16gb-cpu")
    target = FitTarget.from_gguf(read_gguf(smollm2_path))
    assert target.tokenizer is not None
    assert (target.tokenizer.n_tokens, target.tokenizer.n_merges) == (49152, 48900)
    base = estimate(target, profile, n_ctx=8192, n_gpu_layers=0)
    more = replace(target, tokenizer=_tokenizer(49152, 48900 + 100_000))
    grown = estimate(more, profile, n_ctx=8192, n_gpu_layers=0)
    cal = fm.CALIBRATION
    assert abs(grown.ram.overhead - base.ram.overhead - cal.per_merge_bytes * 100_000) <= 1
    # What must fit with the whole context in use grows alike.
    assert grown.ram_full_context_bytes > base.ram_full_context_bytes


def test_the_load_sets_the_peak_of_a_small_model_with_a_large_vocabulary(
    smollm2_path: Path,
) -> None:
    profile = load_profile("laptop-16gb-cpu")
    target = FitTarget.from_gguf(read_gguf(smollm2_path))
    huge = replace(target, tokenizer=_tokenizer(262_144, 1_500_000))
    lay_file = huge.file_bytes or 0
    tok = huge.tokenizer
    assert tok is not None
    load_peak = lay_file + fm.load_overhead_bytes(tok)  # Q4_1 is not repacked
    small = estimate(huge, profile, n_ctx=512, n_gpu_layers=0)
    assert small.ram_bytes == load_peak
    large = estimate(huge, profile, n_ctx=32768, n_gpu_layers=0)
    assert large.ram_bytes > load_peak  # the KV cache outgrows the load's extras
    assert large.ram.weights == (huge.file_bytes or 0) - huge.header_bytes()
