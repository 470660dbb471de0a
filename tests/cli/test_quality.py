"""`llm-scout quality` and `llm-scout quantize` on the real SmolLM2 demo, through the CLI: the
JSON contract, reference packs, two models on the same questions, Ctrl-C keeping what is done,
and bad input as one sentence."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def test_quantize_counts_the_tensors_and_says_when_a_mix_lacks_its_type(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mix_path, pure_path = tmp_path / "mix.gguf", tmp_path / "pure.gguf"
    code, out, err = _run(capsys, "quantize", "smollm2", "--type", "Q2_K", "--out", str(mix_path))
    assert code == 0, err
    assert "Tensors: 180 Q4_0, 61 F32, 30 Q3_K, 1 Q8_0." in out
    assert "None of them is Q2_K" in out
    assert "--pure" in out
    code, out, err = _run(
        capsys, "quantize", "smollm2", "--type", "Q2_K", "--pure", "--out", str(pure_path), "--json"
    )
    assert code == 0, err
    document = json.loads(out)
    assert document["pure"] is True
    assert document["lacks_its_type"] is False
    assert document["tensor_types"]["Q2_K"] == 30
    assert sum(document["tensor_types"].values()) == document["tensors"] == 272
    assert document["output_bytes"] == pure_path.stat().st_size < mix_path.stat().st_size


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


def test_results_are_kept_in_the_history_and_travel_in_an_export(
    capsys: pytest.CaptureFixture[str], text: Path, tmp_path: Path, smollm2_path: Path
) -> None:
    common = ("--threads", "2", "--json")
    code, out, err = _run(
        capsys, "quality", "smollm2", "--reference", "smollm2", "--text", str(text), "--ctx", "64",
        *common,
    )  # fmt: skip
    assert code == 0, err
    loss = json.loads(out)
    folder = tmp_path / "items"
    folder.mkdir()
    rows = "".join(f"What is {i} plus 1?,{i + 1},{i},{i + 3},{i - 1},A\n" for i in range(2, 10))
    (folder / "counting_test.csv").write_text(rows, encoding="utf-8")
    code, out, err = _run(capsys, "quality", "smollm2", "--items", str(folder), *common)
    assert code == 0, err
    choice = json.loads(out)
    # --no-history keeps nothing
    code, out, err = _run(capsys, "quality", "smollm2", "--items", str(folder), "--no-history")
    assert code == 0, err

    code, out, err = _run(capsys, "history", "list", "--json")
    assert code == 0, err
    kept = [r for r in json.loads(out) if r["kind"] == "measurement"]
    assert [m["measurement"] for m in kept] == ["quality.choice", "quality.kld"]  # newest first
    got_choice, got_loss = kept
    assert got_loss["metric"] == "kld"
    assert got_loss["value"] == loss["kld"]
    assert got_loss["interval"] == loss["kld_ci"]
    assert got_loss["settings"]["reference"] == loss["reference"]
    assert got_loss["settings"]["tokens"] == loss["tokens"]
    assert got_choice["metric"] == "accuracy"
    assert got_choice["value"] == choice["accuracy"]
    assert got_choice["interval"] == choice["accuracy_ci"]
    assert got_choice["settings"]["n"] == 8
    assert got_loss["machine"] == got_choice["machine"] == "this machine"
    assert got_loss["model"] == got_choice["model"]

    code, out, err = _run(capsys, "history", "list")
    assert code == 0, err
    assert f"accuracy {choice['accuracy']:.1%}" in out
    assert f"KLD {loss['kld']:.5f}" in out

    bundle = tmp_path / "out.jsonl"
    code, out, err = _run(capsys, "history", "export", "--out", str(bundle), "--json")
    assert code == 0, err
    assert json.loads(out)["counts"]["measurements"] == 2
    lines = [json.loads(line) for line in bundle.read_text(encoding="utf-8").splitlines()]
    carried = [line for line in lines if line.get("type") == "measurement"]
    assert sorted(c["metric"] for c in carried) == ["accuracy", "kld"]


def test_recommend_uses_the_loss_measured_here_against_a_full_precision_file(
    capsys: pytest.CaptureFixture[str], text: Path, tmp_path: Path
) -> None:
    variant = "smollm2-135m-instruct:Q4_1"  # the demo file is this catalog variant
    before = _pick(capsys, variant)
    assert before["measured"] is None
    assert not before["quant_cost"]["measured_here"]
    # A reference of the same weights in F16 (the demo's Q4_1 widened: the loss is tiny).
    f16 = tmp_path / "SmolLM2-135M-Instruct-F16.gguf"
    code, out, err = _run(capsys, "quantize", "smollm2", "--type", "F16", "--out", str(f16))
    assert code == 0, err
    code, out, err = _run(
        capsys, "quality", "smollm2", "--reference", str(f16), "--text", str(text),
        "--ctx", "64", "--threads", "2", "--json",
    )  # fmt: skip
    assert code == 0, err
    loss = json.loads(out)
    after = _pick(capsys, variant)
    assert after["measured"] == "measured here"
    cost = after["quant_cost"]
    assert cost["measured_here"]
    assert cost["ppl_ratio"] == pytest.approx(loss["ppl"] / loss["reference_ppl"])
    assert cost["kld"] == pytest.approx(loss["kld"])
    assert cost["same_top_pct"] == pytest.approx(loss["same_top_token"] * 100)
    code, out, err = _run(capsys, "recommend", "--task", "chat", "--all", "--explain", variant)
    assert code == 0, err
    assert "measured here" in out


def _pick(capsys: pytest.CaptureFixture[str], variant: str) -> dict[str, Any]:
    code, out, err = _run(capsys, "recommend", "--task", "chat", "--ctx", "2048", "--json")
    assert code == 0, err
    picks = [p for p in json.loads(out)["picks"] if p["variant"] == variant]
    assert len(picks) == 1, f"{variant} is not ranked"
    return dict(picks[0])
