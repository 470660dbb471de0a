"""The Models page: which model fits this machine (or the what-if profile), and why.

Every catalog variant is a row with its verdict (GPU / partial N/M / CPU / no), predicted
memory and speed at the chosen context length, and whether it is on disk. The filters (search
words, family, format, fits only, fully on GPU, commercial licence, Chinese) only hide rows.
Estimates run off the GUI thread (:class:`~desktop.ui.models.catalog_estimates.CatalogEstimates`:
a newer context, profile or library abandons the older run) and land in the table in one
update that keeps the selection and the scroll position: a new context on
:class:`~desktop.ui.widgets.catalog_filter_bar.CatalogFilterBar`, ``state.profile_changed`` (the
toolbar's profile) and ``state.library_changed`` (a finished download: its row flips to on disk
and its numbers come from the file's header) each ask for one.

The detail panel shows the selected variant's memory against the machine, its largest context,
load time, disk and licence, and the buttons that lead on: Download (a job for the Downloads
page) and Open in Playground.

The Recommended tab (:class:`~desktop.ui.widgets.recommend_view.RecommendView`) ranks each
estimate the table shows for the task chosen in "Best for"; a pick it shows becomes the table's
current row (the detail panel follows).
"""

from __future__ import annotations

import itertools
import logging

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPoint,
    QSettings,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMenu,
    QSplitter,
    QStyle,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.download import DownloadJob, DownloadState, request_for_variant
from desktop.core.engine import CrossCheck, cross_check
from desktop.core.errors import ScoutError
from desktop.core.fit import CalibrationStore, FitTarget
from desktop.core.gguf import read_gguf
from desktop.core.hardware import HardwareProfile
from desktop.ui.errors import describe, show_error
from desktop.ui.models.catalog_estimates import CatalogEstimate, CatalogEstimates
from desktop.ui.models.catalog_filter import CatalogFilterProxy
from desktop.ui.models.catalog_model import (
    ROW_ROLE,
    VERDICT_ROLE,
    CatalogEntry,
    CatalogTableModel,
    widest_verdict,
)
from desktop.ui.state import AppState
from desktop.ui.theme import VERDICT_COLORS
from desktop.ui.widgets.catalog_filter_bar import CatalogFilterBar
from desktop.ui.widgets.model_detail import ModelDetailPanel
from desktop.ui.widgets.recommend_view import RecommendView
from desktop.ui.widgets.verdict import VerdictDelegate, badge_width
from desktop.ui.window_settings import window_settings
from desktop.ui.workers import TaskControl, run_task

log = logging.getLogger(__name__)

BUSY_DELAY_MS = 150  # show the busy indicator only for estimates that take a while
JOB_POLL_MS = 500  # how often the detail panel reads the progress of its downloads
GROUP = "models"
#: Columns shown only when the table has room for them next to a readable model name (decided
#: once, on the first show; the header's menu shows or hides any column later). The family is
#: the model name's first word and a filter; the licence is in the detail panel too.
OPTIONAL_COLUMNS = (CatalogTableModel.COL_LICENCE, CatalogTableModel.COL_FAMILY)
#: The widest a column gets when fitted to its contents (the tooltip has the full text).
COLUMN_CAPS = {CatalogTableModel.COL_LICENCE: 150}
MODEL_COLUMN_ROOM = 210  # what the model name keeps before an optional column is shown
MODEL_COLUMN_MIN = 120


class ModelsPage(QWidget):
    """The catalog table, its filters, the context control and the detail panel.

    Signals:
        open_in_playground_requested(str): the path of the model file to open in the
            Playground (the window connects it once that page exists).
        open_server_in_playground_requested(str, str): a vLLM server started from the detail
            panel, to open in the Playground (its base URL, the model it serves).
        estimate_updated(): the table shows a new estimate (``shown_ctx``, ``shown_profile``).
    """

    open_in_playground_requested = Signal(str)
    open_server_in_playground_requested = Signal(str, str)
    estimate_updated = Signal()

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        catalog = state.workspace.catalog
        pairs = catalog.variants()
        self.model = CatalogTableModel(pairs, self)
        self.proxy = CatalogFilterProxy(catalog, self)
        self.proxy.setSourceModel(self.model)
        self.estimates = CatalogEstimates(state, pairs, self, cells=self.model.cells)
        self.shown_ctx = 0
        self._calibration_seen: tuple[int, int] | None = None
        self.shown_profile: HardwareProfile | None = None
        self._jobs: dict[str, DownloadJob] = {}
        self._wanted_selection = ""
        self._columns_fitted = False
        self._closed = False

        families = [(f, self.model.family_title(f)) for f in catalog.families]
        self.bar = CatalogFilterBar(families, state.settings.default_ctx)
        self._build()
        self._restore(window_settings())
        self.proxy.set_filters(self.bar.filters())
        self._connect()
        self._update_count()
        self._estimate(targets=True)

    # -- building -----------------------------------------------------------------------------

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 6)
        outer.setSpacing(6)
        outer.addWidget(self.bar)

        self.table = QTableView()
        self.table.setObjectName("modelsTable")
        self.table.setAccessibleName(self.tr("Models in the catalog"))
        self.table.setModel(self.proxy)
        self.table.setItemDelegateForColumn(
            CatalogTableModel.COL_VERDICT, VerdictDelegate(VERDICT_ROLE, self.table)
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setSortingEnabled(True)
        self.table.setTabKeyNavigation(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setSortIndicator(CatalogTableModel.COL_FAMILY, Qt.SortOrder.AscendingOrder)
        header.setSectionsMovable(True)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._on_header_context_menu_requested)
        for column in OPTIONAL_COLUMNS:
            header.hideSection(column)
        self.table.installEventFilter(self)

        self.detail = ModelDetailPanel()
        # "Recommended" (issue 24): the best picks for a task beside the whole table.
        self.recommend = RecommendView(self.state.workspace.catalog)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("modelsTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.table, self.tr("All models"))
        self.tabs.addTab(self.recommend, self.tr("Recommended"))
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("modelsSplitter")
        self.splitter.addWidget(self.tabs)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 0)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([800, 290])
        outer.addWidget(self.splitter, 1)

        self.legend_label = QLabel(self._legend_html())
        self.legend_label.setObjectName("verdictLegend")
        self.legend_label.setWordWrap(True)
        self.legend_label.setTextFormat(Qt.TextFormat.RichText)
        outer.addWidget(self.legend_label)

        self.setFocusProxy(self.table)
        order = [
            *self.bar.focus_chain(),
            self.table,
            self.detail.download_button,
            self.detail.playground_button,
        ]
        for before, after in itertools.pairwise(order):
            QWidget.setTabOrder(before, after)

        self._busy_timer = QTimer(self)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.setInterval(BUSY_DELAY_MS)
        self._busy_timer.timeout.connect(self._on_busy_timer_timeout)
        self._job_timer = QTimer(self)
        self._job_timer.setInterval(JOB_POLL_MS)
        self._job_timer.timeout.connect(self._on_job_timer_timeout)

    def _legend_html(self) -> str:
        def swatch(key: str) -> str:
            return f'<span style="color:{VERDICT_COLORS[key]}">■</span>'

        parts = [
            f"{swatch('gpu')} " + self.tr("GPU = all layers on the GPU"),
            f"{swatch('partial')} " + self.tr("partial = N of M layers on the GPU"),
            f"{swatch('cpu')} " + self.tr("CPU = runs in RAM"),
            f"{swatch('no')} " + self.tr("no = does not fit"),
            self.tr("≈ predicted"),
            self.tr("~ size not verified"),
            self.tr("⚠ past the trained context"),
        ]
        return " · ".join(parts)

    def _connect(self) -> None:
        self.bar.context_changed.connect(self._on_bar_context_changed)
        self.bar.filters_changed.connect(self._on_bar_filters_changed)
        self.estimates.estimated.connect(self._on_estimates_estimated)
        self.estimates.failed.connect(self._on_estimates_failed)
        for signal in (
            self.proxy.rowsInserted,
            self.proxy.rowsRemoved,
            self.proxy.modelReset,
            self.proxy.layoutChanged,
        ):
            signal.connect(self._update_count)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_row_changed)
        self.table.doubleClicked.connect(self._on_table_double_clicked)
        self.detail.download_requested.connect(self._on_detail_download_requested)
        self.detail.playground_requested.connect(self._on_detail_playground_requested)
        self.detail.vllm_playground_requested.connect(self.open_server_in_playground_requested)
        self.detail.crosscheck_requested.connect(self._on_detail_crosscheck_requested)
        self.recommend.variant_selected.connect(self._on_recommend_variant_selected)
        self.state.profile_changed.connect(self._on_state_profile_changed)
        self.state.library_changed.connect(self._on_state_library_changed)
        self.state.calibration_changed.connect(self._on_state_calibration_changed)
        self.state.downloads_changed.connect(self._refresh_detail)

    # -- columns ------------------------------------------------------------------------------

    def _fit_columns(self) -> None:
        """Once, when the table first shows estimates: each column as wide as its contents
        (capped), the optional columns where there is room, the model name taking the rest."""
        if self._columns_fitted or not self.table.isVisible() or self.shown_ctx == 0:
            return
        self._columns_fitted = True
        header = self.table.horizontalHeader()
        widths: dict[int, int] = {}
        margin = 2 * self.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin) + 6
        for column in range(CatalogTableModel.COLUMN_COUNT):
            # The title's own width, not the sort arrow's too: a sorted column may elide it.
            title = str(self.model.headerData(column, Qt.Orientation.Horizontal))
            width = max(
                self.table.sizeHintForColumn(column),
                header.fontMetrics().horizontalAdvance(title) + margin,
            )
            widths[column] = min(width, COLUMN_CAPS.get(column, width))
        widths[CatalogTableModel.COL_VERDICT] = max(
            widths[CatalogTableModel.COL_VERDICT], badge_width(self.table.font(), widest_verdict())
        )
        for column, width in widths.items():
            header.resizeSection(column, width)
        model = CatalogTableModel.COL_MODEL
        room = self.table.viewport().width() - sum(
            width
            for column, width in widths.items()
            if column != model and column not in OPTIONAL_COLUMNS
        )
        for column in OPTIONAL_COLUMNS:
            shown = room - widths[column] >= MODEL_COLUMN_ROOM
            header.setSectionHidden(column, not shown)
            if shown:
                room -= widths[column]
        header.resizeSection(model, max(MODEL_COLUMN_MIN, min(widths[model], room)))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self._fit_columns)
        # Runs recorded since (the Playground, the CLI in another process) may have changed
        # this machine's calibration: estimate again when its file changed.
        if self.shown_ctx and CalibrationStore().version() != self._calibration_seen:
            self._estimate()

    def _on_header_context_menu_requested(self, position: QPoint) -> None:
        header = self.table.horizontalHeader()
        menu = QMenu(self)
        menu.setObjectName("columnsMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        fixed = (CatalogTableModel.COL_MODEL, CatalogTableModel.COL_VERDICT)
        for column in range(CatalogTableModel.COLUMN_COUNT):
            title = str(self.model.headerData(column, Qt.Orientation.Horizontal))
            action = menu.addAction(title)
            action.setCheckable(True)
            action.setChecked(not header.isSectionHidden(column))
            action.setEnabled(column not in fixed)
            action.toggled.connect(lambda shown, c=column: header.setSectionHidden(c, not shown))
        menu.popup(header.mapToGlobal(position))

    # -- persistence --------------------------------------------------------------------------

    def _restore(self, settings: QSettings) -> None:
        settings.beginGroup(GROUP)
        self.bar.restore(settings)
        try:
            column = int(str(settings.value("sort_column", CatalogTableModel.COL_FAMILY)))
            order = Qt.SortOrder(int(str(settings.value("sort_order", 0))))
        except ValueError:
            column, order = CatalogTableModel.COL_FAMILY, Qt.SortOrder.AscendingOrder
        header = self.table.horizontalHeader()
        header_state = settings.value("header")
        if header_state is not None and header.restoreState(header_state):
            self._columns_fitted = True
        if 0 <= column < CatalogTableModel.COLUMN_COUNT:
            self.table.sortByColumn(column, order)
        splitter = settings.value("splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)
        self.recommend.restore(settings)
        if str(settings.value("tab", "")) == "recommended":
            self.tabs.setCurrentWidget(self.recommend)
        self._wanted_selection = str(settings.value("selected", ""))
        settings.endGroup()

    def save_state(self, settings: QSettings) -> None:
        """Filters, context, sort, columns, splitter and selection, for the next start."""
        header = self.table.horizontalHeader()
        entry = self.current_entry()
        settings.beginGroup(GROUP)
        self.bar.save(settings)
        settings.setValue("sort_column", header.sortIndicatorSection())
        settings.setValue("sort_order", header.sortIndicatorOrder().value)
        settings.setValue("splitter", self.splitter.saveState())
        self.recommend.save(settings)
        settings.setValue(
            "tab", "recommended" if self.tabs.currentWidget() is self.recommend else ""
        )
        if self._columns_fitted:
            settings.setValue("header", header.saveState())
        settings.setValue("selected", entry.variant_id if entry is not None else "")
        settings.endGroup()

    def shutdown(self) -> None:
        """Abandon a running estimate, stop polling downloads and stop following the state
        (the window is closing or being rebuilt)."""
        if self._closed:
            return
        self._closed = True
        self.detail.vllm_server.shutdown()  # a vLLM server started here ends with the window
        self.estimates.close()
        self._busy_timer.stop()
        self._job_timer.stop()
        for signal, slot in (
            (self.state.profile_changed, self._on_state_profile_changed),
            (self.state.library_changed, self._on_state_library_changed),
            (self.state.downloads_changed, self._refresh_detail),
        ):
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass

    # -- filters and context ------------------------------------------------------------------

    def _on_bar_filters_changed(self) -> None:
        self.proxy.set_filters(self.bar.filters())
        self._update_count()

    def _update_count(self) -> None:
        self.bar.set_count(self.proxy.rowCount(), self.model.rowCount())

    @property
    def context(self) -> int:
        return self.bar.context

    def set_context(self, n_ctx: int) -> None:
        """Set the context as the spin box would (the slider follows)."""
        self.bar.set_context(n_ctx)

    def _on_bar_context_changed(self, n_ctx: int) -> None:
        self._estimate()

    # -- estimating ---------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """An estimate is running (or waits for this machine's probe)."""
        return self.estimates.busy or self.state.profile is None

    def _estimate(self, *, targets: bool = False, profile: bool = False) -> None:
        """Ask for the estimate at the current context; ``targets``/``profile``: what changed."""
        if self._closed:
            return
        if not self.estimates.request(self.context, targets=targets, profile=profile):
            self._busy_timer.stop()
            self.bar.set_busy(self.tr("Detecting this machine…"))
        elif not self._busy_timer.isActive() and not self.bar.busy_shown:
            self._busy_timer.start()

    def _on_busy_timer_timeout(self) -> None:
        if self.estimates.busy:
            self.bar.set_busy(self.tr("Estimating…"))

    def _on_estimates_estimated(self, result: CatalogEstimate) -> None:
        if self._closed or not isValid(self):
            return
        self._busy_timer.stop()
        self.bar.set_busy(None)
        bars = (self.table.verticalScrollBar(), self.table.horizontalScrollBar())
        positions = [bar.value() for bar in bars]
        self.model.set_estimate(
            result.rows, result.installed, result.n_ctx, prepared=result.prepared
        )
        for bar, position in zip(bars, positions, strict=True):
            bar.setValue(position)
        self.shown_ctx = result.n_ctx
        self.shown_profile = result.profile
        self._calibration_seen = CalibrationStore().version()
        self.recommend.set_estimate(result.rows, result.n_ctx, self.state.profile_name)
        self._fit_columns()
        self._update_count()
        if not self.table.selectionModel().currentIndex().isValid():
            self._select_initial()
        self._refresh_detail()
        self.estimate_updated.emit()

    def _on_estimates_failed(self, error: Exception) -> None:
        if self._closed or not isValid(self):
            return
        self._busy_timer.stop()
        if not isinstance(error, ScoutError):
            log.error("The catalog estimate failed", exc_info=error)
        _title, sentence = describe(error)
        self.bar.set_busy(self.tr("No estimate: %1").replace("%1", sentence), error=True)

    def _on_state_profile_changed(self) -> None:
        self._estimate(profile=True)

    def _on_state_library_changed(self) -> None:
        self._estimate(targets=True)

    def _on_state_calibration_changed(self) -> None:
        self._estimate()

    # -- selection and details ----------------------------------------------------------------

    def current_entry(self) -> CatalogEntry | None:
        index = self.table.selectionModel().currentIndex()
        if not index.isValid():
            return None
        entry = index.siblingAtColumn(0).data(ROW_ROLE)  # the entry is kept in column 0
        return entry if isinstance(entry, CatalogEntry) else None

    def select_variant(self, variant_id: str) -> bool:
        """Make the row of ``variant_id`` current (when the filters show it)."""
        row = self.model.row_of(variant_id)
        if row < 0:
            return False
        index = self.proxy.mapFromSource(self.model.index(row, CatalogTableModel.COL_MODEL))
        if not index.isValid():
            return False
        self.table.selectionModel().setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        return True

    def _on_recommend_variant_selected(self, variant_id: str) -> None:
        """A pick or a point of the Recommended view: its row becomes current (the detail panel
        shows it); when the table's filters hide it, the detail panel shows it anyway."""
        if self.select_variant(variant_id):
            return
        entry = self.model.entry(self.model.row_of(variant_id))
        if entry is not None:
            state, percent = self._download_state(variant_id)
            self.detail.show_entry(
                entry, self.shown_profile, download_state=state, download_percent=percent
            )

    def _select_initial(self) -> None:
        wanted, self._wanted_selection = self._wanted_selection, ""
        if wanted and self.select_variant(wanted):
            return
        if self.proxy.rowCount() > 0:
            first = self.proxy.index(0, 0).data(ROW_ROLE)
            if isinstance(first, CatalogEntry):
                self.select_variant(first.variant_id)

    def _on_table_current_row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        self._refresh_detail()

    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        self._focus_detail()

    def _focus_detail(self) -> None:
        button = self.detail.primary_button()
        if button is not None:
            button.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            self.detail.setFocus(Qt.FocusReason.OtherFocusReason)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.table
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and self.current_entry() is not None
        ):
            self._focus_detail()
            return True
        return super().eventFilter(watched, event)

    def _refresh_detail(self) -> None:
        entry = self.current_entry()
        state, percent = self._download_state(entry.variant_id if entry is not None else "")
        self.detail.show_entry(
            entry, self.shown_profile, download_state=state, download_percent=percent
        )

    # -- downloads ----------------------------------------------------------------------------

    def _download_state(self, variant_id: str) -> tuple[str, int | None]:
        job = self._jobs.get(variant_id)
        if job is None:
            return "", None
        state = job.state
        if state is DownloadState.DONE:
            return "done", 100
        if state is DownloadState.FAILED:
            return "failed", None
        if state is DownloadState.CANCELLED:
            return "", None
        if state is DownloadState.PAUSED:
            return "paused", None
        fraction = job.progress.fraction
        return "running", None if fraction is None else int(fraction * 100)

    def _on_detail_download_requested(self) -> None:
        entry = self.detail.entry
        if entry is None or entry.on_disk:
            return
        if self._download_state(entry.variant_id)[0] in ("running", "paused", "done"):
            return
        try:
            job = self.state.downloads.submit(request_for_variant(entry.variant))
        except ScoutError as exc:
            show_error(self, exc)
            return
        self._jobs[entry.variant_id] = job
        self.state.downloads_changed.emit()
        self._job_timer.start()
        self._refresh_detail()

    def _on_job_timer_timeout(self) -> None:
        if all(job.state.finished for job in self._jobs.values()):
            self._job_timer.stop()
        self._refresh_detail()

    def _on_detail_crosscheck_requested(self) -> None:
        """llama.cpp's own projection for the selected file, off the GUI thread (seconds)."""
        entry = self.detail.entry
        profile = self.state.profile
        if entry is None or entry.path is None or entry.fit is None or profile is None:
            return
        path, result = entry.path, entry.fit
        self.detail.set_crosscheck_busy()

        def work(control: TaskControl) -> CrossCheck:
            target = FitTarget.from_gguf(read_gguf(path))
            return cross_check(path, target, profile, result)

        def done(check: CrossCheck) -> None:
            if not self._closed and isValid(self):
                self.detail.show_crosscheck(check)

        def failed(error: Exception) -> None:
            if not self._closed and isValid(self):
                title, sentence = describe(error)
                self.detail.show_crosscheck(None, f"{title}: {sentence}")

        run_task(work, on_done=done, on_failed=failed)

    def _on_detail_playground_requested(self) -> None:
        entry = self.detail.entry
        if entry is not None and entry.path is not None:
            self.open_in_playground_requested.emit(str(entry.path))
