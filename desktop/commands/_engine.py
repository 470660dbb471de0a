"""What `run` and `bench` share: finding the model file, its label, the fit prediction."""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.commands.output import human_params
from desktop.core.engine import protocol as p
from desktop.core.errors import EngineError, ScoutError

if TYPE_CHECKING:
    from desktop.core.gguf import GGUFInfo

log = logging.getLogger(__name__)


class ModelNotFound(EngineError):
    kind = "engine.model_not_found"


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """MODEL plus the load options both commands take."""
    parser.add_argument(
        "model",
        metavar="MODEL",
        help="a GGUF file, a downloaded catalog variant id (model:QUANT) or a demo model key",
    )
    parser.add_argument("--ngl", type=int, default=0, metavar="N", help="layers on the GPU")
    parser.add_argument(
        "--threads", type=int, default=None, metavar="N", help="CPU threads (physical cores)"
    )


def warn_if_cpu_only(n_gpu_layers: int, loaded: p.Loaded) -> None:
    """Say on stderr that ``--ngl`` has no effect when this llama.cpp build cannot offload."""
    if n_gpu_layers != 0 and not loaded.gpu_offload:
        sys.stderr.write(
            "llm-scout: GPU offload is unavailable in this llama.cpp build (CPU only); "
            "--ngl is ignored and the model runs on the CPU.\n"
        )


def _looks_like_path(spec: str) -> bool:
    return spec.endswith(".gguf") or "/" in spec or "\\" in spec or spec.startswith(".")


def resolve_model(spec: str) -> Path:
    """A path as given; else a downloaded catalog variant; else a demo model key.

    A path that does not exist is returned as is: the worker reports it with the same
    sentence as every other load failure.
    """
    path = Path(spec).expanduser()
    if path.exists() or _looks_like_path(spec):
        return path
    from desktop.core import demo

    for model in demo.demo_models(assemble=True):
        if spec in (model.key, model.key.split("-", 1)[0]):
            return model.path
    if ":" in spec:
        found = _installed_variant(spec)
        if found is not None:
            return found
        raise ModelNotFound(
            f"The catalog variant {spec} is neither downloaded nor in the library; run "
            f"`llm-scout download {spec}` or `llm-scout import FILE` first."
        )
    raise ModelNotFound(f"{spec} is neither a model file nor a catalog variant id (model:QUANT).")


def _installed_variant(variant_id: str) -> Path | None:
    from desktop.core.catalog import load_catalog
    from desktop.core.download import installed_path

    _model, variant = load_catalog().variant(variant_id)  # CatalogError for an unknown id
    if variant.format != "gguf":
        raise EngineError(
            f"{variant_id} is an {variant.format.upper()} variant; llama.cpp runs GGUF files only.",
            kind="engine.unsupported_format",
        )
    return installed_path(variant) or _library_variant(variant_id)


def _library_variant(variant_id: str) -> Path | None:
    """A file the library matched to the variant (imported, or found in another app's folder)."""
    from desktop.core.library import Library, default_db_path

    if not default_db_path().is_file():
        return None  # never create a library just to look something up
    with Library() as library:
        for entry in library.entries(include_missing=False):
            if entry.variant_id == variant_id and entry.path.is_file():
                return entry.path
    return None


@dataclass(frozen=True)
class Prediction:
    ram_bytes: int | None
    vram_bytes: int | None
    tokens_per_s: float | None
    roofline_tokens_per_s: float | None


def read_header(path: Path) -> GGUFInfo | None:
    """The GGUF header of ``path``; None when our reader cannot read it (the run still goes on:
    llama.cpp loaded the file)."""
    from desktop.core.gguf import read_gguf_split

    try:
        return read_gguf_split(path)
    except (ScoutError, OSError) as exc:
        log.info("cannot read the GGUF header of %s: %s", path, exc)
        return None


def model_label(path: Path, header: GGUFInfo | None, fallback: str) -> str:
    """The model as the tables show it: ``general.name`` (else the file name) with our parameter
    count and quant, e.g. "Gemma 3 270m (268M, Q4_K_M)"; ``fallback`` (llama.cpp's description)
    when the header cannot be read. llama.cpp's description carries a size class, not the
    model's parameter count ("llama 256M" for SmolLM2-135M)."""
    if header is None:
        return fallback
    facts = [human_params(header.arch.n_params)]
    if header.quant:
        facts.append(header.quant)
    return f"{header.name or path.name} ({', '.join(facts)})"


def predict(
    header: GGUFInfo | None,
    *,
    n_ctx: int,
    n_gpu_layers: int,
    prompt_tokens: int,
    measure_bandwidth: bool = False,
) -> Prediction:
    """The fit estimate for the same settings as the run; unknown parts stay None."""
    if header is None:
        return Prediction(None, None, None, None)
    try:
        from desktop.core.fit import FitTarget, estimate
        from desktop.core.hardware.probe import probe

        result = estimate(
            FitTarget.from_gguf(header),
            probe(measure_bandwidth=measure_bandwidth),
            n_ctx=n_ctx,
            n_gpu_layers=n_gpu_layers,
            prompt_tokens=prompt_tokens,
        )
    except (ScoutError, OSError) as exc:
        log.info("no fit prediction for %s: %s", header.source, exc)
        return Prediction(None, None, None, None)
    return Prediction(
        result.ram_bytes, result.vram_bytes, result.tokens_per_s, result.roofline_tokens_per_s
    )
