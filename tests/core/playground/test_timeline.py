"""The Playground's timeline without Qt: bands end at the session's marks, a point per batch."""

from __future__ import annotations

from desktop.core.engine import protocol as p
from desktop.core.playground import (
    ACTIVE_TICK_MS,
    IDLE_TICK_MS,
    SPARING_TICK_MS,
    Drained,
    PaceNote,
    Phase,
    Timeline,
    drawing_pace,
)

DONE = p.Done("a1", "stop", prompt_tokens=3, generated_tokens=5)


def test_a_late_engine_event_does_not_end_the_next_band() -> None:
    """On a busy machine the ``loaded`` event of a load reached the feed after the next
    answer's ``prompt`` mark, closed the prompt band, and the answer's tokens found no band to
    turn into ``generation``: the plot showed load, prompt and nothing else."""
    timeline = Timeline()
    first = timeline.apply(Drained(marks=[("load", 1.0), ("loaded", 2.0)]))
    assert first.bands == [("load", 1.0), (None, 2.0)]
    loaded = p.Loaded(  # as the client hands it over to the feed: late
        "l1", 100.0, "m.gguf", "llama", "", 1, 1, 30, 2048, 2048, 100, 2, 2, 0, 0, False
    )
    timeline.start_answer()
    second = timeline.apply(
        Drained(
            marks=[("prompt", 2.5)],
            events=[(2.6, loaded)],
            tokens=[(2.9, 1), (2.94, 2), (2.98, 2)],
        )
    )
    assert second.bands == [("prompt", 2.5), ("generation", 2.9)]
    # The answer's own end: its mark, not its done event (which may come late too).
    third = timeline.apply(Drained(marks=[("done", 3.1)], events=[(3.2, DONE)]))
    assert third.bands == [(None, 3.1)]
    assert timeline.band is None


def test_the_speed_plot_gets_a_point_per_batch_however_often_it_is_drained() -> None:
    arrivals = [(10.0 + 0.04 * i, 2) for i in range(60)]  # 2.4 s of batches every 40 ms
    once = Timeline()
    meter = once.start_answer()
    at_once = once.apply(Drained(tokens=arrivals)).speed
    often = Timeline()
    often.start_answer()
    in_ticks = [point for a in arrivals for point in often.apply(Drained(tokens=[a])).speed]
    assert at_once == in_ticks  # drawn at 5 Hz or at 30 Hz: the same points, at the same times
    # Every batch but the first, which only starts the clock (the engine's definition).
    assert meter.batches == 60
    assert [t for t, _rate in at_once] == [t for t, _n in arrivals[1:]]
    # Each point is the engine's live tokens/s at that instant: 50 tokens/s, steady.
    assert at_once[-1][1] == meter.live_rate(arrivals[-1][0])
    assert round(at_once[-1][1]) == 50


def test_the_plots_draw_less_often_only_where_the_setting_says_so() -> None:
    # llama.cpp's 2 threads on a 2-CPU process: "auto" spares the CPUs while it answers.
    pace = drawing_pace("auto", 2, 2)
    assert pace.note is PaceNote.SPARING_EVERY_CPU
    assert pace.interval_ms(Phase.GENERATING) == SPARING_TICK_MS
    assert pace.interval_ms(Phase.LOADING) == ACTIVE_TICK_MS
    assert pace.interval_ms(Phase.READY) == IDLE_TICK_MS
    assert pace.interval_ms(Phase.EMPTY) is None
    assert pace.interval_ms(Phase.ERROR) is None
    # A CPU to spare: ~30 Hz, nothing to say.
    spare = drawing_pace("auto", 2, 3)
    assert (spare.interval_ms(Phase.GENERATING), spare.note) == (ACTIVE_TICK_MS, PaceNote.NONE)
    # "smooth" keeps ~30 Hz and warns; "light" spares anyway.
    smooth = drawing_pace("smooth", 2, 2)
    assert (smooth.interval_ms(Phase.GENERATING), smooth.note) == (
        ACTIVE_TICK_MS,
        PaceNote.EVERY_CPU,
    )
    light = drawing_pace("light", 1, 4)
    assert (light.interval_ms(Phase.GENERATING), light.note) == (SPARING_TICK_MS, PaceNote.SPARING)
    # A server's threads are not ours: nothing to spare, whatever the setting.
    remote = drawing_pace("light", None, 2)
    assert (remote.interval_ms(Phase.GENERATING), remote.note) == (ACTIVE_TICK_MS, PaceNote.NONE)
