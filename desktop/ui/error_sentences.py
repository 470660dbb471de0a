"""The core's error sentences in the window's language, by id.

The core writes each error's sentence in English (what the CLI prints) and, for the errors a
person meets in the Library and when a model file is read, also as an id with named values. This
table holds those sentences in the window's language, written out literally so that
``pyside6-lupdate`` finds each text; ``{name}``-style placeholders are filled after translation
(:func:`sentence_text`). A test checks that every id the core raises has its line here.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication

from desktop.core.errors import ScoutError, Sentence
from desktop.ui import format as fmt

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def sentence_templates() -> dict[str, str]:
    """Sentence id -> template in the UI language."""
    return {
        # GGUF files (desktop/core/gguf)
        "gguf.bad_magic": QCoreApplication.translate(
            "ErrorSentences", '{name} is not a GGUF file: it starts with "{found}" instead of GGUF'
        ),
        "gguf.bad_magic_bytes": QCoreApplication.translate(
            "ErrorSentences",
            "{name} is not a GGUF file: it starts with the bytes {found} instead of GGUF",
        ),
        "gguf.empty": QCoreApplication.translate("ErrorSentences", "{name} is empty (0 bytes)"),
        "gguf.truncated": QCoreApplication.translate(
            "ErrorSentences",
            "{name} is cut short: it ends at byte {end}, before its header is complete",
        ),
        "gguf.truncated_data": QCoreApplication.translate(
            "ErrorSentences",
            "{name} is cut short: the data of tensor {tensor} would end at byte {end} but the "
            "file has only {size} bytes",
        ),
        "gguf.corrupt": QCoreApplication.translate(
            "ErrorSentences", "{name} is damaged: its GGUF header breaks the format"
        ),
        "gguf.unknown_tensor_type": QCoreApplication.translate(
            "ErrorSentences",
            "{name} uses tensor type {type} for {tensor}, which this version of the gguf "
            "package does not know",
        ),
        "gguf.tensor_overlap": QCoreApplication.translate(
            "ErrorSentences",
            "{name} is damaged: the data of tensor {tensor} overlaps the one before it, which "
            "llama.cpp refuses",
        ),
        "gguf.tensor_gap": QCoreApplication.translate(
            "ErrorSentences",
            "{name} is damaged: the data of tensor {tensor} leaves a gap after the one before "
            "it, which llama.cpp refuses",
        ),
        "gguf.version_1": QCoreApplication.translate(
            "ErrorSentences", "{name} uses GGUF version 1, which llama.cpp no longer reads"
        ),
        "gguf.version": QCoreApplication.translate(
            "ErrorSentences", "{name} uses unknown GGUF version {version} (known: 2 and 3)"
        ),
        "gguf.no_entry": QCoreApplication.translate(
            "ErrorSentences", "{name} is not a language model file: it has no {key} entry"
        ),
        "gguf.bad_entry": QCoreApplication.translate(
            "ErrorSentences", "{name} has a value under {key} that a model cannot have"
        ),
        "gguf.missing": QCoreApplication.translate("ErrorSentences", "There is no file at {path}"),
        "gguf.is_dir": QCoreApplication.translate(
            "ErrorSentences", "{path} is a folder, not a GGUF file"
        ),
        "gguf.not_regular": QCoreApplication.translate(
            "ErrorSentences", "{path} is not a regular file"
        ),
        "gguf.permission": QCoreApplication.translate(
            "ErrorSentences", "{path} cannot be read: permission denied"
        ),
        "gguf.unreadable": QCoreApplication.translate(
            "ErrorSentences", "{path} cannot be read: {reason}"
        ),
        "gguf.split_part": QCoreApplication.translate(
            "ErrorSentences",
            "{name} is part {number} of {count} of a split model; read its first part",
        ),
        "gguf.split_name": QCoreApplication.translate(
            "ErrorSentences",
            "{name} is the first of {count} parts of a split model, but its name does not end "
            "in {suffix}, so its other parts cannot be found",
        ),
        "gguf.split_missing": QCoreApplication.translate(
            "ErrorSentences", "The split model {name} has {count} parts but {part} is missing"
        ),
        "gguf.split_wrong_part": QCoreApplication.translate(
            "ErrorSentences",
            "{part} should be part {index} of {count} of {name}, but its header says part "
            "{said_number} of {said_count}",
        ),
        "gguf.split_not_a_part": QCoreApplication.translate(
            "ErrorSentences",
            "{part} should be part {index} of {count} of {name}, but its header says nothing "
            "about being a part",
        ),
        "gguf.split_tensor_twice": QCoreApplication.translate(
            "ErrorSentences",
            "The split model {name} holds the tensor {tensor} twice (again in {part})",
        ),
        "gguf.split_tensor_count": QCoreApplication.translate(
            "ErrorSentences",
            "The split model {name} should hold {expected} tensors in all, but its {count} "
            "parts hold {found}",
        ),
        # the library (desktop/core/library)
        "library.split_part": QCoreApplication.translate(
            "ErrorSentences", "{name} is part {number} of a split model; import its first part."
        ),
        "library.split_incomplete": QCoreApplication.translate(
            "ErrorSentences", "The split model {name} is incomplete: {part} is missing."
        ),
        "library.mkdir_failed": QCoreApplication.translate(
            "ErrorSentences", "Cannot create the folder {folder}: {reason}."
        ),
        "library.exists": QCoreApplication.translate(
            "ErrorSentences", "A different file named {name} is already in {folder}."
        ),
        "library.copy_failed": QCoreApplication.translate(
            "ErrorSentences", "Copying {name} to {folder} failed: {reason}."
        ),
        "library.copy_disk_full": QCoreApplication.translate(
            "ErrorSentences", "Copying {name} to {folder} failed: there is not enough disk space."
        ),
        "library.no_models_dir": QCoreApplication.translate(
            "ErrorSentences", "This library was opened without a models folder to copy into."
        ),
        "library.not_found": QCoreApplication.translate(
            "ErrorSentences", "There is no file at {path}."
        ),
        "library.is_dir": QCoreApplication.translate(
            "ErrorSentences",
            "{path} is a folder; add folders with Add folder… (or `llm-scout library --add`).",
        ),
        "library.unreadable": QCoreApplication.translate(
            "ErrorSentences", "{path} cannot be read: {reason}."
        ),
        "library.delete_failed": QCoreApplication.translate(
            "ErrorSentences", "{path} cannot be deleted: {reason}."
        ),
        "library.unknown": QCoreApplication.translate(
            "ErrorSentences", "{path} is not in the library."
        ),
        "library.missing": QCoreApplication.translate(
            "ErrorSentences", "{path} is missing: {reason}."
        ),
        "library.unusable": QCoreApplication.translate(
            "ErrorSentences", "{path} is no longer a usable GGUF model."
        ),
        "library.unsupported_format": QCoreApplication.translate(
            "ErrorSentences", "{variant} is an {format} variant; llama.cpp runs GGUF files only."
        ),
        "library.not_downloaded": QCoreApplication.translate(
            "ErrorSentences",
            "{name} was not downloaded by LLM Scout into {folder}, so the app does not delete "
            "it; it can only be forgotten.",
        ),
        "library.split_parts_missing": QCoreApplication.translate(
            "ErrorSentences",
            "The split model {name} has {count} parts but part {parts} is missing.",
        ),
        "library.dangling_link": QCoreApplication.translate(
            "ErrorSentences", "The file {path} is a link to a file that no longer exists."
        ),
        "library.not_regular": QCoreApplication.translate(
            "ErrorSentences", "{path} is not a regular file."
        ),
        "library.ollama_blob_missing": QCoreApplication.translate(
            "ErrorSentences", "The Ollama model {name} points at a blob that is missing."
        ),
        "library.ollama_manifest_unreadable": QCoreApplication.translate(
            "ErrorSentences", "The Ollama manifest {path} cannot be read."
        ),
        "library.ollama_manifest_no_layers": QCoreApplication.translate(
            "ErrorSentences", "The Ollama manifest {path} has no list of layers."
        ),
        "library.ollama_manifest_bad_digest": QCoreApplication.translate(
            "ErrorSentences", "The Ollama manifest {path} has an invalid model digest."
        ),
        # the databases (desktop/core/storage)
        "store.busy": QCoreApplication.translate(
            "ErrorSentences",
            "The {store} database {path} is busy: another program holds it; try again in a moment.",
        ),
        "store.damaged_in_use": QCoreApplication.translate(
            "ErrorSentences",
            "The {store} database {path} is damaged, and another LLM Scout process still has "
            "it open: close it, then try again.",
        ),
        "store.damaged_stuck": QCoreApplication.translate(
            "ErrorSentences",
            "The {store} database {path} is damaged and cannot be moved aside: {reason}.",
        ),
        "store.still_damaged": QCoreApplication.translate(
            "ErrorSentences", "The {store} database {path} is still damaged after it was replaced."
        ),
        "store.newer": QCoreApplication.translate(
            "ErrorSentences",
            "The {store} database was written by a newer LLM Scout (schema {version}, this "
            "version knows {known}); update the app or move the file away.",
        ),
    }


_cache: tuple[str, dict[str, str]] | None = None


def _templates() -> dict[str, str]:
    """:func:`sentence_templates`, built once per language (a table of problem rows asks for
    a sentence once per cell)."""
    global _cache  # noqa: PLW0603  # one cache per process and language
    language = QCoreApplication.translate("ErrorSentences", "library")
    if _cache is None or _cache[0] != language:
        _cache = (language, sentence_templates())
    return _cache[1]


def _translating() -> bool:
    """Whether a translation of these sentences is installed (the window is not in English)."""
    return QCoreApplication.translate("ErrorSentences", "library") != "library"


def _os_reasons() -> dict[str, str]:
    """An OSError's reason by its errno name (the ``errno`` value beside ``reason``): the
    common ones; any other keeps the system's own words."""
    denied = QCoreApplication.translate("ErrorSentences", "permission denied")
    full = QCoreApplication.translate("ErrorSentences", "there is not enough disk space")
    return {
        "ENOENT": QCoreApplication.translate("ErrorSentences", "no such file or folder"),
        "EACCES": denied,
        "EPERM": denied,
        "ENOSPC": full,
        "EDQUOT": full,
        "EROFS": QCoreApplication.translate("ErrorSentences", "the file system is read-only"),
        "EIO": QCoreApplication.translate("ErrorSentences", "an input/output error"),
        "EISDIR": QCoreApplication.translate("ErrorSentences", "it is a folder"),
        "ENOTDIR": QCoreApplication.translate(
            "ErrorSentences", "a part of the path is not a folder"
        ),
        "EBUSY": QCoreApplication.translate("ErrorSentences", "the device or file is busy"),
        "ENAMETOOLONG": QCoreApplication.translate("ErrorSentences", "the file name is too long"),
        "ELOOP": QCoreApplication.translate("ErrorSentences", "too many levels of links"),
    }


def _store_names() -> dict[str, str]:
    return {
        "library": QCoreApplication.translate("ErrorSentences", "library"),
        "history": QCoreApplication.translate("ErrorSentences", "history"),
    }


def sentence_text(error: ScoutError) -> str:
    """The error's sentence in the UI language (:func:`translated`)."""
    return translated(error.sentence, error.message)


def translated(sentence: Sentence | None, english: str) -> str:
    """``sentence`` in the UI language, filled in (whole numbers as the locale writes them);
    ``english``, the core's own sentence, where there is no sentence or no template for it, and
    whenever no translation is installed (the window in English says what the CLI says, with
    every specific the core wrote)."""
    if sentence is None or not _translating():
        return english
    template = _templates().get(sentence.id)
    if template is None:
        return english
    shown: dict[str, str] = {}
    stores = _store_names()
    for key, value in sentence.params.items():
        if isinstance(value, int):
            shown[key] = fmt.integer(value)
        else:
            shown[key] = stores.get(value, value) if key == "store" else str(value)
    reason = _os_reasons().get(str(sentence.params.get("errno", "")))
    if reason is not None and "reason" in shown:
        shown["reason"] = reason  # the operating system's words, in the window's language
    # One pass, so that a value holding "{...}" (a file name) is never filled in again.
    text = _PLACEHOLDER.sub(lambda m: shown.get(m.group(1), m.group(0)), template)
    offset = sentence.params.get("offset")
    if isinstance(offset, int) and "{offset}" not in template:
        text += QCoreApplication.translate("ErrorSentences", " (at byte %1)").replace(
            "%1", str(offset)
        )
    return text
