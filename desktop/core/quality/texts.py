"""The fixed texts logits are evaluated on, and how a text is cut into chunks.

Two texts ship with the app (``resources/quality/texts/``, written for the project and
dedicated to the public domain, see the LICENSE there): ``en`` (English) and ``zh``
(Simplified Chinese), each 2,000-4,000 tokens for common tokenizers. A person may use any UTF-8
text file instead.

Chunks follow llama.cpp's ``llama-perplexity``: a chunk is ``ctx`` tokens, its first half is
context only and the logits of its second half are scored (each predicting the next token), and
when the model wants a BOS token the chunk's first token becomes BOS. Chunks start every half
``ctx``, so their scored halves tile the text after its first half chunk and no token is scored
twice.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from desktop.core.errors import QualityError
from desktop.core.paths import resources_dir

TEXTS_DIR = ("quality", "texts")
BUILTIN_TEXTS = {"en": "English", "zh": "Chinese"}
MIN_CTX = 16
MAX_TEXT_BYTES = 64 << 20


@dataclass(frozen=True)
class EvalText:
    """A text to evaluate: ``name`` is a built-in key (``en``, ``zh``) or the file's path."""

    name: str
    title: str
    text: str
    sha256: str
    builtin: bool


def texts_dir() -> Path:
    return resources_dir().joinpath(*TEXTS_DIR)


def builtin_text(name: str) -> EvalText:
    """One of the shipped texts (QualityError for an unknown name)."""
    if name not in BUILTIN_TEXTS:
        choices = ", ".join(BUILTIN_TEXTS)
        raise QualityError(
            f"There is no built-in text {name!r}; choose {choices} or a file.", kind="quality.text"
        )
    path = texts_dir() / f"{name}.txt"
    text = _read(path)
    return EvalText(name, BUILTIN_TEXTS[name], text, _digest(text), True)


def load_text(name_or_path: str | Path) -> EvalText:
    """A built-in text by key, else a UTF-8 text file (QualityError with one sentence)."""
    if isinstance(name_or_path, str) and name_or_path in BUILTIN_TEXTS:
        return builtin_text(name_or_path)
    path = Path(name_or_path).expanduser()
    text = _read(path)
    if not text.strip():
        raise QualityError(f"{path} is empty.", kind="quality.text")
    return EvalText(str(path), path.name, text, _digest(text), False)


def _read(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_TEXT_BYTES:
            raise QualityError(
                f"{path} is larger than {MAX_TEXT_BYTES >> 20} MiB; use a shorter text.",
                kind="quality.text",
            )
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise QualityError(f"There is no text file {path}.", kind="quality.text") from None
    except IsADirectoryError:
        raise QualityError(f"{path} is a folder, not a text file.", kind="quality.text") from None
    except UnicodeDecodeError:
        raise QualityError(f"{path} is not UTF-8 text.", kind="quality.text") from None
    except OSError as exc:
        raise QualityError(f"{path} cannot be read: {exc.strerror}.", kind="quality.text") from exc


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, eq=False)
class ChunkPlan:
    """The chunks of one tokenized text: ``tokens`` has shape ``(n_chunks, ctx)``; in each
    chunk the positions ``first_output`` .. ``ctx - 2`` are scored (``n_outputs`` of them),
    each predicting the token after it."""

    tokens: npt.NDArray[np.int32]
    ctx: int
    text_tokens: int

    @property
    def n_chunks(self) -> int:
        return int(self.tokens.shape[0])

    @property
    def first_output(self) -> int:
        return self.ctx // 2 - 1

    @property
    def n_outputs(self) -> int:
        return self.ctx - 1 - self.first_output

    @property
    def scored_tokens(self) -> int:
        return self.n_chunks * self.n_outputs


def check_ctx(ctx: int) -> None:
    if ctx < MIN_CTX or ctx % 2:
        raise QualityError(
            f"The chunk length must be an even number of tokens, at least {MIN_CTX} (not {ctx}).",
            kind="quality.text",
        )


def plan_chunks(tokens: npt.ArrayLike, ctx: int, bos: int | None, *, title: str) -> ChunkPlan:
    """Cut a tokenized text into chunks of ``ctx`` tokens every ``ctx / 2`` tokens; ``bos``
    (when the model wants one) replaces each chunk's first token. A text shorter than one
    chunk is refused with one sentence."""
    check_ctx(ctx)
    ids = np.asarray(tokens, dtype=np.int32)
    if bos is not None and ids.size and ids[0] == bos:
        ids = ids[1:]  # the tokenizer's own BOS; each chunk gets one below
    stride = ctx // 2
    if ids.size < ctx:
        raise QualityError(
            f"{title} is {ids.size} tokens long for this model, shorter than one chunk of "
            f"{ctx} tokens; use a longer text or a smaller chunk length.",
            kind="quality.text",
        )
    n_chunks = (ids.size - ctx) // stride + 1
    starts = np.arange(n_chunks) * stride
    chunks = ids[starts[:, None] + np.arange(ctx)[None, :]].copy()
    if bos is not None:
        chunks[:, 0] = bos
    return ChunkPlan(chunks, ctx, int(ids.size))
