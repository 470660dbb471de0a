"""Loading the catalog: read and check each layer, merge the overlays, build the dataclasses.

The bundled ``models_catalog.json`` is layered with the refresh overlay and the user's own
catalog (bundled < refreshed < user); see :mod:`desktop.core.catalog`. Import these functions from
there.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from desktop.core import paths
from desktop.core.catalog.overlay import (
    REFRESH_FILE_NAME,
    RefreshFacts,
    apply_refresh,
    merge_overlay,
    overlay_pointer,
    refresh_facts,
)
from desktop.core.catalog.quality import (
    build_quality,
    bundled_quality_path,
    catalog_families,
    merge_quality,
    quality_from_file,
)
from desktop.core.catalog.schema import (
    file_name_problem,
    invalid,
    schema_problem,
    semantic_problem,
)
from desktop.core.catalog.types import (
    Catalog,
    CatalogModel,
    License,
    LocalDemo,
    Variant,
    VariantFile,
)
from desktop.core.errors import CatalogError
from desktop.core.gguf import ModelArch

log = logging.getLogger(__name__)


# --- loading ------------------------------------------------------------------------------


def refresh_overlay_path() -> Path:
    """Where ``catalog refresh`` writes the sizes and hashes it read from the Hub."""
    return paths.cache_dir() / REFRESH_FILE_NAME


def write_json_atomically(path: Path, document: Any, failure: str) -> None:
    """Write ``document`` to ``path`` through a temporary file replaced in one step, so a reader
    sees the old file or the new one, never half of one. ``failure`` opens the sentence of the
    :class:`CatalogError` raised when the disk refuses (e.g. "Cannot write … to PATH")."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CatalogError(f"{failure}: {exc.strerror}.", kind="catalog.write") from exc


def read_json(path: Path) -> Any:
    """Parse a JSON file; any failure is a CatalogError naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise CatalogError(
            f"The catalog file {path} does not exist.", kind="catalog.missing"
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CatalogError(
            f"The catalog file {path} cannot be read: {reason}.", kind="catalog.unreadable"
        ) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(
            f"The catalog file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}.",
            kind="catalog.json",
        ) from exc


def check_document(document: Any, path: Path | str) -> dict[str, Any]:
    """Schema and semantic checks on a complete catalog document."""
    problem = schema_problem(document) or semantic_problem(document)
    if problem is not None:
        raise invalid(path, *problem)
    checked: dict[str, Any] = document
    return checked


CHECKED_STAMP = "catalog-checked"  # in the cache folder: the bundled file last found valid
QUALITY_CHECKED_STAMP = "quality-checked"  # the same for the bundled quality file


def check_bundled(document: Any, path: Path) -> dict[str, Any]:
    """:func:`check_document` for the bundled catalog, skipping the schema (about 140 ms with
    jsonschema's import, on every start of the window) when this very file (path, size,
    modification time) passed it before; the cheap semantic checks always run."""
    if not _checked_before(path, CHECKED_STAMP):
        checked = check_document(document, path)
        _remember_checked(path, CHECKED_STAMP)
        return checked
    problem = semantic_problem(document)
    if problem is not None:
        raise invalid(path, *problem)
    result: dict[str, Any] = document
    return result


def _checked_before(path: Path, marker_name: str) -> bool:
    """This very file (path, size, modification time) passed its schema check before."""
    stamp = _file_stamp(path)
    try:
        return bool(stamp) and (paths.cache_dir() / marker_name).read_text("utf-8") == stamp
    except OSError:
        return False


def _remember_checked(path: Path, marker_name: str) -> None:
    stamp = _file_stamp(path)
    if not stamp:
        return
    marker = paths.cache_dir() / marker_name
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        temp = marker.with_name(marker.name + ".tmp")
        temp.write_text(stamp, encoding="utf-8")
        temp.replace(marker)
    except OSError as exc:  # a read-only cache only costs the check next time
        log.debug("cannot remember the checked file %s: %s", path, exc)


def _file_stamp(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return ""
    return f"{path.resolve()}\n{st.st_size}\n{st.st_mtime_ns}"


def _add_quality(document: dict[str, Any], path: Path) -> bool:
    """Add the scores of the quality file ``path`` (when it exists) to ``document``'s models;
    True when it did. A broken file raises CatalogError."""
    if not path.is_file():
        return False
    data = read_json(path)
    if _checked_before(path, QUALITY_CHECKED_STAMP):
        records = quality_from_file(data, path, catalog_families(document), checked=True)
    else:
        records = quality_from_file(data, path, catalog_families(document))
        _remember_checked(path, QUALITY_CHECKED_STAMP)
    merge_quality(document, records)
    return True


def load_catalog(
    bundled: Path | None = None,
    user: Path | None = None,
    refreshed: Path | None = None,
    *,
    with_refresh: bool = True,
    quality: Path | None = None,
) -> Catalog:
    """Load the bundled catalog with its published quality scores (``quality``: the bundled
    ``resources/quality/published.json`` by default), then the refresh overlay and the user
    overlay over it.

    Missing overlay (or quality) files are fine; a broken file of any layer raises CatalogError.
    ``with_refresh=False`` leaves the refresh overlay out (what ``catalog refresh`` starts from).
    """
    bundled = bundled if bundled is not None else paths.bundled_catalog_path()
    user = user if user is not None else paths.user_catalog_path()
    refreshed = refreshed if refreshed is not None else refresh_overlay_path()
    quality = quality if quality is not None else bundled_quality_path()
    document = check_bundled(read_json(bundled), bundled)
    _add_quality(document, quality)  # scores, not a catalog layer: not in ``sources``
    sources = [str(bundled)]
    facts = _read_refresh(refreshed) if with_refresh else RefreshFacts()
    if facts:
        apply_refresh(document, facts)
        sources.append(str(refreshed))
    if user.is_file():
        document = _merge_user(document, user, facts)
        sources.append(str(user))
    return build_catalog(document, sources)


def load_catalog_safe(
    bundled: Path | None = None,
    user: Path | None = None,
    refreshed: Path | None = None,
    *,
    with_refresh: bool = True,
    quality: Path | None = None,
) -> tuple[Catalog, list[CatalogError]]:
    """Like :func:`load_catalog`, but never raises: a broken overlay (or quality file) is left
    out (the bundled catalog still loads) and a broken bundled file gives an empty catalog. The
    errors come back for the caller to show."""
    bundled = bundled if bundled is not None else paths.bundled_catalog_path()
    user = user if user is not None else paths.user_catalog_path()
    refreshed = refreshed if refreshed is not None else refresh_overlay_path()
    quality = quality if quality is not None else bundled_quality_path()
    # Errors go back to the caller, who shows them once; the log file keeps them too.
    errors: list[CatalogError] = []
    try:
        document = check_bundled(read_json(bundled), bundled)
    except CatalogError as exc:
        log.info("%s", exc)
        return Catalog(models=()), [exc]
    sources = [str(bundled)]
    try:
        _add_quality(document, quality)
    except CatalogError as exc:
        log.info("%s", exc)
        errors.append(exc)
    facts = RefreshFacts()
    try:
        facts = _read_refresh(refreshed) if with_refresh else RefreshFacts()
    except CatalogError as exc:
        log.info("%s", exc)
        errors.append(exc)
    if facts:
        apply_refresh(document, facts)
        sources.append(str(refreshed))
    if user.is_file():
        try:
            document = _merge_user(document, user, facts)
            sources.append(str(user))
        except CatalogError as exc:
            log.info("%s", exc)
            errors.append(exc)
    return build_catalog(document, sources), errors


def _read_refresh(path: Path) -> RefreshFacts:
    if not path.is_file():
        return RefreshFacts()
    return refresh_facts(read_json(path), path)


def _merge_user(document: dict[str, Any], user: Path, facts: RefreshFacts) -> dict[str, Any]:
    overlay = read_json(user)
    problem = schema_problem(overlay, overlay=True) or file_name_problem(overlay)
    if problem is not None:
        raise invalid(user, *problem)
    merged, origins = merge_overlay(document, overlay)
    if facts:
        # Files the user added without a hash still get the Hub facts a refresh found.
        def from_user(m_index: int, v_index: int, entry: Any) -> bool:
            origin = origins.get(m_index)
            return origin is not None and v_index in origin.variants and entry.get("sha256") is None

        apply_refresh(merged, facts, select=from_user)
    problem = schema_problem(merged) or semantic_problem(merged)
    if problem is not None:
        where, message = problem
        mapped = overlay_pointer(where, origins)
        raise invalid(user, mapped if mapped is not None else where, message)
    return merged


# --- building the dataclasses -------------------------------------------------------------


def build_catalog(document: dict[str, Any], sources: Iterable[str] = ()) -> Catalog:
    """Turn a checked catalog document into the frozen dataclasses."""
    return Catalog(
        models=tuple(_build_model(m) for m in document["models"]),
        schema_version=int(document["schema_version"]),
        sources=tuple(sources),
    )


def _build_model(data: dict[str, Any]) -> CatalogModel:
    lic = data["license"]
    return CatalogModel(
        id=data["id"],
        family=data["family"],
        name=data["name"],
        n_params=int(data["n_params"]),
        arch=build_arch(data["arch"], int(data["n_params"]), data.get("n_params_active")),
        license=License(
            name=lic["name"],
            commercial_use=bool(lic["commercial_use"]),
            url=lic["url"],
            note=lic.get("note", ""),
        ),
        languages=tuple(data["languages"]),
        description=data["description"],
        variants=tuple(_build_variant(data["id"], v) for v in data["variants"]),
        gated=bool(data.get("gated", False)),
        n_params_active=data.get("n_params_active"),
        hf_repo=data.get("hf_repo", ""),
        tags=tuple(data.get("tags", ())),
        params_verified=bool(data.get("params_verified", False)),
        quality=tuple(build_quality(data["id"], q) for q in data.get("quality", ())),
    )


def _build_variant(model_id: str, data: dict[str, Any]) -> Variant:
    demo = data.get("local_demo")
    return Variant(
        id=data["id"],
        model_id=model_id,
        format=data["format"],
        quant=data["quant"],
        repo=data["repo"],
        files=tuple(
            VariantFile(
                name=f["name"],
                size_bytes=f.get("size_bytes"),
                sha256=f.get("sha256"),
                verified=bool(f.get("verified", False)),
            )
            for f in data["files"]
        ),
        gated=bool(data.get("gated", False)),
        note=data.get("note", ""),
        local_demo=LocalDemo(
            sha256=demo["sha256"],
            size_bytes=int(demo["size_bytes"]),
            package=demo.get("package", ""),
            note=demo.get("note", ""),
        )
        if demo
        else None,
    )


_EXTRA_ARCH_KEYS = (
    "n_expert_shared",
    "n_ff_exp",
    "n_layer_dense_lead",
    "tied_embeddings",
    "source",
)


def build_arch(
    data: dict[str, Any], n_params: int, n_params_active: int | None = None
) -> ModelArch:
    """The catalog's architecture numbers as the :class:`ModelArch` fit uses."""
    n_layers = int(data["n_layers"])
    head_dim = int(data.get("head_dim", data["n_embd"] // data["n_head"]))
    sliding_window = int(data.get("sliding_window", 0))
    if "swa_layers" in data:
        swa = tuple(bool(x) for x in data["swa_layers"])
    elif "swa_pattern" in data:
        period = int(data["swa_pattern"])
        swa = tuple(i % period < period - 1 for i in range(n_layers))
    elif sliding_window:
        swa = (True,) * n_layers
    else:
        swa = ()
    extra: dict[str, Any] = {k: data[k] for k in _EXTRA_ARCH_KEYS if k in data}
    if n_params_active is not None:
        extra["n_params_active"] = n_params_active
    return ModelArch(
        architecture=data["architecture"],
        n_params=n_params,
        n_layers=n_layers,
        n_embd=int(data["n_embd"]),
        n_head=int(data["n_head"]),
        n_head_kv=ModelArch.per_layer(data["n_head_kv"], n_layers),
        head_dim_k=int(data.get("head_dim_k", head_dim)),
        head_dim_v=int(data.get("head_dim_v", head_dim)),
        n_ctx_train=int(data["n_ctx_train"]),
        n_vocab=int(data["n_vocab"]),
        n_ff=int(data.get("n_ff", 0)),
        sliding_window=sliding_window,
        swa_layers=swa,
        kv_lora_rank=int(data.get("kv_lora_rank", 0)),
        n_rot=int(data.get("n_rot", 0)),
        n_expert=int(data.get("n_expert", 0)),
        n_expert_used=int(data.get("n_expert_used", 0)),
        extra=extra,
    )
