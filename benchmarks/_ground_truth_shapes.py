"""The shapes ``benchmarks/ground_truth.py`` measures: the CPU half and the GPU half."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Shape:
    """A model shape: ``dims`` are ``write_tiny_model``'s keyword arguments. ``role`` says
    whether the fit's constants were fitted on it (``fit``) or it is held out (``held-out``)."""

    key: str
    arch: str
    dims: dict[str, Any] = field(compare=False)
    role: str
    note: str
    quants: tuple[str, ...] = ("F16", "Q8_0", "Q4_K_M")
    contexts: tuple[int, ...] = (512, 4096, 16384)
    depth: int = 0  # also measure generation after this many prompt tokens (0: not)
    demo: str = ""  # a demo model's real file ("smollm2", "gemma3") instead of random weights
    source: str = "F16"  # what write_tiny_model writes; other quants come from llama.cpp's


# The CPU half: small enough for a laptop (56-400 MB files), large enough that generation is
# bound by memory bandwidth. The CPU speed constants are fitted on one shape of each kind (two
# dense llama shapes, many thin layers and few wide ones; MHA with fused qkv; sliding window; a
# Mixtral-style MoE); the others (q/k norms, biases, a Qwen3-style MoE, the two demo files) are
# held out.
CPU_SHAPES = (
    Shape(
        "dense-gqa-deep",
        "llama",
        dict(n_layers=24, n_embd=512, n_head=8, n_head_kv=2, n_ff=1408, tokenizer="smollm2"),
        "fit",
        "llama, 24 thin layers, GQA 8/2, tied, SmolLM2 BPE vocab (49,152)",
        depth=4096,
        quants=("F16", "Q8_0", "Q4_K_M", "Q6_K", "Q5_K_M"),
    ),
    Shape(
        "dense-gqa-wide",
        "llama",
        dict(
            n_layers=6,
            n_embd=1280,
            n_head=10,
            n_head_kv=2,
            n_ff=3456,
            tokenizer="llama-spm",
            tied_output=False,
        ),
        "fit",
        "llama, 6 wide layers, GQA 10/2, untied, Llama 2 SentencePiece vocab (32,000)",
        quants=("F16", "Q8_0", "Q4_K_M", "Q6_K", "Q5_K_M"),
    ),
    Shape(
        "mha-phi3",
        "phi3",
        dict(n_layers=10, n_embd=1024, n_head=16, n_head_kv=16, n_ff=2816, tokenizer="phi-3"),
        "fit",
        "phi3, fused qkv, MHA 16/16, untied, Phi-3 SentencePiece vocab (32,064)",
    ),
    Shape(
        "qknorm-qwen3",
        "qwen3",
        dict(n_layers=16, n_embd=640, n_head=10, n_head_kv=2, n_ff=1920, tokenizer="qwen2"),
        "held-out",
        "qwen3, q/k RMS norms, GQA 10/2, tied, Qwen 2 BPE vocab (151,936)",
    ),
    Shape(
        "bias-qwen2",
        "qwen2",
        dict(
            n_layers=12,
            n_embd=896,
            n_head=14,
            n_head_kv=2,
            n_ff=4864,
            tokenizer="qwen2",
            n_vocab=65536,
        ),
        "held-out",
        "qwen2, q/k/v biases, Qwen2.5-0.5B's widths with 12 layers, Qwen 2 BPE vocab cut to "
        "65,536, Q8_0 written directly",
        quants=("Q8_0",),
        source="Q8_0",
    ),
    Shape(
        "swa-gemma2",
        "gemma2",
        dict(
            n_layers=12,
            n_embd=640,
            n_head=8,
            n_head_kv=4,
            head_dim=128,
            n_ff=2048,
            sliding_window=512,
            tokenizer="gemma3",
            n_vocab=65536,
        ),
        "fit",
        "gemma2, sliding window 512 on every 2nd layer, soft-capping, head_dim 128, "
        "Gemma 3 SentencePiece vocab cut to 65,536",
        depth=4096,
    ),
    Shape(
        "moe-mixtral",
        "llama",
        dict(
            n_layers=8,
            n_embd=768,
            n_head=12,
            n_head_kv=4,
            n_ff=1024,
            n_expert=8,
            n_expert_used=2,
            tokenizer="smollm2",
        ),
        "fit",
        "Mixtral-style MoE: 8 experts of 1024, 2 used, GQA 12/4, SmolLM2 vocab",
    ),
    Shape(
        "moe-qwen3",
        "qwen3moe",
        dict(
            n_layers=8,
            n_embd=512,
            n_head=8,
            n_head_kv=4,
            n_ff=512,
            n_expert=16,
            n_expert_used=4,
            tokenizer="qwen2",
            n_vocab=65536,
        ),
        "held-out",
        "Qwen3-MoE-style: 16 experts of 512, 4 used, q/k norms, Qwen 2 BPE vocab cut to 65,536",
    ),
    Shape(
        "demo-smollm2",
        "llama",
        dict(n_layers=30),
        "held-out",
        "SmolLM2-135M-Instruct, real weights (the demo file), Q4_1",
        quants=("Q4_1",),
        demo="smollm2",
    ),
    Shape(
        "demo-gemma3",
        "gemma3",
        dict(n_layers=18),
        "held-out",
        "Gemma 3 270M, real weights (the demo file), Q4_K_M, sliding window 512 on 5 of 6 layers",
        quants=("Q4_K_M",),
        demo="gemma3",
    ),
)

# The GPU half: the shapes issue 27 reported as held out on an H200 (at their real sizes, Q8_0
# written directly, no F16 source) and one of the shapes the GPU constants were fitted on.
GPU_SHAPES = (
    Shape(
        "qwen25-1p5b-shape",
        "qwen2",
        dict(
            n_layers=28,
            n_embd=1536,
            n_head=12,
            n_head_kv=2,
            n_ff=8960,
            tokenizer="qwen2",
        ),
        "fit",
        "qwen2.5-1.5b-instruct's shape (the H200 rows the GPU constants were fitted on)",
        quants=("Q8_0",),
        source="Q8_0",
        contexts=(512, 8192, 32768),
    ),
    Shape(
        "qwen3-4b-shape",
        "qwen3",
        dict(
            n_layers=36,
            n_embd=2560,
            n_head=32,
            n_head_kv=8,
            head_dim=128,
            n_ff=9728,
            tokenizer="qwen2",
        ),
        "held-out",
        "qwen3-4b's shape: 36 layers, q/k norms, GQA 32/8",
        quants=("Q8_0",),
        source="Q8_0",
        contexts=(512, 8192, 32768),
    ),
    Shape(
        "gemma2-2b-shape",
        "gemma2",
        dict(
            n_layers=26,
            n_embd=2304,
            n_head=8,
            n_head_kv=4,
            head_dim=256,
            n_ff=9216,
            sliding_window=4096,
            tokenizer="gemma3",
        ),
        "held-out",
        "gemma-2-2b's shape: sliding window 4096 on every 2nd layer, 262k vocabulary",
        quants=("Q8_0",),
        source="Q8_0",
        contexts=(512, 8192, 32768),
    ),
    Shape(
        "qwen3-moe-shape",
        "qwen3moe",
        dict(
            n_layers=12,
            n_embd=1024,
            n_head=16,
            n_head_kv=4,
            n_ff=512,
            n_expert=128,
            n_expert_used=8,
            tokenizer="qwen2",
        ),
        "held-out",
        "Qwen3-MoE-style: 128 experts of 512, 8 used (a 2.6 GB Q8_0 cut of qwen3-30b-a3b)",
        quants=("Q8_0",),
        source="Q8_0",
        contexts=(512, 8192, 32768),
    ),
)
