"""`llm-scout recommend [--task T] [--profile P] [--ctx N] [--min-speed T] [--json]
[--explain VARIANT]`: the models that fit here, best first for a task, with why.

The estimate is the whole-catalog fit table of ``catalog`` (the same verdicts, speeds and
memory); the ranking is :class:`desktop.core.recommend.Recommender`'s. Each pick shows its
published scores with their sources, its quant's cost with its source, and whether it is on the
quality/speed Pareto front; ``--explain`` prints the whole derivation of one variant.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from desktop.commands.common import add_json_argument, add_profile_argument, workspace
from desktop.commands.output import emit_json, human_bytes, print_table
from desktop.core.catalog import CatalogModel
from desktop.core.errors import ScoutError, UsageError
from desktop.core.fit import CatalogEstimator, FitRow
from desktop.core.recommend import (
    DEFAULT_MIN_SPEED,
    TASK_IDS,
    MeasuredQuality,
    Pick,
    QuantCost,
    Recommendation,
    Recommender,
    TaskScale,
    dominated_by,
)

SCALE_TEXT = (
    "quality = task score x the share the quant keeps (FP16 / quantized perplexity). Task score: "
    "within each benchmark a model's published score becomes its percentile among the catalog's "
    "models with a score there; the task score is the mean over the task's benchmarks it has."
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "recommend",
        help="the models that fit here, best first for a task, with their sources",
        description=(
            "Rank the catalog's variants that fit this machine (or --profile) for a task, from "
            "published benchmark scores (each with its source) and the quality each "
            "quantization keeps; mark the quality/speed Pareto front."
        ),
    )
    parser.add_argument(
        "--task",
        choices=TASK_IDS,
        default="chat",
        help="chat, code, zh (Chinese), reasoning (and maths) or long (context)",
    )
    add_profile_argument(parser)
    parser.add_argument(
        "--ctx", type=int, metavar="N", help="context length in tokens (default: settings)"
    )
    parser.add_argument(
        "--min-speed",
        type=float,
        default=DEFAULT_MIN_SPEED,
        metavar="T",
        help="leave out variants predicted slower than T tokens/s (0: keep all)",
    )
    parser.add_argument(
        "--all", action="store_true", help="every variant that fits, not the best one per model"
    )
    parser.add_argument("--top", type=int, default=10, metavar="N", help="how many picks to show")
    parser.add_argument(
        "--explain", metavar="VARIANT", help="the whole derivation for one variant id"
    )
    parser.add_argument(
        "--uncalibrated",
        action="store_true",
        help="the raw speed model, without this machine's (or the profile's) measured runs",
    )
    add_json_argument(parser)
    parser.set_defaults(handler=run_recommend)


def run_recommend(args: argparse.Namespace) -> int:
    if args.ctx is not None and args.ctx < 1:
        raise UsageError(f"--ctx must be a positive number of tokens, not {args.ctx}.")
    if args.min_speed < 0:
        raise UsageError(f"--min-speed must be 0 or more tokens/s, not {args.min_speed:g}.")
    if args.top < 1:
        raise UsageError(f"--top must be 1 or more, not {args.top}.")
    ws = workspace()
    catalog = ws.catalog
    explain = catalog.variant(args.explain) if args.explain else None
    profile, profile_name = ws.profile(args.profile)
    n_ctx = args.ctx or ws.settings.default_ctx
    estimator = CatalogEstimator(
        ws.resolver.fit_targets(catalog.variants()),
        profile,
        models_dir=ws.models_dir,
        calibrated=not args.uncalibrated,
    )
    rows = estimator.estimate(n_ctx)
    recommender = Recommender(catalog.models)
    rec = recommender.recommend(
        rows, args.task, n_ctx, min_speed=args.min_speed or None, measured=_measured()
    )
    if explain is not None:
        _model, variant = explain
        row = next(r for r in rows if r.variant.id == variant.id)
        scale = recommender.scale(args.task)
        if args.json:
            emit_json(_explain_dict(rec, row, scale, profile_name))
        else:
            _print_explain(rec, row, scale, profile_name)
        return 0
    if args.json:
        emit_json(_document(rec, profile_name))
        return 0
    _print_ranking(rec, profile_name, show_all=args.all, top=args.top)
    return 0


def _measured() -> dict[str, MeasuredQuality]:
    """Quality measured on this machine (``llm-scout quality``), labelled "measured here"; a
    history that cannot be read costs a warning, not the ranking."""
    from desktop.core.quality import measured_here

    try:
        return measured_here()
    except ScoutError as exc:
        sys.stderr.write(f"llm-scout: measured quality not read from the history: {exc}\n")
        return {}


# --- JSON ------------------------------------------------------------------------------------


def _document(rec: Recommendation, profile_name: str) -> dict[str, Any]:
    return {
        "task": rec.task.id,
        "task_title": rec.task.title,
        "profile": profile_name,
        "n_ctx": rec.n_ctx,
        "min_speed": rec.min_speed,
        "count": len(rec.picks),
        "picks": [p.to_dict() for p in rec.picks],
        "pareto": [p.variant_id for p in rec.front],
        "left_out": rec.left_out,
        "scale": SCALE_TEXT,
        "mixing": rec.mixing(),
        "measures": [m.label for m in rec.task.measures],
        "sources": list(rec.sources),
    }


def _explain_dict(
    rec: Recommendation, row: FitRow, scale: TaskScale, profile_name: str
) -> dict[str, Any]:
    pick = rec.pick(row.variant.id)
    beaten = dominated_by(pick, rec.scored) if pick is not None else None
    score = scale.score(row.model.id)
    return {
        "variant": row.variant.id,
        "task": rec.task.id,
        "profile": profile_name,
        "n_ctx": rec.n_ctx,
        "ranked": pick is not None,
        "left_out": None if pick is not None else _left_out_reason(row, rec),
        "pick": None if pick is None else pick.to_dict(),
        "of": len(rec.picks),
        "beaten_by": None if beaten is None else beaten.variant_id,
        "task_score": None if score is None else round(score.score, 2),
        "evidence": [] if score is None else [e.to_dict() for e in score.evidence],
        "not_used": [{"record": r.to_dict(), "why": why} for r, why in _not_used(row.model, scale)],
        "fit": None if row.result is None else row.result.summary_dict(),
    }


# --- human output ----------------------------------------------------------------------------


def _print_ranking(rec: Recommendation, profile_name: str, *, show_all: bool, top: int) -> None:
    out = sys.stdout
    speed = f", at least {rec.min_speed:g} tokens/s" if rec.min_speed else ""
    out.write(f"Best for {rec.task.title} on {profile_name}, context {rec.n_ctx} tokens{speed}\n\n")
    picks = list(rec.picks if show_all else rec.best_per_model())
    if not picks:
        out.write("Nothing in the catalog fits" + (" at that speed" if speed else "") + ".\n")
        _print_left_out(rec)
        return
    shown = picks[:top]
    numbers: dict[str, int] = {}
    table = []
    for pick in shown:
        table.append(
            (
                pick.rank,
                pick.variant_id,
                "-" if pick.quality is None else f"{pick.quality:.1f}",
                pick.tokens_per_s,
                human_bytes(pick.memory_bytes),
                _verdict(pick),
                "yes" if pick.pareto else "",
            )
        )
    print_table(("#", "variant", "quality", "est. tok/s", "memory", "verdict", "front"), table)
    out.write("\nWhy:\n")
    for pick in shown:
        out.write(f"  {pick.rank}. {pick.variant_id}: {_why(pick, numbers)}\n")
    if len(picks) > top:
        out.write(f"  ... {len(picks) - top} more ({'--all, ' if not show_all else ''}--top N).\n")
    out.write("\nSources:\n")
    for url, n in numbers.items():
        out.write(f"  [{n}] {url}\n")
    mix = rec.mixing()
    out.write(f"\n{SCALE_TEXT}\n")
    if mix["records"]:
        out.write(
            f"The ranking mixes {mix['records']} scores from {mix['sources']} sources "
            f"({mix['self_reported']} reported by the model's own vendor): vendors' numbers are "
            "not directly comparable across vendors; each is compared within its benchmark "
            "only.\n"
        )
    _print_left_out(rec)


def _print_left_out(rec: Recommendation) -> None:
    if rec.left_out:
        parts = ", ".join(f"{reason}: {n}" for reason, n in sorted(rec.left_out.items()))
        sys.stdout.write(f"Not ranked: {parts}.\n")


def _why(pick: Pick, numbers: dict[str, int]) -> str:
    def ref(url: str) -> str:
        return f"[{numbers.setdefault(url, len(numbers) + 1)}]"

    parts = []
    if pick.task_score is None:
        parts.append("no published score for this task")
    else:
        for e in pick.task_score.evidence:
            notes = [
                n
                for n in (
                    "measured here" if e.measured_here else "",
                    "thinking on" if e.record.thinking else "",
                )
                if n
            ]
            extra = f" ({', '.join(notes)})" if notes else ""
            cite = f" {ref(e.record.source)}" if e.record.source else ""
            parts.append(
                f"{e.measure.label} {e.record.score:g}{extra}, beats {e.percentile:.0f}% of "
                f"{e.others} others{cite}"
            )
    if pick.cost is not None:
        parts.append(
            _cost_text(pick.cost) + (f" {ref(pick.cost.source)}" if pick.cost.source else "")
        )
    return "; ".join(parts)


def _cost_text(cost: QuantCost) -> str:
    """ "Q4_K_M keeps the same top token 91.9% of the time (KLD 0.0313, perplexity x1.0282,
    Llama 3 8B)"; "AWQ: perplexity x1.0238 (Llama 2 7B)"."""
    ratio = f"perplexity x{cost.ppl_ratio:.4f}"
    if cost.measured_here:
        return f"{cost.quant}: {ratio}, measured here"
    kld = [f"KLD {cost.kld:.3g}"] if cost.kld is not None else []
    model = [cost.model] if cost.model else []
    if cost.same_top_pct is not None:
        facts = ", ".join([*kld, ratio, *model])
        return (
            f"{cost.quant} keeps the same top token {cost.same_top_pct:.1f}% of the time ({facts})"
        )
    return f"{cost.quant}: {ratio} ({', '.join([*kld, *model])})"


def _verdict(pick: Pick) -> str:
    fit = pick.fit
    if fit.verdict == "partial":
        return f"partial {fit.n_gpu_layers}/{fit.n_layers}"
    return str(fit.verdict)


def _left_out_reason(row: FitRow, rec: Recommendation) -> str:
    fit = row.result
    if fit is None:
        return f"no estimate ({row.error})"
    if fit.unsupported:
        return fit.unsupported
    if not row.fits:
        return f"does not fit: {fit.need_text()}"
    if fit.past_trained_ctx:
        return f"the context {rec.n_ctx} is past the {fit.n_ctx_train} tokens it was trained on"
    return f"predicted {fit.tokens_per_s or 0:.1f} tokens/s, below the minimum {rec.min_speed:g}"


def _not_used(model: CatalogModel, scale: TaskScale) -> list[tuple[Any, str]]:
    """The model's records about the task's benchmarks that its score does not use, and why."""
    out = []
    for record in model.quality:
        measures = [m for m in scale.task.measures if m.benchmark == record.benchmark]
        if not measures:
            continue
        measure = next((m for m in measures if record.metric in m.metrics), None)
        if measure is None:
            out.append((record, f"the metric {record.metric} is not one the task counts"))
            continue
        chosen = scale.chosen[measure.key].get(model.id)
        if chosen is record:
            if not scale.placeable(measure):
                out.append((record, "too few catalog models have a score on this benchmark"))
            continue
        if chosen is not None and chosen.thinking != record.thinking:
            mode = "on" if scale.task.thinking else "off"
            out.append((record, f"the task judges thinking {mode}"))
        else:
            out.append((record, "a wider shared table (or an independent one) scored it too"))
    return out


def _print_explain(rec: Recommendation, row: FitRow, scale: TaskScale, profile_name: str) -> None:
    out = sys.stdout
    doc = _explain_dict(rec, row, scale, profile_name)
    out.write(f"{row.variant.id} for {rec.task.title} on {profile_name}, context {rec.n_ctx}\n\n")
    fit = row.result
    if fit is not None:
        out.write(
            f"Fit: {fit.verdict}, {fit.need_text()}; expected generation "
            f"{fit.tokens_per_s or 0:.1f} tokens/s (the same estimate as `llm-scout fit`).\n"
        )
    score = scale.score(row.model.id)
    if score is None:
        out.write(f"Task score: no published score for {rec.task.title}.\n")
    else:
        out.write(f"Task score {score.score:.1f} = mean of {len(score.evidence)} percentile(s):\n")
        for e in score.evidence:
            r = e.record
            who = "reported by the model's own vendor" if r.self_reported else "independent"
            out.write(
                f"  {e.measure.label}: {r.score:g} ({r.setting_text()}), above "
                f"{e.percentile:.1f}% of {e.others} other catalog models\n"
                f"    {r.source_title or r.source}\n    {r.source}\n"
                f"    read {r.read}; {r.licence}; {who}" + (f"; {r.note}" if r.note else "") + "\n"
            )
    for record, why in _not_used(row.model, scale):
        out.write(
            f"  not used: {record.benchmark} {record.score:g} ({record.setting_text()}) from "
            f"{record.source_title or record.source}: {why}\n"
        )
    pick = rec.pick(row.variant.id)
    cost = pick.cost if pick is not None else None
    if pick is None:
        out.write(f"\nNot ranked: {doc['left_out']}.\n")
        return
    if cost is not None:
        out.write(f"Quant cost: {_cost_text(cost)}\n    {cost.source or 'measured here'}\n")
    if pick.quality is not None and score is not None and cost is not None:
        out.write(f"Quality {pick.quality:.1f} = {score.score:.1f} x 1/{cost.ppl_ratio:.4f}\n")
    out.write(f"Rank {pick.rank} of {len(rec.picks)} ranked variants.\n")
    if pick.pareto:
        out.write("On the quality/speed Pareto front: no variant here is both better and faster.\n")
    elif doc["beaten_by"]:
        beaten = rec.pick(doc["beaten_by"])
        assert beaten is not None
        out.write(
            f"Not on the Pareto front: {beaten.variant_id} is at least as good "
            f"({beaten.quality or 0:.1f}) and as fast ({beaten.tokens_per_s or 0:.1f} tokens/s).\n"
        )
