"""The catalog as a table: every variant with its fit estimate for the active profile.

:class:`CatalogTableModel` holds one :class:`CatalogEntry` per catalog variant, in the catalog's
family order. Its rows never change: an estimate (made on a worker thread by
:class:`~desktop.core.fit.CatalogEstimator`) arrives as plain values and
:meth:`CatalogTableModel.set_estimate` replaces the entries in one go and announces it with one
``dataChanged`` over the columns that follow the estimate, so a view keeps its selection and
scroll position.

The cells live in C++ (the model is a ``QStandardItemModel``, filled from Python when the
entries change): painting the table and sorting it through the proxy then never call back into
Python, which keeps the GUI responsive while the context slider moves (benchmarks/RESULTS.md,
"GUI stalls", has the repaint times before and after).

Sorting goes through a proxy on :data:`SORT_ROLE`, whose values have one type per column:
numbers for numeric columns (the catalog's own sort keys turned into ranks for the catalog
columns), lowercase text otherwise. :data:`ROW_ROLE` gives a row's :class:`CatalogEntry` and
:data:`VERDICT_ROLE` the verdict key ("gpu", "partial", "cpu", "no") a badge is coloured by.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from PySide6.QtCore import (
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor, QPalette, QStandardItemModel
from PySide6.QtWidgets import QApplication

from desktop.core.catalog import VARIANT_SORT_KEYS, CatalogModel, Variant
from desktop.core.fit import FitResult, FitRow, download_size
from desktop.ui import format as fmt

_Index = QModelIndex | QPersistentModelIndex

#: The :class:`CatalogEntry` of a row (in column 0).
ROW_ROLE = int(Qt.ItemDataRole.UserRole) + 1
#: What the proxy sorts by: a number for numeric columns, lowercase text otherwise.
SORT_ROLE = int(Qt.ItemDataRole.UserRole) + 2
#: The verdict key of a row ("gpu", "partial", "cpu", "no"; "" before the estimate).
VERDICT_ROLE = int(Qt.ItemDataRole.UserRole) + 3

#: Marks on numbers: a prediction, a size the Hub has not confirmed, a context past training.
PREDICTED = "≈"
UNVERIFIED = "~"
PAST_TRAINED = "⚠"

_VERDICT_RANK = {"gpu": 0.0, "partial": 1.0, "cpu": 2.0, "no": 3.0}


def _tr(text: str) -> str:
    return QCoreApplication.translate("CatalogTableModel", text)


@dataclass(frozen=True)
class CatalogEntry:
    """One variant and what is known about it here.

    ``fit`` is None before the first estimate and when the variant could not be estimated
    (``error`` says why); ``calibration_runs``: how many of its machine's own runs calibrated
    it (0: the raw model). ``path``: the file (or AWQ folder) on this machine, ``origin`` where it
    came from ("download", "library"); ``from_file``: the estimate used the file's real header
    rather than the catalog's numbers.
    """

    model: CatalogModel
    variant: Variant
    fit: FitResult | None = None
    error: str | None = None
    path: Path | None = None
    origin: str = ""
    from_file: bool = False
    n_ctx: int = 0
    calibration_runs: int = 0  # the estimate is calibrated from this many runs on its machine
    calibration_source: str = ""  # "this machine", or "profile": carried by the profile

    @property
    def variant_id(self) -> str:
        return self.variant.id

    @property
    def estimated(self) -> bool:
        return self.fit is not None or self.error is not None

    @property
    def on_disk(self) -> bool:
        return self.path is not None

    @property
    def verdict(self) -> str:
        return self.fit.verdict if self.fit is not None else ""

    @property
    def past_trained_context(self) -> bool:
        """The context asked for is longer than the model was trained for (the fit's word)."""
        return self.fit is not None and self.fit.past_trained_ctx

    @property
    def download_size(self) -> tuple[int | None, bool]:
        """The one download size (bytes, known): verified, or estimated from the shapes."""
        return download_size(self.model, self.variant)

    @property
    def memory_bytes(self) -> int | None:
        """Everything the run needs: the fit's must-fit bytes (the detail panel splits them)."""
        return self.fit.must_fit_bytes if self.fit is not None else None


def family_titles(models: Iterable[CatalogModel]) -> dict[str, str]:
    """How each family is written in its models' names ("deepseek" -> "DeepSeek")."""
    titles: dict[str, str] = {}
    for model in models:
        if model.family in titles:
            continue
        start = model.name.lower().find(model.family.lower())
        if start >= 0:
            titles[model.family] = model.name[start : start + len(model.family)]
    return titles


def params_text(model: CatalogModel) -> str:
    """ "7.6B", or "30.5B (A3.3B)" for a mixture of experts (active parameters per token)."""
    text = fmt.params(model.n_params)
    if model.n_params_active:
        text += f" (A{fmt.params(model.n_params_active)})"
    return text


def size_text(entry: CatalogEntry) -> str:
    """The one download size as the Size column and the detail panel say it: "4.4 GiB" when
    verified against the Hub, "~379 MiB" when estimated from the model's shapes (the CLI's
    catalog marks it the same way); "-" when unknown."""
    size, known = entry.download_size
    if size is None:
        return "-"
    text = fmt.size(size, 1 if size >= 1 << 30 else 0)
    return text if known else UNVERIFIED + text


def verdict_text(entry: CatalogEntry) -> str:
    """The badge's words: the CLI's verdict, a mark when the context is past training."""
    if not entry.estimated:
        return "…"
    word = fmt.verdict_word(entry.fit)
    return f"{word} {PAST_TRAINED}" if entry.past_trained_context else word


def widest_verdict() -> str:
    """The badge text the verdict column is sized for ("partial 88/88"; with a past-trained
    mark too it may elide, the tooltip says it in full)."""
    word = QCoreApplication.translate("Format", "partial %1/%2")
    return word.replace("%1", "88").replace("%2", "88")


def verdict_tooltip(entry: CatalogEntry) -> str:
    if not entry.estimated:
        return _tr("Estimating…")
    lines = [fmt.verdict_tooltip(entry.fit)]
    if entry.fit is None and entry.error:
        lines.append(entry.error)
    if entry.fit is not None:
        lines.extend(entry.fit.reasons[:2])
    if entry.fit is not None and entry.past_trained_context:
        lines.append(
            _tr("%1 tokens is past the %2 the model was trained for; answers may degrade.")
            .replace("%1", fmt.integer(entry.fit.n_ctx))
            .replace("%2", fmt.integer(entry.fit.n_ctx_train))
        )
    return "\n".join(lines)


class _Columns:
    """The catalog table's columns."""

    (
        COL_FAMILY,
        COL_MODEL,
        COL_PARAMS,
        COL_QUANT,
        COL_SIZE,
        COL_VERDICT,
        COL_MEMORY,
        COL_SPEED,
        COL_DISK,
        COL_LICENCE,
        COL_ZH,
    ) = range(11)
    COLUMN_COUNT = 11
    NUMERIC = (COL_PARAMS, COL_SIZE, COL_MEMORY, COL_SPEED)
    CENTERED = (COL_ZH, COL_DISK)
    #: Columns that follow the estimate (the rest only change when the catalog does).
    FIT_COLUMNS = (COL_VERDICT, COL_MEMORY, COL_SPEED, COL_DISK)
    #: The catalog's sort key behind each catalog column.
    CATALOG_SORT: ClassVar[dict[int, str]] = {
        COL_FAMILY: "family",
        COL_MODEL: "name",
        COL_PARAMS: "params",
        COL_QUANT: "quant",
    }


@dataclass(frozen=True)
class PreparedEstimate:
    """An estimate turned into the table's entries and cells (on a worker thread), ready for
    :meth:`CatalogTableModel.set_estimate` to store."""

    n_ctx: int
    entries: list[CatalogEntry]
    #: per row, the roles of each of :attr:`CatalogCells.ESTIMATE_COLUMNS`, in that order
    cells: list[list[dict[int, Any]]]


class CatalogCells(_Columns):
    """What each cell shows, as plain values: no Qt object is touched, so a worker thread
    computes the cells of a new estimate and the GUI thread only stores them."""

    #: What an estimate changes: the fit's columns, and the size (an unverified size is the one
    #: the fit computed from the shapes).
    ESTIMATE_COLUMNS = (_Columns.COL_SIZE, *_Columns.FIT_COLUMNS)

    def __init__(
        self,
        base: Sequence[CatalogEntry],
        families: Mapping[str, str],
        ranks: Mapping[str, list[int]],
        placeholder: QColor,
    ) -> None:
        self._base = tuple(base)
        self._families = dict(families)
        self._ranks = {key: list(values) for key, values in ranks.items()}
        self.placeholder = QColor(placeholder)

    def tr(self, text: str) -> str:
        """Translated in this class's context (thread-safe: no QObject involved)."""
        return QCoreApplication.translate("CatalogCells", text)

    def family_title(self, family: str) -> str:
        return self._families.get(family, family.capitalize())

    def entries(
        self,
        rows: Iterable[FitRow],
        installed: Mapping[str, tuple[Path, str]],
        n_ctx: int,
    ) -> list[CatalogEntry]:
        """Every row's entry for an estimate at ``n_ctx`` and what is on disk."""
        fits = {row.variant.id: row for row in rows}
        updated = []
        for entry in self._base:
            found = fits.get(entry.variant_id)
            path, origin = installed.get(entry.variant_id, (None, ""))
            if found is None:
                error = _tr("There are not enough facts about this variant to estimate it.")
                updated.append(
                    CatalogEntry(
                        entry.model, entry.variant, None, error, path, origin, False, n_ctx
                    )
                )
                continue
            updated.append(
                CatalogEntry(
                    entry.model,
                    entry.variant,
                    found.result,
                    found.error,
                    path,
                    origin,
                    found.target.path is not None,
                    n_ctx,
                    found.calibration.runs if found.calibration is not None else 0,
                    found.calibration.source if found.calibration is not None else "",
                )
            )
        return updated

    def prepare(
        self,
        rows: Iterable[FitRow],
        installed: Mapping[str, tuple[Path, str]],
        n_ctx: int,
    ) -> PreparedEstimate:
        """The entries and the changed cells of an estimate (any thread)."""
        entries = self.entries(rows, installed, n_ctx)
        cells = [
            [self.roles(row, entry, column) for column in self.ESTIMATE_COLUMNS]
            for row, entry in enumerate(entries)
        ]
        return PreparedEstimate(n_ctx, entries, cells)

    def roles(self, row: int, entry: CatalogEntry, column: int) -> dict[int, Any]:
        text = self._display(entry, column)
        roles: dict[int, Any] = {
            Qt.ItemDataRole.DisplayRole: text,
            SORT_ROLE: self._sort_value(row, entry, column),
            Qt.ItemDataRole.TextAlignmentRole: self.alignment(column),
        }
        tooltip = self._tooltip(entry, column)
        if tooltip is not None:
            roles[Qt.ItemDataRole.ToolTipRole] = tooltip
        if column == 0:
            roles[ROW_ROLE] = entry
        if column == self.COL_VERDICT:
            roles[VERDICT_ROLE] = entry.verdict
            roles[Qt.ItemDataRole.AccessibleTextRole] = (
                f"{verdict_text(entry)}. {verdict_tooltip(entry)}"
            )
        if text == "-":
            roles[Qt.ItemDataRole.ForegroundRole] = self.placeholder
        return roles

    def alignment(self, column: int) -> int:
        if column in self.NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if column in self.CENTERED:
            return int(Qt.AlignmentFlag.AlignCenter)
        return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)

    def _display(self, entry: CatalogEntry, column: int) -> str:
        model, variant, fit = entry.model, entry.variant, entry.fit
        if column == self.COL_FAMILY:
            return self.family_title(model.family)
        if column == self.COL_MODEL:
            return model.name
        if column == self.COL_PARAMS:
            return params_text(model)
        if column == self.COL_QUANT:
            return variant.quant
        if column == self.COL_SIZE:
            return size_text(entry)
        if column == self.COL_LICENCE:
            return model.license.name
        if column == self.COL_ZH:
            return "✓" if model.supports_chinese else ""
        if column == self.COL_VERDICT:
            return verdict_text(entry)
        if column == self.COL_MEMORY:
            memory = entry.memory_bytes
            if memory is None:
                return "" if not entry.estimated else "-"
            return PREDICTED + fmt.size(memory)
        if column == self.COL_SPEED:
            if fit is None or fit.tokens_per_s is None or fit.verdict == "no":
                return "" if not entry.estimated else "-"
            return fmt.rate(fit.tokens_per_s, predicted=True)
        if column == self.COL_DISK:
            return "✓" if entry.on_disk else ""
        return ""

    def _sort_value(self, row: int, entry: CatalogEntry, column: int) -> Any:
        if column == self.COL_SIZE:
            return float(entry.download_size[0] or 0)  # the size shown, not the catalog's
        key = self.CATALOG_SORT.get(column)
        if key is not None:
            return self._ranks[key][row]
        fit = entry.fit
        if column == self.COL_LICENCE:
            return entry.model.license.name.lower()
        if column == self.COL_ZH:
            return 1 if entry.model.supports_chinese else 0
        if column == self.COL_DISK:
            return 1 if entry.on_disk else 0
        if column == self.COL_VERDICT:
            if fit is None:
                return 4.0
            rank = _VERDICT_RANK[fit.verdict]
            if fit.verdict == "partial" and fit.n_layers:
                rank += 1.0 - fit.n_gpu_layers / fit.n_layers  # more layers on the GPU first
            return rank
        if column == self.COL_MEMORY:
            memory = entry.memory_bytes
            return -1.0 if memory is None else float(memory)
        if column == self.COL_SPEED:
            if fit is None or fit.tokens_per_s is None or fit.verdict == "no":
                return -1.0
            return float(fit.tokens_per_s)
        return self._display(entry, column).lower()

    def _tooltip(self, entry: CatalogEntry, column: int) -> str | None:
        model, variant, fit = entry.model, entry.variant, entry.fit
        if column == self.COL_MODEL:
            return f"{model.name}\n{variant.id}\n{model.description}".strip()
        if column == self.COL_PARAMS:
            if model.n_params_active:
                return (
                    self.tr("%1 parameters in all, %2 active per token (mixture of experts).")
                    .replace("%1", fmt.integer(model.n_params))
                    .replace("%2", fmt.integer(model.n_params_active))
                )
            return self.tr("%1 parameters.").replace("%1", fmt.integer(model.n_params))
        if column == self.COL_QUANT:
            return (
                self.tr("%1 files from %2")
                .replace("%1", variant.format.upper())
                .replace("%2", variant.repo)
            )
        if column == self.COL_SIZE:
            if variant.verified:
                return self.tr("Size checked against the Hub.")
            return self.tr(
                "Estimated from the model's shapes and the quant's tensor types, not verified "
                "against the Hub (`llm-scout catalog refresh` checks it)."
            )
        if column == self.COL_LICENCE:
            licence = model.license
            text = (
                self.tr("Commercial use allowed.")
                if licence.commercial_use
                else self.tr("Not for commercial use.")
            )
            return f"{licence.name}: {text} {licence.note}".strip()
        if column == self.COL_ZH:
            return self.tr("Speaks Chinese.") if model.supports_chinese else None
        if column == self.COL_VERDICT:
            return verdict_tooltip(entry)
        if column == self.COL_MEMORY and fit is not None:
            text = (
                self.tr(
                    "Needs, with the whole context of %1 tokens in use: %2 of RAM and %3 of "
                    "video memory (predicted)."
                )
                .replace("%1", fmt.integer(entry.n_ctx))
                .replace("%2", fmt.size(fit.need_ram.total))
                .replace("%3", fmt.size(fit.vram_bytes))
            )
            if entry.from_file:
                text += " " + self.tr("From the downloaded file's header.")
            return text
        if column == self.COL_SPEED and fit is not None and fit.tokens_per_s is not None:
            return self.tr("Predicted generation speed, from memory bandwidth.")
        if column == self.COL_DISK and entry.path is not None:
            return str(entry.path)
        return None


class CatalogTableModel(QStandardItemModel, _Columns):
    """Every catalog variant, one per row, with its estimate."""

    def __init__(
        self, pairs: Iterable[tuple[CatalogModel, Variant]], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        ordered = sorted(pairs, key=VARIANT_SORT_KEYS["family"])
        self._entries = [CatalogEntry(model, variant) for model, variant in ordered]
        self._row_of = {entry.variant_id: row for row, entry in enumerate(self._entries)}
        # Rank of each row under each of the catalog's sort keys: numbers the proxy compares.
        ranks: dict[str, list[int]] = {}
        for key in set(self.CATALOG_SORT.values()):
            sort_key = VARIANT_SORT_KEYS[key]
            order = sorted(range(len(ordered)), key=lambda i: sort_key(ordered[i]))
            rank_of = [0] * len(ordered)
            for rank, row in enumerate(order):
                rank_of[row] = rank
            ranks[key] = rank_of
        self.cells = CatalogCells(
            self._entries,
            family_titles(m for m, _v in ordered),
            ranks,
            QApplication.palette().color(QPalette.ColorRole.PlaceholderText),
        )
        self.n_ctx = 0
        self.setRowCount(len(self._entries))
        self.setColumnCount(self.COLUMN_COUNT)
        self._write_header()
        all_columns = tuple(range(self.COLUMN_COUNT))
        self._store(
            all_columns,
            [
                [self.cells.roles(row, entry, column) for column in all_columns]
                for row, entry in enumerate(self._entries)
            ],
        )

    # -- contents -------------------------------------------------------------------------------

    def entry(self, row: int) -> CatalogEntry | None:
        return self._entries[row] if 0 <= row < len(self._entries) else None

    def entries(self) -> list[CatalogEntry]:
        return list(self._entries)

    def row_of(self, variant_id: str) -> int:
        return self._row_of.get(variant_id, -1)

    def family_title(self, family: str) -> str:
        return self.cells.family_title(family)

    def set_estimate(
        self,
        rows: Iterable[FitRow],
        installed: Mapping[str, tuple[Path, str]],
        n_ctx: int,
        *,
        prepared: PreparedEstimate | None = None,
    ) -> None:
        """The estimate of every row at ``n_ctx`` and what is on disk, in one update.
        ``prepared``: the same, already made into cells by :meth:`CatalogCells.prepare` on a
        worker thread (then ``rows`` and ``installed`` are not read again)."""
        if prepared is None or prepared.n_ctx != n_ctx:
            prepared = self.cells.prepare(rows, installed, n_ctx)
        self._entries = prepared.entries
        self.n_ctx = n_ctx
        self._store(self.cells.ESTIMATE_COLUMNS, prepared.cells)
        self._write_header()

    # -- the cells ------------------------------------------------------------------------------

    def _store(self, columns: Sequence[int], cells: Sequence[Sequence[dict[int, Any]]]) -> None:
        """Store the roles of ``columns`` for every row (``cells[row][i]`` for
        ``columns[i]``), then announce it once: one ``dataChanged`` over the columns written,
        not one per cell."""
        if not columns or not cells:
            return
        leftmost = min(columns)
        blocked = self.blockSignals(True)
        try:
            for row, (entry, row_cells) in enumerate(zip(self._entries, cells, strict=True)):
                for column, roles in zip(columns, row_cells, strict=True):
                    index = self.index(row, column)
                    self.clearItemData(index)
                    self.setItemData(index, roles)
                if leftmost != 0:
                    self.setData(self.index(row, 0), entry, ROW_ROLE)
        finally:
            self.blockSignals(blocked)
        self.dataChanged.emit(
            self.index(0, leftmost), self.index(len(self._entries) - 1, max(columns))
        )

    def alignment(self, column: int) -> int:
        return self.cells.alignment(column)

    def _write_header(self) -> None:
        horizontal = Qt.Orientation.Horizontal
        for column, (title, tip) in enumerate(
            zip(self._titles(), self._header_tips(), strict=True)
        ):
            self.setHeaderData(column, horizontal, title, Qt.ItemDataRole.DisplayRole)
            self.setHeaderData(column, horizontal, tip, Qt.ItemDataRole.ToolTipRole)
            self.setHeaderData(
                column, horizontal, self.alignment(column), Qt.ItemDataRole.TextAlignmentRole
            )

    def _titles(self) -> tuple[str, ...]:
        return (
            self.tr("Family"),
            self.tr("Model"),
            self.tr("Params"),
            self.tr("Quant"),
            self.tr("Size"),
            self.tr("Verdict"),
            self.tr("Memory"),
            self.tr("Speed"),
            self.tr("On disk"),
            self.tr("Licence"),
            self.tr("中文"),
        )

    def _header_tips(self) -> tuple[str, ...]:
        context = fmt.integer(self.n_ctx) if self.n_ctx else "-"
        tips = {
            self.COL_FAMILY: self.tr("The model family (who trained it)."),
            self.COL_MODEL: self.tr("The model's name in the catalog."),
            self.COL_PARAMS: self.tr(
                "Parameters. For a mixture of experts, the active parameters per token follow "
                "in brackets (A3.3B): speed follows those, memory the total."
            ),
            self.COL_QUANT: self.tr(
                "Quantization: how many bits each weight keeps (Q4_K_M about 4.8, Q8_0 about "
                "8.5). AWQ models are 4-bit safetensors for vLLM on NVIDIA GPUs, not GGUF."
            ),
            self.COL_SIZE: self.tr(
                "Download size. %1 marks a size estimated from the model's shapes, not verified "
                "against the Hub (`llm-scout catalog refresh` checks it)."
            ).replace("%1", UNVERIFIED),
            self.COL_VERDICT: self.tr(
                "Where it would run here at %1 tokens of context: GPU (every layer on the GPU), "
                "partial N/M (N of M layers on the GPU), CPU (in RAM) or no (does not fit). "
                "%2 marks a context longer than the model was trained for."
            )
            .replace("%1", context)
            .replace("%2", PAST_TRAINED),
            self.COL_MEMORY: self.tr(
                "Predicted memory (%1) for a run at %2 tokens of context: RAM and video memory "
                "together. The detail panel splits it."
            )
            .replace("%1", PREDICTED)
            .replace("%2", context),
            self.COL_SPEED: self.tr(
                "Predicted generation speed in tokens per second (%1): a memory-bandwidth "
                "estimate, calibrated on real runs."
            ).replace("%1", PREDICTED),
            self.COL_DISK: self.tr(
                "Whether the files are on this machine (downloaded or found by the library)."
            ),
            self.COL_LICENCE: self.tr(
                "The licence; the tooltip says whether commercial use is allowed."
            ),
            self.COL_ZH: self.tr("Whether the model speaks Chinese well (中文)."),
        }
        return tuple(tips[column] for column in range(self.COLUMN_COUNT))
