"""The History page's detail shows the quality measured for a model: a real multiple-choice run
of the SmolLM2 demo on two shipped GAOKAO-Bench questions, and a loss against a reference, each
with its figure, 95% interval, what it was measured against, its size, the machine and the
date, under the answer of that model and under a comparison it took part in; the figures are
the ones ``llm-scout history list`` prints (one source: :func:`desktop.core.quality.figures_of`).
"""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.commands.history import figure_text, what_text
from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.history import ContestantRecord, History, PromptRecord
from desktop.core.quality import (
    ChoiceSettings,
    LossResult,
    figures_of,
    load_items,
    score_items,
    store_result,
)
from desktop.ui import format as fmt
from desktop.ui.main_window import MainWindow
from tests.core.history.test_store import make_report
from tests.ui.test_history_page import detail_shows, history_page


def _loss(model: Path) -> LossResult:
    """A loss as `llm-scout quality` stores it (figures chosen here: the page's reading of the
    history is what is tested; the choice run below is measured for real)."""
    return LossResult(
        model=model.name, model_path=str(model), reference="smollm2-F16.gguf",
        reference_path="/models/smollm2-F16.gguf", reference_kind="gguf",
        text="en", text_sha256="0" * 64, ctx=512, top_k=32, chunks=4, chunks_planned=4,
        tokens=1024, tokens_evaluated=2048, kld=0.012345, kld_ci=(0.0101, 0.0145), kld_median=0.01,
        kld_p99=0.4, kld_max=0.9, same_top_token=0.9, same_top_token_ci=(0.88, 0.92), ppl=11.0,
        ppl_ci=None, reference_ppl=10.0, reference_ppl_ci=None, delta_ppl=1.0,
        delta_ppl_ci=None, seconds=10.0, tokens_per_s=200.0, complete=True, stopped=None,
        chunk_stats=(),
    )  # fmt: skip


def test_the_detail_shows_the_quality_measured_for_the_model(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path, tmp_path: Path
) -> None:
    choice = score_items(
        smollm2_path,
        load_items("gaokao", limit=2),
        ChoiceSettings(ctx=1024, n_threads=2),
        label="SmolLM2",
    )
    assert choice.n == 2
    stored_choice = store_result(choice, model=smollm2_path, label="SmolLM2 demo")
    stored_loss = store_result(_loss(smollm2_path), model=smollm2_path, label="SmolLM2 demo")
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF" + bytes(60))
    store_result(_loss(other), model=other, label="Other model")  # not this model's: not shown
    with History.open() as history:
        run = history.record_run(
            make_report("Paris."),
            model=smollm2_path,
            prompt="What is the capital of France?",
            label="SmolLM2 demo",
            load=LoadSettings(n_ctx=512),
            params=p.SamplingParams(),
        )
        ref = history.model_ref(smollm2_path, label="SmolLM2 demo")
        comparison = history.create_comparison(
            title="Demo quiz",
            mode="fair",
            contestants=[
                ContestantRecord("SmolLM2", str(smollm2_path), {}, model=ref),
                ContestantRecord("SmolLM2 again", str(smollm2_path), {}, model=ref),
            ],
            prompts=[PromptRecord("Name the capital of Japan.")],
        )
        history.set_comparison_status(comparison, "finished")

    page = history_page(qtbot, window)
    assert page.select("run", run.id)
    detail_shows(qtbot, page, "Quality measured")
    text = page.detail.toPlainText()
    for stored in (stored_choice, stored_loss):
        f = figures_of(stored)
        assert f.value is not None
        assert f.interval is not None
        # The CLI's figure and interval, number for number, and what it was measured against.
        cli = figure_text(f)
        number = f"{f.value * 100:.1f}" if f.choice else f"{f.value:.5f}"
        assert number in cli
        assert number in text, number
        for x in f.interval:
            shown = f"{x * 100:.1f}" if f.choice else f"{x:.5f}"
            assert shown in cli, shown
            assert shown in text, shown
        assert f.against in what_text(f)
        assert f.against in text
    assert "multiple choice" in text
    assert "loss against a reference" in text
    assert "gaokao" in text
    assert "smollm2-F16.gguf" in text
    assert "2 questions" in text
    assert fmt.integer(1024) + " tokens" in text
    assert "This machine" in text
    # Its own measurements, each once: not the other model's loss (same figures, same reference).
    assert text.count("smollm2-F16.gguf") == 1

    assert page.select("comparison", comparison)
    detail_shows(qtbot, page, "Demo quiz")
    detail_shows(qtbot, page, "Quality measured")
    text = page.detail.toPlainText()
    assert "SmolLM2 demo" in text  # the model column
    assert text.count("smollm2-F16.gguf") == 1  # two contestants on one file: listed once
    assert f"{choice.accuracy * 100:.1f}" in text
