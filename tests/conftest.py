"""Shared fixtures: an isolated app home per test and the two real demo models."""

from __future__ import annotations

import os
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
