"""The state every page follows: settings, catalog, the active hardware profile, the library and
the download queue.

:class:`AppState` lives on the GUI thread. Pages read it and subscribe to its signals; it never
knows its views. Work (probing this machine, loading a profile file) runs off the GUI thread
through :mod:`desktop.ui.workers`.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from desktop.core import paths
from desktop.core.download import DownloadManager
from desktop.core.engine import EngineInfo, engine_info
from desktop.core.errors import ScoutError
from desktop.core.hardware import THIS_MACHINE, HardwareProfile, list_profiles, load_profile, probe
from desktop.core.history import History
from desktop.core.library import ModelResolver
from desktop.core.settings import Settings, save_settings
from desktop.core.storage import StoreNotice, add_notice_listener
from desktop.core.workspace import Workspace
from desktop.ui.workers import TaskControl, run_task

log = logging.getLogger(__name__)

THIS_MACHINE_KEY = "this"
WHAT_IF_PREFIX = "what-if:"
FILE_PREFIX = "file:"
MACHINE_PREFIX = "machine:"  # a machine whose results were imported into the history


class AppState(QObject):
    """Shared state of the window.

    Signals:
        settings_changed(object): the new :class:`~desktop.core.settings.Settings`.
        profile_changed(): the active profile (or this machine's probe) changed.
        library_changed(): models on disk changed (scan, import, remove, finished download).
        downloads_changed(): a job was added or finished (progress is pulled on a timer).
        engine_changed(): the llama.cpp build of the workers is known (``engine``).
        profiles_changed(): the profiles to choose from changed (imported machines read).
        problem(str, str): something failed in the background: (error kind, one sentence).
        calibration_changed(): a run was recorded for calibration, or the calibration was
            undone or reset: estimates are made again.
        store_damaged(object): a :class:`~desktop.core.storage.StoreNotice`: a damaged
            database was set aside and a new one started (announced on any thread, delivered
            on the GUI thread).
    """

    settings_changed = Signal(object)
    profile_changed = Signal()
    profiles_changed = Signal()
    library_changed = Signal()
    downloads_changed = Signal()
    engine_changed = Signal()
    problem = Signal(str, str)
    calibration_changed = Signal()
    store_damaged = Signal(object)

    def __init__(self, workspace: Workspace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.this_machine: HardwareProfile | None = None
        self.engine: EngineInfo | None = None
        self.engine_error: str | None = None
        self.profile_key = THIS_MACHINE_KEY
        self._profiles: dict[str, HardwareProfile] = {}
        self._resolver: ModelResolver | None = None
        self._downloads: DownloadManager | None = None
        self._retired: list[DownloadManager] = []
        self._titles: dict[str, str] | None = None  # replaced managers: their jobs stay listed
        self.library_changed.connect(self._forget_resolver)
        self._stop_listening = add_notice_listener(self._on_store_notice)

    def _on_store_notice(self, notice: StoreNotice) -> None:
        """From whichever thread found the damage: the signal crosses to the GUI thread."""
        if isValid(self):
            self.store_damaged.emit(notice)

    # -- settings ------------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self.workspace.settings

    def update_settings(self, **changes: Any) -> Settings:
        """Validate, save and apply; SettingsError when a value is not allowed."""
        settings = replace(self.workspace.settings, **changes)
        save_settings(settings)
        self.workspace.settings = settings
        if "models_dir" in changes:
            self._forget_resolver()
            self.workspace.__dict__.pop("resolver", None)
        if {"models_dir", "hub_endpoint", "max_parallel_downloads"} & set(changes):
            self._reopen_downloads()
        self.settings_changed.emit(settings)
        return settings

    # -- hardware profiles -------------------------------------------------------------------

    def probe_this_machine(self, *, measure_disk: bool = False) -> None:
        """Probe this machine off the GUI thread; ``profile_changed`` follows."""
        models_dir = self.workspace.models_dir

        def work(control: TaskControl) -> HardwareProfile:
            return probe(models_dir, measure_disk=measure_disk, measure_bandwidth=True)

        run_task(work, on_done=self._probed, on_failed=self._failed)

    def probe_engine(self) -> None:
        """Start a worker once to learn the llama.cpp build (version, backends, CPU variant)."""

        def work(control: TaskControl) -> EngineInfo:
            return engine_info()

        def failed(error: Exception) -> None:
            self.engine_error = str(error)
            self.engine_changed.emit()
            self._failed(error)

        def done(info: EngineInfo) -> None:
            self.engine = info
            self.engine_changed.emit()

        run_task(work, on_done=done, on_failed=failed)

    def _probed(self, profile: HardwareProfile) -> None:
        self.this_machine = profile
        if self.profile_key == THIS_MACHINE_KEY:
            self.profile_changed.emit()

    @property
    def profile(self) -> HardwareProfile | None:
        """The profile every estimate follows (None while this machine is being probed)."""
        if self.profile_key == THIS_MACHINE_KEY:
            return self.this_machine
        return self._profiles.get(self.profile_key)

    @property
    def profile_name(self) -> str:
        profile = self.profile
        if self.profile_key == THIS_MACHINE_KEY:
            return THIS_MACHINE
        return profile.name if profile is not None and profile.name else self.profile_key

    @property
    def what_if(self) -> bool:
        return self.profile_key != THIS_MACHINE_KEY

    def what_if_names(self) -> list[str]:
        return list_profiles()

    def what_if_titles(self) -> dict[str, str]:
        """Bundled what-if profile name -> the machine it describes ("Desktop with RTX 3060")."""
        if self._titles is None:
            titles: dict[str, str] = {}
            for name in list_profiles():
                try:
                    titles[name] = load_profile(name).name or name
                except ScoutError:
                    titles[name] = name
            self._titles = titles
        return dict(self._titles)

    def select_profile(self, key: str) -> None:
        """``"this"``, ``"what-if:<name>"``, ``"file:<path>"`` or ``"machine:<key>"`` (imported
        results' machine); HardwareError (HistoryError) for a bad one."""
        if key != THIS_MACHINE_KEY and key not in self._profiles:
            if key.startswith(WHAT_IF_PREFIX):
                self._profiles[key] = load_profile(key.removeprefix(WHAT_IF_PREFIX))
            elif key.startswith(FILE_PREFIX):
                self._profiles[key] = load_profile(key.removeprefix(FILE_PREFIX))
            elif key.startswith(MACHINE_PREFIX):
                with History.open() as history:
                    self._profiles[key] = history.machine_profile(key.removeprefix(MACHINE_PREFIX))
            else:
                raise ValueError(f"unknown profile key {key!r}")
        if key != self.profile_key:
            self.profile_key = key
            self.profile_changed.emit()

    def open_profile_file(self, path: Path) -> str:
        """Load a profile saved by ``llm-scout hw --save`` and make it active; returns its key.
        HardwareError (one sentence) for a file that is not a profile."""
        key = FILE_PREFIX + str(path)
        self._profiles.pop(key, None)
        self.select_profile(key)
        return key

    def loaded_profiles(self) -> dict[str, HardwareProfile]:
        return dict(self._profiles)

    def load_machine_profiles(self) -> None:
        """Read the machines whose results were imported (off the GUI thread): each becomes a
        profile to estimate for (``machine:<key>``), calibrated by its own runs;
        ``profiles_changed`` follows. The active one is replaced by its new reading."""

        def work(control: TaskControl) -> dict[str, HardwareProfile]:
            found: dict[str, HardwareProfile] = {}
            if not paths.history_db_path().is_file():
                return found  # nothing stored yet: no database made just to look
            with History.open() as history:
                for machine in history.machines():
                    if not machine.local and machine.profile is not None:
                        found[MACHINE_PREFIX + machine.key] = history.machine_profile(machine.key)
            return found

        run_task(work, on_done=self._machines_read, on_failed=self._failed)

    def _machines_read(self, found: dict[str, HardwareProfile]) -> None:
        for key in [k for k in self._profiles if k.startswith(MACHINE_PREFIX)]:
            if key not in found and key != self.profile_key:
                del self._profiles[key]
        self._profiles.update(found)
        self.profiles_changed.emit()
        if self.profile_key in found:
            self.profile_changed.emit()  # its calibration may have grown

    # -- models on disk --------------------------------------------------------------------

    @property
    def library_db(self) -> Path:
        return paths.library_db_path(ensure=True)

    @property
    def resolver(self) -> ModelResolver:
        """The model resolver for what is on disk now (made again after ``library_changed``)."""
        if self._resolver is None:
            self._resolver = ModelResolver(
                self.workspace.catalog,
                models_dir=self.workspace.models_dir,
                library_db=self.library_db,
                demos=self.workspace.demos,
            )
        return self._resolver

    def _forget_resolver(self) -> None:
        self._resolver = None

    # -- downloads ---------------------------------------------------------------------------

    @property
    def downloads(self) -> DownloadManager:
        if self._downloads is None:
            self._downloads = DownloadManager(
                self.workspace.models_dir,
                self.workspace.hub(),
                self.settings.max_parallel_downloads,
            )
        return self._downloads

    @property
    def current_downloads(self) -> DownloadManager | None:
        """The manager if one was made (looking must not make one)."""
        return self._downloads

    def download_managers(self) -> list[DownloadManager]:
        """Every manager of this run, oldest first: a rebuilt window lists all their jobs."""
        current = [self._downloads] if self._downloads is not None else []
        return [*self._retired, *current]

    def _reopen_downloads(self) -> None:
        """New downloads use the new folder or endpoint; jobs already running keep theirs."""
        manager = self._downloads
        if manager is not None and all(job.state.finished for job in manager.jobs):
            manager.close()
            self._retired.append(manager)
            self._downloads = None

    def close(self) -> None:
        """Pause running downloads (their partials resume next time)."""
        self._stop_listening()
        if self._downloads is not None:
            self._downloads.close()
            self._downloads = None

    def _failed(self, error: Exception) -> None:
        kind = getattr(error, "kind", "error")
        self.problem.emit(kind, str(error))
