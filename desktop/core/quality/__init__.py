"""Quality measured on this device: what a quantization loses against a reference, and
multiple-choice accuracy, each with its confidence interval.

Owns the logit evaluation of fixed texts (``texts``) against a reference model or a reference
pack (``pack``: the reference's top tokens per position, small enough for an edge box), the
figures (``loss``: KL divergence, ΔPPL, same top token, per chunk so intervals come from the
bootstrap), running it in engine workers (``measure``), multiple choice scored from the
log-likelihoods of the options (``items``, ``choice``), quantizing a GGUF file through llama.cpp
(``quantize``) and the statistics all of them and Compare's votes use (``stats``: bootstrap,
Wilson, McNemar, Bradley-Terry); results as the history stores them and the recommendation
reads them (``record``). Depends on engine (workers and the logits codec), gguf, history and
recommend.
"""

from __future__ import annotations

from desktop.core.quality.choice import (
    ChoiceProgress,
    ChoiceResult,
    ChoiceSettings,
    ItemOutcome,
    SubjectScore,
    paired,
    prompt_for,
    score_items,
)
from desktop.core.quality.items import (
    BUILTIN_SETS,
    ChoiceItem,
    ItemSet,
    load_items,
    shuffled_answers,
)
from desktop.core.quality.loss import (
    LLAMA_CPP_SCALE,
    ChunkStats,
    LossResult,
    ScalePlace,
    place_on_scale,
)
from desktop.core.quality.measure import (
    LossProgress,
    LossSettings,
    cached_pack_path,
    make_pack,
    measure_loss,
    score_against_pack,
)
from desktop.core.quality.pack import SUFFIX as PACK_SUFFIX
from desktop.core.quality.pack import PackHeader, ReferencePack, read_pack, write_pack
from desktop.core.quality.quantize import (
    NEEDS_IMATRIX,
    QUANT_TYPES,
    QuantizeResult,
    default_output,
    k_base_type,
    quant_type,
    quantize_model,
)
from desktop.core.quality.record import (
    ACCURACY_DECIMALS,
    CHOICE_KIND,
    KLD_DECIMALS,
    LOSS_KIND,
    Measurement,
    MeasurementFigures,
    figures_of,
    measured_by_variant,
    measured_here,
    measurement_of,
    of_models,
    result_of,
    store_result,
)
from desktop.core.quality.stats import (
    BradleyTerry,
    McNemar,
    PairGap,
    Rating,
    bootstrap_sums,
    bradley_terry,
    mcnemar,
    mcnemar_items_needed,
    wilson,
)
from desktop.core.quality.texts import BUILTIN_TEXTS, ChunkPlan, EvalText, load_text, plan_chunks

__all__ = [
    "ACCURACY_DECIMALS",
    "BUILTIN_SETS",
    "BUILTIN_TEXTS",
    "CHOICE_KIND",
    "KLD_DECIMALS",
    "LLAMA_CPP_SCALE",
    "LOSS_KIND",
    "NEEDS_IMATRIX",
    "PACK_SUFFIX",
    "QUANT_TYPES",
    "BradleyTerry",
    "ChoiceItem",
    "ChoiceProgress",
    "ChoiceResult",
    "ChoiceSettings",
    "ChunkPlan",
    "ChunkStats",
    "EvalText",
    "ItemOutcome",
    "ItemSet",
    "LossProgress",
    "LossResult",
    "LossSettings",
    "McNemar",
    "Measurement",
    "MeasurementFigures",
    "PackHeader",
    "PairGap",
    "QuantizeResult",
    "Rating",
    "ReferencePack",
    "ScalePlace",
    "SubjectScore",
    "bootstrap_sums",
    "bradley_terry",
    "cached_pack_path",
    "default_output",
    "figures_of",
    "k_base_type",
    "load_items",
    "load_text",
    "make_pack",
    "mcnemar",
    "mcnemar_items_needed",
    "measure_loss",
    "measured_by_variant",
    "measured_here",
    "measurement_of",
    "of_models",
    "paired",
    "place_on_scale",
    "plan_chunks",
    "prompt_for",
    "quant_type",
    "quantize_model",
    "read_pack",
    "result_of",
    "score_against_pack",
    "score_items",
    "shuffled_answers",
    "store_result",
    "wilson",
    "write_pack",
]
