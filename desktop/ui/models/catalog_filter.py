"""The Models page's filters and sorting over a :class:`~.catalog_model.CatalogTableModel`.

The catalog filters (search words, family, format, licence, language) are the core's
:func:`~desktop.core.catalog.filter_variants`, run on the GUI thread when a filter changes (a
few hundred variants: well under a millisecond) and kept here as the set of variant ids that
pass; "fits only" and "fully on GPU only" read each row's estimate. Nothing here re-runs the
estimate, and a new estimate re-filters and re-sorts the rows by itself (dynamic filtering).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel

from desktop.core.catalog import Catalog, filter_variants
from desktop.core.fit import FIT_OK
from desktop.ui.models.catalog_model import SORT_ROLE, CatalogTableModel

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class CatalogFilters:
    """What the page's filter controls say. Empty text and None mean "any"."""

    text: str = ""
    family: str | None = None
    fmt: str | None = None
    fits_only: bool = False
    gpu_only: bool = False
    commercial: bool = False
    chinese: bool = False


class CatalogFilterProxy(QSortFilterProxyModel):
    """Sorts on :data:`SORT_ROLE` and keeps the rows that pass :class:`CatalogFilters`."""

    def __init__(self, catalog: Catalog, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._catalog = catalog
        self._filters = CatalogFilters()
        self._allowed: frozenset[str] | None = None
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    @property
    def filters(self) -> CatalogFilters:
        return self._filters

    def set_filters(self, filters: CatalogFilters) -> None:
        if filters == self._filters:
            return
        self.beginFilterChange()
        self._filters = filters
        catalog_side = (filters.text.strip(), filters.family, filters.fmt)
        if any(catalog_side) or filters.commercial or filters.chinese:
            pairs = filter_variants(
                self._catalog,
                family=filters.family,
                fmt=filters.fmt,
                lang="zh" if filters.chinese else None,
                commercial=True if filters.commercial else None,
                text=filters.text or None,
            )
            self._allowed = frozenset(variant.id for _model, variant in pairs)
        else:
            self._allowed = None
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        source = self.sourceModel()
        if not isinstance(source, CatalogTableModel):
            return True
        entry = source.entry(source_row)
        if entry is None:
            return False
        if self._allowed is not None and entry.variant_id not in self._allowed:
            return False
        if self._filters.fits_only and entry.verdict not in FIT_OK:
            return False
        return not (self._filters.gpu_only and entry.verdict != "gpu")
