"""Metrics: hand-computed timelines in, the one definition of each number out."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.core.engine import GenerationMetrics, MemorySample, RunReport, error_pct, mean_sd
from desktop.core.engine.metrics import (
    LIVE_WINDOW_S,
    GenerationMeter,
    MemoryPhases,
    generation_tokens_per_s,
)
from tests.fixtures.contracts import RUN_JSON_KEYS


def meter_with(arrivals: list[tuple[float, int]], sent: float | None = None) -> GenerationMeter:
    meter = GenerationMeter()
    if sent is not None:
        meter.record_sent(sent)
    for t, n in arrivals:
        meter.record_tokens(t, n)
    return meter


def test_generation_tokens_per_s_is_n_minus_one_over_span() -> None:
    assert generation_tokens_per_s(5, 1.0, 3.0) == pytest.approx(2.0)
    assert generation_tokens_per_s(101, 10.0, 12.5) == pytest.approx(40.0)


@pytest.mark.parametrize(("n", "t_first", "t_last"), [(0, 1.0, 2.0), (1, 1.0, 2.0), (5, 2.0, 2.0)])
def test_generation_tokens_per_s_undefined(n: int, t_first: float, t_last: float) -> None:
    assert generation_tokens_per_s(n, t_first, t_last) is None


def test_ttft_is_sent_to_first_token_in_ms() -> None:
    metrics = meter_with([(100.25, 1), (100.5, 1)], sent=100.0).finish()
    assert metrics.ttft_ms == pytest.approx(250.0)
    assert metrics.t_first == 100.25
    assert metrics.t_last == 100.5


def test_ttft_unknown_without_send_or_tokens() -> None:
    assert meter_with([(1.0, 1)]).finish().ttft_ms is None
    assert meter_with([], sent=1.0).finish().ttft_ms is None


def test_batched_arrivals_count_every_token_at_their_batch_time() -> None:
    # 3 tokens at 1.0, 2 at 1.5, 5 at 3.0: n = 10 over 2 s -> (10 - 1) / 2 = 4.5 tokens/s
    metrics = meter_with([(1.0, 3), (1.5, 2), (3.0, 5)], sent=0.5).finish()
    assert metrics.generated_tokens == 10
    assert metrics.tokens_per_s == pytest.approx(4.5)
    assert metrics.ttft_ms == pytest.approx(500.0)
    assert metrics.generation_s == pytest.approx(2.0)


def test_single_batch_has_no_rate() -> None:
    metrics = meter_with([(2.0, 7)], sent=1.0).finish()
    assert metrics.generated_tokens == 7
    assert metrics.tokens_per_s is None
    assert metrics.per_second == ()


def test_empty_and_negative_batches() -> None:
    meter = meter_with([(1.0, 1), (1.2, 0), (2.0, 1)])
    assert meter.finish().generated_tokens == 2
    assert meter.finish().tokens_per_s == pytest.approx(1.0)
    with pytest.raises(ValueError, match="negative"):
        meter.record_tokens(3.0, -1)


def test_prompt_rate_from_done_event() -> None:
    meter = meter_with([(1.0, 1)])
    meter.record_prompt(40, 0.5)
    metrics = meter.finish()
    assert metrics.prompt_tokens == 40
    assert metrics.prompt_tokens_per_s == pytest.approx(80.0)
    meter.record_prompt(0, 0.0)  # prompt fully cached: nothing evaluated
    assert meter.finish().prompt_tokens_per_s is None


def test_nothing_recorded() -> None:
    metrics = GenerationMeter().finish()
    assert metrics == GenerationMetrics(
        ttft_ms=None,
        prompt_tokens=0,
        prompt_tokens_per_s=None,
        generated_tokens=0,
        tokens_per_s=None,
        per_second=(),
        t_first=None,
        t_last=None,
    )


def test_live_window_counts_arrivals_in_the_last_window() -> None:
    meter = meter_with([(1.0, 3), (1.5, 2), (2.2, 4)])
    assert meter.live_tokens_per_s(0.5) is None  # before the first token
    assert meter.live_tokens_per_s(1.0) == pytest.approx(3.0)  # (0.0, 1.0] holds the first 3
    assert meter.live_tokens_per_s(2.0) == pytest.approx(2.0)  # (1.0, 2.0] holds only 1.5
    assert meter.live_tokens_per_s(2.2) == pytest.approx(6.0)  # (1.2, 2.2]: 2 + 4
    assert meter.live_tokens_per_s(2.2, window_s=0.5) == pytest.approx(8.0)  # 4 / 0.5
    assert meter.live_tokens_per_s(5.0) == pytest.approx(0.0)  # the stream went quiet
    with pytest.raises(ValueError, match="window"):
        meter.live_tokens_per_s(2.0, window_s=0.0)


def test_live_is_none_before_any_token() -> None:
    assert GenerationMeter().live_tokens_per_s(10.0) is None


def test_the_live_rate_is_the_rate_so_far_for_a_second_then_the_last_second() -> None:
    meter = meter_with([(10.0, 1)])
    assert meter.live_rate(10.5) is None  # one token starts the clock: no rate yet
    meter.record_tokens(10.4, 2)
    meter.record_tokens(10.8, 4)
    # Within a second of the first token the window is not full: the rate so far, (7 - 1) / 0.8.
    assert meter.live_rate(10.9) == pytest.approx(7.5)
    assert meter.live_rate(10.9) == meter.finish().tokens_per_s
    # From then on the tokens of the last second: (10.2, 11.2] holds 2 + 4.
    assert meter.live_rate(11.2) == pytest.approx(6.0)
    assert meter.live_rate(11.2) == meter.live_tokens_per_s(11.2, LIVE_WINDOW_S)
    assert meter.live_rate(13.0) == pytest.approx(0.0)  # quiet for a second: nothing comes
    assert meter.batches == 3


def test_per_second_series_whole_seconds_right_closed() -> None:
    # first token at 10.0 starts the clock; bins (10, 11], (11, 12]; 12.7 is a partial second.
    arrivals = [(10.0, 1), (10.5, 2), (11.0, 1), (11.25, 3), (12.0, 2), (12.7, 5)]
    assert meter_with(arrivals).finish().per_second == (3.0, 5.0)


def test_per_second_first_batch_counts_all_but_the_first_token() -> None:
    # 4 tokens in the first batch: 3 of them count in second 0, like (n - 1) does.
    assert meter_with([(0.0, 4), (0.5, 1), (1.0, 1), (2.0, 2)]).finish().per_second == (5.0, 2.0)


def test_per_second_survives_float_differences() -> None:
    # 11.3 - 10.3 == 1.0000000000000009: the token still belongs to the first second.
    metrics = meter_with([(10.3, 1), (10.8, 1), (11.3, 1), (12.3, 1)]).finish()
    assert metrics.per_second == (2.0, 1.0)
    assert metrics.live_series == metrics.per_second


def test_steady_stream_reads_the_same_rate_every_second() -> None:
    arrivals = [(i * 0.1, 1) for i in range(31)]  # 10 tokens/s for 3 s
    metrics = meter_with(arrivals).finish()
    assert metrics.per_second == (10.0, 10.0, 10.0)
    assert sum(metrics.per_second) == metrics.generated_tokens - 1
    assert metrics.tokens_per_s == pytest.approx(10.0)


def test_memory_phases_pick_samples_around_the_markers() -> None:
    phases = MemoryPhases()
    phases.add(MemorySample(0.5, 900))  # during load (mmap spike): not a phase, not the peak
    phases.record_load_done(1.0)
    phases.add(MemorySample(1.2, 200))
    phases.add(MemorySample(1.4, 210))
    phases.record_first_token(1.5)
    phases.add(MemorySample(1.6, 260, 50))
    phases.add(MemorySample(2.0, 300, 70))
    phases.add(MemorySample(2.5, 280, 60))
    phases.record_generation_done(2.6)
    phases.add(MemorySample(3.0, 500, 90))  # after the run: not the peak
    assert phases.after_load == 200
    assert phases.after_first_token == 260
    assert phases.peak == 300
    assert phases.peak_vram == 70


def test_memory_samples_out_of_order_and_at_the_marker() -> None:
    phases = MemoryPhases()
    phases.record_load_done(1.0)
    phases.record_first_token(2.0)
    phases.add(MemorySample(2.5, 400))
    phases.add(MemorySample(2.0, 350))  # exactly at the first token
    phases.add(MemorySample(1.0, 100))  # exactly at load done
    assert phases.after_load == 100
    assert phases.after_first_token == 350
    assert phases.peak == 400
    assert phases.peak_vram is None
    assert [s.t for s in phases.samples] == [1.0, 2.0, 2.5]


def test_memory_phases_without_markers() -> None:
    phases = MemoryPhases()
    assert phases.peak is None
    phases.add(MemorySample(1.0, 10))
    phases.add(MemorySample(2.0, 30))
    assert phases.after_load is None
    assert phases.after_first_token is None
    assert phases.peak == 30


def test_error_pct_sign_and_unknowns() -> None:
    assert error_pct(110, 100) == pytest.approx(10.0)  # estimate too high: positive
    assert error_pct(90, 100) == pytest.approx(-10.0)  # estimate too low: negative
    assert error_pct(None, 100) is None
    assert error_pct(100, None) is None
    assert error_pct(100, 0) is None


def test_mean_sd_uses_the_sample_deviation() -> None:
    mean, sd = mean_sd([2, 4, 4, 4, 5, 5, 7, 9])
    assert mean == pytest.approx(5.0)
    assert sd == pytest.approx(math.sqrt(32 / 7))
    assert mean_sd([3.0]) == (3.0, 0.0)
    with pytest.raises(ValueError, match="at least one"):
        mean_sd([])


def test_run_report_json_keys_and_values() -> None:
    meter = meter_with([(1.5, 1), (2.0, 2), (3.5, 3)], sent=1.0)
    meter.record_prompt(12, 0.25)
    phases = MemoryPhases()
    phases.record_load_done(0.9)
    phases.add(MemorySample(0.95, 1000))
    phases.record_first_token(1.5)
    phases.add(MemorySample(1.6, 1200, 300))
    phases.add(MemorySample(2.5, 1250, 320))
    report = RunReport.build(
        "Paris.",
        meter.finish(),
        phases,
        load_ms=420.0,
        predicted_ram_bytes=1000,
        predicted_vram_bytes=400,
    )
    data = report.to_dict()
    assert set(data) == RUN_JSON_KEYS
    assert data["text"] == "Paris."
    assert data["ttft_ms"] == pytest.approx(500.0)
    assert data["prompt_tokens"] == 12
    assert data["prompt_tokens_per_s"] == pytest.approx(48.0)
    assert data["generated_tokens"] == 6
    assert data["tokens_per_s"] == pytest.approx(2.5)  # (6 - 1) / 2.0
    assert data["load_ms"] == 420.0
    assert data["rss_after_load_bytes"] == 1000
    assert data["rss_after_first_token_bytes"] == 1200
    assert data["rss_peak_bytes"] == 1250
    assert data["vram_peak_bytes"] == 320
    assert data["predicted_ram_bytes"] == 1000
    assert data["predicted_vram_bytes"] == 400
    assert data["ram_error_pct"] == pytest.approx(-20.0)
    assert report.vram_error_pct == pytest.approx(25.0)
    assert data["per_second_tokens_per_s"] == [2.0, 3.0]  # (1.5, 2.5] and (2.5, 3.5]
    assert json.loads(json.dumps(data)) == data


def test_run_report_without_measurements_serialises_nulls() -> None:
    data = RunReport("", GenerationMeter().finish()).to_dict()
    assert data["ram_error_pct"] is None
    assert data["rss_peak_bytes"] is None
    assert data["per_second_tokens_per_s"] == []
    assert json.loads(json.dumps(data)) == data


@st.composite
def batched_streams(draw: st.DrawFn) -> tuple[list[tuple[float, int]], list[tuple[float, int]]]:
    """A stream of batches and the same stream with each batch split into smaller batches."""
    gaps = draw(st.lists(st.floats(0.0, 2.0, allow_nan=False), min_size=1, max_size=30))
    t = 100.0
    original: list[tuple[float, int]] = []
    split: list[tuple[float, int]] = []
    for gap in gaps:
        t += gap
        n = draw(st.integers(1, 12))
        original.append((t, n))
        left = n
        while left:
            part = draw(st.integers(1, left))
            split.append((t, part))
            left -= part
    order = draw(st.permutations(range(len(split))))
    return original, [split[i] for i in order]


@given(batched_streams())
def test_rates_are_invariant_to_splitting_batches(
    streams: tuple[list[tuple[float, int]], list[tuple[float, int]]],
) -> None:
    original, split = streams
    a = meter_with(original, sent=99.0)
    b = meter_with(split, sent=99.0)
    ma, mb = a.finish(), b.finish()
    assert ma.generated_tokens == mb.generated_tokens
    assert (ma.t_first, ma.t_last) == (mb.t_first, mb.t_last)
    assert ma.tokens_per_s == mb.tokens_per_s
    assert ma.ttft_ms == mb.ttft_ms
    assert ma.per_second == mb.per_second
    assert ma.t_last is not None
    assert a.live_tokens_per_s(ma.t_last) == b.live_tokens_per_s(ma.t_last)


def test_live_window_is_the_same_for_batches_out_of_order() -> None:
    # One reader thread delivers batches in order; a late one (earlier time) still counts.
    in_order = meter_with([(1.0, 3), (1.5, 2), (2.2, 4)])
    shuffled = meter_with([(1.0, 3), (2.2, 4), (1.5, 2)])
    for now in (1.0, 1.5, 2.0, 2.2, 2.4, 2.6, 5.0):
        assert shuffled.live_tokens_per_s(now) == pytest.approx(in_order.live_tokens_per_s(now))


def test_live_window_over_a_long_answer_matches_counting_every_batch() -> None:
    arrivals = [(10.0 + 0.04 * i, 1 + i % 3) for i in range(3000)]  # 2 minutes of batches
    meter = meter_with(arrivals)
    for now in (10.0, 10.5, 37.03, 60.0, 129.96, 130.5, 131.5):
        counted = sum(n for t, n in arrivals if now - 1.0 < t <= now)
        assert meter.live_tokens_per_s(now) == pytest.approx(counted)
