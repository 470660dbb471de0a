"""Models on this machine: discovery, the library database, matching, import, the resolver.

Owns every local model file the app knows: downloads in the models folder, files in the Hugging
Face cache, LM Studio, Ollama, GPT4All, the user's folders and the demo models, and imported
files; removing them (forget a row, or delete what the downloader installed); their GGUF
facts and catalog match in an SQLite database; and :class:`ModelResolver`, which turns whatever a
person types (a path, a demo key, a variant id, a model id) into one :class:`ResolvedModel` —
the file, the catalog variant, the label, and the numbers a prediction uses. Depends on catalog,
gguf, download (where downloads are installed), fit (prediction targets) and storage (the
database file).
"""

from desktop.core.library.manager import Library, RootReport, ScanProgress, ScanReport
from desktop.core.library.resolve import (
    DEFAULT_QUANT,
    ModelNotFound,
    ModelResolver,
    ResolvedModel,
    variant_label,
)
from desktop.core.library.sources import (
    ScanRoot,
    demo_roots,
    downloaded_files,
    known_app_roots,
    scan_roots,
)
from desktop.core.library.store import MIGRATIONS, LibraryEntry, LibraryProblem

__all__ = [
    "DEFAULT_QUANT",
    "MIGRATIONS",
    "Library",
    "LibraryEntry",
    "LibraryProblem",
    "ModelNotFound",
    "ModelResolver",
    "ResolvedModel",
    "RootReport",
    "ScanProgress",
    "ScanReport",
    "ScanRoot",
    "demo_roots",
    "downloaded_files",
    "known_app_roots",
    "scan_roots",
    "variant_label",
]
