"""``make screenshots``: the real window at 1280x800, every page, to ``docs/screenshots/``.

The app runs as a person starts it (the Controller of ``llm-scout``) over a fresh home, on this
machine's probed hardware, offscreen (Qt's offscreen platform renders fonts through fontconfig;
Chinese needs a CJK font such as fonts-noto-cjk). The Playground shows a real answer of the
SmolLM2 demo model with its plots; the Compare page runs both demo models; the Models page is
shot in English and in Chinese (switched the way the Settings page switches it). The History
page's Across machines tab (``machines-en``, ``machines-zh``) puts this machine's SmolLM2 answers
beside those of "edge-box": a second data folder on this same computer whose answers ran on one
thread, exported with ``llm-scout history export`` and imported through the page.

    python scripts/screenshots.py [--out docs/screenshots] [--only models-en,models-zh]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1280, 800)
SCREEN = ROOT / "tests" / "fixtures" / "offscreen_screen.json"  # a 1920x1200 offscreen screen
PROMPTS = (
    ("Write a four-line poem about the sea, with a Markdown title.", 200),
    ("Now give me three facts about the ocean, as a Markdown list.", 300),
)
COMPARE_PROMPT = "The three primary colours are"  # a base model (Gemma 3 270M) completes it too
PAGES = (
    "hardware",
    "models",
    "downloads",
    "library",
    "playground",
    "compare",
    "history",
    "settings",
    "quality",  # the Library's Quality window, not a page
)
# Chinese pages that need no run of their own (the Playground and Compare runs are English).
ZH_PAGES = (
    "hardware",
    "models",
    "downloads",
    "library",
    "history",
    "settings",
    "machines",
    "quality",
)
# The Models page's Recommended view for a what-if Jetson Orin Nano, coding, 8k (issue 24).
RECOMMENDED = ("recommended-en", "recommended-zh")
SHOTS = (
    *(f"{p}-en" for p in (*PAGES, "machines")),
    *(f"{p}-zh" for p in ZH_PAGES),
    *RECOMMENDED,
)
# The answers both "machines" give for the Across machines shot: the same model and settings.
MACHINE_RUN = ("run", "smollm2", "--prompt", "Write a short poem about the sea.", "--ctx", "2048",
               "--max-tokens", "64", "--seed", "7", "--json")  # fmt: skip
DEFAULT = (*(f"{p}-en" for p in PAGES), "models-zh", *RECOMMENDED, "machines-en", "machines-zh",
           "quality-zh")  # fmt: skip
QUALITY_QUANT = "Q4_K_M"  # made from the SmolLM2 demo, measured against it


def prepare_environment(home: Path) -> None:
    """A fresh app home (settings, library, history) so the pictures are the same each time."""
    os.environ["LLM_SCOUT_HOME"] = str(home)
    os.environ["HF_HOME"] = str(home / "hf")
    os.environ.pop("LLM_SCOUT_MODELS_DIR", None)
    os.environ.pop("HF_ENDPOINT", None)
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    # The first start of an English system: the language setting stays "System language".
    os.environ["LANG"] = "en_US.UTF-8"
    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        os.environ.pop(name, None)
    if os.environ.get("QT_QPA_PLATFORM", "offscreen").startswith("offscreen"):
        os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={SCREEN}"
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated shot names (default: the README's): " + ",".join(SHOTS),
    )
    args = parser.parse_args(argv)
    wanted = [s for s in args.only.split(",") if s] or list(DEFAULT)
    unknown = set(wanted) - set(SHOTS)
    if unknown:
        parser.error(f"unknown shots: {sorted(unknown)}")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="llm-scout-shots-") as home:
        prepare_environment(Path(home))
        return Shooter(args.out.resolve(), wanted).run()


class Shooter:
    def __init__(self, out: Path, wanted: list[str]) -> None:
        from desktop.core.workspace import Workspace
        from desktop.ui.app import Controller, make_application

        self.out = out
        self.wanted = wanted
        self.app = make_application()
        self.controller = Controller(self.app, Workspace.load())
        self.failed: list[str] = []
        self.dialog = None  # a window shot instead of the main one (the Quality window)
        self.bundle: Path | None = None

    # -- helpers ------------------------------------------------------------------------------

    def wait(self, condition: Callable[[], bool], seconds: float, what: str) -> None:
        from PySide6.QtCore import QEventLoop  # noqa: TID251 (the window, not desktop/core)

        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {seconds:.0f} s for {what}")
            self.app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            time.sleep(0.01)

    def settle(self, seconds: float = 0.6) -> None:
        """Let timers (plots at ~30 Hz, elided labels, busy indicators) draw a few frames."""
        end = time.monotonic() + seconds
        self.wait(lambda: time.monotonic() > end, seconds + 5, "the window to settle")

    @property
    def window(self):  # type: ignore[no-untyped-def]
        return self.controller.window

    def page(self, key: str):  # type: ignore[no-untyped-def]
        page = self.window.show_page(key)
        self.settle(0.3)
        return page

    def save(self, name: str) -> None:
        self.settle()
        target, self.dialog = self.dialog or self.window, None
        pixmap = target.grab()
        if target is not self.window:
            target.close()
        path = self.out / f"{name}.png"
        if not pixmap.save(str(path)):
            raise OSError(f"cannot write {path}")
        print(
            f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
            f"{pixmap.width()}x{pixmap.height()}"
        )

    def shoot(self, name: str, stage: Callable[[], None]) -> None:
        if name not in self.wanted:
            return
        try:
            stage()
            self.save(name)
        except Exception as exc:  # one page failing still leaves the others' pictures
            self.failed.append(name)
            print(f"{name}: not taken: {exc}", file=sys.stderr)

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> int:
        window = self.window
        window.resize(*SIZE)
        self.controller.start()
        state = self.controller.state
        self.wait(lambda: state.profile is not None, 60, "the hardware probe")
        self.wait(
            lambda: state.engine is not None or bool(state.engine_error), 120, "the engine probe"
        )
        stages: dict[str, Callable[[], None]] = {
            "hardware": lambda: self.page("hardware"),
            "models": self.models,
            "downloads": lambda: self.page("downloads"),
            "library": self.library,
            "playground": self.playground,
            "compare": self.compare,
            "history": self.history,
            "settings": lambda: self.page("settings"),
            "quality": self.quality,
            "machines": self.machines,
        }
        load = os.getloadavg()[0]
        if load > (os.cpu_count() or 1):
            print(
                f"note: load average {load:.1f} on {os.cpu_count()} CPUs: the Playground and "
                "Compare pictures show a busy machine's speeds",
                file=sys.stderr,
            )
        for key in (*PAGES, "machines"):
            self.shoot(f"{key}-en", stages[key])
        self.shoot("recommended-en", self.recommended)
        self.leave_recommended()
        if any(name.endswith("-zh") for name in self.wanted):
            # As the Settings page does it: the window is rebuilt in Chinese.
            self.controller.state.update_settings(language="zh_CN")
            self.window.resize(*SIZE)
            for key in ZH_PAGES:
                self.shoot(f"{key}-zh", stages[key])
            self.shoot("recommended-zh", self.recommended)
            self.leave_recommended()
            self.controller.state.update_settings(language="")
        self.controller.shutdown()
        self.window.close()
        if self.failed:
            print(f"screenshots not taken: {', '.join(self.failed)}", file=sys.stderr)
            return 1
        return 0

    def models(self) -> None:
        page = self.page("models")
        self.wait(lambda: not page.busy and page.proxy.rowCount() > 0, 60, "the estimates")
        page.select_variant("qwen2.5-7b-instruct:Q4_K_M")
        self.wait(lambda: page.current_entry() is not None, 10, "the selected row")

    def recommended(self) -> None:
        """ "Best coding model for a Jetson Orin Nano at 8k": the what-if profile, the
        Recommended view, its best pick selected."""
        page = self.page("models")
        state = self.controller.state
        state.select_profile("what-if:jetson-orin-nano-8gb")
        page.set_context(8192)
        self.wait(
            lambda: (
                not page.busy and page.shown_ctx == 8192 and page.shown_profile is state.profile
            ),
            120,
            "the estimates",
        )
        page.tabs.setCurrentWidget(page.recommend)
        page.recommend.set_task("code")
        if not page.recommend.cards:
            raise RuntimeError("the Recommended view shows no pick")
        page.select_variant(page.recommend.cards[0].pick.variant_id)

    def leave_recommended(self) -> None:
        """Back to this machine, the table and the default context (for the next pictures)."""
        from desktop.ui.state import THIS_MACHINE_KEY

        page = self.window.pages.get("models")
        if page is None:
            return
        page.tabs.setCurrentIndex(0)
        page.set_context(self.controller.state.settings.default_ctx)
        self.controller.state.select_profile(THIS_MACHINE_KEY)

    def library(self) -> None:
        page = self.page("library")
        self.wait(lambda: page.model.rowCount() > 0 and not page.is_busy, 60, "the library scan")

    def playground(self) -> None:
        from desktop.core import demo

        page = self.page("playground")
        path = demo.smollm2_path()
        page.open_model(path)
        self.wait(
            lambda: page.model is not None and page.estimate_result is not None,
            60,
            "the model's facts and prediction",
        )
        page.load_panel.ctx_spin.setValue(2048)
        finished: list[object] = []
        page.answer_finished.connect(finished.append)
        if not page.load(confirm=False):
            raise RuntimeError("the Playground did not load the model")
        self.wait(lambda: page.phase == "ready", 120, "the model to load")
        settings = page.chat_settings
        settings.set_system("You are a helpful assistant.")
        settings.seed.setValue(7)
        # Two answers, so the plots show two generation bands and the transcript a list.
        for prompt, max_tokens in PROMPTS:
            settings.max_tokens.setValue(max_tokens)
            page.prompt.setPlainText(prompt)
            count = len(finished)
            if not page.send():
                raise RuntimeError("the Playground did not send the prompt")
            self.wait(lambda n=count: len(finished) > n, 300, "the answer")  # type: ignore[misc]
            self.settle(1.0)
        self.settle(1.0)  # memory readings after the answer; the plots redraw at ~30 Hz
        plots = page.plots
        self.wait(lambda: len(plots._speed) > 0 and len(plots._memory) > 0, 30, "plot data")

    def compare(self) -> None:
        page = self.page("compare")
        self.wait(lambda: len(page.models) >= 2, 60, "the local models")
        for label in ("SmolLM2 135M Instruct Q4_1", "Gemma 3 270M Q4_K_M"):
            actions = [a for a in page.setup.add_menu.actions() if a.text().split("\t")[0] == label]
            if not actions:
                raise RuntimeError(f"{label} is not in the Add menu")
            actions[0].trigger()
        page.setup.max_tokens.setValue(48)
        page.setup.prompt_edit.setPlainText(COMPARE_PROMPT)
        finished: list[object] = []
        page.comparison_finished.connect(finished.append)
        page.setup.run_button.click()
        self.wait(lambda: bool(finished), 300, "the comparison")

    def quality(self) -> None:
        """A Q4_K_M made from the SmolLM2 demo, against the demo file, two minutes at most."""
        from desktop.core import demo
        from desktop.core.quality import quantize_model

        page = self.page("library")
        self.wait(lambda: not page.is_busy, 60, "the library scan")
        quant = self.controller.state.workspace.models_dir / "quantized" / "smollm2-q4km.gguf"
        if not quant.exists():
            quantize_model(demo.smollm2_path(), QUALITY_QUANT, quant)
            page.rescan()
            self.wait(lambda: page.select_path(quant), 120, "the quant in the library")
        dialog = page.open_quality(quant)
        if dialog is None:
            raise RuntimeError("the Quality window did not open")
        dialog.resize(900, 760)
        reference = dialog.reference_combo.findData(str(demo.smollm2_path()))
        dialog.reference_combo.setCurrentIndex(reference)
        dialog.chunk_spin.setValue(256)
        dialog.budget_spin.setValue(2)
        finished: list[object] = []
        dialog.measured.connect(finished.append)
        dialog.start()
        self.wait(lambda: bool(finished), 600, "the quality measurement")
        self.dialog = dialog

    def history(self) -> None:
        page = self.page("history")
        page.tabs.setCurrentIndex(0)
        self.settle(1.0)

    def cli(self, *argv: str, home: Path | None = None) -> None:
        """``llm-scout ARGV`` in a process of its own (in another data folder when ``home``)."""
        env = dict(os.environ)
        if home is not None:
            env["LLM_SCOUT_HOME"] = str(home)
        subprocess.run(
            [sys.executable, "-m", "desktop", *argv],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=600,
        )

    def machines(self) -> None:
        page = self.page("history")
        if self.bundle is None:
            other = Path(tempfile.mkdtemp(prefix="llm-scout-edge-box-"))
            for _ in range(2):
                self.cli(*MACHINE_RUN, "--threads", "1", home=other / "home")
            self.bundle = other / "edge-box.jsonl"
            self.cli("history", "export", "--name", "edge-box", "--out", str(self.bundle),
                     home=other / "home")  # fmt: skip
            self.cli(*MACHINE_RUN)  # this machine: the same model and settings, its threads
        done: list[str] = []
        page.transfer_finished.connect(done.append)
        page.import_file(self.bundle)
        self.wait(lambda: bool(done), 60, "the import")
        changed: list[bool] = []
        page.across.view_changed.connect(lambda: changed.append(True))
        page.tabs.setCurrentWidget(page.across)
        page.across.refresh()
        self.wait(lambda: bool(changed), 60, "the Across machines view")


if __name__ == "__main__":
    sys.exit(main())
