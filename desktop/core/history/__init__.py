"""History: every answer and comparison this machine ran, kept in SQLite as it happens.

Owns the history database (``paths.history_db_path``, opened through storage: WAL, schema
migrations, a damaged file set aside with every row that can still be read recovered into a new
one): single answers (the Playground and ``run`` call :meth:`History.record_run` with a
:class:`RunReport`), comparisons (contestants, prompts, each answer committed when it
completes, contestants' statuses, blind votes), the model files that ran (path, size, mtime and
sha256: known, from the library, or computed once when cheap) and the hardware profile each
ran on. Lists, search, filters by model, opening and deleting. Depends on engine (reports),
hardware (profiles), library (stored hashes) and storage.
"""

from desktop.core.history.records import (
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

__all__ = [
    "MIGRATIONS",
    "ComparisonRecord",
    "ComparisonSummary",
    "ContestantRecord",
    "History",
    "HistoryError",
    "HistoryNotFound",
    "ModelRef",
    "PromptRecord",
    "RunRecord",
    "VoteRecord",
    "report_from_dict",
    "settings_dict",
]
