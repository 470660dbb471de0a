"""The contestants a person sets up on the Compare page, before they are resolved (no Qt).

A :class:`ContestantEntry` is a model (a demo key, a file path or a catalog variant id) plus the
settings that differ from the page's defaults. It turns into the CLI's spec syntax
(``smollm2@temp=0.2,ctx=1024``), which :func:`desktop.core.compare.build_contestants` resolves and
checks, so the window and ``llm-scout compare`` mean the same thing by the same words. A stored
comparison's contestants come back as entries (:func:`entry_from_info`) to be run again.

A contestant on a server (:func:`remote_entry`) has the server's base URL as its spec and the
model name (and the API key's environment variable) as its first settings:
``http://127.0.0.1:8080/v1@model=smollm2,temp=0.2``, as ``llm-scout compare`` takes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop.core.compare import ContestantInfo
from desktop.core.engine import RemoteEndpoint, is_remote_spec
from desktop.core.kv_cache import cache_type_of


@dataclass(frozen=True)
class ContestantEntry:
    """One column of the setup. ``None`` (and ``cache`` f16) means the page's default."""

    spec: str
    label: str
    quant: str | None = None
    ctx: int | None = None
    ngl: int | None = None
    threads: int | None = None
    cache: str = "f16"
    temp: float | None = None
    seed: int | None = None
    name: str = ""
    served_model: str = ""  # a server's: the model it runs, and the API key's variable
    key_env: str = ""

    @property
    def remote(self) -> bool:
        """Whether the contestant runs on a server (``spec`` is its base URL)."""
        return is_remote_spec(self.spec)

    @property
    def endpoint(self) -> RemoteEndpoint | None:
        """The server a remote entry runs on; None for a model on this machine."""
        if not self.remote:
            return None
        return RemoteEndpoint(self.spec, self.served_model, key_env=self.key_env or None)

    def settings(self) -> list[tuple[str, str]]:
        """The ``key=value`` settings of the spec syntax, in a fixed order."""
        pairs: list[tuple[str, str]] = []
        if self.remote:
            pairs.append(("model", self.served_model))
            if self.key_env:
                pairs.append(("key_env", self.key_env))
        if self.ctx is not None:
            pairs.append(("ctx", str(self.ctx)))
        if self.ngl is not None:
            pairs.append(("ngl", str(self.ngl)))
        if self.threads is not None:
            pairs.append(("threads", str(self.threads)))
        if self.cache != "f16":
            pairs.append(("cache", self.cache))
        if self.temp is not None:
            pairs.append(("temp", f"{self.temp:g}"))
        if self.seed is not None:
            pairs.append(("seed", str(self.seed)))
        if self.name.strip():
            pairs.append(("name", self.name.strip().replace(",", " ").replace("@", " ")))
        return pairs

    def spec_text(self) -> str:
        pairs = ",".join(f"{key}={value}" for key, value in self.settings())
        return f"{self.spec}@{pairs}" if pairs else self.spec

    @property
    def display_label(self) -> str:
        return self.name.strip() or self.label


def remote_entry(url: str, model: str, key_env: str = "") -> ContestantEntry:
    """A contestant on an OpenAI-compatible server; UsageError for a URL that is not http(s)
    or an empty model name."""
    endpoint = RemoteEndpoint(url, model, key_env=key_env.strip() or None)
    return ContestantEntry(
        spec=endpoint.base_url,
        label=endpoint.label,
        served_model=endpoint.model,
        key_env=endpoint.key_env or "",
    )


def entry_from_info(info: ContestantInfo) -> ContestantEntry:
    """A stored contestant as a setup entry (its settings as they were)."""
    load: dict[str, Any] = dict(info.settings.get("load") or {})
    sampling: dict[str, Any] = dict(info.settings.get("sampling") or {})
    cache = str(load.get("cache_type") or info.settings.get("cache_type") or "f16")
    remote: dict[str, Any] = dict(info.settings.get("remote") or {})
    spec, served_model, key_env = info.spec, "", ""
    if remote.get("endpoint") and remote.get("model"):
        spec = str(remote["endpoint"])
        served_model = str(remote["model"])
        key_env = str(remote.get("key_env") or "")
    return ContestantEntry(
        spec=spec,
        served_model=served_model,
        key_env=key_env,
        label=info.label or info.name,
        quant=info.quant,
        ctx=_int(load.get("n_ctx")),
        ngl=_int(load.get("n_gpu_layers")) or None,
        threads=_int(load.get("n_threads")),
        cache=cache_type_of(cache),
        temp=_float(sampling.get("temperature")),
        seed=_int(sampling.get("seed")),
    )


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
