"""Contestants: a model with its load and sampling settings and a name to show.

Any local model may compete, and so may the same file twice with different settings (quant,
temperature, context, GPU layers, KV cache type, flash attention): a :class:`Contestant` is a
resolved model plus
:class:`LoadSettings`, :class:`SamplingParams` and a display name. Names are made unique by the
settings that differ (``SmolLM2 135M Instruct Q4_1 (temp 0.2)``).

What a person types is a resolver spec with optional settings after ``@``:
``smollm2``, ``qwen2.5-7b-instruct:Q4_K_M@temp=0.2,ctx=8192``, ``./model.gguf@ngl=20,name=GPU``
(:data:`SETTING_KEYS` lists the keys). A spec that starts with ``http://`` or ``https://`` is a
model behind an OpenAI-compatible server: ``http://127.0.0.1:8080/v1@model=NAME`` (plus
``key_env=VAR`` for the API key's variable, and the sampling keys); it has no file, no
prediction, and the history stores its endpoint and model name.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.compare.errors import CompareError
from desktop.core.engine import (
    LoadSettings,
    RemoteEndpoint,
    endpoint_from_spec,
    is_remote_spec,
)
from desktop.core.engine import protocol as p
from desktop.core.errors import ScoutError
from desktop.core.history import ContestantRecord, settings_dict
from desktop.core.kv_cache import auto_flash_attn
from desktop.core.library import ModelResolver, ResolvedModel

MIN_CONTESTANTS = 2
MAX_CONTESTANTS = 6

#: Settings a spec may carry after ``@``: key -> (where, field, type).
SETTING_KEYS: Mapping[str, tuple[str, str, type]] = {
    "ctx": ("load", "n_ctx", int),
    "ngl": ("load", "n_gpu_layers", int),
    "threads": ("load", "n_threads", int),
    "template": ("load", "template", str),
    "cache": ("load", "cache_type", str),
    "fa": ("load", "flash_attn", bool),
    "temp": ("sampling", "temperature", float),
    "top_p": ("sampling", "top_p", float),
    "top_k": ("sampling", "top_k", int),
    "min_p": ("sampling", "min_p", float),
    "repeat_penalty": ("sampling", "repeat_penalty", float),
    "seed": ("sampling", "seed", int),
    "max_tokens": ("sampling", "max_tokens", int),
    "name": ("contestant", "name", str),
}

# How a setting reads in a display name, in this order.
_SHORT = (
    ("quant", "{}"),
    ("n_ctx", "ctx {}"),
    ("n_gpu_layers", "ngl {}"),
    ("n_threads", "{} threads"),
    ("cache_type", "KV {}"),
    ("flash_attn", "FA {}"),
    ("temperature", "temp {:g}"),
    ("top_p", "top-p {:g}"),
    ("top_k", "top-k {}"),
    ("min_p", "min-p {:g}"),
    ("repeat_penalty", "repeat {:g}"),
    ("seed", "seed {}"),
    ("max_tokens", "max {}"),
    ("template", "template {}"),
    ("system", "own system prompt"),
)

_SETTING_RE = re.compile(r"^[a-z_]+=[^,]*(,[a-z_]+=[^,]*)*$")


@dataclass(frozen=True)
class Contestant:
    """One column of a comparison. ``name`` empty: the model's label. ``unavailable`` is set
    on a stored contestant whose model is no longer on this machine: a resume marks it failed
    with that reason and runs the others. ``endpoint``: the server a remote contestant runs on
    (its ``model`` then has no file)."""

    model: ResolvedModel
    load: LoadSettings = field(default_factory=LoadSettings)
    sampling: p.SamplingParams = field(default_factory=p.SamplingParams)
    name: str = ""
    system: str | None = None
    unavailable: str | None = None
    endpoint: RemoteEndpoint | None = None

    @property
    def remote(self) -> bool:
        return self.endpoint is not None

    @property
    def display_name(self) -> str:
        return self.name or self.model.label

    @property
    def spec(self) -> str:
        return self.model.spec

    @property
    def quant(self) -> str | None:
        if self.model.variant is not None:
            return self.model.variant.quant
        return self.model.header.quant if self.model.header is not None else None

    def settings_dict(self) -> dict[str, Any]:
        """The settings as the history stores them (a remote one's endpoint and model name, never
        its API key)."""
        if self.endpoint is not None:
            return settings_dict(
                self.load, self.sampling, system=self.system, remote=self.endpoint.to_dict()
            )
        return settings_dict(self.load, self.sampling, system=self.system)

    def known_sha256(self) -> str | None:
        """The file's sha256 when the catalog or a demo package states it for a file of this
        very size (so the history need not hash it)."""
        path, variant = self.model.path, self.model.variant
        if path is None or variant is None:
            return None
        try:
            size = os.stat(path).st_size
        except OSError:
            return None
        demo = variant.local_demo
        if demo is not None and demo.size_bytes == size:
            return demo.sha256
        if len(variant.files) == 1:
            only = variant.files[0]
            if only.sha256 and only.verified and only.size_bytes == size:
                return only.sha256
        return None

    def record(self) -> ContestantRecord:
        """What the history stores for this contestant (the model file is added by the runner)."""
        return ContestantRecord(
            name=self.display_name, spec=self.spec, settings=self.settings_dict()
        )

    def with_settings(self, settings: Mapping[str, str]) -> Contestant:
        """This contestant with ``key=value`` settings applied (keys of :data:`SETTING_KEYS`)."""
        load: dict[str, Any] = {}
        sampling: dict[str, Any] = {}
        own: dict[str, Any] = {}
        for key, raw in settings.items():
            where = SETTING_KEYS.get(key)
            if where is None:
                known = ", ".join(SETTING_KEYS)
                raise CompareError(
                    f"Unknown model setting {key!r}; use {known}.", kind="compare.option"
                )
            place, name, kind = where
            value = _convert(key, raw, kind)
            {"load": load, "sampling": sampling, "contestant": own}[place][name] = value
        if "cache_type" in load and "flash_attn" not in load:
            # A quantized cache needs flash attention: "auto" turns it on (the engine's rule).
            load["flash_attn"] = self.load.flash_attn or auto_flash_attn(load["cache_type"])
        try:
            new_load = dataclasses.replace(self.load, **load)
            new_sampling = dataclasses.replace(self.sampling, **sampling)
        except ScoutError as exc:
            raise CompareError(exc.message, kind="compare.option") from exc
        if new_sampling.max_tokens < 1:
            raise CompareError("max_tokens must be at least 1.", kind="compare.option")
        return dataclasses.replace(
            self, load=new_load, sampling=new_sampling, name=own.get("name", self.name)
        )


def _convert(key: str, raw: str, kind: type) -> Any:
    text = raw.strip()
    if kind is str:
        return text
    if kind is bool:
        if text.lower() in ("1", "on", "true", "yes"):
            return True
        if text.lower() in ("0", "off", "false", "no"):
            return False
        raise CompareError(f"The setting {key}={raw!r} needs on or off.", kind="compare.option")
    if key in ("threads", "seed") and text.lower() in ("", "auto", "none", "random"):
        return None
    try:
        return kind(text)
    except ValueError:
        raise CompareError(
            f"The setting {key}={raw!r} needs a number.", kind="compare.option"
        ) from None


def split_spec(text: str) -> tuple[str, dict[str, str]]:
    """``"smollm2@temp=0.2,ctx=1024"`` -> ``("smollm2", {"temp": "0.2", "ctx": "1024"})``.

    Only a last ``@`` followed by ``key=value`` pairs starts settings, so a path with an ``@``
    in it still works."""
    model, at, rest = text.rpartition("@")
    if not at or not model or not _SETTING_RE.match(rest.strip()):
        return text.strip(), {}
    settings: dict[str, str] = {}
    for pair in rest.split(","):
        key, _, value = pair.partition("=")
        settings[key.strip()] = value
    return model.strip(), settings


def build_contestants(
    resolver: ModelResolver,
    specs: Sequence[str],
    *,
    load: LoadSettings | None = None,
    sampling: p.SamplingParams | None = None,
    system: str | None = None,
) -> list[Contestant]:
    """Contestants for what a person typed: each spec resolved (ModelNotFound names the one
    that is not there), its ``@`` settings applied over the shared ones, names made unique."""
    check_count(len(specs))
    out = []
    for text in specs:
        model_spec, settings = split_spec(text)
        if is_remote_spec(model_spec):
            out.append(_remote(model_spec, settings, load, sampling, system))
            continue
        resolved = resolver.resolve(model_spec)
        resolved.require_file()
        base = Contestant(
            resolved,
            load or LoadSettings(),
            sampling or p.SamplingParams(),
            system=system,
        )
        out.append(base.with_settings(settings) if settings else base)
    return unique_names(out)


def remote_contestant(
    endpoint: RemoteEndpoint,
    load: LoadSettings | None = None,
    sampling: p.SamplingParams | None = None,
    system: str | None = None,
) -> Contestant:
    """A contestant that runs on an OpenAI-compatible server."""
    model = ResolvedModel(endpoint.spec, "remote", endpoint.label)
    return Contestant(
        model,
        load or LoadSettings(),
        sampling or p.SamplingParams(),
        system=system,
        endpoint=endpoint,
    )


def _remote(
    base_url: str,
    settings: Mapping[str, str],
    load: LoadSettings | None,
    sampling: p.SamplingParams | None,
    system: str | None,
) -> Contestant:
    try:
        endpoint, rest = endpoint_from_spec(base_url, dict(settings))
    except ScoutError as exc:
        raise CompareError(exc.message, kind="compare.option") from exc
    base = remote_contestant(endpoint, load, sampling, system)
    return base.with_settings(rest) if rest else base


def check_count(n: int) -> None:
    if not MIN_CONTESTANTS <= n <= MAX_CONTESTANTS:
        raise CompareError(
            f"A comparison takes {MIN_CONTESTANTS} to {MAX_CONTESTANTS} models, not {n}.",
            kind="compare.contestants",
        )


def describe(contestant: Contestant) -> dict[str, Any]:
    """The settings that tell contestants apart, by the names :data:`_SHORT` shows."""
    load, sampling = contestant.load, contestant.sampling
    return {
        "quant": contestant.quant,
        "n_ctx": load.n_ctx,
        "n_gpu_layers": load.n_gpu_layers,
        "n_threads": load.n_threads,
        "cache_type": load.cache_type,
        "flash_attn": "on" if load.flash_attn else "off",
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "top_k": sampling.top_k,
        "min_p": sampling.min_p,
        "repeat_penalty": sampling.repeat_penalty,
        "seed": sampling.seed,
        "max_tokens": sampling.max_tokens,
        "template": load.template,
        "system": contestant.system,
    }


def unique_names(contestants: Sequence[Contestant]) -> list[Contestant]:
    """Give contestants that would show the same name the settings that differ in brackets
    (``#2``, ``#3`` when nothing differs). Names given explicitly are kept."""
    out = list(contestants)
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(out):
        groups.setdefault(c.display_name, []).append(i)
    for name, members in groups.items():
        if len(members) < 2:
            continue
        described = [describe(out[i]) for i in members]
        differing = [k for k, _ in _SHORT if len({repr(d[k]) for d in described}) > 1]
        for n, (i, d) in enumerate(zip(members, described, strict=True)):
            parts = [
                fmt.format(d[k]) if k != "system" else fmt
                for k, fmt in _SHORT
                if k in differing and d[k] is not None
            ]
            suffix = ", ".join(parts) if parts else f"#{n + 1}"
            out[i] = dataclasses.replace(out[i], name=f"{name} ({suffix})")
    seen: set[str] = set()
    for i, c in enumerate(out):  # settings alike but for a None: still number them
        if c.display_name in seen:
            out[i] = dataclasses.replace(c, name=f"{c.display_name} #{i + 1}")
        seen.add(out[i].display_name)
    return out


def contestant_from_record(resolver: ModelResolver, record: ContestantRecord) -> Contestant:
    """A stored contestant made runnable on this machine: its spec resolved again (the file on
    record when the spec no longer resolves), its settings and name restored. A model that is
    gone gives a contestant marked ``unavailable`` with the reason."""
    load_data = dict(record.settings.get("load") or {})
    sampling_data = dict(record.settings.get("sampling") or {})
    if "stop" in sampling_data:
        sampling_data["stop"] = tuple(sampling_data["stop"] or ())
    known_load = {f.name for f in dataclasses.fields(LoadSettings)}
    known_sampling = {f.name for f in dataclasses.fields(p.SamplingParams)}
    unavailable: str | None = None
    endpoint: RemoteEndpoint | None = None
    if is_remote_spec(record.spec):
        endpoint = _endpoint_of(record)
        resolved = ResolvedModel(endpoint.spec, "remote", endpoint.label)
    else:
        try:
            resolved = _resolve_again(resolver, record)
        except ScoutError as exc:
            resolved = ResolvedModel(record.spec, "catalog", record.name)
            unavailable = exc.message
    try:
        load = LoadSettings(**{k: v for k, v in load_data.items() if k in known_load})
        sampling = p.SamplingParams(
            **{k: v for k, v in sampling_data.items() if k in known_sampling}
        )
    except (ScoutError, TypeError) as exc:
        raise CompareError(
            f"The stored settings of {record.name} cannot be used: {exc}.", kind="compare.option"
        ) from exc
    return Contestant(
        resolved,
        load,
        sampling,
        name=record.name,
        system=record.settings.get("system"),
        unavailable=unavailable,
        endpoint=endpoint,
    )


def _endpoint_of(record: ContestantRecord) -> RemoteEndpoint:
    remote = record.settings.get("remote") or {}
    base_url, settings = split_spec(record.spec)
    try:
        if remote.get("endpoint") and remote.get("model"):
            return RemoteEndpoint(
                str(remote["endpoint"]), str(remote["model"]), key_env=remote.get("key_env")
            )
        return endpoint_from_spec(base_url, settings)[0]
    except ScoutError as exc:
        raise CompareError(
            f"The stored endpoint of {record.name} cannot be used: {exc.message}",
            kind="compare.option",
        ) from exc


def _resolve_again(resolver: ModelResolver, record: ContestantRecord) -> ResolvedModel:
    try:
        resolved = resolver.resolve(record.spec)
        resolved.require_file()
        return resolved
    except ScoutError:
        if record.model is None or not Path(record.model.path).is_file():
            raise
        return resolver.resolve(str(record.model.path))
