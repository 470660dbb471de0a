"""Make the quants to compare: a GGUF file quantized through llama.cpp's own quantizer.

``llama_model_quantize`` runs in an engine worker (a crash or a kill takes down that process
only; it cannot be interrupted, so stopping kills the worker). It writes a temporary file next
to the output, renamed into place once complete: never a half-written model. Progress is the
share of tensors written, from llama.cpp's own log.

A file that is already quantized is quantized again (llama.cpp's ``allow_requantize``): the
result carries the first quantization's error too, so it is worse than the same type made from
the F16/BF16 original (:attr:`QuantizeResult.requantized` says so). Types whose rows must be a
multiple of 256 (the K-quants) fall back to another type on tensors that are not
(``fallback_tensors``), as llama.cpp does.

A type such as Q4_K_M or Q2_K is llama.cpp's *mix*: some tensors get more bits than the name says
(Q2_K's ffn_down is Q3_K). ``pure`` (llama-quantize's ``--pure``) gives every tensor the type
itself, or its fallback. Where most rows fall back, two mixes can hold the same tensors
(:attr:`QuantizeResult.tensor_types` counts them); a pure file still differs.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop.core.engine import EngineClient, WorkerError
from desktop.core.engine import protocol as p
from desktop.core.errors import Cancelled, GGUFError, QualityError
from desktop.core.gguf import quant_bits, read_gguf

# The file types offered, llama.cpp's LLAMA_FTYPE_MOSTLY_* numbers (llama.h), best first.
QUANT_TYPES: dict[str, int] = {
    "F16": 1,
    "BF16": 32,
    "Q8_0": 7,
    "Q6_K": 18,
    "Q5_K_M": 17,
    "Q5_K_S": 16,
    "Q5_1": 9,
    "Q5_0": 8,
    "Q4_K_M": 15,
    "Q4_K_S": 14,
    "IQ4_NL": 25,
    "IQ4_XS": 30,
    "Q4_1": 3,
    "Q4_0": 2,
    "Q3_K_L": 13,
    "Q3_K_M": 12,
    "Q3_K_S": 11,
    "IQ3_M": 27,
    "IQ3_S": 26,
    "IQ3_XS": 22,
    "Q2_K": 10,
}
# llama.cpp refuses these without an importance matrix, which this app does not make.
NEEDS_IMATRIX = ("IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M", "Q2_K_S", "IQ3_XXS")
UNQUANTIZED = ("F32", "F16", "BF16")
POLL_S = 0.1
_QUANT_TAG = re.compile(r"(?i)[-._](?:f32|f16|bf16|q\d(?:_[0-9a-z]+)*|iq\d(?:_[a-z]+)*)$")


@dataclass(frozen=True)
class QuantizeResult:
    source: Path
    output: Path
    type: str
    source_type: str | None
    source_bytes: int
    output_bytes: int
    seconds: float
    requantized: bool
    n_tensors: int
    fallback_tensors: int
    pure: bool = False
    tensor_types: tuple[tuple[str, int], ...] = ()  # (type, tensors), most first

    @property
    def lacks_its_type(self) -> bool:
        """A K-quant file none of whose tensors has the type it is named after (every row fell
        back, or the mix gave those tensors more bits): it measures like another mix."""
        base = k_base_type(self.type)
        names = {name for name, _ in self.tensor_types}
        return base is not None and bool(names) and base not in names


def quant_type(name: str) -> str:
    """The canonical name of a type the app can make (QualityError with the choices)."""
    upper = name.strip().upper()
    if upper in QUANT_TYPES:
        return upper
    if upper in NEEDS_IMATRIX:
        raise QualityError(
            f"{upper} needs an importance matrix, which this app does not make; choose "
            f"{', '.join(QUANT_TYPES)}.",
            kind="quality.quantize_type",
        )
    raise QualityError(
        f"{name} is not a type llama.cpp can make here; choose one of {', '.join(QUANT_TYPES)}.",
        kind="quality.quantize_type",
    )


def k_base_type(qtype: str) -> str | None:
    """The tensor type a K-quant mix is named after (Q4_K_M -> Q4_K); None for other types."""
    match = re.fullmatch(r"(Q\d_K)(?:_[SML])?", qtype)
    return match.group(1) if match else None


def default_output(source: Path, qtype: str, folder: Path, *, pure: bool = False) -> Path:
    """``<folder>/<source stem without its quant tag>-<TYPE>[-pure].gguf``."""
    stem = _QUANT_TAG.sub("", source.stem) or source.stem
    return folder / f"{stem}-{qtype}{'-pure' if pure else ''}.gguf"


def quantize_model(
    source: Path,
    qtype: str,
    output: Path,
    *,
    n_threads: int | None = None,
    pure: bool = False,
    on_progress: Callable[[float, str], None] | None = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> QuantizeResult:
    """Quantize ``source`` to ``qtype`` at ``output`` (which must not exist yet); ``pure``: one
    type for every tensor instead of llama.cpp's mix."""
    qtype = quant_type(qtype)
    source, output = Path(source), Path(output)
    try:
        info = read_gguf(source)
    except GGUFError as exc:
        raise QualityError(str(exc), kind=exc.kind) from exc
    if output.exists():
        raise QualityError(
            f"{output} exists already; choose another --out or delete it first.",
            kind="quality.output",
        )
    try:
        if output.resolve() == source.resolve():
            raise QualityError("The output would overwrite the source.", kind="quality.output")
        output.parent.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(output.parent).free
    except OSError as exc:
        raise QualityError(
            f"{output.parent} cannot hold the quantized file: {exc.strerror}.",
            kind="quality.output",
        ) from exc
    size = source.stat().st_size
    needed = _expected_bytes(size, source_type=info.quant, target=qtype)
    if free < needed:
        raise QualityError(
            f"{output.parent} has {free >> 20} MiB free; the {qtype} file needs about "
            f"{needed >> 20} MiB.",
            kind="quality.output",
        )
    temporary = output.with_name(f".{output.name}.part")
    temporary.unlink(missing_ok=True)
    source_type = info.quant
    client = EngineClient(on_event=_progress_relay(on_progress))
    started = time.monotonic()
    client.start()
    try:
        request = client.quantize(
            source, temporary, QUANT_TYPES[qtype], n_threads=n_threads, pure=pure
        )
        while not request.done:
            request.wait(POLL_S)
            if should_stop():
                client.kill()
                request.wait()
                raise Cancelled("The quantization was stopped; nothing was written.")
        event = request.wait()
        if isinstance(event, p.Error):
            raise WorkerError(event)
        assert isinstance(event, p.Quantized)
        _sync(temporary)
        os.replace(temporary, output)
    finally:
        client.close()
        temporary.unlink(missing_ok=True)
    return QuantizeResult(
        source=source,
        output=output,
        type=qtype,
        source_type=source_type,
        source_bytes=size,
        output_bytes=output.stat().st_size,
        seconds=time.monotonic() - started,
        requantized=(source_type or "").upper() not in UNQUANTIZED,
        n_tensors=event.n_tensors,
        fallback_tensors=event.fallback_tensors,
        pure=pure,
        tensor_types=_tensor_types(output),
    )


def _tensor_types(path: Path) -> tuple[tuple[str, int], ...]:
    """How many tensors of each type the written file holds, most first."""
    try:
        tensors = read_gguf(path).tensors
    except GGUFError:
        return ()
    return tuple(Counter(t.type_name for t in tensors).most_common())


def _expected_bytes(size: int, *, source_type: str | None, target: str) -> int:
    """About the size of the output (bits per weight of the target over the source's), with
    room to spare: K-quants fall back to wider types on small tensors."""
    source_bits = quant_bits(source_type or "") or 16.0
    target_bits = quant_bits(target) or 16.0
    return int(size * target_bits / source_bits * 1.25) + (16 << 20)


def _progress_relay(
    on_progress: Callable[[float, str], None] | None,
) -> Callable[[p.Event], None] | None:
    if on_progress is None:
        return None

    def relay(event: p.Event) -> None:
        if isinstance(event, p.QuantizeProgress):
            on_progress(event.fraction, event.tensor)

    return relay


def _sync(path: Path) -> None:
    with path.open("rb+") as f:
        os.fsync(f.fileno())
