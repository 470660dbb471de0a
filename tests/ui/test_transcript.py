"""TranscriptView: a streamed answer rendered as Markdown, block by block.

Real ``QTextBrowser`` widgets offscreen: a long answer streamed in small pieces is rendered
from its last finished block on (what Qt is handed stays small however long the answer grows),
every render shows the same blocks, with the same formats, as rendering all the text at once,
and an answer that opens with a heading or a list keeps that block's format.
"""

from __future__ import annotations

from PySide6.QtGui import QTextDocument
from pytestqt.qtbot import QtBot

from desktop.ui.widgets.transcript import CURSOR_MARK, TranscriptView, stable_split

# Headings, loose and tight lists, an ordered list, code with a blank line inside, a quote, a
# table, a poem whose lines are kept: the blocks a chat model writes.
SECTION = """## Part {n}

The keeper climbed the stairs at dusk,
and lit the lamp for ships at sea.

- a rope
- a lantern

1. first the oil

2. then the wick
   with a second paragraph

```python
def light(n):

    return n * {n}
```

> The sea was grey.

| day | ships |
|---|---|
| {n} | 3 |

"""


def _blocks(document: QTextDocument) -> list[tuple[str, int, bool, float, float, bool]]:
    """Each block's text and what makes it look as it does."""
    out = []
    block = document.begin()
    while block.isValid():
        fmt = block.blockFormat()
        it = block.begin()
        fixed = not it.atEnd() and it.fragment().charFormat().fontFixedPitch()
        out.append(
            (
                block.text(),
                fmt.headingLevel(),
                block.textList() is not None,
                fmt.topMargin(),
                fmt.bottomMargin(),
                fixed,
            )
        )
        block = block.next()
    return out


def _whole(qtbot: QtBot, text: str, *, streaming: bool) -> TranscriptView:
    """``text`` handed to a fresh view at once (the reference)."""
    view = TranscriptView()
    qtbot.addWidget(view)
    view.begin_answer("Model")
    view.append_answer(text)
    if streaming:
        view.flush(force=True)
    else:
        view.end_answer()
    return view


def test_the_split_is_after_a_finished_block_only() -> None:
    assert stable_split("one\n\ntwo\n") == len("one\n\n")
    assert stable_split("one\n\ntwo") == 0  # the next line may still grow into a list item
    assert stable_split("- a\n\n- b\n") == 0  # a loose list goes on
    assert stable_split("- a\n\n  more of a\n") == 0  # the item's second paragraph
    assert stable_split("```\nx = 1\n\ny = 2\n```\n") == 0  # a blank line inside code
    text = "```\nx = 1\n\ny = 2\n```\n\nAfter.\n"
    assert stable_split(text) == text.index("After.")
    text = "one\n\ntwo\n\nthree\n"
    assert stable_split(text) == text.index("three")
    assert stable_split(text, text.index("three")) == text.index("three")  # nothing new
    assert stable_split("one\r\n\r\ntwo\r\n") == len("one\r\n\r\n")
    assert stable_split("one\n\x0ctwo\n") == 0  # a form feed is no line break in Markdown


def test_a_long_streamed_answer_renders_only_its_last_blocks_and_looks_the_same(
    qtbot: QtBot,
) -> None:
    answer = "".join(SECTION.format(n=n) for n in range(12))
    view = TranscriptView()
    qtbot.addWidget(view)
    view.begin_answer("Model")
    sizes = []
    for start in range(0, len(answer), 37):  # pieces that cut lines and fences anywhere
        view.append_answer(answer[start : start + 37])
        assert view.flush(force=True)
        sizes.append(view.rendered_chars)
        so_far = answer[: start + 37]
        reference = _whole(qtbot, so_far, streaming=True)
        assert _blocks(view.document()) == _blocks(reference.document()), so_far[-60:]
    # Each render handed Qt about one section at most, not the answer so far.
    assert max(sizes[len(sizes) // 2 :]) < 2 * len(SECTION) < len(answer) / 5
    view.end_answer("footer")
    reference = _whole(qtbot, answer, streaming=False)
    reference.add_note("footer")
    assert CURSOR_MARK not in view.toPlainText()
    assert _blocks(view.document())[:-1] == _blocks(reference.document())[:-1]


def test_an_answer_that_opens_with_a_heading_or_a_list_keeps_its_format(qtbot: QtBot) -> None:
    view = _whole(qtbot, "# Title\n\nText.", streaming=False)
    title = [b for b in _blocks(view.document()) if b[0] == "Title"]
    assert len(title) == 1
    assert title[0][1] == 1  # a level-1 heading, not a paragraph in a big font
    view = _whole(qtbot, "1. first\n2. second\n", streaming=False)
    first = [b for b in _blocks(view.document()) if b[0] == "first"]
    assert len(first) == 1
    assert first[0][2]  # a list item, with its number


def test_an_empty_answer_leaves_nothing_behind(qtbot: QtBot) -> None:
    view = _whole(qtbot, "", streaming=False)
    assert view.toPlainText() == "Model\n"  # the speaker and an empty answer block
