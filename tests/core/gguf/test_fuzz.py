"""Property-based test: mutated headers of real files never raise anything but GGUFError and
never make the reader allocate more than the file holds."""

from __future__ import annotations

import struct
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.core.errors import GGUFError
from desktop.core.gguf import GGUFArraySummary, read_gguf
from tests.fixtures.tiny_models import load_tokenizer, write_tiny_model

EXAMPLES = 1000
# The reader maps the file instead of copying it and holds decoded text to a budget of the file
# size, so what it allocates is the Python objects for the values the header holds; a fixed
# allowance covers the small ones (dicts, tuples, TensorInfo). An allocation sized by a count or
# length claimed in the file would be gigabytes here.
SLACK = 512 * 1024

INTERESTING_U64 = [0, 1, 2, 3, 255, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**62, 2**63 - 1, 2**64 - 1]


def _real_header_rebuilt(smollm2: Path, target: Path) -> Path:
    """The SmolLM2 header rebuilt: its real metadata and 272 real tensor infos, token arrays cut
    to 300 items, and no tensor data (so a valid read ends at the tensor bounds check)."""
    info = read_gguf(smollm2)
    tok = load_tokenizer("smollm2")
    writer = gguf.GGUFWriter(target, "llama")
    for key, value in info.metadata.items():
        if key == "general.architecture":
            continue
        if isinstance(value, GGUFArraySummary):
            replacement: dict[str, list[Any]] = {
                "tokenizer.ggml.tokens": list(tok.tokens[:300]),
                "tokenizer.ggml.merges": list(tok.merges or ())[:300],
                "tokenizer.ggml.token_type": list(tok.token_types[:300]),
            }
            writer.add_array(key, replacement[key])
        elif isinstance(value, tuple):
            writer.add_array(key, list(value))
        elif isinstance(value, bool):
            writer.add_bool(key, value)
        elif isinstance(value, int):
            writer.add_uint32(key, value)
        elif isinstance(value, float):
            writer.add_float32(key, value)
        else:
            writer.add_string(key, value)
    for tensor in info.tensors:
        block, size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType(tensor.ggml_type)]
        shape = tuple(reversed(tensor.shape))
        byte_shape = (*shape[:-1], shape[-1] // block * size)
        writer.add_tensor_info(
            tensor.name,
            byte_shape,
            np.dtype(np.uint8),
            tensor.n_bytes,
            gguf.GGMLQuantizationType(tensor.ggml_type),
        )
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    writer.close()
    return target


@pytest.fixture(scope="module")
def bases(
    tmp_path_factory: pytest.TempPathFactory, smollm2_path: Path, gemma3_path: Path
) -> list[tuple[bytes, int]]:
    """(file bytes, length of the interesting prefix) for each base file."""
    root = tmp_path_factory.mktemp("fuzz-bases")
    found: list[tuple[bytes, int]] = []
    for path in (
        write_tiny_model(root / "llama.gguf", arch="llama", n_vocab=512, n_embd=32, ftype="F32"),
        write_tiny_model(
            root / "gemma3.gguf",
            arch="gemma3",
            n_vocab=300,
            ftype="Q8_0",
            tokenizer="gemma3",
            with_chat_template=False,
        ),
    ):
        found.append((path.read_bytes(), read_gguf(path).data_offset + 64))
    rebuilt = _real_header_rebuilt(smollm2_path, root / "smol-header.gguf").read_bytes()
    found.append((rebuilt, len(rebuilt)))
    for real in (smollm2_path, gemma3_path):
        with real.open("rb") as handle:
            prefix = handle.read(64 * 1024)
        found.append((prefix, len(prefix)))
    return found


def _mutations(length: int) -> st.SearchStrategy[list[tuple[str, int, Any]]]:
    pos = st.integers(0, max(length - 1, 0))
    return st.lists(
        st.one_of(
            st.tuples(st.just("byte"), pos, st.integers(0, 255)),
            st.tuples(
                st.just("u64"),
                pos,
                st.one_of(st.sampled_from(INTERESTING_U64), st.integers(0, 2**64 - 1)),
            ),
            st.tuples(st.just("u32"), pos, st.integers(0, 2**32 - 1)),
            st.tuples(st.just("cut"), pos, st.none()),
            st.tuples(st.just("insert"), pos, st.binary(min_size=1, max_size=16)),
            st.tuples(st.just("delete"), pos, st.integers(1, 16)),
        ),
        min_size=1,
        max_size=4,
    )


def _apply(data: bytes, ops: list[tuple[str, int, Any]]) -> bytes:
    buf = bytearray(data)
    for op, pos, arg in ops:
        at = min(pos, len(buf))
        if op == "byte" and at < len(buf):
            buf[at] = arg
        elif op == "u64":
            buf[at : at + 8] = struct.pack("<Q", arg)
        elif op == "u32":
            buf[at : at + 4] = struct.pack("<I", arg)
        elif op == "cut":
            del buf[at:]
        elif op == "insert":
            buf[at:at] = arg
        elif op == "delete":
            del buf[at : at + arg]
    return bytes(buf)


def test_mutated_headers_raise_only_gguf_errors_and_stay_bounded(
    bases: list[tuple[bytes, int]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    target = tmp_path_factory.mktemp("fuzz") / "mutated.gguf"
    outcomes: Counter[str] = Counter()

    def check(data: bytes) -> None:
        target.write_bytes(data)
        tracemalloc.start()  # traced only while reading (hypothesis itself runs untraced)
        try:
            info = read_gguf(target)
        except GGUFError as error:
            text = str(error)
            assert text
            assert "\n" not in text
            outcomes[type(error).__name__] += 1
        else:
            assert info.file_size == len(data)
            assert info.tensor_bytes <= len(data)
            assert len(info.layer_tensor_bytes) == info.arch.n_layers
            assert len(info.arch.n_head_kv) == info.arch.n_layers
            assert len(info.arch.swa_layers) == info.arch.n_layers
            outcomes["ok"] += 1
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        assert peak <= len(data) + SLACK, (peak, len(data))

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        index = data.draw(st.integers(0, len(bases) - 1), label="base index")
        base, interesting = bases[index]
        ops = data.draw(_mutations(interesting), label="mutations")
        check(_apply(base, ops))

    for base, _ in bases:  # the unmutated bases are part of the contract too
        check(base)
    run()
    assert sum(outcomes.values()) >= EXAMPLES
    # the mutations reach every layer of the reader, not just the magic check
    for outcome in ("ok", "GGUFTruncatedError", "GGUFFormatError"):
        assert outcomes[outcome] > 0, outcomes
