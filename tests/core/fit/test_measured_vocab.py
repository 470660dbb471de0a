"""The tokenizer's memory against a real llama.cpp process: tiny weights, real tokenizers.

With two layers of 64 values the tokenizer's tables are most of the process, so these runs check
the per-token and per-merge terms (and the load's own peak) directly: within -5%..+10% of the
peak RSS. The demo tokenizers are always here; llama.cpp's vocab files (Llama 3: 280,147 merges,
Qwen 2) come from the llama-cpp-python sdist (``tests.fixtures.tiny_models.fetch_vocab_files()``,
``pip download`` once, from pip's cache when it built llama-cpp-python from source).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.core.fit import FitTarget, estimate
from desktop.core.gguf import read_gguf
from desktop.core.hardware import probe
from tests.fixtures.tiny_models import fetch_vocab_files, find_vocab_file, write_tiny_model

MEASURE = Path(__file__).resolve().parents[3] / "benchmarks" / "_measure_memory.py"


@pytest.mark.e2e
@pytest.mark.parametrize("tokenizer", ["smollm2", "gemma3", "llama-bpe", "qwen2"])
def test_peak_rss_of_a_tokenizer_heavy_model(tmp_path: Path, tokenizer: str) -> None:
    if tokenizer not in ("smollm2", "gemma3") and find_vocab_file(tokenizer) is None:
        fetch_vocab_files()
        assert find_vocab_file(tokenizer) is not None, f"no {tokenizer} vocab in the sdist"
    path = write_tiny_model(
        tmp_path / f"{tokenizer}.gguf",
        arch="llama",
        tokenizer=tokenizer,
        n_layers=2,
        n_embd=64,
        n_head=4,
        n_head_kv=2,
        n_ff=128,
        ftype="F16",
        n_ctx_train=4096,
        name="tokenizer memory check",
    )
    done = subprocess.run(
        [sys.executable, str(MEASURE), str(path), "--ctx", "512", "--tokens", "8"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    result = estimate(
        FitTarget.from_gguf(read_gguf(path)),
        probe(),
        n_ctx=512,
        n_gpu_layers=0,
        prompt_tokens=measured["prompt_tokens"] + measured["completion_tokens"],
    )
    peak = measured["peak_rss_bytes"]
    error = (result.ram_bytes - peak) / peak
    assert -0.05 <= error <= 0.10, f"predicted {result.ram_bytes}, measured {peak} ({error:+.1%})"
