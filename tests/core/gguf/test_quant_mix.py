"""File sizes from shapes: llama.cpp's per-tensor type choice, checked against llama.cpp itself.

:func:`desktop.core.gguf.quant_layout` lists the tensors an architecture holds and gives each the
type llama.cpp's quantizer picks for a quant mix. Checked tensor by tensor (name, shape, type,
bytes, order) against the two demo files and against random-weight models of several
architectures that llama.cpp's own quantizer (``llama_model_quantize``) turns into each mix here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from desktop.core.gguf import (
    MixModel,
    ModelArch,
    guess_tokenizer,
    mix_types,
    quant_layout,
    read_gguf,
    tensor_shapes,
    tokenizer_facts,
)
from tests.fixtures.tiny_models import quantize_model, write_tiny_model


def _planned(path: Path, quant: str) -> tuple[Any, Any]:
    info = read_gguf(path)
    tied = not any(t.name == "output.weight" for t in info.tensors)
    layout = quant_layout(info.arch, quant, tokenizer_facts(info.metadata), tied=tied)
    return info, layout


def _assert_same_tensors(path: Path, quant: str) -> None:
    info, layout = _planned(path, quant)
    real = [(t.name, t.shape, t.type_name, t.n_bytes) for t in info.tensors]
    planned = [(t.name, t.shape, t.type_name, t.n_bytes) for t in layout.tensors]
    assert sorted(planned) == sorted(real), {
        name: (kind, dict((p[0], p[2]) for p in planned).get(name))
        for name, _, kind, _ in real
        if (name, kind) not in {(p[0], p[2]) for p in planned}
    }
    assert layout.tensor_bytes == info.tensor_bytes
    assert info.file_size is not None
    assert abs(layout.file_bytes - info.file_size) / info.file_size < 0.01


def test_the_demo_files_are_reproduced_from_their_shapes(
    smollm2_path: Path, gemma3_path: Path
) -> None:
    # SmolLM2 Q4_1: the tied embeddings are the output matrix, so Q6_K, which a 576-wide row
    # cannot hold: Q8_0. Gemma 3 Q4_K_M: 640-wide rows fall back to Q5_0 (Q4_K) and Q8_0
    # (Q6_K); ffn_down (2048 wide) keeps Q4_K/Q6_K on llama.cpp's use_more_bits layers.
    _assert_same_tensors(smollm2_path, "Q4_1")
    _assert_same_tensors(gemma3_path, "Q4_K_M")
    info, layout = _planned(gemma3_path, "Q4_K_M")
    down = [t.type_name for t in layout.tensors if t.name.endswith("ffn_down.weight")]
    assert down.count("Q6_K") == 9  # layers 0, 1, 4, 7, 10, 13, 15, 16, 17 of 18
    assert layout.layer_bytes == info.layer_tensor_bytes


# Small models whose shapes hit the rules: rows that are not a multiple of 256 (fallback types),
# 8 and 16 layers (use_more_bits), tied and untied outputs, fused QKV, MHA and GQA, MoE with 4
# and 8 experts (Mixtral's special rules), Gemma's q/k norms; each with the mixes that matter.
MODELS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "llama": (
        dict(arch="llama", n_layers=16, n_embd=192, n_head=4, n_head_kv=1, n_ff=512),
        ("Q4_K_M", "Q3_K_M", "Q5_K_M", "Q4_K_S", "IQ4_XS"),
    ),
    "qwen2": (
        dict(arch="qwen2", n_layers=8, n_embd=256, n_head=4, n_head_kv=2, n_ff=640,
             tied_output=False),
        ("Q4_K_M", "Q6_K", "Q2_K", "Q4_0"),
    ),
    "phi3": (
        dict(arch="phi3", n_layers=8, n_embd=256, n_head=4, n_head_kv=4, n_ff=512),
        ("Q4_K_M", "Q3_K_M", "Q8_0"),
    ),
    "gemma3": (
        dict(arch="gemma3", n_layers=8, n_embd=320, n_head=2, n_head_kv=1, head_dim=128,
             n_ff=768),
        ("Q4_K_M", "Q5_K_M", "Q3_K_M"),
    ),
    "moe8": (
        dict(arch="llama", n_layers=8, n_embd=256, n_head=4, n_head_kv=2, n_ff=256, n_expert=8,
             n_expert_used=2),
        ("Q4_K_M", "Q3_K_M", "Q2_K"),
    ),
    "moe4": (
        dict(arch="llama", n_layers=8, n_embd=256, n_head=4, n_head_kv=1, n_ff=256, n_expert=4,
             n_expert_used=2, tied_output=False),
        ("Q4_K_M", "Q5_K_M"),
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("quant-mix")


@pytest.mark.parametrize("key", sorted(MODELS))
def test_llama_cpp_quantizer_agrees_tensor_by_tensor(sources: Path, key: str) -> None:
    shape, mixes = MODELS[key]
    source = write_tiny_model(
        sources / f"{key}.f16.gguf", ftype="F16", n_vocab=512, name="quant mix", **shape
    )
    for quant in mixes:
        quantized = quantize_model(source, sources / f"{key}.{quant}.gguf", quant)
        info, layout = _planned(quantized, quant)
        # llama-quantize writes tensors in llama.cpp's order, which some rules count in.
        in_file = [t.name for t in sorted(info.tensors, key=lambda t: t.offset)]
        assert in_file == [t.name for t in layout.tensors], quant
        _assert_same_tensors(quantized, quant)


def _arch(**changes: Any) -> ModelArch:
    base = ModelArch(
        architecture="llama",
        n_params=0,
        n_layers=32,
        n_embd=4096,
        n_head=32,
        n_head_kv=(8,) * 32,
        head_dim_k=128,
        head_dim_v=128,
        n_ctx_train=131072,
        n_vocab=128256,
        n_ff=14336,
        extra={"tied_embeddings": False},
    )
    return replace(base, **changes)


def test_llama_3_8b_q4_k_m_types() -> None:
    layout = quant_layout(_arch(), "Q4_K_M")
    types = {t.name: t.type_name for t in layout.tensors}
    assert types["token_embd.weight"] == "Q4_K"
    assert types["output.weight"] == "Q6_K"
    more_bits = [i for i in range(32) if types[f"blk.{i}.ffn_down.weight"] == "Q6_K"]
    # use_more_bits(i, 32): the first and last 4 layers and every third one in between.
    assert more_bits == [0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]
    assert [types[f"blk.{i}.attn_v.weight"] for i in more_bits] == ["Q6_K"] * 16
    assert types["blk.4.attn_v.weight"] == types["blk.4.attn_q.weight"] == "Q4_K"
    # Real file (bartowski's Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf): 4.92 GB.
    assert 4.90e9 < layout.file_bytes < 4.94e9


def test_seventy_b_and_eight_expert_rules() -> None:
    seventy = quant_layout(_arch(n_layers=80, n_head_kv=(8,) * 80, n_embd=8192), "Q3_K_M")
    types = {t.name: t.type_name for t in seventy.tensors}
    assert types["blk.0.attn_v.weight"] == "Q5_K"  # first two attn_v: Q5_K
    assert types["blk.40.attn_v.weight"] == "Q5_K"  # LLM_TYPE_70B lifts Q4_K to Q5_K
    assert types["blk.0.ffn_down.weight"] == "Q5_K"  # first n_layer/16 layers
    assert types["blk.40.ffn_down.weight"] == types["blk.40.attn_output.weight"] == "Q4_K"
    assert types["blk.40.ffn_up.weight"] == "Q3_K"
    tensors = [
        ("blk.0.attn_k.weight", (4096, 1024), "F16"),
        ("blk.0.attn_v.weight", (4096, 1024), "F16"),
    ]
    mixtral = MixModel("llama", 32, 32, 8, n_expert=8)
    assert mix_types("Q4_K_M", tensors, mixtral) == ["Q8_0", "Q8_0"]


def test_fallback_types_for_odd_rows() -> None:
    model = MixModel("llama", 8, 4, 4)
    tensors = [
        ("blk.0.attn_q.weight", (896, 896), "F16"),  # 896 % 256: Q4_K -> Q5_0
        ("blk.0.ffn_down.weight", (4864, 896), "F16"),  # 4864 % 256 == 0: a K type
        ("blk.0.attn_k.weight", (100, 64), "F16"),  # not even 32 wide: F16
        ("blk.0.attn_norm.weight", (896,), "F32"),  # never quantized
        ("blk.0.ffn_gate_inp.weight", (896, 8), "F32"),  # MoE routers stay as they are
    ]
    assert mix_types("Q4_K_M", tensors, model) == ["Q5_0", "Q6_K", "F16", "F32", "F32"]
    assert mix_types("Q6_K", tensors, model) == ["Q8_0", "Q6_K", "F16", "F32", "F32"]
    assert mix_types("F16", tensors, model) == ["F16", "F16", "F16", "F32", "F32"]
    with pytest.raises(ValueError, match="unknown GGUF file type"):
        mix_types("Q9_X", tensors, model)


def test_deepseek_v2_lite_mla_and_shared_experts() -> None:
    arch = ModelArch(
        architecture="deepseek2",
        n_params=15_706_484_224,
        n_layers=27,
        n_embd=2048,
        n_head=16,
        n_head_kv=(16,) * 27,
        head_dim_k=192,
        head_dim_v=128,
        n_ctx_train=163840,
        n_vocab=102400,
        n_ff=10944,
        kv_lora_rank=512,
        n_rot=64,
        n_expert=64,
        n_expert_used=6,
        extra={"n_expert_shared": 2, "n_ff_exp": 1408, "n_layer_dense_lead": 1},
    )
    shapes = {name: shape for name, shape, _ in tensor_shapes(arch)}
    assert shapes["blk.0.ffn_down.weight"] == (10944, 2048)  # the dense lead layer
    assert shapes["blk.1.ffn_down_exps.weight"] == (1408, 2048, 64)
    assert shapes["blk.1.ffn_up_shexp.weight"] == (2048, 2816)
    assert shapes["blk.1.attn_kv_b.weight"] == (512, 16 * (128 + 128))
    assert shapes["blk.1.attn_kv_a_mqa.weight"] == (2048, 576)
    # Its parameter count, from the shapes alone, is the model's.
    total = sum(_count(shape) for shape in shapes.values())
    assert abs(total - arch.n_params) / arch.n_params < 0.001


def _count(shape: tuple[int, ...]) -> int:
    n = 1
    for dim in shape:
        n *= dim
    return n


def test_tokenizer_facts(smollm2_path: Path, gemma3_path: Path) -> None:
    smol = tokenizer_facts(read_gguf(smollm2_path).metadata)
    assert (smol.model, smol.n_tokens, smol.n_merges, smol.has_scores) == (
        "gpt2",
        49152,
        48900,
        False,
    )
    gemma = tokenizer_facts(read_gguf(gemma3_path).metadata)
    assert (gemma.model, gemma.n_tokens, gemma.n_merges, gemma.has_scores) == (
        "llama",
        262144,
        0,
        True,
    )
    # A catalog entry gets its family's real tokenizer: Llama 3's 280,147 merges, Qwen's...
    assert guess_tokenizer(_arch()).n_merges == 280147
    assert guess_tokenizer(_arch(architecture="qwen2", n_vocab=152064)).n_merges == 151387
    assert guess_tokenizer(_arch(architecture="gemma3", n_vocab=262208)).n_merges == 0
    # ... and an unknown one a BPE tokenizer of about one merge per token.
    unknown = guess_tokenizer(_arch(architecture="mistral", n_vocab=131072))
    assert unknown.model == "gpt2"
    assert 120_000 < unknown.n_merges < 131072
    assert not unknown.known
