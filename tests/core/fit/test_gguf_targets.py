"""Fit targets from real GGUF headers (the demo models, random-weight models) and `llm-scout fit`.

The expected numbers are what llama.cpp printed for these files on this build ("KV buffer size",
"compute buffer size", "CPU_REPACK model buffer size"), so a formula that drifts from the engine
fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop import cli
from desktop.core.fit import FitTarget, estimate
from desktop.core.fit import memory as fm
from desktop.core.gguf import read_gguf
from desktop.core.hardware import load_profile
from tests.fixtures.tiny_models import write_tiny_model

MIB = 1024 * 1024
X86 = "x86"


@pytest.fixture(scope="module")
def smol(smollm2_path: Path) -> FitTarget:
    return FitTarget.from_gguf(read_gguf(smollm2_path))


@pytest.fixture(scope="module")
def gemma(gemma3_path: Path) -> FitTarget:
    return FitTarget.from_gguf(read_gguf(gemma3_path))


def test_targets_from_the_demo_headers(smol: FitTarget, gemma: FitTarget) -> None:
    assert smol.format == "gguf"
    assert smol.quant == "Q4_1"
    assert smol.output_bytes == 0  # tied embeddings: output reads token_embd
    assert smol.out_bytes() == smol.token_embd_bytes == 30_081_024
    assert sum(smol.layers()) + (smol.non_layer_bytes or 0) == smol.weights_bytes
    assert smol.header_bytes() > 0
    assert gemma.arch.sliding_window == 512
    assert sum(gemma.arch.swa_layers) == 15
    # llama.cpp: "CPU_REPACK model buffer size = 12.66 MiB" (the Q4_K matrices, x86 AVX2).
    assert fm.repacked_bytes(gemma.weight_types, X86) / MIB == pytest.approx(12.66, abs=0.01)
    assert fm.repacked_bytes(smol.weight_types, X86) == 0  # Q4_1 is not repacked
    assert fm.repacked_bytes(gemma.weight_types, None) == 0


@pytest.mark.parametrize(("n_ctx", "logged_mib"), [(512, 11.25), (2048, 45.0), (32768, 720.0)])
def test_kv_cache_matches_llama_cpp_for_smollm2(
    smol: FitTarget, n_ctx: int, logged_mib: float
) -> None:
    assert sum(fm.kv_bytes_per_layer(smol.arch, n_ctx, "f16")) / MIB == logged_mib


@pytest.mark.parametrize(
    ("cache", "logged_mib"), [("f16", 24.0 + 120.0), ("q8_0", 12.75 + 63.75), ("q4_0", 40.5)]
)
def test_kv_cache_matches_llama_cpp_for_gemma3(
    gemma: FitTarget, cache: str, logged_mib: float
) -> None:
    # Two caches (global and SWA layers), both full size by default, at n_ctx 8192.
    assert sum(fm.kv_bytes_per_layer(gemma.arch, 8192, cache)) / MIB == logged_mib


def test_compute_buffer_matches_llama_cpp_for_gemma3(gemma: FitTarget) -> None:
    # "CPU compute buffer size = 514.50 MiB": the n_vocab x n_batch logits dominate.
    for n_ctx in (2048, 8192, 32768):
        reserved = fm.compute_reserved_bytes(gemma.arch, n_ctx, flash_attn=False)
        assert reserved / MIB == pytest.approx(514.5, abs=1.5)


def test_untied_and_moe_models_from_headers(tmp_path: Path) -> None:
    untied = FitTarget.from_gguf(
        read_gguf(write_tiny_model(tmp_path / "q.gguf", arch="qwen2", tied_output=False))
    )
    assert untied.output_bytes is not None
    assert untied.output_bytes > 0
    assert untied.tail_run[0][0] == "F16"  # output.weight, last in the file
    moe = FitTarget.from_gguf(
        read_gguf(
            write_tiny_model(
                tmp_path / "m.gguf", arch="llama", n_expert=4, n_expert_used=2, ftype="Q8_0"
            )
        )
    )
    assert moe.arch.is_moe
    assert 0 < moe.expert_bytes < sum(moe.layers())
    q4 = FitTarget.from_gguf(
        read_gguf(write_tiny_model(tmp_path / "p.gguf", arch="phi3", ftype="Q4_0", n_vocab=1024))
    )
    # phi3 keeps an untied Q4_0 output matrix at the end of the file: repacked, then unmapped.
    assert fm.unmapped_edge_bytes(q4.head_run, q4.tail_run, X86) == q4.output_bytes
    assert fm.unmapped_edge_bytes(q4.head_run, q4.tail_run, None) == 0


def test_demo_estimates_on_profiles(smol: FitTarget, gemma: FitTarget) -> None:
    pi = load_profile("raspberry-pi-5-8gb")
    result = estimate(gemma, pi, n_ctx=32768)
    assert result.verdict == "cpu"
    assert result.max_ctx == gemma.arch.n_ctx_train
    assert any("full-size cache" in r for r in result.reasons)
    bounded = estimate(gemma, pi, n_ctx=32768, swa_full=False)
    assert bounded.ram.kv_cache < result.ram.kv_cache / 4
    # SmolLM2 was trained on 8192 tokens: that caps the largest context.
    assert estimate(smol, pi, n_ctx=2048).max_ctx == 8192
    gpu = estimate(smol, load_profile("rtx-4090-24gb"), n_ctx=2048)
    assert gpu.verdict == "gpu"
    assert gpu.download_bytes == 0
    assert gpu.fits_disk is True


# --------------------------------------------------------------------------- CLI


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


REQUIRED_KEYS = {
    "verdict",
    "n_gpu_layers",
    "n_layers",
    "ram_bytes",
    "vram_bytes",
    "breakdown",
    "max_ctx",
    "tokens_per_s",
    "load_seconds",
    "fits_disk",
}


def test_cli_json_for_a_catalog_variant(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "fit", "qwen2.5-7b-instruct:Q4_K_M", "--profile", "rtx-4090-24gb", "--json"
    )
    assert code == 0
    doc = json.loads(out)
    assert set(doc) >= REQUIRED_KEYS
    assert set(doc["breakdown"]) >= {"weights", "kv_cache", "compute", "overhead"}
    assert doc["verdict"] == "gpu"
    assert doc["n_gpu_layers"] == doc["n_layers"] == 28
    assert doc["download_bytes"] > 4 * 10**9
    assert doc["fits_disk"] is True
    assert doc["tokens_per_s"] > 0
    # The same variant with --ngl 10 is a partial offload.
    code, out, _ = run_cli(
        capsys,
        "fit", "qwen2.5-7b-instruct:Q4_K_M", "--profile", "rtx-4090-24gb", "--ngl", "10",
        "--cache-type", "q8_0", "--ctx", "8192", "--json",
    )  # fmt: skip
    partial = json.loads(out)
    assert partial["verdict"] == "partial"
    assert partial["n_gpu_layers"] == 10
    assert partial["cache_type"] == "q8_0"
    assert partial["n_ctx"] == 8192


def test_cli_json_for_a_local_gguf(capsys: pytest.CaptureFixture[str], smollm2_path: Path) -> None:
    code, out, _ = run_cli(capsys, "fit", str(smollm2_path), "--ctx", "2048", "--json")
    assert code == 0
    doc = json.loads(out)
    assert set(doc) >= REQUIRED_KEYS
    assert doc["profile"] == "this machine"
    assert doc["n_layers"] == 30
    assert doc["download_bytes"] == 0
    assert doc["ram_bytes"] == sum(
        doc["ram_breakdown"][k] for k in ("weights", "kv_cache", "compute", "overhead")
    )
    assert doc["ram_breakdown"]["kv_cache"] == 45 * MIB


def test_cli_installed_variant_reads_its_header(
    capsys: pytest.CaptureFixture[str], smollm2_path: Path, scout_home: Path
) -> None:
    from desktop.core.catalog import load_catalog
    from desktop.core.download import request_for_variant
    from desktop.core.download.files import write_json
    from desktop.core.settings import load_settings

    _, variant = load_catalog().variant("smollm2-135m-instruct:Q4_1")
    plan = request_for_variant(variant).plans(load_settings().resolved_models_dir())[0]
    plan.final.parent.mkdir(parents=True)
    plan.final.symlink_to(smollm2_path)
    # The record the downloader leaves next to a verified file.
    stat = plan.final.stat()
    plan.record.parent.mkdir(parents=True, exist_ok=True)
    write_json(plan.record, {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns})
    code, out, _ = run_cli(
        capsys, "fit", "smollm2-135m-instruct:Q4_1", "--profile", "laptop-16gb-cpu", "--json"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["download_bytes"] == 0
    assert doc["target"] == "smollm2-135m-instruct:Q4_1"
    exact = FitTarget.from_gguf(read_gguf(smollm2_path))
    assert exact.file_bytes is not None
    assert doc["ram_breakdown"]["weights"] == exact.file_bytes - exact.header_bytes()


def test_cli_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "fit", "llama-3.1-70b-instruct:Q4_K_M", "--profile", "rtx-3060-12gb"
    )
    assert code == 0
    assert "Verdict:" in out
    assert "kv cache" in out
    assert "largest context that fits" in out


def test_cli_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "fit", str(tmp_path / "missing.gguf"))
    assert code == 1
    assert err.startswith("llm-scout: ")
    assert len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "fit", "no-such-model:Q4_K_M", "--profile", "h100-80gb")
    assert code == 1
    assert "no-such-model" in err
    code, _, err = run_cli(capsys, "fit", "qwen2.5-7b-instruct:Q4_K_M", "--ctx", "0")
    assert code == 2
    with pytest.raises(SystemExit) as exited:  # argparse rejects an unknown cache type
        cli.main(["fit", "qwen2.5-7b-instruct:Q4_K_M", "--cache-type", "q5_1"])
    assert exited.value.code == 2
