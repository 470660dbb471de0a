"""`llm-scout run/bench --endpoint URL --model NAME` and `llm-scout compare` with a remote spec,
against llama-cpp-python's own server serving the SmolLM2 demo model on 127.0.0.1; the API key
stays out of the log and the history."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.core import paths
from tests.fixtures.contracts import RUN_JSON_KEYS
from tests.fixtures.llama_server import LlamaServer
from tests.fixtures.sse_server import FakeOpenAI, closed_port

pytestmark = [pytest.mark.e2e]

KEY = "sk-remote-cli-secret-9876"


def test_run_on_an_endpoint_streams_and_says_where_speed_was_measured(
    llama_server: LlamaServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--endpoint", llama_server.url, "--model", "smollm2"]
    code = main([*argv, "--prompt", "Name three fruits.", "--temp", "0", "--max-tokens", "12"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.strip()  # the answer, on stdout
    assert f"smollm2 on {llama_server.url} (remote)" in err
    assert "speed measured on the client" in err
    assert "no prediction: remote" in err
    memory_row = next(line for line in err.splitlines() if line.startswith("memory"))
    assert memory_row.split()[-1] == "unknown"


def test_run_json_on_an_endpoint_keeps_the_contract(
    llama_server: LlamaServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--endpoint", llama_server.url, "--model", "smollm2", "--json"]
    code = main([*argv, "--prompt", "Say hi.", "--temp", "0", "--max-tokens", "8"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(out)
    assert set(document) == RUN_JSON_KEYS
    assert document["text"].strip()
    assert document["timing_source"] == "client"
    assert document["memory_source"] == "unknown"
    assert document["rss_peak_bytes"] is None  # unknown, never 0
    assert 0 < document["generated_tokens"] <= 8


def test_compare_a_local_model_with_the_same_model_served(
    llama_server: LlamaServer, smollm2_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = f"{llama_server.url}@model=smollm2"
    argv = ["compare", "--models", "smollm2", remote, "--prompt", "What is 2 + 2?"]
    code = main([*argv, "--temp", "0", "--max-tokens", "12", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(out)
    summary = document["summary"]
    assert [row["status"] for row in summary] == ["done", "done"]
    assert [row["remote"] for row in summary] == [False, True]
    assert summary[1]["rss_peak_bytes"] is None
    assert summary[0]["rss_peak_bytes"]
    texts = {row["contestant"]: row["output"] for row in document["rows"]}
    assert texts[0] == texts[1]  # greedy, same file, same llama.cpp


def test_bench_on_an_endpoint(
    llama_server: LlamaServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench", "--endpoint", llama_server.url, "--model", "smollm2"]
    code = main([*argv, "--pp", "32", "--tg", "8", "-r", "1", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(out)
    assert document["remote"] is True
    assert document["timing_source"] == "client"
    assert document["pp_tokens_per_s"] > 0
    assert document["tg_tokens_per_s"] > 0
    assert document["rss_peak_bytes"] is None
    assert document["runs"][0]["ttft_ms"] > 0


def test_remote_options_that_do_not_fit_together(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--endpoint", "http://127.0.0.1:1/v1", "--prompt", "x"]) == 2
    assert "--endpoint needs --model NAME" in capsys.readouterr().err
    assert (
        main(["run", "smollm2", "--endpoint", "http://h/v1", "--model", "m", "--prompt", "x"]) == 2
    )
    assert "either MODEL (smollm2) or --endpoint" in capsys.readouterr().err
    assert main(["run", "--model", "m", "--prompt", "x"]) == 2
    assert "--model and --api-key-env go with --endpoint URL" in capsys.readouterr().err


def test_a_refused_endpoint_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    code = main(["run", "--endpoint", url, "--model", "m", "--prompt", "x"])
    err = capsys.readouterr().err
    assert code != 0
    assert f"Nothing answers at {url}: the connection was refused" in err
    assert "Traceback" not in err


def test_the_api_key_reaches_the_server_but_not_the_log_or_the_history(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("SERVER_KEY", KEY)
    with FakeOpenAI(api_key=KEY) as one, FakeOpenAI(api_key=KEY) as two:
        specs = [
            f"{one.url}@model=smol,key_env=SERVER_KEY",
            f"{two.url}@model=smol,key_env=SERVER_KEY",
        ]
        code = main(["compare", "--models", *specs, "--prompt", "hi", "--max-tokens", "4"])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert one.completions()[0].headers["Authorization"] == f"Bearer {KEY}"
    assert "Hello, world!" in out
    assert KEY not in out + err + caplog.text
    logs = list(paths.log_dir().rglob("*")) if paths.log_dir().exists() else []
    for log in logs:
        if log.is_file():
            assert KEY not in log.read_text(errors="replace")
    databases = [p for p in paths.data_dir().rglob("*.db")]
    assert databases  # the comparison was stored ...
    for db in databases:
        raw = db.read_bytes()
        assert KEY.encode() not in raw  # ... without the key
        with sqlite3.connect(db) as conn:
            dump = "\n".join(conn.iterdump())
        assert KEY not in dump
        if "SERVER_KEY" in dump:  # where the key comes from is kept, so a re-run finds it
            assert one.url in dump
