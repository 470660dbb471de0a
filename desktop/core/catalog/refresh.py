"""`llm-scout catalog refresh`: read exact file sizes and sha256 hashes from the Hub.

Online and on request only. For every repo the catalog names, one model-info call with file
metadata (``HfApi.model_info(repo, files_metadata=True)``) gives each file's size and, for
files stored with Git LFS, its sha256. Small plain files (``config.json``, tokenizer files)
have no LFS hash: they are fetched (a few KB to MB) and hashed here, after checking their git
blob id against the Hub's. A variant whose files the repo does not have under the catalog's
names (renamed, re-sharded) gets its real file list when the repo leaves no doubt.

The result goes to the refresh overlay (``paths.cache_dir()/catalog_verified.json``), written
atomically; :func:`desktop.core.catalog.load_catalog` layers it over the bundled catalog and
marks those files verified. A repo that fails (404, gated, server error, an answer that is not
the model info the Hub API gives: not JSON, not text, fields missing, as a broken mirror sends)
is reported in one sentence and the others are still refreshed.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from desktop.core.catalog.load import (
    load_catalog_safe,
    read_json,
    refresh_overlay_path,
    write_json_atomically,
)
from desktop.core.catalog.overlay import REFRESH_FORMAT, refresh_facts
from desktop.core.catalog.types import Catalog, CatalogModel, Variant
from desktop.core.errors import CatalogError, HubError
from desktop.core.hub import Hub, file_name_problem

log = logging.getLogger(__name__)

RepoStatus = Literal["ok", "partial", "not_found", "gated", "error"]

# Plain (non-LFS) files up to this size are fetched and hashed; bigger ones stay unverified.
SMALL_FILE_LIMIT = 16 << 20
# Give up when this many repos in a row could not be reached and none could.
UNREACHABLE_AFTER = 3

_AWQ_SIDE_FILES = (
    "config.json",
    "generation_config.json",
    "model.safetensors.index.json",
    "quant_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "tokenizer.model",
    "vocab.json",
    "merges.txt",
    "special_tokens_map.json",
)


@dataclass(frozen=True)
class RepoReport:
    """What happened to one repo. ``missing``: catalog file names the repo does not have;
    ``corrected``: variant ids whose file list was replaced by the repo's real files."""

    repo: str
    status: RepoStatus
    message: str = ""
    files_verified: int = 0
    missing: tuple[str, ...] = ()
    corrected: tuple[str, ...] = ()
    revision: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "status": self.status,
            "message": self.message,
            "files_verified": self.files_verified,
            "missing": list(self.missing),
            "corrected": list(self.corrected),
            "revision": self.revision,
        }


@dataclass(frozen=True)
class RefreshReport:
    path: Path
    endpoint: str
    repos: tuple[RepoReport, ...] = field(default=())

    @property
    def failed(self) -> tuple[RepoReport, ...]:
        return tuple(r for r in self.repos if r.status in ("not_found", "gated", "error"))

    @property
    def files_verified(self) -> int:
        return sum(r.files_verified for r in self.repos)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "endpoint": self.endpoint,
            "files_verified": self.files_verified,
            "repos_failed": len(self.failed),
            "repos": [r.to_dict() for r in self.repos],
        }


class _Unreachable(Exception):
    pass


@dataclass(frozen=True)
class _Session:
    api: Any  # huggingface_hub.HfApi
    hub: Hub
    timeout: float


def refresh_catalog(
    hub: Hub,
    catalog: Catalog | None = None,
    *,
    model_ids: Sequence[str] = (),
    output: Path | None = None,
    timeout: float = 20.0,
    on_repo: Callable[[RepoReport], None] | None = None,
) -> RefreshReport:
    """Refresh sizes and hashes for every repo of ``catalog`` (or of ``model_ids`` only).

    ``catalog`` defaults to the bundled catalog with the user overlay, without an earlier
    refresh. Raises CatalogError when offline mode is on, a model id is unknown or the Hub
    cannot be reached at all; per-repo failures are in the report.
    """
    if hub.offline:
        raise CatalogError(
            f"Refreshing the catalog needs the Hub, but {hub.offline}.", kind="catalog.offline"
        )
    if catalog is None:
        catalog, errors = load_catalog_safe(with_refresh=False)
        if errors and not catalog.models:
            raise errors[0]
    endpoint = hub.endpoint
    output = output if output is not None else refresh_overlay_path()
    models = [catalog.model(m) for m in model_ids] if model_ids else list(catalog.models)
    by_repo: dict[str, list[tuple[CatalogModel, Variant]]] = {}
    for model in models:
        for variant in model.variants:
            by_repo.setdefault(variant.repo, []).append((model, variant))

    from huggingface_hub import HfApi

    session = _Session(HfApi(endpoint=endpoint, token=hub.token), hub, timeout)
    repos: dict[str, dict[str, Any]] = {}
    fixed: dict[str, dict[str, Any]] = {}
    reports: list[RepoReport] = []
    unreachable = 0
    for repo, pairs in by_repo.items():
        try:
            report, entry, corrections = _refresh_repo(session, repo, pairs)
        except _Unreachable as exc:
            unreachable += 1
            report = RepoReport(repo, "error", str(exc))
            entry, corrections = None, {}
            if unreachable >= UNREACHABLE_AFTER and not repos:
                raise CatalogError(
                    f"Cannot reach the Hub at {endpoint}: {exc}", kind="catalog.unreachable"
                ) from exc
        else:
            unreachable = 0
        if entry is not None:
            repos[repo] = entry
        fixed.update(corrections)
        reports.append(report)
        if on_repo is not None:
            on_repo(report)
    _write_overlay(output, endpoint, repos, fixed, refreshed=set(by_repo))
    return RefreshReport(path=output, endpoint=endpoint, repos=tuple(reports))


def _refresh_repo(
    session: _Session, repo: str, pairs: list[tuple[CatalogModel, Variant]]
) -> tuple[RepoReport, dict[str, Any] | None, dict[str, dict[str, Any]]]:
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
    )

    try:
        info = session.api.model_info(repo, files_metadata=True, timeout=session.timeout)
    except GatedRepoError:
        return (
            RepoReport(repo, "gated", "the repo is gated: accept its licence and log in"),
            None,
            {},
        )
    except RepositoryNotFoundError:
        return RepoReport(repo, "not_found", "the repo does not exist on the Hub"), None, {}
    except OfflineModeIsEnabled as exc:
        raise CatalogError(
            "Refreshing the catalog needs the Hub, but offline mode is on (HF_HUB_OFFLINE=1).",
            kind="catalog.offline",
        ) from exc
    except HfHubHTTPError as exc:
        code = getattr(exc.response, "status_code", None)
        return RepoReport(repo, "error", f"the Hub answered HTTP {code}"), None, {}
    except _transport_errors() as exc:
        raise _Unreachable(_reason(exc)) from exc
    except _MALFORMED as exc:  # huggingface_hub parses the answer as it goes: any of these
        return RepoReport(repo, "error", _malformed(exc)), None, {}
    try:
        return _read_repo_info(session, repo, pairs, info)
    except _MALFORMED as exc:
        return RepoReport(repo, "error", _malformed(exc)), None, {}


# What a malformed model info raises inside huggingface_hub or here: a missing field
# (KeyError: 'pointerSize'), bytes that are not UTF-8 or not JSON (ValueError), a wrong type.
_MALFORMED = (KeyError, ValueError, TypeError, AttributeError)


def _malformed(exc: BaseException) -> str:
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return f"the server's model info is malformed ({what[:120]}); is it a Hub or a mirror of one?"


def _read_repo_info(
    session: _Session, repo: str, pairs: list[tuple[CatalogModel, Variant]], info: Any
) -> tuple[RepoReport, dict[str, Any] | None, dict[str, dict[str, Any]]]:
    """Sizes and hashes from a repo's model info (``files_metadata=True``)."""
    revision = getattr(info, "sha", None)
    siblings = {s.rfilename: s for s in (info.siblings or [])}
    wanted: dict[str, None] = {}
    corrections: dict[str, dict[str, Any]] = {}
    missing: list[str] = []
    for _, variant in pairs:
        names = [f.name for f in variant.files]
        absent = [n for n in names if n not in siblings]
        if absent:
            better = _real_files(variant, list(siblings))
            if better is not None:
                corrections[variant.id] = {"repo": repo, "files": better}
                names = better
            else:
                missing.extend(absent)
                names = [n for n in names if n in siblings]
        wanted.update(dict.fromkeys(names))

    files: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for name in wanted:
        sibling = siblings[name]
        lfs = getattr(sibling, "lfs", None)
        if lfs is not None and getattr(lfs, "sha256", None):
            files[name] = {"size_bytes": int(lfs.size), "sha256": str(lfs.sha256).lower()}
            continue
        size = sibling.size
        if size is None or size > SMALL_FILE_LIMIT:
            problems.append(f"{name}: no hash on the Hub")
            continue
        try:
            digest = _hash_small_file(session, repo, revision, name, sibling)
        except CatalogError as exc:
            problems.append(f"{name}: {exc}")
            continue
        files[name] = {"size_bytes": int(size), "sha256": digest}
    # A corrected list only counts when every one of its files is known now.
    for variant_id, entry in list(corrections.items()):
        if not all(n in files for n in entry["files"]):
            del corrections[variant_id]
    status: RepoStatus = "partial" if missing or problems else "ok"
    notes = []
    if missing:
        notes.append(f"not in the repo: {', '.join(sorted(set(missing)))}")
    notes.extend(problems)
    report = RepoReport(
        repo,
        status,
        "; ".join(notes),
        files_verified=len(files),
        missing=tuple(sorted(set(missing))),
        corrected=tuple(sorted(corrections)),
        revision=revision,
    )
    entry = {"revision": revision, "checked_at": _now(), "files": files}
    return report, entry, corrections


_SPLIT = re.compile(r"^(?P<stem>.+)-(?P<i>\d{5})-of-(?P<n>\d{5})\.gguf$", re.IGNORECASE)


def _real_files(variant: Variant, names: list[str]) -> list[str] | None:
    """The repo's files for this variant when they can be told apart without doubt."""
    safe = [n for n in names if file_name_problem(n) is None]
    if variant.format == "awq":
        weights = sorted(n for n in safe if "/" not in n and n.endswith(".safetensors"))
        if not weights:
            return None
        return [n for n in _AWQ_SIDE_FILES if n in safe] + weights
    quant = re.escape(variant.quant.lower())
    pattern = re.compile(rf"[-_.]{quant}(-\d{{5}}-of-\d{{5}})?\.gguf$")
    stems = {_stem(f.name, pattern) for f in variant.files}

    def same_model(name: str) -> bool:
        # The same model under another spelling: "qwen2.5-7b-instruct" / "Qwen2.5-7B-Instruct",
        # "microsoft_Phi-4-mini-instruct" / "Phi-4-mini-instruct", a folder for split parts.
        stem = _stem(name, pattern)
        return any(s and (s in stem or stem in s) for s in stems)

    candidates = [
        n for n in safe if pattern.search(n.lower()) and "mmproj" not in n.lower() and same_model(n)
    ]
    singles = [n for n in candidates if not _SPLIT.match(n.rsplit("/", 1)[-1])]
    if len(singles) == 1:
        return singles
    if singles:
        return None
    groups: dict[tuple[str, int], list[str]] = {}
    for name in candidates:
        match = _SPLIT.match(name)
        if match:
            groups.setdefault((match["stem"], int(match["n"])), []).append(name)
    complete = [sorted(v) for (_, n), v in groups.items() if len(v) == n]
    return complete[0] if len(complete) == 1 else None


def _stem(name: str, pattern: re.Pattern[str]) -> str:
    base = name.rsplit("/", 1)[-1].lower()
    match = pattern.search(base)
    return base[: match.start()] if match else base.removesuffix(".gguf")


def _hash_small_file(
    session: _Session, repo: str, revision: str | None, name: str, sibling: Any
) -> str:
    from huggingface_hub import get_session

    build_hf_headers = importlib.import_module("huggingface_hub.utils").build_hf_headers
    try:
        url = session.hub.file_url(repo, name, revision or "main")
    except HubError as exc:
        raise CatalogError(exc.message) from exc
    try:
        response = get_session().get(
            url,
            headers=build_hf_headers(token=session.hub.token_for(url) or False),
            timeout=session.timeout,
            follow_redirects=True,
        )
    except _transport_errors() as exc:
        raise CatalogError(f"could not fetch it ({_reason(exc)})") from exc
    if response.status_code != 200:
        raise CatalogError(f"fetching it gave HTTP {response.status_code}")
    data = response.content
    if sibling.size is not None and len(data) != sibling.size:
        raise CatalogError(f"got {len(data)} bytes, the Hub lists {sibling.size}")
    blob_id = getattr(sibling, "blob_id", None)
    if blob_id:
        git_sha1 = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False)
        if git_sha1.hexdigest() != blob_id:
            raise CatalogError("its content does not match the Hub's git blob id")
    return hashlib.sha256(data).hexdigest()


def _write_overlay(
    path: Path,
    endpoint: str,
    repos: dict[str, dict[str, Any]],
    fixed: dict[str, dict[str, Any]],
    refreshed: Iterable[str],
) -> None:
    """Merge into the existing overlay (repos not refreshed now are kept) and replace it
    atomically."""
    document: dict[str, Any] = {"schema_version": REFRESH_FORMAT, "repos": {}, "variants": {}}
    if path.is_file():
        try:
            old = read_json(path)
            refresh_facts(old, path)
            document["repos"].update(old["repos"])
            document["variants"].update(old.get("variants", {}))
        except CatalogError as exc:
            log.warning("Replacing a broken refresh overlay: %s", exc)
    touched = set(refreshed)
    document["variants"] = {
        vid: v for vid, v in document["variants"].items() if v["repo"] not in touched
    }
    document["repos"].update(repos)
    document["variants"].update(fixed)
    document["refreshed_at"] = _now()
    document["endpoint"] = endpoint
    write_json_atomically(path, document, f"Cannot write the refreshed catalog data to {path}")


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Connection-level errors of whichever HTTP library huggingface_hub uses."""
    found: list[type[BaseException]] = [ConnectionError, TimeoutError]
    for module_name, attr in (("httpx2", "TransportError"), ("httpx", "TransportError")):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        cls = getattr(module, attr, None)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            found.append(cls)
    return tuple(found)


def _reason(exc: BaseException) -> str:
    """A connection error in words: "the connection was refused", not "[Errno 111] ..."."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = re.sub(r"^\[Errno -?\d+\]\s*", "", text).rstrip(".")
    if isinstance(exc, ConnectionRefusedError) or text.lower() == "connection refused":
        return "the connection was refused"
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
