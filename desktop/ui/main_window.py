"""The main window: a profile selector every page follows, a sidebar of pages, a status bar.

Geometry, the last page and the active profile persist in ``window.ini`` in the config folder
(pages keep their own filters there too, through :func:`window_settings`). Dropping a saved
hardware profile (``.json``) on the window makes it active; dropping ``.gguf`` files imports them
into the library.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QColor, QDragEnterEvent, QDropEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QSizePolicy,
    QStackedWidget,
    QToolBar,
    QWidget,
)

from desktop.core.download import DownloadState
from desktop.core.errors import ScoutError
from desktop.core.hardware import HardwareProfile
from desktop.core.settings import SettingsProblem
from desktop.core.storage import StoreNotice
from desktop.ui import format as fmt
from desktop.ui.errors import show_error
from desktop.ui.heap import freeze_heap
from desktop.ui.notices import NoticeBox, settings_problem_text, store_notice_text
from desktop.ui.pages.registry import LazyPages, PageSpec, page_specs
from desktop.ui.state import MACHINE_PREFIX, THIS_MACHINE_KEY, WHAT_IF_PREFIX, AppState
from desktop.ui.theme import WHAT_IF_TINT, app_icon, icon
from desktop.ui.window_settings import window_settings

log = logging.getLogger(__name__)

OPEN_PROFILE = "__open__"
# After the window is shown (and painted), the pages that work while hidden are made, one per
# turn of the event loop, so that the first paint does not wait for them.
BACKGROUND_PAGES_DELAY_MS = 150


class MainWindow(QMainWindow):
    """The window. ``pages`` maps a page key ("models") to its widget, made when first shown
    or asked for (:class:`~desktop.ui.pages.registry.LazyPages`).

    Signals:
        page_changed(str): the key of the page now shown.
    """

    page_changed = Signal(str)

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        self.setWindowTitle(self.tr("LLM Scout"))
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.setMinimumSize(QSize(960, 600))
        # Before the pages: their first work (a scan, an estimate) may find a damaged database.
        self.notices = NoticeBox(self)
        state.store_damaged.connect(self._on_state_store_damaged)
        self._specs: list[PageSpec] = page_specs()
        self._background_scheduled = False
        self._closed = False
        self._build_toolbar()
        self._build_body()
        self._build_status_bar()
        state.profile_changed.connect(self._on_state_profile_changed)
        state.profiles_changed.connect(self._fill_profile_combo)
        state.problem.connect(self._on_state_problem)
        state.downloads_changed.connect(self._refresh_status)
        self._status_timer = QTimer(self)
        self._status_timer.setInterval(500)
        self._status_timer.timeout.connect(self._refresh_status)
        self._status_timer.start()
        self._restore()
        self._on_state_profile_changed()
        state.load_machine_profiles()  # imported machines join the profile choices
        # What the window starts with, and the first catalog estimate (its fit targets stay),
        # out of the garbage collector's full passes: see desktop/ui/heap.py.
        QTimer.singleShot(0, freeze_heap)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._background_scheduled:
            self._background_scheduled = True
            QTimer.singleShot(BACKGROUND_PAGES_DELAY_MS, self, self._make_a_background_page)

    def _make_a_background_page(self) -> None:
        keys = self.pages.background_keys()
        if not keys or self._closed:
            return
        self.pages[keys[0]]
        if len(keys) > 1:
            QTimer.singleShot(0, self, self._make_a_background_page)

    def _freeze_after_first_estimate(self) -> None:
        if self.pages.is_made("models"):
            self.pages["models"].estimate_updated.disconnect(  # type: ignore[attr-defined]
                self._freeze_after_first_estimate
            )
        freeze_heap()

    # -- building -----------------------------------------------------------------------------

    def _build_toolbar(self) -> None:
        bar = QToolBar(self.tr("Profile"), self)
        bar.setObjectName("profileBar")
        bar.setMovable(False)
        bar.setFloatable(False)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        title = QLabel(self.tr("LLM Scout"))
        title.setObjectName("appTitle")
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        title.setFont(font)
        title.setContentsMargins(8, 0, 16, 0)
        bar.addWidget(title)
        label = QLabel(self.tr("Profile:"))
        bar.addWidget(label)
        self.profile_combo = QComboBox()
        self.profile_combo.setObjectName("profileCombo")
        self.profile_combo.setAccessibleName(self.tr("Hardware profile"))
        self.profile_combo.setToolTip(
            self.tr(
                "Every estimate follows this profile: this machine, or a what-if machine "
                "(a bundled profile, or one saved with `llm-scout hw --save` on another device)."
            )
        )
        self.profile_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        label.setBuddy(self.profile_combo)
        bar.addWidget(self.profile_combo)
        self.profile_summary = QLabel()
        self.profile_summary.setObjectName("profileSummary")
        self.profile_summary.setContentsMargins(12, 0, 8, 0)
        bar.addWidget(self.profile_summary)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        bar.addWidget(spacer)
        self._toolbar = bar
        self._fill_profile_combo()
        self.profile_combo.activated.connect(self._on_profile_combo_activated)

    def _fill_profile_combo(self) -> None:
        combo = self.profile_combo
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(self.tr("This machine"), THIS_MACHINE_KEY)
        combo.insertSeparator(combo.count())
        for name, title in self.state.what_if_titles().items():
            key = WHAT_IF_PREFIX + name
            combo.addItem(self.tr("What if: %1").replace("%1", title), key)
        for key, profile in self.state.loaded_profiles().items():
            if key.startswith(MACHINE_PREFIX):
                combo.addItem(self.tr("Imported: %1").replace("%1", profile.name or key), key)
            elif not key.startswith(WHAT_IF_PREFIX):
                combo.addItem(self.tr("File: %1").replace("%1", profile.name or key), key)
        combo.insertSeparator(combo.count())
        combo.addItem(self.tr("Open profile file…"), OPEN_PROFILE)
        index = combo.findData(self.state.profile_key)
        combo.setCurrentIndex(max(index, 0))
        combo.blockSignals(False)

    def _build_body(self) -> None:
        body = QWidget()
        layout = QHBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setAccessibleName(self.tr("Pages"))
        self.sidebar.setIconSize(QSize(22, 22))
        self.sidebar.setSpacing(2)
        self.sidebar.setFixedWidth(178)
        self.sidebar.setFrameShape(QListWidget.Shape.NoFrame)
        self.stack = QStackedWidget()
        titles = self.page_titles()
        for spec in self._specs:
            item = QListWidgetItem(icon(spec.icon), titles[spec.key])
            item.setData(Qt.ItemDataRole.UserRole, spec.key)
            item.setSizeHint(QSize(170, 40))
            self.sidebar.addItem(item)
        # Each page is made (and its module imported) when it is first shown or asked for.
        self.pages = LazyPages(self._specs, self.state, self.stack, self._on_page_made)
        self.sidebar.currentRowChanged.connect(self._on_sidebar_current_row_changed)
        layout.addWidget(self.sidebar)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(body)

    def _on_page_made(self, key: str, page: QWidget) -> None:
        """Connect a page to the window and to the pages made before it, once, when made."""
        if key == "models":
            self._connect_models(page)
        elif key in ("playground", "compare") and self.pages.is_made("history"):
            self._connect_stored(page, self.pages["history"])
        elif key == "history":
            self._connect_history(page)

    def _connect_models(self, models: QWidget) -> None:
        """The Models page's "Open in Playground" (a model file's path) opens that file in the
        Playground page and shows it; loading is left to the person (the settings come first)."""
        signal = getattr(models, "open_in_playground_requested", None)
        if signal is not None:
            signal.connect(self._on_models_open_in_playground_requested)
        served = getattr(models, "open_server_in_playground_requested", None)
        if served is not None:
            served.connect(self._on_models_open_server_in_playground_requested)
        estimated = getattr(models, "estimate_updated", None)
        if estimated is not None:
            estimated.connect(self._freeze_after_first_estimate)

    def _on_models_open_in_playground_requested(self, path: str) -> None:
        page = self.show_page("playground")
        open_model = getattr(page, "open_model", None)
        if open_model is not None:
            open_model(Path(path))

    def _on_models_open_server_in_playground_requested(self, base_url: str, model: str) -> None:
        """A vLLM server started on the Models page: the Playground connects to it."""
        page = self.show_page("playground")
        open_server = getattr(page, "open_server", None)
        if open_server is not None:
            open_server(base_url, model)

    @staticmethod
    def _connect_stored(page: QWidget, history: QWidget) -> None:
        """The History page reads again when ``page`` (the Playground, Compare) stored
        something."""
        stored = getattr(page, "history_changed", None)
        history_stored = getattr(history, "history_stored", None)
        if stored is not None and history_stored is not None:
            stored.connect(history_stored)

    def _connect_history(self, history: QWidget) -> None:
        """The History page follows what the Playground and Compare store (those made before
        it; later ones connect when made); its Open and Re-run lead to the Compare page or the
        Playground."""
        for key in ("playground", "compare"):
            if self.pages.is_made(key):
                self._connect_stored(self.pages[key], history)
        for name, slot in (
            ("open_comparison_requested", self._on_history_open_comparison_requested),
            ("rerun_comparison_requested", self._on_history_rerun_comparison_requested),
            ("rerun_answer_requested", self._on_history_rerun_answer_requested),
        ):
            signal = getattr(history, name, None)
            if signal is not None:
                signal.connect(slot)

    def _on_history_open_comparison_requested(self, comparison_id: int) -> None:
        page = self.show_page("compare")
        open_comparison = getattr(page, "open_comparison", None)
        if open_comparison is not None:
            open_comparison(comparison_id)

    def _on_history_rerun_comparison_requested(self, comparison_id: int) -> None:
        page = self.show_page("compare")
        rerun = getattr(page, "rerun_comparison", None)
        if rerun is not None:
            rerun(comparison_id)

    def _on_history_rerun_answer_requested(self, run: object) -> None:
        """A stored answer asked again: its model opens in the Playground (loading is left to
        the person), or its server and model name are filled in (connecting is left to the
        person), with its prompt and system prompt in place."""
        model = getattr(run, "model", None)
        remote = getattr(run, "remote", None)
        if model is None and remote is None:
            return
        page = self.show_page("playground")
        if model is not None:
            open_model = getattr(page, "open_model", None)
            if open_model is not None:
                open_model(model.path)
        elif remote is not None:
            show_server = getattr(page, "show_server", None)
            if show_server is not None:
                show_server(
                    str(remote.get("endpoint", "")),
                    str(remote.get("model", "")),
                    str(remote.get("key_env", "")),
                )
        prompt = getattr(page, "prompt", None)
        if prompt is not None:
            prompt.setPlainText(getattr(run, "prompt", ""))
        chat_settings = getattr(page, "chat_settings", None)
        system = getattr(run, "system", None)
        if chat_settings is not None and system:
            chat_settings.set_system(system)

    def page_titles(self) -> dict[str, str]:
        return {
            "hardware": self.tr("Hardware"),
            "models": self.tr("Models"),
            "downloads": self.tr("Downloads"),
            "library": self.tr("Library"),
            "playground": self.tr("Playground"),
            "compare": self.tr("Compare"),
            "history": self.tr("History"),
            "settings": self.tr("Settings"),
        }

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.status_profile = QLabel()
        self.status_backend = QLabel(self.tr("llama.cpp: checking…"))
        self.status_workers = QLabel()
        self.status_downloads = QLabel()
        for widget in (self.status_profile, self.status_backend, self.status_workers):
            widget.setContentsMargins(6, 0, 10, 0)
            bar.addWidget(widget)
        bar.addPermanentWidget(self.status_downloads)

    # -- navigation ---------------------------------------------------------------------------

    @property
    def current_page(self) -> str:
        item = self.sidebar.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else ""

    def show_page(self, key: str) -> QWidget:
        for row in range(self.sidebar.count()):
            if self.sidebar.item(row).data(Qt.ItemDataRole.UserRole) == key:
                self.sidebar.setCurrentRow(row)
                return self.pages[key]
        raise KeyError(key)

    def _on_sidebar_current_row_changed(self, row: int) -> None:
        if row < 0:
            return
        self.pages[str(self.sidebar.item(row).data(Qt.ItemDataRole.UserRole))]  # made if new
        self.stack.setCurrentIndex(row)
        self.page_changed.emit(self.current_page)

    # -- profile ------------------------------------------------------------------------------

    def _on_profile_combo_activated(self, index: int) -> None:
        key = self.profile_combo.itemData(index)
        if key == OPEN_PROFILE:
            self._fill_profile_combo()
            self.open_profile_dialog()
            return
        try:
            self.state.select_profile(str(key))
        except ScoutError as exc:
            show_error(self, exc)
            self._fill_profile_combo()

    def open_profile_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Open a hardware profile"),
            str(Path.home()),
            self.tr("Hardware profiles (*.json)"),
        )
        if path:
            self.open_profile(Path(path))

    def open_profile(self, path: Path) -> bool:
        """Make a saved profile active (from the file dialog or a drop); one sentence on error."""
        try:
            self.state.open_profile_file(path)
        except ScoutError as exc:
            show_error(self, exc)
            return False
        finally:
            self._fill_profile_combo()
        return True

    def _on_state_profile_changed(self) -> None:
        state = self.state
        if self.profile_combo.findData(state.profile_key) < 0:
            self._fill_profile_combo()  # chosen elsewhere (History's machines)
        index = self.profile_combo.findData(state.profile_key)
        if index >= 0 and index != self.profile_combo.currentIndex():
            self.profile_combo.setCurrentIndex(index)
        profile = state.profile
        self.profile_summary.setText(self.profile_text(profile))
        color = QColor(WHAT_IF_TINT)
        rgba = f"rgba({color.red()}, {color.green()}, {color.blue()}, 0.22)"
        tint = f"QToolBar#profileBar {{ background: {rgba}; }}" if state.what_if else ""
        self._toolbar.setStyleSheet(tint)
        self._toolbar.setToolTip(
            self.tr("A what-if profile is active: estimates are for that machine, not this one.")
            if state.what_if
            else ""
        )
        if state.what_if:
            self.status_profile.setText(self.tr("What if: %1").replace("%1", state.profile_name))
        else:
            self.status_profile.setText(self.tr("This machine"))

    def profile_text(self, profile: HardwareProfile | None) -> str:
        """ "RTX 3060 12 GB · 32 GB RAM · NVMe": the machine in a few words."""
        if profile is None:
            return self.tr("Detecting hardware…")
        parts: list[str] = []
        for gpu in profile.gpus[:2]:
            memory = fmt.size(gpu.memory_total_bytes, 0)
            unified = self.tr("unified") + " " if gpu.unified_memory else ""
            parts.append(f"{gpu.name} {unified}{memory}")
        parts.append(self.tr("%1 RAM").replace("%1", fmt.size(profile.memory.total_bytes, 0)))
        disk = profile.models_disk
        if disk is not None and disk.kind != "unknown":
            parts.append(disk.kind.upper() if disk.kind != "nvme" else "NVMe")
        return " · ".join(parts)

    # -- status bar ---------------------------------------------------------------------------

    def set_backend_text(self, text: str) -> None:
        self.status_backend.setText(text)

    def _refresh_status(self) -> None:
        manager = self.state.current_downloads  # do not create a manager just to count
        active = []
        if manager is not None:
            active = [
                j for j in manager.jobs if not j.state.finished and j.state != DownloadState.PAUSED
            ]
        if not active:
            self.status_downloads.setText("")
            return
        done = sum(j.progress.bytes_done for j in active)
        total = sum(j.progress.bytes_total or 0 for j in active)
        percent = f" {done * 100 // total}%" if total else ""
        text = (
            self.tr("⇩ 1 download")
            if len(active) == 1
            else self.tr("⇩ %1 downloads").replace("%1", str(len(active)))
        )
        self.status_downloads.setText(text + percent)

    def _on_state_problem(self, kind: str, message: str) -> None:
        self.statusBar().showMessage(message, 10_000)

    def _on_state_store_damaged(self, notice: StoreNotice) -> None:
        """Told once; a library set aside is rebuilt at once by a scan of every folder (from
        the event loop: the pages may still be being built)."""
        self.notices.tell(store_notice_text(notice))
        if notice.store == "library":
            QTimer.singleShot(0, self._rescan_library)

    def _rescan_library(self) -> None:
        rescan = getattr(self.pages.get("library"), "rescan", None)
        if rescan is not None:
            rescan()

    def tell_settings_problems(self, problems: Sequence[SettingsProblem]) -> None:
        for problem in problems:
            self.notices.tell(settings_problem_text(problem))

    # -- drops --------------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if urls and all(
            u.isLocalFile() and u.toLocalFile().lower().endswith((".json", ".gguf")) for u in urls
        ):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        files = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        self.open_files(files)
        event.acceptProposedAction()

    def open_from_command_line(self, files: list[Path]) -> None:
        """``llm-scout gui FILE`` (and "Open with LLM Scout" on a .gguf): profiles become
        active; one model opens in the Playground (and is added to the library); several are
        imported."""
        models = [f for f in files if f.suffix.lower() == ".gguf"]
        self.open_files([f for f in files if f not in models])
        if len(models) == 1:
            self.open_files(models)
            self._on_models_open_in_playground_requested(str(models[0]))
        elif models:
            self.open_files(models)

    def open_files(self, files: list[Path]) -> None:
        """What a drop does: ``.json`` profiles become active, ``.gguf`` models are imported."""
        for profile in [f for f in files if f.suffix.lower() == ".json"]:
            self.open_profile(profile)
        models = [f for f in files if f.suffix.lower() == ".gguf"]
        if models:
            page = self.show_page("library")
            importer = getattr(page, "import_files", None)
            if importer is not None:
                importer(models)

    # -- persistence --------------------------------------------------------------------------

    def _restore(self) -> None:
        settings = window_settings()
        geometry = settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 800)
        key = settings.value("window/profile", THIS_MACHINE_KEY)
        if isinstance(key, str) and key != THIS_MACHINE_KEY:
            try:
                self.state.select_profile(key)
            except (ScoutError, ValueError) as exc:
                log.info("the saved profile %s is gone: %s", key, exc)
            self._fill_profile_combo()
        page = settings.value("window/page", "models")
        try:
            self.show_page(str(page))
        except KeyError:
            self.show_page("models")

    def save_state(self) -> None:
        settings = window_settings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/page", self.current_page)
        settings.setValue("window/profile", self.state.profile_key)
        for page in self.pages.made().values():
            save = getattr(page, "save_state", None)
            if save is not None:
                save(settings)
        settings.sync()

    def shutdown(self) -> None:
        """Stop the window's own timer and every page's work (closing, or a rebuilt window
        taking its place: the object outlives either). Safe to call more than once. Pages not
        made yet are not made for it."""
        self._closed = True
        self._status_timer.stop()
        for page in self.pages.made().values():
            shutdown = getattr(page, "shutdown", None)
            if shutdown is not None:
                shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        self.shutdown()
        super().closeEvent(event)
