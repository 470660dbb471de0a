"""The published cost of each quantization: llama.cpp's table and the AWQ paper, cited."""

from __future__ import annotations

import pytest

from desktop.core.catalog import load_catalog
from desktop.core.recommend import PUBLISHED, quant_cost


def test_every_catalog_variant_has_a_published_cost() -> None:
    missing = {
        v.id for _m, v in load_catalog().variants() if quant_cost(v.quant, fmt=v.format) is None
    }
    assert not missing


def test_the_ratio_is_llama_cpps_where_it_prints_one_and_its_row_otherwise() -> None:
    q4 = quant_cost("q4_k_m")
    assert q4 is not None
    assert not q4.ratio_derived
    assert q4.ppl_ratio == 1.028160
    assert q4.kld == 0.031273
    assert q4.same_top_pct == 91.901
    q5 = quant_cost("Q5_K_M")
    assert q5 is not None
    assert q5.ratio_derived
    assert q5.delta_ppl is not None
    base = 6.288607 - q5.delta_ppl  # the FP16 perplexity of the same row
    assert q5.ppl_ratio == pytest.approx(6.288607 / base)
    # The derived ratios agree with the printed ones where both exist (same FP16 base).
    for quant in ("Q8_0", "Q6_K", "Q4_K_M", "Q2_K"):
        cost = PUBLISHED[quant]
        assert cost.delta_ppl is not None
        ppl = cost.ppl_ratio * (6.2316 + 0.0)  # approximately the row's perplexity
        assert ppl / (ppl - cost.delta_ppl) == pytest.approx(cost.ppl_ratio, rel=2e-4)


def test_more_bits_keep_more() -> None:
    order = ["Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M", "Q2_K"]
    kept = [PUBLISHED[q].kept for q in order]
    assert kept == sorted(kept, reverse=True)
    assert all(0 < k < 1 for k in kept)


def test_awq_comes_from_the_awq_paper_and_says_on_which_model() -> None:
    cost = quant_cost("AWQ", fmt="awq")
    assert cost is not None
    assert cost.model == "Llama 2 7B"
    assert cost.ppl_ratio == pytest.approx(5.60 / 5.47)
    assert "2306.00978" in cost.source_title
    assert cost.source.startswith("https://")


def test_every_published_cost_is_cited() -> None:
    for cost in PUBLISHED.values():
        assert cost.source.startswith("https://"), cost.quant
        assert cost.read == "2026-12-01"
        assert not cost.measured_here


def test_unquantized_is_the_reference_and_unknown_is_none() -> None:
    f16 = quant_cost("F16")
    assert f16 is not None
    assert f16.kept == 1.0
    assert quant_cost("IQ9_Z") is None
