"""Logging set-up shared by the CLI and the app: a rotating file in the log dir, and stderr.

The file keeps DEBUG details for bug reports; stderr shows warnings (or everything with
``--verbose``), except those the person was already told in a sentence of their own. Secrets
never reach either: :class:`RedactingFilter` masks Hugging Face tokens.
"""

from __future__ import annotations

import logging
import logging.handlers
import re
import sys

from desktop.core import paths

LOG_FILE = "llm-scout.log"
_TOKEN_RE = re.compile(r"hf_[A-Za-z0-9]{8,}")
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is now (tests and the GUI swap it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:
        pass


class _NotToldFilter(logging.Filter):
    """Keeps off stderr a record whose sentence the person was already told (``extra={"told":
    True}``: a damaged database set aside); the log file keeps its details."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(record, "told", False)


class RedactingFilter(logging.Filter):
    """Masks anything that looks like a Hugging Face access token in a log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if _TOKEN_RE.search(message):
            record.msg = _TOKEN_RE.sub("hf_***", message)
            record.args = None
        return True


def setup_logging(verbose: bool = False, to_file: bool = True) -> None:
    """Configure the root logger once; later calls only change the stderr level."""
    root = logging.getLogger()
    root.setLevel(logging.DEBUG)
    stderr_level = logging.DEBUG if verbose else logging.WARNING
    for handler in root.handlers:
        if getattr(handler, "_scout", None) == "stderr":
            handler.setLevel(stderr_level)
            return
    redact = RedactingFilter()
    console = _StderrHandler()
    console.setLevel(stderr_level)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    console.addFilter(redact)
    console.addFilter(_NotToldFilter())
    console._scout = "stderr"  # type: ignore[attr-defined]
    root.addHandler(console)
    if to_file:
        try:
            path = paths.log_dir(ensure=True) / LOG_FILE
            file_handler = logging.handlers.RotatingFileHandler(
                path, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
            )
        except OSError:
            return  # a read-only home must not stop the app
        file_handler.setLevel(logging.DEBUG)
        file_handler.setFormatter(logging.Formatter(_FORMAT))
        file_handler.addFilter(redact)
        file_handler._scout = "file"  # type: ignore[attr-defined]
        root.addHandler(file_handler)
