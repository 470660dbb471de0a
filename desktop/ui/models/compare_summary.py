"""The Compare page's summary table: one row per contestant, the core's
:class:`~desktop.core.compare.SummaryRow` figures formatted in the UI's locale.

Speeds and TTFT are medians over the contestant's answers, memory the peak (the core decides
that); this model only formats them. In a blind comparison whose names are not revealed yet,
the model column shows the letters only and the view hides the :attr:`SummaryModel.REVEALING`
columns. A contestant on a server has no prediction and its
memory is what the server exposed, else "unknown" (never 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor

from desktop.core.compare import SummaryRow, WinRate
from desktop.ui import format as fmt
from desktop.ui.widgets.metrics_panel import error_text

_Index = QModelIndex | QPersistentModelIndex

FAILED_COLOR = "#c0392b"
#: The raw value of a cell (numbers for numeric columns), for tests and sorting.
VALUE_ROLE = int(Qt.ItemDataRole.UserRole) + 1


def votes_text(votes: WinRate) -> str:
    """``2 W / 1 T / 0 L (83%)``, ``-`` without votes."""
    if not votes.votes:
        return "-"
    text = (
        QCoreApplication.translate("Compare", "%1 W / %2 T / %3 L")
        .replace("%1", str(votes.wins))
        .replace("%2", str(votes.ties))
        .replace("%3", str(votes.losses))
    )
    if votes.bad:
        bad = QCoreApplication.translate("Compare", "%1 bad")
        text += " / " + bad.replace("%1", str(votes.bad))
    return text + f" ({fmt.number((votes.rate or 0.0) * 100, 0)}%)"


def two_lines(header: str, longer_than: int = 9) -> str:
    """A header of several words longer than ``longer_than`` characters on two lines, broken at
    the space nearest its middle, so that its column is as wide as its figures."""
    if len(header) <= longer_than or " " not in header:
        return header
    middle = len(header) / 2
    cut = min((i for i, c in enumerate(header) if c == " "), key=lambda i: abs(i - middle))
    return header[:cut] + "\n" + header[cut + 1 :]


def predicted_and_measured(predicted: int | None, measured: int | None) -> str:
    """``≈255.9 / 252.2 MiB``: the unit once when both sizes have the same one."""
    first, second = fmt.size(predicted), fmt.size(measured)
    unit = first.rpartition(" ")[2]
    if " " in first and second.endswith(" " + unit):
        first = first.rpartition(" ")[0]
    return f"≈{first} / {second}"


class SummaryModel(QAbstractTableModel):
    """Rows of the summary (see the module docstring)."""

    (
        COL_MODEL,
        COL_QUANT,
        COL_CTX,
        COL_TTFT,
        COL_PROMPT,
        COL_GEN,
        COL_PRIVATE,
        COL_VRAM,
        COL_PREDICTED,
        COL_CHECKS,
        COL_VOTES,
    ) = range(11)
    #: The columns a blind comparison hides until Reveal: they give the models away.
    REVEALING = (
        COL_QUANT,
        COL_CTX,
        COL_TTFT,
        COL_PROMPT,
        COL_GEN,
        COL_PRIVATE,
        COL_VRAM,
        COL_PREDICTED,
    )

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[SummaryRow] = []
        self.hide_names = False
        self._headers = [
            self.tr("Model"),
            self.tr("Quant"),
            self.tr("Context"),
            self.tr("TTFT ms"),
            self.tr("Prompt tok/s"),
            self.tr("Gen tok/s"),
            self.tr("Peak private RAM"),
            self.tr("Peak VRAM"),
            self.tr("RAM predicted / measured"),
            self.tr("Checks"),
            self.tr("Votes"),
        ]
        self._tips = {
            self.COL_TTFT: self.tr("Time to first token, median over the answers"),
            self.COL_PROMPT: self.tr("Prompt processing speed, median over the answers"),
            self.COL_GEN: self.tr("Generation speed, median over the answers"),
            self.COL_PRIVATE: self.tr("Memory only the worker holds, its peak"),
            self.COL_VRAM: self.tr("The worker's own video memory, its peak (NVIDIA)"),
            self.COL_PREDICTED: self.tr(
                "The fit's prediction for the same settings next to the measured peak "
                "resident set, and the error"
            ),
            self.COL_CHECKS: self.tr("Checks of the prompt suite the answers passed"),
            self.COL_VOTES: self.tr("Blind votes: wins, ties, losses, and the win rate"),
        }

    def set_rows(self, rows: Sequence[SummaryRow], *, hide_names: bool = False) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.hide_names = hide_names
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._headers)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return two_lines(self._headers[section])
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tips.get(section)
        return None

    def empty_columns(self) -> set[int]:
        """Columns with nothing to show for these rows, which the view hides to give the rest
        room: the quant where every name already ends with it, video memory where no contestant
        had any (a CPU-only machine), checks without a suite's checks, votes in a comparison
        that is not blind and has none."""
        empty: set[int] = set()
        if not self.rows:
            return empty
        if all(not row.quant or row.name.endswith(row.quant) for row in self.rows):
            empty.add(self.COL_QUANT)  # every name already ends with its quant
        if not any(row.vram_peak_bytes or row.remote for row in self.rows):
            empty.add(self.COL_VRAM)
        if not any(row.checks_total for row in self.rows):
            empty.add(self.COL_CHECKS)
        if not any(row.votes.votes or row.blind_label for row in self.rows):
            empty.add(self.COL_VOTES)
        return empty

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, column)
        if role == VALUE_ROLE:
            return self._value(row, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= self.COL_CTX:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and row.status == "failed":
            return QColor(FAILED_COLOR)
        if role == Qt.ItemDataRole.ToolTipRole and column == self.COL_MODEL:
            name = self._text(row, column)  # whole, where the column elides it
            return f"{name}\n{row.reason}" if row.reason else name
        return None

    def name(self, row: SummaryRow) -> str:
        if self.hide_names:
            return row.blind_label or "?"
        name = f"{row.blind_label} · {row.name}" if row.blind_label else row.name
        if row.status == "failed":
            name += " " + self.tr("(failed)")
        return name

    def _text(self, row: SummaryRow, column: int) -> str:
        if column == self.COL_MODEL:
            return self.name(row)
        if column == self.COL_QUANT:
            return "-" if self.hide_names else row.quant or "-"
        if column == self.COL_CTX:
            return fmt.integer(row.n_ctx)
        if column == self.COL_TTFT:
            return fmt.number(row.ttft_ms, 0)
        if column == self.COL_PROMPT:
            return fmt.number(row.prompt_tokens_per_s, 1)
        if column == self.COL_GEN:
            text = fmt.number(row.generation_tokens_per_s, 1)
            if row.remote and row.timing_source == "server":
                text += " " + self.tr("(server timings)")
            return text
        if row.remote and column in (self.COL_PRIVATE, self.COL_VRAM, self.COL_PREDICTED):
            return self._remote_text(row, column)
        if column == self.COL_PRIVATE:
            return fmt.size(row.private_peak_bytes)
        if column == self.COL_VRAM:
            return fmt.size(row.vram_peak_bytes)
        if column == self.COL_PREDICTED:
            if row.predicted_ram_bytes is None and row.rss_peak_bytes is None:
                return "-"
            text = predicted_and_measured(row.predicted_ram_bytes, row.rss_peak_bytes)
            if row.ram_error_pct is not None:
                text += f" ({error_text(row.ram_error_pct)})"
            return text
        if column == self.COL_CHECKS:
            return f"{row.checks_passed}/{row.checks_total}" if row.checks_total else "-"
        return votes_text(row.votes)

    def _remote_text(self, row: SummaryRow, column: int) -> str:
        """A server's memory as far as it said (its VRAM, its KV cache use), else "unknown",
        never 0; and no prediction."""
        if column == self.COL_PREDICTED:
            return self.tr("no prediction: remote")
        if column == self.COL_PRIVATE:
            return self.tr("unknown")
        parts = []
        if row.vram_peak_bytes is not None:
            parts.append(fmt.size(row.vram_peak_bytes))
        if row.kv_cache_usage_pct is not None:
            parts.append(
                self.tr("KV cache %1% used").replace("%1", fmt.number(row.kv_cache_usage_pct))
            )
        return ", ".join(parts) or self.tr("unknown")

    def _value(self, row: SummaryRow, column: int) -> Any:
        values: dict[int, Any] = {
            self.COL_MODEL: row.name,
            self.COL_QUANT: row.quant,
            self.COL_CTX: row.n_ctx,
            self.COL_TTFT: row.ttft_ms,
            self.COL_PROMPT: row.prompt_tokens_per_s,
            self.COL_GEN: row.generation_tokens_per_s,
            self.COL_PRIVATE: row.private_peak_bytes,
            self.COL_VRAM: row.vram_peak_bytes,
            self.COL_PREDICTED: (row.predicted_ram_bytes, row.rss_peak_bytes),
            self.COL_CHECKS: (row.checks_passed, row.checks_total),
            self.COL_VOTES: row.votes.rate,
        }
        return values[column]
