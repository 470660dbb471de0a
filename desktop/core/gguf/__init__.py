"""GGUF files: the header reader (local, split and remote), architecture facts, quant facts.

Owns everything known from a GGUF header without loading the model: metadata, tensors and their
exact bytes (:class:`GGUFInfo`), the :class:`ModelArch` the fit estimator needs (also built by
the catalog from its own numbers), and what a quant name means in bits per weight. Tensor data
is never read; a remote file is fetched by HTTP range requests only as far as its header goes.
Broken files raise a :class:`~desktop.core.errors.GGUFError` subclass with one plain sentence.
"""

from desktop.core.gguf.arch import ModelArch
from desktop.core.gguf.format import (
    MAX_KEPT_ARRAY_ITEMS,
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
from desktop.core.gguf.quants import QUANT_BITS, QUANT_TYPE_SHARE, quant_bits, quant_name
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
    "MAX_KEPT_ARRAY_ITEMS",
    "QUANT_BITS",
    "QUANT_TYPE_SHARE",
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
    "ModelArch",
    "TensorInfo",
    "describe",
    "quant_bits",
    "quant_name",
    "read_gguf",
    "read_gguf_split",
    "read_gguf_url",
    "read_remote_gguf",
    "split_part_path",
]
