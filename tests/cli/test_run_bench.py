"""`llm-scout run` and `llm-scout bench` on the real demo models, through the CLI entry point."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from desktop.cli import main
from tests.fixtures.contracts import RUN_JSON_KEYS
from tests.fixtures.terminal import drain

pytestmark = [pytest.mark.e2e]


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    children = psutil.Process().children(recursive=True)
    assert not children, f"processes left behind: {children}"


def test_run_json_prints_one_document_with_the_measurements(
    smollm2_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", str(smollm2_path), "--prompt", "Name three fruits.", "--json"]
    code = main([*argv, "--seed", "3", "--max-tokens", "24", "--ctx", "512", "--temp", "0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(out)  # exactly one document, nothing else on stdout
    assert set(document) == RUN_JSON_KEYS
    assert document["text"].strip()
    assert 0 < document["generated_tokens"] <= 24
    assert document["prompt_tokens"] > 5
    assert document["ttft_ms"] > 0
    assert document["prompt_tokens_per_s"] > 0
    assert document["load_ms"] > 0
    assert document["rss_after_load_bytes"] > 50 << 20
    assert document["rss_peak_bytes"] >= document["rss_after_load_bytes"]
    assert document["vram_peak_bytes"] is None  # no NVIDIA GPU here
    assert document["predicted_ram_bytes"] > 0
    assert document["predicted_vram_bytes"] == 0  # CPU only
    if document["generated_tokens"] > 1:
        assert document["tokens_per_s"] > 0
    # Greedy decoding is reproducible: the same text again.
    assert main([*argv, "--max-tokens", "24", "--ctx", "512", "--temp", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["text"] == document["text"]


def test_run_streams_the_answer_to_stdout_and_the_table_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["run", "gemma3", "--prompt", "天空为什么是蓝色的？", "--max-tokens", "16"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.strip()
    assert "\ufffd" not in out
    for label in ("TTFT", "generation", "RSS peak", "RSS predicted", "gemma (family)"):
        assert label in err
    # One label everywhere: the catalog's name of the model the file is, with its quant.
    assert "Gemma 3 270M (base) Q4_K_M, gemma3 architecture" in err


def test_run_chat_keeps_the_conversation(
    smollm2_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Hello!\nWhat did I just say?\n\n"))
    code = main(["run", str(smollm2_path), "--chat", "--max-tokens", "12", "--ctx", "512"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err.count("tokens/s, TTFT") == 2  # one status line per answer
    assert out.count("\n") >= 2


def test_run_reports_that_gpu_offload_is_unavailable(
    smollm2_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", str(smollm2_path), "--prompt", "Hi", "--ngl", "99", "--max-tokens", "2"]
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "GPU offload is unavailable" in err
    assert json.loads(out)["vram_peak_bytes"] is None


def test_run_finds_a_catalog_variant_the_library_imported(
    smollm2_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = "smollm2-135m-instruct:Q4_1"
    argv = ["run", variant, "--prompt", "Hi", "--max-tokens", "4", "--ctx", "256", "--json"]
    assert main(argv) == 1
    assert "neither downloaded nor in the library" in capsys.readouterr().err
    copy = tmp_path / "elsewhere" / smollm2_path.name
    copy.parent.mkdir()
    os.link(smollm2_path, copy)
    assert main(["import", str(copy)]) == 0
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["generated_tokens"] > 0
    copy.unlink()  # gone from disk: the library entry no longer counts
    assert main(argv) == 1
    assert "neither downloaded nor in the library" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "code", "words"),
    [
        (["run", "/no/such/model.gguf", "--prompt", "hi"], 1, "no model file at"),
        (["run", "no-such-thing", "--prompt", "hi"], 1, "neither a model file"),
        (["run", "qwen2.5-0.5b-instruct:Q4_K_M", "--prompt", "hi"], 1, "neither downloaded nor"),
        (["run", "qwen2.5-0.5b-instruct:AWQ", "--prompt", "hi"], 1, "GGUF files only"),
        (["run", "smollm2", "--chat", "--json"], 2, "--json works with --prompt"),
        (["run", "smollm2", "--prompt", "hi", "--template", "nope"], 1, "no chat template"),
        (["bench", "smollm2", "--tg", "1"], 2, "--tg at least 2"),
        (["bench", "smollm2", "--pp", "600", "--ctx", "512"], 2, "cannot hold"),
    ],
)
def test_bad_arguments_give_one_sentence_and_an_exit_code(
    argv: list[str], code: int, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert out == ""
    assert words in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_bench_json_gives_mean_and_sd_over_repetitions(
    smollm2_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["bench", str(smollm2_path), "--pp", "48", "--tg", "8", "-r", "2", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["pp"], doc["tg"], doc["repetitions"]) == (48, 8, 2)
    assert len(doc["runs"]) == 2
    pp = [run["pp_tokens_per_s"] for run in doc["runs"]]
    assert doc["pp_tokens_per_s"] == pytest.approx(sum(pp) / 2)
    assert doc["pp_tokens_per_s_sd"] >= 0
    assert doc["tg_tokens_per_s"] > 0
    assert doc["ttft_ms"] > 0
    assert doc["rss_peak_bytes"] > 50 << 20
    assert doc["predicted_ram_bytes"] > 0
    assert doc["ram_error_pct"] is not None
    assert doc["roofline_tokens_per_s"] > 0  # the CPU bandwidth was measured for it
    assert doc["model_label"] == "SmolLM2 135M Instruct Q4_1"  # the library's label
    assert doc["description"]  # llama.cpp's own description stays in the document
    assert doc["n_threads"] == min(
        psutil.cpu_count(logical=False) or 1, len(os.sched_getaffinity(0))
    )


def test_bench_shows_its_progress_as_download_does(
    smollm2_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log or a pipe gets one line per step; a terminal one line rewritten in place; nothing
    with --quiet. The results stay on stdout."""
    argv = ["bench", str(smollm2_path), "--pp", "16", "--tg", "4", "-r", "2", "--json"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["repetitions"] == 2
    steps = err.splitlines()
    label = "SmolLM2 135M Instruct Q4_1"
    assert steps[:4] == [
        f"{label}: loading the model…",
        f"{label}: warm-up run (not counted)…",
        f"{label}: run 1 of 2: prompt processing…",
        f"{label}: run 1 of 2: generation…",
    ]
    assert steps[4].startswith(f"{label}: run 2 of 2: prompt processing… (last: pp ")
    assert " t/s, tg " in steps[4]
    assert steps[-1] == f"{label}: done: 2 runs measured"
    assert "\r" not in err

    assert main([*argv, "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["repetitions"] == 2
    assert err == ""

    master, slave = os.openpty()
    terminal = os.fdopen(slave, "w", encoding="utf-8")
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setattr("sys.stderr", terminal)
    try:
        assert main(["bench", str(smollm2_path), "--pp", "16", "--tg", "4", "-r", "1"]) == 0
        terminal.flush()
        shown = drain(master)
    finally:
        terminal.close()
        os.close(master)
    assert shown.count("\r") >= 4  # one line, rewritten at each step
    assert shown.rstrip().endswith("done: 1 run measured")
    assert "| pp16 |" not in shown  # the tables go to stdout
    capsys.readouterr()


def test_bench_markdown_looks_like_llama_bench(
    smollm2_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["bench", str(smollm2_path), "--pp", "32", "--tg", "4", "-r", "1", "--md"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "| model | size | params | threads | ngl | test | t/s |"
    assert any("| pp32 |" in line and "±" in line for line in lines)
    assert any("| tg4 |" in line for line in lines)
    assert all(line.startswith("| SmolLM2 135M Instruct Q4_1 |") for line in lines[2:4])
    assert any(line.startswith("| roofline tg t/s |") for line in lines)


def test_run_takes_the_cache_type_and_flash_attention(
    smollm2_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", str(smollm2_path), "--prompt", "Hi.", "--max-tokens", "4", "--json"]
    assert main([*argv, "--ctx", "8192"]) == 0
    f16 = json.loads(capsys.readouterr().out)
    assert main([*argv, "--ctx", "8192", "--cache-type", "q8_0"]) == 0
    out, err = capsys.readouterr()
    q8 = json.loads(out)
    assert q8["text"].strip()
    # The prediction follows the load: a q8_0 cache is about half of an f16 one.
    assert q8["predicted_ram_bytes"] < f16["predicted_ram_bytes"]
    assert "warning" not in err  # 8192 is SmolLM2's trained context
    assert main([*argv, "--cache-type", "q4_0", "--flash-attn", "off"]) == 2
    err = capsys.readouterr().err
    assert "needs flash attention" in err
    assert "Traceback" not in err


def test_run_past_the_trained_context_warns(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "smollm2", "--prompt", "Hi.", "--max-tokens", "2", "--ctx", "16384"])
    _out, err = capsys.readouterr()
    assert code == 0, err
    assert "past the 8,192 tokens this model was trained on" in err
