"""The conversation as one document: what you wrote as plain text, answers as Markdown.

:class:`TranscriptView` is a read-only ``QTextBrowser``. Finished turns stay as they were
inserted. The answer being streamed is drawn when :meth:`TranscriptView.flush` runs (the page's
timer, about 30 times a second), never once per token: new text is appended as it is, and the
answer is rendered again as Markdown at most every 0.3 s (and once more, whole, at its end).
That render starts at the answer's last finished block (:func:`stable_split`): the blocks before
it are rendered once and kept, so a render costs the same at the 50th paragraph as at the
first. Markdown is Qt's own (md4c, GitHub
dialect, raw HTML off, so a model cannot inject markup): code blocks and inline code get the
system's fixed-pitch font. The engine streams whole UTF-8 characters, and the view only ever
appends the text it is given, so Chinese text arrives whole (no U+FFFD).
"""

from __future__ import annotations

import re
import time

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QPalette,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QApplication, QTextBrowser, QWidget

CURSOR_MARK = "▍"
COPY_SCHEME = "copy"  # a message's Copy link: copy:INDEX
MARKDOWN = QTextDocument.MarkdownFeature.MarkdownDialectGitHub  # raw HTML is dropped below
NO_HTML = QTextDocument.MarkdownFeature.MarkdownNoHTML
USER_COLOR = "#2f6fd0"
MODEL_COLOR = "#2e9d57"
MARKDOWN_INTERVAL_S = 0.3  # the streamed answer's Markdown is rendered again at most this often


# A line that starts a Markdown block of its own (list item, heading, quote, fence, table row,
# setext underline, indented code): never joined to the line before it.
_BLOCK_START = re.compile(r"\s{4}|\s*([-*+]\s|\d+[.)]\s|#|>|```|~~~|\||=+\s*$|-+\s*$)")
# A line after a blank line that may still belong to the block before it: indented (a list
# item's next paragraph, indented code), another list item (a loose list), a table row.
_CONTINUES = re.compile(r"\s|[-*+](\s|$)|\d+[.)](\s|$)|\|")
# Inserted before Markdown and removed after: Qt gives the first block of inserted Markdown the
# format of the block it lands in, so a heading or a list item that opens an answer would lose
# its own (see _insert_markdown).
_SACRIFICE = "\u200b\n\n"


def keep_line_breaks(markdown: str) -> str:
    """An answer's line breaks kept, as chat models mean them (a poem, an address): Markdown
    would join the lines of a paragraph. Lines of a paragraph are joined with U+2028, a line
    break inside the paragraph, so stanzas stay paragraphs; fenced code is left as it is."""
    lines = markdown.split("\n")
    out: list[str] = []
    fence = ""
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = "" if fence == marker else (fence or marker)
        joined = (
            i > 0
            and not fence
            and stripped
            and out[-1].strip()
            and not _BLOCK_START.match(out[-1].split("\u2028")[0])
            and not out[-1].endswith("  ")
            and not _BLOCK_START.match(line)
        )
        if joined:
            out[-1] += "\u2028" + line
        else:
            out.append(line)
    return "\n".join(out)


def stable_split(markdown: str, start: int = 0) -> int:
    """Where a streamed answer's Markdown can be cut so that the part before renders the same
    whatever comes after: just after the last blank line (outside code fences) that is followed
    by a whole line starting a block of its own. ``start`` must be such a place (or 0); returns
    ``start`` when there is none after it."""
    split = start
    fence = ""
    blank = False  # the line before was blank, outside a fence
    position = start
    lines = markdown[start:].split("\n")  # Markdown's lines (not str.splitlines' many breaks)
    for i, line in enumerate(lines):
        whole = i < len(lines) - 1  # its end of line has come
        stripped = line.lstrip()
        if blank and stripped and whole and not _CONTINUES.match(line):
            split = position
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = "" if fence == marker else (fence or marker)
        blank = not fence and not stripped
        position += len(line) + 1
    return split


def _insert_markdown(cursor: QTextCursor, markdown: str) -> None:
    """Insert ``markdown`` at ``cursor`` (the start of an empty block), every block with its
    own format."""
    start = cursor.position()
    cursor.insertMarkdown(_SACRIFICE + keep_line_breaks(markdown), MARKDOWN | NO_HTML)
    first = QTextCursor(cursor.document())
    first.setPosition(start)
    keep = QTextCursor.MoveMode.KeepAnchor
    if not first.movePosition(QTextCursor.MoveOperation.NextBlock, keep):
        first.movePosition(QTextCursor.MoveOperation.End, keep)  # no Markdown: nothing after it
    first.removeSelectedText()


class TranscriptView(QTextBrowser):
    """The chat transcript. Add turns in order; stream an answer between
    :meth:`begin_answer` and :meth:`end_answer`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setAccessibleName(self.tr("Conversation"))
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setReadOnly(True)
        self.document().setUndoRedoEnabled(False)
        self.document().setDocumentMargin(10)
        self._answer_start: int | None = None
        self._answer = ""
        self._kept = 0  # characters of the answer rendered for good (before stable_split)
        self._tail_start = 0  # where the rest of the answer's blocks begin in the document
        self.rendered_chars = 0  # Markdown characters handed to Qt by the last render (tests)
        self._unrendered = ""  # text appended since the last Markdown render
        self._next_render = 0.0
        self.renders = 0  # how many times the streamed answer was rendered (for tests)
        # Each message as it was written or answered (raw text, Markdown kept): what a
        # message's "Copy" link puts on the clipboard.
        self.messages: list[str] = []
        self.anchorClicked.connect(self._on_anchor_clicked)

    # -- plain blocks -----------------------------------------------------------------------------

    def _cursor_at_end(self) -> QTextCursor:
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        return cursor

    def _new_block(self, top_margin: float = 0.0) -> QTextCursor:
        """A cursor in a fresh, unformatted block at the end (Markdown before it may have left
        a code or list format on the last block)."""
        cursor = self._cursor_at_end()
        block = QTextBlockFormat()
        block.setTopMargin(top_margin)
        if self.document().isEmpty():
            cursor.setBlockFormat(block)
            cursor.setCharFormat(QTextCharFormat())
        else:
            cursor.insertBlock(block, QTextCharFormat())
        return cursor

    def _line(
        self,
        text: str,
        *,
        bold: bool = False,
        italic: bool = False,
        color: str | None = None,
        smaller: bool = False,
        top_margin: float = 0.0,
    ) -> None:
        at_bottom = self._at_bottom()
        cursor = self._new_block(top_margin)
        char = QTextCharFormat()
        if bold:
            char.setFontWeight(QFont.Weight.Bold)
        char.setFontItalic(italic)
        if color:
            char.setForeground(QColor(color))
        if smaller:
            char.setFontPointSize(max(self.font().pointSizeF() * 0.88, 7.0))
        cursor.insertText(text, char)
        self._follow(at_bottom)

    def _muted(self) -> str:
        return self.palette().color(QPalette.ColorRole.PlaceholderText).name()

    def add_system(self, text: str) -> None:
        """The system prompt, as a muted line."""
        self._line(self.tr("System: %1").replace("%1", text), italic=True, color=self._muted())

    def add_note(self, text: str) -> None:
        """Something that happened (a model loaded, the engine stopped), as a muted line."""
        self._line(text, italic=True, color=self._muted(), smaller=True, top_margin=6)

    def add_user(self, text: str, speaker: str | None = None) -> None:
        """What the person wrote, as plain text (never interpreted as Markdown)."""
        self._line(speaker or self.tr("You"), bold=True, color=USER_COLOR, top_margin=10)
        self._copy_link(text)
        self._line(text)

    def _copy_link(self, text: str) -> None:
        """A "Copy" link at the end of the last line, for one message's ``text``."""
        self.messages.append(text)
        cursor = self._cursor_at_end()
        link = QTextCharFormat()
        link.setAnchor(True)
        link.setAnchorHref(f"{COPY_SCHEME}:{len(self.messages) - 1}")
        link.setForeground(QColor(self._muted()))
        link.setFontUnderline(True)
        link.setFontPointSize(max(self.font().pointSizeF() * 0.88, 7.0))
        link.setToolTip(self.tr("Copy this message"))
        cursor.insertText("  ", QTextCharFormat())
        cursor.insertText(self.tr("Copy"), link)

    def copy_message(self, index: int) -> bool:
        """Put message ``index`` on the clipboard, as written (an answer's Markdown kept)."""
        if not 0 <= index < len(self.messages):
            return False
        QApplication.clipboard().setText(self.messages[index])
        return True

    def _on_anchor_clicked(self, url: QUrl) -> None:
        if url.scheme() == COPY_SCHEME and url.path().isdigit():
            self.copy_message(int(url.path()))

    # -- the streamed answer ----------------------------------------------------------------------

    @property
    def streaming(self) -> bool:
        return self._answer_start is not None

    @property
    def answer(self) -> str:
        """The text of the answer being streamed (or the last one)."""
        return self._answer

    def begin_answer(self, speaker: str) -> None:
        self._line(speaker, bold=True, color=MODEL_COLOR, top_margin=10)
        cursor = self._new_block()
        self._answer_start = self._tail_start = cursor.position()
        self._answer = ""
        self._kept = 0
        self._unrendered = ""
        self._render(streaming=True)

    def append_answer(self, text: str) -> None:
        """More of the answer (drawn at the next :meth:`flush`)."""
        if self._answer_start is None or not text:
            return
        self._answer += text
        self._unrendered += text

    def flush(self, *, force: bool = False) -> bool:
        """Draw what came since the last flush; returns whether anything changed. The answer
        is rendered as Markdown again when ``MARKDOWN_INTERVAL_S`` has passed (or ``force``),
        else the new text is appended as it is, before the cursor mark."""
        if self._answer_start is None or not self._unrendered:
            return False
        now = time.perf_counter()
        if force or now >= self._next_render:
            self._render(streaming=True)
            self._next_render = now + MARKDOWN_INTERVAL_S
        else:
            at_bottom = self._at_bottom()
            cursor = self._cursor_at_end()
            cursor.movePosition(
                QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.MoveAnchor, len(CURSOR_MARK)
            )
            cursor.insertText(self._unrendered)
            self._follow(at_bottom)
        self._unrendered = ""
        return True

    def _render(self, *, streaming: bool) -> None:
        """Render the answer as Markdown: while ``streaming``, from its last finished block on
        (the blocks finished since the last render are rendered once more and kept), with the
        cursor mark; else all of it, as it ends."""
        assert self._answer_start is not None
        at_bottom = self._at_bottom()
        if not streaming:
            self._kept, self._tail_start = 0, self._answer_start
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        cursor.setPosition(self._tail_start)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        cursor.setBlockFormat(QTextBlockFormat())
        cursor.setCharFormat(QTextCharFormat())
        rendered = 0
        split = stable_split(self._answer, self._kept) if streaming else self._kept
        if split > self._kept:
            _insert_markdown(cursor, self._answer[self._kept : split])
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
            rendered += split - self._kept
            self._kept, self._tail_start = split, cursor.position()
        tail = self._answer[self._kept :] + (CURSOR_MARK if streaming else "")
        _insert_markdown(cursor, tail)
        cursor.endEditBlock()
        self.rendered_chars = rendered + len(tail)
        self.renders += 1
        self._follow(at_bottom)

    def end_answer(self, footer: str = "", text: str | None = None) -> None:
        """The answer is complete: drawn once more without the cursor mark (as ``text`` when
        given: the answer as the engine kept it), then ``footer`` (its metrics) under it."""
        if self._answer_start is not None:
            if text is not None:
                self._answer = text
            self._render(streaming=False)
            self._answer_start = None
            self._unrendered = ""
        if footer:
            self._line(footer, color=self._muted(), smaller=True)
        if text is not None or footer:
            self._copy_link(self._answer)

    def add_answer(self, speaker: str, text: str, footer: str = "") -> None:
        """A finished answer at once (when the transcript is drawn again)."""
        self.begin_answer(speaker)
        self._answer = text
        self.end_answer(footer, text=text)

    # -- scrolling --------------------------------------------------------------------------------

    def _at_bottom(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - 4

    def _follow(self, at_bottom: bool) -> None:
        if at_bottom:
            bar = self.verticalScrollBar()
            bar.setValue(bar.maximum())

    def clear_all(self) -> None:
        self.clear()
        self.messages = []
        self._answer_start = None
        self._answer = ""
        self._kept = 0
        self._unrendered = ""
