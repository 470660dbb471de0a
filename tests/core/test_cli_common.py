"""The CLI's shared argument wiring and output helpers (desktop/commands/common.py, output.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from desktop.commands._engine import model_label, read_header
from desktop.commands.common import (
    add_json_argument,
    add_profile_argument,
    load_profile_arg,
    warn_catalog_errors,
)
from desktop.commands.output import human_params
from desktop.core.errors import CatalogError, HardwareError
from desktop.core.hardware.whatif import list_profiles


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (134_515_008, "135M"),
        (268_098_176, "268M"),
        (999_600_000, "1.0B"),
        (7_615_616_512, "7.6B"),
        (25_000, "25K"),
        (0, "-"),
        (None, "-"),
    ],
)
def test_human_params(n: int | None, text: str) -> None:
    assert human_params(n) == text


def test_json_and_profile_arguments_parse_into_args() -> None:
    parser = argparse.ArgumentParser()
    add_json_argument(parser)
    add_profile_argument(parser)
    args = parser.parse_args(["--json", "--profile", "rtx-4090-24gb"])
    assert (args.json, args.profile) == (True, "rtx-4090-24gb")
    args = parser.parse_args([])
    assert (args.json, args.profile) == (False, None)
    assert "FILE|NAME" in parser.format_help()


def test_load_profile_arg_reads_a_bundled_profile_by_name() -> None:
    name = list_profiles()[0]
    profile, title = load_profile_arg(name)
    assert profile.source == "what-if"
    assert title == profile.name != ""


def test_load_profile_arg_without_a_value_probes_this_machine(tmp_path: Path) -> None:
    profile, title = load_profile_arg(None, tmp_path)
    assert title == "this machine"
    assert profile.source == "probe"
    assert profile.memory.total_bytes > 0


def test_load_profile_arg_refuses_an_unknown_profile() -> None:
    with pytest.raises(HardwareError, match="No hardware profile named"):
        load_profile_arg("no-such-machine")


def test_catalog_errors_go_to_stderr_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    warn_catalog_errors([CatalogError("The overlay is broken."), CatalogError("So is this.")])
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "llm-scout: The overlay is broken. Using the catalog without it.",
        "llm-scout: So is this. Using the catalog without it.",
    ]


def test_model_label_names_the_model_with_our_count_and_quant(
    smollm2_path: Path, gemma3_path: Path
) -> None:
    smollm2 = model_label(smollm2_path, read_header(smollm2_path), "llama 256M Q4_1")
    assert smollm2 == "Smollm2 135M 8k Lc100K Mix1 Ep2 (135M, Q4_1)"
    gemma = model_label(gemma3_path, read_header(gemma3_path), "gemma3 270M Q4_K - Medium")
    assert gemma == "Gemma 3 270m (268M, Q4_K_M)"


def test_model_label_falls_back_to_llamas_description(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf file at all")
    assert read_header(broken) is None
    assert model_label(broken, None, "llama 256M Q4_1") == "llama 256M Q4_1"
