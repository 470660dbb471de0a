"""The Compare chart as an image that says what it shows: a caption (the comparison's title, what
was asked, the machine and the date) painted above the chart's own picture, for ``Export → Chart
PNG``. A picture passed around without its report still tells which comparison it is."""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QDateTime, QLocale, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter

from desktop.core.compare import ComparisonResult
from desktop.ui.suite_texts import suite_title

PROMPT_CHARS = 160  # the one prompt asked, shortened to about this many characters
MARGIN = 12


def caption_lines(result: ComparisonResult) -> list[str]:
    """The caption: the title; what was asked (the one prompt, or the suite and how many prompts);
    the machine and the date (in the window's language)."""
    lines = [result.title or QCoreApplication.translate("ChartImage", "Comparison")]
    n = len(result.prompts)
    if result.suite:
        asked = (
            QCoreApplication.translate("ChartImage", "Suite %1, %2 prompts")
            .replace("%1", suite_title(result.suite))
            .replace("%2", str(n))
        )
    elif n == 1:
        text = " ".join(result.prompts[0].text.split())
        if len(text) > PROMPT_CHARS:
            text = text[: PROMPT_CHARS - 1].rstrip() + "…"
        asked = QCoreApplication.translate("ChartImage", "Prompt: %1").replace("%1", text)
    else:
        asked = QCoreApplication.translate("ChartImage", "%1 prompts").replace("%1", str(n))
    lines.append(asked)
    moment = QDateTime.fromSecsSinceEpoch(int(result.created_at or time.time()))
    when = QLocale().toString(moment, QLocale.FormatType.ShortFormat)
    where = result.machine or QCoreApplication.translate("ChartImage", "this machine")
    lines.append(f"{where} · {when}")
    return lines


def captioned(chart: QImage, lines: list[str], font: QFont) -> QImage:
    """``chart`` with ``lines`` above it (the first bold), on a white ground, as wide as the
    chart (a longer line is elided)."""
    bold = QFont(font)
    bold.setBold(True)
    fonts = [bold, *([font] * (len(lines) - 1))]
    heights = [QFontMetrics(f).height() for f in fonts]
    top = MARGIN + sum(heights) + MARGIN // 2
    image = QImage(chart.width(), chart.height() + top, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    try:
        y = MARGIN
        width = chart.width() - 2 * MARGIN
        painter.setPen(QColor("black"))
        for line, line_font, height in zip(lines, fonts, heights, strict=True):
            painter.setFont(line_font)
            shown = QFontMetrics(line_font).elidedText(line, Qt.TextElideMode.ElideRight, width)
            painter.drawText(QRect(MARGIN, y, width, height), Qt.AlignmentFlag.AlignLeft, shown)
            y += height
        painter.drawImage(0, top, chart)
    finally:
        painter.end()
    return image
