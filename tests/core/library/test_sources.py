"""Discovery of model files in the layouts other apps use (no header is read here).

Each test builds the real on-disk layout of one app in a temporary folder: the Hugging Face
cache with its symlinks into ``blobs/``, Ollama's manifests and blobs, LM Studio's publisher
folders, GPT4All's flat folder, our own models folder. The files' contents do not matter to
discovery; the library tests read them.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from desktop.core.library import ScanRoot, known_app_roots, scan_roots
from desktop.core.library.sources import (
    discover,
    scan_folder,
    scan_gpt4all,
    scan_hf_cache,
    scan_lmstudio,
    scan_models_dir,
    scan_ollama,
)
from tests.fixtures.library_files import ollama_manifest


def _file(path: Path, content: bytes = b"GGUF-ish") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def hf_cache_repo(
    root: Path, repo: str, files: dict[str, bytes], revs: tuple[str, ...] = ("a" * 40,)
) -> Path:
    """A repo in the Hugging Face cache layout: content-addressed blobs, snapshot symlinks."""
    repo_dir = root / ("models--" + repo.replace("/", "--"))
    (repo_dir / "refs").mkdir(parents=True, exist_ok=True)
    (repo_dir / "refs" / "main").write_text(revs[0])
    for name, content in files.items():
        sha = hashlib.sha256(content).hexdigest()
        _file(repo_dir / "blobs" / sha, content)
        for rev in revs:
            link = repo_dir / "snapshots" / rev / name
            link.parent.mkdir(parents=True, exist_ok=True)
            depth = len(Path(name).parts) + 1
            link.symlink_to(Path(*[".."] * depth, "blobs", sha))
    return repo_dir


def ollama_model(
    root: Path, name: str, tag: str, blob: bytes, host: str = "registry.ollama.ai"
) -> str:
    """A model as ``ollama pull`` leaves it: the blob and a manifest naming it."""
    digest = hashlib.sha256(blob).hexdigest()
    _file(root / "blobs" / f"sha256-{digest}", blob)
    ollama_manifest(root, name, tag, digest, host)
    return digest


def test_hf_cache_resolves_links_names_repos_and_knows_hashes(tmp_path: Path) -> None:
    content = b"model one"
    main_rev, old_rev = "1" * 40, "0" * 40
    hf_cache_repo(
        tmp_path,
        "bartowski/Qwen2.5-7B-Instruct-GGUF",
        {"Qwen2.5-7B-Instruct-Q4_K_M.gguf": content, "README.md": b"hi"},
        revs=(main_rev, old_rev),
    )
    hf_cache_repo(tmp_path, "Qwen/Qwen2.5-0.5B-Instruct-GGUF", {"sub/dir/q8.gguf": b"two"})
    (tmp_path / "datasets--x--y").mkdir()  # not a model repo: ignored

    found = scan_hf_cache(tmp_path)

    assert found.problems == ()
    by_name = {c.path.name: c for c in found.candidates}
    assert sorted(by_name) == ["Qwen2.5-7B-Instruct-Q4_K_M.gguf", "q8.gguf"]
    qwen7 = by_name["Qwen2.5-7B-Instruct-Q4_K_M.gguf"]
    # Two revisions share one blob: listed once, from the revision refs/main names.
    assert qwen7.path.parent.name == main_rev
    assert qwen7.repo_id == "bartowski/Qwen2.5-7B-Instruct-GGUF"
    assert qwen7.source == "hf-cache"
    assert qwen7.real_path.parent.name == "blobs"
    assert qwen7.sha256 == hashlib.sha256(content).hexdigest()
    assert by_name["q8.gguf"].repo_id == "Qwen/Qwen2.5-0.5B-Instruct-GGUF"


def test_hf_cache_reports_a_link_to_a_vanished_blob(tmp_path: Path) -> None:
    repo_dir = hf_cache_repo(tmp_path, "o/r", {"gone.gguf": b"x", "kept.gguf": b"y"})
    (repo_dir / "blobs" / hashlib.sha256(b"x").hexdigest()).unlink()

    found = scan_hf_cache(tmp_path)

    assert [c.path.name for c in found.candidates] == ["kept.gguf"]
    assert len(found.problems) == 1
    assert found.problems[0].path.name == "gone.gguf"
    assert "no longer exists" in found.problems[0].message


def test_ollama_names_models_from_manifests_and_takes_the_digest_as_hash(tmp_path: Path) -> None:
    blob = b"the llama blob"
    digest = ollama_model(tmp_path, "llama3.2", "latest", blob)
    assert ollama_model(tmp_path, "llama3.2", "3b", blob) == digest  # a second tag, same blob
    other = ollama_model(tmp_path, "bartowski/Qwen2.5-GGUF", "Q4_K_M", b"qwen", host="hf.co")
    ollama_model(tmp_path, "someone/phi", "mini", b"phi")

    found = scan_ollama(tmp_path)

    assert found.problems == ()
    by_sha = {c.sha256: c for c in found.candidates}
    assert len(found.candidates) == 3
    llama = by_sha[digest]
    assert llama.name == "llama3.2:3b, llama3.2:latest"
    assert llama.path == tmp_path / "blobs" / f"sha256-{digest}"
    assert llama.source == "ollama"
    assert by_sha[other].name == "hf.co/bartowski/Qwen2.5-GGUF:Q4_K_M"
    assert {c.name for c in found.candidates} >= {"someone/phi:mini"}


def test_ollama_layout_problems_are_reported_not_raised(tmp_path: Path) -> None:
    ollama_model(tmp_path, "good", "latest", b"fine")
    digest = ollama_model(tmp_path, "orphan", "latest", b"blob that will vanish")
    (tmp_path / "blobs" / f"sha256-{digest}").unlink()
    _file(tmp_path / "manifests/registry.ollama.ai/library/broken/latest", b"{not json")
    _file(
        tmp_path / "manifests/registry.ollama.ai/library/adapter/latest",
        json.dumps({"layers": [{"mediaType": "application/vnd.ollama.image.adapter"}]}).encode(),
    )

    found = scan_ollama(tmp_path)

    assert [c.name for c in found.candidates] == ["good:latest"]
    messages = sorted(p.message for p in found.problems)
    assert len(messages) == 2
    assert any("cannot be read" in m and "broken" in m for m in messages)
    assert any("orphan:latest points at a blob that is missing" in m for m in messages)


def test_lmstudio_publisher_and_repo_folders(tmp_path: Path) -> None:
    _file(tmp_path / "lmstudio-community/Qwen2.5-7B-Instruct-GGUF/Qwen2.5-7B-Q4_K_M.gguf")
    _file(tmp_path / "lmstudio-community/Qwen2.5-7B-Instruct-GGUF/README.md")
    _file(tmp_path / "loose.gguf")

    found = scan_lmstudio(tmp_path)

    repos = {c.path.name: c.repo_id for c in found.candidates}
    assert repos == {
        "Qwen2.5-7B-Q4_K_M.gguf": "lmstudio-community/Qwen2.5-7B-Instruct-GGUF",
        "loose.gguf": None,
    }
    assert {c.source for c in found.candidates} == {"lmstudio"}


def test_gpt4all_flat_folder(tmp_path: Path) -> None:
    _file(tmp_path / "Meta-Llama-3-8B-Instruct.Q4_0.gguf")
    _file(tmp_path / "localdocs_v2.db")
    _file(tmp_path / "old-model.bin")

    found = scan_gpt4all(tmp_path)

    assert [c.path.name for c in found.candidates] == ["Meta-Llama-3-8B-Instruct.Q4_0.gguf"]
    assert found.candidates[0].source == "gpt4all"


def test_folder_groups_split_parts_skips_hidden_and_reports_missing_parts(tmp_path: Path) -> None:
    for i in (1, 2, 3):
        _file(tmp_path / f"big/Llama-70B-Q8_0-{i:05d}-of-00003.gguf")
    _file(tmp_path / "big/Other-00001-of-00002.gguf")  # part 2 is missing
    _file(tmp_path / "nested/deeper/small.GGUF")
    _file(tmp_path / ".hidden/secret.gguf")
    _file(tmp_path / "nested/.partial-download.gguf")
    _file(tmp_path / "notes.txt")

    found = scan_folder(tmp_path)

    by_name = {c.path.name: c for c in found.candidates}
    assert sorted(by_name) == ["Llama-70B-Q8_0-00001-of-00003.gguf", "small.GGUF"]
    split = by_name["Llama-70B-Q8_0-00001-of-00003.gguf"]
    assert [p.name for p in split.parts] == [
        f"Llama-70B-Q8_0-{i:05d}-of-00003.gguf" for i in (1, 2, 3)
    ]
    assert len(found.problems) == 1
    assert "Other has 2 parts but part 2 is missing" in found.problems[0].message


def test_folder_does_not_follow_directory_links_in_circles(tmp_path: Path) -> None:
    _file(tmp_path / "a/model.gguf")
    (tmp_path / "a/loop").symlink_to(tmp_path / "a", target_is_directory=True)

    found = scan_folder(tmp_path)

    assert [c.path.name for c in found.candidates] == ["model.gguf"]


def test_models_dir_downloads_and_imported_copies(tmp_path: Path) -> None:
    _file(tmp_path / "bartowski/Phi-3.5-mini-instruct-GGUF/Phi-3.5-mini-instruct-Q4_K_M.gguf")
    _file(tmp_path / "imported/my-model.gguf")
    _file(tmp_path / ".downloads/bartowski/x/partial.gguf")

    found = scan_models_dir(tmp_path)

    sources = {c.path.name: (c.source, c.repo_id) for c in found.candidates}
    assert sources == {
        "Phi-3.5-mini-instruct-Q4_K_M.gguf": ("downloaded", "bartowski/Phi-3.5-mini-instruct-GGUF"),
        "my-model.gguf": ("imported", None),
    }


def test_models_dir_takes_the_hash_from_a_current_download_record(tmp_path: Path) -> None:
    content = b"downloaded bytes"
    fresh = _file(tmp_path / "o/r/fresh.gguf", content)
    stale = _file(tmp_path / "o/r/stale.gguf", content)
    for path, mtime_shift in ((fresh, 0), (stale, 1)):
        stat = path.stat()
        record = {
            "sha256": hashlib.sha256(content).hexdigest(),
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns + mtime_shift,  # stale: the file changed since
            "verified_against": "hub sha256",
        }
        _file(
            tmp_path / ".downloads/o/r" / f"{path.name}.verified.json",
            json.dumps(record).encode(),
        )

    found = scan_models_dir(tmp_path)

    hashes = {c.path.name: c.sha256 for c in found.candidates}
    assert hashes == {"fresh.gguf": hashlib.sha256(content).hexdigest(), "stale.gguf": None}


def test_discover_skips_missing_roots(tmp_path: Path) -> None:
    assert discover(ScanRoot("ollama", tmp_path / "nope")).candidates == ()
    _file(tmp_path / "m.gguf")
    assert len(discover(ScanRoot("gpt4all", tmp_path)).candidates) == 1


def _roots(env: dict[str, str], home: Path, platform: str) -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for root in known_app_roots(env, home, platform):
        out.setdefault(root.source, []).append(root.path)
    return out


def test_default_roots_on_linux(tmp_path: Path) -> None:
    roots = _roots(env={}, home=tmp_path, platform="linux")
    assert roots["hf-cache"] == [tmp_path / ".cache/huggingface/hub"]
    assert roots["lmstudio"] == [
        tmp_path / ".lmstudio/models",
        tmp_path / ".cache/lm-studio/models",
    ]
    assert roots["ollama"] == [
        tmp_path / ".ollama/models",
        Path("/usr/share/ollama/.ollama/models"),
    ]
    assert roots["gpt4all"] == [tmp_path / ".local/share/nomic.ai/GPT4All"]


def test_default_roots_follow_the_environment(tmp_path: Path) -> None:
    env = {
        "HF_HOME": str(tmp_path / "hfhome"),
        "OLLAMA_MODELS": str(tmp_path / "ollama"),
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
    }
    roots = _roots(env=env, home=tmp_path, platform="linux")
    assert roots["hf-cache"] == [tmp_path / "hfhome/hub"]
    assert roots["ollama"] == [tmp_path / "ollama"]
    assert roots["gpt4all"] == [tmp_path / "xdg/nomic.ai/GPT4All"]
    # HF_HUB_CACHE wins over HF_HOME, as in huggingface_hub.
    env["HF_HUB_CACHE"] = "~/elsewhere"
    assert _roots(env=env, home=tmp_path, platform="linux")["hf-cache"] == [tmp_path / "elsewhere"]


def test_default_roots_on_macos_and_windows(tmp_path: Path) -> None:
    mac = _roots(env={}, home=tmp_path, platform="darwin")
    assert mac["gpt4all"] == [tmp_path / "Library/Application Support/nomic.ai/GPT4All"]
    assert mac["ollama"] == [tmp_path / ".ollama/models"]
    win = _roots(env={"LOCALAPPDATA": str(tmp_path / "Local")}, home=tmp_path, platform="win32")
    assert win["gpt4all"] == [tmp_path / "Local/nomic.ai/GPT4All"]
    assert win["hf-cache"] == [tmp_path / ".cache/huggingface/hub"]


def test_scan_roots_order_and_the_known_apps_switch(tmp_path: Path) -> None:
    models = tmp_path / "models"
    full = scan_roots(models, ["~/mine"], env={}, home=tmp_path, platform="linux")
    assert full[0] == ScanRoot("downloaded", models)
    assert full[-1] == ScanRoot("folder", Path(os.path.expanduser("~/mine")))
    assert {r.source for r in full} == {
        "downloaded",
        "hf-cache",
        "lmstudio",
        "ollama",
        "gpt4all",
        "folder",
    }
    only_ours = scan_roots(models, [tmp_path / "x"], known_apps=False)
    assert [r.source for r in only_ours] == ["downloaded", "folder"]


@pytest.mark.parametrize("name", ["model-00002-of-00002.gguf"])
def test_a_lone_later_part_is_a_problem(tmp_path: Path, name: str) -> None:
    _file(tmp_path / name)
    found = scan_folder(tmp_path)
    assert found.candidates == ()
    assert "part 1 is missing" in found.problems[0].message
