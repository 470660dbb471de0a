"""A context far past what llama.cpp can count (issue 22): one sentence, from the command line
and from the worker itself, instead of a negative array length or a silent wrap to the model's
default."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.engine import EngineClient
from desktop.core.engine import protocol as p

pytestmark = [pytest.mark.e2e]

TIMEOUT = 120.0


@pytest.mark.parametrize("n_ctx", [2**31, 2**32])
def test_a_context_past_what_llama_cpp_counts_is_one_sentence(
    smollm2_path: Path, n_ctx: int
) -> None:
    client = EngineClient()
    client.start()
    try:
        error = client.load(smollm2_path, n_ctx=n_ctx).wait(TIMEOUT)
        assert isinstance(error, p.Error), error  # 2**32 used to load as "the model's default"
        assert error.kind == "invalid_request"
        assert f"A context of {n_ctx:,} tokens is more than llama.cpp can count" in error.message
    finally:
        client.close()


def test_run_refuses_a_context_past_what_llama_cpp_counts(
    smollm2_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop.cli import main

    argv = ["run", str(smollm2_path), "--prompt", "hi", "--ctx", str(2**31)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "at most 2,147,483,647" in err
