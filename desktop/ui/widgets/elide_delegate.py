"""A cell delegate that chooses where long text is cut, per cell.

A table has one elide mode for every cell; a sentence (an error) should keep its start, a file
path or name its end. :class:`ElideDelegate` cuts at ``mode`` the cells ``applies(index)``
accepts (all of them by default) and leaves the others to the view's mode.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

_Index = QModelIndex | QPersistentModelIndex


class ElideDelegate(QStyledItemDelegate):
    """Cuts the text of the cells ``applies`` accepts at ``mode`` (default: the right end)."""

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
        applies: Callable[[_Index], bool] | None = None,
    ) -> None:
        super().__init__(parent)
        self._mode = mode
        self._applies = applies

    def initStyleOption(self, option: QStyleOptionViewItem, index: _Index) -> None:
        super().initStyleOption(option, index)
        if self._applies is None or self._applies(index):
            option.textElideMode = self._mode
