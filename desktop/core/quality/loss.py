"""What a quantization loses against a reference: KL divergence, ΔPPL, same top token.

Per scored position the reference's distribution is known as its top ``k`` tokens plus one bin
for the rest (a :class:`~desktop.core.quality.pack.ReferencePack`), the model's as its
log-probabilities of the same ``k`` tokens plus the mass outside them. The KL divergence
``KL(reference || model)`` over those ``k + 1`` bins is what llama.cpp's ``llama-perplexity
--kl-divergence`` reports over the whole vocabulary, coarsened: by the data-processing
inequality it can only be smaller, and with ``k = 32`` the tokens outside hold little mass
(benchmarks/RESULTS.md compares it with the full-vocabulary figure).

Per chunk the sums are kept (:class:`ChunkStats`), so intervals come from resampling chunks
(``stats.bootstrap_sums``) and a stored result can be recomputed or merged. :class:`LossResult`
is a frozen value with a JSON round trip (``to_dict``/``from_dict``), the ``llm-scout quality
--json`` document and what a history stores.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from desktop.core.engine import Scores
from desktop.core.quality.stats import bootstrap_sums

Stopped = Literal["budget", "cancelled"]

# llama.cpp's published scale: LLaMA 3 8B quantized without an importance matrix against its
# FP16 logits on Wikitext-2 (tools/perplexity/README.md, "LLaMA 3 8b Scoreboard", revision
# f364eb6f): (type, mean KLD, ΔPPL). The loss depends on the model (Q4_K_M: 0.0127 on Llama 2 7B).
LLAMA_CPP_SCALE: tuple[tuple[str, float, float], ...] = (
    ("Q8_0", 0.001355, 0.002650),
    ("Q6_K", 0.005452, 0.021748),
    ("Q5_K_M", 0.010762, 0.056974),
    ("Q5_K_S", 0.016595, 0.104964),
    ("Q5_1", 0.018045, 0.106223),
    ("Q5_0", 0.022239, 0.131591),
    ("Q4_K_M", 0.031273, 0.175482),
    ("Q4_K_S", 0.043136, 0.268895),
    ("Q4_1", 0.071683, 0.451103),
    ("Q4_0", 0.071940, 0.468514),
    ("Q3_K_L", 0.087176, 0.556242),
    ("Q3_K_M", 0.101913, 0.656864),
    ("Q3_K_S", 0.228217, 1.632152),
    ("Q2_K", 0.445132, 3.519934),
)


@dataclass(frozen=True)
class ChunkStats:
    """Sums over one chunk's ``n`` scored positions: KL divergence, the model's and the
    reference's negative log-likelihood of the true tokens, and how often their top tokens
    agree."""

    n: int
    kld_sum: float
    nll_sum: float
    ref_nll_sum: float
    same_top: int


@dataclass(frozen=True)
class ScalePlace:
    """Where a KL divergence falls on llama.cpp's scale: between ``below`` and ``above``
    (either None past an end)."""

    below: tuple[str, float] | None
    above: tuple[str, float] | None


def place_on_scale(kld: float) -> ScalePlace:
    below: tuple[str, float] | None = None
    above: tuple[str, float] | None = None
    for name, value, _delta in LLAMA_CPP_SCALE:
        if value <= kld:
            below = (name, value)
        elif above is None:
            above = (name, value)
    return ScalePlace(below, above)


# --------------------------------------------------------------------------- per position


def position_klds(
    ref_top_lp: npt.NDArray[np.float32],
    ref_rest_lp: npt.NDArray[np.float32],
    model_lp: npt.NDArray[np.float32],
    model_rest_lp: npt.NDArray[np.float32],
) -> npt.NDArray[np.float64]:
    """KL(reference || model) per position over the reference's top tokens and the rest.
    Shapes: ``(n, k)`` and ``(n,)``. A bin the reference gives no mass adds nothing; one the
    model gives none (but the reference does) is capped at the model's float32 floor."""
    p_lp = ref_top_lp.astype(np.float64)
    q_lp = model_lp.astype(np.float64)
    floor = math.log(np.finfo(np.float32).tiny)
    kld = (np.exp(p_lp) * (p_lp - np.maximum(q_lp, floor))).sum(axis=1)
    p_rest = ref_rest_lp.astype(np.float64)
    q_rest = np.maximum(model_rest_lp.astype(np.float64), floor)
    with np.errstate(invalid="ignore"):
        rest = np.where(np.isfinite(p_rest), np.exp(p_rest) * (p_rest - q_rest), 0.0)
    return np.asarray(kld + rest, dtype=np.float64)


def chunk_stats(
    ref_target_lp: npt.NDArray[np.float32],
    ref_top_ids: npt.NDArray[np.int32],
    ref_top_lp: npt.NDArray[np.float32],
    ref_rest_lp: npt.NDArray[np.float32],
    scores: Scores,
) -> tuple[ChunkStats, npt.NDArray[np.float64]]:
    """One chunk's sums, and its per-position KL divergences (for percentiles)."""
    klds = position_klds(ref_top_lp, ref_rest_lp, scores.gather_lp, scores.gather_rest_lp)
    same = int(np.count_nonzero(scores.argmax == ref_top_ids[:, 0]))
    stats = ChunkStats(
        n=int(scores.n),
        kld_sum=float(klds.sum()),
        nll_sum=float(-np.sum(scores.target_lp, dtype=np.float64)),
        ref_nll_sum=float(-np.sum(ref_target_lp, dtype=np.float64)),
        same_top=same,
    )
    return stats, klds


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class LossResult:
    """A model against a reference on one text. Intervals are 95% bootstrap intervals over
    chunks (None with fewer than two). ``tokens`` are the scored tokens; ``tokens_evaluated``
    all tokens that went through the model (about twice as many: each chunk's first half is
    context). ``complete`` is False when a time budget or a stop ended it early (``stopped``
    says which): the figures then cover the chunks done."""

    model: str
    model_path: str
    reference: str
    reference_path: str
    reference_kind: Literal["gguf", "pack"]
    text: str
    text_sha256: str
    ctx: int
    top_k: int
    chunks: int
    chunks_planned: int
    tokens: int
    tokens_evaluated: int
    kld: float
    kld_ci: tuple[float, float] | None
    kld_median: float
    kld_p99: float
    kld_max: float
    same_top_token: float
    same_top_token_ci: tuple[float, float] | None
    ppl: float
    ppl_ci: tuple[float, float] | None
    reference_ppl: float
    reference_ppl_ci: tuple[float, float] | None
    delta_ppl: float
    delta_ppl_ci: tuple[float, float] | None
    seconds: float
    tokens_per_s: float
    complete: bool
    stopped: Stopped | None
    chunk_stats: tuple[ChunkStats, ...]

    @property
    def scale(self) -> ScalePlace:
        return place_on_scale(self.kld)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["kind"] = "loss"
        data["ppl_ratio"] = self.ppl / self.reference_ppl if self.reference_ppl else None
        for key in ("kld_ci", "same_top_token_ci", "ppl_ci", "reference_ppl_ci", "delta_ppl_ci"):
            data[key] = list(data[key]) if data[key] is not None else None
        data["chunk_stats"] = [dataclasses.astuple(c) for c in self.chunk_stats]
        place = self.scale
        data["llama_cpp_scale"] = {
            "below": list(place.below) if place.below else None,
            "above": list(place.above) if place.above else None,
        }
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LossResult:
        """The result :meth:`to_dict` wrote (extra keys ignored; ValueError when one lacks)."""
        fields = {f.name for f in dataclasses.fields(cls)}
        missing = fields - set(data)
        if missing:
            raise ValueError(f"a loss result lacks {', '.join(sorted(missing))}")
        values = {name: data[name] for name in fields}
        for key in ("kld_ci", "same_top_token_ci", "ppl_ci", "reference_ppl_ci", "delta_ppl_ci"):
            values[key] = tuple(float(v) for v in values[key]) if values[key] is not None else None
        values["chunk_stats"] = tuple(
            ChunkStats(int(c[0]), float(c[1]), float(c[2]), float(c[3]), int(c[4]))
            for c in values["chunk_stats"]
        )
        return cls(**values)


def summarize(
    stats: Sequence[ChunkStats],
    klds: npt.NDArray[np.float64],
    *,
    seconds: float,
    tokens_evaluated: int,
    chunks_planned: int,
    stopped: Stopped | None,
    **about: Any,
) -> LossResult:
    """The result over the chunks in ``stats`` (at least one); ``klds`` holds the per-position
    values of all of them. ``about``: the descriptive fields (model, reference, text, ...)."""
    if not stats:
        raise ValueError("a loss result needs at least one chunk")
    n = sum(c.n for c in stats)
    kld = sum(c.kld_sum for c in stats) / n
    nll = sum(c.nll_sum for c in stats) / n
    ref_nll = sum(c.ref_nll_sum for c in stats) / n
    same = sum(c.same_top for c in stats) / n
    sums = {
        "n": [float(c.n) for c in stats],
        "kld": [c.kld_sum for c in stats],
        "nll": [c.nll_sum for c in stats],
        "ref": [c.ref_nll_sum for c in stats],
        "same": [float(c.same_top) for c in stats],
    }
    ppl, ref_ppl = math.exp(nll), math.exp(ref_nll)
    median, p99 = (float(v) for v in np.percentile(klds, [50, 99]))
    return LossResult(
        **about,
        chunks=len(stats),
        chunks_planned=chunks_planned,
        tokens=n,
        tokens_evaluated=tokens_evaluated,
        kld=kld,
        kld_ci=bootstrap_sums(sums, lambda t: t["kld"] / t["n"]),
        kld_median=median,
        kld_p99=p99,
        kld_max=float(np.max(klds)),
        same_top_token=same,
        same_top_token_ci=bootstrap_sums(sums, lambda t: t["same"] / t["n"]),
        ppl=ppl,
        ppl_ci=bootstrap_sums(sums, lambda t: np.exp(t["nll"] / t["n"])),
        reference_ppl=ref_ppl,
        reference_ppl_ci=bootstrap_sums(sums, lambda t: np.exp(t["ref"] / t["n"])),
        delta_ppl=ppl - ref_ppl,
        delta_ppl_ci=bootstrap_sums(
            sums, lambda t: np.exp(t["nll"] / t["n"]) - np.exp(t["ref"] / t["n"])
        ),
        seconds=seconds,
        tokens_per_s=tokens_evaluated / seconds if seconds > 0 else 0.0,
        complete=len(stats) == chunks_planned and stopped is None,
        stopped=stopped,
        chunk_stats=tuple(stats),
    )
