"""Filters and sort keys shared by the CLI and the UI."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from desktop.core import paths
from desktop.core.catalog import (
    MODEL_SORT_KEYS,
    VARIANT_SORT_KEYS,
    Catalog,
    CatalogModel,
    filter_models,
    filter_variants,
    load_catalog,
    sort_models,
    sort_variants,
)
from desktop.core.gguf import quant_bits


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(paths.bundled_catalog_path(), Path("/nonexistent/user.json"))


def ids(models: Iterable[CatalogModel]) -> set[str]:
    return {m.id for m in models}


def test_no_filter_keeps_everything_in_order(catalog: Catalog) -> None:
    assert filter_models(catalog) == list(catalog.models)
    assert filter_models(list(catalog.models)[:3]) == list(catalog.models)[:3]


def test_family_filter_accepts_one_or_several_any_case(catalog: Catalog) -> None:
    qwen = filter_models(catalog, family="Qwen")
    assert qwen
    assert {m.family for m in qwen} == {"qwen"}
    both = filter_models(catalog, family=["llama", " phi "])
    assert {m.family for m in both} == {"llama", "phi"}
    assert len(both) == len(filter_models(catalog, family="llama")) + len(
        filter_models(catalog, family="phi")
    )
    assert filter_models(catalog, family="mistral") == []


def test_format_filter(catalog: Catalog) -> None:
    awq = filter_models(catalog, fmt="awq")
    assert "qwen2.5-7b-instruct" in ids(awq)
    assert "gemma-3-4b-it" not in ids(awq)
    assert all("awq" in m.formats for m in awq)
    assert len(filter_models(catalog, fmt="gguf")) == len(catalog.models)


def test_language_filter_understands_locale_codes(catalog: Catalog) -> None:
    zh = filter_models(catalog, lang="zh")
    assert zh == filter_models(catalog, lang="zh-CN") == filter_models(catalog, lang="zh_TW")
    assert all(m.supports_chinese for m in zh)
    assert {"qwen3-8b", "gemma-3-12b-it", "deepseek-v2-lite-chat"} <= ids(zh)
    assert "llama-3.1-8b-instruct" not in ids(zh)


def test_commercial_filter_both_ways(catalog: Catalog) -> None:
    yes = filter_models(catalog, commercial=True)
    no = filter_models(catalog, commercial=False)
    assert "qwen2.5-3b-instruct" in ids(no)
    assert "qwen2.5-3b-instruct" not in ids(yes)
    assert len(yes) + len(no) == len(catalog.models)


def test_text_filter_needs_every_word(catalog: Catalog) -> None:
    found = filter_models(catalog, text="  Coder qwen ")
    assert ids(found) == {"qwen2.5-coder-7b-instruct"}
    assert ids(filter_models(catalog, text="casperhansen 70b")) == {"deepseek-r1-distill-llama-70b"}
    assert filter_models(catalog, text="qwen nonsense-word") == []
    assert filter_models(catalog, text="   ") == list(catalog.models)


def test_filters_combine(catalog: Catalog) -> None:
    found = filter_models(catalog, family="deepseek", lang="zh", commercial=True, fmt="awq")
    assert found
    assert all(m.family == "deepseek" and "awq" in m.formats for m in found)
    assert "deepseek-v2-lite-chat" not in ids(found)


def test_filter_variants_narrows_format_and_quant(catalog: Catalog) -> None:
    pairs = filter_variants(catalog, family="gemma", quant="q8_0")
    assert pairs
    assert all(v.quant == "Q8_0" and m.family == "gemma" for m, v in pairs)
    assert len(pairs) == len(filter_models(catalog, family="gemma"))
    awq = filter_variants(catalog, fmt="awq")
    assert all(v.format == "awq" for _, v in awq)
    assert len(awq) == sum(1 for _, v in catalog.variants() if v.format == "awq")


def test_model_sort_keys(catalog: Catalog) -> None:
    by_params = sort_models(catalog.models, "params")
    assert [m.n_params for m in by_params] == sorted(m.n_params for m in catalog.models)
    assert by_params[0].id == "smollm2-135m-instruct"
    assert sort_models(catalog.models, "params", descending=True)[0].n_params >= 70e9
    by_family = sort_models(catalog.models, "family")
    assert [m.family for m in by_family] == sorted(m.family for m in catalog.models)
    by_name = sort_models(catalog.models, "name")
    assert [m.name.lower() for m in by_name] == sorted(m.name.lower() for m in catalog.models)
    assert set(MODEL_SORT_KEYS) >= {"name", "params", "family", "context", "size"}
    with pytest.raises(KeyError):
        sort_models(catalog.models, "colour")


def test_variant_sort_keys(catalog: Catalog) -> None:
    pairs = filter_variants(catalog, family="phi")
    by_quant = sort_variants(pairs, "quant")
    bits = [quant_bits(v.quant) or 0.0 for _, v in by_quant]
    assert bits == sorted(bits)
    by_size = sort_variants(pairs, "size", descending=True)
    sizes = [v.size_bytes or 0 for _, v in by_size]
    assert sizes == sorted(sizes, reverse=True)
    by_params = sort_variants(pairs, "params")
    first_model = by_params[0][0]
    assert first_model.n_params == min(m.n_params for m, _ in pairs)
    # Within one model, smaller quants first.
    quants = [v.quant for m, v in by_params if m is first_model]
    assert quants[0] == "Q3_K_M"
    assert quants[-1] in ("Q8_0", "AWQ")
    assert set(VARIANT_SORT_KEYS) >= {"name", "params", "family", "size", "quant"}


def test_quant_bits() -> None:
    assert quant_bits("q4_k_m") == pytest.approx(4.89)
    assert quant_bits("Q8_0") == 8.5
    assert quant_bits("AWQ-INT4") == quant_bits("AWQ")
    assert quant_bits("EXL2") is None
