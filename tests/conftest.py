"""Shared fixtures: an isolated app home per test and the two real demo models."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from desktop.core import demo

pytest_plugins = ["tests.fixtures.hub_fixtures", "tests.fixtures.llama_server"]

# Property tests: no wall-clock deadline (the machine is shared and noisy). Under CI the examples
# are derived from the test itself, so a red build is reproducible and never a roll of the dice;
# locally each run explores new examples.
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def _import_huggingface_hub_neutrally() -> None:
    """huggingface_hub reads ``HF_ENDPOINT`` and ``HF_HOME`` once, when first imported, and from
    then on treats that endpoint's origin as the Hub's: a redirect there is followed. Imported
    lazily by the code under test, it took the environment of whichever test imported it first,
    a fake hub on 127.0.0.1:PORT; when a later test's fake CDN got the same port again, the
    CDN's redirect was followed and the file's commit read as None (a flaky failure). Imported
    here, before any test: no endpoint (huggingface.co) and a Hugging Face home of the session's
    own (never the developer's login). Tests set ``HF_ENDPOINT`` per test, which our code reads
    itself."""
    saved = {name: os.environ.get(name) for name in ("HF_ENDPOINT", "HF_HOME")}
    os.environ.pop("HF_ENDPOINT", None)
    os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="scout-tests-hf-home-")
    try:
        import huggingface_hub.file_download  # noqa: F401  (its constants and Hub origins)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_import_huggingface_hub_neutrally()


@pytest.fixture(autouse=True)
def scout_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own config/data/cache/log folders and Hugging Face home."""
    home = tmp_path_factory.mktemp("scout-home")
    monkeypatch.setenv("LLM_SCOUT_HOME", str(home))
    monkeypatch.delenv("LLM_SCOUT_MODELS_DIR", raising=False)
    monkeypatch.setenv("HF_HOME", str(home / "hf"))
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    return home


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    """SmolLM2-135M-Instruct Q4_1 (llama architecture, with chat template)."""
    return demo.smollm2_path()


@pytest.fixture(scope="session")
def gemma3_path() -> Path:
    """Gemma 3 270M Q4_K_M (gemma3, sliding window, no chat template)."""
    return demo.gemma3_path(assemble=True)


@pytest.fixture(scope="session")
def demo_paths(smollm2_path: Path, gemma3_path: Path) -> tuple[Path, Path]:
    return smollm2_path, gemma3_path
