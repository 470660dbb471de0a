"""The Recommended view and its Pareto chart, driven like a user: real widgets offscreen, the
real fit estimate of real catalog shapes, and (on the Models page) the bundled published
scores."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.catalog import Catalog
from desktop.core.fit import FIT_OK
from desktop.core.quality import LossResult, store_result
from desktop.core.recommend import Recommender
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.models import ModelsPage
from desktop.ui.widgets.pareto_chart import ParetoChart
from desktop.ui.widgets.recommend_view import PickCard, RecommendView
from tests.core.recommend.catalogs import fixture_catalog, record, rows_for
from tests.ui.test_models_page import choose_profile, wait_for

# Fixture scores: code grows with size; Chinese is best on the small models (so the two tasks
# disagree about the best pick).
SCORES = {
    "qwen2.5-0.5b-instruct": (30.0, 80.0),
    "qwen2.5-1.5b-instruct": (45.0, 70.0),
    "qwen2.5-3b-instruct": (55.0, 60.0),
    "qwen2.5-7b-instruct": (65.0, 50.0),
    "qwen2.5-14b-instruct": (75.0, 40.0),
}


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return fixture_catalog(
        {
            m: [
                record("humaneval", code, metric="pass@1"),
                record("c-eval", zh, source="https://example.org/chinese-table"),
            ]
            for m, (code, zh) in SCORES.items()
        },
        quants=("Q4_K_M", "Q8_0"),
    )


@pytest.fixture
def view(qtbot: QtBot, catalog: Catalog) -> RecommendView:
    widget = RecommendView(catalog)
    qtbot.addWidget(widget)
    widget.resize(900, 700)
    widget.show()
    qtbot.waitExposed(widget)
    widget.set_estimate(rows_for(catalog, "a100-80gb", 4096), 4096, "A100 80GB")
    return widget


def first_model(view: RecommendView) -> str:
    return view.cards[0].pick.model.id


def choose_task(qtbot: QtBot, view: RecommendView, task: str) -> None:
    """Pick a task in "Best for" with the keyboard, as a user would."""
    combo = view.best_for
    combo.setFocus()
    target = combo.findData(task)
    key = Qt.Key.Key_Down if target > combo.currentIndex() else Qt.Key.Key_Up
    while combo.currentIndex() != target:
        qtbot.keyClick(combo, key)


def test_choosing_the_task_changes_the_picks(qtbot: QtBot, view: RecommendView) -> None:
    choose_task(qtbot, view, "code")
    assert first_model(view) == "qwen2.5-14b-instruct"
    with qtbot.waitSignal(view.task_changed) as changed:
        choose_task(qtbot, view, "zh")
    assert changed.args == ["zh"]
    assert first_model(view) == "qwen2.5-0.5b-instruct"
    assert view.best_for.currentText() == "Chinese (中文)"
    assert "Chinese" in view.summary.text()


def test_a_pick_says_why_and_links_its_sources(qtbot: QtBot, view: RecommendView) -> None:
    choose_task(qtbot, view, "zh")
    card = view.cards[0]
    why = card.why.text()
    assert "C-Eval 80" in why
    assert "beats 100% of 4 other models" in why
    assert 'href="https://example.org/chinese-table"' in why
    assert "llama.cpp" in why
    assert "same top token" in why
    assert card.why.openExternalLinks()
    assert card.facts.text().startswith("quality ")
    assert "t/s" in card.facts.text()


def test_only_the_best_variant_of_each_model_is_listed(qtbot: QtBot, view: RecommendView) -> None:
    choose_task(qtbot, view, "code")
    models = [c.pick.model.id for c in view.cards]
    assert len(models) == len(set(models)) == len(SCORES)
    for card in view.cards:
        assert card.pick.fit.verdict in FIT_OK
        if card.pick.quality:  # (at 0 the quant changes nothing; the faster one comes first)
            assert card.pick.variant.quant == "Q8_0"  # both fit 80 GB: Q8_0 keeps more


def test_the_minimum_speed_filters_the_picks(qtbot: QtBot, view: RecommendView) -> None:
    choose_task(qtbot, view, "code")
    rec = view.recommendation
    assert rec is not None
    speeds = sorted(p.tokens_per_s or 0.0 for p in rec.picks)
    floor = speeds[len(speeds) // 2]
    view.min_speed.selectAll()
    qtbot.keyClicks(view.min_speed, f"{floor:.0f}")
    qtbot.keyClick(view.min_speed, Qt.Key.Key_Enter)
    after = view.recommendation
    assert after is not None
    assert 0 < len(after.picks) < len(rec.picks)
    assert all((p.tokens_per_s or 0.0) >= round(floor) for p in after.picks)


def test_clicking_a_pick_asks_for_its_variant(qtbot: QtBot, view: RecommendView) -> None:
    card = view.cards[1]
    with qtbot.waitSignal(view.variant_selected) as selected:
        qtbot.mouseClick(card, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    assert selected.args == [card.pick.variant_id]


def test_the_chart_draws_the_front(qtbot: QtBot, view: RecommendView) -> None:
    choose_task(qtbot, view, "code")
    chart = view.chart
    rec = view.recommendation
    assert rec is not None
    assert {p.variant_id for p in chart.picks} == {p.variant_id for p in rec.scored}
    front = [p for p in chart.picks if p.pareto]
    assert front
    assert len(front) < len(chart.picks)
    xs, ys = chart.front_line.getData()
    assert len(xs) == len(front)
    assert sorted(ys) == sorted(p.quality or 0.0 for p in front)
    assert str(len(chart.picks)) in chart.caption.text()


def hover(widget: QWidget, pos: QPoint) -> None:
    """The pointer moves over ``widget`` to ``pos`` (no button down): the event a mouse makes.
    QTest's mouseMove only moves the cursor, which the offscreen platform does not turn into
    events."""
    local = QPointF(pos)
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        local,
        QPointF(widget.mapToGlobal(pos)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)


def names(chart: ParetoChart, pos: QPoint, expected: str) -> bool:
    """Move the pointer to ``pos`` over the chart; True once the chart names ``expected``."""
    hover(chart.plot.viewport(), pos)
    return chart.hovered == expected


def test_hovering_a_point_names_it(qtbot: QtBot, view: RecommendView) -> None:
    choose_task(qtbot, view, "code")
    chart = view.chart
    target = next(p for p in chart.picks if not p.pareto)
    where = chart.point_position(target.variant_id)
    assert where is not None
    # pyqtgraph drops moves that follow each other too fast: the pointer keeps moving (the
    # events repeat) until the chart reacts, as a real one does.
    qtbot.waitUntil(lambda: names(chart, where.toPoint(), target.variant_id), timeout=5000)
    assert chart.label.isVisible()
    assert target.variant_id in chart.label.textItem.toPlainText()
    qtbot.waitUntil(lambda: names(chart, QPoint(2, 2), ""), timeout=5000)
    assert not chart.label.isVisible()


def test_clicking_a_point_asks_for_its_variant(qtbot: QtBot, view: RecommendView) -> None:
    choose_task(qtbot, view, "code")
    chart = view.chart
    target = chart.picks[0]
    where = chart.point_position(target.variant_id)
    assert where is not None
    with qtbot.waitSignal(chart.variant_clicked) as clicked:
        qtbot.mouseClick(chart.plot.viewport(), Qt.MouseButton.LeftButton, pos=where.toPoint())
    assert clicked.args == [target.variant_id]


def test_nothing_fitting_says_so(qtbot: QtBot, catalog: Catalog) -> None:
    widget = RecommendView(catalog)
    qtbot.addWidget(widget)
    assert "Waiting" in widget.summary.text()
    widget.min_speed.setValue(100000)
    widget.set_estimate(rows_for(catalog, "raspberry-pi-5-8gb", 4096), 4096, "Pi")
    assert widget.cards == []
    assert "Nothing fits Pi" in widget.summary.text()
    assert "No variant" in widget.chart.caption.text()


# --- on the Models page, with the bundled published scores ------------------------------------


@pytest.fixture
def page(qtbot: QtBot, window: MainWindow) -> ModelsPage:
    window.show_page("models")
    found = window.pages["models"]
    assert isinstance(found, ModelsPage)
    wait_for(qtbot, found, found.context, window.state.profile)
    return found


def test_the_models_page_recommends_for_what_if_profiles(
    qtbot: QtBot, window: MainWindow, page: ModelsPage
) -> None:
    qtbot.mouseClick(
        page.tabs.tabBar(),
        Qt.MouseButton.LeftButton,
        pos=page.tabs.tabBar().tabRect(1).center(),
    )
    assert page.tabs.currentWidget() is page.recommend
    view = page.recommend
    choose_task(qtbot, view, "code")
    choose_profile(qtbot, window, "what-if:jetson-orin-nano-8gb")
    jetson = view.cards[0].pick
    assert view.profile_name.startswith("Jetson")
    choose_profile(qtbot, window, "what-if:rtx-4090-24gb")
    rtx = view.cards[0].pick
    assert jetson.variant_id != rtx.variant_id
    # The numbers are the table's: same estimate, same speed.
    row = page.model.entry(page.model.row_of(rtx.variant_id))
    assert row is not None
    assert row.fit is not None
    assert row.fit.tokens_per_s == rtx.tokens_per_s
    # The same ranking as the core's on the same rows.
    expected = Recommender(window.state.workspace.catalog.models)
    assert view.recommendation is not None
    core = expected.recommend(view.rows, "code", view.n_ctx, min_speed=view.min_speed.value())
    assert [p.variant_id for p in core.picks] == [p.variant_id for p in view.recommendation.picks]


def test_choosing_a_pick_shows_it_in_the_detail_panel(qtbot: QtBot, page: ModelsPage) -> None:
    page.tabs.setCurrentWidget(page.recommend)
    card = page.recommend.cards[-1]
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    shown = page.detail.entry
    assert shown is not None
    assert shown.variant_id == card.pick.variant_id


def test_the_view_keeps_its_task_for_the_next_start(
    qtbot: QtBot, window: MainWindow, page: ModelsPage
) -> None:
    from desktop.ui.window_settings import window_settings

    page.tabs.setCurrentWidget(page.recommend)
    choose_task(qtbot, page.recommend, "reasoning")
    settings = window_settings()
    page.save_state(settings)
    settings.sync()
    again = ModelsPage(window.state)
    qtbot.addWidget(again)
    try:
        assert again.recommend.task == "reasoning"
        assert again.tabs.currentWidget() is again.recommend
    finally:
        again.shutdown()


def test_a_card_has_no_untranslated_label_left_empty(view: RecommendView) -> None:
    for card in view.findChildren(PickCard):
        for label in card.findChildren(QLabel):
            assert label.text().strip()


# --- quality measured here (issue 25) ---------------------------------------------------------


def _loss_against_f16(model: Path) -> LossResult:
    """A loss as `llm-scout quality` stores it, against an F16 file (figures chosen here: the
    view's reading of the history is what is tested)."""
    return LossResult(
        model=model.name, model_path=str(model), reference="Qwen2.5-0.5B-Instruct-F16.gguf",
        reference_path="/models/Qwen2.5-0.5B-Instruct-F16.gguf", reference_kind="gguf",
        text="en", text_sha256="0" * 64, ctx=512, top_k=32, chunks=4, chunks_planned=4,
        tokens=1024, tokens_evaluated=2048, kld=0.05, kld_ci=(0.04, 0.06), kld_median=0.03,
        kld_p99=0.4, kld_max=0.9, same_top_token=0.9, same_top_token_ci=(0.88, 0.92), ppl=11.0,
        ppl_ci=None, reference_ppl=10.0, reference_ppl_ci=None, delta_ppl=1.0,
        delta_ppl_ci=None, seconds=10.0, tokens_per_s=200.0, complete=True, stopped=None,
        chunk_stats=(),
    )  # fmt: skip


def test_quality_measured_here_replaces_the_published_cost_and_says_so(
    qtbot: QtBot, catalog: Catalog, tmp_path: Path
) -> None:
    variant = "qwen2.5-0.5b-instruct:Q4_K_M"
    widget = RecommendView(catalog)
    qtbot.addWidget(widget)
    rows = rows_for(catalog, "a100-80gb", 4096)
    widget.set_estimate(rows, 4096, "A100 80GB")
    choose_task(qtbot, widget, "zh")
    assert widget.recommendation is not None
    before = widget.recommendation.pick(variant)
    assert before is not None
    assert not before.measured_label
    model = tmp_path / "qwen2.5-0.5b-instruct-q4_k_m.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    store_result(_loss_against_f16(model), model=model, variant_id=variant)
    # The next estimate reads what was measured (off the GUI thread) and ranks again.
    widget.set_estimate(rows, 4096, "A100 80GB")
    qtbot.waitUntil(lambda: variant in widget.measured, timeout=30_000)
    after = widget.recommendation.pick(variant)
    assert after is not None
    assert after.measured_label == "measured here"
    assert after.cost is not None
    assert after.cost.ppl_ratio == pytest.approx(1.1)
    assert after.quality == pytest.approx(after.task_score.score / 1.1)  # type: ignore[union-attr]
    card = PickCard(after, 1)  # as the view shows a pick (this one may not be its model's best)
    qtbot.addWidget(card)
    assert "measured here" in card.facts.text()
    assert "perplexity ×1.100, measured here" in card.why.text()
