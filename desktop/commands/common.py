"""Argument wiring the CLI commands share: ``--json``, ``--profile``, the workspace.

A command adds the options with :func:`add_json_argument` / :func:`add_profile_argument`, gets
the settings and catalog (read once) from :func:`workspace`, and writes problems with
:func:`warn`, so every command spells the options and reports the same way.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import Any

from desktop.core.errors import UsageError
from desktop.core.hub import endpoint_problem
from desktop.core.workspace import Workspace

JSON_HELP = "print one JSON document"
PROFILE_HELP = "a saved hardware profile or a bundled what-if profile (see `llm-scout hw`)"


def add_json_argument(parser: argparse._ActionsContainer, help: str = JSON_HELP) -> None:
    """``--json`` (``args.json``): exactly one JSON document instead of the human output."""
    parser.add_argument("--json", action="store_true", help=help)


def add_quiet_argument(parser: argparse._ActionsContainer) -> None:
    """``-q/--quiet`` (``args.quiet``): no progress lines, only results, warnings and errors
    (for scripts and cron jobs; progress in a log file is one line per step anyway)."""
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress on stderr: only the results, warnings and errors",
    )


def add_profile_argument(parser: argparse._ActionsContainer, help: str = PROFILE_HELP) -> None:
    """``--profile FILE|NAME`` (``args.profile``); load it with ``Workspace.profile``."""
    parser.add_argument("--profile", metavar="FILE|NAME", help=help)


class HelpFormatter(argparse.HelpFormatter):
    """``--help`` shows each option's default (when it has a meaningful one)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if "%(default)" in text or not action.option_strings:
            return text
        if default is None or default is False or default == [] or default is argparse.SUPPRESS:
            return text
        return f"{text} (default: %(default)s)" if text else "(default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """The CLI's parsers: defaults shown in ``--help``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


def workspace(*, with_demos: bool = True) -> Workspace:
    """The settings and catalog for this command; problems with either go to stderr."""
    ws = Workspace.load(with_demos=with_demos)
    warn(ws.settings_problems)
    warn(f"{error} Using the catalog without it." for error in ws.catalog_problems)
    return ws


def check_endpoint(value: str | None) -> None:
    """``--endpoint`` must be a URL or a mirror name: refused at once, not after retries."""
    if value:
        problem = endpoint_problem(value)
        if problem is not None:
            raise UsageError(problem)


def warn(messages: Iterable[object]) -> None:
    """One stderr line per message."""
    for message in messages:
        sys.stderr.write(f"llm-scout: {message}\n")
