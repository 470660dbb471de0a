"""A conversation saved as Markdown or JSON, with its settings and metrics.

The documents are the engine's own (:meth:`~desktop.core.engine.Conversation.to_markdown` and
:meth:`~desktop.core.engine.Conversation.to_dict`, the same as ``llm-scout run --chat``'s
``/save``): the load and sampling settings, and every turn with its ``RunReport`` figures. The
JSON document adds what the window knows besides: the model's label, the hardware profile and
the fit for the settings the model ran with. Files are written atomically.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from desktop.core.engine import Conversation
from desktop.core.fit import FitResult


def transcript_document(
    conversation: Conversation, *, label: str, profile: str, fit: FitResult | None
) -> dict[str, Any]:
    """The JSON transcript."""
    data = conversation.to_dict()
    data["label"] = label
    data["profile"] = profile
    data["fit"] = fit.to_dict() if fit is not None else None
    return data


def write_transcript(
    path: Path,
    conversation: Conversation,
    *,
    title: str,
    label: str,
    profile: str,
    fit: FitResult | None,
) -> None:
    """``.json``: the JSON document; anything else: Markdown. OSError when it cannot be
    written (no half-written file is left)."""
    if path.suffix.lower() == ".json":
        document = transcript_document(conversation, label=label, profile=profile, fit=fit)
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    else:
        text = conversation.to_markdown(title)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
