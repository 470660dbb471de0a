"""Argument wiring the CLI commands share: ``--json``, ``--profile`` and what they load.

A command adds the options with :func:`add_json_argument` / :func:`add_profile_argument` and
turns ``args.profile`` into hardware with :func:`load_profile_arg`, so every command spells the
options, their metavar and the profile lookup the same way.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from desktop.core.hardware.profile import HardwareProfile

JSON_HELP = "print one JSON document"
PROFILE_HELP = "a saved hardware profile or a bundled what-if profile (see `llm-scout hw`)"


def add_json_argument(parser: argparse._ActionsContainer, help: str = JSON_HELP) -> None:
    """``--json`` (``args.json``): exactly one JSON document instead of the human output."""
    parser.add_argument("--json", action="store_true", help=help)


def add_profile_argument(parser: argparse._ActionsContainer, help: str = PROFILE_HELP) -> None:
    """``--profile FILE|NAME`` (``args.profile``); load it with :func:`load_profile_arg`."""
    parser.add_argument("--profile", metavar="FILE|NAME", help=help)


def settings_models_dir() -> Path:
    """The models folder from the settings."""
    from desktop.core.settings import load_settings

    return load_settings().resolved_models_dir()


def load_profile_arg(
    value: str | None, models_dir: Path | None = None, *, measure_disk: bool = False
) -> tuple[HardwareProfile, str]:
    """The hardware ``--profile`` names and its display name.

    A saved profile file or a bundled what-if profile when ``value`` is given; otherwise this
    machine, probed with the memory bandwidth (measured once, then cached) and the disk holding
    ``models_dir`` (default: the settings' models folder).
    """
    if value:
        from desktop.core.hardware.whatif import load_profile

        profile = load_profile(value)
        return profile, profile.name or value
    from desktop.core.hardware.probe import THIS_MACHINE, probe

    folder = models_dir if models_dir is not None else settings_models_dir()
    return probe(folder, measure_disk=measure_disk, measure_bandwidth=True), THIS_MACHINE


def warn_catalog_errors(errors: Iterable[BaseException]) -> None:
    """One stderr line per catalog file that could not be used (the rest of it still is)."""
    for error in errors:
        sys.stderr.write(f"llm-scout: {error} Using the catalog without it.\n")
