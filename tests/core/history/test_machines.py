"""Machines in the history: which machine each answer names, filters by machine, the machines'
profiles (an imported one calibrated by its own runs, and reachable as ``--profile NAME``), and
one model with the same settings side by side across machines."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from desktop.core.bundle import export_results, import_bundle
from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.errors import HardwareError
from desktop.core.fit import CalibrationStore, calibration_for
from desktop.core.hardware import THIS_MACHINE
from desktop.core.history import (
    ContestantRecord,
    History,
    HistoryNotFound,
    PromptRecord,
    SettingsKey,
    across_machines,
    find_model,
    models_across_machines,
    settings_dict,
)
from desktop.core.workspace import Workspace
from tests.core.bundle.test_bundle import LAPTOP, PI, calibration_store
from tests.core.history.test_store import make_report

LOAD = LoadSettings(n_ctx=1024, n_gpu_layers=0)


def shared_model(folder: Path) -> Path:
    """The same model file on two machines: same bytes, another path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "shared-q4.gguf"
    path.write_bytes(bytes(range(256)) * 64)
    return path


def answers(
    history: History,
    model: Path,
    rates: list[float],
    *,
    profile: object,
    load: LoadSettings = LOAD,
    peak: int = 300 << 20,
) -> None:
    for i, rate in enumerate(rates):
        history.record_run(
            make_report(f"answer {rate}", rate=rate, peak=peak + i),
            model=model,
            prompt=f"question {i}",
            label="Shared 1B Q4_0",
            load=load,
            params=p.SamplingParams(seed=1),
            profile=profile,  # type: ignore[arg-type]
            machine=THIS_MACHINE,
        )


@pytest.fixture
def two_machines(tmp_path: Path) -> History:
    """A laptop history with its own answers and the Pi's, imported."""
    pi = History(tmp_path / "pi.db")
    answers(pi, shared_model(tmp_path / "pi"), [4.0, 5.0, 6.0], profile=PI, peak=280 << 20)
    answers(
        pi,
        shared_model(tmp_path / "pi"),
        [2.0],
        profile=PI,
        load=LoadSettings(n_ctx=8192, n_gpu_layers=0),
    )
    pi.record_measurement(
        "quality.kld",
        metric="kld",
        value=0.02,
        model=pi.model_ref(shared_model(tmp_path / "pi")),
        profile=PI,
        machine=THIS_MACHINE,
    )
    bundle = tmp_path / "pi.jsonl"
    export_results(pi, bundle, name="pi", profile=PI, calibration=calibration_store(tmp_path, PI))
    laptop = History(tmp_path / "laptop.db")
    answers(laptop, shared_model(tmp_path / "laptop"), [30.0, 40.0], profile=LAPTOP)
    # An answer stored before the probe finished: it ran here too.
    laptop.record_run(make_report("early"), model=None, prompt="early bird")
    import_bundle(laptop, bundle)
    return laptop


def test_every_answer_names_its_machine_and_filters_follow(two_machines: History) -> None:
    history = two_machines
    machines = history.machines()
    assert [(m.name, m.local, m.runs) for m in machines] == [
        (THIS_MACHINE, True, 3),
        ("pi", False, 4),
    ]
    assert {r.machine for r in history.runs()} == {THIS_MACHINE, "pi"}
    assert sorted(r.prompt for r in history.runs(machine=THIS_MACHINE)) == [
        "early bird",
        "question 0",
        "question 1",
    ]
    assert len(history.runs(machine="pi")) == 4
    assert {r.machine for r in history.runs(machine="PI")} == {"pi"}
    assert len(history.runs(machine=machines[1].key)) == 4
    with pytest.raises(HistoryNotFound, match=r"No machine 'jetson' in the history \(machines: "):
        history.runs(machine="jetson")


def test_comparisons_filter_by_machine(two_machines: History, tmp_path: Path) -> None:
    history = two_machines
    model = shared_model(tmp_path / "laptop")
    history.create_comparison(
        title="Here",
        mode="fair",
        contestants=[ContestantRecord("A", str(model), {})],
        prompts=[PromptRecord("hi")],
        profile=LAPTOP,
        machine=THIS_MACHINE,
    )
    assert [c.title for c in history.comparisons(machine=THIS_MACHINE)] == ["Here"]
    assert history.comparisons(machine="pi") == []


def test_two_machines_of_one_name_are_told_apart(tmp_path: Path) -> None:
    history = History(tmp_path / "h.db")
    model = shared_model(tmp_path)
    for profile in (PI, LAPTOP):
        history.record_run(make_report(), model=model, prompt="x", profile=profile, machine="box")
    keys = [m.key for m in history.machines()]
    assert len(keys) == 2
    assert all(k.startswith("box@") for k in keys)
    with pytest.raises(HistoryNotFound, match="Several machines are named 'box'"):
        history.machine("box")
    assert history.machine(keys[0]).key == keys[0]


def test_an_imported_machine_is_a_calibrated_profile_for_estimates(
    two_machines: History, scout_home: Path
) -> None:
    profile = two_machines.machine_profile("pi")
    assert (profile.name, profile.source) == ("pi", "imported")
    found = calibration_for(profile)
    assert found is not None
    assert found[1] == "profile"
    assert found[0].runs == 3
    # This machine's profile is its newest probe, calibrated by its own store, not here.
    assert two_machines.machine_profile(THIS_MACHINE).source == "probe"
    assert two_machines.machines()[0].calibration is None


def test_fit_and_catalog_find_an_imported_machine_by_name(tmp_path: Path, scout_home: Path) -> None:
    pi = History(tmp_path / "pi.db")
    answers(pi, shared_model(tmp_path / "pi"), [4.0], profile=PI)
    bundle = tmp_path / "pi.jsonl"
    export_results(
        pi, bundle, name="my pi", profile=PI, calibration=calibration_store(tmp_path, PI)
    )
    workspace = Workspace.load(with_demos=False)
    with pytest.raises(HardwareError, match="No hardware profile named 'my pi'"):
        workspace.profile("my pi")
    with History.open() as history:
        import_bundle(history, bundle)
    profile, name = workspace.profile("my pi")
    assert name == "my pi"
    assert profile.source == "imported"
    assert profile.calibration is not None
    assert profile.calibration["runs"] == 3
    # A bundled what-if profile of that name would still win; an unknown name still fails.
    assert workspace.profile("raspberry-pi-5-8gb")[0].source == "what-if"
    with pytest.raises(HardwareError):
        workspace.profile(THIS_MACHINE)


def test_one_model_side_by_side_on_two_machines(two_machines: History) -> None:
    choices = models_across_machines(two_machines)
    assert len(choices) == 1  # one file on both machines, stored under two paths
    (choice,) = choices
    assert choice.label == "Shared 1B Q4_0"
    assert set(choice.machines) == {THIS_MACHINE, two_machines.machine("pi").key}
    same = SettingsKey(n_ctx=1024, n_gpu_layers=0, cache_type="f16", flash_attn=False)
    assert choice.best_settings() == same
    view = across_machines(two_machines, choice.key)
    assert view.settings == same
    here, pi = view.columns
    assert (here.machine.name, pi.machine.name) == (THIS_MACHINE, "pi")
    assert (here.runs, pi.runs) == (2, 3)
    assert here.generation_tokens_per_s == statistics.median([30.0, 40.0])
    assert pi.generation_tokens_per_s == 5.0
    assert pi.rss_peak_bytes == (280 << 20) + 1
    assert (here.ttft_ms, pi.ttft_ms) == (120.0, 120.0)
    assert pi.threads == (2,)
    assert [(q.metric, q.value) for q in pi.quality] == [("kld", 0.02)]
    assert here.quality == ()
    assert pi.machine.profile is not None
    assert pi.machine.profile.cpu == PI.cpu
    assert pi.machine.calibration is not None
    assert pi.machine.calibration.runs == 3
    document = view.to_dict()
    assert [m["machine"] for m in document["machines"]] == [THIS_MACHINE, "pi"]
    assert document["settings"]["id"] == "ctx=1024,ngl=0,kv=f16,fa=off"
    # Other settings are another group: only the Pi ran them.
    other = SettingsKey(n_ctx=8192, n_gpu_layers=0, cache_type="f16", flash_attn=False)
    (only,) = across_machines(two_machines, choice.key, other).columns
    assert (only.machine.name, only.runs, only.generation_tokens_per_s) == ("pi", 1, 2.0)


def test_a_model_is_found_by_its_name(two_machines: History) -> None:
    choices = models_across_machines(two_machines)
    assert find_model(choices, "shared 1b").label == "Shared 1B Q4_0"
    assert find_model(choices, "Shared 1B Q4_0").key == choices[0].key
    with pytest.raises(HistoryNotFound, match="No answers of a model 'qwen'"):
        find_model(choices, "qwen")


def test_settings_of_a_comparison_contestant_group_like_a_playground_answer() -> None:
    settings = settings_dict(LOAD, p.SamplingParams(temperature=0.1), system="x")
    assert SettingsKey.of(settings) == SettingsKey(1024, 0, "f16", False)
    assert SettingsKey.of({}) == SettingsKey()
    assert SettingsKey.of({"load": {"n_ctx": True}}).n_ctx is None


def test_a_machine_without_calibration_runs_carries_its_saved_calibration(tmp_path: Path) -> None:
    source = History(tmp_path / "a.db")
    answers(source, shared_model(tmp_path / "a"), [3.0], profile=PI)
    bundle = tmp_path / "a.jsonl"
    # Only comparisons: no calibration runs travel, the profile's own calibration does.
    export_results(
        source,
        bundle,
        name="pi",
        profile=PI,
        kinds=("comparisons",),
        calibration=calibration_store(tmp_path, PI, runs=2),
    )
    target = History(tmp_path / "b.db")
    counts = import_bundle(target, bundle).counts
    assert counts.calibration_added == 0
    assert counts.runs_added == 0
    calibration = target.machine("pi").calibration
    assert calibration is not None
    assert calibration.runs == 2
    assert CalibrationStore(tmp_path / "empty.json").load() == []
