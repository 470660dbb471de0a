"""Long documents for the long-context suite, made deterministically from a few kilobytes.

``resources/prompt_suites/long_context_source.json`` holds paragraph templates (the records of
an invented harbour town) and word lists for their slots. :func:`build_document` strings seeded
entries together until the text reaches about the number of tokens asked for, and puts the
facts a question asks about at given fractions of the way through. The same arguments always
give the same text, on every machine, so a 32k-token prompt costs nothing in the repository
and compares like with like.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from desktop.core import paths

SOURCE_FILE = "long_context_source.json"

#: English characters per token, measured on the demo models' tokenizers with this source
#: (SmolLM2's 49k vocabulary: 4.13; Gemma 3's 262k: 4.31); the smaller number is used, so a
#: document of N tokens is about N tokens, or a little fewer for the larger vocabularies.
CHARS_PER_TOKEN = 4.1

_SLOT = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Insert:
    """A sentence placed ``at`` a fraction (0 to 1) of the way through a document."""

    at: float
    text: str


@cache
def _source(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def source_path() -> Path:
    return paths.resources_dir() / "prompt_suites" / SOURCE_FILE


def estimate_tokens(text: str) -> int:
    """A token count good enough to size a context: English at :data:`CHARS_PER_TOKEN`
    characters a token, other scripts (Chinese) at about one token a character."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return int(ascii_chars / CHARS_PER_TOKEN + (len(text) - ascii_chars) * 1.0) + 1


def build_document(
    tokens: int,
    *,
    seed: int = 0,
    inserts: Sequence[Insert] = (),
    source: Path | None = None,
) -> str:
    """About ``tokens`` tokens of harbour records (see :func:`estimate_tokens`) with each
    insert's sentence at its place, as a paragraph of its own."""
    data = _source(source or source_path())
    rng = random.Random(seed)
    target_chars = int(tokens * CHARS_PER_TOKEN)
    paragraphs: Sequence[str] = data["paragraphs"]
    headings: Sequence[str] = data["headings"]
    slots: Mapping[str, Sequence[str]] = data["slots"]
    parts: list[str] = [data["title"]]
    size = len(parts[0])
    entry = 0
    deck: list[str] = []
    while size < target_chars:
        entry += 1
        values = {name: rng.choice(words) for name, words in slots.items()}
        heading = _fill(rng.choice(headings), values, rng, slots)
        if not deck:  # every paragraph once before any comes again
            deck = list(paragraphs)
            rng.shuffle(deck)
        body = _fill(deck.pop(), values, rng, slots)
        block = f"{entry}. {heading}\n\n{body}"
        parts.append(block)
        size += len(block) + 2
    placed = sorted(inserts, key=lambda i: i.at)
    body_parts = parts[1:]
    for offset, insert in enumerate(placed):
        at = min(max(insert.at, 0.0), 1.0)
        index = min(len(body_parts), round(at * (len(body_parts) - offset)) + offset)
        body_parts.insert(index, insert.text)
    return "\n\n".join([parts[0], *body_parts])


def _fill(
    template: str,
    values: Mapping[str, str],
    rng: random.Random,
    slots: Mapping[str, Sequence[str]],
) -> str:
    # A slot used twice in one paragraph reads the same both times; "name" may differ in the
    # heading and the body, which reads naturally.
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in values:
            return values[name]
        return rng.choice(slots[name]) if name in slots else match.group(0)

    return _SLOT.sub(replace, template)
