"""Under Compare's summary: the blind votes as Bradley-Terry ratings.

One row per rated contestant (rating on the Elo scale, its 95% interval, the pairwise
outcomes it took part in), then one line per two neighbours: ahead, level, or "about N more
votes to tell these apart". The figures are the core's
(:class:`~desktop.core.compare.VoteRatings`, the same the Markdown and JSON reports carry);
names are the summary's (blind letters until Reveal). Hidden before the first vote.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.compare import VoteGap, VoteRatings
from desktop.ui import format as fmt


class VoteRatingsView(QWidget):
    """The ratings table and the sentences about neighbours (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("voteRatings")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(2)
        self.title = QLabel(self.tr("Votes: Bradley-Terry ratings"))
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setToolTip(
            self.tr(
                "A rating from the blind votes: 1000 is the average here, 400 points are "
                "10:1 odds. A tie or all bad counts half each way."
            )
        )
        layout.addWidget(self.title)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("voteRatingsTable")
        self.table.setAccessibleName(self.tr("Ratings from the votes"))
        self.table.setHorizontalHeaderLabels(
            [self.tr("Model"), self.tr("Rating"), self.tr("95% interval"), self.tr("Pairs")]
        )
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        pairs = self.table.horizontalHeaderItem(3)
        if pairs is not None:
            pairs.setToolTip(
                self.tr(
                    "Pairwise outcomes this model took part in (a vote among k answers makes "
                    "k - 1 of them)"
                )
            )
        # Sized to its rows (show_ratings): no scroll bar of its own.
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout.addWidget(self.table)
        self.gaps = QLabel()
        self.gaps.setObjectName("voteGaps")
        self.gaps.setWordWrap(True)
        layout.addWidget(self.gaps)
        self.setVisible(False)

    def show_ratings(self, ratings: VoteRatings | None, names: Mapping[int, str]) -> None:
        """Show ``ratings`` with the summary's ``names`` (contestant -> name); hide without."""
        if ratings is None:
            self.table.setRowCount(0)
            self.gaps.setText("")
            self.setVisible(False)
            return
        self.table.setRowCount(len(ratings.ratings))
        for i, r in enumerate(ratings.ratings):
            cells = (
                names.get(r.contestant, str(r.contestant)),
                fmt.number(r.rating, 0),
                f"{fmt.number(r.low, 0)} – {fmt.number(r.high, 0)}",
                fmt.integer(r.pairs),
            )
            for column, text in enumerate(cells):
                self.table.setItem(i, column, QTableWidgetItem(text))
        self.table.resizeRowsToContents()
        height = self.table.horizontalHeader().sizeHint().height() + 2 * self.table.frameWidth()
        height += self.table.verticalHeader().length()
        self.table.setFixedHeight(height)
        lines = [self.gap_text(g, names) for g in ratings.gaps]
        lines.append(
            self.tr("From %1 votes (%2 pairwise outcomes).")
            .replace("%1", fmt.integer(ratings.votes))
            .replace("%2", fmt.integer(ratings.pairs))
        )
        self.gaps.setText("\n".join(lines))
        self.setVisible(True)

    def gap_text(self, gap: VoteGap, names: Mapping[int, str]) -> str:
        better = names.get(gap.better, str(gap.better))
        worse = names.get(gap.worse, str(gap.worse))
        if gap.separated:
            return self.tr("%1 is ahead of %2.").replace("%1", better).replace("%2", worse)
        if gap.more_votes is None:
            return (
                self.tr("%1 and %2 are level: the votes cannot tell them apart.")
                .replace("%1", better)
                .replace("%2", worse)
            )
        return (
            self.tr("About %1 more votes to tell %2 and %3 apart.")
            .replace("%1", fmt.integer(gap.more_votes))
            .replace("%2", better)
            .replace("%3", worse)
        )
