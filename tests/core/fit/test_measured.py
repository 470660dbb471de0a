"""The fit prediction against a real llama.cpp process: SmolLM2 at n_ctx 2048, peak RSS."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.core.fit import FitTarget, estimate
from desktop.core.gguf import read_gguf
from desktop.core.hardware import probe

MEASURE = Path(__file__).resolve().parents[3] / "benchmarks" / "_measure_memory.py"


@pytest.mark.e2e
def test_smollm2_peak_rss_within_ten_percent(smollm2_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(MEASURE), str(smollm2_path), "--ctx", "2048", "--tokens", "16"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    assert measured["completion_tokens"] > 1  # it really generated
    result = estimate(
        FitTarget.from_gguf(read_gguf(smollm2_path)),
        probe(),
        n_ctx=2048,
        n_gpu_layers=0,
        prompt_tokens=measured["prompt_tokens"] + measured["completion_tokens"],
    )
    peak = measured["peak_rss_bytes"]
    error = (result.ram_bytes - peak) / peak
    assert abs(error) <= 0.10, f"predicted {result.ram_bytes}, measured {peak} ({error:+.1%})"
    # The KV cache alone is 45 MiB here; the measured growth over the imported runtime covers it.
    assert peak - measured["rss_import_bytes"] > result.ram.kv_cache + result.ram.weights * 0.9
