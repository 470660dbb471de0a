"""Quality records in the catalog: the schema refuses a score without a source, the bundled
file loads with the catalog, and its data covers what the README says."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from desktop.core import paths
from desktop.core.catalog import bundled_quality_path, load_catalog, load_catalog_safe
from desktop.core.catalog.load import check_document
from desktop.core.errors import CatalogError
from desktop.core.recommend import TASKS, Recommender, coverage
from tests.core.recommend.catalogs import bundled_document, record


def write(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def quality_file(**source: Any) -> dict[str, Any]:
    block = {
        "url": "https://example.org/table",
        "title": "A table",
        "read": "2026-12-01",
        "licence": "CC BY 4.0",
        "vendor_family": "qwen",
        "records": {
            "qwen2.5-7b-instruct": [{"benchmark": "c-eval", "score": 70.0, "metric": "accuracy"}]
        },
    }
    block.update(source)
    return {"schema_version": 1, "sources": [block]}


def test_a_score_without_a_source_fails_the_schema_check() -> None:
    document = bundled_document()
    bare = record("c-eval", 70.0)
    del bare["source"]
    document["models"][0]["quality"] = [bare]
    with pytest.raises(CatalogError) as caught:
        check_document(document, "models_catalog.json")
    assert "/models/0/quality/0" in caught.value.message
    assert "source" in caught.value.message


@pytest.mark.parametrize(
    "source", ["", "example.org/table", "http://example.org/table", "https://"]
)
def test_a_source_must_be_an_https_address(source: str) -> None:
    document = bundled_document()
    document["models"][0]["quality"] = [record("c-eval", 70.0, source=source)]
    with pytest.raises(CatalogError, match="/models/0/quality/0/source"):
        check_document(document, "models_catalog.json")


def test_a_sourced_score_passes_and_reaches_the_model(tmp_path: Path) -> None:
    document = bundled_document()
    document["models"][0]["quality"] = [record("c-eval", 70.5, shots=5, thinking=True)]
    path = write(tmp_path / "catalog.json", document)
    catalog = load_catalog(path, tmp_path / "no-user.json", quality=tmp_path / "none.json")
    (only,) = catalog.models[0].quality
    assert (only.benchmark, only.score, only.shots, only.thinking) == ("c-eval", 70.5, 5, True)
    assert only.setting_text() == "accuracy, 5-shot, thinking on"
    assert only.source.startswith("https://")


def test_a_score_in_the_user_overlay_without_a_source_names_the_user_file(tmp_path: Path) -> None:
    bare = record("c-eval", 70.0)
    del bare["source"]
    user = paths.user_catalog_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    write(user, {"schema_version": 1, "models": [{"id": "qwen2.5-7b-instruct", "quality": [bare]}]})
    catalog, errors = load_catalog_safe(user=user)
    assert catalog.models, "the bundled catalog still loads"
    assert len(errors) == 1
    assert str(user) in errors[0].message
    assert "source" in errors[0].message


def test_the_quality_file_gives_each_score_its_source(tmp_path: Path) -> None:
    path = write(tmp_path / "q.json", quality_file())
    catalog = load_catalog(quality=path)
    (only,) = catalog.model("qwen2.5-7b-instruct").quality
    assert only.source == "https://example.org/table"
    assert only.source_title == "A table"
    assert only.licence == "CC BY 4.0"
    assert only.read == "2026-12-01"
    assert only.self_reported  # the qwen vendor's own table about a qwen model


def test_a_score_about_another_vendors_model_is_independent(tmp_path: Path) -> None:
    path = write(tmp_path / "q.json", quality_file(vendor_family="llama"))
    (only,) = load_catalog(quality=path).model("qwen2.5-7b-instruct").quality
    assert not only.self_reported


def test_unknown_models_in_the_quality_file_are_left_out(tmp_path: Path) -> None:
    document = quality_file()
    document["sources"][0]["records"]["no-such-model"] = [
        {"benchmark": "c-eval", "score": 1.0, "metric": "accuracy"}
    ]
    catalog = load_catalog(quality=write(tmp_path / "q.json", document))
    assert catalog.get("no-such-model") is None
    assert len(catalog.model("qwen2.5-7b-instruct").quality) == 1


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"url": "ftp://example.org/x"}, "/sources/0/url"),
        ({"read": "yesterday"}, "/sources/0/read"),
        ({"licence": ""}, "/sources/0/licence"),
    ],
)
def test_a_broken_quality_file_is_named_with_its_pointer(
    tmp_path: Path, change: dict[str, Any], where: str
) -> None:
    path = write(tmp_path / "q.json", quality_file(**change))
    with pytest.raises(CatalogError) as caught:
        load_catalog(quality=path)
    assert str(path) in caught.value.message
    assert where in caught.value.message
    catalog, errors = load_catalog_safe(quality=path)
    assert catalog.models
    assert errors
    assert str(path) in errors[0].message


def test_a_score_without_its_metric_is_refused(tmp_path: Path) -> None:
    document = quality_file()
    del document["sources"][0]["records"]["qwen2.5-7b-instruct"][0]["metric"]
    with pytest.raises(CatalogError, match="metric"):
        load_catalog(quality=write(tmp_path / "q.json", document))


# --- the bundled data ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundled() -> Any:
    return json.loads(bundled_quality_path().read_text(encoding="utf-8"))


def test_every_bundled_score_names_a_catalog_model_and_a_dated_source(bundled: Any) -> None:
    catalog_ids = {m["id"] for m in bundled_document()["models"]}
    for source in bundled["sources"]:
        assert source["url"].startswith("https://"), source["title"]
        assert source["read"] == "2026-12-01"
        assert source["licence"]
        assert set(source["records"]) <= catalog_ids, source["title"]


def test_the_bundled_scores_cover_the_tasks_the_readme_claims() -> None:
    catalog = load_catalog()
    records = {m.id: m.quality for m in catalog.models}
    with_three = [
        model_id
        for model_id, quality in records.items()
        if sum(
            any(
                r.benchmark == measure.benchmark and r.metric in measure.metrics
                for r in quality
                for measure in spec.measures
            )
            for spec in TASKS.values()
        )
        >= 3
    ]
    assert len(with_three) >= 25
    zh = {
        m.id for m in catalog.models if any(r.benchmark in ("c-eval", "cmmlu") for r in m.quality)
    }
    qwen_deepseek = {m.id for m in catalog.models if m.family in ("qwen", "deepseek")}
    # The one Qwen model no source was found for (README, "Sources not found").
    assert qwen_deepseek - zh == {"qwen2.5-0.5b-instruct"}
    other_families = {m.family for m in catalog.models if m.id in zh} - {"qwen", "deepseek"}
    assert {"llama", "gemma", "phi"} <= other_families
    placed = coverage(catalog.models, Recommender(catalog.models).scales())
    assert sum(len(tasks) >= 3 for tasks in placed.values()) >= 25


def test_an_unchanged_quality_file_skips_the_schema_and_a_changed_one_is_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.core.catalog.schema import quality_file_problem as real

    calls: list[int] = []

    def counting(document: Any) -> Any:
        calls.append(1)
        return real(document)

    monkeypatch.setattr("desktop.core.catalog.quality.quality_file_problem", counting)
    path = write(tmp_path / "q.json", quality_file())
    first = load_catalog(quality=path)
    again = load_catalog(quality=path)
    assert len(calls) == 1  # the same file: checked once
    assert again.model("qwen2.5-7b-instruct").quality == first.model("qwen2.5-7b-instruct").quality
    broken = quality_file()
    del broken["sources"][0]["licence"]
    path.write_text(json.dumps(broken), encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    with pytest.raises(CatalogError, match="licence"):
        load_catalog(quality=path)
    assert len(calls) == 2
