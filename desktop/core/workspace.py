"""What the CLI and the window start from: the settings, the catalog, and what follows from them.

A :class:`Workspace` is read once per command or window (the settings file once, the catalog
once) and passed down; nothing below it reads the settings file again. It assembles the pieces
every front end needs in the same way: the models folder, the Hub (endpoint or mirror, token,
offline mode), the model resolver (downloads, library, demo models) and the hardware profile to
estimate for (this machine, a saved profile or a bundled what-if profile).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from desktop.core import demo, paths
from desktop.core.catalog import Catalog, load_catalog_safe
from desktop.core.errors import CatalogError, HardwareError, ScoutError
from desktop.core.hardware import THIS_MACHINE, HardwareProfile, load_profile, probe
from desktop.core.hub import Hub
from desktop.core.library import ModelResolver
from desktop.core.settings import Settings, SettingsProblem, load_settings_checked

log = logging.getLogger(__name__)


@dataclass
class Workspace:
    """Settings and catalog, read once, with the resolver and Hub built from them.

    ``catalog_problems`` are overlay files that could not be used (the rest of the catalog
    still is); ``settings_problems`` are what the settings file held that was not used (a file
    that could not be read is moved aside). Front ends show both.
    """

    settings: Settings
    catalog: Catalog
    catalog_problems: tuple[CatalogError, ...] = ()
    settings_problems: tuple[SettingsProblem, ...] = ()
    demos: tuple[demo.DemoModel, ...] = field(default=(), repr=False)

    @classmethod
    def load(cls, settings: Settings | None = None, *, with_demos: bool = True) -> Workspace:
        """Read the settings (unless given) and the catalog; a catalog with no usable layer
        raises its CatalogError."""
        problems: list[SettingsProblem] = []
        if settings is None:
            settings, problems = load_settings_checked()
        catalog, errors = load_catalog_safe()
        if errors and not catalog.models:
            raise errors[0]
        demos = tuple(demo.demo_models(assemble=False)) if with_demos else ()
        return cls(settings, catalog, tuple(errors), tuple(problems), demos)

    @property
    def models_dir(self) -> Path:
        return self.settings.resolved_models_dir()

    @cached_property
    def resolver(self) -> ModelResolver:
        return ModelResolver(
            self.catalog,
            models_dir=self.models_dir,
            library_db=paths.library_db_path(),
            demos=self.demos,
        )

    def hub(self, endpoint: str | None = None, token: str | None = None) -> Hub:
        """The Hub from the settings; ``endpoint`` (a command-line ``--endpoint``) wins."""
        return Hub.from_settings(self.settings.hub_endpoint, endpoint=endpoint, token=token)

    def profile(
        self, value: str | None = None, *, measure_disk: bool = False
    ) -> tuple[HardwareProfile, str]:
        """The hardware to estimate for, and its display name.

        A saved profile file, a bundled what-if profile or a machine whose results were imported
        into the history (its newest profile, calibrated by its runs) when ``value`` is given;
        otherwise
        this machine, probed with its memory bandwidth (measured once, then cached) and the disk
        holding the models folder.
        """
        if value:
            try:
                profile = load_profile(value)
            except HardwareError:
                imported = _imported_machine(value)
                if imported is None:
                    raise
                return imported, imported.name
            return profile, profile.name or value
        measured = probe(self.models_dir, measure_disk=measure_disk, measure_bandwidth=True)
        return measured, THIS_MACHINE


def _imported_machine(name: str) -> HardwareProfile | None:
    """The profile of a machine whose results were imported, by its name; None when the
    history has none such (or cannot be read: the caller's error then stands)."""
    if not paths.history_db_path().is_file():
        return None
    from desktop.core.history import History

    try:
        with History.open() as history:
            if history.machine(name).local:
                return None
            return history.machine_profile(name)
    except ScoutError:
        return None
