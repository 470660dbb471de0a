"""Download errors: one class per ``kind``, each with a plain sentence for the user.

:func:`hub_error` turns what huggingface_hub and httpx raise into these. Messages never contain
a token: they are written here from the repo, file and endpoint, never copied from a request.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop.core.errors import DownloadError
from desktop.core.hub import DEFAULT_ENDPOINT, Hub

HUB_SITE = DEFAULT_ENDPOINT


class DownloadGatedError(DownloadError):
    """The repo is gated or private and the Hub refused the request (HTTP 401/403)."""

    kind = "download.gated"


class DownloadNotFoundError(DownloadError):
    kind = "download.not_found"


class DownloadOfflineError(DownloadError):
    """Offline mode is on or the Hub cannot be reached at all: downloads are unavailable."""

    kind = "download.offline"


class DiskFullError(DownloadError):
    kind = "download.disk_full"


class VerifyFailedError(DownloadError):
    kind = "download.verify_failed"


class DownloadCancelledError(DownloadError):
    kind = "download.cancelled"


class DownloadNetworkError(DownloadError):
    """The transfer kept failing after every retry (or the endpoint is not a Hub)."""

    kind = "download.network"


class UnsafeNameError(DownloadError):
    kind = "download.unsafe_name"


class DownloadBusyError(DownloadError):
    """Another process (or job) is writing the same file right now."""

    kind = "download.busy"


class TransientError(Exception):
    """Internal: a failure worth retrying (5xx, 429, a dropped or timed-out connection).

    Never reaches a caller: the job retries, then raises :class:`DownloadNetworkError`.
    """

    def __init__(self, reason: str, *, refetch_location: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.refetch_location = refetch_location


def offline_message(hub: Hub) -> str | None:
    """The sentence for a download in offline mode; None when offline mode is off."""
    if not hub.offline:
        return None
    return f"Downloads are unavailable because {hub.offline}."


def gated_message(repo: str, endpoint: str, *, had_token: bool) -> str:
    """The sentence for a 401/403: which licence page to accept and how to add a token."""
    page = f"{HUB_SITE}/{repo}"
    if endpoint.rstrip("/") != HUB_SITE:
        page += f" (or the mirror's page {endpoint.rstrip('/')}/{repo})"
    how = "set HF_TOKEN or run `hf auth login` (`huggingface-cli login` in older versions)"
    if had_token:
        return (
            f"The Hub refused your token for {repo}: accept the licence at {page} with the "
            f"account of that token, or {how} with a token that has access, then try again."
        )
    return f"{repo} is gated: accept the licence at {page} and {how}, then try again."


def scrub(text: str, token: str | None) -> str:
    """``text`` with the token (if any) replaced, for logs."""
    return text.replace(token, "***") if token else text


def hub_error(
    exc: BaseException, *, hub: Hub, repo: str, filename: str, revision: str
) -> DownloadError | TransientError:
    """Translate an exception from huggingface_hub / httpx into ours (or a retryable one)."""
    endpoint, token = hub.endpoint, hub.token
    import httpx2
    from huggingface_hub import errors as hf_errors

    if isinstance(exc, hf_errors.OfflineModeIsEnabled):
        return DownloadOfflineError(
            "Downloads are unavailable because offline mode is on (HF_HUB_OFFLINE=1)."
        )
    if isinstance(exc, hf_errors.GatedRepoError):
        return DownloadGatedError(gated_message(repo, endpoint, had_token=token is not None))
    if isinstance(exc, hf_errors.RevisionNotFoundError):
        return DownloadNotFoundError(f"{repo} has no revision {revision!r} on {endpoint}.")
    if isinstance(exc, hf_errors.RemoteEntryNotFoundError):
        return DownloadNotFoundError(f"{repo} has no file {filename!r} on {endpoint}.")
    if isinstance(exc, hf_errors.RepositoryNotFoundError):
        hint = "" if token else " (if it is private, set HF_TOKEN or run `hf auth login`)"
        return DownloadNotFoundError(f"The repository {repo} was not found on {endpoint}{hint}.")
    if isinstance(exc, hf_errors.FileMetadataError):
        return DownloadNetworkError(
            f"{endpoint} does not answer like a Hugging Face Hub; check HF_ENDPOINT or the "
            "mirror setting, and any proxy or firewall."
        )
    if isinstance(exc, hf_errors.HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else 0
        if status in (401, 403):
            return DownloadGatedError(gated_message(repo, endpoint, had_token=token is not None))
        if status == 404:
            return DownloadNotFoundError(f"{repo} has no file {filename!r} on {endpoint}.")
        if status == 416:
            return TransientError("the server refused the resume position (HTTP 416)")
        return TransientError(f"the server answered HTTP {status}")
    if isinstance(exc, httpx2.ProxyError):
        return DownloadNetworkError(
            "The proxy refused the connection; check HTTPS_PROXY / HTTP_PROXY / NO_PROXY."
        )
    if isinstance(exc, httpx2.ConnectError | httpx2.ConnectTimeout):
        return DownloadOfflineError(f"Cannot reach {endpoint}: {hub.unreachable_hint()}.")
    if isinstance(exc, httpx2.TransportError):
        return TransientError(f"the connection failed ({type(exc).__name__})")
    if isinstance(exc, OSError) and "Consistency check failed" in str(exc):
        return TransientError("the connection ended before the whole file arrived")
    return DownloadNetworkError(
        f"Downloading {filename} from {repo} failed ({type(exc).__name__})."
    )


@dataclass(frozen=True)
class RetryPolicy:
    """Transient failures (5xx, 429, dropped or stalled connections) are retried with
    exponential backoff; any progress resets the count."""

    attempts: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0

    def delay(self, attempt: int) -> float:
        return float(min(self.max_delay_s, self.base_delay_s * 2 ** max(attempt - 1, 0)))
