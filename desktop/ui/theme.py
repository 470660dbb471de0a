"""Look: Fusion with a light and a dark palette, verdict colours, icons drawn from SVG, and the
pages' headings.

Icons are monochrome SVGs in ``resources/icons/`` drawn with ``#000000``; :func:`icon` recolours
them to the palette's text colour and renders them at the screen's device pixel ratio, so they
stay sharp at 200% and readable in both palettes.
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication, QLabel

from desktop.core import paths

THEMES = ("system", "light", "dark")

# One verdict vocabulary everywhere (UI.md): colour is never the only signal, each badge has its
# word and a tooltip too.
VERDICT_COLORS: dict[str, str] = {
    "gpu": "#2e9d57",
    "partial": "#168a8a",
    "cpu": "#c98a12",
    "no": "#8a8f96",
}
WHAT_IF_TINT = "#7a4fd0"  # the toolbar's tint while a what-if profile is active
PREDICTED_COLOR = "#7a4fd0"


_TEXT_ROLES = (
    QPalette.ColorRole.Text,
    QPalette.ColorRole.ButtonText,
    QPalette.ColorRole.WindowText,
)


def _dark_palette() -> QPalette:
    p = QPalette()
    window, base, text = QColor("#202226"), QColor("#17191c"), QColor("#e6e6e6")
    p.setColor(QPalette.ColorRole.Window, window)
    p.setColor(QPalette.ColorRole.WindowText, text)
    p.setColor(QPalette.ColorRole.Base, base)
    p.setColor(QPalette.ColorRole.AlternateBase, QColor("#1d2024"))
    p.setColor(QPalette.ColorRole.ToolTipBase, QColor("#2b2e33"))
    p.setColor(QPalette.ColorRole.ToolTipText, text)
    p.setColor(QPalette.ColorRole.PlaceholderText, QColor("#8a8f96"))
    p.setColor(QPalette.ColorRole.Text, text)
    p.setColor(QPalette.ColorRole.Button, QColor("#2b2e33"))
    p.setColor(QPalette.ColorRole.ButtonText, text)
    p.setColor(QPalette.ColorRole.BrightText, QColor("#ff6b6b"))
    p.setColor(QPalette.ColorRole.Link, QColor("#6cb4ff"))
    p.setColor(QPalette.ColorRole.Highlight, QColor("#3d7bd9"))
    p.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    p.setColor(QPalette.ColorRole.Mid, QColor("#3a3e44"))
    p.setColor(QPalette.ColorRole.Dark, QColor("#121315"))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6b7077"))
    return p


def _light_palette() -> QPalette:
    p = QPalette()
    p.setColor(QPalette.ColorRole.Window, QColor("#f3f4f6"))
    p.setColor(QPalette.ColorRole.WindowText, QColor("#1d2125"))
    p.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    p.setColor(QPalette.ColorRole.AlternateBase, QColor("#f6f7f9"))
    p.setColor(QPalette.ColorRole.Text, QColor("#1d2125"))
    p.setColor(QPalette.ColorRole.Button, QColor("#eceef1"))
    p.setColor(QPalette.ColorRole.ButtonText, QColor("#1d2125"))
    p.setColor(QPalette.ColorRole.PlaceholderText, QColor("#8a8f96"))
    p.setColor(QPalette.ColorRole.Highlight, QColor("#2f6fd0"))
    p.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    p.setColor(QPalette.ColorRole.Link, QColor("#1f5fbf"))
    p.setColor(QPalette.ColorRole.ToolTipBase, QColor("#ffffff"))
    p.setColor(QPalette.ColorRole.ToolTipText, QColor("#1d2125"))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#9aa0a6"))
    return p


def system_prefers_dark() -> bool:
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    return bool(scheme is not None and scheme() == Qt.ColorScheme.Dark)


def apply_theme(app: QApplication, theme: str) -> bool:
    """Fusion with the palette for ``theme`` ("system", "light", "dark"); returns whether the
    dark palette is in use."""
    app.setStyle("Fusion")
    dark = theme == "dark" or (theme == "system" and system_prefers_dark())
    app.setPalette(_dark_palette() if dark else _light_palette())
    icon.cache_clear()
    return dark


def is_dark() -> bool:
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


@lru_cache(maxsize=256)
def _svg(name: str) -> bytes:
    path = paths.resources_dir() / "icons" / f"{name}.svg"
    return path.read_bytes()


@lru_cache(maxsize=256)
def icon(name: str, color: str | None = None, size: int = 24) -> QIcon:
    """The icon ``name`` in ``color`` (default: the palette's text colour), sharp at any scale."""
    tint = color or QGuiApplication.palette().color(QPalette.ColorRole.WindowText).name()
    data = _svg(name).replace(b"#000000", tint.encode())
    renderer = QSvgRenderer(QByteArray(data))
    result = QIcon()
    for scale in (1, 2, 3):
        pixmap = QPixmap(size * scale, size * scale)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        renderer.render(painter, QRectF(0, 0, size * scale, size * scale))
        painter.end()
        pixmap.setDevicePixelRatio(scale)
        result.addPixmap(pixmap)
    return result


def app_icon() -> QIcon:
    path = paths.resources_dir() / "icons" / "llm-scout.svg"
    return QIcon(str(path)) if path.is_file() else icon("models")


def page_heading(text: str = "") -> QLabel:
    """A page's title: the application font, bold, 1.3 times its size."""
    label = QLabel(text)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 1.3)
    font.setBold(True)
    label.setFont(font)
    return label
