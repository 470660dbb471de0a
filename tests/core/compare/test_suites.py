"""Prompt suites: the built-in ones, JSONL and CSV imports with bad rows, long documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.compare import (
    CompareError,
    PromptSuite,
    build_document,
    builtin_names,
    estimate_tokens,
    find_suite,
    list_suites,
    load_suite_file,
    single_prompt,
)
from desktop.core.compare.longdoc import Insert, source_path
from desktop.core.compare.suites import suites_dir

BUILTIN = {"general-en", "chinese", "coding", "summarisation", "long-context"}


def test_the_built_in_suites_are_there_with_six_to_twelve_prompts() -> None:
    assert set(builtin_names()) == BUILTIN
    for suite in list_suites():
        assert suite.problems == (), suite.name
        assert suite.title, suite.name
        assert suite.description, suite.name
        assert suite.language, suite.name
        expected = (3, 3) if suite.name == "long-context" else (6, 12)
        assert expected[0] <= len(suite.prompts) <= expected[1], suite.name
        ids = [q.id for q in suite.prompts]
        assert len(set(ids)) == len(ids)
        assert suite.path == suites_dir() / f"{suite.name}.jsonl"


def test_most_prompts_carry_checks() -> None:
    for suite in list_suites():
        with_checks = sum(1 for q in suite.prompts if q.checks)
        assert with_checks >= len(suite.prompts) * 0.6, suite.name


def test_the_chinese_suite_is_chinese_utf8() -> None:
    raw = (suites_dir() / "chinese.jsonl").read_bytes()
    raw.decode("utf-8")  # strict: raises on anything that is not UTF-8
    suite = find_suite("chinese")
    assert suite.language == "zh"
    for prompt in suite.prompts:
        han = sum(1 for ch in prompt.text if "\u4e00" <= ch <= "\u9fff")
        assert han >= len(prompt.text.replace(" ", "")) * 0.5, prompt.id
        assert "\ufffd" not in prompt.text
    categories = {q.category for q in suite.prompts}
    assert {"推理", "写作", "知识"} <= categories


def test_long_context_prompts_are_about_4k_16k_and_32k_tokens() -> None:
    suite = find_suite("long-context")
    sizes = [q.estimated_tokens for q in suite.prompts]
    for size, target in zip(sizes, (4000, 16000, 32000), strict=True):
        assert target <= size <= target * 1.05
    # The question comes last, after the document; the fact it asks about is inside.
    first = suite.prompts[0]
    assert first.text.rstrip().endswith("Answer with the number.")
    assert "tin box number 4417" in first.text
    assert first.preview().startswith("Question: In which numbered tin box")
    assert suite.context_needed(256) > 32000
    # Generated, not stored: the repository stays light and the text is the same every time.
    assert (suites_dir() / "long-context.jsonl").stat().st_size < 4000
    assert source_path().stat().st_size < 16000
    assert find_suite("long-context").prompts == suite.prompts


def test_long_documents_are_deterministic_and_place_their_facts() -> None:
    facts = [Insert(0.9, "FACT-LATE"), Insert(0.1, "FACT-EARLY")]
    doc = build_document(2000, seed=5, inserts=facts)
    assert doc == build_document(2000, seed=5, inserts=facts)
    assert doc != build_document(2000, seed=6, inserts=facts)
    early, late = doc.index("FACT-EARLY"), doc.index("FACT-LATE")
    assert early < len(doc) * 0.25 < len(doc) * 0.75 < late
    assert 2000 <= estimate_tokens(doc) <= 2200
    assert "{" not in doc  # every slot filled


def test_estimated_tokens_count_chinese_characters_as_tokens() -> None:
    assert estimate_tokens("天空为什么是蓝色的") >= 9
    assert estimate_tokens("a" * 410) == 101


def test_a_jsonl_suite_with_bad_rows_loads_the_good_ones_and_names_the_lines(
    tmp_path: Path,
) -> None:
    lines = [
        json.dumps({"suite": {"name": "mine", "title": "Mine", "language": "en"}}),
        json.dumps({"id": "a", "prompt": "Say hi.", "checks": [{"contains": "hi"}]}),
        "{not json",
        "",
        json.dumps({"id": "b", "prompt": "   "}),
        json.dumps({"id": "c", "prompt": "Count.", "checks": [{"numeric": "lots"}]}),
        json.dumps({"id": "a", "prompt": "Again."}),
        json.dumps({"prompt": "No id.", "max_tokens": 32, "system": "Be brief."}),
        json.dumps({"id": "d", "prompt": "X", "colour": "red"}),
        json.dumps(["a", "list"]),
        json.dumps({"id": "e", "prompt": "Y", "max_tokens": 0}),
        json.dumps({"id": "f", "prompt": "Z", "document": {"tokens": -1}}),
        json.dumps({"suite": {"name": "late"}}),
    ]
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite = load_suite_file(path)
    assert suite.name == "mine"
    assert suite.title == "Mine"
    assert [q.id for q in suite.prompts] == ["a", "2"]  # no id: its place in the suite
    assert suite.prompts[1].max_tokens == 32
    assert suite.prompts[1].system == "Be brief."
    problems = {p.line: p.message for p in suite.problems}
    assert sorted(problems) == [3, 5, 6, 7, 9, 10, 11, 12, 13]
    assert "not valid JSON" in problems[3]
    assert "non-empty" in problems[5]
    assert "must be a number" in problems[6]
    assert "used twice" in problems[7]
    assert "colour" in problems[9]
    assert "JSON object" in problems[10]
    assert "at least 1" in problems[11]
    assert "positive" in problems[12]
    assert "first" in problems[13]
    assert str(suite.problems[0]) == f"line 3: {problems[3]}"


def test_a_csv_suite_with_bad_rows_loads_the_good_ones_and_names_the_lines(
    tmp_path: Path,
) -> None:
    text = (
        "id,prompt,contains,numeric,tolerance,regex,max_tokens\n"
        'capital,"What is the capital of Australia?",Canberra | canberra,,,,16\n'
        'multi,"A prompt\nover two lines",,42,0.5,,\n'
        "empty,,x,,,,\n"
        "badnum,How many?,,many,,,\n"
        "badre,Match?,,,,(,\n"
        "zh,天空为什么是蓝色的？,瑞利,,,,\n"
        "toolong,a,b,c,d,e,f,g,h\n"
    )
    path = tmp_path / "mine.csv"
    path.write_text(text, encoding="utf-8")
    suite = load_suite_file(path)
    assert suite.name == "mine"
    assert [q.id for q in suite.prompts] == ["capital", "multi", "zh"]
    capital = suite.prompts[0]
    assert capital.max_tokens == 16
    assert capital.checks[0].values == ("Canberra", "canberra")
    assert suite.prompts[1].text == "A prompt\nover two lines"
    assert suite.prompts[1].checks[0].tolerance == 0.5
    assert [(p.line, p.message.split(":")[0]) for p in suite.problems] == [
        (5, 'the "prompt" cell is empty'),
        (6, "numeric must be a number, not 'many'"),
        (7, "the pattern '(' is not valid"),
        (9, "9 cells for 7 columns in the header"),
    ]


def test_a_file_with_no_usable_prompt_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(CompareError) as info:
        load_suite_file(empty)
    assert info.value.kind == "compare.suite"
    assert "no usable prompt" in info.value.message
    headless = tmp_path / "bad.csv"
    headless.write_text("question\nWhat?\n", encoding="utf-8")
    with pytest.raises(CompareError, match="prompt"):
        load_suite_file(headless)
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(
        json.dumps({"prompt": "caf\u00e9"}).encode("utf-8").replace(b"\\u00e9", b"\xe9")
    )
    with pytest.raises(CompareError, match="not UTF-8"):
        load_suite_file(latin)


def test_suites_are_found_by_name_or_path(tmp_path: Path) -> None:
    assert find_suite("coding").name == "coding"
    path = tmp_path / "coding.jsonl"
    path.write_text(json.dumps({"prompt": "Write hello world in C."}) + "\n", encoding="utf-8")
    mine = find_suite(str(path))
    assert mine.path == path
    assert len(mine.prompts) == 1
    with pytest.raises(CompareError) as info:
        find_suite("poetry")
    assert info.value.kind == "compare.suite_not_found"
    assert "general-en" in info.value.message


def test_a_single_prompt_is_a_suite_of_one() -> None:
    suite = single_prompt("Hello?", system="Be brief.")
    assert isinstance(suite, PromptSuite)
    assert [(q.text, q.system) for q in suite.prompts] == [("Hello?", "Be brief.")]
    with pytest.raises(CompareError):
        single_prompt("  ")
