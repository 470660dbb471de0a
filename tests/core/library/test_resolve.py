"""One resolver for every command: paths, demo keys, variant ids, bare model ids, downloads and
library matches, and the one place that decides the numbers of a prediction."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core import demo
from desktop.core.catalog import Catalog, VariantFile, load_catalog
from desktop.core.download import download, request_for_variant
from desktop.core.errors import GGUFError, LibraryError, ScoutError
from desktop.core.fit import FitTarget
from desktop.core.gguf import read_gguf_split
from desktop.core.library import (
    Library,
    ModelNotFound,
    ModelResolver,
    ScanRoot,
    variant_label,
)
from tests.fixtures.hubserver import FakeHub
from tests.fixtures.library_files import link, model, write_tiny


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def resolver(catalog: Catalog, tmp_path: Path, **kwargs: object) -> ModelResolver:
    return ModelResolver(
        catalog,
        models_dir=tmp_path / "models",
        demos=demo.demo_models(assemble=True),
        **kwargs,  # type: ignore[arg-type]
    )


def test_a_demo_key_and_the_same_file_by_path_are_one_model(
    catalog: Catalog, tmp_path: Path, smollm2_path: Path
) -> None:
    by_key = resolver(catalog, tmp_path).resolve("smollm2")
    by_path = resolver(catalog, tmp_path).resolve(str(smollm2_path))
    assert by_key.origin == "demo"
    assert by_path.origin == "file"
    assert by_key.path == by_path.path == smollm2_path
    # One label everywhere: the catalog's name and the quant, not the file's general.name.
    assert by_key.label == by_path.label == "SmolLM2 135M Instruct Q4_1"
    assert by_key.variant_id == "smollm2-135m-instruct:Q4_1"
    assert by_key.fit_target() == by_path.fit_target()
    assert by_key.fit_target().download_bytes == 0  # on disk: nothing to download


def test_a_variant_that_is_not_on_disk_predicts_from_the_catalog(
    catalog: Catalog, tmp_path: Path
) -> None:
    resolved = resolver(catalog, tmp_path).resolve("qwen2.5-7b-instruct:Q4_K_M")
    assert resolved.origin == "catalog"
    assert not resolved.on_disk
    target = resolved.fit_target()
    model_, variant = catalog.variant("qwen2.5-7b-instruct:Q4_K_M")
    assert target == FitTarget.from_variant(model_, variant)
    assert (target.download_bytes or 0) > 1 << 30
    with pytest.raises(ModelNotFound, match=r"llm-scout download qwen2\.5-7b-instruct:Q4_K_M"):
        resolved.require_file()


def test_a_bare_model_id_means_its_q4_k_m_variant(catalog: Catalog, tmp_path: Path) -> None:
    resolved = resolver(catalog, tmp_path).resolve("qwen2.5-0.5b-instruct")
    assert resolved.variant_id == "qwen2.5-0.5b-instruct:Q4_K_M"
    assert resolved.label == variant_label(*catalog.variant("qwen2.5-0.5b-instruct:Q4_K_M"))


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("no-such-thing", "neither a model file"),
        ("/no/such/model.gguf", "no model file at"),
        ("qwen2.5-7b-instruct:Q9_9", "no variant"),
    ],
)
def test_unknown_specs_say_so_in_one_sentence(
    catalog: Catalog, tmp_path: Path, spec: str, words: str
) -> None:
    with pytest.raises(ScoutError) as caught:
        resolver(catalog, tmp_path).resolve(spec)
    assert words in str(caught.value)


def test_an_awq_variant_cannot_go_to_llama_cpp(catalog: Catalog, tmp_path: Path) -> None:
    resolved = resolver(catalog, tmp_path).resolve("qwen2.5-0.5b-instruct:AWQ")
    with pytest.raises(LibraryError, match="GGUF files only") as caught:
        resolved.require_file()
    assert caught.value.kind == "library.unsupported_format"


def test_a_broken_file_is_resolved_but_cannot_be_predicted(
    catalog: Catalog, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x00" * 10)
    resolved = resolver(catalog, tmp_path).resolve(str(broken))
    assert resolved.path == broken.absolute()
    assert resolved.header is None
    with pytest.raises(GGUFError):
        resolved.fit_target()


def test_a_download_is_found_and_predicted_from_its_header(tmp_path: Path) -> None:
    tiny = write_tiny(tmp_path / "src" / "tiny-Q4_K_M.gguf")
    entry = model("tiny", files={"Q4_K_M": [VariantFile("tiny-Q4_K_M.gguf", None)]})
    catalog = Catalog(models=(entry,))
    variant = entry.variants[0]
    models = tmp_path / "models"
    with FakeHub() as hub:
        hub.add_file(variant.repo, "tiny-Q4_K_M.gguf", tiny.read_bytes())
        download(request_for_variant(variant), models_dir=models, hub=hub.access())
    found = ModelResolver(catalog, models_dir=models).resolve("tiny:Q4_K_M")
    assert found.origin == "download"
    assert found.path == models / "someone" / "tiny-GGUF" / "tiny-Q4_K_M.gguf"
    target = found.fit_target()
    exact = FitTarget.from_gguf(read_gguf_split(found.path))
    assert (target.weights_bytes, target.arch) == (exact.weights_bytes, exact.arch)
    assert target.label == "tiny:Q4_K_M"  # the catalog's id, the file's numbers
    assert target.layer_bytes == tuple(read_gguf_split(found.path).layer_tensor_bytes)
    assert target.download_bytes == 0
    # ... and the catalog-wide targets agree with the one-model answer.
    [(_m, _v, listed)] = ModelResolver(catalog, models_dir=models).fit_targets(catalog.variants())
    assert listed == target


def test_a_file_the_library_matched_resolves_a_variant_id(
    catalog: Catalog, tmp_path: Path, smollm2_path: Path, scout_home: Path
) -> None:
    folder = tmp_path / "lmstudio"
    copy = link(smollm2_path, folder / "QuantFactory" / "x" / "SmolLM2-135M-Instruct.Q4_1.gguf")
    db = scout_home / "data" / "library.db"
    with Library(db, catalog=catalog) as library:
        library.scan([ScanRoot("folder", folder)])
        assert library.entry(copy) is not None
    resolved = ModelResolver(catalog, models_dir=tmp_path / "models", library_db=db).resolve(
        "smollm2-135m-instruct:Q4_1"
    )
    assert resolved.origin == "library"
    assert resolved.path == copy
    assert resolved.require_file() == copy
    assert resolved.fit_target().label == "smollm2-135m-instruct:Q4_1"
    assert resolved.fit_target().layer_bytes is not None  # from the header


def test_a_lookup_never_creates_a_library(catalog: Catalog, tmp_path: Path) -> None:
    db = tmp_path / "nowhere" / "library.db"
    ModelResolver(catalog, models_dir=tmp_path, library_db=db).resolve("qwen2.5-7b-instruct")
    assert not db.exists()
