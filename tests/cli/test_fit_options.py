"""`llm-scout fit` with the run's own settings: threads, flash attention and the KV cache."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from desktop import cli

H200 = "tests/fixtures/ground_truth/h200-profile.json"  # 16 physical cores, 32 logical


def fit_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = cli.main(["fit", *args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def test_predicted_speed_follows_the_threads(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["llama-3.1-8b-instruct:Q4_K_M", "--profile", H200, "--ngl", "0"]
    default = fit_json(capsys, *base)["tokens_per_s"]
    all_cores = fit_json(capsys, *base, "--threads", "16")["tokens_per_s"]
    more = fit_json(capsys, *base, "--threads", "32")["tokens_per_s"]
    four = fit_json(capsys, *base, "--threads", "4")["tokens_per_s"]
    one = fit_json(capsys, *base, "--threads", "1")["tokens_per_s"]
    assert default == pytest.approx(all_cores)
    assert more == pytest.approx(all_cores)  # past the physical cores nothing is gained
    assert one < four < all_cores
    # Fully on the GPU the CPU threads do not matter.
    gpu = ["llama-3.1-8b-instruct:Q4_K_M", "--profile", H200]
    assert fit_json(capsys, *gpu, "--threads", "1")["tokens_per_s"] == pytest.approx(
        fit_json(capsys, *gpu)["tokens_per_s"]
    )


def test_flash_attention_is_a_setting(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["llama-3.1-8b-instruct:Q4_K_M", "--profile", H200, "--ctx", "32768"]
    auto = fit_json(capsys, *base)
    on = fit_json(capsys, *base, "--flash-attn", "on")
    off = fit_json(capsys, *base, "--flash-attn", "off")
    assert auto["flash_attn"] is False  # auto: off for an f16 cache, as the engine loads
    assert on["flash_attn"] is True
    assert off["compute_reserved_bytes"] == auto["compute_reserved_bytes"]
    # Without flash attention the scores of a ubatch against the whole cache are materialised.
    assert on["compute_reserved_bytes"] < off["compute_reserved_bytes"]
    quantized = fit_json(capsys, *base, "--cache-type", "q8_0")
    assert quantized["flash_attn"] is True
    assert quantized["breakdown"]["kv_cache"] < auto["breakdown"]["kv_cache"]


def test_a_quantized_cache_without_flash_attention_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli.main(["fit", "smollm2", "--cache-type", "q4_0", "--flash-attn", "off"])
    _out, err = capsys.readouterr()
    assert code == 2
    assert "needs flash attention" in err
    assert "Traceback" not in err
    assert cli.main(["fit", "smollm2", "--threads", "0"]) == 2
    assert "--threads must be at least 1" in capsys.readouterr().err


def test_experts_kept_in_ram(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["qwen3-30b-a3b:Q4_K_M", "--profile", "rtx-3060-12gb", "--ctx", "8192"]
    chosen = fit_json(capsys, *base)
    assert chosen["verdict"] == "partial"
    n = chosen["suggested_n_cpu_moe"]
    assert n > 0
    kept = fit_json(capsys, *base, "--n-cpu-moe", str(n))
    assert kept["verdict"] == "gpu"
    assert kept["n_cpu_moe"] == n
    assert kept["tokens_per_s"] > chosen["tokens_per_s"]
    code = cli.main(["fit", *base, "--n-cpu-moe", str(n)])
    out, _err = capsys.readouterr()
    assert code == 0
    assert f"the experts of {n} layers in RAM" in out
    assert re.search(rf"experts kept in RAM: +first {n} of 48 layers \(--n-cpu-moe\)", out)
    assert "cannot load a model that way" in out


def test_a_negative_n_cpu_moe_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["fit", "qwen3-30b-a3b:Q4_K_M", "--n-cpu-moe", "-1"])
    out, err = capsys.readouterr()
    assert code == 2
    assert not out
    assert err.strip() == "llm-scout: --n-cpu-moe must be 0 or more layers, not -1."
