"""Question files in the public layouts of C-Eval, CMMLU and MMLU, the shipped JSONL set, and
the one-sentence refusals of files that do not fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.errors import QualityError
from desktop.core.quality import load_items, prompt_for, shuffled_answers


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_ceval_layout_uses_val_when_test_has_no_answers(tmp_path: Path) -> None:
    root = tmp_path / "ceval"
    _write(
        root / "dev" / "computer_network_dev.csv",
        "id,question,A,B,C,D,answer,explanation\n0,开发集,甲,乙,丙,丁,A,解释\n",
    )
    _write(
        root / "val" / "computer_network_val.csv",
        "id,question,A,B,C,D,answer,explanation\n0,下列哪个是协议？,TCP,猫,狗,鱼,A,\n"
        "1,端口号有几位？,8,16,32,64,B,\n",
    )
    _write(
        root / "test" / "computer_network_test.csv", "id,question,A,B,C,D\n0,测试题,甲,乙,丙,丁\n"
    )
    items = load_items(root)
    assert len(items.items) == 2
    first = items.items[0]
    assert first.subject == "computer network"
    assert first.language == "zh"
    assert first.options == ("TCP", "猫", "狗", "鱼")
    assert first.answer == 0
    assert items.items[1].answer == 1
    assert first.key == "val/computer_network_val.csv#2"
    prompt, continuations = prompt_for(first, "letter")
    assert prompt.endswith("D. 鱼\n答案：")
    assert continuations == ["A", "B", "C", "D"]


def test_cmmlu_layout(tmp_path: Path) -> None:
    root = tmp_path / "cmmlu"
    _write(
        root / "test" / "agronomy.csv",
        ",Question,A,B,C,D,Answer\n0,最主要的生产资料是,工具,土地,劳动力,资金,B\n",
    )
    _write(root / "dev" / "agronomy.csv", ",Question,A,B,C,D,Answer\n0,示例,甲,乙,丙,丁,C\n")
    items = load_items(root)
    assert [i.subject for i in items.items] == ["agronomy"]
    assert items.items[0].answer == 1
    assert items.skipped_files == ("dev/agronomy.csv",)


def test_mmlu_layout_without_header_in_english(tmp_path: Path) -> None:
    root = tmp_path / "mmlu"
    _write(
        root / "data" / "test" / "abstract_algebra_test.csv",
        '"Find the degree of Q(sqrt(2)) over Q.",0,4,2,6,C\nWhat is 2+2?,3,4,5,6,B\n',
    )
    _write(root / "data" / "dev" / "abstract_algebra_dev.csv", "x,1,2,3,4,A\n")
    items = load_items(root)
    assert len(items.items) == 2
    item = items.items[0]
    assert item.language == "en"
    assert item.subject == "abstract algebra"
    prompt, continuations = prompt_for(item, "letter")
    assert prompt.startswith("The following is a multiple choice question about abstract algebra.")
    assert prompt.endswith("D. 6\nAnswer:")
    assert continuations == [" A", " B", " C", " D"]
    _prompt, texts = prompt_for(item, "text")
    assert texts == [" 0", " 4", " 2", " 6"]


def test_subjects_are_interleaved_so_a_short_run_covers_all(tmp_path: Path) -> None:
    rows = "".join(f"q{i},a,b,c,d,A\n" for i in range(5))
    _write(tmp_path / "x" / "alpha_test.csv", rows)
    _write(tmp_path / "x" / "beta_test.csv", rows)
    items = load_items(tmp_path / "x")
    assert [i.subject for i in items.items[:4]] == ["alpha", "beta", "alpha", "beta"]
    assert len(load_items(tmp_path / "x", limit=3).items) == 3


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("id,question,A,B,C,answer\n0,q,a,b,c,A\n", "lacks the column D"),
        ("id,question,A,B,C,D\n0,q,a,b,c,d\n", "lacks the column answer"),
        ("q,a,b,c,d\n", "has no header and 5 columns"),
        ("q,a,b,c,d,E\n", "the answer 'E' is not A, B, C or D"),
        ("id,question,A,B,C,D,answer\n0,q,a\n", "row 2, has 3 columns"),
    ],
)
def test_a_csv_that_does_not_fit_gets_one_sentence(tmp_path: Path, text: str, words: str) -> None:
    path = _write(tmp_path / "bad_test.csv", text)
    with pytest.raises(QualityError) as caught:
        load_items(path)
    message = str(caught.value)
    assert words in message
    assert "bad_test.csv" in message
    assert caught.value.kind == "quality.items"
    assert message.endswith(".")


def test_missing_and_empty_sources(tmp_path: Path) -> None:
    with pytest.raises(QualityError, match="no question file or folder"):
        load_items(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(QualityError, match=r"no \.csv or \.jsonl"):
        load_items(tmp_path / "empty")


def test_the_shipped_gaokao_set() -> None:
    items = load_items("gaokao")
    assert len(items.items) == 1241
    assert set(items.subjects) == {"历史", "生物", "思想政治", "化学", "物理", "数学", "英语"}
    assert all(i.language == "zh" and i.labels == ("A", "B", "C", "D") for i in items.items)
    assert len({i.key for i in items.items}) == 1241
    counts = [sum(1 for i in items.items if i.answer == a) for a in range(4)]
    assert min(counts) > 200  # the key is not lopsided
    folder = Path(__file__).resolve().parents[3] / "resources/quality/items/gaokao"
    assert "Apache License" in (folder / "LICENSE").read_text()
    assert "github.com/OpenLMLab/GAOKAO-Bench" in (folder / "SOURCE.md").read_text()


def test_shuffled_answers_keep_the_questions() -> None:
    items = load_items("gaokao", limit=200)
    shuffled = shuffled_answers(items, seed=1)
    assert [i.question for i in shuffled.items] == [i.question for i in items.items]
    changed = sum(a.answer != b.answer for a, b in zip(items.items, shuffled.items, strict=True))
    assert 100 < changed < 200  # about three in four change
