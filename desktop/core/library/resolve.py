"""Which model a name means: one resolver for every command and the window.

A *spec* is what a person types or clicks: a path to a GGUF file, a demo model key (``smollm2``,
``gemma3``), a catalog variant id (``qwen2.5-7b-instruct:Q4_K_M``) or a bare model id (its
:data:`DEFAULT_QUANT` variant, else its first). :class:`ModelResolver` turns it into a
:class:`ResolvedModel`: the file on disk when there is one (a download, a library match, a demo
model, the path itself), the catalog model and variant when known, the GGUF header, and the one
label the CLI and the window show.

:meth:`ResolvedModel.fit_target` is the one place that decides which numbers a prediction uses:
the file's real header when a file is known, the catalog's numbers otherwise. ``catalog``,
``fit``, ``run`` and the window all go through it, so one variant id gets one prediction.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from desktop.core.catalog import Catalog, CatalogModel, Variant
from desktop.core.demo import DemoModel
from desktop.core.download import installed_path
from desktop.core.errors import GGUFError, LibraryError, ScoutError, Sentence, os_error_name
from desktop.core.fit import FitTarget
from desktop.core.gguf import GGUFInfo, read_gguf_split
from desktop.core.library.match import FileFacts, match_file
from desktop.core.library.store import LibraryStore

log = logging.getLogger(__name__)

DEFAULT_QUANT = "Q4_K_M"

Origin = Literal["file", "demo", "download", "library", "catalog", "remote"]


class ModelNotFound(LibraryError):
    """A spec that names no file on disk and nothing in the catalog, or a variant not on disk."""

    kind = "library.model_not_found"


@dataclass(frozen=True)
class ResolvedModel:
    """What a spec means. ``path`` is None for a catalog variant with no file on this machine.

    ``origin``: where the file came from (``file``: the path given; ``demo``; ``download``: the
    models folder; ``library``: a file the library imported or found in another app's folder;
    ``catalog``: no file; ``remote``: a model behind a server, no file here). ``header_error``
    says why a file's header could not be read.
    """

    spec: str
    origin: Origin
    label: str
    path: Path | None = None
    model: CatalogModel | None = None
    variant: Variant | None = None
    header: GGUFInfo | None = field(default=None, repr=False)
    header_error: ScoutError | None = field(default=None, repr=False)

    @property
    def on_disk(self) -> bool:
        return self.path is not None

    @property
    def variant_id(self) -> str | None:
        return self.variant.id if self.variant is not None else None

    def require_file(self) -> Path:
        """The GGUF file to load into llama.cpp; ModelNotFound with the way to get it when it
        is not on disk, LibraryError for a variant llama.cpp cannot run (AWQ)."""
        if self.variant is not None and self.variant.format != "gguf":
            raise LibraryError(
                f"{self.variant.id} is an {self.variant.format.upper()} variant; llama.cpp runs "
                "GGUF files only.",
                kind="library.unsupported_format",
                sentence=Sentence(
                    "library.unsupported_format",
                    {"variant": self.variant.id, "format": self.variant.format.upper()},
                ),
            )
        if self.path is not None:
            return self.path
        assert self.variant is not None
        raise ModelNotFound(
            f"The catalog variant {self.variant.id} is neither downloaded nor in the library; "
            f"run `llm-scout download {self.variant.id}` or `llm-scout import FILE` first."
        )

    def fit_target(self) -> FitTarget:
        """The numbers a prediction uses: the header of the file when there is one (keeping
        the catalog's id as label, and nothing to download), else the catalog variant's."""
        if self.header is not None:
            target = FitTarget.from_gguf(self.header)
            if self.variant is not None:
                return replace(
                    target, label=self.variant.id, download_bytes=0, variant=self.variant
                )
            return target
        if self.path is not None and self.header_error is not None and self.variant is None:
            raise self.header_error
        if self.model is None or self.variant is None:
            raise ModelNotFound(f"Nothing is known about {self.spec} to predict from.")
        target = FitTarget.from_variant(self.model, self.variant)
        if self.path is not None:  # on disk but unreadable by our reader (AWQ folder, say)
            return replace(target, download_bytes=0)
        return target


def variant_label(model: CatalogModel, variant: Variant) -> str:
    """ "SmolLM2 135M Instruct Q4_1": the catalog's name and the quant."""
    if variant.quant.lower() in model.name.lower():
        return model.name
    return f"{model.name} {variant.quant}"


def _looks_like_path(spec: str) -> bool:
    return spec.lower().endswith(".gguf") or "/" in spec or "\\" in spec or spec.startswith(".")


class ModelResolver:
    """Resolves specs against a catalog, the models folder, the library and the demo models.

    ``library_db`` is read only when the file exists (a look-up never creates a library);
    ``demos`` lists the demo models (:func:`desktop.core.demo.demo_models`). Headers and the
    set of installed variants are read once per resolver and kept.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        models_dir: Path,
        library_db: Path | None = None,
        demos: Sequence[DemoModel] = (),
    ) -> None:
        self.catalog = catalog
        self.models_dir = models_dir
        self.library_db = library_db
        self.demos = tuple(demos)
        self._headers: dict[Path, GGUFInfo | ScoutError] = {}
        self._installed: dict[str, tuple[Path, Origin]] | None = None
        self._library_variants: dict[Path, str] | None = None

    # -- the entry point ------------------------------------------------------------------------

    def resolve(self, spec: str) -> ResolvedModel:
        """A path as given; a demo key; a variant id; a bare model id (its default variant)."""
        spec = spec.strip()
        path = Path(spec).expanduser()
        if _looks_like_path(spec) or path.exists():
            if not path.exists():
                raise ModelNotFound(f"There is no model file at {path}.")
            if path.is_dir():
                raise ModelNotFound(f"{path} is a folder; give the .gguf file inside it.")
            return self._from_file(spec, path.absolute(), "file")
        for demo in self.demos:
            if spec in (demo.key, demo.key.split("-", 1)[0]):
                return self._from_file(spec, demo.path, "demo", demo_name=demo.name)
        if ":" in spec:
            model, variant = self.catalog.variant(spec)  # CatalogError names close ids
        else:
            found = self.catalog.get(spec)
            if found is None:
                short = [d.key.split("-", 1)[0] for d in self.demos]
                keys = ", ".join(short) or "none here"
                raise ModelNotFound(
                    f"{spec} is neither a model file, a catalog model or variant id (model:QUANT), "
                    f"nor a demo model ({keys}){self.catalog.suggestions(spec, also=short)}."
                )
            model, variant = found, found.variant_for(DEFAULT_QUANT) or found.variants[0]
        return self.for_variant(model, variant, spec=spec)

    def for_variant(
        self, model: CatalogModel, variant: Variant, *, spec: str | None = None
    ) -> ResolvedModel:
        """A catalog variant with its file when one is on disk."""
        found = self.installed().get(variant.id)
        if found is None:
            return ResolvedModel(
                spec or variant.id, "catalog", variant_label(model, variant), None, model, variant
            )
        path, origin = found
        header, error = self._header(path) if variant.format == "gguf" else (None, None)
        return ResolvedModel(
            spec or variant.id,
            origin,
            variant_label(model, variant),
            path,
            model,
            variant,
            header,
            error,
        )

    def fit_targets(
        self, pairs: Iterable[tuple[CatalogModel, Variant]]
    ) -> list[tuple[CatalogModel, Variant, FitTarget]]:
        """Fit targets of catalog variants (the installed file's header where there is one)."""
        out = []
        for model, variant in pairs:
            try:
                target = self.for_variant(model, variant).fit_target()
            except ScoutError as exc:
                log.info("no fit target for %s: %s", variant.id, exc)
                continue
            out.append((model, variant, target))
        return out

    # -- what is on disk --------------------------------------------------------------------

    def installed(self) -> dict[str, tuple[Path, Origin]]:
        """Variant id -> (file, origin) for every catalog variant on this machine: downloads
        in the models folder first, then files the library matched. No network, no hashing."""
        if self._installed is None:
            found: dict[str, tuple[Path, Origin]] = {}
            for variant_id, path in self._library_variants_by_id().items():
                found[variant_id] = (path, "library")
            if self.models_dir.is_dir():
                for _model, variant in self.catalog.variants():
                    downloaded = installed_path(variant, self.models_dir)
                    if downloaded is not None:
                        found[variant.id] = (downloaded, "download")
            self._installed = found
        return self._installed

    def _library_variants_by_id(self) -> dict[str, Path]:
        out: dict[str, Path] = {}
        for path, variant_id in self._library_matches().items():
            out.setdefault(variant_id, path)
        return out

    def _library_matches(self) -> dict[Path, str]:
        """File -> matched variant id, from the library database (read once)."""
        if self._library_variants is not None:
            return self._library_variants
        self._library_variants = {}
        if self.library_db is None or not self.library_db.is_file():
            return self._library_variants
        try:
            store = LibraryStore(self.library_db)
        except (LibraryError, OSError) as exc:
            log.info("the library cannot be read: %s", exc)
            return self._library_variants
        try:
            entries = store.entries(include_missing=False)
        finally:
            store.close()
        for entry in entries:
            if entry.variant_id is not None and entry.path.is_file():
                self._library_variants[entry.path] = entry.variant_id
        return self._library_variants

    # -- files --------------------------------------------------------------------------------

    def _header(self, path: Path) -> tuple[GGUFInfo | None, ScoutError | None]:
        known = self._headers.get(path)
        if known is None:
            try:
                known = read_gguf_split(path)
            except GGUFError as exc:
                known = exc
            except OSError as exc:
                reason = exc.strerror or str(exc)
                known = LibraryError(
                    f"{path} cannot be read: {reason}.",
                    kind="library.unreadable",
                    sentence=Sentence(
                        "library.unreadable",
                        {"path": str(path), "reason": reason, "errno": os_error_name(exc)},
                    ),
                )
            self._headers[path] = known
        if isinstance(known, ScoutError):
            return None, known
        return known, None

    def _from_file(
        self, spec: str, path: Path, origin: Origin, *, demo_name: str | None = None
    ) -> ResolvedModel:
        header, error = self._header(path)
        model, variant = self._match(path, header)
        if model is not None and variant is not None:
            label = variant_label(model, variant)
        elif demo_name:
            label = demo_name
        elif header is not None and header.name:
            quant = header.quant or ""
            label = (
                header.name if quant.lower() in header.name.lower() else f"{header.name} {quant}"
            )
        else:
            label = path.name
        return ResolvedModel(spec, origin, label.strip(), path, model, variant, header, error)

    def _match(
        self, path: Path, header: GGUFInfo | None
    ) -> tuple[CatalogModel | None, Variant | None]:
        """The catalog variant of a local file: the library's match, else by name or header."""
        variant_id = self._library_matches().get(path)
        if variant_id is not None:
            try:
                return self.catalog.variant(variant_id)
            except ScoutError:
                pass
        if header is None:
            found = self.catalog.find_by_file_name(path.name)
            return (found[0], found[1]) if found is not None else (None, None)
        try:
            first = os.stat(path).st_size
        except OSError:
            first = header.file_size or 0
        facts = FileFacts(
            file_name=path.name,
            architecture=header.arch.architecture,
            n_params=header.arch.n_params,
            quant=header.quant,
            size_bytes=header.file_size or first,
            first_file_bytes=first,
            names=tuple(n for n in (header.name,) if n),
        )
        match, _sha = match_file(self.catalog, facts, None)
        return (match.model, match.variant) if match is not None else (None, None)
