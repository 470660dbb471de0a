"""Messages between the app and an engine worker, and their JSON-lines codec.

One message is one line of UTF-8 JSON: an object with ``"type"`` and the fields of the
dataclass below. Commands go to the worker on its stdin; events come back on its stdout. The
worker announces :data:`PROTOCOL_VERSION` in its first event (:class:`Ready`); a client refuses a
worker that speaks another version.

Validation happens here, where data enters: :func:`decode` checks the type of every field against
the dataclass annotations and rejects unknown types, missing or unknown fields, so code on either
side only ever sees well-formed, frozen messages.

Commands: :class:`Load`, :class:`Generate`, :class:`Cancel`, :class:`Unload`, :class:`Shutdown`,
and for quality measurements :class:`Tokenize`, :class:`Evaluate`, :class:`Quantize`.
Events: :class:`Ready`, :class:`LoadProgress`, :class:`Loaded`, :class:`Tokens`, :class:`Done`,
:class:`Error`, :class:`Log`, :class:`Tokenized`, :class:`Evaluated`, :class:`QuantizeProgress`,
:class:`Quantized`. A request ends with exactly one terminal event (:data:`TERMINAL_EVENTS`:
``loaded``, ``done``, ``tokenized``, ``evaluated``, ``quantized`` or ``error``);
``load_progress`` / ``quantize_progress`` events may come before a load's / quantization's
terminal one. Token ids and log-probabilities travel as base64 of little-endian arrays
(``desktop.core.engine.logits``), not as one JSON number each.

Versions: 1, the first; 2 added :class:`LoadProgress`; 3 added the ``context`` finish reason;
4 added ``Load.cache_type`` (the KV cache type: f16, q8_0, q4_0); 5 added ``Load.rpc_servers``
(llama.cpp RPC servers, ``HOST:PORT``, whose devices take layers); 6 added :class:`Tokenize`,
:class:`Evaluate` and :class:`Quantize` with their events; 7 added ``Quantize.pure``. A field
added with a default keeps older lines valid: a ``load`` without ``rpc_servers`` decodes as
before.
"""

from __future__ import annotations

import dataclasses
import json
import os
import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias, Union

from desktop.core.errors import EngineError
from desktop.core.kv_cache import CacheType  # the load command's cache_type (decoded by its type)

PROTOCOL_VERSION = 7

# A line longer than this is not a message (a worker gone mad, or a prompt far past any context).
MAX_LINE_BYTES = 64 * 1024 * 1024

# "length": max_tokens reached; "context": the context is full (the answer could not go on).
FinishReason = Literal["stop", "length", "context", "cancelled", "unloaded"]

# The longest context a load may ask for: llama.cpp counts positions in 32-bit signed integers
# (llama_pos), and llama-cpp-python sizes its token buffer with one; past it a context wraps
# round (2**32 became "the model's default", 2**31 a negative array length).
MAX_CTX = 2**31 - 1


def too_long_context(n_ctx: int) -> str:
    """The sentence for a context past :data:`MAX_CTX`."""
    return (
        f"A context of {n_ctx:,} tokens is more than llama.cpp can count (at most "
        f"{MAX_CTX:,}); give a context the model can use."
    )


# Error kinds a worker or client reports. Front ends map them to their own sentences.
ERROR_KINDS = frozenset(
    {
        "not_found",  # the model path does not exist
        "not_a_file",  # the model path is a directory or a special file
        "not_gguf",  # the file does not start with the GGUF magic
        "truncated",  # the file ends before its header or tensor data says it should
        "unknown_architecture",  # llama.cpp does not know general.architecture
        "out_of_memory",  # the load or a generation could not get memory
        "load_failed",  # llama.cpp refused the file for another reason
        "not_loaded",  # generate before load
        "busy",  # a second load/generate while one runs
        "context_overflow",  # the prompt does not fit the context
        "invalid_request",  # well-formed but unusable (bad template, bad parameter)
        "generation_failed",  # llama.cpp failed while decoding
        "cancelled",  # a load was cancelled
        "protocol",  # a line that is not a valid message, or a version mismatch
        "crashed",  # the worker process died (signal, OOM kill, native crash)
        "spawn_failed",  # the worker process could not be started
        "timeout",  # the worker did not answer in time
        "engine_missing",  # llama-cpp-python is not importable in the worker
        "quantize_failed",  # llama.cpp could not quantize the file (unsupported type, bad file)
    }
)


class ProtocolError(EngineError):
    """A line that is not a valid protocol message."""

    kind = "protocol"


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class ChatMessage:
    role: str  # "system", "user", "assistant"
    content: str


def chat_messages(messages: Iterable[ChatMessage | Mapping[str, str]]) -> tuple[ChatMessage, ...]:
    """Messages as the protocol carries them (``{"role": ..., "content": ...}`` mappings too)."""
    return tuple(
        m if isinstance(m, ChatMessage) else ChatMessage(m["role"], m["content"]) for m in messages
    )


@dataclass(frozen=True)
class SamplingParams:
    """How to pick tokens. ``temperature == 0`` is greedy; ``seed=None`` picks a random seed.

    ``ignore_eos`` keeps generating through end-of-generation tokens (benchmarks need exactly
    ``max_tokens``). ``max_tokens`` is cut to what the context has left after the prompt.
    """

    temperature: float = 0.8
    top_p: float = 0.95
    top_k: int = 40
    min_p: float = 0.05
    repeat_penalty: float = 1.0
    seed: int | None = None
    max_tokens: int = 256
    stop: tuple[str, ...] = ()
    ignore_eos: bool = False


# --------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class Load:
    """Load a GGUF file. ``template`` overrides the chat template: a name or a Jinja string.

    ``n_threads``/``n_threads_batch`` default (None) to the physical core count. ``cache_type``
    is the KV cache's type (K and V); a quantized one needs ``flash_attn``. ``rpc_servers``:
    llama.cpp RPC servers (``HOST:PORT``) registered before the load; their devices come first in
    llama.cpp's device list and take the offloaded layers with the local GPUs (a build with
    ``GGML_RPC=ON`` only, else the load fails with ``load_failed``).
    """

    type: ClassVar[str] = "load"
    id: str
    path: str
    n_ctx: int = 2048
    n_gpu_layers: int = 0
    n_threads: int | None = None
    n_threads_batch: int | None = None
    n_batch: int = 512
    flash_attn: bool = False
    template: str | None = None
    cache_type: CacheType = "f16"
    rpc_servers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Generate:
    """Generate from exactly one of: ``messages`` (chat, rendered with the model's template and
    ``system`` prepended), ``prompt`` (raw text) or ``prompt_tokens`` (token ids, for benchmarks).

    ``cache_prompt=False`` evaluates the whole prompt again even when the previous request shared
    a prefix (benchmarks measure prompt processing that way).
    """

    type: ClassVar[str] = "generate"
    id: str
    messages: tuple[ChatMessage, ...] = ()
    prompt: str | None = None
    prompt_tokens: tuple[int, ...] = ()
    system: str | None = None
    params: SamplingParams = field(default_factory=SamplingParams)
    cache_prompt: bool = True


@dataclass(frozen=True)
class Cancel:
    """Stop the load or generation whose request id is ``id``; unknown ids are ignored."""

    type: ClassVar[str] = "cancel"
    id: str


@dataclass(frozen=True)
class Unload:
    """Free the model (answered by ``Done`` with ``finish_reason="unloaded"``)."""

    type: ClassVar[str] = "unload"
    id: str


@dataclass(frozen=True)
class Shutdown:
    """Stop what runs (a generation ends with ``Done(cancelled)``) and exit with status 0."""

    type: ClassVar[str] = "shutdown"
    id: str


@dataclass(frozen=True)
class Tokenize:
    """Tokenize ``text`` with the loaded model: special tokens parsed, the model's BOS in front
    when ``add_bos`` and the model wants one. ``vocab_digest`` also asks for the vocabulary's
    identity (a sha256 over every token's text and attributes), which says whether two models
    mean the same thing by the same token ids."""

    type: ClassVar[str] = "tokenize"
    id: str
    text: str
    add_bos: bool = True
    vocab_digest: bool = False


@dataclass(frozen=True)
class Evaluate:
    """Evaluate ``tokens`` (base64 int32) in one pass and score the logits of positions
    ``first_output`` to ``first_output + n_outputs - 1``: each position's log-probability of
    the next token (where there is one), its top token, and on request its ``top_k`` tokens with
    their log-probabilities and the log of the mass of the rest, and the log-probabilities of
    ``gather`` (base64 int32, ``gather_width`` ids per output position) with the log of the mass
    outside them. ``keep_prefix`` reuses the KV cache for the prefix this evaluation shares with
    the previous one (multiple choice: one question, several answers)."""

    type: ClassVar[str] = "evaluate"
    id: str
    tokens: str
    first_output: int
    n_outputs: int
    top_k: int = 0
    gather: str = ""
    gather_width: int = 0
    keep_prefix: bool = False


@dataclass(frozen=True)
class Quantize:
    """Write ``source`` quantized to llama.cpp file type ``ftype`` (``LLAMA_FTYPE_*``) at
    ``output`` through ``llama_model_quantize``. ``allow_requantize`` lets already quantized
    tensors be quantized again (worse than quantizing from F16/BF16). ``pure`` is llama.cpp's
    ``--pure``: every tensor gets ``ftype``'s base type (or its fallback), no K-quant mix. Needs
    no loaded model."""

    type: ClassVar[str] = "quantize"
    id: str
    source: str
    output: str
    ftype: int
    allow_requantize: bool = True
    n_threads: int | None = None
    pure: bool = False


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Ready:
    """First line a worker writes. ``gpu_offload`` says whether this llama.cpp build can offload."""

    type: ClassVar[str] = "ready"
    protocol_version: int
    pid: int
    llama_cpp_version: str
    gpu_offload: bool
    physical_cores: int
    system_info: str = ""


@dataclass(frozen=True)
class LoadProgress:
    """How far llama.cpp has got loading the model of load request ``id``: ``fraction`` of the
    weights, 0 to 1, never decreasing within one load. Not terminal. The worker throttles them
    (a new value once it is 2 points past the last one sent or 50 ms after it) and, when the
    load succeeds, always sends 1.0 before ``loaded``."""

    type: ClassVar[str] = "load_progress"
    id: str
    fraction: float

    def __post_init__(self) -> None:
        if not 0.0 <= self.fraction <= 1.0:  # also refuses NaN
            raise ProtocolError(f"load_progress.fraction must be 0 to 1, not {self.fraction}.")


@dataclass(frozen=True)
class Loaded:
    """The model is loaded. ``n_gpu_layers`` is what llama.cpp was given (0 without offload);
    ``n_gpu_layers_requested`` what the command asked for."""

    type: ClassVar[str] = "loaded"
    id: str
    load_ms: float
    path: str
    architecture: str
    description: str
    n_params: int
    model_size_bytes: int
    n_layer: int
    n_ctx: int
    n_ctx_train: int
    n_vocab: int
    n_threads: int
    n_threads_batch: int
    n_gpu_layers: int
    n_gpu_layers_requested: int
    gpu_offload: bool
    template_name: str | None = None
    template_source: str | None = None
    has_bos: bool = True


@dataclass(frozen=True)
class Tokens:
    """``n_tokens`` new tokens and their text (whole UTF-8 characters only; may be empty while a
    character is incomplete or text is held back because it may start a stop string)."""

    type: ClassVar[str] = "tokens"
    id: str
    text: str
    n_tokens: int


@dataclass(frozen=True)
class Done:
    """A request finished. Timings come from llama.cpp (``prompt_eval_ms``, ``eval_ms``: decode
    time only, like llama-bench) and from the worker's clock (``first_token_ms``: command read to
    first token sampled; ``total_ms``)."""

    type: ClassVar[str] = "done"
    id: str
    finish_reason: FinishReason
    prompt_tokens: int = 0
    generated_tokens: int = 0
    prompt_eval_ms: float = 0.0
    eval_ms: float = 0.0
    first_token_ms: float | None = None
    total_ms: float = 0.0
    cached_prompt_tokens: int = 0


@dataclass(frozen=True)
class Error:
    """Something failed. ``id`` is the request it ends (None: the worker as a whole).
    ``detail`` carries the tail of llama.cpp's log where it helps (kept out of ``message``)."""

    type: ClassVar[str] = "error"
    id: str | None
    kind: str
    message: str
    detail: str = ""


@dataclass(frozen=True)
class Tokenized:
    """The tokens of a ``tokenize`` request (base64 int32) and, when asked, the vocabulary's
    digest. ``n_vocab`` is the model's vocabulary size."""

    type: ClassVar[str] = "tokenized"
    id: str
    tokens: str
    n_tokens: int
    n_vocab: int
    vocab_digest: str = ""


@dataclass(frozen=True)
class Evaluated:
    """The scores of an ``evaluate`` request: ``data`` is base64 of the arrays laid out by
    ``desktop.core.engine.logits`` for ``n_outputs`` positions. ``n_evaluated`` tokens were
    decoded (the rest came from the KV cache); ``decode_ms`` is llama.cpp's time, ``total_ms``
    includes scoring the logits."""

    type: ClassVar[str] = "evaluated"
    id: str
    n_tokens: int
    n_evaluated: int
    n_outputs: int
    top_k: int
    gather_width: int
    data: str
    decode_ms: float
    total_ms: float


@dataclass(frozen=True)
class QuantizeProgress:
    """How far a ``quantize`` request has got: ``fraction`` of the tensors written (0 to 1),
    ``tensor`` the one llama.cpp is at. Not terminal."""

    type: ClassVar[str] = "quantize_progress"
    id: str
    fraction: float
    tensor: str = ""

    def __post_init__(self) -> None:
        if not 0.0 <= self.fraction <= 1.0:
            raise ProtocolError(f"quantize_progress.fraction must be 0 to 1, not {self.fraction}.")


@dataclass(frozen=True)
class Quantized:
    """A ``quantize`` request finished: the file at ``output`` is complete. ``fallback_tensors``
    of ``n_tensors`` could not take the asked type (rows not a multiple of the type's block) and
    got llama.cpp's fallback type."""

    type: ClassVar[str] = "quantized"
    id: str
    output: str
    source_bytes: int
    output_bytes: int
    elapsed_ms: float
    n_tensors: int = 0
    fallback_tensors: int = 0


@dataclass(frozen=True)
class Log:
    type: ClassVar[str] = "log"
    level: Literal["debug", "info", "warning", "error"]
    message: str


Command: TypeAlias = Load | Generate | Cancel | Unload | Shutdown | Tokenize | Evaluate | Quantize
Event: TypeAlias = (
    Ready
    | LoadProgress
    | Loaded
    | Tokens
    | Done
    | Error
    | Log
    | Tokenized
    | Evaluated
    | QuantizeProgress
    | Quantized
)
Message: TypeAlias = Command | Event

COMMAND_TYPES: tuple[type[Any], ...] = (
    *(Load, Generate, Cancel, Unload, Shutdown),
    *(Tokenize, Evaluate, Quantize),
)
EVENT_TYPES: tuple[type[Any], ...] = (
    *(Ready, LoadProgress, Loaded, Tokens, Done, Error, Log),
    *(Tokenized, Evaluated, QuantizeProgress, Quantized),
)
_BY_NAME: dict[str, type[Any]] = {cls.type: cls for cls in COMMAND_TYPES + EVENT_TYPES}
TERMINAL_EVENTS: tuple[type[Any], ...] = (Loaded, Done, Error, Tokenized, Evaluated, Quantized)


# --------------------------------------------------------------------------- codec


def to_dict(message: Message) -> dict[str, Any]:
    """The JSON object of a message (tuples become lists, nested values become objects)."""
    data: dict[str, Any] = {"type": message.type}
    for f in dataclasses.fields(message):
        data[f.name] = _plain(getattr(message, f.name))
    return data


def encode(message: Message) -> bytes:
    """One protocol line: compact JSON, UTF-8, ending in ``\\n``."""
    text = json.dumps(to_dict(message), ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8") + b"\n"


def decode(line: bytes | str) -> Message:
    """Parse and validate one line; raise :class:`ProtocolError` with a one-sentence reason."""
    if isinstance(line, bytes):
        if len(line) > MAX_LINE_BYTES:
            raise ProtocolError(f"A protocol line of {len(line)} bytes is too long.")
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError("A protocol line is not valid UTF-8.") from exc
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"A protocol line is not JSON: {_preview(line)}") from exc
    if not isinstance(data, dict):
        raise ProtocolError(f"A protocol line is not a JSON object: {_preview(line)}")
    return from_dict(data)


def from_dict(data: dict[str, Any]) -> Message:
    kind = data.get("type")
    cls = _BY_NAME.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ProtocolError(f"Unknown protocol message type {kind!r}.")
    value = _build(cls, data, where=str(kind), skip=("type",))
    return typing.cast(Message, value)


def _build(cls: type[Any], data: Any, *, where: str, skip: tuple[str, ...] = ()) -> Any:
    if not isinstance(data, dict):
        raise ProtocolError(f"{where} must be a JSON object.")
    hints = _hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = set(data) - known - set(skip)
    if unknown:
        raise ProtocolError(f"{where} has unknown fields: {', '.join(sorted(unknown))}.")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            if required:
                raise ProtocolError(f"{where} lacks the field {f.name!r}.")
            continue
        kwargs[f.name] = _check(hints[f.name], data[f.name], where=f"{where}.{f.name}")
    return cls(**kwargs)


def _check(tp: Any, value: Any, *, where: str) -> Any:
    """Return ``value`` converted to ``tp`` (lists to tuples, objects to dataclasses) or raise."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None:
            if type(None) in args:
                return None
            raise ProtocolError(f"{where} must not be null.")
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _check(arg, value, where=where)
            except ProtocolError:
                continue
        raise ProtocolError(f"{where} has the wrong type.")
    if origin is Literal:
        if value not in typing.get_args(tp):
            raise ProtocolError(f"{where} must be one of {typing.get_args(tp)}.")
        return value
    if origin is tuple:
        if not isinstance(value, list):
            raise ProtocolError(f"{where} must be a list.")
        (item_type, _ellipsis) = typing.get_args(tp)
        return tuple(_check(item_type, item, where=f"{where}[{i}]") for i, item in enumerate(value))
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _build(tp, value, where=where)
    if tp is bool:
        if not isinstance(value, bool):
            raise ProtocolError(f"{where} must be true or false.")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProtocolError(f"{where} must be an integer.")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ProtocolError(f"{where} must be a number.")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ProtocolError(f"{where} must be a string.")
        return value
    raise ProtocolError(f"{where} has a type the protocol cannot carry.")  # pragma: no cover


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = hints
    return hints


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def _preview(text: str, limit: int = 80) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def read_lines(fd: int) -> Iterator[bytes]:
    """Lines from a raw descriptor (a pipe), each read taking whatever has arrived: one system
    call per burst of lines, not one per byte as ``readline`` on an unbuffered pipe does.
    Unbuffered: a daemon thread blocked in a buffered ``readline`` holds the buffer's lock and
    makes interpreter shutdown abort the process. A line longer than :data:`MAX_LINE_BYTES`
    comes out cut (``decode`` rejects it). Linear in the bytes read, however long a line."""
    parts: list[bytes] = []  # the line being read, in the chunks it came in
    held = 0
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            if parts:
                yield b"".join(parts)
            return
        if b"\n" not in chunk:
            parts.append(chunk)
            held += len(chunk)
            if held > MAX_LINE_BYTES:
                yield b"".join(parts)  # too long: decode() rejects it
                parts, held = [], 0
            continue
        parts.append(chunk)
        data = b"".join(parts)
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            yield data[start : end + 1]
            start = end + 1
        rest = data[start:]
        parts, held = ([rest], len(rest)) if rest else ([], 0)
