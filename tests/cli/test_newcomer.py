"""The command line as a newcomer tries it: no tracebacks, clear refusals, consistent output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.cli import main


def run_cli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


@pytest.mark.parametrize(
    "command",
    ["catalog --profile rtx-4090-24gb", "hw", "fit qwen2.5-7b-instruct --profile rtx-3060-12gb"],
)
def test_a_closed_pipe_ends_the_command_quietly(command: str, scout_home: Path) -> None:
    shell = f"{sys.executable} -m desktop {command} | head -2"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LLM_SCOUT_HOME": str(scout_home)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "BrokenPipe" not in done.stderr
    assert len(done.stdout.splitlines()) == 2


@pytest.mark.parametrize(
    ("argv", "code", "words"),
    [
        (["download", "a/b", "f.gguf", "--to", "{file}"], 2, "is a file; give the folder"),
        (["library", "--add", "{file}"], 2, "is a file, not a folder"),
        (["download", "a/b", "f.gguf", "--endpoint", "huggingface.co"], 2, "is not a Hub address"),
        (["download", "a/b", "f.gguf", "--endpoint", "notaurl"], 2, "is not a Hub address"),
        (["catalog", "refresh", "--endpoint", "notaurl"], 2, "is not a Hub address"),
        (["run", "smollm2", "--prompt", "hi", "--max-tokens", "0"], 2, "at least 1"),
        (["run", "smollm2", "--prompt", "hi", "--max-tokens", "-5"], 2, "at least 1"),
        (["fit", "qwen2.5-7b:Q4_K_M"], 1, "did you mean 'qwen2.5-7b-instruct:Q4_K_M'"),
        (["bench", "smollm2", "--pp", "600", "--ctx", "512"], 2, "or 128 generated tokens."),
        # Sampling settings that mean nothing, refused before anything loads (issue 23, 21).
        (["run", "smollm2", "--prompt", "hi", "--temp", "-1"], 2, "temperature must be 0"),
        (["run", "smollm2", "--prompt", "hi", "--top-p", "5"], 2, "at most 1, not 5."),
        (["run", "smollm2", "--prompt", "hi", "--min-p", "-0.1"], 2, "Min-p must be between"),
        (["run", "smollm2", "--prompt", "hi", "--repeat-penalty", "0"], 2, "more than 0"),
        (
            ["compare", "--models", "smollm2", "gemma3", "--prompt", "hi", "--temp", "-1"],
            2,
            "not -1.",
        ),
        (["compare", "--models", "smollm2@top_p=5", "gemma3", "--prompt", "hi"], 1, "not 5."),
        (
            ["fit", "smollm2", "--prompt-tokens", "999999", "--ctx", "4096"],
            2,
            "more than the context",
        ),
        (["run", "smollm3", "--prompt", "hi"], 1, "(did you mean 'smollm2'?)."),
        (["vllm", "serve", "smollm2"], 2, "is a GGUF model run by llama.cpp; vLLM serves the AWQ"),
        (["compare", "--show", "999"], 1, "There is no comparison 999 in the history."),
        (["compare", "--delete", "999"], 1, "There is no comparison 999 in the history."),
        (["compare", "--resume", "999"], 1, "There is no comparison 999 in the history."),
        # The report's folder is checked before the comparison runs (issue 23, item 20).
        (
            [
                "compare",
                "--models",
                "smollm2",
                "gemma3",
                "--prompt",
                "hi",
                "--out",
                "/nonexistent/d/r.md",
            ],
            2,
            "Cannot write the report to /nonexistent/d/r.md: there is no folder /nonexistent/d.",
        ),
        (["compare", "--rerun", "999", "--out", "{file}/r.csv"], 2, "there is no folder"),
    ],
)
def test_bad_input_is_one_sentence(
    argv: list[str],
    code: int,
    words: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    argv = [a.replace("{file}", str(a_file)) for a in argv]
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert out == ""
    assert words in err
    assert err.count("\n") == 1
    assert err.rstrip().endswith((".", "?", "!"))
    assert "?." not in err
    assert "Traceback" not in err


def test_a_download_into_a_file_fails_in_one_sentence_from_the_core_too(tmp_path: Path) -> None:
    from desktop.core.download import request_for_files
    from desktop.core.errors import DownloadError

    blocked = tmp_path / "models"
    blocked.write_text("a file where the models folder should be")
    with pytest.raises(DownloadError) as caught:
        request_for_files("a/b", ["f.gguf"]).plans(blocked)
    assert caught.value.kind == "download.not_a_folder"


def test_more_threads_than_cpus_warns(capsys: pytest.CaptureFixture[str]) -> None:
    threads = (os.cpu_count() or 1) + 2
    argv = ["run", "smollm2", "--prompt", "hi", "--max-tokens", "2", "--threads", str(threads)]
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert f"{threads} threads is more than the" in err
    assert json.loads(out)["n_threads"] == threads


def test_fit_with_more_threads_than_the_machine_has_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["fit", "smollm2", "--threads", "64", "--profile", "rtx-3060-12gb"]) == 0
    out, err = capsys.readouterr()
    assert "64 threads is more than the 12 logical CPUs" in err
    assert "The estimate uses all of them." in err
    assert "Verdict" in out
    assert main(["fit", "smollm2", "--threads", "2", "--profile", "rtx-3060-12gb"]) == 0
    assert capsys.readouterr().err == ""


def test_an_endpoint_that_refuses_is_said_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    """No "[Errno 111]", no "running?.", no "1 repos"."""
    assert main(["download", "a/b", "f.gguf", "--endpoint", "http://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err
    assert "nothing answers at http://127.0.0.1:9 (is the local server running?)." in err
    argv = ["catalog", "refresh", "--model", "smollm2-135m-instruct"]
    assert main([*argv, "--endpoint", "http://127.0.0.1:9"]) == 1
    out, err = capsys.readouterr()
    assert "Verified 0 files in 1 repo from http://127.0.0.1:9" in out
    assert "Errno" not in out + err
    assert err.strip().endswith(": the connection was refused.")


@pytest.mark.e2e
def test_run_json_says_why_it_stopped_and_carries_what_bench_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["run", "smollm2", "--prompt", "Count to fifty.", "--max-tokens", "5", "--temp", "0"]
    argv.append("--json")
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["finish_reason"] == "length"
    assert doc["n_ctx"] >= 4096  # the settings' default context, as in every command
    assert doc["n_threads"] >= 1
    assert doc["generation_tokens_per_s"] == doc["tokens_per_s"]  # old name kept one release
    assert doc["predicted_tokens_per_s"] > 0


@pytest.mark.e2e
def test_run_says_why_it_stopped(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["run", "smollm2", "--prompt", "Count to fifty.", "--max-tokens", "5", "--temp", "0"])
        == 0
    )
    err = capsys.readouterr().err
    assert "stopped by" in err
    assert "--max-tokens reached" in err


def test_catalog_search_matches_quants_and_all_words(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["catalog", "--profile", "rtx-4090-24gb", "--json"]
    assert main([*argv, "--search", "qwen 7b q8"]) == 0
    ids = [v["id"] for v in json.loads(capsys.readouterr().out)["variants"]]
    assert ids
    assert all(i.endswith(":Q8_0") and "7b" in i and "qwen" in i for i in ids)
    assert "qwen3-1.7b:Q8_0" not in ids  # "7b" starts a word, it does not end one
    assert main([*argv, "--format", "AWQ", "--family", "QWEN"]) == 0
    variants = json.loads(capsys.readouterr().out)["variants"]
    assert variants
    assert {v["format"] for v in variants} == {"awq"}


def test_catalog_prints_a_legend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--profile", "rtx-4090-24gb", "--family", "phi"]) == 0
    out = capsys.readouterr().out
    assert "partial N/M = N of M layers on the GPU" in out
    assert "zh: speaks Chinese" in out


def test_json_carries_full_precision(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--profile", "rtx-4090-24gb", "--json", "--family", "phi"]) == 0
    catalog_speed = json.loads(capsys.readouterr().out)["variants"][0]["fit"]["tokens_per_s"]
    assert catalog_speed != round(catalog_speed, 1)  # not rounded for humans
    assert main(["fit", "phi-4:Q4_K_M", "--profile", "rtx-4090-24gb", "--json"]) == 0
    fit_speed = json.loads(capsys.readouterr().out)["tokens_per_s"]
    assert fit_speed != round(fit_speed, 1)


@pytest.mark.parametrize(
    ("command", "default"),
    [
        ("run", "(default: 256)"),
        ("bench", "(default: 512)"),
        ("catalog", "(default: family)"),
        ("fit", "(default: f16)"),
        ("download", "(default: main)"),
    ],
)
def test_help_shows_defaults(command: str, default: str) -> None:
    done = run_cli(command, "--help")
    assert done.returncode == 0
    assert default in " ".join(done.stdout.split())


def test_run_help_names_every_default_that_matters() -> None:
    text = run_cli("run", "--help").stdout
    for default in ("(default: 0.8)", "(default: 256)", "(default: 0.95)", "(default: 40)"):
        assert default in text


def test_a_bad_profile_file_is_named_in_words(tmp_path: Path) -> None:
    profile = tmp_path / "p.json"
    profile.write_text('{"memory": {"total_bytes": 1, "available_bytes": 1}}')
    done = run_cli("fit", "smollm2", "--profile", str(profile))
    assert done.returncode == 1
    assert "has no 'cpu' section" in done.stderr
    assert "KeyError" not in done.stderr
