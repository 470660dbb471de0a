"""The results file: JSON lines, a header first, a checksum last (format version 1).

::

    {"format": "llm-scout-results", "version": 1, "created_at": ..., "app": "llm-scout 0.1.0",
     "machine": {"ref": "local", "name": "jetson", "fingerprint": "..."},
     "llama_cpp": {...} | null, "since": ... | null, "kinds": ["all"], "counts": {...}}
    {"type": "machine", "ref": "local", "name": "jetson", "profile": {...}}
    {"type": "model", "ref": "f3", "path": ..., "size_bytes": ..., "sha256": ..., ...}
    {"type": "run", ...}            a stand-alone answer
    {"type": "comparison", ...}     with its contestants, prompts, answers and votes
    {"type": "measurement", ...}    a quality result
    {"type": "calibration", "entry": {...}}
    {"type": "end", "records": N, "sha256": "..."}

One JSON object per line, UTF-8. The header says what wrote the file: the exporting machine
(its record, ``local``, carries its profile exactly as ``llm-scout hw --save`` writes it, with
its calibration) and the llama.cpp build. The record layouts are those of
``desktop.core.history``'s ``transfer`` module. The last line counts the records between header
and end and holds the sha256 of every byte before it: a file cut short has no end line (or one
that does not parse), and a file changed after it was written has another checksum; either is
refused whole. The checksum detects damage and edits, not a forger who recomputes it.

A reader refuses a file that does not start with this header ("not a results file"), and a
higher ``version`` with a sentence of its own before reading further: a newer LLM Scout may
change the layout. Files are written to a temporary name, synced, then renamed: a power cut
never leaves a half-written bundle under the name asked for.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.errors import ScoutError
from desktop.core.history import Results

FORMAT = "llm-scout-results"
VERSION = 1
#: The usual file name ending (any name is accepted).
SUFFIX = ".jsonl"
RECORD_TYPES = ("machine", "model", "run", "comparison", "measurement", "calibration")


class BundleError(ScoutError):
    """A results file cannot be written or read."""

    kind = "bundle"


class BundleDamaged(BundleError):
    kind = "bundle.damaged"


class BundleForeign(BundleError):
    kind = "bundle.foreign"


class BundleNewer(BundleError):
    kind = "bundle.newer"


@dataclass(frozen=True)
class BundleHeader:
    """The first line of a results file."""

    created_at: float
    app: str
    machine: dict[str, Any]
    llama_cpp: dict[str, Any] | None = None
    since: float | None = None
    kinds: tuple[str, ...] = ("all",)
    counts: dict[str, int] = field(default_factory=dict)
    version: int = VERSION

    @property
    def machine_name(self) -> str:
        return str(self.machine.get("name", ""))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": self.version,
            "created_at": self.created_at,
            "app": self.app,
            "machine": self.machine,
            "llama_cpp": self.llama_cpp,
            "since": self.since,
            "kinds": list(self.kinds),
            "counts": self.counts,
        }


def _line(document: Mapping[str, Any]) -> bytes:
    return (json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def write_bundle(path: Path, header: BundleHeader, results: Results) -> int:
    """Write ``results`` under ``header`` to ``path`` atomically; returns its size in bytes.
    BundleError (one sentence) when it cannot be written; nothing is left behind then."""
    lines = [_line(header.to_dict())]
    records = 0
    groups: tuple[tuple[str, tuple[dict[str, Any], ...]], ...] = (
        ("machine", results.machines),
        ("model", results.models),
        ("run", results.runs),
        ("comparison", results.comparisons),
        ("measurement", results.measurements),
    )
    for kind, items in groups:
        for item in items:
            lines.append(_line({"type": kind, **item}))
            records += 1
    for entry in results.calibration:
        lines.append(_line({"type": "calibration", "entry": entry}))
        records += 1
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line)
    lines.append(_line({"type": "end", "records": records, "sha256": digest.hexdigest()}))
    data = b"".join(lines)
    path = path.expanduser()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
        _sync_folder(path.parent)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise BundleError(f"Cannot write the results file {path}: {exc.strerror or exc}.") from exc
    return len(data)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (a power cut right after keeps the new name); best effort."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_bundle(path: Path) -> tuple[BundleHeader, Results]:
    """The header and records of a results file, verified (see the module docstring);
    BundleForeign, BundleNewer or BundleDamaged, each one sentence naming the file."""
    name = path.name
    try:
        data = path.expanduser().read_bytes()
    except OSError as exc:
        raise BundleError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    lines = data.split(b"\n")
    header = _header(lines[0], name)
    if not data.endswith(b"\n"):
        raise BundleDamaged(f"{name} is incomplete (it was cut short); copy it again.")
    lines = lines[:-1]  # the empty piece after the last newline
    try:
        end = json.loads(lines[-1]) if len(lines) > 1 else None
    except (json.JSONDecodeError, UnicodeDecodeError):
        end = None
    if not isinstance(end, dict) or end.get("type") != "end":
        raise BundleDamaged(f"{name} is incomplete (it was cut short); copy it again.")
    body = lines[1:-1]
    digest = hashlib.sha256()
    for line in lines[:-1]:
        digest.update(line + b"\n")
    if end.get("records") != len(body) or end.get("sha256") != digest.hexdigest():
        raise BundleDamaged(
            f"{name} was changed or damaged after it was written (its checksum does not "
            "match); nothing was imported."
        )
    groups: dict[str, list[dict[str, Any]]] = {kind: [] for kind in RECORD_TYPES}
    for number, line in enumerate(body, 2):
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise BundleDamaged(f"{name} is damaged: line {number} is not JSON.") from exc
        kind = record.get("type") if isinstance(record, dict) else None
        if kind not in groups:
            raise BundleDamaged(f"{name} is damaged: line {number} is not a known record.")
        del record["type"]
        if kind == "calibration":
            record = record.get("entry")
        groups[kind].append(record)
    results = Results(
        machines=tuple(groups["machine"]),
        models=tuple(groups["model"]),
        runs=tuple(groups["run"]),
        comparisons=tuple(groups["comparison"]),
        measurements=tuple(groups["measurement"]),
        calibration=tuple(groups["calibration"]),
    )
    return header, results


def _header(first: bytes, name: str) -> BundleHeader:
    foreign = BundleForeign(f"{name} is not an LLM Scout results file.")
    try:
        data = json.loads(first)
    except (json.JSONDecodeError, UnicodeDecodeError):
        if first.startswith(b'{"format":"' + FORMAT.encode() + b'"'):
            raise BundleDamaged(
                f"{name} is incomplete (it was cut short); copy it again."
            ) from None
        raise foreign from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise foreign
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise BundleDamaged(f"{name} is damaged: its format version is not a number.")
    if version > VERSION:
        raise BundleNewer(
            f"{name} was written by a newer LLM Scout (results format {version}; this version "
            f"reads format {VERSION}): update LLM Scout to import it."
        )
    machine = data.get("machine")
    created = data.get("created_at")
    if not isinstance(machine, dict) or isinstance(created, bool):
        raise BundleDamaged(f"{name} is damaged: its header does not say where it comes from.")
    if not isinstance(created, (int, float)):
        raise BundleDamaged(f"{name} is damaged: its header has no time.")
    since = data.get("since")
    llama = data.get("llama_cpp")
    kinds = data.get("kinds")
    counts = data.get("counts")
    return BundleHeader(
        created_at=float(created),
        app=str(data.get("app", "")),
        machine=machine,
        llama_cpp=llama if isinstance(llama, dict) else None,
        since=float(since) if isinstance(since, (int, float)) else None,
        kinds=tuple(str(k) for k in kinds) if isinstance(kinds, list) else ("all",),
        counts=counts if isinstance(counts, dict) else {},
        version=version,
    )
