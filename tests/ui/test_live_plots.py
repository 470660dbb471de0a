"""LivePlots: the phases' bands on the time axis of a long chat (real widgets, offscreen)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.ui.widgets.live_plots import MAX_PHASES, WINDOW_S, LivePlots


def test_bands_that_left_the_time_axis_are_no_longer_drawn(qtbot: QtBot) -> None:
    plots = LivePlots()
    qtbot.addWidget(plots)
    plots.resize(600, 400)
    plots.show()
    plots.start_clock(0.0)
    plots.begin_phase("load", 0.0)
    plots.end_phase(2.0)
    # Forty answers, one every 10 s: a prompt band, then a generation band.
    for answer in range(40):
        t = 10.0 + 10.0 * answer
        plots.begin_phase("prompt", t)
        plots.begin_phase("generation", t + 0.5)
        plots.end_phase(t + 4.0)
        plots.refresh(t + 4.0)
    now = 10.0 + 10.0 * 39 + 4.0
    left = now + 1.0 - WINDOW_S  # the axis shows the last minute (moving on in 5 s steps)
    assert len(plots.phases) == MAX_PHASES  # the newest bands are remembered...
    for bands in plots.bands:
        spans = bands.spans
        # ...only those reaching into the last minute are drawn: 6 answers, 2 bands each.
        assert 10 <= len(spans) <= 14
        assert all(end > left - 5.0 for _start, end in spans)
        assert spans[-1] == (now - 4.0 + 0.5, now)
