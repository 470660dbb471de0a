"""Layering: bundled < refreshed (Hub facts) < user overlay, and errors in each layer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core import paths
from desktop.core.catalog import Catalog, load_catalog, load_catalog_safe, refresh_overlay_path
from desktop.core.errors import CatalogError

BUNDLED = paths.bundled_catalog_path()
SHA_A = "a" * 64
SHA_B = "b" * 64


def write(path: Path, document: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def new_model(model_id: str = "my-tiny-llama") -> dict[str, Any]:
    return {
        "id": model_id,
        "family": "llama",
        "name": "My Tiny Llama",
        "n_params": 110_000_000,
        "arch": {
            "architecture": "llama",
            "n_layers": 4,
            "n_embd": 512,
            "n_head": 8,
            "n_head_kv": [8, 8, 4, 4],
            "n_ctx_train": 2048,
            "n_vocab": 32000,
        },
        "license": {"name": "MIT", "commercial_use": True, "url": "https://example.org/mit"},
        "languages": ["en"],
        "description": "A model I trained at home.",
        "variants": [
            {
                "format": "gguf",
                "quant": "Q4_K_M",
                "repo": "me/tiny-llama-GGUF",
                "files": [{"name": "tiny-Q4_K_M.gguf", "size_bytes": 70_000_000}],
            }
        ],
    }


def load(user: Path, tmp_path: Path, refreshed: Path | None = None) -> Catalog:
    return load_catalog(BUNDLED, user, refreshed or tmp_path / "no-refresh.json")


def test_missing_user_file_is_fine(tmp_path: Path) -> None:
    catalog = load(tmp_path / "absent.json", tmp_path)
    assert len(catalog.models) >= 30
    assert catalog.sources == (str(BUNDLED),)


def test_default_paths_pick_up_the_user_catalog_in_the_config_dir() -> None:
    user = write(paths.user_catalog_path(), {"schema_version": 1, "models": [new_model()]})
    catalog = load_catalog()
    assert catalog.model("my-tiny-llama").name == "My Tiny Llama"
    assert str(user) in catalog.sources


def test_overlay_adds_a_model_with_generated_variant_ids(tmp_path: Path) -> None:
    user = write(tmp_path / "user.json", {"schema_version": 1, "models": [new_model()]})
    catalog = load(user, tmp_path)
    model = catalog.model("my-tiny-llama")
    assert model.arch.n_head_kv == (8, 8, 4, 4)
    assert model.arch.head_dim_k == 64
    model_, variant = catalog.variant("my-tiny-llama:Q4_K_M")
    assert model_ is model
    assert variant.files[0].size_bytes == 70_000_000
    assert catalog.sources[-1] == str(user)
    assert len(catalog.models) == len(load(tmp_path / "x.json", tmp_path).models) + 1


def test_overlay_overrides_fields_and_adds_and_replaces_variants(tmp_path: Path) -> None:
    overlay = {
        "schema_version": 1,
        "models": [
            {
                "id": "qwen2.5-7b-instruct",
                "description": "My favourite model.",
                "license": {"note": "Checked by our lawyers."},
                "arch": {"n_ctx_train": 131072},
                "variants": [
                    {
                        "quant": "IQ4_XS",
                        "format": "gguf",
                        "repo": "bartowski/Qwen2.5-7B-Instruct-GGUF",
                        "files": [{"name": "Qwen2.5-7B-Instruct-IQ4_XS.gguf", "size_bytes": 1}],
                    },
                    {"quant": "Q8_0", "repo": "someone/mirror-GGUF"},
                ],
            }
        ],
    }
    base = load(tmp_path / "none.json", tmp_path).model("qwen2.5-7b-instruct")
    catalog = load(write(tmp_path / "user.json", overlay), tmp_path)
    model = catalog.model("qwen2.5-7b-instruct")
    assert model.description == "My favourite model."
    assert model.license.note == "Checked by our lawyers."
    assert model.license.name == base.license.name  # merged key by key
    assert model.context_length == 131072
    assert model.arch.n_layers == base.arch.n_layers
    assert [v.quant for v in model.variants] == [*(v.quant for v in base.variants), "IQ4_XS"]
    _, q8 = catalog.variant("qwen2.5-7b-instruct:Q8_0")
    assert q8.repo == "someone/mirror-GGUF"
    base_q8 = base.variant_for("Q8_0")
    assert base_q8 is not None
    assert q8.files == base_q8.files
    assert catalog.variant("qwen2.5-7b-instruct:IQ4_XS")[1].size_bytes == 1


def test_incomplete_new_model_is_reported_in_the_user_file(tmp_path: Path) -> None:
    entry = new_model()
    del entry["license"]
    user = write(tmp_path / "user.json", {"schema_version": 1, "models": [{"id": "x"}, entry]})
    with pytest.raises(CatalogError) as info:
        load(user, tmp_path)
    message = str(info.value)
    assert str(user) in message
    assert "at /models/0:" in message  # {"id": "x"} is new and has nothing else
    assert str(BUNDLED) not in message


def test_override_breaking_a_rule_points_into_the_user_file(tmp_path: Path) -> None:
    overlay: dict[str, Any] = {
        "schema_version": 1,
        "models": [
            {"id": "my-tiny-llama", "description": "x"},
            {"id": "llama-3.1-8b-instruct", "arch": {"n_layers": 33}},
        ],
    }
    overlay["models"][0] = new_model()
    overlay["models"][0]["arch"]["n_layers"] = 5
    user = write(tmp_path / "user.json", overlay)
    with pytest.raises(CatalogError) as info:
        load(user, tmp_path)
    assert f"{user} is not valid at /models/0/arch/n_head_kv:" in str(info.value)
    assert "expected 5 per-layer values" in str(info.value)


def test_new_variant_of_existing_model_is_located_in_the_user_file(tmp_path: Path) -> None:
    overlay = {
        "schema_version": 1,
        "models": [{"id": "phi-4", "variants": [{"quant": "Q2_K", "format": "gguf"}]}],
    }
    user = write(tmp_path / "user.json", overlay)
    with pytest.raises(CatalogError) as info:
        load(user, tmp_path)
    assert f"{user} is not valid at /models/0/variants/0:" in str(info.value)


@pytest.mark.parametrize("name", ["../../.ssh/id_rsa", "/abs/file.gguf", "dir\\file.gguf"])
def test_overlay_with_unsafe_name_is_refused(tmp_path: Path, name: str) -> None:
    entry = new_model()
    entry["variants"][0]["files"][0]["name"] = name
    user = write(tmp_path / "user.json", {"schema_version": 1, "models": [entry]})
    with pytest.raises(CatalogError) as info:
        load(user, tmp_path)
    assert f"{user} is not valid at /models/0/variants/0/files/0/name:" in str(info.value)


def test_safe_loader_keeps_the_bundled_catalog_when_the_overlay_is_broken(tmp_path: Path) -> None:
    user = tmp_path / "user.json"
    user.write_text("{not json", encoding="utf-8")
    with pytest.raises(CatalogError, match="not valid JSON"):
        load(user, tmp_path)
    catalog, errors = load_catalog_safe(BUNDLED, user, tmp_path / "r.json")
    assert len(catalog.models) >= 30
    assert [str(user) in str(e) for e in errors] == [True]
    assert catalog.sources == (str(BUNDLED),)


def refresh_doc(files: dict[str, dict[str, Any]], variants: Any = None) -> dict[str, Any]:
    document: dict[str, Any] = {"schema_version": 1, "repos": {}}
    for key, facts in files.items():
        repo, name = key.split("::")
        entry = document["repos"].setdefault(repo, {"files": {}})
        entry["files"][name] = facts
    if variants is not None:
        document["variants"] = variants
    return document


def test_refresh_overlay_fills_sizes_and_hashes_and_marks_verified(tmp_path: Path) -> None:
    refreshed = write(
        tmp_path / "verified.json",
        refresh_doc(
            {"bartowski/phi-4-GGUF::phi-4-Q4_K_M.gguf": {"size_bytes": 9053114400, "sha256": SHA_A}}
        ),
    )
    catalog = load(tmp_path / "none.json", tmp_path, refreshed)
    _, variant = catalog.variant("phi-4:Q4_K_M")
    assert variant.verified
    assert variant.files[0].sha256 == SHA_A
    assert variant.size_bytes == 9053114400
    assert not catalog.variant("phi-4:Q8_0")[1].verified
    assert catalog.find_by_sha256(SHA_A) is not None
    assert str(refreshed) in catalog.sources


def test_refresh_overlay_default_path_is_in_the_cache_dir() -> None:
    path = refresh_overlay_path()
    assert path.parent == paths.cache_dir()
    write(
        path,
        refresh_doc({"bartowski/phi-4-GGUF::phi-4-Q8_0.gguf": {"size_bytes": 5, "sha256": SHA_B}}),
    )
    assert load_catalog().variant("phi-4:Q8_0")[1].files[0].sha256 == SHA_B


def test_user_overlay_wins_over_refresh_and_user_files_get_hub_facts(tmp_path: Path) -> None:
    refreshed = write(
        tmp_path / "verified.json",
        refresh_doc(
            {
                "bartowski/phi-4-GGUF::phi-4-Q4_K_M.gguf": {"size_bytes": 10, "sha256": SHA_A},
                "me/tiny-llama-GGUF::tiny-Q4_K_M.gguf": {"size_bytes": 70_000_123, "sha256": SHA_A},
            }
        ),
    )
    overlay = {
        "schema_version": 1,
        "models": [
            new_model(),
            {
                "id": "phi-4",
                "variants": [
                    {
                        "quant": "Q4_K_M",
                        "files": [
                            {
                                "name": "phi-4-Q4_K_M.gguf",
                                "size_bytes": 11,
                                "sha256": SHA_B,
                                "verified": True,
                            }
                        ],
                    }
                ],
            },
        ],
    }
    user = write(tmp_path / "user.json", overlay)
    catalog = load(user, tmp_path, refreshed)
    phi = catalog.variant("phi-4:Q4_K_M")[1].files[0]
    assert (phi.size_bytes, phi.sha256) == (11, SHA_B)
    mine = catalog.variant("my-tiny-llama:Q4_K_M")[1].files[0]
    assert (mine.size_bytes, mine.sha256, mine.verified) == (70_000_123, SHA_A, True)
    assert catalog.sources == (str(BUNDLED), str(refreshed), str(user))


def test_refresh_overlay_corrects_a_file_list(tmp_path: Path) -> None:
    names = ["config.json", "model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors"]
    repo = "Qwen/Qwen2.5-7B-Instruct-AWQ"
    refreshed = write(
        tmp_path / "verified.json",
        refresh_doc(
            {f"{repo}::{n}": {"size_bytes": i + 1, "sha256": SHA_A} for i, n in enumerate(names)},
            variants={"qwen2.5-7b-instruct:AWQ": {"repo": repo, "files": names}},
        ),
    )
    catalog = load(tmp_path / "none.json", tmp_path, refreshed)
    variant = catalog.variant("qwen2.5-7b-instruct:AWQ")[1]
    assert [f.name for f in variant.files] == names
    assert variant.verified
    assert variant.size_bytes == 6


def test_refresh_correction_is_ignored_when_facts_are_missing(tmp_path: Path) -> None:
    repo = "Qwen/Qwen2.5-7B-Instruct-AWQ"
    refreshed = write(
        tmp_path / "verified.json",
        refresh_doc(
            {f"{repo}::config.json": {"size_bytes": 1, "sha256": SHA_A}},
            variants={"qwen2.5-7b-instruct:AWQ": {"repo": repo, "files": ["config.json", "x"]}},
        ),
    )
    before = load(tmp_path / "none.json", tmp_path).variant("qwen2.5-7b-instruct:AWQ")[1]
    after = load(tmp_path / "none.json", tmp_path, refreshed).variant("qwen2.5-7b-instruct:AWQ")[1]
    assert [f.name for f in after.files] == [f.name for f in before.files]
    assert after.files[0].verified  # config.json still got its facts


@pytest.mark.parametrize(
    ("document", "pointer"),
    [
        ({"schema_version": 1, "repos": {"bad repo": {"files": {}}}}, "/repos"),
        (
            {"schema_version": 1, "repos": {"a/b": {"files": {"x": {"size_bytes": 1}}}}},
            "/repos/a~1b/files/x",
        ),
        (
            {
                "schema_version": 1,
                "repos": {},
                "variants": {"m:Q": {"repo": "a/b", "files": ["../x"]}},
            },
            "/variants/m:Q/files/0",
        ),
    ],
)
def test_broken_refresh_overlay_is_reported_and_skipped_by_the_safe_loader(
    tmp_path: Path, document: dict[str, Any], pointer: str
) -> None:
    refreshed = write(tmp_path / "verified.json", document)
    with pytest.raises(CatalogError) as info:
        load(tmp_path / "none.json", tmp_path, refreshed)
    assert f"{refreshed} is not valid at {pointer}:" in str(info.value)
    catalog, errors = load_catalog_safe(BUNDLED, tmp_path / "none.json", refreshed)
    assert len(errors) == 1
    assert len(catalog.models) >= 30
    assert not any(v.verified for _, v in catalog.variants() if v.local_demo is None)
