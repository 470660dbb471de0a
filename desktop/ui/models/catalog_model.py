"""The catalog as a table: every variant with its fit estimate for the active profile.

:class:`CatalogTableModel` holds one :class:`CatalogEntry` per catalog variant, in the catalog's
family order. Its rows never change: an estimate (made on a worker thread by
:class:`~desktop.core.fit.CatalogEstimator`) arrives as plain values and
:meth:`CatalogTableModel.set_estimate` replaces the entries in one go and announces it with one
``dataChanged`` over the whole table, so a view keeps its selection and scroll position.

Sorting goes through a proxy on :data:`SORT_ROLE`, whose values have one type per column:
numbers for numeric columns (the catalog's own sort keys turned into ranks for the catalog
columns), lowercase text otherwise. :data:`ROW_ROLE` gives a row's :class:`CatalogEntry` and
:data:`VERDICT_ROLE` the verdict key ("gpu", "partial", "cpu", "no") a badge is coloured by.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from desktop.core.catalog import VARIANT_SORT_KEYS, CatalogModel, Variant
from desktop.core.fit import FitResult, FitRow
from desktop.ui import format as fmt

_Index = QModelIndex | QPersistentModelIndex

#: The :class:`CatalogEntry` of a row (any column).
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
        """The context asked for is longer than the model was trained for."""
        trained = self.model.context_length
        return self.fit is not None and trained > 0 and self.n_ctx > trained

    @property
    def memory_bytes(self) -> int | None:
        """Everything the run needs: RAM and video memory together (the detail panel splits),
        without the page cache the system can drop."""
        if self.fit is None:
            return None
        return self.fit.ram_bytes - self.fit.page_cache_bytes + self.fit.vram_bytes


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
    if entry.past_trained_context:
        lines.append(
            _tr("%1 tokens is past the %2 the model was trained for; answers may degrade.")
            .replace("%1", fmt.integer(entry.n_ctx))
            .replace("%2", fmt.integer(entry.model.context_length))
        )
    return "\n".join(lines)


class CatalogTableModel(QAbstractTableModel):
    """Every catalog variant, one per row, with its estimate."""

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
        COL_SIZE: "size",
    }

    def __init__(
        self, pairs: Iterable[tuple[CatalogModel, Variant]], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        ordered = sorted(pairs, key=VARIANT_SORT_KEYS["family"])
        self._entries = [CatalogEntry(model, variant) for model, variant in ordered]
        self._row_of = {entry.variant_id: row for row, entry in enumerate(self._entries)}
        self._families = family_titles(m for m, _v in ordered)
        # Rank of each row under each of the catalog's sort keys: numbers the proxy compares.
        self._ranks: dict[str, list[int]] = {}
        for key in set(self.CATALOG_SORT.values()):
            sort_key = VARIANT_SORT_KEYS[key]
            order = sorted(range(len(ordered)), key=lambda i: sort_key(ordered[i]))
            ranks = [0] * len(ordered)
            for rank, row in enumerate(order):
                ranks[row] = rank
            self._ranks[key] = ranks
        self.n_ctx = 0

    # -- contents -------------------------------------------------------------------------------

    def entry(self, row: int) -> CatalogEntry | None:
        return self._entries[row] if 0 <= row < len(self._entries) else None

    def entries(self) -> list[CatalogEntry]:
        return list(self._entries)

    def row_of(self, variant_id: str) -> int:
        return self._row_of.get(variant_id, -1)

    def family_title(self, family: str) -> str:
        return self._families.get(family, family.capitalize())

    def set_estimate(
        self,
        rows: Iterable[FitRow],
        installed: Mapping[str, tuple[Path, str]],
        n_ctx: int,
    ) -> None:
        """The estimate of every row at ``n_ctx`` and what is on disk, in one update."""
        fits = {row.variant.id: row for row in rows}
        updated = []
        for entry in self._entries:
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
                )
            )
        self._entries = updated
        self.n_ctx = n_ctx
        if updated:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(updated) - 1, self.COLUMN_COUNT - 1)
            )
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self.COLUMN_COUNT - 1)

    # -- Qt model -------------------------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.COLUMN_COUNT

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < self.COLUMN_COUNT:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._titles()[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._header_tips()[section]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if section in self.NUMERIC:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if section in self.CENTERED:
                return int(Qt.AlignmentFlag.AlignCenter)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        return None

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
                "Download size. %1 marks a size from the publisher that was not verified against "
                "the Hub (`llm-scout catalog refresh` checks it)."
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

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        entry = self.entry(index.row())
        if entry is None:
            return None
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(entry, column)
        if role == SORT_ROLE:
            return self._sort_value(index.row(), entry, column)
        if role == ROW_ROLE:
            return entry
        if role == VERDICT_ROLE:
            return entry.verdict
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(entry, column)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return self.headerData(column, Qt.Orientation.Horizontal, role)
        if role == Qt.ItemDataRole.AccessibleTextRole and column == self.COL_VERDICT:
            return f"{verdict_text(entry)}. {verdict_tooltip(entry)}"
        if role == Qt.ItemDataRole.ForegroundRole and self._display(entry, column) == "-":
            return QApplication.palette().color(QPalette.ColorRole.PlaceholderText)
        return None

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
            size = variant.size_bytes
            if not variant.verified and entry.fit is not None and entry.fit.download_bytes:
                size = entry.fit.download_bytes  # from the shapes, as the fit counts it
            if size is None:
                return "-"
            text = fmt.size(size, 1 if size >= 1 << 30 else 0)
            return text if variant.verified else UNVERIFIED + text
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
                self.tr("Predicted at %1 tokens of context: %2 of RAM and %3 of video memory.")
                .replace("%1", fmt.integer(entry.n_ctx))
                .replace("%2", fmt.size(fit.ram_bytes))
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
