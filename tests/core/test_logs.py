from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.logs import LOG_FILE, setup_logging


@pytest.fixture
def clean_root() -> Iterator[None]:
    root = logging.getLogger()
    # Earlier tests may have run the CLI, which installs the handlers once per process.
    for handler in list(root.handlers):
        if getattr(handler, "_scout", None):
            root.removeHandler(handler)
            handler.close()
    before = list(root.handlers)
    yield
    for handler in list(root.handlers):
        if handler not in before:
            root.removeHandler(handler)
            handler.close()


@pytest.mark.usefixtures("clean_root")
def test_tokens_are_redacted_in_file_and_stderr(
    scout_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    setup_logging(verbose=True)
    setup_logging(verbose=True)  # idempotent: one handler pair
    logging.getLogger("desktop.test").warning("token is %s", "hf_abcdefghijklmnop")
    err = capsys.readouterr().err
    assert "hf_***" in err
    assert "abcdefghijklmnop" not in err
    text = (scout_home / "log" / LOG_FILE).read_text(encoding="utf-8")
    assert "hf_***" in text
    assert "abcdefghijklmnop" not in text
    assert err.count("token is") == 1


@pytest.mark.usefixtures("clean_root")
def test_quiet_stderr_hides_info(capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging(verbose=False, to_file=False)
    logging.getLogger("desktop.test").info("detail")
    logging.getLogger("desktop.test").warning("problem")
    err = capsys.readouterr().err
    assert "problem" in err
    assert "detail" not in err
