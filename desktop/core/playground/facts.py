"""What the Playground needs to know about models on disk before loading one.

:func:`local_models` lists what can be loaded: the demo models and the library's GGUF files
(Compare's Add menu lists the same).

:func:`read_model_facts` runs off the window's GUI thread (it reads a file): it resolves the
file through the library's :class:`~desktop.core.library.ModelResolver` (reading its GGUF
header: layers, trained context, whether it carries a chat template and which one the engine
would pick by architecture) and asks the fit for the best GPU layers on the active profile —
the values the load settings start from.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop.core.catalog import Catalog
from desktop.core.engine import family_template_name
from desktop.core.errors import ScoutError
from desktop.core.fit import FitTarget, estimate
from desktop.core.hardware import HardwareProfile
from desktop.core.kv_cache import CacheType
from desktop.core.library import Library, ModelResolver

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelFacts:
    """A model file as the load settings see it. ``gpu_layers`` is the fit's best (-1: all);
    ``problem`` says why there is no prediction (``target`` None)."""

    path: Path
    label: str
    target: FitTarget | None
    n_layers: int
    n_ctx_train: int | None
    has_template: bool | None
    fallback_template: str | None
    gpu_layers: int
    n_ctx: int
    problem: str = ""


def read_model_facts(
    resolver: ModelResolver,
    path: Path,
    profile: HardwareProfile | None,
    default_ctx: int,
    cache_type: CacheType = "f16",
) -> ModelFacts:
    """Facts and starting settings for ``path`` (the settings' context and KV cache type);
    ModelNotFound when there is no such file."""
    resolved = resolver.resolve(str(path))
    header = resolved.header
    target: FitTarget | None = None
    problem = ""
    try:
        target = resolved.fit_target()
    except ScoutError as exc:
        problem = exc.message
    arch = header.arch if header is not None else (target.arch if target is not None else None)
    n_ctx_train = arch.n_ctx_train if arch is not None and arch.n_ctx_train else None
    n_ctx = min(default_ctx, n_ctx_train) if n_ctx_train else default_ctx
    fallback = None
    if header is not None and not header.has_chat_template:
        fallback = family_template_name(header.metadata, header.arch.architecture)
    gpu_layers = 0
    if target is not None and profile is not None:
        try:
            best = estimate(target, profile, n_ctx=n_ctx, cache_type=cache_type)
        except ScoutError as exc:
            problem = exc.message
        else:
            gpu_layers = -1 if best.offload_output else best.n_gpu_layers
    return ModelFacts(
        path=resolved.path or path,
        label=resolved.label,
        target=target,
        n_layers=arch.n_layers if arch is not None else 0,
        n_ctx_train=n_ctx_train,
        has_template=header.has_chat_template if header is not None else None,
        fallback_template=fallback,
        gpu_layers=gpu_layers,
        n_ctx=n_ctx,
        problem=problem,
    )


def local_models(
    demos: Sequence[tuple[str, str]], library_db: Path, catalog: Catalog
) -> list[tuple[str, str]]:
    """``(label, path)`` of the demo models, then of the library's GGUF files on disk (off the
    GUI thread: it reads the library database). An unreadable library lists the demos only."""
    found = list(demos)
    seen = {path for _label, path in found}
    try:
        with Library(library_db, catalog=catalog) as library:
            entries = library.entries(include_missing=False)
    except ScoutError as exc:
        log.info("the library cannot be read for the Playground: %s", exc)
        entries = []
    for entry in entries:
        path = str(entry.path)
        if path not in seen and path.lower().endswith(".gguf"):
            seen.add(path)
            found.append((entry.display_name or entry.file_name, path))
    return found
