"""The catalog file format: a JSON Schema for the structure plus the rules a schema cannot say.

Both the bundled ``models_catalog.json`` and the user overlay use this format. The overlay may
hold partial entries for models that already exist (only ``id`` plus the fields it changes), so
it is checked with :data:`OVERLAY_SCHEMA`; the merged result is always checked in full.

Every problem is reported as a :class:`~desktop.core.errors.CatalogError` that names the file
and the JSON pointer of the offending value, e.g. ``/models/3/variants/0/files/0/name``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from desktop.core.errors import CatalogError
from desktop.core.hub import file_name_problem as unsafe_name

SCHEMA_VERSION = 1

# (JSON pointer parts, plain-English reason)
Problem = tuple[list[str | int], str]

MODEL_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"
QUANT_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
REPO_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$"
SHA256_PATTERN = r"^[0-9a-f]{64}$"

_POS_INT: dict[str, Any] = {"type": "integer", "minimum": 1}
_NONNEG_INT: dict[str, Any] = {"type": "integer", "minimum": 0}
_SHA: dict[str, Any] = {"type": ["string", "null"], "pattern": SHA256_PATTERN}

_FILE: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 400},
        "size_bytes": {"type": ["integer", "null"], "minimum": 0},
        "sha256": _SHA,
        "verified": {"type": "boolean"},
    },
}

_LOCAL_DEMO: dict[str, Any] = {
    "type": "object",
    "required": ["sha256", "size_bytes"],
    "additionalProperties": False,
    "properties": {
        "sha256": {"type": "string", "pattern": SHA256_PATTERN},
        "size_bytes": _POS_INT,
        "package": {"type": "string"},
        "note": {"type": "string"},
    },
}

_VARIANT: dict[str, Any] = {
    "type": "object",
    "required": ["id", "format", "quant", "repo", "files"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "minLength": 3},
        "format": {"enum": ["gguf", "awq"]},
        "quant": {"type": "string", "pattern": QUANT_PATTERN},
        "repo": {"type": "string", "pattern": REPO_PATTERN},
        "files": {"type": "array", "minItems": 1, "items": _FILE},
        "gated": {"type": "boolean"},
        "note": {"type": "string"},
        "local_demo": _LOCAL_DEMO,
    },
}

_PER_LAYER_INT: dict[str, Any] = {
    "oneOf": [_NONNEG_INT, {"type": "array", "minItems": 1, "items": _NONNEG_INT}]
}

_ARCH: dict[str, Any] = {
    "type": "object",
    "required": [
        "architecture",
        "n_layers",
        "n_embd",
        "n_head",
        "n_head_kv",
        "n_ctx_train",
        "n_vocab",
    ],
    "additionalProperties": False,
    "properties": {
        "architecture": {"type": "string", "pattern": r"^[a-z0-9_]+$"},
        "n_layers": _POS_INT,
        "n_embd": _POS_INT,
        "n_head": _POS_INT,
        "n_head_kv": _PER_LAYER_INT,
        "head_dim": _POS_INT,
        "head_dim_k": _POS_INT,
        "head_dim_v": _POS_INT,
        "n_ff": _NONNEG_INT,
        "n_vocab": _POS_INT,
        "n_ctx_train": _POS_INT,
        "sliding_window": _NONNEG_INT,
        # Every n-th layer uses full attention, the others the sliding window (llama.cpp's
        # "swa pattern"): 2 for Gemma 2, 6 for Gemma 3. Or give swa_layers per layer.
        "swa_pattern": {"type": "integer", "minimum": 2},
        "swa_layers": {"type": "array", "minItems": 1, "items": {"type": "boolean"}},
        "kv_lora_rank": _NONNEG_INT,
        "n_rot": _NONNEG_INT,
        "n_expert": _NONNEG_INT,
        "n_expert_used": _NONNEG_INT,
        "n_expert_shared": _NONNEG_INT,
        "n_ff_exp": _NONNEG_INT,
        "n_layer_dense_lead": _NONNEG_INT,
        "tied_embeddings": {"type": "boolean"},
        "source": {"type": "string"},
    },
}

_LICENSE: dict[str, Any] = {
    "type": "object",
    "required": ["name", "commercial_use", "url"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "commercial_use": {"type": "boolean"},
        "url": {"type": "string", "pattern": r"^https://"},
        "note": {"type": "string"},
    },
}

# --- quality records (published scores per model, issue 24) -------------------------------
# A score in the catalog is a percentage as published, with where it was read: the exact
# address, the date, the data's licence and whether the model's own vendor reported it. A score
# without a source is not valid. The bundled scores live in resources/quality/published.json,
# grouped by source (QUALITY_FILE_SCHEMA); the loader turns each into the inline form
# (QUALITY_RECORD) that a catalog or user overlay model may also carry under "quality".

BENCHMARK_PATTERN = r"^[a-z0-9][a-z0-9.-]*$"
METRIC_PATTERN = r"^[a-z0-9][a-z0-9@.-]*$"
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
SOURCE_PATTERN = r"^https://[^\s]+$"

_QUALITY_SCORE: dict[str, Any] = {
    "benchmark": {"type": "string", "pattern": BENCHMARK_PATTERN},
    "score": {"type": "number", "minimum": 0, "maximum": 100},
    # "accuracy", "pass@1", "cons@64", "prompt-strict", "win-rate", "recall", "average", ...
    "metric": {"type": "string", "pattern": METRIC_PATTERN},
    "shots": {"type": "integer", "minimum": 0},
    "thinking": {"type": "boolean"},
    "note": {"type": "string", "minLength": 1, "maxLength": 400},
}

QUALITY_RECORD: dict[str, Any] = {
    "type": "object",
    "required": ["benchmark", "score", "metric", "source", "read", "licence", "self_reported"],
    "additionalProperties": False,
    "properties": {
        **_QUALITY_SCORE,
        "source": {"type": "string", "pattern": SOURCE_PATTERN},
        "source_title": {"type": "string", "minLength": 1, "maxLength": 200},
        "read": {"type": "string", "pattern": DATE_PATTERN},
        "licence": {"type": "string", "minLength": 1, "maxLength": 200},
        "self_reported": {"type": "boolean"},
    },
}

QUALITY_FILE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "LLM Scout published quality scores",
    "type": "object",
    "required": ["schema_version", "sources"],
    "additionalProperties": False,
    "properties": {
        "schema_version": {"const": 1},
        "note": {"type": "string"},
        "sources": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["url", "title", "read", "licence", "vendor_family", "records"],
                "additionalProperties": False,
                "properties": {
                    "url": {"type": "string", "pattern": SOURCE_PATTERN},
                    "title": {"type": "string", "minLength": 1, "maxLength": 200},
                    "read": {"type": "string", "pattern": DATE_PATTERN},
                    "licence": {"type": "string", "minLength": 1, "maxLength": 200},
                    # The family whose vendor published the source ("*": every score in it is
                    # its vendor's own, e.g. collected from model cards): self-reported for
                    # models of that family, independent for the others.
                    "vendor_family": {"type": "string", "pattern": r"^(\*|[a-z0-9][a-z0-9_-]*)$"},
                    "records": {
                        "type": "object",
                        "propertyNames": {"pattern": MODEL_ID_PATTERN},
                        "additionalProperties": {
                            "type": "array",
                            "minItems": 1,
                            "items": {
                                "type": "object",
                                "required": ["benchmark", "score", "metric"],
                                "additionalProperties": False,
                                "properties": _QUALITY_SCORE,
                            },
                        },
                    },
                },
            },
        },
    },
}


def quality_file_problem(document: Any) -> Problem | None:
    """The first structural problem of a quality file (see QUALITY_FILE_SCHEMA), or None."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(QUALITY_FILE_SCHEMA)
    best = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if best is None:
        return None
    return list(best.absolute_path), _short(best.message)


# --- models ---------------------------------------------------------------------------------

_MODEL_PROPERTIES: dict[str, Any] = {
    "id": {"type": "string", "pattern": MODEL_ID_PATTERN},
    "family": {"type": "string", "pattern": r"^[a-z0-9][a-z0-9_-]*$"},
    "name": {"type": "string", "minLength": 1},
    "n_params": _POS_INT,
    "n_params_active": _POS_INT,
    "params_verified": {"type": "boolean"},
    "hf_repo": {"type": "string", "pattern": REPO_PATTERN},
    "arch": _ARCH,
    "license": _LICENSE,
    "languages": {
        "type": "array",
        "minItems": 1,
        "items": {"type": "string", "pattern": r"^[a-z]{2,3}$"},
    },
    "description": {"type": "string", "minLength": 1, "maxLength": 300},
    "tags": {"type": "array", "items": {"type": "string", "pattern": r"^[a-z0-9-]+$"}},
    "gated": {"type": "boolean"},
    "variants": {"type": "array", "items": _VARIANT},
    "quality": {"type": "array", "items": QUALITY_RECORD},
}

_MODEL: dict[str, Any] = {
    "type": "object",
    "required": [
        "id",
        "family",
        "name",
        "n_params",
        "arch",
        "license",
        "languages",
        "description",
        "variants",
    ],
    "additionalProperties": False,
    "properties": _MODEL_PROPERTIES,
}

CATALOG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "LLM Scout model catalog",
    "type": "object",
    "required": ["schema_version", "models"],
    "additionalProperties": False,
    "properties": {
        "schema_version": {"const": SCHEMA_VERSION},
        "note": {"type": "string"},
        "models": {"type": "array", "items": _MODEL},
    },
}


def _overlay_schema() -> dict[str, Any]:
    """Like the catalog, but entries may be partial (only ``id`` is required)."""
    schema = copy.deepcopy(CATALOG_SCHEMA)
    model = schema["properties"]["models"]["items"]
    model["required"] = ["id"]
    model["properties"]["arch"]["required"] = []
    model["properties"]["license"]["required"] = []
    variant = model["properties"]["variants"]["items"]
    variant["required"] = ["quant"]
    return schema


OVERLAY_SCHEMA: dict[str, Any] = _overlay_schema()


def pointer(parts: Sequence[str | int]) -> str:
    """RFC 6901 JSON pointer for a path of keys and indexes ("" is the whole document)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def invalid(path: Path | str, where: Sequence[str | int], message: str) -> CatalogError:
    """The one error shape for a bad catalog file: file path, JSON pointer, reason."""
    return CatalogError(
        f"The catalog file {path} is not valid at {pointer(where) or '/'}: {message}.",
        kind="catalog.invalid",
    )


def schema_problem(document: Any, *, overlay: bool = False) -> Problem | None:
    """The most telling structural problem (JSON pointer parts, message), or None."""
    import jsonschema

    schema = OVERLAY_SCHEMA if overlay else CATALOG_SCHEMA
    validator = jsonschema.Draft202012Validator(schema)
    errors = list(validator.iter_errors(document))
    if not errors:
        return None
    # Report the first entry (in document order) that has a problem, and its most telling
    # problem: someone fixing a file goes from top to bottom.
    first = min(_order(list(e.absolute_path)[:2]) for e in errors)
    group = [e for e in errors if _order(list(e.absolute_path)[:2]) == first]
    best = jsonschema.exceptions.best_match(group)
    if best is None:
        return None
    return list(best.absolute_path), _short(best.message)


def _order(parts: list[Any]) -> tuple[tuple[int, int, str], ...]:
    return tuple((1, p, "") if isinstance(p, int) else (0, 0, str(p)) for p in parts)


def check_schema(document: Any, path: Path | str, *, overlay: bool = False) -> None:
    """Raise CatalogError for the first structural problem, naming file and JSON pointer."""
    problem = schema_problem(document, overlay=overlay)
    if problem is not None:
        raise invalid(path, *problem)


def _short(message: str, limit: int = 160) -> str:
    message = message.rstrip(".")
    return message if len(message) <= limit else message[: limit - 3] + "..."


def semantic_problem(document: Mapping[str, Any]) -> Problem | None:
    """The first rule beyond the schema that ``document`` breaks, or None.

    Rules: unique model and variant ids, variant id ``"<model id>:<quant>"``, per-layer array
    lengths, safe file names, a sha256 only on verified files.
    """
    return next(_semantic_problems(document), None)


def file_name_problem(document: Mapping[str, Any]) -> Problem | None:
    """Only the file-name rule (checked on an overlay before it is merged)."""
    for m_index, model in enumerate(document.get("models", [])):
        for v_index, variant in enumerate(model.get("variants", [])):
            for f_index, entry in enumerate(variant.get("files", [])):
                reason = unsafe_name(entry.get("name", ""))
                if reason:
                    return [
                        "models",
                        m_index,
                        "variants",
                        v_index,
                        "files",
                        f_index,
                        "name",
                    ], reason
    return None


def _semantic_problems(document: Mapping[str, Any]) -> Iterator[Problem]:
    seen_models: set[str] = set()
    seen_variants: set[str] = set()
    for m_index, model in enumerate(document["models"]):
        base: list[str | int] = ["models", m_index]
        model_id = model["id"]
        if model_id in seen_models:
            yield [*base, "id"], f"the model id {model_id!r} is used twice"
        seen_models.add(model_id)
        yield from _arch_problems(model["arch"], [*base, "arch"])
        if model.get("n_params_active", 0) > model["n_params"]:
            yield [*base, "n_params_active"], "active parameters exceed the total"
        for v_index, variant in enumerate(model["variants"]):
            vbase = [*base, "variants", v_index]
            expected = f"{model_id}:{variant['quant']}"
            if variant["id"] != expected:
                yield [*vbase, "id"], f"the variant id must be {expected!r}"
            if variant["id"] in seen_variants:
                yield [*vbase, "id"], f"the variant id {variant['id']!r} is used twice"
            seen_variants.add(variant["id"])
            if variant["format"] == "awq" and not variant["quant"].upper().startswith("AWQ"):
                yield [*vbase, "quant"], "AWQ variants must have a quant starting with 'AWQ'"
            names: set[str] = set()
            for f_index, entry in enumerate(variant["files"]):
                fbase = [*vbase, "files", f_index]
                reason = unsafe_name(entry["name"])
                if reason:
                    yield [*fbase, "name"], reason
                if entry["name"] in names:
                    yield [*fbase, "name"], f"the file {entry['name']!r} is listed twice"
                names.add(entry["name"])
                if entry.get("verified"):
                    if entry.get("sha256") is None or entry.get("size_bytes") is None:
                        yield fbase, "a verified file needs its size and sha256"
                elif entry.get("sha256") is not None:
                    yield [*fbase, "sha256"], "a sha256 that was not verified must be null"


def _arch_problems(arch: Mapping[str, Any], base: list[str | int]) -> Iterator[Problem]:
    n_layers = arch["n_layers"]
    kv = arch["n_head_kv"]
    if isinstance(kv, list) and len(kv) != n_layers:
        yield [*base, "n_head_kv"], f"expected {n_layers} per-layer values, got {len(kv)}"
    if isinstance(kv, int) and kv and arch["n_head"] % kv:
        yield [*base, "n_head_kv"], "n_head must be a multiple of n_head_kv"
    swa = arch.get("swa_layers")
    if swa is not None and len(swa) != n_layers:
        yield [*base, "swa_layers"], f"expected {n_layers} per-layer values, got {len(swa)}"
    if swa is not None and "swa_pattern" in arch:
        yield [*base, "swa_layers"], "give either swa_layers or swa_pattern, not both"
    if (swa is not None or "swa_pattern" in arch) and not arch.get("sliding_window"):
        yield [*base, "sliding_window"], "sliding-window layers need a sliding_window size"
    if "head_dim" not in arch and "head_dim_k" not in arch and arch["n_embd"] % arch["n_head"]:
        yield [*base, "head_dim"], "head_dim is needed when n_embd is not a multiple of n_head"
    if "head_dim" in arch and ("head_dim_k" in arch or "head_dim_v" in arch):
        yield [*base, "head_dim"], "give either head_dim or head_dim_k/head_dim_v, not both"
    if ("head_dim_k" in arch) != ("head_dim_v" in arch):
        yield [*base, "head_dim_k"], "head_dim_k and head_dim_v go together"
    n_expert = arch.get("n_expert", 0)
    used = arch.get("n_expert_used", 0)
    if n_expert > 1 and not 1 <= used <= n_expert:
        yield [*base, "n_expert_used"], "a mixture of experts needs 1..n_expert experts per token"
    if n_expert <= 1 and used:
        yield [*base, "n_expert_used"], "experts per token given without n_expert"
    if arch.get("kv_lora_rank", 0) and not arch.get("n_rot", 0):
        yield [*base, "n_rot"], "MLA (kv_lora_rank) needs n_rot (qk_rope_head_dim)"
