"""The Hugging Face Hub as this app reaches it: endpoint and mirrors, token, offline mode, names.

One place for the policy that downloads, the catalog refresh and the remote GGUF reader share:

- **Endpoint**: the ``hub_endpoint`` setting (a URL or a mirror name such as ``hf-mirror``), else
  ``HF_ENDPOINT``, else https://huggingface.co. An endpoint is checked when it is given
  (``http(s)://host``), so a typo fails at once instead of after a minute of retries.
- **Token**: an explicit one, else ``HF_TOKEN`` (or the older ``HUGGING_FACE_HUB_TOKEN``), else
  huggingface_hub's login store; never sent to another origin than the endpoint's, never logged.
  ``HF_HUB_DISABLE_IMPLICIT_TOKEN`` stops the implicit ones.
- **Offline**: ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) switches every Hub access off,
  decided without touching the network.
- **Names**: repository ids and file names inside a repository are checked before they become
  URLs or paths on disk.

Values come from a :class:`~desktop.core.settings.Settings` and the environment through
:meth:`Hub.from_settings`; nothing here reads the settings file. huggingface_hub is imported only
where a token is looked up in its login store.
"""

from __future__ import annotations

import logging
import os
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field

from desktop.core.errors import HubError

log = logging.getLogger(__name__)

DEFAULT_ENDPOINT = "https://huggingface.co"
# Mirrors users in mainland China commonly use instead of huggingface.co (README, "Mirrors").
KNOWN_MIRRORS: dict[str, str] = {
    "huggingface": DEFAULT_ENDPOINT,
    "hf-mirror": "https://hf-mirror.com",
}
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
TOKEN_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
_TRUE = {"1", "on", "yes", "true"}
_REPO_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in _TRUE


# --- endpoint -------------------------------------------------------------------------------


def endpoint_problem(value: str) -> str | None:
    """Why ``value`` (a URL or a mirror name) cannot be a Hub endpoint, or None."""
    if value in KNOWN_MIRRORS:
        return None
    parts = urllib.parse.urlsplit(value)
    names = ", ".join(sorted(KNOWN_MIRRORS))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return (
            f"{value!r} is not a Hub address: give a URL such as https://hf-mirror.com or one "
            f"of the mirror names {names}."
        )
    if parts.query or parts.fragment:
        return f"{value!r} is not a Hub address: it must not carry a query or a fragment."
    return None


def normalize_endpoint(value: str) -> str:
    """A mirror name or URL as the URL to use (no trailing slash); HubError when it is none."""
    value = value.strip()
    problem = endpoint_problem(value)
    if problem is not None:
        raise HubError(problem, kind="hub.bad_endpoint")
    return KNOWN_MIRRORS.get(value, value).rstrip("/")


def choose_endpoint(setting: str = "", environ: Mapping[str, str] | None = None) -> str:
    """The setting when set, else ``HF_ENDPOINT``, else huggingface.co, normalised."""
    env = os.environ if environ is None else environ
    return normalize_endpoint(setting or env.get("HF_ENDPOINT", "") or DEFAULT_ENDPOINT)


def mirror_name(endpoint: str) -> str | None:
    """The known mirror's name for ``endpoint`` ("hf-mirror"), None for huggingface.co or others."""
    for name, url in KNOWN_MIRRORS.items():
        if url == endpoint.rstrip("/") and url != DEFAULT_ENDPOINT:
            return name
    return None


def is_local(endpoint: str) -> bool:
    """Whether the endpoint is this machine (a test server, a local proxy)."""
    return (urllib.parse.urlsplit(endpoint).hostname or "").lower() in _LOCAL_HOSTS


def same_origin(url: str, other: str) -> bool:
    """Same scheme, host and port (default ports filled in)."""
    return _origin(url) == _origin(other)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


# --- offline and token ----------------------------------------------------------------------


def offline_reason(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the Hub is off, as the end of a sentence ("offline mode is on (HF_HUB_OFFLINE=1)"),
    or None when it is not. No network."""
    env = os.environ if environ is None else environ
    for name in OFFLINE_VARIABLES:
        if _flag(env.get(name)):
            return f"offline mode is on ({name}=1)"
    return None


def stored_token() -> str | None:
    """The token huggingface_hub's login stored (``hf auth login``); None when there is none."""
    try:
        from huggingface_hub import get_token
    except ImportError:
        return None
    try:
        return get_token()
    except Exception:  # a broken login store must not break public downloads
        log.warning("The Hugging Face login store could not be read; no token is sent.")
        return None


def find_token(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The token to send: ``explicit``, else ``HF_TOKEN``, else the login store; None when
    ``HF_HUB_DISABLE_IMPLICIT_TOKEN`` forbids the implicit ones or none exists."""
    if explicit:
        return explicit
    env = os.environ if environ is None else environ
    if _flag(env.get("HF_HUB_DISABLE_IMPLICIT_TOKEN")):
        return None
    for name in TOKEN_VARIABLES:
        value = env.get(name, "").strip()
        if value:
            return value
    return stored_token()


# --- names ----------------------------------------------------------------------------------


def repo_problem(repo: str) -> str | None:
    """Why ``repo`` is not an ``owner/name`` repository id, or None."""
    parts = repo.split("/")
    if not repo or len(parts) > 2:
        return "a repository id is 'owner/name'"
    for part in parts:
        if not _REPO_PART.fullmatch(part) or ".." in part or part.endswith("."):
            return f"{part!r} is not a valid repository name part"
    return None


def file_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a path inside a repository (it could leave its folder), or None.

    Refused: empty names, backslashes, colons (drive letters, alternate streams), absolute
    paths, control characters, and empty, ``.`` or ``..`` segments.
    """
    if not name:
        return "the file name is empty"
    if "\\" in name or ":" in name:
        return "file names must not contain backslashes or colons"
    if name.startswith("/"):
        return "file names must be relative"
    if any(ord(c) < 32 or c == "\x7f" for c in name):
        return "file names must not contain control characters"
    if any(s in ("", ".", "..") for s in name.split("/")):
        return "file names must not contain empty, '.' or '..' parts"
    return None


def revision_problem(revision: str) -> str | None:
    if not revision or revision in (".", "..") or any(ord(c) < 32 for c in revision):
        return f"{revision!r} is not a valid revision"
    return None


# --- the Hub as configured ------------------------------------------------------------------


@dataclass(frozen=True)
class Hub:
    """Where the Hub is, as whom to ask it, and whether to ask it at all.

    ``token`` never shows in ``repr``; ``offline`` is the reason of :func:`offline_reason`.
    """

    endpoint: str = DEFAULT_ENDPOINT
    token: str | None = field(default=None, repr=False)
    offline: str | None = None

    @classmethod
    def from_settings(
        cls,
        hub_endpoint: str = "",
        *,
        endpoint: str | None = None,
        token: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Hub:
        """The Hub for a settings value ``hub_endpoint``; ``endpoint`` (a command-line
        ``--endpoint``) wins over it. Raises HubError for an endpoint that is no URL."""
        chosen = (
            normalize_endpoint(endpoint) if endpoint else choose_endpoint(hub_endpoint, environ)
        )
        return cls(chosen, find_token(token, environ), offline_reason(environ))

    @property
    def mirror(self) -> str | None:
        return mirror_name(self.endpoint)

    @property
    def is_local(self) -> bool:
        return is_local(self.endpoint)

    def token_for(self, url: str) -> str | None:
        """The token, but only for a URL on the endpoint's own origin."""
        return self.token if self.token and same_origin(url, self.endpoint) else None

    def file_url(self, repo: str, filename: str, revision: str = "main") -> str:
        """``{endpoint}/{repo}/resolve/{revision}/{file}``; HubError for an unsafe name."""
        for problem in (
            repo_problem(repo),
            file_name_problem(filename),
            revision_problem(revision),
        ):
            if problem is not None:
                raise HubError(f"Cannot ask the Hub for that file: {problem}.", kind="hub.bad_name")
        quote = urllib.parse.quote
        return (
            f"{self.endpoint}/{quote(repo, safe='/')}/resolve/"
            f"{quote(revision, safe='')}/{quote(filename, safe='/')}"
        )

    def unreachable_hint(self) -> str:
        """What to say when the endpoint refuses or times out, fitting the case."""
        if self.is_local:
            return f"nothing answers at {self.endpoint} (is the local server running?)"
        if self.endpoint == DEFAULT_ENDPOINT:
            return (
                "check the network connection (users in mainland China can set the mirror "
                "https://hf-mirror.com)"
            )
        return f"check the network connection, or whether {self.endpoint} is up"
