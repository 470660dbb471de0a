"""The core's error sentences in the window's language (issue 23, item 16).

The core gives the errors a person meets in the Library and when a model file is read as a
:class:`~desktop.core.errors.Sentence` (an id and named values) beside its English sentence; the
window says it from its own translated table. Every id the core raises has its template, with
the placeholders the core fills; the real Library page in Chinese shows a refused import's
sentence in Chinese, with the file's own facts, and the English one in English.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.core.errors import GGUFError, LibraryError, Sentence
from desktop.core.gguf import read_gguf_split
from desktop.ui.error_sentences import sentence_templates, translated
from desktop.ui.errors import describe
from desktop.ui.i18n import install_language
from desktop.ui.main_window import MainWindow
from desktop.ui.models.library_model import LibraryModel
from desktop.ui.pages.library import LibraryPage
from desktop.ui.state import AppState
from tests.fixtures.library_files import write_tiny

DESKTOP = Path(__file__).resolve().parents[2] / "desktop"
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
WAIT_MS = 30_000


def _sentences_in_code() -> dict[str, list[set[str] | None]]:
    """Every ``Sentence("id", {...})`` under desktop/: id -> the keys of each literal dict of
    values (None where the values are not a plain literal dict)."""
    found: dict[str, list[set[str] | None]] = {}
    for path in DESKTOP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Sentence"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                continue
            values = node.args[1] if len(node.args) > 1 else ast.Dict(keys=[], values=[])
            keys: set[str] | None = None
            if isinstance(values, ast.Dict) and all(
                isinstance(k, ast.Constant) for k in values.keys
            ):
                keys = {str(k.value) for k in values.keys if isinstance(k, ast.Constant)}
            found.setdefault(str(node.args[0].value), []).append(keys)
    return found


def test_the_scanner_sees_the_sentences_it_must() -> None:
    found = _sentences_in_code()
    assert {"gguf.bad_magic", "gguf.truncated", "library.exists", "store.busy"} <= set(found)
    assert len(found) > 40


def test_every_sentence_the_core_raises_has_its_template(qapp: QApplication) -> None:
    templates = sentence_templates()
    missing = sorted(set(_sentences_in_code()) - set(templates))
    assert missing == []
    unused = sorted(set(templates) - set(_sentences_in_code()))
    assert unused == []


def test_each_template_uses_the_values_the_core_gives(qapp: QApplication) -> None:
    templates = sentence_templates()
    wrong = []
    for sentence_id, uses in _sentences_in_code().items():
        wanted = set(PLACEHOLDER.findall(templates[sentence_id]))
        for keys in uses:
            if keys is not None and not wanted <= keys:
                wrong.append(f"{sentence_id}: template wants {wanted}, the core gives {keys}")
    assert wrong == []


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    assert install_language(qapp, "zh_CN") == "zh_CN"
    yield
    install_language(qapp, "en")


def test_values_are_filled_once_and_numbers_as_the_locale_writes_them(
    qapp: QApplication, chinese: None
) -> None:
    sentence = Sentence("library.exists", {"name": "{folder}.gguf", "folder": "/m/imported"})
    assert translated(sentence, "English") == (
        "/m/imported 中已有一个同名但内容不同的文件 {folder}.gguf。"
    )
    split = Sentence(
        "gguf.split_tensor_count",
        {"name": "big.gguf", "expected": 1234, "count": 3, "found": 1200},
    )
    assert translated(split, "English") == (
        "分卷模型 big.gguf 应共有 1,234 个张量，但它的 3 个分卷中共有 1,200 个"
    )
    # No sentence, or one this window has no template for: the core's English sentence.
    assert translated(None, "The English one.") == "The English one."
    assert translated(Sentence("gguf.from_the_future", {}), "The English one.") == (
        "The English one."
    )
    error = LibraryError("x", kind="library.busy", sentence=Sentence("store.busy", {
        "store": "library", "path": "/d/library.db"
    }))  # fmt: skip
    assert describe(error) == (
        "模型库数据库正被占用",
        "模型库数据库 /d/library.db 正被另一个程序占用；请稍后再试。",
    )


def test_the_english_sentence_is_unchanged_for_the_cli(tmp_path: Path) -> None:
    """str(error), what the CLI prints, is the core's English sentence, as before."""
    text = tmp_path / "notes.txt"
    text.write_text("# LLM notes\n", encoding="utf-8")
    with pytest.raises(GGUFError) as caught:
        read_gguf_split(text)
    assert str(caught.value) == (
        'notes.txt is not a GGUF file: it starts with "# LL" instead of GGUF (at byte 0)'
    )
    assert caught.value.sentence == Sentence(
        "gguf.bad_magic", {"name": "notes.txt", "found": "# LL", "offset": 0}
    )


def read_error(path: Path) -> GGUFError:
    with pytest.raises(GGUFError) as caught:
        read_gguf_split(path)
    return caught.value


def _broken_files(tmp_path: Path) -> tuple[Path, Path, GGUFError]:
    text = tmp_path / "notes.txt"
    text.write_text("# LLM notes\n", encoding="utf-8")
    whole = write_tiny(tmp_path / "whole" / "tiny.gguf")
    cut = tmp_path / "tiny.gguf"
    cut.write_bytes(whole.read_bytes()[:100])
    return text, cut, read_error(cut)


EXPECTED = {
    "zh_CN": (
        "notes.txt 不是 GGUF 文件：它以“# LL”开头，而不是 GGUF（位于第 0 字节）",
        "tiny.gguf 不完整：文件在第 100 字节处就结束了，文件头还没有读完（位于第 {offset} 字节）",
    ),
    "en": (  # the window in English says the core's (the CLI's) sentence
        'notes.txt is not a GGUF file: it starts with "# LL" instead of GGUF (at byte 0)',
        "{english}",
    ),
}


@pytest.fixture(params=["zh_CN", "en"])
def language(request: pytest.FixtureRequest, qapp: QApplication) -> Iterator[str]:
    """The window's language, installed before the window is built (as a start in it)."""
    assert install_language(qapp, request.param) == request.param
    yield request.param
    install_language(qapp, "en")


def test_a_refused_import_says_why_in_the_windows_language(
    qtbot: QtBot, language: str, state: AppState, window: MainWindow, tmp_path: Path
) -> None:
    text, cut, reader = _broken_files(tmp_path)
    assert reader.kind == "gguf.truncated"
    assert reader.sentence is not None
    assert reader.sentence.params["end"] == 100
    window.show_page("library")
    page = window.pages["library"]
    assert isinstance(page, LibraryPage)
    qtbot.waitUntil(lambda: not page.is_busy, timeout=WAIT_MS)  # the start-up scan
    page.import_files([text, cut])
    rows = {}

    def both_listed() -> bool:
        rows.update({r.path: r for r in page.model.rows() if r.path in (text, cut)})
        return len(rows) == 2

    qtbot.waitUntil(both_listed, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not page.is_busy, timeout=WAIT_MS)
    not_gguf, truncated = EXPECTED[language]
    truncated = truncated.replace("{offset}", str(reader.offset)).replace("{english}", str(reader))
    for path, sentence in ((text, not_gguf), (cut, truncated)):
        shown = page.model.text(rows[path], LibraryModel.COL_ARCH)
        assert shown.endswith(sentence), shown
        assert sentence in page.message.text()
    chinese = re.compile(r"[\u4e00-\u9fff]")
    assert bool(chinese.search(page.message.text())) == (language == "zh_CN")
    if language == "en":  # the window's English is the core's own sentence
        assert not_gguf in str(read_error(text))


def test_every_broken_model_file_is_explained_in_chinese(
    qapp: QApplication, chinese: None, tmp_path: Path
) -> None:
    """Each way a GGUF file can be broken (the reader's fixture of them all), as the window
    says it in Chinese: a Chinese sentence that names the file, not the core's English."""
    from tests.fixtures.tiny_models import write_broken_files

    cjk = re.compile(r"[\u4e00-\u9fff]")
    for case, path in write_broken_files(tmp_path).items():
        error = read_error(path)
        title, sentence = describe(error)
        assert cjk.search(title), case
        assert cjk.search(sentence), (case, sentence)
        assert path.name in sentence, (case, sentence)
        assert error.message not in sentence, (case, sentence)


def test_the_operating_systems_reason_is_worded_in_chinese_too(
    qapp: QApplication, chinese: None, tmp_path: Path
) -> None:
    """A copy into a models "folder" that is a file: the system's "Not a directory" (ENOTDIR)
    is said in Chinese inside the Chinese sentence; the CLI's English keeps the system's words."""
    from desktop.core.library import Library

    models = tmp_path / "models"
    models.write_text("a file where the models folder should be", encoding="utf-8")
    model = write_tiny(tmp_path / "tiny.gguf")
    with (
        Library(tmp_path / "library.db", models_dir=models) as library,
        pytest.raises(LibraryError) as caught,
    ):
        library.import_file(model, copy=True)
    error = caught.value
    assert error.sentence is not None
    assert error.sentence.params["errno"] == "ENOTDIR"
    assert "Not a directory" in str(error)
    assert describe(error)[1] == f"无法创建文件夹 {models / 'imported'}：路径中有一部分不是文件夹。"
