"""How catalog documents are layered: bundled < refreshed (Hub sizes and hashes) < user.

Works on the parsed JSON documents (plain dicts) before they become dataclasses, and keeps track
of where each merged entry came from, so a problem in the merged catalog is reported against the
file (and the JSON pointer in it) that caused it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.catalog.schema import REPO_PATTERN, SHA256_PATTERN, pointer
from desktop.core.errors import CatalogError
from desktop.core.hub import file_name_problem

REFRESH_FORMAT = 1
REFRESH_FILE_NAME = "catalog_verified.json"

_FACTS: dict[str, Any] = {
    "type": "object",
    "required": ["size_bytes", "sha256"],
    "properties": {
        "size_bytes": {"type": "integer", "minimum": 0},
        "sha256": {"type": "string", "pattern": SHA256_PATTERN},
    },
}

REFRESH_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["schema_version", "repos"],
    "properties": {
        "schema_version": {"const": REFRESH_FORMAT},
        "refreshed_at": {"type": "string"},
        "endpoint": {"type": "string"},
        "repos": {
            "type": "object",
            "propertyNames": {"pattern": REPO_PATTERN},
            "additionalProperties": {
                "type": "object",
                "required": ["files"],
                "properties": {
                    "revision": {"type": ["string", "null"]},
                    "checked_at": {"type": "string"},
                    "files": {"type": "object", "additionalProperties": _FACTS},
                },
            },
        },
        # Variants whose file list the Hub showed to be different (renamed or re-sharded
        # files): variant id -> the repo and the real names.
        "variants": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["repo", "files"],
                "properties": {
                    "repo": {"type": "string", "pattern": REPO_PATTERN},
                    "files": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "string", "minLength": 1},
                    },
                },
            },
        },
    },
}


@dataclass(frozen=True)
class RefreshFacts:
    """What a refresh learned from the Hub: exact size and sha256 per (repo, file name), and
    corrected file lists per variant id."""

    files: dict[str, dict[str, tuple[int, str]]] = field(default_factory=dict)
    variants: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.files or self.variants)


@dataclass
class Origin:
    """Where a merged model came from: the overlay entry index and, per merged variant index,
    the overlay variant index (variants not listed there came from the lower layer)."""

    model_index: int
    variants: dict[int, int] = field(default_factory=dict)


def refresh_facts(document: Any, path: Path | str) -> RefreshFacts:
    """Check a refresh overlay document and return what it knows."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(REFRESH_SCHEMA)
    best = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if best is not None:
        where = pointer(list(best.absolute_path)) or "/"
        raise CatalogError(
            f"The catalog file {path} is not valid at {where}: {best.message.rstrip('.')}.",
            kind="catalog.invalid",
        )
    facts = RefreshFacts()
    for repo, entry in document["repos"].items():
        facts.files[repo] = {
            name: (int(f["size_bytes"]), str(f["sha256"])) for name, f in entry["files"].items()
        }
    for variant_id, entry in document.get("variants", {}).items():
        for index, name in enumerate(entry["files"]):
            reason = file_name_problem(name)
            if reason:
                where = pointer(["variants", variant_id, "files", index])
                raise CatalogError(
                    f"The catalog file {path} is not valid at {where}: {reason}.",
                    kind="catalog.invalid",
                )
        facts.variants[variant_id] = (entry["repo"], tuple(entry["files"]))
    return facts


def apply_refresh(
    document: dict[str, Any],
    facts: RefreshFacts,
    select: Callable[[int, int, Mapping[str, Any]], bool] | None = None,
) -> int:
    """Fill sizes and hashes from ``facts`` into the files it knows, marking them verified.

    A corrected file list replaces a variant's list when every listed file has its facts (and
    ``select`` is not given). ``select(model_index, variant_index, file_entry)`` limits which
    files may change. Returns how many files were filled.
    """
    filled = 0
    for m_index, model in enumerate(document["models"]):
        for v_index, variant in enumerate(model.get("variants", [])):
            repo = variant.get("repo", "")
            known = facts.files.get(repo, {})
            fixed = facts.variants.get(variant.get("id", ""))
            if (
                select is None
                and fixed is not None
                and fixed[0] == repo
                and all(name in known for name in fixed[1])
            ):
                variant["files"] = [{"name": name} for name in fixed[1]]
            if not known:
                continue
            for entry in variant.get("files", []):
                found = known.get(entry.get("name", ""))
                if found is None or (select is not None and not select(m_index, v_index, entry)):
                    continue
                entry["size_bytes"], entry["sha256"] = found
                entry["verified"] = True
                filled += 1
    return filled


def merge_overlay(
    base: Mapping[str, Any], overlay: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[int, Origin]]:
    """Layer ``overlay`` over ``base``; returns the merged document and the origin map.

    - an overlay model with a new id is added;
    - one with an existing id replaces the fields it gives; ``arch`` and ``license`` are merged
      key by key; its variants replace the fields of the variant with the same quant, or are
      added when the quant is new;
    - variant ids may be left out in an overlay: they are always ``"<model id>:<quant>"``.
    """
    merged: dict[str, Any] = copy.deepcopy(dict(base))
    models: list[dict[str, Any]] = merged.setdefault("models", [])
    index = {m["id"]: i for i, m in enumerate(models)}
    origins: dict[int, Origin] = {}
    for o_index, raw in enumerate(overlay.get("models", [])):
        entry = copy.deepcopy(raw)
        for variant in entry.get("variants", []):
            variant.setdefault("id", f"{entry['id']}:{variant['quant']}")
        if entry["id"] not in index:
            models.append(entry)
            m_index = len(models) - 1
            index[entry["id"]] = m_index
            variant_map = {i: i for i in range(len(entry.get("variants", [])))}
            origins[m_index] = Origin(o_index, variant_map)
            continue
        m_index = index[entry["id"]]
        target = models[m_index]
        origin = origins.setdefault(m_index, Origin(o_index))
        origin.model_index = o_index
        for key, value in entry.items():
            if key == "variants":
                by_quant = {v["quant"]: i for i, v in enumerate(target.setdefault("variants", []))}
                for ov_index, variant in enumerate(value):
                    if variant["quant"] in by_quant:
                        v_index = by_quant[variant["quant"]]
                        target["variants"][v_index].update(variant)
                    else:
                        target["variants"].append(variant)
                        v_index = len(target["variants"]) - 1
                        by_quant[variant["quant"]] = v_index
                    origin.variants[v_index] = ov_index
            elif key in ("arch", "license") and isinstance(target.get(key), dict):
                target[key] = {**target[key], **value}
            else:
                target[key] = value
    return merged, origins


def overlay_pointer(
    parts: list[str | int], origins: Mapping[int, Origin]
) -> list[str | int] | None:
    """Translate a pointer into the merged document to one into the overlay, or None when the
    value came from the lower layer."""
    if len(parts) < 2 or parts[0] != "models" or not isinstance(parts[1], int):
        return None
    origin = origins.get(parts[1])
    if origin is None:
        return None
    rest = parts[2:]
    if len(rest) >= 2 and rest[0] == "variants" and isinstance(rest[1], int):
        ov_index = origin.variants.get(rest[1])
        if ov_index is None:
            return ["models", origin.model_index]
        return ["models", origin.model_index, "variants", ov_index, *rest[2:]]
    return ["models", origin.model_index, *rest]
