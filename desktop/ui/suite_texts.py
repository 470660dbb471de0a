"""The built-in prompt suites in the window's language.

A suite file's name (``chinese``, ``general-en``) is an identifier (``llm-scout compare --suite
chinese``) and its title and description are English data; the window shows the built-in ones
in its own language. A suite someone imported keeps its own words.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def _texts() -> dict[str, tuple[str, str]]:
    """Name -> (title, description), translated now (literal texts, so lupdate sees them)."""
    return {
        "chinese": (
            QCoreApplication.translate("Suites", "Chinese (reasoning, writing, knowledge)"),
            QCoreApplication.translate(
                "Suites", "Reasoning, writing and general knowledge in Simplified Chinese."
            ),
        ),
        "coding": (
            QCoreApplication.translate("Suites", "Coding"),
            QCoreApplication.translate(
                "Suites",
                "Small programming tasks: write a function, find a bug, read code, complexity.",
            ),
        ),
        "general-en": (
            QCoreApplication.translate("Suites", "General (English)"),
            QCoreApplication.translate(
                "Suites",
                "Knowledge, short reasoning, instruction following and writing in English.",
            ),
        ),
        "long-context": (
            QCoreApplication.translate("Suites", "Long context"),
            QCoreApplication.translate(
                "Suites",
                "One question over 4k, 16k and 32k tokens of generated harbour records: shows the "
                "KV cache growing and the time to first token with the length of the prompt. "
                "Needs a context of about 33k tokens for the last prompt.",
            ),
        ),
        "summarisation": (
            QCoreApplication.translate("Suites", "Summarisation"),
            QCoreApplication.translate(
                "Suites",
                "Summaries of short texts written for this suite: news, a recall notice, a "
                "meeting, an abstract, a review, an email thread.",
            ),
        ),
    }


def suite_title(name: str, title: str = "") -> str:
    """A built-in suite's title in the window's language; another suite's own title (or name)."""
    found = _texts().get(name)
    return found[0] if found is not None else (title or name)


def suite_description(name: str, description: str = "") -> str:
    """A built-in suite's description in the window's language; another suite's own."""
    found = _texts().get(name)
    return found[1] if found is not None else description


def language_name(code: str) -> str:
    """A suite's language code as words ("zh" -> Chinese); an unknown code as it is."""
    names = {
        "zh": QCoreApplication.translate("Suites", "Chinese"),
        "en": QCoreApplication.translate("Suites", "English"),
    }
    return names.get(code, code)
