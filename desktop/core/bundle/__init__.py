"""Results bundles: one file that carries a machine's answers, comparisons, quality
measurements and calibration to another machine's history, and back.

Owns the results file format (``format``: JSON lines, a versioned header naming the exporting
machine and its llama.cpp build, a record count and sha256 at the end, written atomically),
:func:`export_results` (all results, or some kinds, since a date; this machine's profile as
``hw --save`` writes it) and :func:`import_bundle` (the file checked whole before anything is
written, merged in one transaction, nothing added twice; a truncated, changed, foreign or newer
file is refused with one sentence). Depends on history (the records and the merge), fit
(calibration) and hardware (profiles).
"""

from desktop.core.bundle.exchange import (
    ExportSummary,
    ImportSummary,
    check_kinds,
    check_machine_name,
    export_results,
    import_bundle,
)
from desktop.core.bundle.format import (
    FORMAT,
    SUFFIX,
    VERSION,
    BundleDamaged,
    BundleError,
    BundleForeign,
    BundleHeader,
    BundleNewer,
    read_bundle,
)

__all__ = [
    "FORMAT",
    "SUFFIX",
    "VERSION",
    "BundleDamaged",
    "BundleError",
    "BundleForeign",
    "BundleHeader",
    "BundleNewer",
    "ExportSummary",
    "ImportSummary",
    "check_kinds",
    "check_machine_name",
    "export_results",
    "import_bundle",
    "read_bundle",
]
