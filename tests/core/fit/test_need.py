"""One figure a person can act on: "needs X of Y available", page cache apart."""

from __future__ import annotations

import pytest

from desktop import cli
from desktop.core.catalog import load_catalog
from desktop.core.fit import FitTarget, estimate
from desktop.core.fit.types import need_of
from desktop.core.hardware import probe

GIB = 1024**3


def test_need_of_shows_the_difference() -> None:
    assert need_of(5 * GIB, 22 * GIB) == "5.0 GiB of 22.0 GiB available"
    # 23.24 vs 23.19 GiB read the same at one decimal: two are used.
    assert need_of(int(23.24 * GIB), int(23.19 * GIB)) == "23.24 GiB of 23.19 GiB available"
    assert need_of(int(23.2004 * GIB), int(23.2001 * GIB)).startswith("23.200 GiB of")
    assert need_of(300 << 20, 900 << 20) == "300.0 MiB of 900.0 MiB available"


def test_page_cache_is_apart_from_what_must_fit(capsys: pytest.CaptureFixture[str]) -> None:
    model, variant = load_catalog().variant("qwen2.5-7b-instruct:Q4_K_M")
    result = estimate(FitTarget.from_variant(model, variant), probe(), n_ctx=4096, n_gpu_layers=0)
    # Q4_K weights are repacked on AVX2: the peak RSS holds both the copies and the mapped
    # pages; the mapped pages are droppable and not part of what must fit.
    assert result.page_cache_bytes > 1 * GIB
    assert result.ram_bytes - result.page_cache_bytes < result.ram_full_context_bytes
    assert result.need_text().startswith("needs ")
    assert result.to_dict()["page_cache_bytes"] == result.page_cache_bytes
    assert cli.main(["fit", "qwen2.5-7b-instruct:Q4_K_M", "--ngl", "0"]) == 0
    out = capsys.readouterr().out
    # The free RAM moves between two probes; what is needed does not.
    needed = result.need_text().split(" of ")[0]
    assert out.splitlines()[1].startswith(f"Verdict: runs on the CPU ({needed} of ")
    assert "page cache of the model file" in out
    assert "the OS can drop" in out
    # The table is what must fit: its total is the verdict's figure, the page cache apart.
    total = next(line for line in out.splitlines() if line.startswith("total "))
    assert total.split()[1] + " GiB" == needed.removeprefix("needs ")
    assert result.must_fit_bytes == result.ram_full_context_bytes == result.need_ram.total


def test_the_need_is_the_whole_contexts_on_a_shared_memory_pool() -> None:
    from desktop.core.hardware import load_profile

    model, variant = load_catalog().variant("qwen2.5-7b-instruct:Q4_K_M")
    profile = load_profile("jetson-orin-nano-8gb")
    result = estimate(FitTarget.from_variant(model, variant), profile, n_ctx=4096)
    assert result.unified_memory
    assert result.vram_bytes > 0
    # GPU and CPU draw on one pool: one figure against what the pool has, not "VRAM free".
    assert result.must_fit_bytes == result.need_ram.total + result.vram_bytes
    assert result.need_text() == "needs " + need_of(
        result.must_fit_bytes, result.ram_available_bytes
    )
    assert "VRAM" not in result.need_text()


def test_with_gpu_layers_the_need_names_both_memories() -> None:
    from desktop.core.hardware import load_profile

    model, variant = load_catalog().variant("qwen2.5-7b-instruct:Q4_K_M")
    profile = load_profile("rtx-3060-12gb")
    result = estimate(FitTarget.from_variant(model, variant), profile, n_ctx=4096)
    assert result.verdict == "gpu"
    text = result.need_text()
    assert text.startswith("needs ")
    assert " VRAM free and " in text
    assert text.endswith(" RAM available")


def test_awq_without_a_capable_nvidia_gpu_is_not_supported_here(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from desktop.core.hardware import load_profile

    model, variant = load_catalog().variant("qwen2.5-7b-instruct:AWQ")
    target = FitTarget.from_variant(model, variant)
    cpu_only = estimate(target, load_profile("laptop-16gb-cpu"), n_ctx=4096)
    assert cpu_only.verdict == "no"
    assert "compute capability 7.5" in cpu_only.unsupported
    assert cpu_only.summary_dict()["unsupported"] == cpu_only.unsupported
    nvidia = estimate(target, load_profile("rtx-3060-12gb"), n_ctx=4096)
    assert nvidia.verdict == "gpu"
    assert nvidia.unsupported == ""
    assert cli.main(["fit", "qwen2.5-7b-instruct:AWQ", "--profile", "laptop-16gb-cpu"]) == 0
    verdict_line = capsys.readouterr().out.splitlines()[1]
    assert verdict_line.startswith("Verdict: not supported here: AWQ models need an NVIDIA GPU")
    assert cli.main(["catalog", "--search", "qwen2.5-7b", "--profile", "laptop-16gb-cpu"]) == 0
    row = next(
        line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("qwen2.5-7b-instruct:AWQ")
    )
    assert "unsupported" in row.split()
