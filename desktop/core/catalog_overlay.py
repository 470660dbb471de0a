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

from desktop.core.catalog_schema import REPO_PATTERN, SHA256_PATTERN, pointer
from desktop.core.errors import CatalogError

REFRESH_FORMAT = 1
REFRESH_FILE_NAME = "catalog_verified.json"

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
                    "files": {
                        "type": "object",
                        "additionalProperties": {
                            "type": "object",
                            "required": ["size_bytes", "sha256"],
                            "properties": {
                                "size_bytes": {"type": "integer", "minimum": 0},
                                "sha256": {"type": "string", "pattern": SHA256_PATTERN},
                            },
                        },
                    },
                },
            },
        },
    },
}

# repo -> file name -> (size in bytes, sha256)
RefreshData = dict[str, dict[str, tuple[int, str]]]


@dataclass
class Origin:
    """Where a merged model came from: the overlay entry index and, per merged variant index,
    the overlay variant index (variants not listed there came from the lower layer)."""

    model_index: int
    variants: dict[int, int] = field(default_factory=dict)


def refresh_data(document: Any, path: Path | str) -> RefreshData:
    """Check a refresh overlay document and return its file facts."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(REFRESH_SCHEMA)
    best = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if best is not None:
        where = pointer(list(best.absolute_path)) or "/"
        raise CatalogError(
            f"The catalog file {path} is not valid at {where}: {best.message.rstrip('.')}.",
            kind="catalog.invalid",
        )
    data: RefreshData = {}
    for repo, entry in document["repos"].items():
        data[repo] = {
            name: (int(facts["size_bytes"]), str(facts["sha256"]))
            for name, facts in entry["files"].items()
        }
    return data


def apply_refresh(
    document: dict[str, Any],
    data: Mapping[str, Mapping[str, tuple[int, str]]],
    select: Callable[[int, int, Mapping[str, Any]], bool] | None = None,
) -> int:
    """Fill sizes and hashes from ``data`` into the files it knows, marking them verified.

    ``select(model_index, variant_index, file_entry)`` limits which files may change.
    Returns how many files were filled.
    """
    filled = 0
    for m_index, model in enumerate(document["models"]):
        for v_index, variant in enumerate(model.get("variants", [])):
            known = data.get(variant.get("repo", ""))
            if not known:
                continue
            for entry in variant.get("files", []):
                facts = known.get(entry.get("name", ""))
                if facts is None or (select is not None and not select(m_index, v_index, entry)):
                    continue
                entry["size_bytes"], entry["sha256"] = facts
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
