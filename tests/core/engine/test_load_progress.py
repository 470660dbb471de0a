"""Load progress: llama.cpp's progress callback reaches the client as ``load_progress`` events.

The throttle is checked alone with a hand-moved clock; everything else runs real workers loading
the two demo models. After every test no child process is left.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from desktop.core.engine import EngineClient
from desktop.core.engine import protocol as p
from desktop.core.engine.worker_support import ProgressThrottle

TIMEOUT = 180.0


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    yield
    left = [c for c in psutil.Process().children(recursive=True) if c.pid not in before]
    assert not left, f"processes left behind: {left}"


# --------------------------------------------------------------------------- the throttle


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _throttle() -> tuple[ProgressThrottle, list[float], Clock]:
    sent: list[float] = []
    clock = Clock()
    return ProgressThrottle(sent.append, clock=clock), sent, clock


def test_the_first_fraction_goes_out_then_only_steps_of_two_points() -> None:
    throttle, sent, _clock = _throttle()
    for i in range(1001):  # llama.cpp: one call per tensor, all within a millisecond
        throttle.update(i / 1000)
    assert sent[0] == 0.0
    assert sent[-1] == 1.0
    assert all(b - a >= 0.02 - 1e-9 for a, b in itertools.pairwise(sent[:-1]))
    assert len(sent) <= 52


def test_a_slow_load_reports_small_steps_every_50_ms() -> None:
    throttle, sent, clock = _throttle()
    throttle.update(0.10)
    throttle.update(0.105)
    clock.now += 0.049
    throttle.update(0.106)
    assert sent == [0.10]
    clock.now += 0.002
    throttle.update(0.107)
    assert sent == [0.10, 0.107]
    clock.now += 1.0
    throttle.update(0.107)  # no news, nothing sent
    assert sent == [0.10, 0.107]


def test_fractions_never_go_back_or_leave_0_to_1_and_1_is_sent_once() -> None:
    throttle, sent, clock = _throttle()
    throttle.update(0.5)
    clock.now += 1.0
    throttle.update(0.3)
    throttle.update(float("nan"))
    throttle.update(-1.0)
    throttle.update(0.999)
    throttle.update(1.2)
    throttle.finish()
    throttle.update(1.0)
    assert sent == [0.5, 0.999, 1.0]
    throttle, sent, clock = _throttle()
    throttle.finish()  # a load llama.cpp never reported on still ends at 1.0
    assert sent == [1.0]


# --------------------------------------------------------------------------- real workers


@pytest.mark.e2e
@pytest.mark.parametrize("model", ["smollm2", "gemma3"])
def test_a_load_reports_rising_fractions_ending_at_1_before_loaded(
    model: str, smollm2_path: Path, gemma3_path: Path
) -> None:
    path = smollm2_path if model == "smollm2" else gemma3_path
    seen: list[p.Event] = []
    client = EngineClient(on_event=seen.append)
    client.start()
    try:
        request = client.load(path, n_ctx=256)
        assert request.load_fraction is None
        events = list(request.events(TIMEOUT))
        assert isinstance(events[-1], p.Loaded), events[-1]
        progress = events[:-1]
        assert progress
        assert all(isinstance(e, p.LoadProgress) and e.id == request.id for e in progress)
        fractions = [e.fraction for e in progress]  # type: ignore[union-attr]
        assert fractions == sorted(fractions)
        assert len(set(fractions)) == len(fractions)
        assert all(0.0 <= f <= 1.0 for f in fractions)
        assert fractions[-1] == 1.0
        assert fractions.count(1.0) == 1
        assert 2 <= len(fractions) <= 60  # throttled: llama.cpp calls back once per tensor
        assert request.load_fraction == 1.0
        # a second load reports again, from its own start
        again = client.load(path, n_ctx=256)
        assert isinstance(again.result(TIMEOUT), p.Loaded)
        assert again.load_fraction == 1.0
        # the callback saw the first load's events, in the same order (it runs after the request
        # got each one, so it is read once the reader thread has moved on to the second load)
        mine = [e for e in seen if getattr(e, "id", None) == request.id]
        assert mine == events
        assert any(isinstance(e, p.LoadProgress) and e.id == again.id for e in seen)
    finally:
        client.close()


@pytest.mark.e2e
def test_a_generation_stream_is_unaffected_by_load_progress(smollm2_path: Path) -> None:
    from desktop.core.engine.run import LoadSettings, Session

    with Session(smollm2_path, LoadSettings(n_ctx=256)) as session:
        loaded = session.open(TIMEOUT)
        assert isinstance(loaded, p.Loaded)
        request = session.generate(prompt="Hi", params=p.SamplingParams(max_tokens=4))
        chunks: list[str] = []
        done = session.stream(request, chunks.append)
        assert done.generated_tokens >= 1
        assert request.load_fraction is None  # a generation has no load progress


@pytest.mark.e2e
def test_cancelling_a_load_as_its_progress_starts_still_works(
    gemma3_path: Path, smollm2_path: Path
) -> None:
    client: EngineClient | None = None
    armed = threading.Event()
    cancelled: list[str] = []

    def on_event(event: p.Event) -> None:
        # On the reader thread, at a load's first fraction: as early as a user could click.
        if isinstance(event, p.LoadProgress) and armed.is_set() and event.id not in cancelled:
            cancelled.append(event.id)
            assert client is not None
            client.cancel(event.id)

    client = EngineClient(on_event=on_event)
    client.start()
    try:
        outcomes: list[str] = []
        armed.set()
        for _ in range(3):
            request = client.load(gemma3_path, n_ctx=512)
            events = list(request.events(TIMEOUT))
            assert request.id in cancelled, "no load_progress event came"
            end = events[-1]
            fractions = [e.fraction for e in events if isinstance(e, p.LoadProgress)]
            assert fractions == sorted(fractions)
            assert all(isinstance(e, p.LoadProgress) for e in events[:-1])
            if isinstance(end, p.Error):
                # cancelled inside llama.cpp's load: it stopped short of 1.0
                assert end.kind == "cancelled", end
                assert 1.0 not in fractions
                assert request.load_fraction == fractions[-1]
                outcomes.append("cancelled")
            else:
                # the weights were in before the cancel was read (a load of milliseconds)
                assert isinstance(end, p.Loaded), end
                assert fractions[-1] == 1.0
                outcomes.append("loaded")
        armed.clear()
        # the cancel lands within llama.cpp's load of the weights (tens of milliseconds here)
        assert "cancelled" in outcomes
        # whatever happened, the worker is usable and reports progress for the next load
        after = client.load(smollm2_path, n_ctx=256)
        assert isinstance(after.result(TIMEOUT), p.Loaded)
        assert after.load_fraction == 1.0
    finally:
        client.close()


@pytest.mark.e2e
def test_a_cancel_sent_with_the_load_ends_it_as_cancelled(gemma3_path: Path) -> None:
    client = EngineClient()
    client.start()
    try:
        busy = client.load(gemma3_path, n_ctx=256)  # keeps the worker busy
        request = client.load(gemma3_path, n_ctx=512)
        client.cancel(request.id)  # still queued: answered without loading
        assert isinstance(busy.result(TIMEOUT), p.Loaded)
        events = list(request.events(TIMEOUT))
        assert len(events) == 1
        assert isinstance(events[0], p.Error)
        assert events[0].kind == "cancelled"
        assert request.load_fraction is None
    finally:
        client.close()
