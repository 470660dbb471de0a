"""Why a model did not load, in one sentence a person can act on.

The worker checks the path before llama.cpp sees it (missing, a folder, not GGUF) and, when
llama.cpp refuses the file, reads the reason from the tail of llama.cpp's log, which says far
more than the exception llama-cpp-python raises ("Failed to load model from file").
"""

from __future__ import annotations

import re
from pathlib import Path

from desktop.core.errors import EngineError

GGUF_MAGIC = b"GGUF"

_UNKNOWN_ARCH = re.compile(r"unknown model architecture: '([^']*)'")
_OUT_OF_MEMORY = (
    "cannot allocate memory",
    "failed to allocate",
    "unable to allocate",
    "bad_alloc",
    "out of memory",
    "failed to mmap",
    "mmap failed",
)
_TRUNCATED = (
    "not within the file bounds",
    "failed to read",
    "unexpectedly reached end of file",
    "end of file",
)
_LOG_ERROR = re.compile(r"error loading model: (.*)")


class LoadFailure(EngineError):
    """A model file that cannot be loaded; ``kind`` is a protocol error kind."""

    kind = "load_failed"


def check_model_file(path: Path) -> None:
    """Raise :class:`LoadFailure` when ``path`` is plainly not a loadable GGUF file."""
    if not path.exists():
        raise LoadFailure(f"The model file {path} does not exist.", kind="not_found")
    if path.is_dir():
        raise LoadFailure(f"{path} is a folder, not a model file.", kind="not_a_file")
    if not path.is_file():
        raise LoadFailure(f"{path} is not a regular file.", kind="not_a_file")
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise LoadFailure(
            f"The model file {path} cannot be read: {exc.strerror or exc}.", kind="load_failed"
        ) from exc
    if magic != GGUF_MAGIC:
        if GGUF_MAGIC.startswith(magic):
            raise LoadFailure(
                f"The model file {path} is incomplete; download it again.", kind="truncated"
            )
        raise LoadFailure(f"{path} is not a GGUF model file.", kind="not_gguf")


def classify_load_failure(path: Path, n_ctx: int, exc: BaseException, log_tail: str) -> LoadFailure:
    """The failure llama.cpp's log describes (``exc`` is what llama-cpp-python raised)."""
    lowered = log_tail.lower()
    name = path.name
    arch = _UNKNOWN_ARCH.search(log_tail)
    if arch:
        return LoadFailure(
            f"This llama.cpp build does not support the model architecture '{arch.group(1)}'.",
            kind="unknown_architecture",
        )
    if isinstance(exc, MemoryError) or any(marker in lowered for marker in _OUT_OF_MEMORY):
        return LoadFailure(
            f"There is not enough memory to load {name} with a context of {n_ctx} tokens.",
            kind="out_of_memory",
        )
    if "invalid magic" in lowered:
        return LoadFailure(f"{path} is not a GGUF model file.", kind="not_gguf")
    if any(marker in lowered for marker in _TRUNCATED):
        return LoadFailure(
            f"The model file {path} is incomplete or damaged; download it again.",
            kind="truncated",
        )
    if "failed to create llama_context" in str(exc).lower():
        return LoadFailure(
            f"llama.cpp could not create a context of {n_ctx} tokens for {name}.",
            kind="load_failed",
        )
    found = _LOG_ERROR.findall(log_tail)
    reason = found[-1].strip().rstrip(".") if found else str(exc).strip().rstrip(".")
    return LoadFailure(f"llama.cpp could not load {name}: {reason}.", kind="load_failed")
