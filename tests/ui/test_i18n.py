"""The window in Simplified Chinese: the .ts is complete and current, the .qm is built from it, and
switching the language in the Settings page rebuilds the real window in Chinese and back."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tokenize
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QApplication, QComboBox, QTableView
from pytestqt.qtbot import QtBot

from desktop.core.fit import FitResult
from desktop.core.workspace import Workspace
from desktop.ui import format as fmt
from desktop.ui.app import Controller
from desktop.ui.i18n import install_language, qm_path
from desktop.ui.main_window import MainWindow
from desktop.ui.models.catalog_model import CatalogTableModel
from desktop.ui.pages.compare import ComparePage

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "i18n" / "llm_scout_zh_CN.ts"
BIN = Path(sys.executable).parent
PLACEHOLDER = re.compile(r"%\d+|%n|\{[A-Za-z_][A-Za-z0-9_]*\}")
HOW = "run `python scripts/i18n.py update`, translate what `todo` lists, `fill`, `build`"
CJK = re.compile(r"[\u4e00-\u9fff]")


def messages(path: Path) -> list[tuple[str, str, ET.Element]]:
    out = []
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            out.append((name, message.findtext("source") or "", message))
    return out


def test_every_message_is_translated_with_its_placeholders() -> None:
    found = messages(TS)
    assert len(found) > 500
    bad = []
    for context, source, message in found:
        translation = message.find("translation")
        assert translation is not None, (context, source)
        text = translation.text or ""
        if translation.get("type") in ("unfinished", "vanished", "obsolete") or not text.strip():
            bad.append(f"untranslated {context}: {source!r}")
        elif set(PLACEHOLDER.findall(text)) != set(PLACEHOLDER.findall(source)):
            bad.append(f"placeholders {context}: {source!r} -> {text!r}")
    assert not bad, "\n".join(bad)


def test_most_translations_are_chinese_not_copies() -> None:
    """Copies of the English are allowed for names and units (GPU, CSV, t/s), not in bulk."""
    found = messages(TS)
    copies = [s for _, s, m in found if (m.findtext("translation") or "") == s]
    chinese = [s for _, s, m in found if CJK.search(m.findtext("translation") or "")]
    assert len(chinese) > 0.9 * len(found)
    assert len(copies) < 0.05 * len(found), copies


def test_the_ts_holds_every_string_of_the_window(tmp_path: Path) -> None:
    """lupdate over desktop/ui finds nothing the .ts lacks, and every string sits in the
    context Qt looks it up in (an aliased ``tr = self.tr`` lands in an empty one)."""
    fresh = tmp_path / "fresh.ts"
    sources = sorted(str(p) for p in (ROOT / "desktop" / "ui").rglob("*.py"))
    subprocess.run(
        [str(BIN / "pyside6-lupdate"), "-silent", *sources, "-ts", str(fresh)],
        check=True,
        cwd=ROOT,
    )
    wanted = {(c, s) for c, s, _ in messages(fresh)}
    have = {(c, s) for c, s, _ in messages(TS)}
    assert not wanted - have, f"new strings: {HOW}\n{sorted(wanted - have)}"
    assert not have - wanted, f"gone strings: {HOW}\n{sorted(have - wanted)}"
    contextless = sorted(s for c, s in wanted if not c)
    assert not contextless, f"call self.tr/QCoreApplication.translate directly: {contextless}"


TR_NAMES = ("tr", "translate")


def f_string_calls(path: Path) -> list[int]:
    """Lines where tr()/translate() is called inside an f-string (3.11: one STRING token;
    3.12+: the call's tokens between FSTRING_START and FSTRING_END)."""
    start = getattr(tokenize, "FSTRING_START", None)
    end = getattr(tokenize, "FSTRING_END", None)
    lines, depth = [], 0
    with path.open("rb") as source:
        for token in tokenize.tokenize(source.readline):
            if token.type == start:
                depth += 1
            elif token.type == end:
                depth -= 1
            else:
                inside = depth and token.type == tokenize.NAME and token.string in TR_NAMES
                old_style = token.type == tokenize.STRING and re.match(r"(?i)[rb]*f", token.string)
                if inside or (old_style and re.search(r"\b(tr|translate)\(", token.string)):
                    lines.append(token.start[0])
    return lines


def test_no_translated_string_hides_in_an_f_string() -> None:
    """lupdate does not look inside f-strings: ``f"<h4>{self.tr('Prompt')}</h4>"`` is never
    extracted, so it stays English in every language. Call tr() outside, then format."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "desktop" / "ui").rglob("*.py"))
        for line in f_string_calls(path)
    ]
    assert not found, "tr() inside an f-string: " + ", ".join(found)


def non_literal_translations(path: Path) -> list[int]:
    """Lines of ``tr(x)``/``translate(context, x)`` calls whose text is not a string literal:
    lupdate cannot see those (a helper ``_tr(text)`` wrapping ``translate`` hid sentences)."""
    out = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # A class's own ``def tr(self, text)`` (lupdate reads its callers' ``self.tr("...")``).
    wrappers = {
        id(call)
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef) and f.name == "tr"
        for call in ast.walk(f)
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if id(node) in wrappers:
            continue
        name = node.func.attr
        index = {"tr": 0, "translate": 1}.get(name)
        if index is None or len(node.args) <= index:
            continue
        text = node.args[index]
        if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
            out.append(node.lineno)
    return out


def test_every_translated_text_is_a_literal_lupdate_can_see() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "desktop" / "ui").rglob("*.py"))
        for line in non_literal_translations(path)
    ]
    assert not found, "tr()/translate() of a variable (lupdate cannot see it): " + ", ".join(found)


def test_the_models_and_load_panels_sentences_are_in_chinese(
    qapp: QApplication, english_after: None
) -> None:
    """Sentences translated through a helper lupdate could not see were English in Chinese."""
    from desktop.ui.models.catalog_model import verdict_tooltip
    from desktop.ui.widgets.load_texts import prediction

    entry = cast(Any, SimpleNamespace(estimated=False))
    fit = cast(
        FitResult,
        SimpleNamespace(
            verdict="cpu",
            unsupported="",
            ram_bytes=200 << 20,
            vram_bytes=0,
            tokens_per_s=50.0,
            load_seconds=0.2,
        ),
    )
    assert install_language(qapp, "zh_CN") == "zh_CN"
    assert verdict_tooltip(entry) == "正在估算…"
    assert prediction(fit, "本机").startswith("本机 的预测：")  # the Playground's load panel
    assert "内存 ≈200" in prediction(fit, "本机")
    install_language(qapp, "en")
    assert verdict_tooltip(entry) == "Estimating…"
    assert prediction(fit, "here").startswith("predicted for here: ")


def test_the_slow_generation_warning_is_in_the_windows_language(
    qapp: QApplication, english_after: None
) -> None:
    """The Playground's warning under the answer's figures was the core's English sentence."""
    from desktop.core.engine import CpuUse, GenerationMetrics, RunReport
    from desktop.ui.widgets.metrics_panel import slow_run_text

    metrics = GenerationMetrics(
        ttft_ms=10.0,
        prompt_tokens=8,
        prompt_tokens_per_s=100.0,
        generated_tokens=64,
        tokens_per_s=12.0,
        per_second=(),
        t_first=0.0,
        t_last=64 / 12.0,
    )
    busy = CpuUse(wall_s=10.0, worker_cpu_s=12.0, others_cpu_s=15.0, usable_cpus=2, n_threads=2)
    report = RunReport(
        text="x", metrics=metrics, predicted_tokens_per_s=60.0, n_threads=2, cpu=busy
    )
    slow = RunReport(text="x", metrics=metrics, predicted_tokens_per_s=60.0, n_threads=2)
    assert install_language(qapp, "zh_CN") == "zh_CN"
    assert slow_run_text(report) == (
        "生成速度只有预测的 20%：回答期间其他程序占用了 2 个 CPU 中的 1.5 个，"
        "因此这次运行不用于校准估算。"
    )
    assert (slow_run_text(slow) or "").endswith("（2 个线程）。")
    install_language(qapp, "en")
    assert slow_run_text(report) == report.speed_warning()  # the core's words, in English
    assert slow_run_text(slow) == slow.speed_warning()


def test_the_qm_is_built_from_the_ts(tmp_path: Path) -> None:
    built = tmp_path / "zh_CN.qm"
    subprocess.run(
        [str(BIN / "pyside6-lrelease"), "-silent", str(TS), "-qm", str(built)], check=True
    )
    assert Path(qm_path("zh_CN")).read_bytes() == built.read_bytes(), f"stale .qm: {HOW}"


@pytest.fixture
def english_after(qapp: QApplication) -> Iterator[None]:
    yield
    install_language(qapp, "en")


def test_format_texts_follow_the_language(qapp: QApplication, english_after: None) -> None:
    no = cast(FitResult, SimpleNamespace(verdict="no", unsupported=""))
    awq = cast(FitResult, SimpleNamespace(verdict="no", unsupported="AWQ needs NVIDIA"))
    assert install_language(qapp, "zh_CN") == "zh_CN"
    assert QLocale().name() == "zh_CN"
    assert fmt.verdict_word(no) == "放不下"
    assert fmt.verdict_word(awq) == "不支持"
    assert fmt.seconds(100) == "1 分 40 秒"
    assert fmt.seconds(0.25) == "250 毫秒"
    install_language(qapp, "en")
    assert fmt.verdict_word(no) == "no"
    assert fmt.verdict_word(awq) == "not supported"
    assert fmt.seconds(100) == "1 min 40 s"


@pytest.fixture
def controller(qtbot: QtBot, qapp: QApplication, english_after: None) -> Iterator[Controller]:
    ctl = Controller(qapp, Workspace.load())
    ctl.window.resize(1280, 800)
    ctl.window.show()
    qtbot.waitExposed(ctl.window)
    with qtbot.waitSignal(ctl.state.profile_changed, timeout=30_000):
        ctl.state.probe_this_machine()
    yield ctl
    ctl.shutdown()
    ctl.window.close()


def sidebar_texts(window: MainWindow) -> list[str]:
    return [window.sidebar.item(r).text() for r in range(window.sidebar.count())]


def models_headers(window: MainWindow) -> list[str]:
    table = window.pages["models"].findChild(QTableView)
    assert table is not None
    model = table.model()
    return [str(model.headerData(c, Qt.Orientation.Horizontal)) for c in range(model.columnCount())]


def choose_language(qtbot: QtBot, ctl: Controller, code: str) -> MainWindow:
    """Pick the language in the real Settings page as a user does; returns the new window."""
    old = ctl.window
    old.show_page("settings")
    combo = old.pages["settings"].findChild(QComboBox, "languageCombo")
    assert combo is not None
    index = combo.findData(code)
    assert index >= 0
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    qtbot.waitUntil(lambda: ctl.window is not old)
    qtbot.waitExposed(ctl.window)
    assert ctl.state.workspace.settings.language == code
    return ctl.window


def test_switching_to_chinese_in_settings_rebuilds_the_window(
    qtbot: QtBot, controller: Controller
) -> None:
    english = controller.window
    assert sidebar_texts(english)[:4] == ["Hardware", "Models", "Downloads", "Library"]
    assert "Verdict" in models_headers(english)

    chinese = choose_language(qtbot, controller, "zh_CN")
    assert chinese.current_page == "settings"  # the same place in the new language
    assert sidebar_texts(chinese) == [
        "硬件", "模型", "下载", "本地模型", "演练场", "对比", "历史记录", "设置",
    ]  # fmt: skip
    assert list(chinese.page_titles().values()) == sidebar_texts(chinese)
    headers = models_headers(chinese)
    assert headers[CatalogTableModel.COL_VERDICT] == "判定"
    assert headers[CatalogTableModel.COL_MODEL] == "模型"
    assert "Verdict" not in headers
    settings = chinese.pages["settings"]
    combo = settings.findChild(QComboBox, "languageCombo")
    assert combo is not None
    assert combo.currentData() == "zh_CN"
    assert combo.itemText(0) == "跟随系统语言"
    assert chinese.profile_combo.itemText(0) == "本机"
    # The built-in prompt suites in Chinese: titles, language and description (issue 23, 16).
    page = chinese.show_page("compare")
    assert isinstance(page, ComparePage)
    suites = page.setup.suite_combo
    qtbot.waitUntil(lambda: suites.findData("coding") >= 0, timeout=30_000)
    assert suites.itemText(suites.findData("coding")).startswith("编程")
    assert suites.itemText(suites.findData("general-en")).startswith("通用（英文）")
    suites.setCurrentIndex(suites.findData("chinese"))
    suites.activated.emit(suites.currentIndex())
    label = page.setup.suite_label.text()
    assert "中文 · 简体中文的推理、写作和常识。" in label
    assert "Reasoning" not in label

    back = choose_language(qtbot, controller, "en")
    assert sidebar_texts(back)[:4] == ["Hardware", "Models", "Downloads", "Library"]
    assert models_headers(back)[CatalogTableModel.COL_VERDICT] == "Verdict"
    assert back.profile_combo.itemText(0) == "This machine"
    page = back.show_page("compare")
    assert isinstance(page, ComparePage)
    suites = page.setup.suite_combo
    qtbot.waitUntil(lambda: suites.findData("chinese") >= 0, timeout=30_000)
    assert suites.itemText(suites.findData("chinese")).startswith("Chinese (reasoning")
