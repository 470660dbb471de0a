"""GGUF files: the header reader (local, split and remote), architecture facts, quant facts.

Owns everything known from a GGUF header without loading the model: metadata, tensors and their
exact bytes (:class:`GGUFInfo`), the :class:`ModelArch` the fit estimator needs (also built by
the catalog from its own numbers), what a quant name means in bits per weight, and the file a
model would have for a quant mix (:func:`quant_layout`: its tensors with llama.cpp's type choice,
their bytes and the header), so a variant not downloaded yet is sized from its shapes. Tensor data
is never read; a remote file is fetched by HTTP range requests only as far as its header goes.
Broken files raise a :class:`~desktop.core.errors.GGUFError` subclass with one plain sentence.
"""

from desktop.core.gguf.arch import ModelArch
from desktop.core.gguf.format import (
    MAX_KEPT_ARRAY_ITEMS,
    MAX_KV,
    MAX_TENSORS,
    GGUFArraySummary,
    GGUFFileError,
    GGUFFormatError,
    GGUFNotAModelError,
    GGUFRemoteError,
    GGUFSplitError,
    GGUFStringSummary,
    GGUFTruncatedError,
    GGUFVersionError,
    TensorInfo,
)
from desktop.core.gguf.layout import (
    PlannedTensor,
    QuantLayout,
    TokenizerFacts,
    guess_tokenizer,
    quant_layout,
    tensor_shapes,
    tied_embeddings,
    tokenizer_facts,
)
from desktop.core.gguf.quants import (
    FILE_TYPE_BASE,
    QUANT_BITS,
    MixModel,
    mix_types,
    quant_bits,
    quant_name,
    weights_map_key,
)
from desktop.core.gguf.reader import (
    GGUFInfo,
    GGUFPart,
    describe,
    read_gguf,
    read_gguf_split,
    split_part_path,
)
from desktop.core.gguf.remote import read_gguf_url, read_remote_gguf

__all__ = [
    "FILE_TYPE_BASE",
    "MAX_KEPT_ARRAY_ITEMS",
    "MAX_KV",
    "MAX_TENSORS",
    "QUANT_BITS",
    "GGUFArraySummary",
    "GGUFFileError",
    "GGUFFormatError",
    "GGUFInfo",
    "GGUFNotAModelError",
    "GGUFPart",
    "GGUFRemoteError",
    "GGUFSplitError",
    "GGUFStringSummary",
    "GGUFTruncatedError",
    "GGUFVersionError",
    "MixModel",
    "ModelArch",
    "PlannedTensor",
    "QuantLayout",
    "TensorInfo",
    "TokenizerFacts",
    "describe",
    "guess_tokenizer",
    "mix_types",
    "quant_bits",
    "quant_layout",
    "quant_name",
    "read_gguf",
    "read_gguf_split",
    "read_gguf_url",
    "read_remote_gguf",
    "split_part_path",
    "tensor_shapes",
    "tied_embeddings",
    "tokenizer_facts",
    "weights_map_key",
]
