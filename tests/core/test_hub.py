"""The Hub policy in one place: endpoint and mirrors, token, offline mode, names."""

from __future__ import annotations

import pytest

from desktop.core.errors import HubError
from desktop.core.hub import (
    DEFAULT_ENDPOINT,
    Hub,
    choose_endpoint,
    file_name_problem,
    find_token,
    normalize_endpoint,
    offline_reason,
    repo_problem,
    same_origin,
)


def test_setting_wins_over_environment_which_wins_over_the_default() -> None:
    env = {"HF_ENDPOINT": "https://env.example/"}
    assert choose_endpoint("hf-mirror", env) == "https://hf-mirror.com"
    assert choose_endpoint("", env) == "https://env.example"
    assert choose_endpoint("", {}) == DEFAULT_ENDPOINT


@pytest.mark.parametrize("value", ["huggingface.co", "notaurl", "ftp://x.org", "https://", ""])
def test_an_address_that_is_no_url_is_refused_at_once(value: str) -> None:
    with pytest.raises(HubError) as caught:
        normalize_endpoint(value)
    assert caught.value.kind == "hub.bad_endpoint"
    assert "hf-mirror" in caught.value.message  # says what would work


def test_a_command_line_endpoint_wins_over_the_setting() -> None:
    hub = Hub.from_settings("hf-mirror", endpoint="http://127.0.0.1:8080/", environ={})
    assert hub.endpoint == "http://127.0.0.1:8080"
    assert hub.is_local
    assert hub.mirror is None
    assert Hub.from_settings("hf-mirror", environ={}).mirror == "hf-mirror"


def test_token_order_and_the_switch_that_turns_implicit_tokens_off() -> None:
    assert find_token("hf_explicit", {"HF_TOKEN": "hf_env"}) == "hf_explicit"
    assert find_token(None, {"HF_TOKEN": " hf_env "}) == "hf_env"
    assert find_token(None, {"HUGGING_FACE_HUB_TOKEN": "hf_old"}) == "hf_old"
    assert find_token(None, {"HF_TOKEN": "hf_env", "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1"}) is None


def test_the_token_goes_to_the_endpoints_origin_only() -> None:
    hub = Hub("https://hf-mirror.com", token="hf_secret")
    assert hub.token_for("https://hf-mirror.com/a/b/resolve/main/x.gguf") == "hf_secret"
    assert hub.token_for("https://cdn.example/x.gguf") is None
    assert hub.token_for("http://hf-mirror.com/x") is None  # another scheme is another origin
    assert "hf_secret" not in repr(hub)


def test_offline_mode_is_decided_without_the_network() -> None:
    assert offline_reason({"HF_HUB_OFFLINE": "1"}) == "offline mode is on (HF_HUB_OFFLINE=1)"
    assert offline_reason({"TRANSFORMERS_OFFLINE": "yes"}) is not None
    assert offline_reason({"HF_HUB_OFFLINE": "0"}) is None
    assert Hub.from_settings(environ={"HF_HUB_OFFLINE": "1"}).offline is not None


@pytest.mark.parametrize(
    "name", ["", "../x.gguf", "a/../b.gguf", "/abs.gguf", "C:/x.gguf", "a\\b.gguf", "a//b", "x\x01"]
)
def test_file_names_that_could_leave_their_folder_are_refused(name: str) -> None:
    assert file_name_problem(name) is not None


def test_safe_names_pass() -> None:
    assert file_name_problem("Q8_0/model-Q8_0-00001-of-00002.gguf") is None
    assert file_name_problem("model..v2.gguf") is None
    assert repo_problem("bartowski/Qwen2.5-7B-Instruct-GGUF") is None
    assert repo_problem("a/b/c") is not None
    assert repo_problem("../b") is not None


def test_file_urls_are_quoted_and_checked() -> None:
    hub = Hub("https://huggingface.co")
    assert hub.file_url("org/m", "q 4.gguf", "refs/pr/1") == (
        "https://huggingface.co/org/m/resolve/refs%2Fpr%2F1/q%204.gguf"
    )
    with pytest.raises(HubError) as caught:
        hub.file_url("org/m", "../x.gguf")
    assert caught.value.kind == "hub.bad_name"


def test_hints_fit_the_case() -> None:
    assert "hf-mirror.com" in Hub(DEFAULT_ENDPOINT).unreachable_hint()
    mirror = Hub("https://hf-mirror.com").unreachable_hint()
    assert "hf-mirror.com" in mirror  # names the address in use ...
    assert "set the mirror" not in mirror  # ... and does not suggest it again
    local = Hub("http://127.0.0.1:9").unreachable_hint()
    assert "local server" in local
    assert "network" not in local


def test_same_origin_fills_default_ports() -> None:
    assert same_origin("https://a.org/x", "https://a.org:443/y")
    assert not same_origin("https://a.org/x", "https://b.org/x")
