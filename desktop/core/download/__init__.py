"""Downloads from the Hugging Face Hub (or a mirror): resume, retry, verify, install atomically.

Owns getting model files onto the disk: requests (every file of a catalog variant, or any
``REPO FILE...``), the job queue with pause / resume / cancel / retry and throttled progress,
the partial files that survive a kill, verification against the catalog's or the Hub's sha256,
and the folder layout ``<models dir>/<owner>/<repo>/<file>``. A file appears there only once it
is complete and verified. Depends on catalog (variants) and hub (endpoint, token, names).
"""

from desktop.core.download.errors import (
    DiskFullError,
    DownloadBusyError,
    DownloadCancelledError,
    DownloadGatedError,
    DownloadNetworkError,
    DownloadNotFoundError,
    DownloadOfflineError,
    RetryPolicy,
    UnsafeNameError,
    VerifyFailedError,
)
from desktop.core.download.files import DownloadResult, FetchedFile
from desktop.core.download.manager import DownloadJob, DownloadManager, download
from desktop.core.download.progress import DownloadProgress, DownloadState
from desktop.core.download.request import (
    DiskUsage,
    DownloadRequest,
    FileSpec,
    installed_path,
    request_for_files,
    request_for_variant,
)

__all__ = [
    "DiskFullError",
    "DiskUsage",
    "DownloadBusyError",
    "DownloadCancelledError",
    "DownloadGatedError",
    "DownloadJob",
    "DownloadManager",
    "DownloadNetworkError",
    "DownloadNotFoundError",
    "DownloadOfflineError",
    "DownloadProgress",
    "DownloadRequest",
    "DownloadResult",
    "DownloadState",
    "FetchedFile",
    "FileSpec",
    "RetryPolicy",
    "UnsafeNameError",
    "VerifyFailedError",
    "download",
    "installed_path",
    "request_for_files",
    "request_for_variant",
]
