"""Which catalog variant a file on disk is, and which family it belongs to.

Matching goes from strongest evidence to weakest: the sha256 of the file (when it is known), the
file name of a catalog variant, then the header's facts: same architecture, parameter count
within :data:`PARAMS_TOLERANCE`, same quant. When the facts fit several catalog models equally (a
base and an instruct model share every number), names decide; when they cannot, there is no
match rather than a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from desktop.core.catalog import Catalog, CatalogModel, Variant

MatchMethod = Literal["sha256", "file_name", "metadata"]

PARAMS_TOLERANCE = 0.05  # relative difference of parameter counts still called "the same model"

_FAMILY_PREFIXES = (
    ("qwen", "qwen"),
    ("llama", "llama"),
    ("phi", "phi"),
    ("gemma", "gemma"),
    ("deepseek", "deepseek"),
)
_TOKEN_RE = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
_SPLIT_SUFFIX_RE = re.compile(r"-\d{5}-of-\d{5}$", re.IGNORECASE)


@dataclass(frozen=True)
class FileFacts:
    """What is known about a file without reading it again (from its header and its path)."""

    file_name: str
    architecture: str
    n_params: int
    quant: str | None
    size_bytes: int  # all parts together
    first_file_bytes: int  # the first (or only) part
    names: tuple[str, ...] = ()  # general.name, a layout name ("llama3:8b"), the repo id
    sha256: str | None = None


@dataclass(frozen=True)
class Match:
    model: CatalogModel
    variant: Variant
    method: MatchMethod


def infer_family(architecture: str, names: Iterable[str] = ()) -> str:
    """Family from the architecture, corrected by the names: a DeepSeek distill of Llama or Qwen
    is ``deepseek``. Unknown architectures give ``other``."""
    text = " ".join(names).lower()
    if "deepseek" in text:
        return "deepseek"
    arch = architecture.lower()
    for prefix, family in _FAMILY_PREFIXES:
        if arch.startswith(prefix):
            return family
    return "other"


def match_file(
    catalog: Catalog, facts: FileFacts, hasher: Callable[[], str] | None = None
) -> tuple[Match | None, str | None]:
    """The catalog variant this file is (or None), and the file's sha256 if known now.

    ``hasher`` computes the sha256 of the first part; it is called only when nothing else
    matched and a catalog file with a known hash has exactly this file's size, the one case
    where reading the whole file can still identify it.
    """
    sha = facts.sha256
    if sha:
        found = catalog.find_by_sha256(sha)
        if found is not None:
            return Match(found[0], found[1], "sha256"), sha
    found = catalog.find_by_file_name(facts.file_name)
    if found is not None and found[1].format == "gguf":
        return Match(found[0], found[1], "file_name"), sha
    match = _match_metadata(catalog.models, facts)
    if match is not None or sha or hasher is None:
        return match, sha
    if not any(
        _known_first_file(variant, facts.first_file_bytes)
        for model in catalog.models
        for variant in model.variants
    ):
        return None, None
    sha = hasher()
    found = catalog.find_by_sha256(sha)
    return (Match(found[0], found[1], "sha256") if found is not None else None), sha


def _known_first_file(variant: Variant, size: int) -> bool:
    """Whether this variant's first file has a known hash and exactly ``size`` bytes."""
    if variant.format != "gguf" or not variant.files:
        return False
    first = variant.files[0]
    demo = variant.local_demo
    return bool(first.sha256 and first.size_bytes == size) or (
        demo is not None and demo.size_bytes == size and len(variant.files) == 1
    )


def _match_metadata(models: Sequence[CatalogModel], facts: FileFacts) -> Match | None:
    if not facts.quant or facts.n_params <= 0:
        return None
    quant = facts.quant.upper()
    arch = facts.architecture.lower()
    candidates: list[tuple[CatalogModel, Variant]] = []
    for model in models:
        if model.arch.architecture.lower() != arch or model.n_params <= 0:
            continue
        if abs(model.n_params - facts.n_params) > PARAMS_TOLERANCE * model.n_params:
            continue
        candidates.extend(
            (model, v) for v in model.variants if v.format == "gguf" and v.quant.upper() == quant
        )
    if not candidates:
        return None
    if len(candidates) == 1:
        return Match(candidates[0][0], candidates[0][1], "metadata")
    scored = sorted(
        ((_score(model, variant, facts), i) for i, (model, variant) in enumerate(candidates)),
        reverse=True,
    )
    if scored[0][0] == scored[1][0]:
        return None  # the facts fit several models equally: no guess
    model, variant = candidates[scored[0][1]]
    return Match(model, variant, "metadata")


def _score(model: CatalogModel, variant: Variant, facts: FileFacts) -> tuple[int, int]:
    """(name tokens shared, exact size) — names first, size as the tie breaker."""
    file_tokens = _tokens([facts.file_name, *facts.names])
    model_tokens = _tokens([model.id, model.name, *(f.name for f in variant.files)])
    # "instruct"/"it"/"chat" decide between base and tuned models: count them twice.
    tuned = {"instruct", "it", "chat"}
    shared = len(file_tokens & model_tokens) + len(file_tokens & model_tokens & tuned)
    missing_tuned = len((model_tokens & tuned) - file_tokens)
    same_size = int(variant.size_bytes is not None and variant.size_bytes == facts.size_bytes)
    return (shared - missing_tuned, same_size)


def _tokens(texts: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for text in texts:
        stem = _SPLIT_SUFFIX_RE.sub("", text.lower().removesuffix(".gguf"))
        out.update(_TOKEN_RE.findall(stem))
    return out
