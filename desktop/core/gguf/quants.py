"""Quantization facts: GGUF file types as quant labels, and bits per weight of each quant mix.

Beside the GGUF types because a quant is a property of a file; the catalog (sort order, size
estimates) and the fit estimator (weights of a variant not downloaded yet) read them from here.
"""

from __future__ import annotations

_GUESSED_FLAG = 1024  # LLAMA_FTYPE_GUESSED

# Average bits per weight of GGUF quant types (whole file, embeddings included), used when only
# the parameter count is known. From llama.cpp's quantize table (sizes of Llama 3 8B).
QUANT_BITS: dict[str, float] = {
    "F32": 32.0,
    "F16": 16.0,
    "BF16": 16.0,
    "Q8_0": 8.5,
    "Q6_K": 6.56,
    "Q5_K_M": 5.69,
    "Q5_K_S": 5.54,
    "Q5_1": 6.0,
    "Q5_0": 5.5,
    "Q4_K_M": 4.89,
    "Q4_K_S": 4.58,
    "Q4_1": 5.0,
    "Q4_0": 4.55,
    "IQ4_NL": 4.5,
    "IQ4_XS": 4.25,
    "Q3_K_L": 4.27,
    "Q3_K_M": 3.91,
    "Q3_K_S": 3.5,
    "IQ3_M": 3.66,
    "IQ3_XS": 3.3,
    "Q2_K": 3.35,
    "IQ2_M": 2.7,
    "IQ2_XS": 2.31,
    "AWQ": 4.25,
}
# Share of the layer bytes stored in the given weight type, per file type (catalog estimates of
# what the CPU backend repacks, when no tensor list is known).
QUANT_TYPE_SHARE: dict[str, tuple[tuple[str, float], ...]] = {
    "Q4_0": (("Q4_0", 1.0),),
    "Q4_K_S": (("Q4_K", 0.95),),
    "Q4_K_M": (("Q4_K", 0.72), ("Q6_K", 0.28)),
    "Q5_K_M": (("Q5_K", 0.72), ("Q6_K", 0.28)),
    "Q5_K_S": (("Q5_K", 1.0),),
    "Q6_K": (("Q6_K", 1.0),),
    "Q8_0": (("Q8_0", 1.0),),
    "IQ4_NL": (("IQ4_NL", 1.0),),
    "Q2_K": (("Q2_K", 0.5),),
}


def quant_bits(quant: str) -> float | None:
    """Bits per weight of a quant name ("Q4_K_M" -> 4.89; any "AWQ..." -> AWQ), None if unknown."""
    upper = quant.upper()
    if upper.startswith("AWQ"):
        upper = "AWQ"
    return QUANT_BITS.get(upper)


def quant_name(file_type: int | None) -> str | None:
    """``general.file_type`` as the usual quant label ("Q4_K_M", "F16"); None if unknown."""
    if file_type is None:
        return None
    import gguf

    try:
        member = gguf.LlamaFileType(file_type & ~_GUESSED_FLAG)
    except ValueError:
        return None
    label = member.name
    if label == "ALL_F32":
        return "F32"
    return label.removeprefix("MOSTLY_")
