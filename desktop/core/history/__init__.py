"""History: every answer and comparison, kept in SQLite as it happens, from this machine and
from machines whose results were imported.

Owns the history database (``paths.history_db_path``, opened through storage: WAL, schema
migrations, a damaged file set aside with every row that can still be read recovered into a new
one): single answers (the Playground and ``run`` call :meth:`History.record_run` with a
:class:`RunReport`), comparisons (contestants, prompts, each answer committed when it
completes, contestants' statuses, blind votes), measurements (quality results beside the
answers), the model files that ran (path, size, mtime and sha256: known, from the library, or
computed once when cheap) and the machine each ran on (its hardware profile). Lists, search,
filters by model and by machine, opening and deleting; the machines and their calibrated
profiles; the same model on several machines side by side (``across``); and the records a
results bundle carries out of one history (``transfer``) and merges into another (``merge``:
all or nothing, each result once). Depends on engine (reports), fit (machine fingerprints and
calibration), hardware (profiles), library (stored hashes) and storage.
"""

from desktop.core.history.across import (
    AcrossMachines,
    MachineFigures,
    ModelChoice,
    SettingsKey,
    across_machines,
    find_model,
    models_across_machines,
)
from desktop.core.history.machines import IMPORTED, MachineRecord, MeasurementRecord
from desktop.core.history.merge import MergeCounts, merge_results
from desktop.core.history.record_checks import check_results
from desktop.core.history.records import (
    QUALITY_FAILURES,
    ComparisonRecord,
    ComparisonSummary,
    ContestantRecord,
    HistoryError,
    HistoryNotFound,
    ModelRef,
    PromptRecord,
    RunRecord,
    VoteRecord,
    report_from_dict,
    settings_dict,
)
from desktop.core.history.schema import MIGRATIONS
from desktop.core.history.store import History
from desktop.core.history.transfer import KINDS as RESULT_KINDS
from desktop.core.history.transfer import RecordError, Results, collect_results

__all__ = [
    "IMPORTED",
    "MIGRATIONS",
    "QUALITY_FAILURES",
    "RESULT_KINDS",
    "AcrossMachines",
    "ComparisonRecord",
    "ComparisonSummary",
    "ContestantRecord",
    "History",
    "HistoryError",
    "HistoryNotFound",
    "MachineFigures",
    "MachineRecord",
    "MeasurementRecord",
    "MergeCounts",
    "ModelChoice",
    "ModelRef",
    "PromptRecord",
    "RecordError",
    "Results",
    "RunRecord",
    "SettingsKey",
    "VoteRecord",
    "across_machines",
    "check_results",
    "collect_results",
    "find_model",
    "merge_results",
    "models_across_machines",
    "report_from_dict",
    "settings_dict",
]
