"""GGUF reader on real files: the two demo models, tiny models and hand-written headers."""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import pytest

from desktop.core.errors import GGUFError
from desktop.core.gguf import (
    MAX_KEPT_ARRAY_ITEMS,
    GGUFArraySummary,
    GGUFFormatError,
    GGUFInfo,
    GGUFNotAModelError,
    describe,
    quant_name,
    read_gguf,
)
from tests.fixtures.tiny_models import write_custom_gguf, write_tiny_model

# -- the demo models ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def smollm2(smollm2_path: Path) -> GGUFInfo:
    return read_gguf(smollm2_path)


@pytest.fixture(scope="module")
def gemma3(gemma3_path: Path) -> GGUFInfo:
    return read_gguf(gemma3_path)


@pytest.fixture(scope="module")
def smollm2_reference(smollm2_path: Path) -> gguf.GGUFReader:
    """The gguf package's own (independent, slow) reader, to cross-check ours."""
    return gguf.GGUFReader(smollm2_path)


def _reference_value(field: Any) -> Any:
    main = field.types[0]
    if main == gguf.GGUFValueType.STRING:
        return bytes(field.parts[-1]).decode("utf-8")
    if main == gguf.GGUFValueType.ARRAY:
        return field  # compared separately
    return field.parts[-1].tolist()[0]


def test_smollm2_metadata_matches_the_gguf_package_reader(
    smollm2: GGUFInfo, smollm2_reference: gguf.GGUFReader
) -> None:
    ref_fields = {k: f for k, f in smollm2_reference.fields.items() if not k.startswith("GGUF.")}
    assert set(smollm2.metadata) == set(ref_fields)
    for key, field in ref_fields.items():
        ours = smollm2.metadata[key]
        if field.types[0] == gguf.GGUFValueType.ARRAY:
            assert len(ours) == len(field.data), key
            if isinstance(ours, tuple):
                items = [bytes(field.parts[i]).decode() for i in field.data]
                assert list(ours) == items, key
            else:
                assert isinstance(ours, GGUFArraySummary)
                assert ours.length > MAX_KEPT_ARRAY_ITEMS
            continue
        expected = _reference_value(field)
        if isinstance(expected, float):
            assert math.isclose(ours, expected, rel_tol=1e-6), key
        else:
            assert ours == expected, key
    assert smollm2.version == 3


def test_smollm2_tensors_match_the_gguf_package_reader(
    smollm2: GGUFInfo, smollm2_reference: gguf.GGUFReader
) -> None:
    ref = smollm2_reference.tensors
    assert len(smollm2.tensors) == len(ref) == 272
    assert smollm2.data_offset == smollm2_reference.data_offset
    for ours, theirs in zip(smollm2.tensors, ref, strict=True):
        assert ours.name == theirs.name
        assert ours.shape == tuple(int(d) for d in theirs.shape)
        assert ours.ggml_type == int(theirs.tensor_type)
        assert ours.type_name == theirs.tensor_type.name
        assert smollm2.data_offset + ours.offset == theirs.data_offset
        assert ours.n_bytes == int(theirs.n_bytes)
        assert ours.n_elements == int(theirs.n_elements)


def test_smollm2_derived_facts(smollm2: GGUFInfo, smollm2_path: Path) -> None:
    # SmolLM2-135M config.json: 30 layers, hidden 576, 9 heads, 3 KV heads, 1536 FFN, 8192 ctx.
    arch = smollm2.arch
    assert arch.architecture == "llama"
    assert (arch.n_layers, arch.n_embd, arch.n_head, arch.n_ff) == (30, 576, 9, 1536)
    assert arch.n_head_kv == (3,) * 30
    assert (arch.head_dim_k, arch.head_dim_v, arch.n_rot) == (64, 64, 64)
    assert arch.n_ctx_train == 8192
    assert arch.n_vocab == 49152
    assert arch.sliding_window == 0
    assert arch.swa_layers == (False,) * 30
    assert arch.ssm_state_bytes == (0,) * 30
    assert (arch.n_expert, arch.kv_lora_rank) == (0, 0)
    assert arch.n_params == sum(t.n_elements for t in smollm2.tensors) == 134_515_008
    assert smollm2.name == "Smollm2 135M 8k Lc100K Mix1 Ep2"
    assert (smollm2.file_type, smollm2.quant) == (3, "Q4_1")
    assert smollm2.has_chat_template
    assert smollm2.chat_template is not None
    assert "<|im_start|>" in smollm2.chat_template
    assert smollm2.special_tokens["bos"] == "<|im_start|>"
    assert smollm2.special_tokens["eos"] == "<|im_end|>"
    assert smollm2.file_size == smollm2_path.stat().st_size
    assert smollm2.source == str(smollm2_path)


def test_smollm2_tensor_bytes_cover_the_data_section(smollm2: GGUFInfo) -> None:
    assert smollm2.file_size is not None
    # Tensor data runs from data_offset to the end of the file (padding only between tensors).
    last = max(smollm2.tensors, key=lambda t: t.offset)
    assert smollm2.data_offset + last.offset + last.n_bytes == smollm2.file_size
    assert smollm2.tensor_bytes == smollm2.file_size - smollm2.data_offset
    assert len(smollm2.layer_tensor_bytes) == 30
    assert sum(smollm2.layer_tensor_bytes) + smollm2.non_layer_tensor_bytes == (
        smollm2.tensor_bytes
    )
    assert len(set(smollm2.layer_tensor_bytes)) == 1  # identical blocks
    embd = next(t for t in smollm2.tensors if t.name == "token_embd.weight")
    norm = next(t for t in smollm2.tensors if t.name == "output_norm.weight")
    assert smollm2.non_layer_tensor_bytes == embd.n_bytes + norm.n_bytes


def test_gemma3_derived_facts(gemma3: GGUFInfo, gemma3_path: Path) -> None:
    # Gemma 3 270M: 18 layers, hidden 640, 4 heads, 1 KV head of 256, window 512, 262k vocab.
    arch = gemma3.arch
    assert arch.architecture == "gemma3"
    assert (arch.n_layers, arch.n_embd, arch.n_head, arch.n_ff) == (18, 640, 4, 2048)
    assert arch.n_head_kv == (1,) * 18
    assert (arch.head_dim_k, arch.head_dim_v) == (256, 256)
    assert arch.n_ctx_train == 32768
    assert arch.n_vocab == 262144
    assert arch.sliding_window == 512
    # llama.cpp set_swa_pattern(6): layers 5, 11 and 17 are global, the rest slide.
    assert [i for i, swa in enumerate(arch.swa_layers) if not swa] == [5, 11, 17]
    assert arch.extra["swa_type"] == "standard"
    assert gemma3.quant == "Q4_K_M"
    assert gemma3.chat_template is None
    assert not gemma3.has_chat_template
    assert gemma3.special_tokens["bos"] == "<bos>"
    assert gemma3.special_tokens["eos"] == "<eos>"
    tokens = gemma3.metadata["tokenizer.ggml.tokens"]
    assert isinstance(tokens, GGUFArraySummary)
    assert (len(tokens), tokens.item_type_name) == (262144, "string")
    assert gemma3.file_size == gemma3_path.stat().st_size
    assert gemma3.tensor_bytes == gemma3.file_size - gemma3.data_offset
    assert len(gemma3.layer_tensor_bytes) == 18
    assert sum(gemma3.layer_tensor_bytes) + gemma3.non_layer_tensor_bytes == gemma3.tensor_bytes
    types = {t.type_name for t in gemma3.tensors}
    assert {"Q4_K", "Q6_K", "Q8_0", "F32"} <= types


def test_summary_offset_points_at_the_first_item(smollm2: GGUFInfo, smollm2_path: Path) -> None:
    tokens = smollm2.metadata["tokenizer.ggml.tokens"]
    assert isinstance(tokens, GGUFArraySummary)
    with smollm2_path.open("rb") as handle:
        handle.seek(tokens.offset)
        (length,) = struct.unpack("<Q", handle.read(8))
        assert handle.read(length).decode() == "<|endoftext|>"


def test_metadata_is_read_only(smollm2: GGUFInfo) -> None:
    with pytest.raises(TypeError):
        smollm2.metadata["general.name"] = "changed"  # type: ignore[index]


def test_describe_is_json_ready(gemma3: GGUFInfo) -> None:
    summary = describe(gemma3)
    assert summary["swa_layers"] == [i for i in range(18) if i % 6 != 5]
    assert summary["n_vocab"] == 262144
    assert summary["has_chat_template"] is False


# -- quant labels ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file_type", "label"),
    [(0, "F32"), (1, "F16"), (3, "Q4_1"), (7, "Q8_0"), (15, "Q4_K_M"), (18, "Q6_K"), (32, "BF16")],
)
def test_quant_name_from_file_type(file_type: int, label: str) -> None:
    assert quant_name(file_type) == label
    assert quant_name(file_type | 1024) == label  # LLAMA_FTYPE_GUESSED


def test_quant_name_unknown() -> None:
    assert quant_name(None) is None
    assert quant_name(999) is None


# -- hand-written headers ------------------------------------------------------------------------


def _tensors(n_layers: int, n_embd: int = 32, dtype: Any = np.float32) -> dict[str, np.ndarray]:
    tensors = {"token_embd.weight": np.zeros((100, n_embd), dtype=dtype)}
    for i in range(n_layers):
        tensors[f"blk.{i}.attn_q.weight"] = np.zeros((n_embd, n_embd), dtype=dtype)
        tensors[f"blk.{i}.attn_norm.weight"] = np.zeros((n_embd,), dtype=np.float32)
    tensors["output_norm.weight"] = np.zeros((n_embd,), dtype=np.float32)
    return tensors


def _base(arch: str, n_layers: int, **extra: Any) -> dict[str, Any]:
    metadata = {
        f"{arch}.block_count": n_layers,
        f"{arch}.embedding_length": 32,
        f"{arch}.context_length": 4096,
        f"{arch}.attention.head_count": 4,
    }
    metadata.update(
        {
            f"{arch}.{k}" if not k.startswith(("general", "tokenizer")) else k: v
            for k, v in extra.items()
        }
    )
    return metadata


def _write(tmp_path: Path, arch: str, metadata: dict[str, Any], n_layers: int, **kw: Any) -> Path:
    return write_custom_gguf(tmp_path / f"{arch}.gguf", arch, metadata, _tensors(n_layers), **kw)


def test_per_layer_head_counts(tmp_path: Path) -> None:
    # OpenELM stores head counts and FFN sizes per layer.
    metadata = _base(
        "openelm",
        3,
        **{
            "attention.head_count": [3, 4, 5],
            "attention.head_count_kv": [1, 1, 2],
            "feed_forward_length": [64, 96, 128],
            "attention.key_length": 8,
            "attention.value_length": 8,
        },
    )
    info = read_gguf(_write(tmp_path, "openelm", metadata, 3))
    arch = info.arch
    assert arch.n_head == 3
    assert arch.n_head_kv == (1, 1, 2)
    assert arch.n_ff == 64
    assert arch.extra["n_head_per_layer"] == (3, 4, 5)
    assert arch.extra["n_ff_per_layer"] == (64, 96, 128)
    assert (arch.head_dim_k, arch.head_dim_v) == (8, 8)


def test_defaults_follow_llama_cpp(tmp_path: Path) -> None:
    # No head_count_kv -> n_head; key/value length -> n_embd / n_head; n_rot -> key length;
    # no vocab_size and no token list -> token_embd's second dimension.
    info = read_gguf(_write(tmp_path, "llama", _base("llama", 2), 2))
    arch = info.arch
    assert arch.n_head_kv == (4, 4)
    assert (arch.head_dim_k, arch.head_dim_v, arch.n_rot) == (8, 8, 8)
    assert arch.n_vocab == 100
    assert info.quant == "F32"  # no general.file_type: the dominant matrix type
    assert info.file_type is None
    assert info.chat_template is None


def test_vocab_size_key_wins(tmp_path: Path) -> None:
    metadata = _base("llama", 1, vocab_size=151936, **{"tokenizer.ggml.tokens": ["a", "b"]})
    assert read_gguf(_write(tmp_path, "llama", metadata, 1)).arch.n_vocab == 151936
    metadata = _base("llama", 1, **{"tokenizer.ggml.tokens": ["a", "b", "c"]})
    assert read_gguf(_write(tmp_path, "llama", metadata, 1)).arch.n_vocab == 3


def test_mla_and_moe(tmp_path: Path) -> None:
    # DeepSeek-V2-Lite: MLA with kv_lora_rank 512 and a 64-dim rope part; 64 experts, 6 used.
    metadata = _base(
        "deepseek2",
        2,
        **{
            "attention.head_count": 16,
            "attention.head_count_kv": 16,
            "attention.kv_lora_rank": 512,
            "attention.key_length": 192,
            "attention.value_length": 128,
            "rope.dimension_count": 64,
            "expert_count": 64,
            "expert_used_count": 6,
            "expert_shared_count": 2,
            "expert_feed_forward_length": 1408,
            "leading_dense_block_count": 1,
        },
    )
    arch = read_gguf(_write(tmp_path, "deepseek2", metadata, 2)).arch
    assert arch.uses_mla
    assert (arch.kv_lora_rank, arch.n_rot) == (512, 64)
    assert (arch.head_dim_k, arch.head_dim_v) == (192, 128)
    assert arch.is_moe
    assert (arch.n_expert, arch.n_expert_used) == (64, 6)
    assert arch.extra["n_expert_shared"] == 2
    assert arch.extra["n_ff_expert"] == 1408
    assert arch.extra["n_layer_dense_lead"] == 1


@pytest.mark.parametrize(
    "case",
    [
        # gemma3: every 6th layer is global
        ("gemma3", 7, {"attention.sliding_window": 1024}, 1024, [0, 1, 2, 3, 4, 6]),
        # gemma3 with window 0: llama.cpp turns SWA off
        ("gemma3", 7, {"attention.sliding_window": 0}, 0, []),
        # gemma2 without the key: llama.cpp's default window of 4096, every 2nd layer
        ("gemma2", 4, {}, 4096, [0, 2]),
        # Mistral-style window on llama: llama.cpp ignores it
        ("llama", 4, {"attention.sliding_window": 4096}, 0, []),
        # explicit period
        (
            "gemma3",
            8,
            {"attention.sliding_window": 128, "attention.sliding_window_pattern": 4},
            128,
            [0, 1, 2, 4, 5, 6],
        ),
        # explicit per-layer flags
        (
            "step35",
            4,
            {
                "attention.sliding_window": 64,
                "attention.sliding_window_pattern": [True, False, True, True],
            },
            64,
            [0, 2, 3],
        ),
        # llama4: chunked attention of 8192 on 3 of 4 layers
        ("llama4", 8, {}, 8192, [0, 1, 2, 4, 5, 6]),
        ("llama4", 8, {"attention.sliding_window": 0}, 0, []),
        # cohere2: 3 sliding, 1 global
        ("cohere2", 8, {"attention.sliding_window": 4096}, 4096, [0, 1, 2, 4, 5, 6]),
    ],
)
def test_sliding_window_layers(
    tmp_path: Path, case: tuple[str, int, dict[str, Any], int, list[int]]
) -> None:
    arch, n_layers, extra, window, sliding = case
    info = read_gguf(_write(tmp_path, arch, _base(arch, n_layers, **extra), n_layers))
    assert info.arch.sliding_window == window
    assert len(info.arch.swa_layers) == n_layers
    assert [i for i, swa in enumerate(info.arch.swa_layers) if swa] == sliding


def test_recurrent_state_sizes(tmp_path: Path) -> None:
    # Mamba: conv state (d_conv - 1) * d_inner plus ssm state d_state * d_inner, f32.
    metadata = _base(
        "mamba",
        2,
        **{
            "attention.head_count": 0,
            "ssm.conv_kernel": 4,
            "ssm.inner_size": 1536,
            "ssm.state_size": 16,
            "ssm.time_step_rank": 48,
        },
    )
    arch = read_gguf(_write(tmp_path, "mamba", metadata, 2)).arch
    per_layer = ((4 - 1) * 1536 + 16 * 1536) * 4
    assert arch.ssm_state_bytes == (per_layer, per_layer)
    assert (arch.n_head, arch.head_dim_k) == (0, 0)


def test_hybrid_layers_without_kv_heads_are_recurrent(tmp_path: Path) -> None:
    metadata = _base(
        "jamba",
        4,
        **{
            "attention.head_count_kv": [0, 8, 0, 0],
            "ssm.conv_kernel": 4,
            "ssm.inner_size": 64,
            "ssm.state_size": 16,
        },
    )
    arch = read_gguf(_write(tmp_path, "jamba", metadata, 4)).arch
    per_layer = (3 * 64 + 16 * 64) * 4
    assert arch.n_head_kv == (0, 8, 0, 0)
    assert arch.ssm_state_bytes == (per_layer, 0, per_layer, per_layer)


def test_layer_bytes_and_blocks_beyond_n_layers(tmp_path: Path) -> None:
    tensors = _tensors(2)
    tensors["blk.2.nextn.weight"] = np.zeros((32, 32), dtype=np.float32)  # an MTP block
    path = write_custom_gguf(tmp_path / "m.gguf", "llama", _base("llama", 2), tensors)
    info = read_gguf(path)
    per_layer = 32 * 32 * 4 + 32 * 4
    assert info.layer_tensor_bytes == (per_layer, per_layer)
    assert info.non_layer_tensor_bytes == 100 * 32 * 4 + 32 * 4 + 32 * 32 * 4
    assert info.tensor_bytes == sum(t.n_bytes for t in info.tensors)


def test_long_arrays_become_summaries(tmp_path: Path) -> None:
    kept = list(range(MAX_KEPT_ARRAY_ITEMS))
    long = list(range(MAX_KEPT_ARRAY_ITEMS + 1))
    metadata = _base("llama", 1, **{"general.kept": kept, "general.long": long})
    path = _write(tmp_path, "llama", metadata, 1)
    info = read_gguf(path)
    assert info.metadata["general.kept"] == tuple(kept)
    summary = info.metadata["general.long"]
    assert isinstance(summary, GGUFArraySummary)
    assert (summary.length, summary.item_type_name) == (len(long), "int32")
    raw = path.read_bytes()
    assert struct.unpack_from("<3i", raw, summary.offset) == (0, 1, 2)


def test_value_types_round_trip(tmp_path: Path) -> None:
    t = gguf.GGUFValueType
    metadata = _base(
        "llama",
        1,
        **{
            "general.u8": 200,
            "general.i8": -100,
            "general.u16": 60000,
            "general.i16": -30000,
            "general.u64": 1 << 40,
            "general.i64": -(1 << 40),
            "general.f64": 0.125,
            "general.f32": 1.5,
            "general.flag": True,
            "general.words": ["一", "two"],
            "general.nested": [[1, 2], [3]],
        },
    )
    types = {
        "general.u8": t.UINT8,
        "general.i8": t.INT8,
        "general.u16": t.UINT16,
        "general.i16": t.INT16,
        "general.u64": t.UINT64,
        "general.i64": t.INT64,
        "general.f64": t.FLOAT64,
    }
    md = read_gguf(_write(tmp_path, "llama", metadata, 1, types=types)).metadata
    assert (md["general.u8"], md["general.i8"]) == (200, -100)
    assert (md["general.u16"], md["general.i16"]) == (60000, -30000)
    assert (md["general.u64"], md["general.i64"]) == (1 << 40, -(1 << 40))
    assert (md["general.f64"], md["general.f32"], md["general.flag"]) == (0.125, 1.5, True)
    assert md["general.words"] == ("一", "two")
    assert md["general.nested"] == ((1, 2), (3,))


def test_big_endian_file_reads_like_little_endian(tmp_path: Path) -> None:
    metadata = _base("llama", 2, **{"attention.head_count_kv": 2, "general.name": "be"})
    little = read_gguf(_write(tmp_path / "le", "llama", metadata, 2))
    big = read_gguf(_write(tmp_path / "be", "llama", metadata, 2, big_endian=True))
    assert big.big_endian
    assert not little.big_endian
    assert big.arch == little.arch
    assert dict(big.metadata) == dict(little.metadata)
    assert big.tensors == little.tensors


def test_custom_alignment(tmp_path: Path) -> None:
    path = _write(tmp_path, "llama", _base("llama", 2), 2, alignment=256)
    info = read_gguf(path)
    assert info.alignment == 256
    assert info.data_offset % 256 == 0
    assert info.data_offset == gguf.GGUFReader(path).data_offset
    assert all(t.offset % 256 == 0 for t in info.tensors)


def test_invalid_utf8_in_values_is_replaced_not_fatal(tmp_path: Path) -> None:
    metadata = _base("llama", 1, **{"general.name": b"caf\xe9"})
    info = read_gguf(_write(tmp_path, "llama", metadata, 1))
    assert info.name == "caf\ufffd"


def test_special_tokens_from_a_short_token_list(tmp_path: Path) -> None:
    metadata = _base(
        "llama",
        1,
        **{
            "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "hi"],
            "tokenizer.ggml.bos_token_id": 1,
            "tokenizer.ggml.eos_token_id": 2,
            "tokenizer.ggml.padding_token_id": 99,  # out of range: left out
        },
    )
    info = read_gguf(_write(tmp_path, "llama", metadata, 1))
    assert dict(info.special_tokens) == {"bos": "<s>", "eos": "</s>"}


# -- metadata that is valid GGUF but not a usable model ----------------------------------------


def test_missing_architecture(tmp_path: Path) -> None:
    path = write_custom_gguf(tmp_path / "x.gguf", None, {"general.name": "x"}, _tensors(1))
    with pytest.raises(GGUFNotAModelError, match=r"general\.architecture"):
        read_gguf(path)


def test_missing_block_count(tmp_path: Path) -> None:
    metadata = _base("llama", 1)
    del metadata["llama.block_count"]
    with pytest.raises(GGUFNotAModelError, match=r"llama\.block_count") as caught:
        read_gguf(_write(tmp_path, "llama", metadata, 1))
    assert caught.value.kind == "gguf.not_a_model"


def test_wrong_value_type_names_key_and_offset(tmp_path: Path) -> None:
    metadata = _base("llama", 1)
    metadata["llama.block_count"] = "thirty"
    path = _write(tmp_path, "llama", metadata, 1)
    with pytest.raises(GGUFFormatError, match=r"text under llama\.block_count") as caught:
        read_gguf(path)
    offset = caught.value.offset
    assert offset is not None
    raw = path.read_bytes()
    key = b"llama.block_count"
    assert raw[offset - len(key) : offset] == key  # the offset points right after the key


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        ({"attention.head_count_kv": [1, 2]}, r"2 values under llama\.attention\.head_count_kv"),
        ({"block_count": 100_000}, r"100000 layers"),
        ({"context_length": -5}, r"negative llama\.context_length"),
        ({"attention.head_count": 1.5}, r"decimal number under llama\.attention\.head_count"),
    ],
)
def test_bad_hyperparameters(tmp_path: Path, extra: dict[str, Any], pattern: str) -> None:
    metadata = _base("llama", 3, **extra)
    with pytest.raises(GGUFFormatError, match=pattern) as caught:
        read_gguf(_write(tmp_path, "llama", metadata, 3))
    assert caught.value.offset is not None
    assert isinstance(caught.value, GGUFError)


# -- tiny models: what the generator asked for is what the reader sees ------------------------


@pytest.mark.parametrize("arch", ["llama", "qwen2", "qwen3", "phi3", "gemma2", "gemma3"])
def test_tiny_model_headers(tmp_path: Path, arch: str) -> None:
    path = write_tiny_model(
        tmp_path / f"{arch}.gguf",
        arch=arch,
        n_layers=7,
        n_embd=64,
        n_head=4,
        n_head_kv=2,
        n_ff=96,
        n_vocab=512,
        ftype="Q8_0",
        with_chat_template=arch != "gemma3",
    )
    info = read_gguf(path)
    a = info.arch
    assert a.architecture == arch
    assert (a.n_layers, a.n_embd, a.n_head, a.n_ff, a.n_vocab) == (7, 64, 4, 96, 512)
    assert a.n_head_kv == (2,) * 7
    assert info.quant == "Q8_0"
    assert info.has_chat_template == (arch != "gemma3")
    assert info.tensor_bytes == path.stat().st_size - info.data_offset
    names = {t.name for t in info.tensors}
    assert ("blk.0.attn_q.bias" in names) == (arch == "qwen2")
    assert ("blk.0.attn_qkv.weight" in names) == (arch == "phi3")
    if arch == "phi3":
        up = next(t for t in info.tensors if t.name == "blk.0.ffn_up.weight")
        assert up.shape == (64, 2 * 96)
    sliding = [i for i, swa in enumerate(a.swa_layers) if swa]
    expected = {"gemma2": [0, 2, 4, 6], "gemma3": [0, 1, 2, 3, 4, 6]}.get(arch, [])
    assert sliding == expected
