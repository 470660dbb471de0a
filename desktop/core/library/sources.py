"""Where models already on disk live, and how to find them without opening them.

Each source is a function taking its root folder (so tests point it at a temporary tree) and
returning a :class:`Discovery`: the candidate files it found, named as well as its layout allows,
plus the problems it saw in the layout itself (a manifest that is not JSON, a link to a blob that
is gone, a split model with a missing part). Nothing here reads a GGUF header; the library does
that, and only for files that are new or changed.

Sources and their layouts:

- ``hf-cache``: ``models--owner--name/snapshots/<rev>/**/*.gguf``, symlinks into ``blobs/``; the
  blob of an LFS file is named by its sha256, so the hash is known without reading the file.
- ``lmstudio``: ``<publisher>/<repo>/*.gguf`` (``~/.lmstudio/models`` and the older
  ``~/.cache/lm-studio/models``).
- ``ollama``: ``manifests/<host>/<namespace>/<model>/<tag>`` JSON files whose model layer points
  at ``blobs/sha256-<hex>`` (a GGUF without extension; its digest is its sha256).
- ``gpt4all``: a flat folder of ``*.gguf``.
- ``downloaded``: our own models folder, ``<owner>/<repo>/<file>``; ``imported/`` holds copies
  made by ``llm-scout import --copy`` (source ``imported``).
- ``folder``: any folder the user added, searched recursively for ``*.gguf``.
- ``demo``: the folders holding the app's demo models (:func:`demo_roots`), flat.

Split models (``name-00001-of-00003.gguf``) are one candidate: the first part, with every part
listed in ``parts``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from desktop.core.errors import LibraryError, Sentence
from desktop.core.library.files import SPLIT_RE

log = logging.getLogger(__name__)

Source = Literal[
    "imported", "downloaded", "hf-cache", "lmstudio", "ollama", "gpt4all", "folder", "demo"
]
SOURCES: tuple[Source, ...] = (
    "imported",
    "downloaded",
    "hf-cache",
    "lmstudio",
    "ollama",
    "gpt4all",
    "folder",
    "demo",
)

IMPORTED_SUBDIR = "imported"
# desktop.core.download's layout: partials and verification records live under this folder.
DOWNLOADS_SUBDIR = ".downloads"
VERIFIED_SUFFIX = ".verified.json"
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"
OLLAMA_DEFAULT_HOST = "registry.ollama.ai"

_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Candidate:
    """A file that should be a GGUF model, as a source found it.

    ``path`` is absolute but keeps symlinks (the name a person recognises, and the library's
    key); ``real_path`` has them resolved, so one file reached twice is listed once. For a split
    model ``path`` is the first part. ``sha256`` (of ``path``'s file) is set only where the layout
    itself names the hash (Ollama digests, Hugging Face LFS blobs); ``name`` is a name the layout
    gives (an Ollama ``model:tag``).
    """

    path: Path
    source: Source
    real_path: Path
    parts: tuple[Path, ...]
    repo_id: str | None = None
    name: str | None = None
    sha256: str | None = None


@dataclass(frozen=True)
class SourceProblem:
    """Something wrong in a source's layout, as one plain sentence (and as a
    :class:`~desktop.core.errors.Sentence` a front end translates)."""

    path: Path
    source: Source
    message: str
    sentence: Sentence | None = None


@dataclass(frozen=True)
class Discovery:
    candidates: tuple[Candidate, ...] = ()
    problems: tuple[SourceProblem, ...] = ()


@dataclass(frozen=True)
class ScanRoot:
    """One folder to search, and which layout it has."""

    source: Source
    path: Path


@dataclass
class _Collector:
    source: Source
    candidates: list[Candidate] = field(default_factory=list)
    problems: list[SourceProblem] = field(default_factory=list)

    def problem(self, path: Path, message: str, sentence: Sentence | None = None) -> None:
        self.problems.append(SourceProblem(path, self.source, message, sentence))

    def result(self) -> Discovery:
        """The candidates, one per real file (the first path that reached it wins)."""
        seen: set[Path] = set()
        unique = []
        for cand in self.candidates:
            if cand.real_path not in seen:
                seen.add(cand.real_path)
                unique.append(cand)
        return Discovery(tuple(unique), tuple(self.problems))


# ---------------------------------------------------------------------------------------------
# Walking folders of *.gguf files


def _walk_gguf(root: Path, *, skip_dirs: Sequence[str] = ()) -> Iterator[Path]:
    """Every ``*.gguf`` under ``root`` (files or links to files), hidden folders left out.

    Folder links are not followed (a cycle cannot hang the scan); file links are returned as
    they are and resolved by the caller.
    """
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in skip_dirs)
        for name in sorted(filenames):
            if name.lower().endswith(".gguf") and not name.startswith("."):
                yield Path(dirpath) / name
        skip_dirs = ()  # only at the top level


def _group_split(paths: Iterable[Path], out: _Collector) -> list[tuple[Path, tuple[Path, ...]]]:
    """Fold split parts into one (first part, all parts) pair; single files pass through."""
    singles: list[tuple[Path, tuple[Path, ...]]] = []
    groups: dict[tuple[Path, str, int], dict[int, Path]] = {}
    for path in paths:
        match = SPLIT_RE.match(path.name)
        if match is None:
            singles.append((path, (path,)))
            continue
        key = (path.parent, match["stem"], int(match["count"]))
        groups.setdefault(key, {})[int(match["index"])] = path
    for (parent, stem, count), found in sorted(groups.items(), key=lambda kv: str(kv[0])):
        missing = [i for i in range(1, count + 1) if i not in found]
        if missing:
            shown = ", ".join(str(i) for i in missing[:5])
            out.problem(
                parent / f"{stem}-{1:05d}-of-{count:05d}.gguf",
                f"The split model {stem} has {count} parts but part {shown} is missing.",
                Sentence(
                    "library.split_parts_missing", {"name": stem, "count": count, "parts": shown}
                ),
            )
            continue
        ordered = tuple(found[i] for i in range(1, count + 1))
        singles.append((ordered[0], ordered))
    singles.sort(key=lambda item: str(item[0]))
    return singles


def _resolve(path: Path, out: _Collector) -> Path | None:
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        out.problem(
            path,
            f"The file {path} is a link to a file that no longer exists.",
            Sentence("library.dangling_link", {"path": str(path)}),
        )
        return None
    if not real.is_file():
        out.problem(
            path,
            f"{path} is not a regular file.",
            Sentence("library.not_regular", {"path": str(path)}),
        )
        return None
    return real


def _add_files(
    out: _Collector,
    files: Iterable[Path],
    repo_of: Mapping[Path, str | None] | None = None,
    sha_of_real: bool = False,
) -> None:
    for first, parts in _group_split(files, out):
        real = _resolve(first, out)
        if real is None or any(_resolve(p, out) is None for p in parts[1:]):
            continue
        sha = real.name if sha_of_real and _SHA256_RE.match(real.name) else None
        out.candidates.append(
            Candidate(
                path=first,
                source=out.source,
                real_path=real,
                parts=parts,
                repo_id=(repo_of or {}).get(first),
                sha256=sha,
            )
        )


def _repo_from_relative(root: Path, path: Path) -> str | None:
    """``<owner>/<repo>/.../file.gguf`` under ``root`` -> ``owner/repo``."""
    rel = path.relative_to(root).parts
    return f"{rel[0]}/{rel[1]}" if len(rel) >= 3 else None


# ---------------------------------------------------------------------------------------------
# The sources


def scan_folder(root: Path, source: Source = "folder") -> Discovery:
    """A user folder: every ``*.gguf`` below it."""
    out = _Collector(source)
    _add_files(out, _walk_gguf(root))
    return out.result()


def scan_models_dir(root: Path) -> Discovery:
    """Our own models folder: ``<owner>/<repo>/<file>`` downloads, ``imported/`` copies.

    A download's verification record (``.downloads/<owner>/<repo>/<file>.verified.json``,
    written by :mod:`desktop.core.download`) gives the file's sha256 while the file still has
    the size and mtime recorded there.
    """
    downloaded = _Collector("downloaded")
    files = list(_walk_gguf(root, skip_dirs=(IMPORTED_SUBDIR,)))
    _add_files(downloaded, files, {p: _repo_from_relative(root, p) for p in files})
    found = downloaded.result()
    candidates = tuple(replace(c, sha256=_verified_sha256(root, c.path)) for c in found.candidates)
    imported = scan_folder(root / IMPORTED_SUBDIR, "imported")
    return Discovery(candidates + imported.candidates, found.problems + imported.problems)


def _verified_sha256(root: Path, path: Path) -> str | None:
    record_path = root / DOWNLOADS_SUBDIR / f"{path.relative_to(root)}{VERIFIED_SUFFIX}"
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
        stat = path.stat()
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(record, dict):
        return None
    sha = record.get("sha256")
    if (
        isinstance(sha, str)
        and _SHA256_RE.match(sha)
        and record.get("size") == stat.st_size
        and record.get("mtime_ns") == stat.st_mtime_ns
    ):
        return sha
    return None


def downloaded_files(path: Path, models_dir: Path) -> tuple[tuple[Path, Path], ...]:
    """The files of the model ``path`` that the downloader installed in ``models_dir``, each
    with its verification record: ``(file, record)`` pairs, every part of a split model.

    Raises LibraryError (one sentence) unless ``path`` is a regular file at
    ``<models dir>/<owner>/<repo>/...`` (no link, nothing in ``imported/`` or ``.downloads/``)
    and every part has the ``.downloads/.../<file>.verified.json`` record the downloader wrote,
    for a file of the size recorded there. Nothing is deleted or changed here.
    """
    root = models_dir.expanduser().absolute()
    file = Path(path).expanduser().absolute()
    refuse = LibraryError(
        f"{file.name} was not downloaded by LLM Scout into {root}, so the app does not delete "
        "it; it can only be forgotten.",
        sentence=Sentence("library.not_downloaded", {"name": file.name, "folder": str(root)}),
    )
    try:
        rel = file.relative_to(root)
    except ValueError:
        raise refuse from None
    if len(rel.parts) < 3 or rel.parts[0] in (DOWNLOADS_SUBDIR, IMPORTED_SUBDIR):
        raise refuse
    if ".." in rel.parts or file.is_symlink() or not file.is_file():
        raise refuse
    try:
        file.parent.resolve().relative_to(root.resolve())
    except (OSError, ValueError):
        raise refuse from None
    parts = [file]
    match = SPLIT_RE.match(file.name)
    if match is not None:
        count = int(match["count"])
        names = [f"{match['stem']}-{i:05d}-of-{count:05d}.gguf" for i in range(1, count + 1)]
        parts = [file.with_name(n) for n in names if n == file.name or file.with_name(n).exists()]
    pairs: list[tuple[Path, Path]] = []
    for part in parts:
        record = root / DOWNLOADS_SUBDIR / f"{part.relative_to(root)}{VERIFIED_SUFFIX}"
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
            size = part.stat().st_size
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            raise refuse from None
        if part.is_symlink() or not isinstance(data, dict) or data.get("size") != size:
            raise refuse
        pairs.append((part, record))
    return tuple(pairs)


def scan_hf_cache(root: Path) -> Discovery:
    """The Hugging Face hub cache: GGUF files in every snapshot of every model repo.

    The same blob seen from several revisions is listed once, preferring the revision that
    ``refs/main`` points at.
    """
    out = _Collector("hf-cache")
    try:
        repo_dirs = sorted(d for d in root.iterdir() if d.name.startswith("models--"))
    except OSError:
        return out.result()
    for repo_dir in repo_dirs:
        owner_name = repo_dir.name[len("models--") :]
        repo_id = owner_name.replace("--", "/", 1)
        snapshots = repo_dir / "snapshots"
        if not snapshots.is_dir():
            continue
        main_rev = _read_text(repo_dir / "refs" / "main")
        revs = sorted(
            (d for d in snapshots.iterdir() if d.is_dir()),
            key=lambda d: (d.name != main_rev, d.name),
        )
        for rev in revs:  # split parts never mix revisions
            files = list(_walk_gguf(rev))
            _add_files(out, files, dict.fromkeys(files, repo_id), sha_of_real=True)
    return out.result()


def scan_lmstudio(root: Path) -> Discovery:
    """LM Studio's models folder: ``<publisher>/<repo>/*.gguf``."""
    out = _Collector("lmstudio")
    files = list(_walk_gguf(root))
    _add_files(out, files, {p: _repo_from_relative(root, p) for p in files})
    return out.result()


def scan_gpt4all(root: Path) -> Discovery:
    """GPT4All's data folder: model files side by side."""
    return _scan_flat(root, "gpt4all")


def scan_demo(root: Path) -> Discovery:
    """A folder holding a demo model (a package folder, a cache folder): its own ``*.gguf``
    files, not its subfolders."""
    return _scan_flat(root, "demo")


def _scan_flat(root: Path, source: Source) -> Discovery:
    out = _Collector(source)
    try:
        files = sorted(
            p for p in root.iterdir() if p.name.lower().endswith(".gguf") and p.is_file()
        )
    except OSError:
        return out.result()
    _add_files(out, files)
    return out.result()


def scan_ollama(root: Path) -> Discovery:
    """Ollama's store: names from the manifests, the model layer's blob as the file.

    Several tags of one blob give one candidate named by all of them (``a:latest, a:8b``).
    """
    out = _Collector("ollama")
    manifests = root / "manifests"
    names: dict[str, list[str]] = {}
    for manifest in _manifest_files(manifests):
        digest = _model_digest(manifest, out)
        if digest is None:
            continue
        names.setdefault(digest, []).append(_ollama_name(manifests, manifest))
    for digest, tags in sorted(names.items()):
        hex_digest = digest.split(":", 1)[1]
        blob = _ollama_blob(root / "blobs", hex_digest)
        if blob is None:
            out.problem(
                root / "blobs" / f"sha256-{hex_digest}",
                f"The Ollama model {tags[0]} points at a blob that is missing.",
                Sentence("library.ollama_blob_missing", {"name": tags[0]}),
            )
            continue
        real = _resolve(blob, out)
        if real is None:
            continue
        out.candidates.append(
            Candidate(
                path=blob,
                source="ollama",
                real_path=real,
                parts=(blob,),
                name=", ".join(sorted(tags)),
                sha256=hex_digest,
            )
        )
    return out.result()


def _manifest_files(manifests: Path) -> Iterator[Path]:
    """``manifests/<host>/<namespace>/<model>/<tag>`` files."""
    if not manifests.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(manifests):
        dirnames.sort()
        depth = len(Path(dirpath).relative_to(manifests).parts)
        if depth == 3:
            for name in sorted(filenames):
                if not name.startswith("."):
                    yield Path(dirpath) / name


def _model_digest(manifest: Path, out: _Collector) -> str | None:
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        out.problem(
            manifest,
            f"The Ollama manifest {manifest} cannot be read ({exc}).",
            Sentence("library.ollama_manifest_unreadable", {"path": str(manifest)}),
        )
        return None
    layers = data.get("layers") if isinstance(data, dict) else None
    if not isinstance(layers, list):
        out.problem(
            manifest,
            f"The Ollama manifest {manifest} has no list of layers.",
            Sentence("library.ollama_manifest_no_layers", {"path": str(manifest)}),
        )
        return None
    for layer in layers:
        if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL_LAYER:
            digest = layer.get("digest")
            if (
                isinstance(digest, str)
                and digest.startswith("sha256:")
                and _SHA256_RE.match(digest[7:])
            ):
                return digest
            out.problem(
                manifest,
                f"The Ollama manifest {manifest} has an invalid model digest.",
                Sentence("library.ollama_manifest_bad_digest", {"path": str(manifest)}),
            )
            return None
    # Manifests without a model layer (adapters only, embeddings stores) are not models.
    log.debug("Ollama manifest %s has no model layer", manifest)
    return None


def _ollama_name(manifests: Path, manifest: Path) -> str:
    host, namespace, model, tag = manifest.relative_to(manifests).parts
    if host == OLLAMA_DEFAULT_HOST:
        prefix = "" if namespace == "library" else f"{namespace}/"
    else:
        prefix = f"{host}/{namespace}/"
    return f"{prefix}{model}:{tag}"


def _ollama_blob(blobs: Path, hex_digest: str) -> Path | None:
    # Current Ollama writes "sha256-<hex>"; early versions wrote "sha256:<hex>".
    for name in (f"sha256-{hex_digest}", f"sha256:{hex_digest}"):
        candidate = blobs / name
        if candidate.exists():
            return candidate
    return None


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None


SCANNERS = {
    "imported": lambda root: scan_folder(root, "imported"),
    "downloaded": scan_models_dir,
    "hf-cache": scan_hf_cache,
    "lmstudio": scan_lmstudio,
    "ollama": scan_ollama,
    "gpt4all": scan_gpt4all,
    "folder": scan_folder,
    "demo": scan_demo,
}


def discover(root: ScanRoot) -> Discovery:
    """Run the scanner for ``root.source`` on ``root.path``; a missing folder finds nothing."""
    if not root.path.is_dir():
        return Discovery()
    return SCANNERS[root.source](root.path)


# ---------------------------------------------------------------------------------------------
# Where each application keeps its models


def known_app_roots(
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    platform: str | None = None,
) -> list[ScanRoot]:
    """Default folders of the Hugging Face cache, LM Studio, Ollama and GPT4All.

    ``env``, ``home`` and ``platform`` default to this machine's; tests pass their own to check
    the other platforms' rules. Folders that do not exist are included (``discover`` skips
    them), so the list says where the app looked.
    """
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    platform = sys.platform if platform is None else platform

    def expand(value: str) -> Path:
        return Path(value.replace("~", str(home), 1) if value.startswith("~") else value)

    roots: list[ScanRoot] = []
    # Hugging Face, exactly as huggingface_hub decides (constants.py).
    if env.get("HF_HUB_CACHE"):
        hf = expand(env["HF_HUB_CACHE"])
    elif env.get("HUGGINGFACE_HUB_CACHE"):
        hf = expand(env["HUGGINGFACE_HUB_CACHE"])
    elif env.get("HF_HOME"):
        hf = expand(env["HF_HOME"]) / "hub"
    else:
        cache = expand(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else home / ".cache"
        hf = cache / "huggingface" / "hub"
    roots.append(ScanRoot("hf-cache", hf))

    roots.append(ScanRoot("lmstudio", home / ".lmstudio" / "models"))
    roots.append(ScanRoot("lmstudio", home / ".cache" / "lm-studio" / "models"))

    if env.get("OLLAMA_MODELS"):
        roots.append(ScanRoot("ollama", expand(env["OLLAMA_MODELS"])))
    else:
        roots.append(ScanRoot("ollama", home / ".ollama" / "models"))
        if platform.startswith("linux"):
            # The Linux install script runs Ollama as a service user with this home.
            roots.append(ScanRoot("ollama", Path("/usr/share/ollama/.ollama/models")))

    if platform == "darwin":
        gpt4all = home / "Library" / "Application Support" / "nomic.ai" / "GPT4All"
    elif platform.startswith("win"):
        local = env.get("LOCALAPPDATA")
        base = expand(local) if local else home / "AppData" / "Local"
        gpt4all = base / "nomic.ai" / "GPT4All"
    else:
        data = expand(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else None
        gpt4all = (data or home / ".local" / "share") / "nomic.ai" / "GPT4All"
    roots.append(ScanRoot("gpt4all", gpt4all))
    return roots


def demo_roots(files: Iterable[Path]) -> list[ScanRoot]:
    """The folders holding the demo model ``files`` (each once), as ``demo`` roots."""
    roots: list[ScanRoot] = []
    for file in files:
        root = ScanRoot("demo", Path(file).expanduser().absolute().parent)
        if root not in roots:
            roots.append(root)
    return roots


def scan_roots(
    models_dir: Path,
    extra_dirs: Iterable[str | Path] = (),
    *,
    known_apps: bool = True,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    platform: str | None = None,
) -> list[ScanRoot]:
    """Everything a full scan looks at: our models folder, the known apps, the user's folders."""
    roots = [ScanRoot("downloaded", models_dir)]
    if known_apps:
        roots.extend(known_app_roots(env, home, platform))
    roots.extend(ScanRoot("folder", Path(d).expanduser()) for d in extra_dirs)
    return roots
