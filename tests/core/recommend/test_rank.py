"""Ranking the variants that fit: real fit estimates of real catalog shapes on what-if
profiles, fixture scores."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from desktop.core.catalog import Catalog
from desktop.core.fit import FIT_OK, FitRow
from desktop.core.recommend import (
    CANNOT_RUN,
    NOT_FITTING,
    PAST_CONTEXT,
    TOO_SLOW,
    MeasuredQuality,
    Pick,
    Recommendation,
    Recommender,
    dominated_by,
    pareto_front,
    quant_cost,
)
from tests.core.recommend.catalogs import fixture_catalog, record, rows_for

# Code scores that grow with the model, as published tables usually do (fixture values).
SIZES = {
    "qwen2.5-0.5b-instruct": 30.0,
    "qwen2.5-1.5b-instruct": 45.0,
    "qwen2.5-3b-instruct": 55.0,
    "qwen2.5-7b-instruct": 65.0,
    "qwen2.5-14b-instruct": 75.0,
    "qwen2.5-32b-instruct": 85.0,
    "qwen2.5-72b-instruct": 90.0,
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return fixture_catalog(
        {m: [record("humaneval", s, metric="pass@1")] for m, s in SIZES.items()},
        quants=("Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "AWQ"),
    )


def ranked(
    catalog: Catalog, profile: str, task: str = "code", n_ctx: int = 4096, **options: Any
) -> Recommendation:
    rows = rows_for(catalog, profile, n_ctx)
    return Recommender(catalog.models).recommend(rows, task, n_ctx, **options)


def test_a_bigger_model_at_a_good_quant_beats_a_smaller_one_when_both_fit(catalog: Catalog) -> None:
    rec = ranked(catalog, "a100-80gb")
    big = rec.pick("qwen2.5-32b-instruct:Q4_K_M")
    small = rec.pick("qwen2.5-7b-instruct:Q8_0")
    assert big is not None, "fits an 80 GB GPU"
    assert small is not None
    assert big.rank < small.rank
    assert big.quality is not None
    assert small.quality is not None
    assert big.quality > small.quality


def test_within_a_model_the_lighter_quant_ranks_below(catalog: Catalog) -> None:
    rec = ranked(catalog, "a100-80gb")
    order = [
        rec.pick(f"qwen2.5-14b-instruct:{q}")
        for q in ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M")
    ]
    assert all(p is not None for p in order)
    assert [p.rank for p in order if p] == sorted(p.rank for p in order if p)


def test_a_variant_that_does_not_fit_is_never_recommended(catalog: Catalog) -> None:
    rows = rows_for(catalog, "raspberry-pi-5-8gb")
    rec = Recommender(catalog.models).recommend(rows, "code", 4096, min_speed=None)
    not_fitting = {r.variant.id for r in rows if not r.fits}
    assert "qwen2.5-72b-instruct:Q4_K_M" in not_fitting
    assert rec.picks, "small models fit a Raspberry Pi"
    assert not not_fitting & {p.variant_id for p in rec.picks}
    assert all(p.fit.verdict in FIT_OK and not p.fit.unsupported for p in rec.picks)
    # Every row is either ranked or counted with its reason (AWQ: cannot run on a Pi at all).
    assert sum(rec.left_out.values()) == len(rows) - len(rec.picks)
    assert rec.left_out[NOT_FITTING] + rec.left_out[CANNOT_RUN] == len(not_fitting)


def test_a_jetson_and_an_rtx_4090_get_different_picks(catalog: Catalog) -> None:
    jetson = ranked(catalog, "jetson-orin-nano-8gb")
    rtx = ranked(catalog, "rtx-4090-24gb")
    assert jetson.picks
    assert rtx.picks
    assert jetson.picks[0].variant_id != rtx.picks[0].variant_id
    # The 4090's best is a bigger model than anything the 8 GB Jetson can hold.
    assert rtx.picks[0].model.n_params > max(p.model.n_params for p in jetson.picks)


def test_the_minimum_speed_leaves_slow_variants_out_and_counts_them(catalog: Catalog) -> None:
    everything = ranked(catalog, "rtx-4090-24gb", min_speed=None)
    speeds = sorted(p.tokens_per_s or 0.0 for p in everything.picks)
    floor = speeds[len(speeds) // 2]
    fast = ranked(catalog, "rtx-4090-24gb", min_speed=floor)
    assert fast.picks
    assert len(fast.picks) < len(everything.picks)
    assert all((p.tokens_per_s or 0.0) >= floor for p in fast.picks)
    assert fast.left_out[TOO_SLOW] == len(everything.picks) - len(fast.picks)


def test_a_context_past_the_trained_length_is_left_out(catalog: Catalog) -> None:
    rec = ranked(catalog, "a100-80gb", n_ctx=65536, min_speed=None)
    short = {m.id for m in catalog.models if m.context_length < 65536}
    assert short, "the small Qwen2.5 models were trained on 32k"
    assert not short & {p.model.id for p in rec.picks}
    assert rec.left_out[PAST_CONTEXT] > 0


def test_models_without_a_score_come_last_and_say_so() -> None:
    scores = {m: [record("humaneval", s, metric="pass@1")] for m, s in SIZES.items()}
    scores["gemma-3-1b-it"] = []
    catalog = fixture_catalog(scores, quants=("Q4_K_M",))
    rec = Recommender(catalog.models).recommend(rows_for(catalog, "a100-80gb"), "code", 4096)
    unscored = [p for p in rec.picks if p.quality is None]
    assert [p.model.id for p in unscored] == ["gemma-3-1b-it"]
    assert rec.picks[-1] is unscored[0]
    entry = unscored[0].to_dict()
    assert entry["quality"] is None
    assert entry["no_published_score"] is True
    assert not entry["pareto"]


def test_a_pick_carries_its_sources_and_quant_cost(catalog: Catalog) -> None:
    pick = ranked(catalog, "a100-80gb").pick("qwen2.5-14b-instruct:Q4_K_M")
    assert pick is not None
    entry = pick.to_dict()
    assert entry["variant"] == "qwen2.5-14b-instruct:Q4_K_M"
    assert entry["fits"] is True
    assert entry["sources"][0] == "https://example.org/fixture-table"
    assert "llama.cpp" in entry["sources"][1]
    assert "perplexity" in entry["sources"][1]
    cost = quant_cost("Q4_K_M")
    assert cost is not None
    assert entry["quality"] == pytest.approx(entry["task_score"] * cost.kept, abs=0.01)
    assert entry["tokens_per_s"] == pick.fit.tokens_per_s


def test_a_measured_cost_replaces_the_published_one_and_is_labelled(catalog: Catalog) -> None:
    variant = "qwen2.5-7b-instruct:Q4_K_M"
    plain = ranked(catalog, "a100-80gb").pick(variant)
    measured = ranked(
        catalog,
        "a100-80gb",
        measured={variant: MeasuredQuality(ppl_ratio=1.5, label="measured here")},
    ).pick(variant)
    assert plain is not None
    assert measured is not None
    assert measured.cost is not None
    assert measured.cost.measured_here
    assert measured.measured_label == "measured here"
    assert measured.quality == pytest.approx(
        (plain.task_score.score if plain.task_score else 0) / 1.5
    )
    assert measured.rank > plain.rank


def test_the_front_holds_exactly_the_picks_nothing_beats(catalog: Catalog) -> None:
    rec = ranked(catalog, "rtx-4090-24gb", min_speed=None)
    scored = rec.scored
    assert rec.front, "the best pick is always on the front"
    assert rec.picks[0].pareto
    for pick in scored:
        beaten = dominated_by(pick, scored)
        assert pick.pareto == (beaten is None), pick.variant_id
        if beaten is not None:
            assert beaten.quality is not None
            assert pick.quality is not None
            assert beaten.quality >= pick.quality
            assert (beaten.tokens_per_s or 0) >= (pick.tokens_per_s or 0)


def _pick(name: str, quality: float, speed: float, row: FitRow) -> Pick:
    """A pick at (quality, speed) named ``name``, on a real row's estimate."""
    assert row.result is not None
    fit = replace(row.result, tokens_per_s=speed)
    return Pick(0, row.model, replace(row.variant, id=name), fit, None, None, quality)


def test_pareto_front_on_hand_made_points(catalog: Catalog) -> None:
    points = {
        "a": (90.0, 10.0),
        "b": (80.0, 10.0),
        "c": (90.0, 5.0),
        "d": (60.0, 50.0),
        "e": (90.0, 10.0),
    }
    row = rows_for(catalog, "a100-80gb")[0]
    picks = [_pick(n, q, s, row) for n, (q, s) in points.items()]
    assert pareto_front(picks) == {"a", "e", "d"}
