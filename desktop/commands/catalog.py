"""`llm-scout catalog [filters] [--fits] [--ctx N] [--profile FILE|NAME] [--json]` and
`llm-scout catalog refresh [--model ID] [--json]`.

``catalog`` lists the catalog's variants (one row per model file set) with the fit estimate for
this machine or a hardware profile: verdict (gpu, partial, cpu, no), expected tokens/s, and
whether the licence allows commercial use and the model speaks Chinese. ``refresh`` reads exact
sizes and sha256 hashes from the Hub (online, only when asked).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from desktop.commands.common import (
    add_json_argument,
    add_profile_argument,
    check_endpoint,
    workspace,
)
from desktop.commands.output import emit_json, human_bytes, human_params, print_table
from desktop.core.catalog import (
    VARIANT_SORT_KEYS,
    CatalogModel,
    RepoReport,
    filter_variants,
    refresh_catalog,
    sort_variants,
)
from desktop.core.errors import UsageError
from desktop.core.fit import CatalogEstimator, FitRow, download_size


def register(subparsers: Any) -> None:
    catalog = subparsers.add_parser(
        "catalog",
        help="list the model catalog, with what fits this machine",
        description=(
            "List the catalog's models and variants with the fit estimate for this machine "
            "(or --profile). 'catalog refresh' reads exact sizes and hashes from the Hub."
        ),
    )
    catalog.add_argument(
        "--family", metavar="F", help="qwen, llama, phi, deepseek, gemma, smollm (a,b)"
    )
    catalog.add_argument(
        "--format",
        dest="fmt",
        type=str.lower,
        choices=("gguf", "awq"),
        help="only GGUF or only AWQ variants (either case)",
    )
    catalog.add_argument(
        "--quant",
        metavar="Q",
        help="only this quantization, any case: Q4_K_M, Q5_K_M, Q8_0, AWQ ...",
    )
    catalog.add_argument("--fits", action="store_true", help="only variants that can run here")
    catalog.add_argument(
        "--ctx", type=int, metavar="N", help="context length for the estimate (default: settings)"
    )
    catalog.add_argument("--lang", metavar="CODE", help="only models that speak CODE (e.g. zh)")
    catalog.add_argument(
        "--commercial", action="store_true", help="only licences that allow commercial use"
    )
    catalog.add_argument(
        "--search",
        metavar="TEXT",
        help="words that must all begin a word of the model's name, id, tags, repo or the "
        "variant's quant ('qwen 7b q8')",
    )
    catalog.add_argument(
        "--sort",
        choices=sorted(VARIANT_SORT_KEYS),
        default="family",
        help="row order: family (then size), name, params (parameter count), quant (bits per "
        "weight) or size (download size)",
    )
    add_profile_argument(
        catalog, help="estimate for a saved hardware profile or a bundled what-if profile"
    )
    catalog.add_argument(
        "--uncalibrated",
        action="store_true",
        help="the raw model, without this machine's (or the profile's) measured runs",
    )
    add_json_argument(catalog)
    catalog.set_defaults(handler=run_catalog)

    sub = catalog.add_subparsers(dest="catalog_command", metavar="COMMAND")
    refresh = sub.add_parser(
        "refresh",
        help="read exact sizes and sha256 hashes from the Hugging Face Hub (online)",
        description=(
            "Read each catalog file's exact size and sha256 from the Hub and remember them; "
            "files filled this way are marked verified."
        ),
    )
    refresh.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="ID",
        help="refresh only this model (may be repeated)",
    )
    refresh.add_argument(
        "--endpoint", metavar="URL", help="Hub endpoint (default: settings, then HF_ENDPOINT)"
    )
    add_json_argument(refresh)
    refresh.set_defaults(handler=run_refresh)


# --- listing -------------------------------------------------------------------------------


def run_catalog(args: argparse.Namespace) -> int:
    if args.ctx is not None and args.ctx < 1:
        raise UsageError(f"--ctx must be a positive number of tokens, not {args.ctx}.")
    ws = workspace()
    catalog = ws.catalog
    families = [f for f in (args.family or "").split(",") if f.strip()] or None
    if families:
        unknown = sorted({f.strip().lower() for f in families} - set(catalog.families))
        if unknown:
            raise UsageError(
                f"Unknown family {', '.join(unknown)}; the catalog has "
                f"{', '.join(catalog.families)}."
            )
    pairs = filter_variants(
        catalog,
        family=families,
        fmt=args.fmt,
        lang=args.lang,
        commercial=True if args.commercial else None,
        text=args.search,
        quant=args.quant,
    )
    pairs = sort_variants(pairs, args.sort)
    profile, profile_name = ws.profile(args.profile)
    n_ctx = args.ctx or ws.settings.default_ctx
    estimator = CatalogEstimator(
        ws.resolver.fit_targets(pairs),
        profile,
        models_dir=ws.models_dir,
        calibrated=not args.uncalibrated,
    )
    rows = estimator.estimate(n_ctx)
    calibration = _calibration_dict(estimator)
    if args.fits:
        rows = [r for r in rows if r.fits]
    if args.json:
        emit_json(
            {
                "profile": profile_name,
                "n_ctx": n_ctx,
                "sources": list(catalog.sources),
                "count": len(rows),
                "calibration": calibration,
                "variants": [row.to_dict() for row in rows],
            }
        )
        return 0
    sys.stdout.write(f"Catalog for {profile_name}, context {n_ctx} tokens\n\n")
    print_table(
        ("id", "params", "quant", "size", "verdict", "est. tok/s", "licence", "zh"),
        [
            (
                row.variant.id,
                _params(row.model),
                row.variant.quant,
                _size_text(row),
                _verdict_text(row),
                None if row.result is None else row.result.tokens_per_s,
                row.model.license.name
                + ("" if row.model.license.commercial_use else " (non-commercial)"),
                "yes" if row.model.supports_chinese else "",
            )
            for row in rows
        ],
    )
    sys.stdout.write(
        f"\n{len(rows)} variants. verdict: gpu = every layer on the GPU, partial N/M = N of M "
        "layers on the GPU, cpu = runs in RAM, no = does not fit, unsupported = this machine "
        "cannot run the format (AWQ without an NVIDIA GPU of compute capability 7.5+); '!': the "
        "context is past the model's trained length; zh: speaks Chinese; '~': size estimated from "
        "the model's shapes, not verified against the Hub (run 'llm-scout catalog refresh').\n"
    )
    if calibration is not None:
        where = (
            "this machine" if calibration["source"] == "this machine" else "the profile's machine"
        )
        sys.stdout.write(
            f"Speeds and memory calibrated on {where} from {calibration['runs']} runs "
            "(--uncalibrated shows the raw model).\n"
        )
    return 0


def _calibration_dict(estimator: CatalogEstimator) -> dict[str, Any] | None:
    """``catalog --json`` ``"calibration"``: the machine's figures and where they come from."""
    if estimator.calibration is None:
        return None
    cal, source = estimator.calibration
    return {
        "runs": cal.runs,
        "cpu_speed_factor": cal.cpu_speed_factor,
        "gpu_speed_factor": cal.gpu_speed_factor,
        "ram_offset_bytes": cal.ram_offset_bytes,
        "source": source,
    }


def _size_text(row: FitRow) -> str:
    """The file's size: on this disk, or verified against the Hub, else estimated from the
    shapes ('~')."""
    if row.target.path is not None and row.target.file_bytes:
        return human_bytes(row.target.file_bytes)  # the file on this disk
    size, known = download_size(row.model, row.variant)
    if size is None:
        return "-"
    return human_bytes(size) if known else human_bytes(size) + "~"


def _verdict_text(row: FitRow) -> str:
    fit = row.result
    if fit is None:
        return "?"
    text = str(fit.verdict)
    if fit.unsupported:
        text = "unsupported"
    elif fit.verdict == "partial":
        text = f"partial {fit.n_gpu_layers}/{fit.n_layers}"
    return text + ("!" if fit.past_trained_ctx else "")


def _params(model: CatalogModel) -> str:
    text = human_params(model.n_params)
    if model.n_params_active:
        text += f" (A{human_params(model.n_params_active)})"
    return text


# --- refresh -------------------------------------------------------------------------------


def run_refresh(args: argparse.Namespace) -> int:
    check_endpoint(args.endpoint)
    ws = workspace(with_demos=False)

    def progress(report: RepoReport) -> None:
        if not args.json:
            sys.stderr.write(f"  {report.repo}: {report.status}\n")

    report = refresh_catalog(ws.hub(args.endpoint), model_ids=args.model, on_repo=progress)
    if args.json:
        emit_json(report.to_dict())
    else:
        print_table(
            ("repo", "status", "verified files", "note"),
            [(r.repo, r.status, r.files_verified, r.message) for r in report.repos],
        )
        sys.stdout.write(
            f"\nVerified {report.files_verified} files in {len(report.repos)} repos from "
            f"{report.endpoint}; saved to {report.path}.\n"
        )
    for failed in report.failed:
        sys.stderr.write(f"llm-scout: {failed.repo}: {failed.message}.\n")
    return 1 if report.failed else 0
