"""Contestants (specs, settings, names, stored and restored) and scheduling (the parallel-mode
memory check) on the real demo models' headers, without running them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from desktop.core.compare import (
    CompareError,
    ComparisonPlan,
    Contestant,
    build_contestants,
    check_parallel,
    require_parallel,
    single_prompt,
    split_spec,
)
from desktop.core.compare.contestants import contestant_from_record
from desktop.core.compare.schedule import parallel_threads
from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.hardware import HardwareProfile, MemoryInfo, list_profiles, load_profile
from desktop.core.history import ModelRef
from desktop.core.library import ModelNotFound
from desktop.core.workspace import Workspace


@pytest.fixture
def ws(demo_paths: tuple[Path, Path]) -> Workspace:
    return Workspace.load()


def tiny(profile: HardwareProfile, available: int) -> HardwareProfile:
    memory = MemoryInfo(total_bytes=available * 2, available_bytes=available)
    return dataclasses.replace(profile, memory=memory, gpus=(), name="tiny")


@pytest.mark.parametrize(
    ("text", "model", "settings"),
    [
        ("smollm2", "smollm2", {}),
        ("smollm2@temp=0.2,ctx=1024", "smollm2", {"temp": "0.2", "ctx": "1024"}),
        ("qwen2.5-7b-instruct:Q4_K_M@ngl=-1", "qwen2.5-7b-instruct:Q4_K_M", {"ngl": "-1"}),
        ("/models/me@home/model.gguf", "/models/me@home/model.gguf", {}),
        ("/models/me@home/model.gguf@name=Mine", "/models/me@home/model.gguf", {"name": "Mine"}),
        ("user@host", "user@host", {}),
    ],
)
def test_specs_split_into_a_model_and_its_settings(
    text: str, model: str, settings: dict[str, str]
) -> None:
    assert split_spec(text) == (model, settings)


def test_the_same_file_twice_with_different_settings_gets_names_that_tell_them_apart(
    ws: Workspace,
) -> None:
    contestants = build_contestants(
        ws.resolver,
        ["smollm2", "smollm2@temp=0,ctx=1024", "gemma3", "smollm2@name=Mine"],
        load=LoadSettings(n_ctx=512),
        sampling=p.SamplingParams(max_tokens=8, seed=1),
    )
    names = [c.display_name for c in contestants]
    assert names == [
        "SmolLM2 135M Instruct Q4_1 (ctx 512, temp 0.8)",
        "SmolLM2 135M Instruct Q4_1 (ctx 1024, temp 0)",
        "Gemma 3 270M (base) Q4_K_M",
        "Mine",
    ]
    assert contestants[0].model.path == contestants[1].model.path
    assert contestants[1].load.n_ctx == 1024
    assert contestants[1].sampling.temperature == 0.0
    assert contestants[1].sampling.max_tokens == 8  # the shared settings stay
    assert contestants[0].quant == "Q4_1"
    assert contestants[2].quant == "Q4_K_M"


def test_identical_contestants_are_numbered(ws: Workspace) -> None:
    names = [c.display_name for c in build_contestants(ws.resolver, ["gemma3", "gemma3"])]
    assert names == ["Gemma 3 270M (base) Q4_K_M (#1)", "Gemma 3 270M (base) Q4_K_M (#2)"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("smollm2@colour=red", "Unknown model setting 'colour'"),
        ("smollm2@ctx=big", "needs a number"),
        ("smollm2@ctx=8", "at least 16"),
        ("smollm2@cache=q2", "KV cache type must be one of f16, q8_0, q4_0"),
        ("smollm2@max_tokens=0", "at least 1"),
    ],
)
def test_settings_that_cannot_be_used_are_refused(ws: Workspace, spec: str, message: str) -> None:
    with pytest.raises(CompareError, match=message) as info:
        build_contestants(ws.resolver, [spec, "gemma3"])
    assert info.value.kind == "compare.option"


def test_two_to_six_models(ws: Workspace) -> None:
    for specs in (["smollm2"], ["smollm2"] * 7):
        with pytest.raises(CompareError) as info:
            build_contestants(ws.resolver, specs)
        assert info.value.kind == "compare.contestants"
    with pytest.raises(ModelNotFound):
        build_contestants(ws.resolver, ["smollm2", "no-such-model"])


def test_the_kv_cache_type_is_a_setting_and_turns_flash_attention_on(ws: Workspace) -> None:
    plain, q8, q4_off = build_contestants(
        ws.resolver, ["gemma3", "gemma3@cache=q8_0", "gemma3@cache=q4_0,fa=on,name=Q4 cache"]
    )
    assert (plain.load.cache_type, plain.load.flash_attn) == ("f16", False)
    assert (q8.load.cache_type, q8.load.flash_attn) == ("q8_0", True)
    assert q8.display_name == "Gemma 3 270M (base) Q4_K_M (KV q8_0, FA on)"
    assert plain.display_name == "Gemma 3 270M (base) Q4_K_M (KV f16, FA off)"
    assert q4_off.settings_dict()["load"]["cache_type"] == "q4_0"
    with pytest.raises(CompareError, match="needs flash attention"):
        build_contestants(ws.resolver, ["gemma3@cache=q8_0,fa=off", "smollm2"])
    with pytest.raises(CompareError, match="needs on or off"):
        build_contestants(ws.resolver, ["gemma3@fa=maybe", "smollm2"])
    # The quantized cache is smaller, and the parallel check counts it so.
    here, _ = ws.profile()
    big = [
        dataclasses.replace(c, load=dataclasses.replace(c.load, n_ctx=32768)) for c in (plain, q8)
    ]
    needs = check_parallel(big, here).needs
    assert needs[1].ram_bytes < needs[0].ram_bytes
    with pytest.raises(CompareError, match="mode"):
        ComparisonPlan((plain, q8), single_prompt("Hi").prompts, mode="fast")  # type: ignore[arg-type]


def test_a_stored_contestant_runs_again_with_its_settings(ws: Workspace, tmp_path: Path) -> None:
    (original, other) = build_contestants(
        ws.resolver,
        ["smollm2@temp=0.3,seed=9,ctx=768,threads=1,cache=q8_0", "gemma3"],
        sampling=p.SamplingParams(stop=("\n\n",)),
        system="Be brief.",
    )
    record = original.record()
    restored = contestant_from_record(ws.resolver, record)
    assert restored.load == original.load
    assert restored.sampling == original.sampling
    assert restored.system == "Be brief."
    assert restored.display_name == original.display_name
    assert restored.unavailable is None
    # The spec no longer resolves, but the file on record is still there.
    assert original.model.path is not None
    ref = ModelRef(1, original.model.path, 1, 1, None, "SmolLM2")
    moved = dataclasses.replace(record, spec=str(tmp_path / "gone.gguf"), model=ref)
    assert contestant_from_record(ws.resolver, moved).model.path == original.model.path
    # Neither: the contestant is kept, marked unavailable with the reason.
    gone = dataclasses.replace(record, spec="no-such-model", model=None)
    lost = contestant_from_record(ws.resolver, gone)
    assert lost.unavailable is not None
    assert "no-such-model" in lost.unavailable
    assert other.known_sha256() == other.model.variant.local_demo.sha256  # type: ignore[union-attr]


# -- scheduling --------------------------------------------------------------------------------


def _pair(ws: Workspace) -> list[Contestant]:
    return build_contestants(ws.resolver, ["smollm2", "gemma3"], load=LoadSettings(n_ctx=512))


def test_parallel_mode_is_refused_with_the_numbers_when_the_models_do_not_fit(
    ws: Workspace,
) -> None:
    profile = tiny(load_profile(list_profiles()[0]), 600 << 20)
    check = check_parallel(_pair(ws), profile)
    assert not check.fits
    assert check.ram_needed > check.ram_usable
    assert [n.name for n in check.needs] == [c.display_name for c in _pair(ws)]
    assert all(n.ram_bytes > 100 << 20 for n in check.needs)
    with pytest.raises(CompareError) as info:
        require_parallel(_pair(ws), profile)
    assert info.value.kind == "compare.no_room"
    message = info.value.message
    assert "600 MiB is available" in message
    assert "fair mode" in message
    assert "SmolLM2 135M Instruct Q4_1" in message


def test_parallel_mode_is_allowed_here_and_on_the_smallest_what_if_profile(
    ws: Workspace,
) -> None:
    here, _ = ws.profile()
    assert require_parallel(_pair(ws), here).fits
    smallest = min(
        (load_profile(name) for name in list_profiles()), key=lambda pr: pr.memory.total_bytes
    )
    assert check_parallel(_pair(ws), smallest).fits  # two small demo models fit in 8 GB


def test_parallel_mode_counts_vram_per_gpu(ws: Workspace) -> None:
    gpu = load_profile("rtx-3060-12gb")
    contestants = build_contestants(
        ws.resolver, ["smollm2", "gemma3"], load=LoadSettings(n_ctx=512, n_gpu_layers=-1)
    )
    check = check_parallel(contestants, gpu)
    assert check.fits
    assert check.vram_needed[0] > 0
    full = dataclasses.replace(
        gpu, gpus=(dataclasses.replace(gpu.gpus[0], memory_free_bytes=300 << 20),)
    )
    refused = check_parallel(contestants, full)
    assert not refused.fits
    assert "GPU 0 needs" in refused.explain()


def test_side_by_side_contestants_share_the_cores(ws: Workspace) -> None:
    here, _ = ws.profile()
    cores = here.cpu.physical_cores
    contestants = _pair(ws)
    assert parallel_threads(contestants, here) == [max(1, cores // 2)] * 2
    fixed = [dataclasses.replace(contestants[0], load=LoadSettings(n_threads=1)), contestants[1]]
    assert parallel_threads(fixed, here) == [1, max(1, cores - 1)]
