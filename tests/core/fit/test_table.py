"""The whole-catalog estimate: rows equal ``estimate()``, calls can be abandoned, errors per row.

:class:`CatalogEstimator` keeps per-target work between calls (the largest context that fits,
prefix sums); every row must still be exactly what a fresh :func:`estimate` returns, whatever
contexts came before. The fast helpers behind it (``fit_flags``, ``fits_at``, ``KvShape``) are
checked against the detailed formulas they shortcut.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from desktop.core.catalog import CatalogModel, Variant, load_catalog
from desktop.core.errors import Cancelled
from desktop.core.fit import CatalogEstimator, FitTarget, estimate
from desktop.core.fit import memory as fm
from desktop.core.fit.place import best_placement, fit_flags, fits_at, make_setup, place
from desktop.core.gguf import ModelArch, read_gguf
from desktop.core.hardware import HardwareProfile, load_profile
from desktop.core.kv_cache import CacheType
from desktop.core.library import ModelResolver

Triple = tuple[CatalogModel, Variant, FitTarget]
GIB = 1024**3
CONTEXTS = (131072, 512, 4096, 32768)  # the largest first: later calls reuse what it kept


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def triples(models_dir: Path) -> list[Triple]:
    catalog = load_catalog()
    return ModelResolver(catalog, models_dir=models_dir).fit_targets(catalog.variants())


def two_gpus() -> HardwareProfile:
    """An RTX 3060 box with a second, smaller card: layers split over two devices."""
    profile = load_profile("rtx-3060-12gb")
    small = replace(profile.gpus[0], memory_free_bytes=5 * GIB)
    return replace(profile, gpus=(profile.gpus[0], small))


PROFILES = {
    "rtx-4090-24gb": lambda: load_profile("rtx-4090-24gb"),
    "jetson-orin-nano-8gb": lambda: load_profile("jetson-orin-nano-8gb"),  # unified memory
    "laptop-16gb-cpu": lambda: load_profile("laptop-16gb-cpu"),
    "two-gpus": two_gpus,
}


def assert_rows_match(
    estimator: CatalogEstimator,
    triples: list[Triple],
    profile: HardwareProfile,
    cache_type: CacheType,
    models_dir: Path,
) -> None:
    for n_ctx in CONTEXTS:
        rows = estimator.estimate(n_ctx)
        assert len(rows) == len(triples)
        for (model, variant, target), row in zip(triples, rows, strict=True):
            assert (row.model, row.variant, row.target) == (model, variant, target)
            expected = estimate(
                target, profile, n_ctx=n_ctx, cache_type=cache_type, models_dir=models_dir
            )
            assert row.error is None
            assert row.result == expected, (target.label, n_ctx)


@pytest.mark.parametrize(
    ("profile_name", "cache_type"),
    [
        ("rtx-4090-24gb", "f16"),
        ("rtx-4090-24gb", "q8_0"),
        ("rtx-4090-24gb", "q4_0"),
        ("jetson-orin-nano-8gb", "f16"),
        ("jetson-orin-nano-8gb", "q4_0"),
        ("laptop-16gb-cpu", "f16"),
        ("two-gpus", "q8_0"),
    ],
)
def test_rows_equal_estimate_for_every_variant(
    triples: list[Triple], models_dir: Path, profile_name: str, cache_type: CacheType
) -> None:
    profile = PROFILES[profile_name]()
    estimator = CatalogEstimator(triples, profile, models_dir=models_dir, cache_type=cache_type)
    assert_rows_match(estimator, triples, profile, cache_type, models_dir)


def test_rows_of_real_headers_equal_estimate(
    triples: list[Triple], models_dir: Path, smollm2_path: Path, gemma3_path: Path
) -> None:
    """Exact headers: uneven layers, tied embeddings, Gemma 3's interleaved sliding window."""
    model, variant, _target = triples[0]
    headers = [FitTarget.from_gguf(read_gguf(p)) for p in (smollm2_path, gemma3_path)]
    rows = [(model, variant, target) for target in headers]
    for name in ("rtx-4090-24gb", "jetson-orin-nano-8gb", "laptop-16gb-cpu"):
        profile = PROFILES[name]()
        for cache_type in ("f16", "q8_0"):
            estimator = CatalogEstimator(
                rows, profile, models_dir=models_dir, cache_type=cache_type
            )
            assert_rows_match(estimator, rows, profile, cache_type, models_dir)


def test_a_moving_slider_gets_the_same_rows_as_fresh_estimators(
    triples: list[Triple], models_dir: Path
) -> None:
    profile = load_profile("rtx-4090-24gb")
    kept = CatalogEstimator(triples, profile, models_dir=models_dir)
    for n_ctx in (2048, 65536, 2048, 1000, 8192, 1):
        fresh = CatalogEstimator(triples, profile, models_dir=models_dir)
        assert kept.estimate(n_ctx) == fresh.estimate(n_ctx)


def test_should_stop_abandons_and_a_later_call_still_works(
    triples: list[Triple], models_dir: Path
) -> None:
    profile = load_profile("rtx-4090-24gb")
    estimator = CatalogEstimator(triples, profile, models_dir=models_dir)
    asked = 0

    def stop_after_ten() -> bool:
        nonlocal asked
        asked += 1
        return asked > 10

    with pytest.raises(Cancelled):
        estimator.estimate(4096, should_stop=stop_after_ten)
    assert asked == 11  # checked before every row, and nothing after the stop
    with pytest.raises(Cancelled):
        estimator.estimate(8192, should_stop=lambda: True)

    rows = estimator.estimate(4096, should_stop=lambda: False)
    assert len(rows) == len(triples)
    for (_m, _v, target), row in zip(triples, rows, strict=True):
        assert row.result == estimate(target, profile, n_ctx=4096, models_dir=models_dir)
    assert estimator.estimate(4096) == CatalogEstimator(
        triples, profile, models_dir=models_dir
    ).estimate(4096)


def test_a_row_the_estimator_cannot_place_carries_its_error(
    triples: list[Triple], models_dir: Path
) -> None:
    model, variant, target = triples[0]
    empty = replace(target, arch=replace(target.arch, n_layers=0, n_head_kv=()), layer_bytes=())
    rows_in = [triples[0], (model, variant, empty), triples[1]]
    profile = load_profile("rtx-4090-24gb")
    estimator = CatalogEstimator(rows_in, profile, models_dir=models_dir)

    first, broken, last = estimator.estimate(4096)
    assert broken.result is None
    assert broken.error == f"{empty.label} has no layers to place."
    assert not broken.fits
    assert broken.to_dict()["fit"] is None
    assert first.result == estimate(target, profile, n_ctx=4096, models_dir=models_dir)
    assert last.error is None
    assert last.result is not None

    # A context the estimator refuses: every row says why, as estimate() would.
    for row in estimator.estimate(0):
        assert row.result is None
        assert row.error == "The context length must be at least 1, not 0."


def test_estimate_one_is_the_row_of_estimate(triples: list[Triple], models_dir: Path) -> None:
    profile = load_profile("jetson-orin-nano-8gb")
    estimator = CatalogEstimator(triples, profile, models_dir=models_dir)
    rows = estimator.estimate(16384)
    for index in (0, len(triples) // 2, len(triples) - 1):
        assert estimator.estimate_one(index, 16384) == rows[index]
    with pytest.raises(Cancelled):
        estimator.estimate_one(0, 16384, should_stop=lambda: True)


# -- the shortcuts against the formulas they stand for ---------------------------------------


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
def test_fit_flags_and_fits_at_agree_with_placements(
    triples: list[Triple], profile_name: str
) -> None:
    profile = PROFILES[profile_name]()
    for _model, _variant, target in triples[::3]:
        if target.format != "gguf":
            continue
        n_layers = target.arch.n_layers
        modes: tuple[tuple[CacheType, bool], ...] = (("f16", False), ("q4_0", True))
        for cache_type, flash_attn in modes:
            setup = make_setup(
                target, profile, cache_type, flash_attn=flash_attn, swa_full=True, prompt_tokens=128
            )
            for n_ctx in (1, 300, 4096, 40000, 131072):
                assert fits_at(setup, n_ctx) == best_placement(setup, n_ctx).fits
                for ngl in (0, 1, n_layers // 2, n_layers - 1, n_layers, n_layers + 5):
                    for offload in (False, True):
                        placed = place(setup, n_ctx, ngl, offload)
                        flags = fit_flags(setup, n_ctx, ngl, offload)
                        assert flags == (placed.fits_ram, placed.fits_vram), (target.label, ngl)


def _arch(**values: object) -> ModelArch:
    base: dict[str, object] = {
        "architecture": "test",
        "n_params": 1_000_000_000,
        "n_layers": 6,
        "n_embd": 1024,
        "n_head": 16,
        "n_head_kv": (4, 4, 0, 8, 4, 0),
        "head_dim_k": 64,
        "head_dim_v": 64,
        "n_ctx_train": 32768,
        "n_vocab": 32000,
    }
    base.update(values)
    return ModelArch(**base)  # type: ignore[arg-type]


KV_ARCHS = {
    "mixed heads": _arch(),
    "recurrent state": _arch(ssm_state_bytes=(0, 0, 70_000, 0, 0, 123_456)),
    "interleaved window": _arch(
        sliding_window=1000, swa_layers=(True, True, False, True, True, False)
    ),
    "window only": _arch(n_head_kv=(4,) * 6, sliding_window=4096, swa_layers=(True,) * 6),
    "mla": _arch(kv_lora_rank=512, n_rot=64, n_head_kv=(16,) * 6),
    "no attention": _arch(n_head_kv=(0,) * 6, ssm_state_bytes=(1000,) * 6),
}


@pytest.mark.parametrize("name", sorted(KV_ARCHS))
def test_kv_shape_sums_equal_the_per_layer_formula(name: str) -> None:
    arch = KV_ARCHS[name]
    for cache_type in ("f16", "q8_0", "q4_0"):
        for swa_full in (True, False):
            shape = fm.kv_shape(arch, cache_type, swa_full=swa_full)
            for n_ctx in (1, 256, 257, 1500, 5000, 100000):
                per_layer = fm.kv_bytes_per_layer(arch, n_ctx, cache_type, swa_full=swa_full)
                assert shape.max_cells(n_ctx) == fm.max_kv_cells(arch, n_ctx, swa_full=swa_full)
                for start in range(arch.n_layers + 1):
                    for stop in range(start, arch.n_layers + 1):
                        expected = sum(per_layer[start:stop])
                        assert shape.range_bytes(n_ctx, start, stop) == expected
