"""llama.cpp's no_alloc dry run: real projections of the demo files, errors in one sentence."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from desktop.core.engine import DryRun, DryRunError, dry_run
from desktop.core.engine.dryrun import parse_answer, parse_log
from desktop.core.fit import FitTarget, compare_terms, estimate
from desktop.core.fit import memory as fm
from desktop.core.gguf import read_gguf
from desktop.core.hardware import probe

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def profile():  # type: ignore[no-untyped-def]
    return probe()


def _one_sentence(message: str) -> None:
    assert message.endswith(".")
    assert "\n" not in message
    assert "Traceback" not in message


def test_smollm2_projection_matches_the_estimator(smollm2_path: Path, profile) -> None:  # type: ignore[no-untyped-def]
    small = dry_run(smollm2_path, n_ctx=512)
    large = dry_run(smollm2_path, n_ctx=2048)
    for run in (small, large):
        assert isinstance(run, DryRun)
        assert run.model_bytes
        assert run.model_bytes > 50 * MIB
        assert run.kv_bytes
        assert run.kv_bytes > 0
        assert run.compute_bytes
        assert run.compute_bytes > 0
        assert run.seconds < 30
    if sys.platform.startswith("linux"):
        assert small.source == "breakdown"
        assert [b.name for b in small.buffers] == ["CPU"]
    # The KV cache is linear in the context: 4x the cells, 4x the bytes.
    assert large.kv_bytes == 4 * small.kv_bytes  # type: ignore[operator]
    target = FitTarget.from_gguf(read_gguf(smollm2_path))
    assert small.model_bytes == target.weights_bytes
    for run in (small, large):
        result = estimate(target, profile, n_ctx=run.n_ctx, n_gpu_layers=0)
        assert result.ram.kv_cache == pytest.approx(run.kv_bytes, rel=0.02)
        assert result.compute_reserved_bytes == pytest.approx(run.compute_bytes, rel=0.03)


def test_gemma3_projection_has_the_repacked_copies(gemma3_path: Path, profile) -> None:  # type: ignore[no-untyped-def]
    run = dry_run(gemma3_path, n_ctx=1024)
    target = FitTarget.from_gguf(read_gguf(gemma3_path))
    result = estimate(target, profile, n_ctx=1024, n_gpu_layers=0)
    terms = {
        t.term: t
        for t in compare_terms(
            result,
            target,
            profile,
            model_bytes=run.model_bytes,
            repack_bytes=run.repack_bytes,
            kv_bytes=run.kv_bytes,
            compute_bytes=run.compute_bytes,
        )
    }
    assert run.kv_bytes
    assert run.kv_bytes > 0
    assert abs(terms["kv_cache"].gap_pct or 0.0) < 2.0
    assert abs(terms["compute"].gap_pct or 0.0) < 3.0
    assert abs(terms["weights"].gap_pct or 0.0) < 0.01
    if run.source == "breakdown" and fm.cpu_family(profile.cpu.arch, profile.cpu.flags):
        assert run.repack_bytes
        assert run.repack_bytes > 0
        assert terms["repacked"].gap_bytes == 0


def test_a_truncated_file_is_one_sentence(smollm2_path: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.gguf"
    data = smollm2_path.read_bytes()
    cut.write_bytes(data[: len(data) // 2])  # the header is whole, the tensor data is not
    with pytest.raises(DryRunError) as caught:
        dry_run(cut, n_ctx=512)
    assert caught.value.kind == "engine.truncated"
    assert "incomplete" in str(caught.value)
    _one_sentence(str(caught.value))


def test_not_a_gguf_file(tmp_path: Path) -> None:
    bad = tmp_path / "notes.gguf"
    bad.write_text("hello, not a model")
    with pytest.raises(DryRunError) as caught:
        dry_run(bad, n_ctx=512)
    assert caught.value.kind == "engine.not_gguf"
    _one_sentence(str(caught.value))


def test_a_hung_worker_is_killed_at_the_timeout(tmp_path: Path) -> None:
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    started = time.monotonic()
    with pytest.raises(DryRunError) as caught:
        dry_run(tmp_path / "x.gguf", n_ctx=512, timeout=1.0, command=sleeper)
    assert time.monotonic() - started < 15
    assert caught.value.kind == "engine.timeout"
    _one_sentence(str(caught.value))


def test_a_worker_dying_without_an_answer(tmp_path: Path) -> None:
    dying = [sys.executable, "-c", "import sys; sys.exit(3)"]
    with pytest.raises(DryRunError) as caught:
        dry_run(tmp_path / "x.gguf", n_ctx=512, command=dying)
    assert "exit code 3" in str(caught.value)
    _one_sentence(str(caught.value))


def test_the_frozen_entry_routes_the_dry_run(smollm2_path: Path) -> None:
    # A frozen build runs `llm-scout --engine-worker --dry-run SPEC`: desktop.entry routes it.
    entry = [
        sys.executable,
        "-c",
        "import sys; from desktop.entry import main; sys.exit(main(sys.argv[1:]))",
        "--engine-worker",
    ]
    run = dry_run(smollm2_path, n_ctx=512, command=entry)
    assert run.kv_bytes == dry_run(smollm2_path, n_ctx=512).kv_bytes


def test_the_last_answer_wins_and_survives_a_crash_after_the_log() -> None:
    log_answer = {
        "path": "m.gguf",
        "n_ctx": 512,
        "n_gpu_layers": 0,
        "cache_type": "f16",
        "flash_attn": False,
        **parse_log("llama_kv_cache: size =   11.25 MiB (...)\n", 100, False),
    }
    # The breakdown walk crashed (exit -11) after the log's answer went out.
    run = parse_answer((json.dumps({"result": log_answer}) + "\n").encode(), -11, "m", 1.0)
    assert run.source == "log"
    assert run.kv_bytes == round(11.25 * MIB)
    assert run.host_kv_bytes == run.kv_bytes  # a CPU-only build: all in host memory
    assert run.compute_bytes is None  # the log did not say


def test_parse_log_reads_what_no_alloc_logs() -> None:
    log = "\n".join(
        [
            "load_tensors:   CPU_REPACK model buffer size =     0.00 MiB",
            "load_tensors:          CPU model buffer size =     0.00 MiB",
            "llama_kv_cache:        CPU KV buffer size =     0.00 MiB",
            "llama_kv_cache: size =   8.00 MiB (  1024 cells,   3 layers,  1/1 seqs)",
            "llama_kv_cache:        CPU KV buffer size =     0.00 MiB",
            "llama_kv_cache: size =   4.50 MiB (   512 cells,  15 layers,  1/1 seqs)",
            "sched_reserve:        CPU compute buffer size =   514.25 MiB",
        ]
    )
    parsed = parse_log(log, 246_587_904, False)
    assert parsed["kv_bytes"] == round(12.5 * MIB)  # both caches of an iSWA model
    assert parsed["compute_bytes"] == round(514.25 * MIB)
    assert parsed["model_bytes"] == 246_587_904
    by_name = {b["name"]: b for b in parsed["buffers"]}
    assert set(by_name) == {"CPU_REPACK", "CPU"}
    assert by_name["CPU"]["compute"] == round(514.25 * MIB)
    assert by_name["CPU_REPACK"]["compute"] == 0
    assert all(b["host"] for b in parsed["buffers"])
