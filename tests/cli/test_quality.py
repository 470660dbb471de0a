"""`llm-scout quality` and `llm-scout quantize` on the real SmolLM2 demo, through the CLI: the
JSON contract, reference packs, two models on the same questions, Ctrl-C keeping what is done,
and bad input as one sentence."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from desktop.cli import main
from desktop.core.paths import resources_dir
from tests.fixtures.terminal import Terminal

pytestmark = [pytest.mark.e2e]

LOSS_KEYS = {"kld", "kld_ci", "same_top_token", "ppl", "reference_ppl", "delta_ppl", "tokens"}


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    children = psutil.Process().children(recursive=True)
    assert not children, f"processes left behind: {children}"


@pytest.fixture
def text(tmp_path: Path) -> Path:
    source = (resources_dir() / "quality" / "texts" / "en.txt").read_text(encoding="utf-8")
    path = tmp_path / "short.txt"
    path.write_text(source[:2400], encoding="utf-8")
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_quality_json_against_a_reference_and_through_a_pack(
    capsys: pytest.CaptureFixture[str], text: Path, tmp_path: Path
) -> None:
    code, out, err = _run(
        capsys,
        "quality",
        "smollm2",
        "--reference",
        "smollm2",
        "--text",
        str(text),
        "--ctx",
        "64",
        "--threads",
        "2",
        "--json",
    )
    assert code == 0, err
    document = json.loads(out)
    assert set(document) >= LOSS_KEYS
    assert document["kld"] == 0.0
    assert document["same_top_token"] == 1.0
    assert document["delta_ppl"] == 0.0
    assert document["tokens"] == document["chunks"] * 32
    assert len(document["kld_ci"]) == 2
    assert "chunk" in err  # progress went to stderr

    pack = tmp_path / "smol.refpack"
    code, out, err = _run(
        capsys,
        "quality",
        "smollm2",
        "--save-reference",
        str(pack),
        "--text",
        str(text),
        "--ctx",
        "64",
        "--threads",
        "2",
        "--json",
    )
    assert code == 0, err
    saved = json.loads(out)
    assert saved["bytes"] == pack.stat().st_size
    assert saved["bytes_per_1000_tokens"] < 2_000_000
    code, out, err = _run(capsys, "quality", "smollm2", "--reference", str(pack), "--threads", "2")
    assert code == 0, err
    assert "KL divergence" in out
    assert "0.00000" in out
    assert "below Q8_0" in out


def test_two_models_on_the_same_questions_get_mcnemar(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, smollm2_path: Path
) -> None:
    rows = "".join(
        f"What is {i} times 2?,{2 * i},{2 * i + 2},{i},{3 * i},A\n" for i in range(3, 15)
    )
    (tmp_path / "doubling_test.csv").write_text(rows, encoding="utf-8")
    code, out, err = _run(
        capsys,
        "quality",
        "smollm2",
        str(smollm2_path),
        "--items",
        str(tmp_path),
        "--threads",
        "2",
        "--json",
    )
    assert code == 0, err
    document = json.loads(out)
    first, second = document["models"]
    assert first["n"] == second["n"] == 12
    test = document["mcnemar"]
    assert test["n"] == 12
    assert test["only_a"] == test["only_b"] == 0  # the same file answers the same
    assert test["better"] is None
    code, out, err = _run(
        capsys, "quality", "smollm2", str(smollm2_path), "--items", str(tmp_path), "--threads", "2"
    )
    assert code == 0, err
    assert "cannot tell yet: they have not differed" in out
    assert "doubling" in out


def test_ctrl_c_prints_what_is_done(
    scout_home: Path, smollm2_path: Path, text: Path, tmp_path: Path
) -> None:
    from desktop.core.quality import LossSettings, load_text, make_pack, write_pack

    pack = tmp_path / "smol.refpack"
    settings = LossSettings(ctx=64, n_threads=2)
    write_pack(make_pack(smollm2_path, load_text(text), settings, label="SmolLM2"), pack)
    env = {**os.environ, "LLM_SCOUT_HOME": str(scout_home), "TERM": "dumb"}
    argv = [
        sys.executable,
        "-m",
        "desktop",
        "quality",
        "smollm2",
        "--reference",
        str(pack),
        "--threads",
        "2",
    ]
    terminal = Terminal(argv, env=env)
    try:
        terminal.read_until("model: chunk 2/", timeout=600)
        terminal.ctrl_c()
        code = terminal.wait(timeout=300)
        assert code == 130
        output = terminal.output
        assert "stopping after the current step" in output
        assert "KL divergence" in output
        assert "Stopped: the figures cover the chunks done." in output
    finally:
        terminal.close()


def test_quantize_writes_a_file_and_notes_the_requantization(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_path = tmp_path / "smol-q8.gguf"
    code, out, err = _run(capsys, "quantize", "smollm2", "--type", "q8_0", "--out", str(out_path))
    assert code == 0, err
    assert out_path.is_file()
    assert "Note:" in out
    assert "already quantized (Q4_1)" in out
    code, out, err = _run(
        capsys, "quantize", "smollm2", "--type", "Q8_0", "--out", str(out_path), "--json"
    )
    assert code == 1
    assert "exists already" in err
    assert out == ""


@pytest.mark.parametrize(
    ("argv", "words", "status"),
    [
        (["quantize", "smollm2", "--type", "Q7_X"], "Q7_X is not a type llama.cpp can make", 1),
        (
            ["quality", "smollm2", "--reference", "gemma3", "--ctx", "64"],
            "different vocabularies",
            1,
        ),
        (["quality", "smollm2", "--items", "/nonexistent/folder"], "no question file or folder", 1),
        (
            ["quality", "smollm2", "gemma3", "--reference", "smollm2"],
            "A second MODEL goes with --items",
            2,
        ),
        (["quality", "smollm2", "--reference", "/nowhere.refpack"], "no reference pack", 1),
    ],
)
def test_bad_input_is_one_sentence(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str, status: int
) -> None:
    code, _out, err = _run(capsys, *argv)
    assert code == status
    assert words in err
    assert err.count("llm-scout:") == 1
    assert "Traceback" not in err
