"""The Playground's transcript: what one Markdown render of a streamed answer costs as it grows.

While an answer streams, :class:`TranscriptView` renders it again as Markdown every 0.3 s. It
renders from the answer's last finished block on (the blocks before were rendered once and
kept); the alternative is rendering the whole answer so far each time (what it did before, and
still does once when the answer ends). Both are timed side by side, alternating, at growing
answer lengths, in a real view (offscreen, 700x500): GUI-thread CPU time of a render and the
repaint it causes. The ratio whole/streamed is how much more the whole render costs.

Run: ``.venv/bin/python benchmarks/ui_transcript.py [--rounds 15]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402, TID251

from benchmarks._common import median, print_markdown_table  # noqa: E402
from desktop.ui.app import make_application  # noqa: E402
from desktop.ui.widgets.transcript import TranscriptView  # noqa: E402

SECTION = (
    "## Part {n}\n\nThe keeper climbed the stairs at dusk,\nand lit the lamp for ships at sea. "
    "The wind came from the west and the glass fell all afternoon.\n\n- a rope\n- a lantern\n"
    "- a bottle with a message\n\n```python\ndef light(n):\n    return n * {n}\n```\n\n"
    "The message said that the ship would come back in spring, and that the keeper should "
    "keep the light burning until then.\n\n"
)
SECTIONS = (1, 5, 20, 60)


def _timed(app: QApplication, view: TranscriptView, *, streaming: bool) -> float:
    """GUI-thread ms of one render (streamed: from the last finished block; else all of the
    answer so far) and the repaint it causes."""
    view.append_answer(" more")  # something new, as when a render is due
    start = time.thread_time()
    if streaming:
        view.flush(force=True)
    else:
        view._render(streaming=False)  # the whole-answer render, timed alone
    app.processEvents()
    return (time.thread_time() - start) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="renders of each kind per length")
    args = parser.parse_args(argv)
    app = make_application()
    assert isinstance(app, QApplication)
    rows: list[list[object]] = []
    for sections in SECTIONS:
        view = TranscriptView()
        view.resize(700, 500)
        view.show()
        view.begin_answer("Model")
        view.append_answer("".join(SECTION.format(n=n) for n in range(sections)))
        view.flush(force=True)
        app.processEvents()
        streamed: list[float] = []
        whole: list[float] = []
        handed: list[int] = []
        for i in range(args.rounds):
            for kind in ("streamed", "whole") if i % 2 == 0 else ("whole", "streamed"):
                ms = _timed(app, view, streaming=kind == "streamed")
                (streamed if kind == "streamed" else whole).append(ms)
                if kind == "streamed":
                    handed.append(view.rendered_chars)
                view.flush(force=True)  # back to a streamed state, mark included
                app.processEvents()
        chars = len(view.answer)
        rows.append(
            [chars, max(handed), median(streamed), median(whole), median(whole) / median(streamed)]
        )
        view.close()
        view.deleteLater()
        app.processEvents()
    sys.stdout.write(
        f"ui_transcript: {args.rounds} renders of each kind per length, alternating\n\n"
    )
    print_markdown_table(
        (
            "answer chars",
            "chars handed to Qt (streamed, max)",
            "streamed render ms",
            "whole render ms",
            "whole / streamed",
        ),
        rows,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
