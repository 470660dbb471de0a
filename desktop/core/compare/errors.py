"""The one error class of comparisons; ``kind`` says which problem it is."""

from __future__ import annotations

from desktop.core.errors import ScoutError


class CompareError(ScoutError):
    """A comparison that cannot be set up or run as asked.

    Kinds: ``compare.contestants`` (not 2 to 6 models), ``compare.option`` (a setting that
    cannot be used), ``compare.no_room`` (parallel mode refused by the fit), ``compare.suite``
    (a suite file with no usable prompt), ``compare.suite_not_found``."""

    kind = "compare"
