"""`llm-scout fit TARGET [--ctx N] [--ngl N] [--cache-type T] [--profile FILE|NAME]
[--tensor-parallel N] [--pipeline-parallel N] [--json]`.

TARGET is anything the model resolver takes: a catalog variant id
(``qwen2.5-7b-instruct:Q4_K_M``), a bare model id (its Q4_K_M variant), a demo key or a local
``.gguf`` file. The estimate is for this machine unless ``--profile`` names a saved profile or a
bundled what-if profile. A catalog variant with a file on disk (downloaded, or matched by the
library) is estimated from its file's header rather than from the catalog's numbers.

For an AWQ variant the output ends with the ``vllm serve`` command that matches the estimate
(:func:`~desktop.core.fit.plan_vllm`); where the profile has no GPU vLLM can use, it says what
is needed and shows the command for the smallest bundled what-if profile that runs it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from desktop.commands.common import add_json_argument, add_profile_argument, workspace
from desktop.commands.engine_options import add_attention_options, flash_attn_from
from desktop.commands.fit_dryrun import add_dry_run_argument, cross_check, print_cross_check
from desktop.commands.fit_rpc import add_rpc_split_arguments, run_split
from desktop.commands.output import emit_json, human_bytes, print_table
from desktop.core.errors import UsageError
from desktop.core.fit import (
    FitResult,
    FitTarget,
    VllmPlan,
    apply_calibration,
    calibration_for,
    default_context,
    estimate,
    plan_vllm,
    what_if_plan,
)
from desktop.core.hardware import HardwareProfile
from desktop.core.kv_cache import check_flash_attn


def register(subparsers: Any) -> None:
    fit = subparsers.add_parser(
        "fit",
        help="will a model run here: memory, GPU layers, speed",
        description=(
            "Predict whether a model runs on this machine (or a what-if profile): where its "
            "layers go, RAM and VRAM split into weights, KV cache, compute buffers and "
            "overhead, the largest context that fits, tokens/s and load time."
        ),
    )
    fit.add_argument(
        "target", metavar="TARGET", help="catalog variant or model id, demo key or .gguf file"
    )
    fit.add_argument("--ctx", type=int, metavar="N", help="context length (default: settings)")
    fit.add_argument(
        "--ngl",
        type=int,
        metavar="N",
        help="layers on the GPU (-1: all; default: the best that fits)",
    )
    add_attention_options(fit)
    fit.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="CPU threads the run will use, for the speed (default: the physical cores)",
    )
    fit.add_argument(
        "--prompt-tokens",
        type=int,
        metavar="N",
        help="context a run will use, for the predicted peak RAM (default: a short chat turn)",
    )
    add_profile_argument(fit)
    fit.add_argument(
        "--tensor-parallel",
        type=int,
        metavar="N",
        help="AWQ/vLLM: GPUs per node for --tensor-parallel-size (default: fewest that fit)",
    )
    fit.add_argument(
        "--pipeline-parallel",
        type=int,
        metavar="N",
        default=1,
        help="AWQ/vLLM: nodes like the profile's, joined by vLLM's Ray cluster (default: 1)",
    )
    fit.add_argument(
        "--uncalibrated",
        action="store_true",
        help="the raw model, without this machine's (or the profile's) measured runs",
    )
    add_dry_run_argument(fit)
    add_rpc_split_arguments(fit)  # a model split across machines: fit_rpc.py
    add_json_argument(fit)
    fit.set_defaults(handler=run_fit)


def run_fit(args: argparse.Namespace) -> int:
    if args.ctx is not None and args.ctx < 1:
        raise UsageError(f"--ctx must be a positive number of tokens, not {args.ctx}.")
    if args.ngl is not None and args.ngl < -1:
        raise UsageError(f"--ngl must be -1 or more, not {args.ngl}.")
    if args.prompt_tokens is not None and args.prompt_tokens < 1:
        raise UsageError(f"--prompt-tokens must be positive, not {args.prompt_tokens}.")
    if args.threads is not None and args.threads < 1:
        raise UsageError(f"--threads must be at least 1, not {args.threads}.")
    try:
        check_flash_attn(args.cache_type, flash_attn_from(args))
    except UsageError as exc:
        raise UsageError(f"{exc.message[:-1]}; use --flash-attn auto or on.") from None
    if args.tensor_parallel is not None and args.tensor_parallel < 1:
        raise UsageError(f"--tensor-parallel must be at least 1, not {args.tensor_parallel}.")
    if args.pipeline_parallel < 1:
        raise UsageError(f"--pipeline-parallel must be at least 1, not {args.pipeline_parallel}.")
    ws = workspace()
    resolved = ws.resolver.resolve(args.target)
    target = resolved.fit_target()
    vllm_options = args.tensor_parallel is not None or args.pipeline_parallel > 1
    if vllm_options and target.format != "awq":
        raise UsageError(
            "--tensor-parallel and --pipeline-parallel are for AWQ variants served by vLLM; "
            f"{target.label} is a GGUF model run by llama.cpp."
        )
    profile, profile_name = ws.profile(args.profile)
    n_ctx = args.ctx or default_context(target.arch, ws.settings.default_ctx)
    if args.rpc_profile:  # split across machines (llama.cpp RPC): its own estimate and output
        return run_split(args, target, profile, profile_name, n_ctx)
    result = estimate(
        target,
        profile,
        n_ctx=n_ctx,
        n_gpu_layers=args.ngl,
        cache_type=args.cache_type,
        models_dir=ws.models_dir,
        prompt_tokens=args.prompt_tokens,
        flash_attn=flash_attn_from(args),
        n_threads=args.threads,
    )
    calibration = None if args.uncalibrated else calibration_for(profile)
    result, applied = apply_calibration(result, calibration)
    check = cross_check(args, resolved, target, profile, result) if args.dry_run else None
    if check is not None:
        result = check.result
    vllm = _vllm_plans(args, target, profile, n_ctx) if target.format == "awq" else None
    if args.json:
        document = result.to_dict()
        if vllm is not None:
            plan, what_if = vllm
            document["vllm"] = plan.to_dict()
            document["vllm_what_if"] = (
                None if what_if is None else {"profile": what_if[0], **what_if[1].to_dict()}
            )
        document["profile"] = profile_name
        document["calibration"] = None if applied is None else applied.to_dict()
        if check is not None:
            document["llama_cpp"] = check.to_dict()
        emit_json(document)
        return 0
    _print_human(result, profile_name)
    if vllm is not None:
        _print_vllm(*vllm, profile_name)
    if applied is not None:
        sys.stdout.write(f"\n{applied.text()}\n")
    if check is not None:
        print_cross_check(check)
    return 0


VERDICT_TEXT = {
    "gpu": "runs fully on the GPU",
    "partial": "partial offload",
    "cpu": "runs on the CPU",
    "no": "does not fit",
}


def _print_human(result: FitResult, profile_name: str) -> None:
    out = sys.stdout
    verdict = VERDICT_TEXT[result.verdict]
    if result.verdict == "partial":
        verdict += f": {result.n_gpu_layers} of {result.n_layers} layers on the GPU"
        if result.n_gpu_layers == result.n_layers:
            verdict += ", output layer on the CPU"
    out.write(f"{result.label} on {profile_name}, context {result.n_ctx} tokens\n")
    if result.unsupported:
        out.write(f"Verdict: not supported here: {result.unsupported}.\n")
    else:
        out.write(f"Verdict: {verdict} ({result.need_text()})\n")
    if result.past_trained_ctx:
        out.write(
            f"Warning: past the trained context ({result.n_ctx_train:,} tokens); "
            "text beyond it may come out garbled.\n"
        )
    out.write("\n")
    # The table is what must fit with the whole context in use: the verdict's figure.
    need = result.need_ram
    rows: list[tuple[str, str, str]] = []
    for name in ("weights", "kv_cache", "compute", "overhead"):
        ram = getattr(need, name)
        vram = getattr(result.vram, name)
        rows.append((name.replace("_", " "), human_bytes(ram), human_bytes(vram)))
    rows.append(("total", human_bytes(need.total), human_bytes(result.vram_bytes)))
    print_table(("needs, whole context in use", "RAM", "VRAM"), rows)
    if result.page_cache_bytes:
        out.write(
            f"Plus {human_bytes(result.page_cache_bytes)} of page cache of the model file at the "
            "load's peak (pages whose repacked copies are in use): the OS can drop it, so it is "
            "not in what must fit.\n"
        )
    out.write("\n")
    facts = [
        (f"peak RSS, {result.prompt_tokens} tokens in use", human_bytes(result.ram_bytes)),
        ("RAM available", human_bytes(result.ram_available_bytes)),
        ("largest context that fits", str(result.max_ctx)),
        ("best GPU layers", f"{result.best_n_gpu_layers} of {result.n_layers}"),
        ("expected generation", _rate(result.tokens_per_s)),
        ("bandwidth roofline", _rate(result.roofline_tokens_per_s)),
        ("load time from disk", _seconds(result.load_seconds)),
        ("download", human_bytes(result.download_bytes) if result.download_bytes else "-"),
        ("download fits the disk", _yes_no(result.fits_disk)),
    ]
    if result.vram_free_bytes:
        free = ", ".join(human_bytes(b) for b in result.vram_free_bytes)
        facts.insert(2, ("VRAM free", free))
    width = max(len(k) for k, _ in facts)
    out.write("".join(f"{k + ':':<{width + 2}}{v}\n" for k, v in facts))
    if result.reasons:
        out.write("\n" + "\n".join(f"- {r}" for r in result.reasons) + "\n")


def _vllm_plans(
    args: argparse.Namespace, target: FitTarget, profile: HardwareProfile, n_ctx: int
) -> tuple[VllmPlan, tuple[str, VllmPlan] | None]:
    """The plan for the profile and, when it has no command, one for a what-if profile."""
    plan = plan_vllm(
        target,
        profile,
        n_ctx=n_ctx,
        tensor_parallel=args.tensor_parallel,
        pipeline_parallel=args.pipeline_parallel,
    )
    return plan, None if plan.fits else what_if_plan(target, n_ctx)


def _print_vllm(plan: VllmPlan, what_if: tuple[str, VllmPlan] | None, profile_name: str) -> None:
    out = sys.stdout
    out.write("\nvLLM (AWQ runs through an OpenAI-compatible vLLM server):\n")
    if plan.fits and plan.per_gpu is not None:
        share = plan.per_gpu
        gpus = f"{share.n_gpus} x {plan.gpu_name}" if share.n_gpus > 1 else plan.gpu_name
        out.write(
            f"  per GPU: {human_bytes(share.total)} (weights {human_bytes(share.weights)}, "
            f"KV cache {human_bytes(share.kv_cache)}, overhead {human_bytes(share.overhead)}) "
            f"on {gpus}\n"
        )
        out.write(f"  {plan.command}\n")
    else:
        out.write(f"  not on {profile_name}: {plan.reason}\n")
        if what_if is not None:
            name, other = what_if
            out.write(f"  on the what-if profile {name}:\n  {other.command}\n")
    for note in plan.notes:
        out.write(f"  - {note}\n")


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} tokens/s"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")
