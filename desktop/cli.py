"""Headless command line: `llm-scout <command>`.

The contract other tools rely on: every command prints a human table by default and exactly one
JSON document with ``--json``; errors go to stderr as one sentence, with exit code 2 for usage
errors and 1 for failures. Commands live in ``desktop/commands/`` (one module each, each with a
``register(subparsers)`` function); this module only wires them and handles errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from desktop import __version__
from desktop.commands import (
    bench,
    calibration,
    catalog,
    compare,
    download,
    fit,
    gui,
    history,
    hw,
    library,
    quality,
    quantize,
    recommend,
    rpc_server,
    run,
    vllm,
)
from desktop.commands.common import Parser
from desktop.core.errors import ScoutError, UsageError
from desktop.core.logs import setup_logging
from desktop.core.storage import StoreNotice, add_notice_listener

# Command modules, in the order `--help` lists them.
COMMANDS = (
    hw,
    catalog,
    fit,
    recommend,
    run,
    bench,
    calibration,
    compare,
    history,
    download,
    library,
    rpc_server,
    vllm,
    gui,
    quality,
    quantize,
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="llm-scout",
        description="Which local LLM should I run here, and how does it really behave?",
    )
    parser.add_argument("--version", action="version", version=f"llm-scout {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module in COMMANDS:
        module.register(sub)
    return parser


def _default_command() -> tuple[list[str], str | None]:
    """A bare `llm-scout`: the window when a display is there and the GUI exists, else `hw`
    and the sentence saying why there is no window."""
    reason = gui.no_window_reason()
    return (["hw"], reason) if reason is not None else (["gui"], None)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    no_window = None
    if not args_list:
        args_list, no_window = _default_command()
    parser = build_parser()
    args = parser.parse_args(args_list)
    setup_logging(verbose=bool(args.verbose or os.environ.get("LLM_SCOUT_DEBUG")))
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    stop_telling = add_notice_listener(_tell)
    try:
        code = int(handler(args))
        sys.stdout.flush()
        if no_window is not None:
            sys.stderr.write(f"llm-scout: {no_window}\n")
        return code
    except BrokenPipeError:
        return _pipe_closed()
    except UsageError as exc:
        sys.stderr.write(f"llm-scout: {_sentence(exc.message)}\n")
        return 2
    except ScoutError as exc:
        sys.stderr.write(f"llm-scout: {_sentence(exc.message)}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("llm-scout: interrupted.\n")
        return 130
    finally:
        stop_telling()


def _tell(notice: StoreNotice) -> None:
    """A damaged database was set aside: one line on stderr (the log has the details)."""
    sys.stderr.write(f"llm-scout: {notice.sentence()}\n")
    sys.stderr.flush()


def _sentence(message: str) -> str:
    """Every message ends with a full stop (or its own ?/!)."""
    message = message.strip()
    return message if message.endswith((".", "?", "!")) else message + "."


def _pipe_closed() -> int:
    """The reader went away (``llm-scout catalog | head``): stop quietly, like other Unix tools.
    Python would complain again when it flushes stdout at exit, so stdout goes to devnull."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
