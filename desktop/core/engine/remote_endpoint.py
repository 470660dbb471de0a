"""Where a remote engine lives: an OpenAI-compatible base URL, a model name, and its API key.

A :class:`RemoteEndpoint` is a plain value (it never holds the key): the key is looked up when a
request goes out, from an environment variable (``LLM_SCOUT_API_KEY`` or the one named) or,
where the optional ``keyring`` package is importable, from the system keyring (service
``llm-scout``, user name the base URL). The key is never stored in settings or the history,
never logged, and never part of an error message.

The remote form of a model spec is the base URL with settings after ``@``:
``http://127.0.0.1:8080/v1@model=smollm2`` (``key_env=VAR`` names another variable).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from desktop.core.errors import UsageError

DEFAULT_KEY_ENV = "LLM_SCOUT_API_KEY"
KEYRING_SERVICE = "llm-scout"
#: Seconds to wait for a connection, and for the next bytes of a stream before giving up.
CONNECT_TIMEOUT_S = 10.0
STALL_TIMEOUT_S = 60.0


def is_remote_spec(text: str) -> bool:
    """Whether a model spec names a server (``http://`` or ``https://``) rather than a model."""
    lowered = text.strip().lower()
    return lowered.startswith(("http://", "https://"))


@dataclass(frozen=True)
class RemoteEndpoint:
    """An OpenAI-compatible server and the model it serves. ``base_url`` ends before
    ``/chat/completions`` (``http://host:8080/v1``); ``key_env`` names the environment variable
    with the API key (None: ``LLM_SCOUT_API_KEY``)."""

    base_url: str
    model: str
    key_env: str | None = None
    stall_timeout_s: float = STALL_TIMEOUT_S
    connect_timeout_s: float = CONNECT_TIMEOUT_S

    def __post_init__(self) -> None:
        url = self.base_url.strip().rstrip("/")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise UsageError(
                f"The endpoint {self.base_url!r} is not an http:// or https:// URL.",
                kind="engine.remote_usage",
            )
        if not self.model.strip():
            raise UsageError(
                f"Name the model the server at {url} should run (model=NAME).",
                kind="engine.remote_usage",
            )
        if self.stall_timeout_s <= 0 or self.connect_timeout_s <= 0:
            raise UsageError("Remote timeouts must be positive.", kind="engine.remote_usage")
        object.__setattr__(self, "base_url", url)
        object.__setattr__(self, "model", self.model.strip())

    @property
    def root_url(self) -> str:
        """The server's root (``/v1`` dropped): where ``/metrics`` and Ollama's ``/api/ps`` are."""
        url = self.base_url
        return url[: -len("/v1")] if url.endswith("/v1") else url

    @property
    def host(self) -> str:
        return urlsplit(self.base_url).netloc

    @property
    def label(self) -> str:
        """How the contestant reads: ``smollm2 @ 127.0.0.1:8080``."""
        return f"{self.model} @ {self.host}"

    @property
    def spec(self) -> str:
        """The spec that names this endpoint again (what the history stores)."""
        extra = f",key_env={self.key_env}" if self.key_env else ""
        return f"{self.base_url}@model={self.model}{extra}"

    @property
    def key_variable(self) -> str:
        return self.key_env or DEFAULT_KEY_ENV

    def api_key(self) -> str | None:
        """The API key: the environment variable, else the keyring (when importable), else None."""
        value = os.environ.get(self.key_variable)
        if value:
            return value
        return _keyring_key(self.base_url)

    def with_timeout(self, seconds: float) -> RemoteEndpoint:
        """The same endpoint, allowed ``seconds`` of silence (the ``remote_timeout_s`` setting)."""
        return replace(self, stall_timeout_s=float(seconds))

    def to_dict(self) -> dict[str, str]:
        """What the history stores: never the key, only where it comes from."""
        out = {"endpoint": self.base_url, "model": self.model}
        if self.key_env:
            out["key_env"] = self.key_env
        return out


def _keyring_key(base_url: str) -> str | None:
    try:
        import keyring  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    try:
        value = keyring.get_password(KEYRING_SERVICE, base_url)
    except Exception:  # no backend, a locked keyring: no key, the server says whether it needs one
        return None
    return value if isinstance(value, str) and value else None


def endpoint_from_spec(
    base_url: str, settings: dict[str, str]
) -> tuple[RemoteEndpoint, dict[str, str]]:
    """A remote spec's endpoint and the settings left for the contestant (``model`` and
    ``key_env`` taken out). UsageError when ``model=`` is missing."""
    rest = dict(settings)
    model = rest.pop("model", "").strip()
    key_env = rest.pop("key_env", "").strip() or None
    if not model:
        raise UsageError(
            f"A remote model needs its name: {base_url}@model=NAME.", kind="engine.remote_usage"
        )
    return RemoteEndpoint(base_url, model, key_env=key_env), rest
