"""What a quantization costs in quality, per quant type, from published measurements.

GGUF quant types: llama.cpp's own measurements (``tools/perplexity/README.md``, "LLaMA 3 8b
Scoreboard", no importance matrix, Wikitext-2, CUDA): perplexity and its difference to FP16
(ΔPPL; the same figures as the table in ``tools/quantize/quantize.cpp``), the mean KL divergence
of the token distributions (KLD) and, for the four types of its Llama 2 vs Llama 3 table, how
often the quantized model's most likely token is FP16's ("same top token"). The loss depends on
the model (Q4_K_M: KLD 0.0127 on Llama 2 7B, 0.0313 on Llama 3 8B): these are one model's
figures, shown as such.

AWQ: the AWQ paper's (arXiv 2306.00978) WikiText-2 perplexity of Llama-2-7B, FP16 5.47 against
INT4 group-size 128 5.60 (another harness than llama.cpp's; its Q4_K_M on the same model costs
×1.0142).

The ranking uses one number per quant, the perplexity ratio (quantized / FP16): a variant's
task score is multiplied by FP16 perplexity / quantized perplexity (0.973 for Q4_K_M), the one
figure both sources publish. Where llama.cpp prints only ΔPPL the ratio is PPL / (PPL - ΔPPL)
from the same row. A measured value (``measured here``, issue 25) replaces the published one.
"""

from __future__ import annotations

from dataclasses import dataclass

LLAMA_CPP_COMMIT = "0c1e57098bba43ac29e6e3b677cdceebdd22334f"
LLAMA_CPP_PERPLEXITY = (
    f"https://github.com/ggml-org/llama.cpp/blob/{LLAMA_CPP_COMMIT}/tools/perplexity/README.md"
)
LLAMA_CPP_QUANTIZE = (
    f"https://github.com/ggml-org/llama.cpp/blob/{LLAMA_CPP_COMMIT}/tools/quantize/quantize.cpp"
)
LLAMA_CPP_TITLE = "llama.cpp tools/perplexity/README.md, LLaMA 3 8b Scoreboard (no imatrix)"
AWQ_SOURCE = "https://github.ouxiang.me/dwithchenna/llm-quantization"
AWQ_TITLE = (
    "AWQ paper (arXiv 2306.00978) INT4-g128 WikiText-2 perplexity of Llama-2, as quoted by "
    "github.com/dwithchenna/llm-quantization (read through a mirror)"
)
READ = "2026-12-01"


@dataclass(frozen=True)
class QuantCost:
    """The quality a quant type loses against FP16, on one model, from one source.

    ``ppl_ratio``: quantized perplexity / FP16 perplexity (1.0 = no loss); ``kld``: mean KL
    divergence in nats; ``delta_ppl``: perplexity difference; ``same_top_pct``: how often the
    most likely token is FP16's (percent). None where the source gives nothing.
    """

    quant: str
    ppl_ratio: float
    kld: float | None
    delta_ppl: float | None
    same_top_pct: float | None
    model: str  # the model it was measured on
    source: str
    source_title: str
    read: str = READ
    ratio_derived: bool = False  # ppl_ratio computed as PPL / (PPL - ΔPPL) from the same row
    measured_here: bool = False  # measured on this machine (issue 25), not published

    @property
    def kept(self) -> float:
        """The factor the ranking multiplies a task score by: FP16 / quantized perplexity."""
        return 1.0 / self.ppl_ratio

    def to_dict(self) -> dict[str, object]:
        return {
            "quant": self.quant,
            "ppl_ratio": self.ppl_ratio,
            "kept": self.kept,
            "kld": self.kld,
            "delta_ppl": self.delta_ppl,
            "same_top_pct": self.same_top_pct,
            "model": self.model,
            "source": self.source,
            "source_title": self.source_title,
            "read": self.read,
            "ratio_derived": self.ratio_derived,
            "measured_here": self.measured_here,
        }


def _llama_cpp(
    quant: str,
    ppl: float,
    delta: float,
    kld: float,
    *,
    ratio: float | None = None,
    same_top: float | None = None,
) -> QuantCost:
    return QuantCost(
        quant=quant,
        ppl_ratio=ratio if ratio is not None else ppl / (ppl - delta),
        kld=kld,
        delta_ppl=delta,
        same_top_pct=same_top,
        model="Llama 3 8B",
        source=LLAMA_CPP_PERPLEXITY,
        source_title=LLAMA_CPP_TITLE,
        ratio_derived=ratio is None,
    )


# llama.cpp's rows without an importance matrix (PPL, ΔPPL, KLD), with the "Mean PPL ratio" and
# "Same top p" of its Llama 2 vs Llama 3 table where it has them (L3 8b).
PUBLISHED: dict[str, QuantCost] = {
    c.quant: c
    for c in (
        _llama_cpp("Q8_0", 6.234284, 0.002650, 0.001355, ratio=1.000425, same_top=97.674),
        _llama_cpp("Q6_K", 6.253382, 0.021748, 0.005452, ratio=1.003490, same_top=96.031),
        _llama_cpp("Q5_K_M", 6.288607, 0.056974, 0.010762),
        _llama_cpp("Q5_K_S", 6.336598, 0.104964, 0.016595),
        _llama_cpp("Q5_1", 6.337857, 0.106223, 0.018045),
        _llama_cpp("Q5_0", 6.363224, 0.131591, 0.022239),
        _llama_cpp("Q4_K_M", 6.407115, 0.175482, 0.031273, ratio=1.028160, same_top=91.901),
        _llama_cpp("Q4_K_S", 6.500529, 0.268895, 0.043136),
        _llama_cpp("Q4_1", 6.682737, 0.451103, 0.071683),
        _llama_cpp("Q4_0", 6.700147, 0.468514, 0.071940),
        _llama_cpp("Q3_K_L", 6.787876, 0.556242, 0.087176),
        _llama_cpp("Q3_K_M", 6.888498, 0.656864, 0.101913),
        _llama_cpp("Q3_K_S", 7.863786, 1.632152, 0.228217),
        _llama_cpp("Q2_K", 9.751568, 3.519934, 0.445132, ratio=1.564849, same_top=71.138),
        QuantCost(
            quant="AWQ",
            ppl_ratio=5.60 / 5.47,
            kld=None,
            delta_ppl=5.60 - 5.47,
            same_top_pct=None,
            model="Llama 2 7B",
            source=AWQ_SOURCE,
            source_title=AWQ_TITLE,
            ratio_derived=True,
        ),
    )
}
UNQUANTIZED = ("F16", "BF16", "F32")


def quant_cost(quant: str, *, fmt: str = "gguf") -> QuantCost | None:
    """The published cost of ``quant`` (a GGUF type or an AWQ variant), or None when unknown.

    F16/BF16/F32 are the reference: ratio 1, nothing lost."""
    key = "AWQ" if fmt == "awq" or quant.upper().startswith("AWQ") else quant.upper()
    if key in UNQUANTIZED:
        return QuantCost(key, 1.0, 0.0, 0.0, 100.0, "", "", "unquantized (the reference)")
    return PUBLISHED.get(key)
