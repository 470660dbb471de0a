"""The sandbox chat templates render in: jinja2's immutable sandbox as llama-cpp-python sets it
up (and transformers), failing loudly on unsafe attributes, with size limits on ``*``, ``+`` and
``**`` so that a template cannot ask for gigabytes in one operation (``'x' * 10**10``).

Time and memory over a whole render are limited by whoever renders
(:mod:`desktop.core.engine.render_limits`, in the worker); what is chosen and rendered is
:mod:`desktop.core.engine.templates`.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.ext
import jinja2.parser
import jinja2.sandbox
from jinja2 import nodes
from jinja2.exceptions import SecurityError

__all__ = [
    "MAX_POWER_BITS",
    "MAX_VALUE_ITEMS",
    "RaisedByTemplate",
    "TooLarge",
    "environment",
    "raise_exception",
    "strftime_now",
]

#: The longest text or list ``*`` and ``+`` may build inside a template (characters/items).
MAX_VALUE_ITEMS = 16 * 1024 * 1024
#: The largest integer ``**`` may build inside a template, in bits.
MAX_POWER_BITS = 64 * 1024


class TooLarge(Exception):
    """A template tried to build a value past the size limits."""


class _IgnoreGenerationTags(jinja2.ext.Extension):
    """Pass-through for transformers' ``{% generation %}`` tag (as llama-cpp-python does)."""

    tags = {"generation"}  # noqa: RUF012 - jinja2's own class attribute

    def parse(self, parser: jinja2.parser.Parser) -> list[nodes.Node]:
        parser.stream.skip(1)
        return parser.parse_statements(("name:endgeneration",), drop_needle=True)


class _Sandbox(jinja2.sandbox.ImmutableSandboxedEnvironment):
    """The immutable sandbox, failing loudly on unsafe attributes instead of printing nothing,
    and refusing to build huge values with ``*``, ``+`` and ``**``."""

    intercepted_binops = frozenset({"*", "+", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            _check_repeat(left, right)
            _check_repeat(right, left)
        elif operator == "+":
            if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
                _check_items(len(left) + len(right))
        elif operator == "**":
            _check_power(left, right)
        return super().call_binop(context, operator, left, right)

    def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
        raise SecurityError(
            f"access to attribute {attribute!r} of {type(obj).__name__!r} object is unsafe"
        )


def _check_items(n: int) -> None:
    if n > MAX_VALUE_ITEMS:
        raise TooLarge(f"a text or list of {n:,} items (at most {MAX_VALUE_ITEMS:,})")


def _check_repeat(sequence: Any, times: Any) -> None:
    if isinstance(sequence, (str, list, tuple)) and isinstance(times, int):
        _check_items(len(sequence) * max(0, times))


def _check_power(base: Any, exponent: Any) -> None:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0:
        bits = abs(base).bit_length()
        if bits > 1 and (bits - 1) * exponent > MAX_POWER_BITS:
            raise TooLarge(f"a number of about {(bits - 1) * exponent:,} bits")


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


class RaisedByTemplate(Exception):
    """``raise_exception(message)`` called by a template."""


def raise_exception(message: str) -> None:
    raise RaisedByTemplate(message)


@lru_cache(maxsize=1)
def environment() -> _Sandbox:
    env = _Sandbox(
        loader=jinja2.BaseLoader(),
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[_IgnoreGenerationTags, jinja2.ext.loopcontrols],
    )
    env.filters["tojson"] = _tojson
    return env
