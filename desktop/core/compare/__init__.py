"""Comparisons: the same prompts on two to six models side by side, quality, speed and memory.

Owns contestants (a resolved model with load and sampling settings and a display name; the same
file twice with different settings is allowed), prompt suites (built-in ones in
``resources/prompt_suites/``, JSONL/CSV import with bad rows reported by line, long documents
generated deterministically), checks that score answers, scheduling (fair: one model at a
time; parallel: together when the fit says they all fit with a margin), the
:class:`CompareRunner` (typed progress events on the caller's thread, cancel, every answer
stored in the history as it completes, resume), blind labels, votes and win rates, the summary
table and chart points, and Markdown/CSV/JSON reports; a quality check every contestant runs
after its answers (the same questions or text, through quality; each result stored as a
measurement tagged with the comparison). Depends on engine (sessions), fit (memory), library
(the resolver), hardware (profiles), history (storage) and quality.

Also what a comparison starts from when nothing else is said (the default context, seed and
temperature the window and ``llm-scout compare`` share) and a comparison as a front end shows it
while it runs (:class:`LiveComparison`, fed by the runner's events through a
:class:`CompareFeed`).
"""

from desktop.core.compare.checks import CHECK_KINDS, Check, CheckResult, Score, score
from desktop.core.compare.contestants import (
    MAX_CONTESTANTS,
    MIN_CONTESTANTS,
    SETTING_KEYS,
    Contestant,
    build_contestants,
    remote_contestant,
    split_spec,
    unique_names,
)
from desktop.core.compare.defaults import (
    CTX_STEP,
    DEFAULT_MAX_TOKENS,
    DEFAULT_SEED,
    DEFAULT_TEMPERATURE,
    context_for,
    default_load,
    default_sampling,
)
from desktop.core.compare.errors import CompareError
from desktop.core.compare.events import (
    AnswerFinished,
    AnswerStarted,
    AnswerText,
    CompareEvent,
    ComparisonFinished,
    ComparisonStarted,
    ContestantFailed,
    ContestantFinished,
    ContestantLoaded,
    ContestantStarted,
    QualityFinished,
    QualityProgress,
    QualityStarted,
)
from desktop.core.compare.live import (
    ColumnState,
    ColumnStatus,
    CompareFeed,
    ComparePhase,
    LiveComparison,
)
from desktop.core.compare.longdoc import build_document, estimate_tokens
from desktop.core.compare.persist import info_of, open_comparison, record_vote
from desktop.core.compare.plan import ComparisonPlan, rerun_plan, resume_plan
from desktop.core.compare.quality_check import (
    DEFAULT_ITEMS,
    DEFAULT_LIMIT,
    DEFAULT_MAX_SECONDS,
    QUALITY_KINDS,
    QualityCheck,
    QualityKind,
    QualityOutcome,
    QualityPoint,
)
from desktop.core.compare.ratings import (
    VoteGap,
    VoteRating,
    VoteRatings,
    describe_gap,
    vote_ratings,
)
from desktop.core.compare.report import (
    ReportFormat,
    check_report_path,
    render,
    report_format,
    summary_cells,
    to_csv,
    to_dict,
    to_json,
    to_markdown,
    write_report,
)
from desktop.core.compare.results import (
    AnswerResult,
    ChartPoint,
    ComparisonResult,
    ContestantInfo,
    ContestantOutcome,
    SummaryRow,
)
from desktop.core.compare.runner import CompareRunner, resume
from desktop.core.compare.schedule import (
    MODES,
    MemoryNeed,
    Mode,
    ParallelCheck,
    check_parallel,
    require_parallel,
)
from desktop.core.compare.suites import (
    Prompt,
    PromptSuite,
    SuiteProblem,
    builtin_names,
    find_suite,
    list_suites,
    load_suite_file,
    single_prompt,
)
from desktop.core.compare.votes import BlindLabels, Vote, WinRate, pairwise_outcomes, win_rates

__all__ = [
    "CHECK_KINDS",
    "CTX_STEP",
    "DEFAULT_ITEMS",
    "DEFAULT_LIMIT",
    "DEFAULT_MAX_SECONDS",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_SEED",
    "DEFAULT_TEMPERATURE",
    "MAX_CONTESTANTS",
    "MIN_CONTESTANTS",
    "MODES",
    "QUALITY_KINDS",
    "SETTING_KEYS",
    "AnswerFinished",
    "AnswerResult",
    "AnswerStarted",
    "AnswerText",
    "BlindLabels",
    "ChartPoint",
    "Check",
    "CheckResult",
    "ColumnState",
    "ColumnStatus",
    "CompareError",
    "CompareEvent",
    "CompareFeed",
    "ComparePhase",
    "CompareRunner",
    "ComparisonFinished",
    "ComparisonPlan",
    "ComparisonResult",
    "ComparisonStarted",
    "Contestant",
    "ContestantFailed",
    "ContestantFinished",
    "ContestantInfo",
    "ContestantLoaded",
    "ContestantOutcome",
    "ContestantStarted",
    "LiveComparison",
    "MemoryNeed",
    "Mode",
    "ParallelCheck",
    "Prompt",
    "PromptSuite",
    "QualityCheck",
    "QualityFinished",
    "QualityKind",
    "QualityOutcome",
    "QualityPoint",
    "QualityProgress",
    "QualityStarted",
    "ReportFormat",
    "Score",
    "SuiteProblem",
    "SummaryRow",
    "Vote",
    "VoteGap",
    "VoteRating",
    "VoteRatings",
    "WinRate",
    "build_contestants",
    "build_document",
    "builtin_names",
    "check_parallel",
    "check_report_path",
    "context_for",
    "default_load",
    "default_sampling",
    "describe_gap",
    "estimate_tokens",
    "find_suite",
    "info_of",
    "list_suites",
    "load_suite_file",
    "open_comparison",
    "pairwise_outcomes",
    "record_vote",
    "remote_contestant",
    "render",
    "report_format",
    "require_parallel",
    "rerun_plan",
    "resume",
    "resume_plan",
    "score",
    "single_prompt",
    "split_spec",
    "summary_cells",
    "to_csv",
    "to_dict",
    "to_json",
    "to_markdown",
    "unique_names",
    "vote_ratings",
    "win_rates",
    "write_report",
]
