"""Every constant of the fit model has a sourced row (desktop/core/fit/constants.py), the rows
hold the code's values, and docs/fit-constants.md is that table."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

import pytest

from desktop.core import kv_cache
from desktop.core.fit import constants, memory, place, speed

ROOT = Path(__file__).resolve().parents[3]
MODULES: dict[str, ModuleType] = {"memory": memory, "speed": speed, "place": place}
# Constants the fit model uses from outside desktop/core/fit: the KV cache's block sizes.
SHARED: dict[str, Mapping[str, object]] = {"kv_cache.BLOCK_BYTES": kv_cache.BLOCK_BYTES}


def code_constants() -> dict[str, object]:
    """The module-level UPPER_CASE numbers and tables of memory.py, speed.py and place.py
    (tables entry by entry), the fields of memory.Calibration and the shared tables the model
    reads (:data:`SHARED`), by their row names."""
    found: dict[str, object] = {}
    for name, table in SHARED.items():
        for key, item in table.items():
            found[f"{name}[{key!r}]"] = item
    for prefix, module in MODULES.items():
        for name, value in vars(module).items():
            if not name.isupper() or isinstance(value, (bool, str, ModuleType)):
                continue
            if getattr(value, "__module__", module.__name__) != module.__name__:
                continue  # imported from elsewhere
            if isinstance(value, (int, float)):
                found[f"{prefix}.{name}"] = value
            elif isinstance(value, dict):
                for key, item in value.items():
                    if isinstance(item, dict):
                        for sub, leaf in item.items():
                            found[f"{prefix}.{name}[{key!r}][{sub!r}]"] = leaf
                    else:
                        found[f"{prefix}.{name}[{key!r}]"] = item
            elif dataclasses.is_dataclass(value) and not isinstance(value, type):
                for field in dataclasses.fields(value):
                    kind = type(value).__name__
                    found[f"{prefix}.{kind}.{field.name}"] = getattr(value, field.name)
    return found


def test_the_scan_finds_the_constants_the_model_uses() -> None:
    found = code_constants()
    for name in (
        "speed.CPU_DECODE_RATE_PER_CORE['Q4_K']",
        "speed.CPU_EXPERT_RATE_PER_CORE['quantized']",
        "speed.CPU_MEMORY_EFFICIENCY",
        "speed.GPU_NODE_S",
        "speed.BLOCK_NODES['qwen3']",
        "place.STAGING_EXTRA_BYTES",
        "memory.CTX_PAD",
        "kv_cache.BLOCK_BYTES['q8_0']",
        "memory.REPACK_TYPES['x86']['Q4_K']",
        "memory.Calibration.gpu_context_bytes",
    ):
        assert name in found, name
    assert not any(name.startswith("place.fm") for name in found)


def test_every_constant_in_the_code_has_a_row_with_its_value() -> None:
    rows = constants.by_name()
    missing = sorted(set(code_constants()) - set(rows))
    assert not missing, f"constants without a row in desktop/core/fit/constants.py: {missing}"
    for name, value in code_constants().items():
        assert rows[name].value == value, f"{name}: the code has {value}, the table {rows[name]}"


def test_every_row_names_a_constant_of_the_code() -> None:
    stale = sorted(set(constants.by_name()) - set(code_constants()))
    assert not stale, f"rows for constants the code no longer has: {stale}"
    assert len(constants.by_name()) == len(constants.CONSTANTS), "a name appears twice"


@pytest.mark.parametrize("row", constants.CONSTANTS, ids=lambda c: c.name)
def test_every_row_says_where_its_value_comes_from(row: constants.Constant) -> None:
    assert row.meaning
    assert row.source
    assert row.unit
    if row.basis in ("fitted", "measured"):
        assert row.points > 0, "a measured value says how many points it rests on"
        assert row.machine, "a measured value says where it was measured"
    for word in row.source.replace(";", " ").replace(",", " ").split():
        if word.startswith(("tests/", "benchmarks/", "docs/")):
            path = ROOT / word.split(":")[0].rstrip(".)")
            assert path.exists(), f"{row.name} cites {word}, which is not in the repository"


def test_the_document_is_the_table() -> None:
    doc = ROOT / "docs" / "fit-constants.md"
    assert doc.read_text(encoding="utf-8") == constants.markdown(), (
        "docs/fit-constants.md is stale: python -m desktop.core.fit.constants > "
        "docs/fit-constants.md"
    )
