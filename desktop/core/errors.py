"""One error hierarchy for the whole core.

Core code raises these; the CLI prints ``str(error)`` as one sentence and the UI turns ``kind``
into a translated sentence. A user never sees a traceback for bad input or a lost connection.
"""

from __future__ import annotations

import errno
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

#: Every ``kind`` the core raises or reports, with a short English title. Front ends key their
#: own (translated) wording on these; the window translates every entry, and a test checks that
#: every kind written under ``desktop/`` is listed here. Worker error kinds (the engine protocol's
#: ``ERROR_KINDS``) appear with an ``engine.`` prefix, as :class:`WorkerError` reports them.
ERROR_KINDS: Mapping[str, str] = MappingProxyType(
    {
        "error": "Something went wrong",
        "usage": "Options that do not fit together",
        "cancelled": "Stopped",
        "settings": "Settings cannot be saved",
        "store": "The database cannot be used",
        "hardware": "Hardware profile problem",
        "demo.missing": "Demo model missing",
        # GGUF files
        "gguf": "The model file cannot be read",
        "gguf.file": "The model file cannot be opened",
        "gguf.missing": "The model file is missing",
        "gguf.truncated": "The model file is incomplete",
        "gguf.format": "The file is not a valid GGUF model",
        "gguf.version": "Unsupported GGUF version",
        "gguf.not_a_model": "The GGUF file holds no model",
        "gguf.split": "A part of a split model is wrong",
        "gguf.split_missing": "A part of a split model is missing",
        "gguf.split_part": "This is not the first part of a split model",
        "gguf.remote": "The remote model file cannot be read",
        "gguf.remote.bad_name": "Not a valid model address",
        "gguf.remote.connection": "No connection to the server",
        "gguf.remote.timeout": "The server did not answer in time",
        # catalog
        "catalog": "Catalog problem",
        "catalog.invalid": "The catalog file is not valid",
        "catalog.json": "The catalog file is not valid JSON",
        "catalog.missing": "The catalog file is missing",
        "catalog.unreadable": "The catalog file cannot be read",
        "catalog.write": "The catalog cannot be saved",
        "catalog.offline": "Offline: the catalog cannot be refreshed",
        "catalog.unreachable": "The Hub cannot be reached",
        "catalog.unknown_model": "No such model in the catalog",
        "catalog.unknown_variant": "No such variant in the catalog",
        # fit
        "fit": "The estimate is not possible",
        # hub
        "hub": "Hugging Face Hub problem",
        "hub.bad_endpoint": "Not a Hub address",
        "hub.bad_name": "Not a valid repository or file name",
        # downloads
        "download": "Download failed",
        "download.busy": "Already being downloaded",
        "download.cancelled": "Download cancelled",
        "download.disk_full": "Not enough disk space",
        "download.gated": "Licence acceptance or token needed",
        "download.network": "Network error",
        "download.not_a_folder": "A file where a folder should be",
        "download.not_found": "Not found on the Hub",
        "download.offline": "Offline",
        "download.unsafe_name": "Unsafe file name refused",
        "download.verify_failed": "Checksum mismatch",
        # library
        "library": "Library problem",
        "library.copy_failed": "The file cannot be copied",
        "library.exists": "A different file with that name exists",
        "library.is_dir": "A folder, not a file",
        "library.layout": "Unexpected folder layout",
        "library.missing": "The file is missing",
        "library.newer": "The library was written by a newer version",
        "library.damaged": "The library database is damaged",
        "library.busy": "The library database is busy",
        "library.model_not_found": "Model not found",
        "library.no_models_dir": "No models folder",
        "library.not_found": "No such file",
        "library.split_incomplete": "A split model is incomplete",
        "library.split_part": "Not the first part of a split model",
        "library.unknown": "Not in the library",
        "library.unreadable": "The file cannot be read",
        "library.unsupported_format": "Not a GGUF model",
        # comparisons
        "compare": "Comparison problem",
        "compare.contestants": "A comparison takes two to six models",
        "compare.option": "A comparison setting cannot be used",
        "compare.no_room": "Not enough memory to run the models together",
        "compare.suite": "The prompt suite cannot be used",
        "compare.suite_not_found": "No such prompt suite",
        # history
        "history": "The history cannot be used",
        "history.newer": "The history was written by a newer version",
        "history.damaged": "The history database is damaged",
        "history.busy": "The history database is busy",
        "history.not_found": "Not in the history",
        # results bundles (history export / import)
        "bundle": "The results file cannot be used",
        "bundle.damaged": "The results file is damaged",
        "bundle.foreign": "Wrong kind of file",
        "bundle.newer": "The results file was written by a newer version",
        # engine (the app's side)
        "engine": "Engine problem",
        "engine.template": "Chat template problem",
        "engine.dry_run": "llama.cpp's dry run gave no projection",
        # engine (the worker's error events, as WorkerError reports them)
        "engine.not_found": "The model file does not exist",
        "engine.not_a_file": "Not a model file",
        "engine.not_gguf": "Not a GGUF file",
        "engine.truncated": "The model file is incomplete",
        "engine.unknown_architecture": "Architecture not supported by this llama.cpp",
        "engine.out_of_memory": "Not enough memory",
        "engine.load_failed": "The model could not be loaded",
        "engine.not_loaded": "No model loaded",
        "engine.busy": "The engine is busy",
        "engine.context_overflow": "The conversation is longer than the context",
        "engine.invalid_request": "The request cannot be run",
        "engine.generation_failed": "Generation failed",
        "engine.cancelled": "Loading cancelled",
        "engine.protocol": "The engine sent something unexpected",
        "engine.crashed": "The engine stopped",
        "engine.spawn_failed": "The engine could not be started",
        "engine.timeout": "The engine did not answer in time",
        "engine.engine_missing": "llama-cpp-python is missing",
        # remote engines (an OpenAI-compatible server), as WorkerError reports them
        "engine.refused": "The server cannot be reached",
        "engine.unauthorized": "The server refused the API key",
        "engine.endpoint_not_found": "Not an OpenAI-compatible address",
        "engine.model_not_found": "The server does not serve that model",
        "engine.server_error": "The server reported an error",
        "engine.malformed": "The server sent a malformed stream",
        "engine.disconnected": "The server closed the connection mid-answer",
        "engine.remote_usage": "Remote model settings cannot be used",
        "engine.quantize_failed": "llama.cpp could not quantize the file",
        # quality measurements (desktop/core/quality)
        "quality": "The quality measurement is not possible",
        "quality.text": "The evaluation text cannot be used",
        "quality.vocab_mismatch": "The reference has another vocabulary",
        "quality.pack": "The reference pack cannot be read",
        "quality.pack_tokenizer": "The reference pack is for another tokenizer",
        "quality.items": "The question files cannot be read",
        "quality.quantize_type": "Not a quantization type llama.cpp makes here",
        "quality.output": "The quantized file cannot be written",
    }
)


#: Error kinds after which the engine that ran an answer is gone or cannot serve it: the worker
#: died, broke the protocol or stopped answering; the server cannot be reached, dropped the
#: connection, sent something that is not an answer, refused the key, or lacks the model or the
#: address. They end a run (a Playground answer, a comparison's contestant): what came is kept,
#: marked, and the model must be loaded (or connected) again. Any other error ends one answer.
FATAL_KINDS: frozenset[str] = frozenset(
    {
        "engine.crashed",
        "engine.protocol",
        "engine.timeout",
        "engine.refused",
        "engine.disconnected",
        "engine.server_error",
        "engine.malformed",
        "engine.unauthorized",
        "engine.model_not_found",
        "engine.endpoint_not_found",
    }
)


def is_fatal(kind: str) -> bool:
    """Whether an error of ``kind`` ends the run (:data:`FATAL_KINDS`). A worker's or a server's
    own error events name their kind without the ``engine.`` prefix; both spellings are read."""
    return (kind if kind.startswith("engine.") else f"engine.{kind}") in FATAL_KINDS


@dataclass(frozen=True)
class Sentence:
    """An error's sentence in a form a front end can translate: a message id and named values.

    ``id`` (``"gguf.bad_magic"``) names one sentence; ``params`` fill its named placeholders
    (file names, paths, counts). The English sentence (``str(error)``) stays what the CLI prints;
    the window looks the id up in its own translated table and falls back to the English one.
    """

    id: str
    params: Mapping[str, str | int] = field(default_factory=dict)

    def __hash__(self) -> int:  # a problem row holding one is a dict key in the window
        return hash((self.id, tuple(sorted(self.params.items()))))


def os_error_name(exc: OSError) -> str:
    """The symbolic name of an OSError's errno (``"ENOSPC"``), "" when it has none: the value a
    :class:`Sentence` carries beside the English ``reason`` so a front end can word it."""
    return errno.errorcode.get(exc.errno, "") if exc.errno is not None else ""


class ScoutError(Exception):
    """Base of every error LLM Scout raises on purpose.

    ``kind`` is a short stable identifier (``"gguf.truncated"``, ``"download.gated"``) that
    front ends may map to their own wording; the message is a plain English sentence.
    ``sentence``, where given, is the same sentence as a :class:`Sentence` a front end translates.
    """

    kind: str = "error"
    sentence: Sentence | None = None

    def __init__(
        self, message: str, *, kind: str | None = None, sentence: Sentence | None = None
    ) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind
        if sentence is not None:
            self.sentence = sentence

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    @property
    def fatal(self) -> bool:
        """Whether this error ends the run it happened in (:func:`is_fatal` of its kind)."""
        return is_fatal(self.kind)


class UsageError(ScoutError):
    """Arguments that parse but make no sense together (the CLI exits with code 2)."""

    kind = "usage"


class HardwareError(ScoutError):
    kind = "hardware"


class GGUFError(ScoutError):
    """A GGUF file could not be read. ``offset`` is the byte position where reading failed
    (also the ``offset`` value of its sentence, when there is one)."""

    kind = "gguf"

    def __init__(
        self,
        message: str,
        *,
        offset: int | None = None,
        kind: str | None = None,
        sentence: Sentence | None = None,
    ) -> None:
        if offset is not None:
            message = f"{message} (at byte {offset})"
            if sentence is not None:
                sentence = Sentence(sentence.id, {**sentence.params, "offset": offset})
        super().__init__(message, kind=kind, sentence=sentence)
        self.offset = offset


class CatalogError(ScoutError):
    kind = "catalog"


class FitError(ScoutError):
    kind = "fit"


class EngineError(ScoutError):
    kind = "engine"


class DownloadError(ScoutError):
    kind = "download"


class LibraryError(ScoutError):
    kind = "library"


class StoreError(ScoutError):
    kind = "store"


class SettingsError(ScoutError):
    kind = "settings"


class HubError(ScoutError):
    """A Hub address, repository or file name that cannot be used (no network involved)."""

    kind = "hub"


class QualityError(ScoutError):
    """A quality measurement or a quantization that cannot be done (bad text, pack, items)."""

    kind = "quality"


class Cancelled(ScoutError):
    """Work stopped because its caller asked it to (a scan, an import, a hash, a re-estimate)."""

    kind = "cancelled"
