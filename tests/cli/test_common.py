"""The CLI's shared argument wiring and output helpers (desktop/commands/common.py, output.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from desktop.commands.common import add_json_argument, add_profile_argument, warn, workspace
from desktop.commands.output import human_params
from desktop.core.errors import CatalogError


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


def test_warnings_go_to_stderr_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    warn([CatalogError("The overlay is broken."), "So is this."])
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "llm-scout: The overlay is broken.",
        "llm-scout: So is this.",
    ]


def test_workspace_reports_a_broken_user_catalog_and_the_settings_it_ignored(
    scout_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = scout_home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "user_catalog.json").write_text("{ not json")
    (config / "settings.json").write_text('{"default_ctx": "big"}')
    ws = workspace()
    assert len(ws.catalog.models) > 30  # the bundled catalog still works
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert "'default_ctx' has an invalid value" in err[0]
    assert "user_catalog.json" in err[1]
    assert err[1].endswith("Using the catalog without it.")
