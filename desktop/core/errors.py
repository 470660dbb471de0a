"""One error hierarchy for the whole core.

Core code raises these; the CLI prints ``str(error)`` as one sentence and the UI turns ``kind``
into a translated sentence. A user never sees a traceback for bad input or a lost connection.
"""

from __future__ import annotations


class ScoutError(Exception):
    """Base of every error LLM Scout raises on purpose.

    ``kind`` is a short stable identifier (``"gguf.truncated"``, ``"download.gated"``) that
    front ends may map to their own wording; the message is a plain English sentence.
    """

    kind: str = "error"

    def __init__(self, message: str, *, kind: str | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class UsageError(ScoutError):
    """Arguments that parse but make no sense together (the CLI exits with code 2)."""

    kind = "usage"


class HardwareError(ScoutError):
    kind = "hardware"


class GGUFError(ScoutError):
    """A GGUF file could not be read. ``offset`` is the byte position where reading failed."""

    kind = "gguf"

    def __init__(self, message: str, *, offset: int | None = None, kind: str | None = None) -> None:
        if offset is not None:
            message = f"{message} (at byte {offset})"
        super().__init__(message, kind=kind)
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


class Cancelled(ScoutError):
    """Work stopped because its caller asked it to (a scan, an import, a hash, a re-estimate)."""

    kind = "cancelled"
