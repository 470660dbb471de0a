"""The executable's entry point: the engine worker, the window or the command line.

A frozen build has no ``python -m``, so the app's own executable is also the engine worker
(``llm-scout --engine-worker``). That flag is checked before anything else is imported: the
worker's memory is what it reports, and the fit estimate is calibrated against a worker that
imported only the engine. The command line and the window are imported only when they run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

WORKER_FLAG = "--engine-worker"
SMOKE_FLAG = "--smoke-test"


def main(argv: Sequence[str] | None = None) -> int:
    # NumPy's OpenBLAS starts a worker thread per core at import, with signals unblocked, and
    # Linux may hand the terminal's Ctrl-C to one of them while the main thread waits in
    # input(): then `run --chat` missed it. Nothing here needs threaded BLAS (llama.cpp has
    # its own threads), so one thread it is, before anything imports NumPy.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == [WORKER_FLAG]:
        from desktop.core.engine import worker_main

        return int(worker_main(args[1:]))
    if args[:1] == [SMOKE_FLAG]:
        from desktop.smoke import main as smoke_main

        return smoke_main(args[1:])
    from desktop.cli import main as cli_main

    return cli_main(args)
