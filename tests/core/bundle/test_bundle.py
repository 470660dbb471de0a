"""Results bundles on real SQLite histories and real files: what a bundle carries from one
history to another, that importing is idempotent and all or nothing, and that truncated,
changed, foreign and newer files are refused with one sentence and change nothing."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from desktop.core.bundle import (
    FORMAT,
    VERSION,
    BundleDamaged,
    BundleError,
    BundleForeign,
    BundleNewer,
    export_results,
    import_bundle,
    read_bundle,
)
from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.errors import UsageError
from desktop.core.fit import (
    CalibrationEntry,
    CalibrationStore,
    calibration_for,
    machine_fingerprint,
)
from desktop.core.hardware import THIS_MACHINE, HardwareProfile, load_profile
from desktop.core.history import (
    ContestantRecord,
    History,
    PromptRecord,
    settings_dict,
)
from tests.core.history.test_store import make_report, model_file

LOAD = LoadSettings(n_ctx=1024, n_gpu_layers=0)


def probed(name: str) -> HardwareProfile:
    """A bundled profile as that machine's own probe would have stored it."""
    return replace(load_profile(name), source="probe", name=THIS_MACHINE)


PI = probed("raspberry-pi-5-8gb")
LAPTOP = probed("laptop-16gb-cpu")


def calibration_store(tmp_path: Path, profile: HardwareProfile, runs: int = 3) -> CalibrationStore:
    """This machine's calibration file with ``runs`` measured runs (measured 0.5x the
    prediction, 40 MiB more RAM than predicted)."""
    store = CalibrationStore(tmp_path / f"calibration-{runs}.json")
    for i in range(runs):
        store.add(
            CalibrationEntry(
                machine=machine_fingerprint(profile),
                source="run",
                model="Tiny",
                device="cpu",
                n_gpu_layers=0,
                n_ctx=1024,
                generated_tokens=64,
                predicted_tokens_per_s=20.0,
                measured_tokens_per_s=10.0 + 0.1 * i,
                predicted_ram_bytes=500 << 20,
                rss_peak_bytes=540 << 20,
                time=1000.0 + i,
            )
        )
    return store


def fill(history: History, tmp_path: Path, profile: HardwareProfile = PI) -> dict[str, Any]:
    """Two answers, a finished comparison with a vote and a quality measurement."""
    model = model_file(tmp_path, "tiny.gguf")
    first = history.record_run(
        make_report("Canberra.", rate=9.0),
        model=model,
        prompt="Capital of Australia?",
        label="Tiny 1B Q4_0",
        load=LOAD,
        params=p.SamplingParams(seed=1),
        profile=profile,
        machine=THIS_MACHINE,
    )
    second = history.record_run(
        make_report("Ottawa.", rate=11.0),
        model=model,
        prompt="Capital of Canada?",
        label="Tiny 1B Q4_0",
        load=LOAD,
        params=p.SamplingParams(seed=1),
        profile=profile,
        machine=THIS_MACHINE,
        source="run",
    )
    ref = history.model_ref(model, label="Tiny 1B Q4_0")
    settings = settings_dict(LOAD, p.SamplingParams())
    cid = history.create_comparison(
        title="Capitals",
        mode="fair",
        contestants=[
            ContestantRecord("Tiny", str(model), settings, model=ref),
            ContestantRecord("Tiny cold", str(model), settings, model=ref),
        ],
        prompts=[PromptRecord("Capital of Japan?"), PromptRecord("Capital of Peru?")],
        profile=profile,
        machine=THIS_MACHINE,
    )
    for c in (0, 1):
        for q in (0, 1):
            history.record_answer(cid, c, q, output=f"answer {c}{q}", report=make_report("x"))
        history.set_contestant_status(cid, c, "done")
    history.record_vote(cid, 0, "win", winner=1)
    history.set_comparison_status(cid, "finished")
    history.record_measurement(
        "quality.kld",
        metric="kld",
        value=0.0123,
        data={"kld": 0.0123, "chunks": 8},
        model=ref,
        settings=settings,
        profile=profile,
        machine=THIS_MACHINE,
    )
    return {"first": first.id, "second": second.id, "comparison": cid}


def counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {
            table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in (
                "runs",
                "comparisons",
                "contestants",
                "prompts",
                "votes",
                "measurements",
                "machines",
                "models",
                "machine_calibration",
            )
        }
    finally:
        conn.close()


@pytest.fixture
def edge(tmp_path: Path) -> tuple[History, Path, CalibrationStore]:
    """A history on "the Pi" with results, exported to a file."""
    folder = tmp_path / "pi"
    folder.mkdir()
    history = History(folder / "history.db")
    fill(history, folder)
    store = calibration_store(folder, PI)
    bundle = tmp_path / "pi.jsonl"
    export_results(history, bundle, name="pi-kitchen", profile=PI, calibration=store)
    return history, bundle, store


# -- the round trip -----------------------------------------------------------------------------


def test_a_bundle_carries_answers_comparisons_quality_and_calibration(
    tmp_path: Path, edge: tuple[History, Path, CalibrationStore]
) -> None:
    source, bundle, _ = edge
    laptop = History(tmp_path / "laptop.db")
    summary = import_bundle(laptop, bundle)
    c = summary.counts
    assert (c.runs_added, c.comparisons_added, c.answers_added, c.votes_added) == (2, 1, 4, 1)
    assert (c.measurements_added, c.calibration_added) == (1, 3)
    assert c.machines == ("pi-kitchen",)
    assert summary.header.machine_name == "pi-kitchen"
    assert "Imported from pi-kitchen: 2 answers, 1 comparison" in summary.text()

    # The answers read as they were measured, named after the machine they ran on.
    before = {r.prompt: r for r in source.runs()}
    after = {r.prompt: r for r in laptop.runs()}
    assert set(after) == set(before)
    for prompt, run in after.items():
        old = before[prompt]
        assert run.machine == "pi-kitchen"
        assert (run.created_at, run.output, run.source) == (old.created_at, old.output, old.source)
        assert run.settings == old.settings
        assert run.report is not None
        assert old.report is not None
        assert run.report.metrics.tokens_per_s == old.report.metrics.tokens_per_s
        assert run.model is not None
        assert old.model is not None
        assert (run.model.label, run.model.sha256) == (old.model.label, old.model.sha256)
    (summary_row,) = laptop.comparisons()
    assert summary_row.machine == "pi-kitchen"
    comparison = laptop.comparison(summary_row.id)
    original = source.comparison(edge[0].comparisons()[0].id)
    assert [r.output for r in comparison.runs] == [r.output for r in original.runs]
    assert [(v.prompt_index, v.outcome, v.winner) for v in comparison.votes] == [(0, "win", 1)]
    assert comparison.summary.state == "complete"
    assert [c.status for c in comparison.contestants] == ["done", "done"]
    (measurement,) = laptop.measurements(kind="quality")
    assert (measurement.metric, measurement.value, measurement.machine) == (
        "kld",
        0.0123,
        "pi-kitchen",
    )
    assert measurement.data == {"kld": 0.0123, "chunks": 8}

    # The Pi is a machine of this history, calibrated by its own runs.
    (pi,) = laptop.machines()
    assert (pi.name, pi.fingerprint, pi.runs, pi.comparisons) == (
        "pi-kitchen",
        machine_fingerprint(PI),
        6,
        1,
    )
    profile = laptop.machine_profile("pi-kitchen")
    assert profile.name == "pi-kitchen"
    assert profile.source == "imported"
    assert profile.cpu == PI.cpu
    assert profile.memory.total_bytes == PI.memory.total_bytes
    found = calibration_for(profile)
    assert found is not None
    calibration, source_kind = found
    assert source_kind == "profile"
    assert calibration.runs == 3
    assert calibration.cpu_speed_factor == pytest.approx(10.1 / 20.0)


def test_the_header_names_the_machine_its_profile_and_the_build(
    tmp_path: Path, edge: tuple[History, Path, CalibrationStore]
) -> None:
    _, bundle, _ = edge
    lines = bundle.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert (header["format"], header["version"]) == (FORMAT, VERSION)
    assert header["machine"] == {
        "ref": "local",
        "name": "pi-kitchen",
        "fingerprint": machine_fingerprint(PI),
    }
    local = json.loads(lines[1])
    assert (local["type"], local["ref"]) == ("machine", "local")
    # The exporting machine's profile as `hw --save` writes it: with its calibration.
    saved = HardwareProfile.from_dict(local["profile"])
    assert saved.cpu == PI.cpu
    assert local["profile"]["calibration"]["runs"] == 3
    end = json.loads(lines[-1])
    assert end["type"] == "end"
    assert end["records"] == len(lines) - 2
    # Another machine's answers stored here keep their own name; this machine's are renamed.
    machines = [json.loads(line) for line in lines if '"type":"machine"' in line]
    assert len(machines) >= 2
    assert {m["name"] for m in machines} == {"pi-kitchen"}
    with_build = tmp_path / "with-build.jsonl"
    export_results(
        edge[0],
        with_build,
        name="pi-kitchen",
        profile=PI,
        llama_cpp={"llama_cpp_version": "0.3.36", "backends": {"CPU": ["NEON"]}},
        calibration=edge[2],
    )
    header_with_build, _ = read_bundle(with_build)
    assert header_with_build.llama_cpp == {
        "llama_cpp_version": "0.3.36",
        "backends": {"CPU": ["NEON"]},
    }


def test_importing_twice_or_back_home_adds_nothing(
    tmp_path: Path, edge: tuple[History, Path, CalibrationStore]
) -> None:
    source, bundle, _ = edge
    laptop_path = tmp_path / "laptop.db"
    laptop = History(laptop_path)
    assert import_bundle(laptop, bundle).counts.added > 0
    once = counts(laptop_path)
    again = import_bundle(laptop, bundle).counts
    assert again.added == 0
    assert (again.runs_present, again.comparisons_present, again.measurements_present) == (
        2,
        1,
        1,
    )
    assert counts(laptop_path) == once
    # Back on the machine that made it: everything is already there.
    home = counts(source.path)
    back = import_bundle(source, bundle).counts
    assert back.added == 0
    assert counts(source.path) == home
    # A bundle of the laptop's history (the Pi's results in it) adds nothing to the Pi either.
    relay = tmp_path / "relay.jsonl"
    export_results(
        laptop, relay, name="laptop", profile=LAPTOP, calibration=CalibrationStore(tmp_path / "c")
    )
    assert import_bundle(source, relay).counts.added == 0
    # Only the laptop itself is new there: known by its profile, with no results of its own.
    assert counts(source.path) == {**home, "machines": home["machines"] + 1}
    assert [(m.name, m.runs) for m in source.machines()] == [(THIS_MACHINE, 6), ("laptop", 0)]
    assert import_bundle(source, relay).counts.added == 0
    assert counts(source.path) == {**home, "machines": home["machines"] + 1}


def test_a_comparison_that_grew_adds_its_new_answers_and_status(tmp_path: Path) -> None:
    pi = History(tmp_path / "pi.db")
    model = model_file(tmp_path)
    ref = pi.model_ref(model, label="Tiny")
    cid = pi.create_comparison(
        title="Long suite",
        mode="fair",
        contestants=[ContestantRecord("A", str(model), {}, model=ref)],
        prompts=[PromptRecord("one"), PromptRecord("two")],
        profile=PI,
        machine=THIS_MACHINE,
    )
    pi.record_answer(cid, 0, 0, output="first", report=make_report("first"))
    store = CalibrationStore(tmp_path / "cal.json")
    export_results(pi, tmp_path / "a.jsonl", name="pi", profile=PI, calibration=store)
    laptop = History(tmp_path / "laptop.db")
    import_bundle(laptop, tmp_path / "a.jsonl")
    (partial,) = laptop.comparisons()
    assert (partial.n_answers, partial.state) == (1, "running")

    # The power came back: the comparison was resumed and finished on the Pi.
    pi.record_answer(cid, 0, 1, output="second", report=make_report("second"))
    pi.set_contestant_status(cid, 0, "done")
    pi.record_vote(cid, 1, "all_bad")
    pi.set_comparison_status(cid, "finished")
    export_results(pi, tmp_path / "b.jsonl", name="pi", profile=PI, calibration=store)
    grown = import_bundle(laptop, tmp_path / "b.jsonl").counts
    assert (grown.comparisons_added, grown.comparisons_updated) == (0, 1)
    assert (grown.answers_added, grown.votes_added) == (1, 1)
    (complete,) = laptop.comparisons()
    assert (complete.id, complete.n_answers, complete.state) == (partial.id, 2, "complete")
    record = laptop.comparison(complete.id)
    assert [c.status for c in record.contestants] == ["done"]
    assert [r.output for r in record.runs] == ["first", "second"]


def test_since_and_kind_choose_what_goes_in(tmp_path: Path) -> None:
    history = History(tmp_path / "h.db")
    fill(history, tmp_path)
    runs = sorted(history.runs(source="playground") + history.runs(source="run"),
                  key=lambda r: r.created_at)  # fmt: skip
    store = calibration_store(tmp_path, PI)

    def export(**options: Any) -> dict[str, int]:
        path = tmp_path / "out.jsonl"
        export_results(history, path, name="pi", profile=PI, calibration=store, **options)
        _, results = read_bundle(path)
        return results.counts()

    everything = export()
    assert (everything["runs"], everything["comparisons"], everything["answers"]) == (2, 1, 4)
    assert (everything["measurements"], everything["calibration"]) == (1, 3)
    later = export(since=runs[1].created_at)
    assert later["runs"] == 1
    assert later["calibration"] == 0  # the calibration runs are older
    only_runs = export(kinds=("runs",))
    assert (only_runs["runs"], only_runs["comparisons"], only_runs["measurements"]) == (2, 0, 0)
    assert only_runs["calibration"] == 3
    only_comparisons = export(kinds=("comparisons",))
    assert (only_comparisons["runs"], only_comparisons["comparisons"]) == (0, 1)
    assert only_comparisons["calibration"] == 0
    quality = export(kinds=("quality",))
    assert (quality["runs"], quality["comparisons"], quality["measurements"]) == (0, 0, 1)
    with pytest.raises(UsageError, match="Unknown kind 'votes'"):
        export(kinds=("votes",))


def test_this_machine_is_not_a_name_to_export_under(tmp_path: Path) -> None:
    history = History(tmp_path / "h.db")
    with pytest.raises(UsageError, match="names the computer that reads"):
        export_results(history, tmp_path / "x.jsonl", name="This Machine", profile=PI)
    with pytest.raises(UsageError, match="Give the machine a name"):
        export_results(history, tmp_path / "x.jsonl", name="  ", profile=PI)
    assert not (tmp_path / "x.jsonl").exists()


def test_a_file_that_cannot_be_written_leaves_nothing_behind(tmp_path: Path) -> None:
    history = History(tmp_path / "h.db")
    fill(history, tmp_path)
    folder = tmp_path / "read-only"
    folder.mkdir()
    target = folder / "missing" / "out.jsonl"
    with pytest.raises(BundleError, match="Cannot write the results file"):
        export_results(
            history, target, name="pi", profile=PI, calibration=CalibrationStore(tmp_path / "c")
        )
    assert list(folder.rglob("*")) == []


# -- refused files ------------------------------------------------------------------------------


def rewrite(path: Path, lines: list[dict[str, Any]]) -> None:
    """Write records as a bundle with a correct end line (a well-made file with bad content)."""
    body = [(json.dumps(line, separators=(",", ":")) + "\n").encode() for line in lines]
    digest = hashlib.sha256(b"".join(body)).hexdigest()
    end = {"type": "end", "records": len(lines) - 1, "sha256": digest}
    path.write_bytes(b"".join(body) + (json.dumps(end) + "\n").encode())


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:-1]]


def refused(history_path: Path, bundle: Path, error: type[BundleError], words: str) -> BundleError:
    """Importing ``bundle`` fails with one sentence and changes nothing."""
    before = counts(history_path)
    with History(history_path) as history, pytest.raises(error) as info:
        import_bundle(history, bundle)
    message = info.value.message
    assert words in message
    assert message.endswith(".")
    assert "\n" not in message
    assert bundle.name in message
    assert counts(history_path) == before
    return info.value


@pytest.fixture
def laptop_path(tmp_path: Path) -> Path:
    """A laptop history with one answer of its own."""
    path = tmp_path / "laptop.db"
    with History(path) as history:
        history.record_run(
            make_report(), model=model_file(tmp_path, "own.gguf"), prompt="Own", profile=LAPTOP
        )
    return path


@pytest.mark.parametrize("keep", [0.999, 0.75, 0.5, 0.25, 0.02])
def test_a_truncated_file_is_refused_whole(
    tmp_path: Path, edge: tuple[History, Path, CalibrationStore], laptop_path: Path, keep: float
) -> None:
    _, bundle, _ = edge
    data = bundle.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: int(len(data) * keep)])
    refused(laptop_path, cut, BundleDamaged, "is incomplete (it was cut short)")


def test_a_file_cut_at_a_line_end_is_refused(
    tmp_path: Path, edge: tuple[History, Path, CalibrationStore], laptop_path: Path
) -> None:
    _, bundle, _ = edge
    lines = bundle.read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:-1]))  # every record, no end line
    refused(laptop_path, cut, BundleDamaged, "is incomplete")


def test_a_changed_file_is_refused_whole(
    tmp_path: Path, edge: tuple[History, Path, CalibrationStore], laptop_path: Path
) -> None:
    _, bundle, _ = edge
    text = bundle.read_text(encoding="utf-8")
    assert "Canberra." in text
    changed = tmp_path / "changed.jsonl"
    changed.write_text(text.replace("Canberra.", "Sydney..."), encoding="utf-8")
    refused(laptop_path, changed, BundleDamaged, "checksum does not match")
    dropped = tmp_path / "dropped.jsonl"
    lines = text.splitlines(keepends=True)
    dropped.write_text("".join(lines[:3] + lines[4:]), encoding="utf-8")  # a record removed
    refused(laptop_path, dropped, BundleDamaged, "checksum does not match")


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00\x01\x02 not text at all",
        b'{"cpu": {"brand": "x"}, "memory": {}}\n',  # a hardware profile, say
        b'{"format": "something-else", "version": 1}\n{"type": "end"}\n',
        b"GGUF\x03\x00\x00\x00",
        b"id,prompt\n1,hello\n",
    ],
)
def test_a_foreign_file_is_refused(tmp_path: Path, laptop_path: Path, content: bytes) -> None:
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_bytes(content)
    refused(laptop_path, foreign, BundleForeign, "is not an LLM Scout results file")


def test_a_newer_format_gets_its_own_sentence(
    tmp_path: Path, edge: tuple[History, Path, CalibrationStore], laptop_path: Path
) -> None:
    _, bundle, _ = edge
    lines = bundle.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["version"] = VERSION + 1
    newer = tmp_path / "newer.jsonl"
    # A newer version may change everything after its header: even a file that would not
    # verify as version 1 gets the sentence about the version.
    newer.write_text(json.dumps(header) + "\n" + "".join(lines[1:3]), encoding="utf-8")
    error = refused(laptop_path, newer, BundleNewer, "was written by a newer LLM Scout")
    assert f"results format {VERSION + 1}" in error.message
    assert "update LLM Scout" in error.message


def test_a_bad_record_in_a_well_made_file_imports_nothing(
    tmp_path: Path, edge: tuple[History, Path, CalibrationStore], laptop_path: Path
) -> None:
    _, bundle, _ = edge
    lines = records(bundle)
    kinds = [line.get("type") for line in lines]
    last_run = max(i for i, kind in enumerate(kinds) if kind == "run")
    broken = [dict(line) for line in lines]
    del broken[last_run]["output"]
    bad = tmp_path / "bad.jsonl"
    rewrite(bad, broken)
    error = refused(laptop_path, bad, BundleDamaged, "is damaged: the 2nd answer record")
    assert "'output'" in error.message
    assert "nothing was imported" in error.message

    dangling = [dict(line) for line in lines]
    dangling[last_run]["machine"] = "m999"
    rewrite(bad, dangling)
    refused(laptop_path, bad, BundleDamaged, "names a machine the file does not describe")

    unknown = [*lines[:2], {"type": "telemetry", "x": 1}, *lines[2:]]
    rewrite(bad, unknown)
    refused(laptop_path, bad, BundleDamaged, "line 3 is not a known record")


def test_records_that_contradict_each_other_roll_back_what_was_written(
    tmp_path: Path, edge: tuple[History, Path, CalibrationStore], laptop_path: Path
) -> None:
    """The answers come first in the file and are written first; a comparison after them
    that the database refuses (two contestants with one index) undoes them too."""
    _, bundle, _ = edge
    lines = records(bundle)
    for line in lines:
        if line.get("type") == "comparison":
            line["contestants"][1]["idx"] = 0
            line["answers"] = [a for a in line["answers"] if a["contestant_idx"] == 0]
    bad = tmp_path / "contradiction.jsonl"
    rewrite(bad, lines)
    refused(laptop_path, bad, BundleDamaged, "its records contradict each other")


# -- a comparison's quality results ----------------------------------------------------------


def quality_comparison(history: History, tmp_path: Path, profile: HardwareProfile = PI) -> int:
    """A comparison whose quality check measured its first contestant and failed its second."""
    ref = history.model_ref(model_file(tmp_path, "tiny.gguf"), label="Tiny 1B Q4_0")
    settings = settings_dict(LOAD, p.SamplingParams())
    cid = history.create_comparison(
        title="Quality",
        mode="fair",
        contestants=[
            ContestantRecord("Tiny", "tiny", settings, model=ref),
            ContestantRecord("Tiny again", "tiny", settings, model=ref),
        ],
        prompts=[PromptRecord("Hi?")],
        options={"quality": {"kind": "items", "source": "gaokao", "limit": 2}},
        profile=profile,
        machine=THIS_MACHINE,
    )
    history.record_measurement(
        "quality.choice",
        metric="accuracy",
        value=0.5,
        data={"accuracy": 0.5},
        model=ref,
        settings={"comparison": cid, "contestant": 0},
        profile=profile,
        machine=THIS_MACHINE,
    )
    history.set_contestant_quality(cid, 1, "failed", "The question file lacks the column D.")
    history.set_comparison_status(cid, "finished")
    return cid


def test_an_imported_comparison_brings_its_quality_results_and_failures(tmp_path: Path) -> None:
    pi = History(tmp_path / "pi.db")
    laptop = History(tmp_path / "laptop.db")
    # The laptop already has a comparison numbered like the Pi's, so the Pi's number would
    # point at the wrong one here.
    (tmp_path / "own").mkdir()
    quality_comparison(laptop, tmp_path / "own", LAPTOP)
    cid = quality_comparison(pi, tmp_path)
    bundle = tmp_path / "pi.jsonl"
    # Comparisons only: their quality results come with them.
    export_results(pi, bundle, name="pi-kitchen", profile=PI, kinds=("comparisons",))
    counted = import_bundle(laptop, bundle).counts
    assert (counted.comparisons_added, counted.measurements_added) == (1, 1)
    imported = next(c.id for c in laptop.comparisons() if c.machine == "pi-kitchen")
    assert imported != cid
    (result,) = laptop.measurements(kind="quality", comparison=imported)
    assert (result.value, result.machine, result.settings["contestant"]) == (0.5, "pi-kitchen", 0)
    contestants = laptop.comparison(imported).contestants
    assert [(k.quality_status, k.quality_reason) for k in contestants] == [
        (None, None),
        ("failed", "The question file lacks the column D."),
    ]
    # Everything at once: the same result is not counted twice; importing again adds nothing.
    everything = tmp_path / "all.jsonl"
    export_results(pi, everything, name="pi-kitchen", profile=PI)
    again = import_bundle(laptop, everything).counts
    assert again.added == 0
    assert (again.comparisons_present, again.measurements_present) == (1, 0)
    assert len(laptop.measurements(kind="quality", comparison=imported)) == 1


def test_an_older_export_without_quality_results_still_imports_and_is_completed_later(
    tmp_path: Path,
) -> None:
    pi = History(tmp_path / "pi.db")
    quality_comparison(pi, tmp_path)
    bundle = tmp_path / "pi.jsonl"
    export_results(pi, bundle, name="pi-kitchen", profile=PI)
    # As an older version wrote it: no quality fields on the comparison and its contestants.
    lines = records(bundle)
    for line in lines:
        if line.get("type") == "comparison":
            del line["quality"]
            for k in line["contestants"]:
                del k["quality_status"], k["quality_reason"]
    old = tmp_path / "old.jsonl"
    rewrite(old, lines)
    laptop = History(tmp_path / "laptop.db")
    (tmp_path / "own").mkdir()
    quality_comparison(laptop, tmp_path / "own", LAPTOP)  # the Pi's number is taken here
    counted = import_bundle(laptop, old).counts
    assert (counted.comparisons_added, counted.measurements_added) == (1, 1)
    imported = next(c for c in laptop.comparisons() if c.machine == "pi-kitchen")
    assert laptop.measurements(kind="quality", comparison=imported.id) == []  # not linked
    # The newer export of the same comparison links the result already here.
    counted = import_bundle(laptop, bundle).counts
    assert counted.comparisons_updated == 1
    assert counted.measurements_added == 0
    assert len(laptop.measurements(kind="quality", comparison=imported.id)) == 1

    # A quality result of a contestant that is not there is refused whole.
    for line in lines:
        if line.get("type") == "comparison":
            line["quality"] = [{"machine": "local"}]
    rewrite(old, lines)
    with pytest.raises(BundleDamaged, match="a quality result of the 1st comparison record"):
        import_bundle(History(tmp_path / "third.db"), old)
