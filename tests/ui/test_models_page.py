"""The Models page as a user drives it: the real catalog, the real probe and the real estimator.

Estimates run on worker threads; the tests wait for the page to show the one they asked for
(``shown_ctx``, ``shown_profile``) and never sleep. Downloads go to a fake Hub on 127.0.0.1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from desktop import cli
from desktop.core.catalog import filter_variants
from desktop.core.download import DownloadState
from desktop.core.fit import FIT_OK, CatalogEstimator, download_size, estimate
from desktop.core.hardware import HardwareProfile, list_profiles, load_profile
from desktop.core.library import Library, demo_roots
from desktop.core.workspace import Workspace
from desktop.ui import format as fmt
from desktop.ui.main_window import MainWindow
from desktop.ui.models.catalog_model import ROW_ROLE, CatalogEntry, CatalogTableModel
from desktop.ui.pages.models import ModelsPage
from desktop.ui.state import AppState
from desktop.ui.theme import VERDICT_COLORS
from desktop.ui.widgets.catalog_filter_bar import CONTEXT_STOPS
from desktop.ui.workers import wait_for_tasks
from tests.fixtures.hubserver import FakeHub
from tests.fixtures.library_files import write_tiny

WAIT_MS = 30_000
GPU_PROFILE = "rtx-3060-12gb"
SMALL_PROFILE = next(n for n in list_profiles() if "raspberry" in n)  # 8 GB, no GPU
C = CatalogTableModel


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Library page scans other apps' folders under HOME: keep the real one out."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


@pytest.fixture
def page(qtbot: QtBot, window: MainWindow) -> ModelsPage:
    window.show_page("models")
    found = window.pages["models"]
    assert isinstance(found, ModelsPage)
    wait_for(qtbot, found, found.context, window.state.profile)
    return found


def wait_for(
    qtbot: QtBot, page: ModelsPage, n_ctx: int, profile: HardwareProfile | None = None
) -> None:
    """Until the table shows the estimate at ``n_ctx`` (for ``profile``) and nothing runs."""
    qtbot.waitUntil(
        lambda: (
            not page.busy
            and page.shown_ctx == n_ctx
            and (profile is None or page.shown_profile is profile)
        ),
        timeout=WAIT_MS,
    )


def visible(page: ModelsPage) -> list[CatalogEntry]:
    proxy = page.proxy
    rows = [proxy.index(r, 0).data(ROW_ROLE) for r in range(proxy.rowCount())]
    assert all(isinstance(row, CatalogEntry) for row in rows)
    return rows


def entry(page: ModelsPage, variant_id: str) -> CatalogEntry:
    found = page.model.entry(page.model.row_of(variant_id))
    assert found is not None, variant_id
    return found


def cell(page: ModelsPage, variant_id: str, column: int) -> str:
    index = page.model.index(page.model.row_of(variant_id), column)
    return str(page.model.data(index) or "")


def choose_profile(qtbot: QtBot, window: MainWindow, key: str) -> HardwareProfile:
    """Pick a profile in the toolbar the way a user does; returns it once the page shows it."""
    combo = window.profile_combo
    index = combo.findData(key)
    assert index >= 0, key
    with qtbot.waitSignal(window.state.profile_changed, timeout=WAIT_MS):
        combo.setCurrentIndex(index)
        combo.activated.emit(index)
    profile = window.state.profile
    assert profile is not None
    page = window.pages["models"]
    assert isinstance(page, ModelsPage)
    wait_for(qtbot, page, page.context, profile)
    return profile


def click_row(qtbot: QtBot, page: ModelsPage, variant_id: str) -> None:
    index = page.proxy.mapFromSource(page.model.index(page.model.row_of(variant_id), C.COL_MODEL))
    assert index.isValid(), f"{variant_id} is filtered out"
    page.table.scrollTo(index)
    rect = page.table.visualRect(index)
    qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert page.current_entry() is not None
    assert page.current_entry().variant_id == variant_id  # type: ignore[union-attr]


def click_header(qtbot: QtBot, page: ModelsPage, column: int) -> None:
    header = page.table.horizontalHeader()
    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    qtbot.mouseClick(
        header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, header.height() // 2)
    )


# -- the table ---------------------------------------------------------------------------------


def test_every_catalog_variant_is_a_row_with_the_cores_verdict(
    page: ModelsPage, state: AppState
) -> None:
    catalog = state.workspace.catalog
    assert page.model.rowCount() == len(catalog.variants())
    assert page.proxy.rowCount() == len(catalog.variants())
    assert (
        page.bar.count_label.text()
        == f"{len(catalog.variants())} of {len(catalog.variants())} variants"
    )
    # The numbers are the core's, for this machine, at the page's context. (The Library page's
    # first scan may find the demo models meanwhile: their rows follow on library_changed.)
    profile = state.profile
    assert profile is not None
    resolver = state.resolver
    on_disk = set(resolver.installed())
    targets = resolver.fit_targets(catalog.variants())
    expected = {
        row.variant.id: row.result
        for row in CatalogEstimator(
            targets, profile, models_dir=state.workspace.models_dir
        ).estimate(page.context)
    }
    for row in page.model.entries():
        assert row.estimated
        if row.on_disk == (row.variant_id in on_disk):
            assert row.fit == expected[row.variant_id], row.variant_id
        assert row.fit is not None
        assert row.verdict in VERDICT_COLORS
        shown = cell(page, row.variant_id, C.COL_VERDICT)
        assert shown.startswith(fmt.verdict_word(row.fit))  # the word is always written
        assert cell(page, row.variant_id, C.COL_MEMORY) == "≈" + fmt.size(row.fit.must_fit_bytes)
        if row.fit.verdict != "no" and row.fit.tokens_per_s is not None:
            assert cell(page, row.variant_id, C.COL_SPEED).startswith("≈")
    # Mixture of experts: the active parameters follow the total.
    assert cell(page, "qwen3-30b-a3b:Q4_K_M", C.COL_PARAMS) == "30.5B (A3.3B)"
    # Sizes the Hub has not confirmed carry a mark; the verdict cell explains itself.
    assert cell(page, "qwen2.5-7b-instruct:Q4_K_M", C.COL_SIZE).startswith("~")
    # ... and are the fit's, estimated from the shapes: the same file the CLI and the
    # detail panel's download size count, in the order of the quants.
    q4_fit = entry(page, "qwen2.5-7b-instruct:Q4_K_M").fit
    assert q4_fit is not None
    assert q4_fit.download_bytes is not None
    assert cell(page, "qwen2.5-7b-instruct:Q4_K_M", C.COL_SIZE) == "~" + fmt.size(
        q4_fit.download_bytes, 1
    )
    verdict_index = page.model.index(page.model.row_of("qwen2.5-7b-instruct:Q4_K_M"), C.COL_VERDICT)
    assert page.model.data(verdict_index, Qt.ItemDataRole.ToolTipRole)
    for column in range(C.COLUMN_COUNT):
        tip = page.model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        assert tip, column
        assert tip.endswith("."), column
    legend = page.legend_label.text()
    for words in (
        "GPU = all layers on the GPU",
        "partial = N of M layers on the GPU",
        "CPU = runs in RAM",
        "no = does not fit",
    ):
        assert words in legend


def test_search_words_must_all_match_names_and_quants(
    qtbot: QtBot, page: ModelsPage, state: AppState
) -> None:
    catalog = state.workspace.catalog
    qtbot.keyClicks(page.bar.search_edit, "qwen 7b")
    rows = visible(page)
    assert rows
    assert {r.variant_id for r in rows} == {
        v.id for _m, v in filter_variants(catalog, text="qwen 7b")
    }
    assert all("qwen" in r.model.name.lower() and "7B" in r.model.name for r in rows)
    qtbot.keyClicks(page.bar.search_edit, " q8")
    rows = visible(page)
    assert rows
    assert all(r.variant.quant == "Q8_0" and "7B" in r.model.name for r in rows)
    page.bar.search_edit.clear()
    assert page.proxy.rowCount() == page.model.rowCount()


def spy_estimates(page: ModelsPage, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, bool]]:
    """The page's requests for a new estimate from now on, but for the library's (the Library
    page's first scan may emit library_changed at any time)."""
    calls: list[dict[str, bool]] = []
    real = page._estimate

    def spy(**flags: bool) -> None:
        if not flags.get("targets"):
            calls.append(flags)
        real(**flags)

    monkeypatch.setattr(page, "_estimate", spy)
    return calls


def test_family_format_licence_and_chinese_filters(
    qtbot: QtBot, page: ModelsPage, state: AppState, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = state.workspace.catalog
    estimates = spy_estimates(page, monkeypatch)
    page.bar.family_combo.setCurrentIndex(page.bar.family_combo.findData("llama"))
    rows = visible(page)
    assert rows
    assert all(r.model.family == "llama" for r in rows)
    page.bar.format_combo.setCurrentIndex(page.bar.format_combo.findData("awq"))
    rows = visible(page)
    assert rows
    assert all(r.model.family == "llama" and r.variant.format == "awq" for r in rows)
    assert len(rows) == len(filter_variants(catalog, family="llama", fmt="awq"))
    page.bar.family_combo.setCurrentIndex(0)
    page.bar.format_combo.setCurrentIndex(page.bar.format_combo.findData("gguf"))
    assert all(r.variant.format == "gguf" for r in visible(page))
    page.bar.format_combo.setCurrentIndex(0)

    page.bar.commercial_check.click()
    rows = visible(page)
    assert rows
    assert all(r.model.license.commercial_use for r in rows)
    assert len(rows) < page.model.rowCount()  # one licence in the catalog forbids it
    page.bar.commercial_check.click()
    page.bar.chinese_check.click()
    rows = visible(page)
    assert rows
    assert all(r.model.supports_chinese for r in rows)
    assert len(rows) == len(filter_variants(catalog, lang="zh"))
    page.bar.chinese_check.click()
    assert page.proxy.rowCount() == page.model.rowCount()
    assert estimates == []  # filters only hide rows: the estimate is not run again


def test_fits_only_hides_the_no_rows_and_gpu_only_keeps_full_offload(
    qtbot: QtBot, window: MainWindow, page: ModelsPage, monkeypatch: pytest.MonkeyPatch
) -> None:
    choose_profile(qtbot, window, f"what-if:{SMALL_PROFILE}")
    everything = page.model.entries()
    assert any(r.verdict == "no" for r in everything)
    estimates = spy_estimates(page, monkeypatch)
    page.bar.fits_check.click()
    rows = visible(page)
    assert rows
    assert all(r.verdict in FIT_OK for r in rows)
    assert len(rows) == sum(1 for r in everything if r.verdict in FIT_OK)
    page.bar.fits_check.click()
    assert page.proxy.rowCount() == len(everything)

    choose_profile(qtbot, window, f"what-if:{GPU_PROFILE}")
    page.bar.gpu_check.click()
    rows = visible(page)
    assert rows
    assert all(r.verdict == "gpu" for r in rows)
    assert len(rows) < page.model.rowCount()
    assert estimates == [{"profile": True}]  # the profile change, not the filters


# -- the context control -----------------------------------------------------------------------


def test_the_context_changes_memory_and_verdicts_and_the_controls_stay_in_sync(
    qtbot: QtBot, window: MainWindow, page: ModelsPage
) -> None:
    big = "llama-3.1-8b-instruct:Q4_K_M"  # trained for 128k tokens
    page.bar.context_slider.setValue(CONTEXT_STOPS.index(4096))
    assert page.bar.context_spin.value() == 4096
    wait_for(qtbot, page, 4096)
    small_memory = entry(page, big).memory_bytes
    fits_small = sum(1 for r in page.model.entries() if r.verdict in FIT_OK)
    page.bar.context_slider.setFocus()
    qtbot.keyClick(page.bar.context_slider, Qt.Key.Key_End)  # the keyboard moves it too
    assert page.bar.context_slider.value() == len(CONTEXT_STOPS) - 1
    assert page.bar.context_spin.value() == 131072
    wait_for(qtbot, page, 131072)
    assert entry(page, big).n_ctx == 131072
    assert entry(page, big).fit.n_ctx == 131072  # type: ignore[union-attr]
    assert (entry(page, big).memory_bytes or 0) > (small_memory or 0)  # the KV cache grew
    assert sum(1 for r in page.model.entries() if r.verdict in FIT_OK) <= fits_small

    # The spin box takes any value; the slider goes to the nearest stop.
    page.bar.context_spin.setValue(10_000)
    assert page.bar.context_slider.value() == CONTEXT_STOPS.index(8192)
    wait_for(qtbot, page, 10_000)

    # On a 12 GB GPU, a 7B model leaves the GPU at 128k tokens.
    choose_profile(qtbot, window, f"what-if:{GPU_PROFILE}")
    seven_b = "qwen2.5-7b-instruct:Q4_K_M"
    page.set_context(4096)
    wait_for(qtbot, page, 4096)
    assert entry(page, seven_b).verdict == "gpu"
    page.set_context(131072)
    wait_for(qtbot, page, 131072)
    assert entry(page, seven_b).verdict != "gpu"
    assert cell(page, seven_b, C.COL_VERDICT).startswith(fmt.verdict_word(entry(page, seven_b).fit))


def test_rapid_changes_end_on_the_last_context_without_blocking(
    qtbot: QtBot, page: ModelsPage
) -> None:
    values = [2048, 65536, 8192, 131072, 16384, 3000, 32768, 5000]
    click_row(qtbot, page, "qwen2.5-7b-instruct:Q4_K_M")
    bar = page.table.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    scrolled = bar.value()
    for value in values:
        page.bar.context_spin.setValue(value)
        assert page.busy  # the estimate runs on a worker; the GUI thread goes on
    wait_for(qtbot, page, values[-1])
    assert page.model.n_ctx == values[-1]
    for row in page.model.entries():
        assert row.n_ctx == values[-1]
        assert row.fit is not None
        assert row.fit.n_ctx == values[-1]
    assert page.bar.context_spin.value() == values[-1]
    assert page.bar.context_slider.value() == CONTEXT_STOPS.index(4096)
    # One update in place: the selection and the scroll position stay.
    assert page.current_entry().variant_id == "qwen2.5-7b-instruct:Q4_K_M"  # type: ignore[union-attr]
    assert bar.value() == scrolled


def test_a_small_what_if_profile_fits_fewer_and_this_machine_comes_back(
    qtbot: QtBot, window: MainWindow, page: ModelsPage, state: AppState
) -> None:
    def fitting() -> set[str]:
        return {r.variant_id for r in page.model.entries() if r.verdict in FIT_OK}

    here = fitting()
    small = choose_profile(qtbot, window, f"what-if:{SMALL_PROFILE}")
    assert small == load_profile(SMALL_PROFILE)
    assert len(fitting()) < len(here)
    back = choose_profile(qtbot, window, "this")
    assert back is state.this_machine
    assert fitting() == here


def test_before_this_machine_is_probed_the_catalog_is_listed_and_the_page_is_busy(
    qtbot: QtBot,
) -> None:
    fresh = AppState(Workspace.load())
    main = MainWindow(fresh)
    qtbot.addWidget(main)
    main.show_page("models")
    page = main.pages["models"]
    assert isinstance(page, ModelsPage)
    try:
        assert page.busy
        assert page.bar.busy_label.text() == "Detecting this machine…"
        assert page.model.rowCount() == len(fresh.workspace.catalog.variants())
        assert cell(page, "qwen2.5-7b-instruct:Q4_K_M", C.COL_VERDICT) == "…"
        with qtbot.waitSignal(page.estimate_updated, timeout=WAIT_MS):
            fresh.probe_this_machine()
        wait_for(qtbot, page, page.context, fresh.profile)
        assert all(r.estimated for r in page.model.entries())
        assert page.current_entry() is not None  # the first row is selected for the panel
    finally:
        main.close()
        fresh.close()
        assert wait_for_tasks(WAIT_MS)


def test_the_header_menu_shows_and_hides_columns(qtbot: QtBot, page: ModelsPage) -> None:
    header = page.table.horizontalHeader()
    assert header.isSectionHidden(C.COL_FAMILY)  # no room for it next to the panel at 1280
    header.customContextMenuRequested.emit(QPoint(10, 5))
    menu = page.findChild(QMenu, "columnsMenu")
    assert menu is not None
    actions = {a.text(): a for a in menu.actions()}
    assert set(actions) == {
        str(page.model.headerData(c, Qt.Orientation.Horizontal)) for c in range(C.COLUMN_COUNT)
    }
    assert not actions["Verdict"].isEnabled()  # the verdict and the name always stay
    actions["Family"].trigger()
    assert not header.isSectionHidden(C.COL_FAMILY)
    actions["Licence"].setChecked(not actions["Licence"].isChecked())
    menu.close()


# -- details -----------------------------------------------------------------------------------


def test_a_selected_row_fills_the_detail_panel_with_the_fits_numbers(
    qtbot: QtBot, window: MainWindow, page: ModelsPage
) -> None:
    profile = choose_profile(qtbot, window, f"what-if:{GPU_PROFILE}")
    page.set_context(65536)
    wait_for(qtbot, page, 65536, profile)
    variant_id = "qwen2.5-7b-instruct:Q4_K_M"
    click_row(qtbot, page, variant_id)
    detail = page.detail
    fit = entry(page, variant_id).fit
    assert fit is not None
    assert fit.reasons  # partial offload: the panel says why
    assert detail.isVisible()
    assert detail.title_label.text() == "Qwen2.5 7B Instruct Q4_K_M"
    assert detail.verdict_badge.text() == fmt.verdict_word(fit)
    assert fmt.integer(fit.max_ctx) in detail.max_ctx_label.text()
    for reason in fit.reasons:
        assert reason in detail.reasons_label.text()
    assert detail.vram_bar.isVisible()
    assert detail.vram_bar.total == fit.vram.total == fit.vram_bytes
    assert detail.ram_bar.total == fit.need_ram.total == fit.ram_full_context_bytes
    assert detail.vram_bar.breakdown == fit.vram
    assert fmt.size(fit.vram_bytes) in detail.vram_bar.summary
    assert detail.vram_bar.capacity == sum(fit.vram_free_bytes)
    assert fmt.seconds(fit.load_seconds) in detail.load_label.text()
    assert "Apache-2.0" in detail.licence_label.text()
    assert "href=" in detail.licence_label.text()
    assert "commercial use: yes" in detail.licence_label.text()
    assert detail.download_button.isEnabled()
    assert detail.download_button.text().startswith("Download")
    assert not detail.playground_button.isEnabled()  # not on disk

    # An AWQ variant can be downloaded too (it runs with vLLM, not in the Playground).
    click_row(qtbot, page, "qwen2.5-7b-instruct:AWQ")
    assert detail.download_button.isEnabled()
    assert not detail.playground_button.isEnabled()

    # Enter on the table leads to the panel's first button.
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_Return)
    assert QApplication.focusWidget() is detail.download_button

    # A new context updates the panel of the same selection.
    page.set_context(2048)
    wait_for(qtbot, page, 2048, profile)
    assert page.current_entry().variant_id == "qwen2.5-7b-instruct:AWQ"  # type: ignore[union-attr]
    assert "2,048" in detail.context_label.text() or "2048" in detail.context_label.text()


def test_the_ram_bar_shows_what_must_stay_resident_and_the_page_cache_apart(
    qtbot: QtBot, window: MainWindow, page: ModelsPage, capsys: pytest.CaptureFixture[str]
) -> None:
    """On an AVX2 laptop Q4_K weights are repacked: the peak RSS holds the copies and the mapped
    pages. The bar shows the resident part; the droppable page cache is said below it, so a
    Q4_K_M no longer looks bigger than the Q5_K_M of the same model."""
    profile = choose_profile(qtbot, window, "what-if:laptop-16gb-cpu")
    page.set_context(4096)
    wait_for(qtbot, page, 4096, profile)
    variant_id = "qwen2.5-7b-instruct:Q4_K_M"
    click_row(qtbot, page, variant_id)
    fit = entry(page, variant_id).fit
    assert fit is not None
    assert fit.page_cache_bytes > 0
    detail = page.detail
    assert detail.ram_bar.total == fit.need_ram.total < fit.ram_bytes
    # One figure, one source: the row's memory and the bar are the fit's own must-fit bytes,
    # as `llm-scout fit --json` gives them for the same variant, profile and context.
    assert (
        cli.main(["fit", variant_id, "--profile", "laptop-16gb-cpu", "--ctx", "4096", "--json"])
        == 0
    )
    document = json.loads(capsys.readouterr().out)
    assert entry(page, variant_id).memory_bytes == document["must_fit_bytes"] == fit.must_fit_bytes
    assert detail.ram_bar.total == document["must_fit_bytes"] - document["vram_bytes"]
    assert fit.page_cache_bytes == document["page_cache_bytes"] > 0
    assert detail.full_context_label.isVisible()
    assert "page cache" in detail.full_context_label.text()
    assert fmt.size(fit.page_cache_bytes) in detail.full_context_label.text()
    bigger = entry(page, "qwen2.5-7b-instruct:Q5_K_M")
    assert (entry(page, variant_id).memory_bytes or 0) < (bigger.memory_bytes or 0)
    # No NVIDIA GPU: the AWQ variant is not "too big", it cannot run here at all.
    assert cell(page, "qwen2.5-7b-instruct:AWQ", C.COL_VERDICT).startswith("not supported")


def test_the_memory_the_window_shows_is_the_figure_the_verdict_and_fit_use(
    qtbot: QtBot, window: MainWindow, page: ModelsPage, capsys: pytest.CaptureFixture[str]
) -> None:
    """At 65,536 tokens a short run's resident memory (8.0 GiB) fits a 16 GB laptop but the
    whole context (its compute buffer reserved) does not: the row, the bar and the verdict's
    reason say the one figure `fit` says, with the same words."""
    profile = choose_profile(qtbot, window, "what-if:laptop-16gb-cpu")
    page.set_context(65536)
    wait_for(qtbot, page, 65536, profile)
    variant_id = "qwen2.5-7b-instruct:Q4_K_M"
    click_row(qtbot, page, variant_id)
    fit = entry(page, variant_id).fit
    assert fit is not None
    assert fit.verdict == "no"
    argv = ["fit", variant_id, "--profile", "laptop-16gb-cpu", "--ctx", "65536"]
    assert cli.main([*argv, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["verdict"] == "no"
    need = document["must_fit_bytes"]
    assert need == document["ram_full_context_bytes"] > document["ram_available_bytes"]
    detail = page.detail
    assert entry(page, variant_id).memory_bytes == need
    assert cell(page, variant_id, C.COL_MEMORY) == "≈" + fmt.size(need)
    assert detail.ram_bar.total == need
    assert detail.ram_bar.capacity == document["ram_available_bytes"]
    assert "short" in detail.ram_bar.summary
    # The same words: "needs 11.6 GiB of 11.0 GiB available" in the CLI, the bar and the reason.
    assert cli.main(argv) == 0
    verdict_line = capsys.readouterr().out.splitlines()[1]
    figures = verdict_line.split("(needs ", 1)[1].rstrip(")")
    assert figures.endswith(" available")
    said = figures.removesuffix(" available")
    assert said.replace("needs ", "") in detail.ram_bar.summary.replace("≈", "")
    assert f"needs {said} available" in detail.ram_bar.summary.replace("≈", "")
    assert any(said in reason for reason in fit.reasons)
    assert said in detail.reasons_label.text()
    tooltip = page.model.data(
        page.model.index(page.model.row_of(variant_id), C.COL_MEMORY),
        Qt.ItemDataRole.ToolTipRole,
    )
    assert fmt.size(need) in str(tooltip)


def test_a_variant_has_one_download_size_said_as_estimated(
    qtbot: QtBot, page: ModelsPage, capsys: pytest.CaptureFixture[str]
) -> None:
    """The catalog's unverified size (288 MiB for this one) is not shown anywhere: the Size
    column, the panel's button and its disk line say the size the fit computed from the shapes,
    marked as estimated, as the CLI's catalog does."""
    variant_id = "qwen2.5-0.5b-instruct:Q4_K_M"
    model, variant = entry(page, variant_id).model, entry(page, variant_id).variant
    size, known = download_size(model, variant)
    assert not known
    assert size is not None
    assert variant.size_bytes is not None
    assert fmt.size(variant.size_bytes) != fmt.size(size)
    click_row(qtbot, page, variant_id)
    detail = page.detail
    shown = "~" + fmt.size(size, 0)
    assert cell(page, variant_id, C.COL_SIZE) == shown
    assert detail.download_button.text() == f"Download {shown}"
    assert "estimated" in detail.download_button.toolTip()
    assert detail.disk_label.text().startswith(f"Download {shown}")
    assert fmt.size(variant.size_bytes) not in detail.download_button.text()
    assert cli.main(["catalog", "--search", "qwen2.5-0.5b", "--format", "gguf"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(variant_id))
    assert f"{size / 2**20:.1f} MiB~" in row
    # Sorted by size, the rows follow the sizes shown.
    click_header(qtbot, page, C.COL_SIZE)
    sizes = [download_size(r.model, r.variant)[0] or 0 for r in visible(page)]
    assert sizes == sorted(sizes)


def test_sorting_by_parameters_and_memory_is_numeric(qtbot: QtBot, page: ModelsPage) -> None:
    click_header(qtbot, page, C.COL_PARAMS)
    params = [r.model.n_params for r in visible(page)]
    assert params == sorted(params)
    # As text "135M" would come after "1.5B"; as numbers it comes first.
    assert params[0] < 1_000_000_000 < params[-1]
    click_header(qtbot, page, C.COL_PARAMS)
    assert [r.model.n_params for r in visible(page)] == sorted(params, reverse=True)
    click_header(qtbot, page, C.COL_MEMORY)
    memory = [r.memory_bytes or 0 for r in visible(page)]
    assert memory == sorted(memory)
    # A new estimate keeps the order (the rows re-sort themselves).
    page.set_context(65536)
    wait_for(qtbot, page, 65536)
    memory = [r.memory_bytes or 0 for r in visible(page)]
    assert memory == sorted(memory)


def test_filters_context_and_sort_persist_across_a_restart(
    qtbot: QtBot, state: AppState, window: MainWindow, page: ModelsPage
) -> None:
    qtbot.keyClicks(page.bar.search_edit, "qwen")
    page.bar.family_combo.setCurrentIndex(page.bar.family_combo.findData("qwen"))
    page.bar.format_combo.setCurrentIndex(page.bar.format_combo.findData("gguf"))
    page.bar.fits_check.click()
    page.bar.chinese_check.click()
    page.set_context(16384)
    click_header(qtbot, page, C.COL_MEMORY)
    click_header(qtbot, page, C.COL_MEMORY)
    wait_for(qtbot, page, 16384)
    page.splitter.setSizes([700, 380])
    sizes = page.splitter.sizes()
    shown = [r.variant_id for r in visible(page)]
    window.close()

    again = MainWindow(state)
    qtbot.addWidget(again)
    again.resize(1280, 800)
    again.show()
    again.show_page("models")
    restored = again.pages["models"]
    assert isinstance(restored, ModelsPage)
    assert restored.bar.search_edit.text() == "qwen"
    assert restored.bar.family_combo.currentData() == "qwen"
    assert restored.bar.format_combo.currentData() == "gguf"
    assert restored.bar.fits_check.isChecked()
    assert restored.bar.chinese_check.isChecked()
    assert not restored.bar.gpu_check.isChecked()
    assert restored.context == 16384
    assert restored.bar.context_spin.value() == 16384
    assert restored.bar.context_slider.value() == CONTEXT_STOPS.index(16384)
    header = restored.table.horizontalHeader()
    assert header.sortIndicatorSection() == C.COL_MEMORY
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    assert restored.splitter.sizes() == sizes
    wait_for(qtbot, restored, 16384)
    assert [r.variant_id for r in visible(restored)] == shown
    again.close()


def test_demo_models_the_library_knows_show_as_on_disk(
    qtbot: QtBot, page: ModelsPage, state: AppState, demo_paths: tuple[Path, Path]
) -> None:
    smollm2 = "smollm2-135m-instruct:Q4_1"
    with Library(state.library_db, catalog=state.workspace.catalog) as library:
        library.scan(demo_roots(demo_paths))
    with qtbot.waitSignal(page.estimate_updated, timeout=WAIT_MS):
        state.library_changed.emit()
    wait_for(qtbot, page, page.context)
    row = entry(page, smollm2)
    assert row.on_disk
    assert row.path == demo_paths[0]
    assert row.from_file  # the numbers come from the file's header now
    assert cell(page, smollm2, C.COL_DISK) == "✓"


@pytest.mark.e2e
def test_ask_llama_cpp_sets_its_projection_beside_the_estimate(
    qtbot: QtBot,
    window: MainWindow,
    page: ModelsPage,
    state: AppState,
    demo_paths: tuple[Path, Path],
) -> None:
    """A file on this machine: llama.cpp's dry run (nothing allocated) in a worker, its
    weights, KV cache and compute buffers beside the estimate's with the gaps."""
    smollm2 = "smollm2-135m-instruct:Q4_1"
    with Library(state.library_db, catalog=state.workspace.catalog) as library:
        library.scan(demo_roots(demo_paths))
    with qtbot.waitSignal(page.estimate_updated, timeout=WAIT_MS):
        state.library_changed.emit()
    click_row(qtbot, page, smollm2)
    detail = page.detail
    assert detail.crosscheck_button.isVisible()
    assert not detail.crosscheck_label.isVisible()
    qtbot.mouseClick(detail.crosscheck_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "projection" in detail.crosscheck_label.text(), timeout=60_000)
    text = detail.crosscheck_label.text()
    assert "KV cache" in text
    assert "compute buffers" in text
    assert "+0.0%" in text  # the weights agree exactly
    assert detail.crosscheck_button.isEnabled()
    # Not for a what-if profile (llama.cpp can only answer for this machine), nor off disk.
    choose_profile(qtbot, window, f"what-if:{GPU_PROFILE}")
    click_row(qtbot, page, smollm2)
    assert not detail.crosscheck_button.isVisible()
    choose_profile(qtbot, window, "this")
    click_row(qtbot, page, "qwen2.5-7b-instruct:Q4_K_M")
    assert not detail.crosscheck_button.isVisible()


# -- downloads ---------------------------------------------------------------------------------


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[FakeHub]:
    with FakeHub() as server:
        yield server


def test_the_download_button_fetches_the_variant_and_the_row_flips_to_on_disk(
    qtbot: QtBot, tmp_path: Path, hub: FakeHub, state: AppState, window: MainWindow
) -> None:
    variant_id = "qwen2.5-0.5b-instruct:Q4_K_M"
    model, variant = state.workspace.catalog.variant(variant_id)
    (name,) = [f.name for f in variant.files]
    tiny = write_tiny(tmp_path / "src" / name, n_vocab=4096, name="Tiny Qwen")
    hub.add_file(variant.repo, name, tiny.read_bytes())
    state.update_settings(hub_endpoint=hub.url)

    window.show_page("models")
    page = window.pages["models"]
    assert isinstance(page, ModelsPage)
    wait_for(qtbot, page, page.context, state.profile)
    before = entry(page, variant_id)
    assert not before.on_disk
    assert cell(page, variant_id, C.COL_DISK) == ""
    click_row(qtbot, page, variant_id)
    button = page.detail.download_button
    assert button.isEnabled()
    with qtbot.waitSignal(state.downloads_changed, timeout=WAIT_MS):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert not button.isEnabled()  # running (or done): no second job for the same files
    (job,) = [j for j in state.downloads.jobs if j.request.variant_id == variant_id]
    qtbot.waitUntil(lambda: job.state is DownloadState.DONE, timeout=WAIT_MS)
    # The Downloads page scans the models folder and emits library_changed; do it here too.
    state.library_changed.emit()
    qtbot.waitUntil(lambda: entry(page, variant_id).on_disk and not page.busy, timeout=WAIT_MS)

    after = entry(page, variant_id)
    assert cell(page, variant_id, C.COL_DISK) == "✓"
    assert after.path is not None
    assert after.path.read_bytes() == tiny.read_bytes()
    assert after.from_file
    # The row's numbers are now the real header's, not the catalog's.
    target = state.resolver.for_variant(model, variant).fit_target()
    assert target.path is not None
    profile = state.profile
    assert profile is not None
    expected = estimate(target, profile, n_ctx=page.context, models_dir=state.workspace.models_dir)
    assert after.fit is not None
    assert (after.fit.ram_bytes, after.fit.vram_bytes, after.fit.verdict) == (
        expected.ram_bytes,
        expected.vram_bytes,
        expected.verdict,
    )
    assert after.memory_bytes != before.memory_bytes

    detail = page.detail
    assert page.current_entry().variant_id == variant_id  # type: ignore[union-attr]
    assert not detail.download_button.isEnabled()
    assert detail.download_button.text() == "Downloaded"
    assert detail.playground_button.isEnabled()
    with qtbot.waitSignal(page.open_in_playground_requested, timeout=WAIT_MS) as opened:
        qtbot.mouseClick(detail.playground_button, Qt.MouseButton.LeftButton)
    assert opened.args == [str(after.path)]


# -- the look ----------------------------------------------------------------------------------


def test_the_page_at_1280x800_shows_every_main_column_and_the_detail_panel(
    qtbot: QtBot, window: MainWindow, page: ModelsPage, tmp_path: Path
) -> None:
    profile = choose_profile(qtbot, window, f"what-if:{GPU_PROFILE}")
    page.set_context(8192)
    wait_for(qtbot, page, 8192, profile)
    click_row(qtbot, page, "qwen3-30b-a3b:Q4_K_M")
    QApplication.processEvents()
    table = page.table
    header = table.horizontalHeader()
    # Nothing the table shows needs a horizontal scroll bar at 1280x800.
    shown = [c for c in range(C.COLUMN_COUNT) if not header.isSectionHidden(c)]
    for column in (C.COL_MODEL, C.COL_PARAMS, C.COL_QUANT, C.COL_SIZE, C.COL_VERDICT,
                   C.COL_MEMORY, C.COL_SPEED, C.COL_DISK):  # fmt: skip
        assert column in shown
    assert sum(header.sectionSize(c) for c in shown) <= table.viewport().width()
    assert header.sectionSize(C.COL_MODEL) >= 120
    # The detail panel's buttons stay in view; the panel is not cut on the right.
    detail = page.detail
    assert detail.download_button.isVisible()
    assert detail.download_button.mapTo(window, QPoint(0, 0)).y() < window.height()
    body = detail.scroller.widget()
    assert body is not None
    assert body.width() <= detail.scroller.viewport().width()
    image = window.grab()
    assert image.width() >= 1280
    assert image.save(str(tmp_path / "models_page_1280x800.png"))


def test_this_machines_own_runs_calibrate_the_catalog_and_the_panel_says_so(
    qtbot: QtBot, window: MainWindow, page: ModelsPage, state: AppState
) -> None:
    """Two runs measured at half the predicted speed: back on this machine the catalog's speeds
    halve and the detail panel says it is calibrated; a what-if profile stays raw."""
    from desktop.core.fit import CalibrationEntry, CalibrationStore, machine_fingerprint

    variant_id = "qwen2.5-7b-instruct:Q4_K_M"
    raw = entry(page, variant_id).fit
    assert raw is not None
    assert raw.tokens_per_s is not None
    this = state.this_machine
    assert this is not None
    store = CalibrationStore()
    for k in range(2):
        store.add(
            CalibrationEntry(
                machine=machine_fingerprint(this),
                source="run",
                model="smollm2",
                device="cpu",
                n_gpu_layers=0,
                n_ctx=2048,
                generated_tokens=64,
                predicted_tokens_per_s=100.0,
                measured_tokens_per_s=50.0,
                time=1000.0 + k,
            )
        )
    choose_profile(qtbot, window, f"what-if:{SMALL_PROFILE}")
    choose_profile(qtbot, window, "this")
    calibrated = entry(page, variant_id)
    assert calibrated.calibration_runs == 2
    assert calibrated.fit is not None
    assert calibrated.fit.tokens_per_s == pytest.approx(raw.tokens_per_s * 0.5, rel=0.01)
    click_row(qtbot, page, variant_id)
    assert "Calibrated from 2 measured runs." in page.detail.context_label.text()
    choose_profile(qtbot, window, f"what-if:{GPU_PROFILE}")
    assert entry(page, variant_id).calibration_runs == 0
