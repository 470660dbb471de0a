"""The bundled catalog and its loader: contents, validation errors, look-ups."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from desktop.core import paths
from desktop.core.catalog import Catalog, CatalogModel, load_catalog, load_catalog_safe
from desktop.core.errors import CatalogError
from desktop.core.hub import file_name_problem as unsafe_file_name_reason

FAMILIES = {"qwen", "llama", "phi", "deepseek", "gemma"}


@pytest.fixture(scope="module")
def bundled() -> Catalog:
    return load_catalog(paths.bundled_catalog_path(), Path("/nonexistent/user.json"))


@pytest.fixture
def raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(paths.bundled_catalog_path().read_text(encoding="utf-8"))
    return data


def write(tmp_path: Path, document: Any, name: str = "catalog.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def load_only(path: Path, tmp_path: Path) -> Catalog:
    return load_catalog(path, tmp_path / "no-user.json", tmp_path / "no-refresh.json")


# --- the bundled catalog -------------------------------------------------------------------


def test_bundled_catalog_is_large_and_covers_every_family(bundled: Catalog) -> None:
    assert len(bundled.models) >= 30
    assert {m.family for m in bundled.models} >= FAMILIES
    for family in FAMILIES:
        assert sum(m.family == family for m in bundled.models) >= 3, family
    assert bundled.schema_version == 1
    assert bundled.sources == (str(paths.bundled_catalog_path()),)


def test_bundled_catalog_spans_sizes_and_kinds(bundled: Catalog) -> None:
    assert any(m.n_params <= 1_000_000_000 for m in bundled.models)
    assert any(m.n_params >= 70_000_000_000 for m in bundled.models)
    moe = [m for m in bundled.models if m.is_moe]
    assert {m.id for m in moe} >= {"qwen3-30b-a3b", "deepseek-v2-lite-chat"}
    for model in moe:
        assert model.n_params_active is not None
        assert model.n_params_active < model.n_params / 4
    mla = bundled.model("deepseek-v2-lite-chat").arch
    assert mla.uses_mla
    assert (mla.kv_lora_rank, mla.n_rot, mla.n_expert, mla.n_expert_used) == (512, 64, 64, 6)


def test_required_models_are_present(bundled: Catalog) -> None:
    ids = {m.id for m in bundled.models}
    wanted = {
        *(f"qwen2.5-{s}-instruct" for s in ("0.5b", "1.5b", "3b", "7b", "14b", "32b", "72b")),
        "qwen2.5-coder-7b-instruct",
        *(f"qwen3-{s}" for s in ("0.6b", "1.7b", "4b", "8b", "14b", "32b", "30b-a3b")),
        "llama-3.2-1b-instruct",
        "llama-3.2-3b-instruct",
        "llama-3.1-8b-instruct",
        "llama-3.1-70b-instruct",
        "llama-3.3-70b-instruct",
        "phi-3.5-mini-instruct",
        "phi-3-medium-128k-instruct",
        "phi-4",
        "phi-4-mini-instruct",
        *(f"deepseek-r1-distill-qwen-{s}" for s in ("1.5b", "7b", "14b", "32b")),
        "deepseek-r1-distill-llama-8b",
        "deepseek-r1-distill-llama-70b",
        "deepseek-v2-lite-chat",
        *(f"gemma-2-{s}-it" for s in ("2b", "9b", "27b")),
        *(f"gemma-3-{s}-it" for s in ("270m", "1b", "4b", "12b", "27b")),
        "gemma-3-270m",
        "smollm2-135m-instruct",
    }
    assert wanted <= ids


def test_every_model_has_q4_k_m_and_q8_0_gguf(bundled: Catalog) -> None:
    for model in bundled.models:
        quants = {v.quant for v in model.variants if v.format == "gguf"}
        assert {"Q4_K_M", "Q8_0"} <= quants, model.id


def test_variant_ids_files_and_hashes_follow_the_rules(bundled: Catalog) -> None:
    for model in bundled.models:
        for variant in model.variants:
            assert variant.id == f"{model.id}:{variant.quant}"
            assert variant.model_id == model.id
            for entry in variant.files:
                assert unsafe_file_name_reason(entry.name) is None
                assert entry.size_bytes is not None
                assert entry.size_bytes > 0
                if not entry.verified:
                    assert entry.sha256 is None, (variant.id, entry.name)


def test_big_quants_are_split_like_the_publishers_do(bundled: Catalog) -> None:
    _, q8 = bundled.variant("llama-3.1-70b-instruct:Q8_0")
    names = [f.name for f in q8.files]
    assert len(names) == 2
    assert names[0].endswith("-Q8_0-00001-of-00002.gguf")
    assert names[1].endswith("-Q8_0-00002-of-00002.gguf")
    for _model, variant in bundled.variants():
        if variant.format == "gguf" and len(variant.files) == 1:
            size = variant.files[0].size_bytes
            assert size is not None
            assert size <= 50_000_000_000, variant.id


def test_awq_variants_list_config_weights_and_tokenizer(bundled: Catalog) -> None:
    awq = [(m, v) for m, v in bundled.variants() if v.format == "awq"]
    assert len(awq) >= 10
    repos = {v.repo for _, v in awq}
    assert "Qwen/Qwen2.5-7B-Instruct-AWQ" in repos
    assert "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4" in repos
    for _, variant in awq:
        names = [f.name for f in variant.files]
        assert "config.json" in names
        assert any(n.endswith(".safetensors") for n in names)
        assert any(n.startswith("tokenizer") for n in names)


def test_licences_and_languages(bundled: Catalog) -> None:
    qwen3b = bundled.model("qwen2.5-3b-instruct")
    assert not qwen3b.license.commercial_use
    assert bundled.model("qwen2.5-7b-instruct").license.name == "Apache-2.0"
    llama = bundled.model("llama-3.1-8b-instruct")
    assert llama.license.commercial_use
    assert "700 million" in llama.license.note
    assert llama.gated
    assert all(not v.gated for v in llama.variants)  # bartowski re-uploads are open
    assert bundled.model("phi-4").license.name == "MIT"
    assert bundled.model("gemma-3-4b-it").license.commercial_use
    for model in bundled.models:
        assert model.license.url.startswith("https://")
        assert model.description
        assert len(model.description) <= 300
    assert bundled.model("qwen3-8b").supports_chinese
    assert bundled.model("deepseek-r1-distill-qwen-7b").supports_chinese
    assert not bundled.model("gemma-2-9b-it").supports_chinese


def test_architecture_numbers_are_consistent(bundled: Catalog) -> None:
    for model in bundled.models:
        arch = model.arch
        assert arch.n_params == model.n_params
        assert len(arch.n_head_kv) == arch.n_layers
        assert arch.swa_layers == () or len(arch.swa_layers) == arch.n_layers
        assert arch.n_ctx_train == model.context_length >= 8192
    gemma3 = bundled.model("gemma-3-27b-it").arch
    assert gemma3.sliding_window == 1024
    assert gemma3.swa_layers[:6] == (True, True, True, True, True, False)
    assert sum(not s for s in gemma3.swa_layers) == 62 // 6
    gemma2 = bundled.model("gemma-2-9b-it").arch
    assert gemma2.swa_layers[:4] == (True, False, True, False)
    llama8 = bundled.model("llama-3.1-8b-instruct")
    assert llama8.n_params == 8_030_261_248  # the published count
    assert llama8.arch.head_dim_k == 128
    assert llama8.arch.n_head_kv[0] == 8


@pytest.mark.parametrize(
    ("model_id", "fixture"),
    [("smollm2-135m-instruct", "smollm2_path"), ("gemma-3-270m", "gemma3_path")],
)
def test_demo_models_match_the_real_files(
    bundled: Catalog, model_id: str, fixture: str, request: pytest.FixtureRequest
) -> None:
    """The catalog's numbers for the two demo models equal the real GGUF headers and bytes."""
    from gguf import GGUFReader

    path: Path = request.getfixturevalue(fixture)
    model = bundled.model(model_id)
    reader = GGUFReader(str(path))
    arch_name = reader.fields["general.architecture"].contents()
    assert arch_name == model.arch.architecture

    def field(key: str) -> int:
        return int(reader.fields[f"{arch_name}.{key}"].contents())

    assert field("block_count") == model.arch.n_layers
    assert field("embedding_length") == model.arch.n_embd
    assert field("attention.head_count") == model.arch.n_head
    assert field("attention.head_count_kv") == model.arch.n_head_kv[0]
    assert field("feed_forward_length") == model.arch.n_ff
    assert field("context_length") == model.arch.n_ctx_train
    n_params = sum(int(t.n_elements) for t in reader.tensors)
    assert n_params == model.n_params

    match = bundled.find_by_file_name(path.name)
    assert match is not None
    found_model, variant, entry = match
    assert found_model.id == model_id
    demo = variant.local_demo
    assert demo is not None
    assert path.stat().st_size == demo.size_bytes == entry.size_bytes
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == demo.sha256
    assert not entry.verified
    assert entry.sha256 is None
    assert bundled.find_by_sha256(digest.upper()) == match


# --- look-ups ------------------------------------------------------------------------------


def test_variant_lookup_and_suggestions(bundled: Catalog) -> None:
    model, variant = bundled.variant("qwen2.5-7b-instruct:Q4_K_M")
    assert isinstance(model, CatalogModel)
    assert (model.id, variant.quant, variant.format) == ("qwen2.5-7b-instruct", "Q4_K_M", "gguf")
    assert bundled.variant("qwen2.5-7b-instruct:q4_k_m")[1] is variant
    with pytest.raises(CatalogError, match=re.escape("qwen2.5-7b-instruct:Q4_K_M")) as info:
        bundled.variant("qwen2.5-7b-instruct:Q4_K_MM")
    assert info.value.kind == "catalog.unknown_variant"
    with pytest.raises(CatalogError, match=re.escape("did you mean 'llama-3.1-8b-instruct'")):
        bundled.model("llama-3.1-8b-instruc")
    assert bundled.get("nope") is None


def test_variants_lists_every_pair_in_order(bundled: Catalog) -> None:
    pairs = bundled.variants()
    assert len(pairs) == sum(len(m.variants) for m in bundled.models)
    assert pairs[0][0] is bundled.models[0]
    assert all(v.model_id == m.id for m, v in pairs)


def test_find_by_file_name_handles_parts_paths_and_case(bundled: Catalog) -> None:
    part = "Meta-Llama-3.1-70B-Instruct-Q8_0-00002-of-00002.gguf"
    match = bundled.find_by_file_name("/models/somewhere/" + part.lower())
    assert match is not None
    assert match[1].id == "llama-3.1-70b-instruct:Q8_0"
    assert match[2].name.endswith(part)
    assert bundled.find_by_file_name("no-such-model.gguf") is None
    assert bundled.find_by_sha256("0" * 64) is None
    assert bundled.find_by_sha256("") is None


# --- validation errors ---------------------------------------------------------------------


def test_missing_bundled_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="does not exist") as info:
        load_only(tmp_path / "missing.json", tmp_path)
    assert str(tmp_path / "missing.json") in str(info.value)


def test_bad_json_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"schema_version": 1,\n "models": [\n', encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_only(path, tmp_path)
    message = str(info.value)
    assert str(path) in message
    assert "not valid JSON" in message
    assert "line 3" in message
    assert info.value.kind == "catalog.json"


def test_not_utf8_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"schema_version": 1, "models": [], "note": "\xe9"}')
    with pytest.raises(CatalogError, match="cannot be read"):
        load_only(path, tmp_path)


@pytest.mark.parametrize(
    ("edit", "pointer"),
    [
        (
            lambda d: d["models"][3]["variants"][0]["files"][0].update(size_bytes="big"),
            "/models/3/variants/0/files/0/size_bytes",
        ),
        (lambda d: d["models"][2]["arch"].pop("n_layers"), "/models/2/arch"),
        (lambda d: d["models"][5].update(family="Qwen Family"), "/models/5/family"),
        (
            lambda d: d["models"][1]["license"].update(commercial_use="yes"),
            "/models/1/license/commercial_use",
        ),
        (
            lambda d: d["models"][0]["variants"][1].update(format="exl2"),
            "/models/0/variants/1/format",
        ),
        (
            lambda d: d["models"][4]["variants"][0]["files"][0].update(sha256="abc"),
            "/models/4/variants/0/files/0/sha256",
        ),
        (lambda d: d.update(schema_version=2), "/schema_version"),
    ],
)
def test_schema_violations_name_the_json_pointer(
    raw: dict[str, Any], tmp_path: Path, edit: Any, pointer: str
) -> None:
    edit(raw)
    path = write(tmp_path, raw)
    with pytest.raises(CatalogError) as info:
        load_only(path, tmp_path)
    message = str(info.value)
    assert str(path) in message
    assert f"at {pointer}:" in message


@pytest.mark.parametrize(
    ("edit", "pointer", "reason"),
    [
        (lambda d: d["models"][6].update(id=d["models"][2]["id"]), "/models/6/id", "used twice"),
        (
            lambda d: d["models"][1]["variants"][0].update(id="other:Q4_K_M"),
            "/models/1/variants/0/id",
            "must be",
        ),
        (
            lambda d: d["models"][2]["arch"].update(n_head_kv=[2, 2, 2]),
            "/models/2/arch/n_head_kv",
            "per-layer",
        ),
        (
            lambda d: d["models"][0]["variants"][0]["files"][0].update(sha256="a" * 64),
            "/models/0/variants/0/files/0/sha256",
            "not verified",
        ),
        (
            lambda d: d["models"][0]["variants"][0]["files"][0].update(verified=True),
            "/models/0/variants/0/files/0",
            "needs its size and sha256",
        ),
        (
            lambda d: d["models"][0]["variants"].append(dict(d["models"][0]["variants"][0])),
            "/models/0/variants/5/id",
            "used twice",
        ),
    ],
)
def test_semantic_rules_name_the_json_pointer(
    raw: dict[str, Any], tmp_path: Path, edit: Any, pointer: str, reason: str
) -> None:
    edit(raw)
    path = write(tmp_path, raw)
    with pytest.raises(CatalogError) as info:
        load_only(path, tmp_path)
    assert f"at {pointer}:" in str(info.value)
    assert reason in str(info.value)


@pytest.mark.parametrize(
    "name",
    [
        "../escape.gguf",
        "models/../../etc/passwd",
        "/etc/passwd",
        "C:/Windows/model.gguf",
        "sub\\model.gguf",
        "sub//model.gguf",
        "./model.gguf",
        "bad\nname.gguf",
    ],
)
def test_unsafe_file_names_are_refused(raw: dict[str, Any], tmp_path: Path, name: str) -> None:
    raw["models"][3]["variants"][0]["files"][0]["name"] = name
    path = write(tmp_path, raw)
    with pytest.raises(CatalogError) as info:
        load_only(path, tmp_path)
    assert "at /models/3/variants/0/files/0/name:" in str(info.value)


def test_safe_nested_names_are_accepted() -> None:
    assert unsafe_file_name_reason("Q8_0/model-Q8_0-00001-of-00002.gguf") is None
    assert unsafe_file_name_reason("model..v2.gguf") is None  # dots inside a name are fine


def test_safe_loader_returns_an_empty_catalog_for_a_broken_bundled_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("[]", encoding="utf-8")
    catalog, errors = load_catalog_safe(path, tmp_path / "u.json", tmp_path / "r.json")
    assert len(catalog) == 0
    assert len(errors) == 1
    assert str(path) in str(errors[0])
