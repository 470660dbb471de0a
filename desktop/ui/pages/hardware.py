"""The Hardware page: what this machine (or the what-if profile) has, as cards.

CPU (model, cores, the ISA flags that matter for llama.cpp, measured memory bandwidth), RAM, the
disk holding the models folder (kind, free space, read speed with a button that measures it),
each GPU, and the llama.cpp build the workers run. "Save profile" writes the same JSON as
``llm-scout hw --save``, to evaluate this machine from another one.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import ScoutError
from desktop.core.fit import (
    MachineCalibration,
    machine_fingerprint,
    reset_calibration,
    review_calibration,
    undo_last_run,
)
from desktop.core.hardware import DiskInfo, HardwareProfile, probe_disk
from desktop.ui import format as fmt
from desktop.ui.errors import show_error
from desktop.ui.state import AppState
from desktop.ui.theme import icon, page_heading
from desktop.ui.widgets.bars import UsageBar
from desktop.ui.widgets.calibration_card import CalibrationCard
from desktop.ui.widgets.card import Card
from desktop.ui.workers import TaskControl, run_task

# ISA extensions llama.cpp's CPU kernels use, widest first.
LLAMA_FLAGS = (
    "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni", "avx2", "fma", "f16c", "avx",
    "amx_int8", "sse3", "neon", "dotprod", "i8mm", "sve", "sve2",
)  # fmt: skip


class HardwarePage(QWidget):
    """Cards of the active profile; rebuilt whenever the profile or the engine info changes."""

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 12, 16, 12)
        header = QHBoxLayout()
        self.heading = page_heading()
        header.addWidget(self.heading, 1)
        self.save_button = QPushButton(icon("save"), self.tr("Save profile…"))
        self.save_button.setObjectName("saveProfileButton")
        self.save_button.setToolTip(
            self.tr(
                "Write this machine's profile as JSON (the same as `llm-scout hw --save`), to "
                "ask from another computer what would fit here."
            )
        )
        self.save_button.clicked.connect(self._on_save_button_clicked)
        header.addWidget(self.save_button)
        outer.addLayout(header)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QScrollArea.Shape.NoFrame)
        outer.addWidget(self.scroller, 1)
        self.measure_button: QPushButton | None = None
        self.calibration_card: CalibrationCard | None = None
        self.measure_progress: QProgressBar | None = None
        self._measuring = False
        state.profile_changed.connect(self.refresh)
        state.engine_changed.connect(self.refresh)
        self.refresh()

    # -- content ------------------------------------------------------------------------------

    def refresh(self) -> None:
        profile = self.state.profile
        if self.state.what_if:
            self.heading.setText(self.tr("What if: %1").replace("%1", self.state.profile_name))
        else:
            self.heading.setText(self.tr("This machine"))
        self.save_button.setEnabled(self.state.this_machine is not None and not self.state.what_if)
        body = QWidget()
        grid = QGridLayout(body)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(12)
        if profile is None:
            busy = QLabel(self.tr("Detecting the hardware…"))
            grid.addWidget(busy, 0, 0)
        else:
            cards = [self._cpu_card(profile), self._memory_card(profile)]
            cards.extend(self._disk_card(profile, disk) for disk in profile.disks)
            cards.extend(self._gpu_cards(profile))
            cards.append(self._engine_card())
            cards.append(self._calibration_card(profile))
            for index, card in enumerate(cards):
                grid.addWidget(card, index // 2, index % 2, Qt.AlignmentFlag.AlignTop)
            grid.setColumnStretch(0, 1)
            grid.setColumnStretch(1, 1)
            grid.setRowStretch(len(cards) // 2 + 1, 1)
            if profile.notes:
                notes = QLabel("\n".join(f"• {n}" for n in profile.notes))
                notes.setWordWrap(True)
                grid.addWidget(notes, len(cards) // 2 + 2, 0, 1, 2)
        self.scroller.setWidget(body)

    def _cpu_card(self, profile: HardwareProfile) -> Card:
        cpu = profile.cpu
        card = Card(self.tr("CPU"))
        card.setObjectName("cpuCard")
        card.add_row(self.tr("Model"), f"{cpu.brand} ({cpu.arch})")
        card.add_row(
            self.tr("Cores"),
            self.tr("%1 cores, %2 threads")
            .replace("%1", str(cpu.physical_cores))
            .replace("%2", str(cpu.logical_cores)),
            self.tr("llama.cpp uses one thread per physical core by default."),
        )
        flags = [f for f in LLAMA_FLAGS if f in cpu.flags]
        card.add_row(
            self.tr("Instructions"),
            " ".join(f.upper() for f in flags) or "-",
            self.tr("The vector instructions llama.cpp's CPU kernels can use here."),
        )
        caches = ", ".join(
            f"{label} {fmt.size(size, 0)}"
            for label, size in (("L2", cpu.l2_bytes), ("L3", cpu.l3_bytes))
            if size
        )
        if caches:
            card.add_row(self.tr("Caches"), caches)
        bandwidth = cpu.memory_bandwidth_gbps
        card.add_row(
            self.tr("Memory bandwidth"),
            self.tr("%1 GB/s").replace("%1", fmt.number(bandwidth, 1)) if bandwidth else "-",
            self.tr(
                "Measured once with a short copy benchmark (or from the spec sheet for a "
                "what-if profile); it bounds generation speed on the CPU."
            ),
        )
        return card

    def _memory_card(self, profile: HardwareProfile) -> Card:
        memory = profile.memory
        card = Card(self.tr("Memory"))
        card.setObjectName("memoryCard")
        bar = UsageBar()
        bar.setObjectName("ramBar")
        used = memory.total_bytes - memory.available_bytes
        bar.set_value(
            used,
            memory.total_bytes,
            self.tr("%1 available of %2")
            .replace("%1", fmt.size(memory.available_bytes))
            .replace("%2", fmt.size(memory.total_bytes)),
        )
        card.add_row(self.tr("RAM"), bar)
        if memory.limit_bytes:
            card.add_row(self.tr("Container limit"), fmt.size(memory.limit_bytes))
        card.add_row(self.tr("Swap"), fmt.size(memory.swap_total_bytes))
        return card

    def _disk_card(self, profile: HardwareProfile, disk: DiskInfo) -> Card:
        card = Card(self.tr("Disk of the models folder"))
        card.setObjectName("diskCard")
        kinds = {
            "nvme": self.tr("NVMe SSD"),
            "ssd": self.tr("SSD"),
            "hdd": self.tr("Hard disk"),
            "unknown": self.tr("Unknown kind"),
        }
        card.add_row(self.tr("Folder"), disk.path)
        card.add_row(self.tr("Kind"), f"{kinds.get(disk.kind, disk.kind)} ({disk.device or '-'})")
        bar = UsageBar()
        bar.set_value(
            disk.total_bytes - disk.free_bytes,
            disk.total_bytes,
            self.tr("%1 free of %2")
            .replace("%1", fmt.size(disk.free_bytes))
            .replace("%2", fmt.size(disk.total_bytes)),
        )
        card.add_row(self.tr("Space"), bar)
        speed = QLabel(
            self.tr("%1 MB/s").replace("%1", fmt.number(disk.read_bytes_per_s / 1e6, 0))
            if disk.read_bytes_per_s
            else self.tr("not measured")
        )
        speed.setObjectName("diskSpeed")
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(speed)
        if not self.state.what_if:
            button = QPushButton(self.tr("Measure"))
            button.setObjectName("measureDiskButton")
            button.setToolTip(
                self.tr("Time a sequential read of up to 256 MiB from this disk (a few seconds).")
            )
            button.clicked.connect(self._on_measure_button_clicked)
            progress = QProgressBar()
            progress.setRange(0, 0)
            progress.setMaximumWidth(120)
            progress.setVisible(self._measuring)
            button.setEnabled(not self._measuring)
            line.addWidget(button)
            line.addWidget(progress)
            self.measure_button, self.measure_progress = button, progress
        line.addStretch(1)
        card.add_row(self.tr("Read speed"), row)
        return card

    def _gpu_cards(self, profile: HardwareProfile) -> list[Card]:
        if not profile.gpus:
            card = Card(self.tr("GPU"))
            card.setObjectName("gpuCard")
            card.add_row(self.tr("GPU"), self.tr("None found: models run on the CPU."))
            return [card]
        cards = []
        for gpu in profile.gpus:
            card = Card(self.tr("GPU %1").replace("%1", str(gpu.index)))
            card.setObjectName("gpuCard")
            card.add_row(self.tr("Model"), f"{gpu.name} ({gpu.vendor})")
            bar = UsageBar()
            bar.set_value(
                gpu.memory_used_bytes,
                gpu.memory_total_bytes,
                self.tr("%1 free of %2")
                .replace("%1", fmt.size(gpu.memory_free_bytes or gpu.memory_total_bytes))
                .replace("%2", fmt.size(gpu.memory_total_bytes)),
                "#2e9d57",
            )
            label = self.tr("Unified memory") if gpu.unified_memory else self.tr("Video memory")
            card.add_row(label, bar)
            if gpu.bandwidth_gbps:
                card.add_row(
                    self.tr("Bandwidth"),
                    self.tr("%1 GB/s").replace("%1", fmt.number(gpu.bandwidth_gbps, 0)),
                )
            if gpu.compute_capability:
                card.add_row(self.tr("Compute capability"), gpu.compute_capability)
            if gpu.driver_version or gpu.cuda_version:
                card.add_row(
                    self.tr("Driver / CUDA"),
                    f"{gpu.driver_version or '-'} / {gpu.cuda_version or '-'}",
                )
            cards.append(card)
        return cards

    def _engine_card(self) -> Card:
        card = Card(self.tr("llama.cpp build"))
        card.setObjectName("engineCard")
        info = self.state.engine
        if info is None:
            text = self.state.engine_error or self.tr("Starting an engine worker to check…")
            card.add_row(self.tr("Build"), text)
            return card
        card.add_row(self.tr("Version"), info.llama_cpp_version)
        card.add_row(
            self.tr("GPU offload"),
            self.tr("yes") if info.gpu_offload else self.tr("no (CPU-only build)"),
        )
        for name, features in info.backends.items():
            card.add_row(name, " ".join(features) or "-")
        return card

    def _calibration_card(self, profile: HardwareProfile) -> CalibrationCard:
        """This machine's runs behind its estimates (read now: a small file, and runs may
        have been recorded since), or what a what-if profile carries."""
        if self.state.what_if:
            card = CalibrationCard(None, MachineCalibration.from_dict(profile.calibration))
        else:
            card = CalibrationCard(review_calibration(machine_fingerprint(profile)))
            card.undo_requested.connect(self._on_calibration_undo_requested)
            card.reset_requested.connect(self._on_calibration_reset_requested)
        self.calibration_card = card
        return card

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.state.profile is not None:
            self.refresh()  # runs recorded since the last visit

    def _on_calibration_undo_requested(self) -> None:
        profile = self.state.this_machine
        if profile is None:
            return
        try:
            undo_last_run(machine_fingerprint(profile))
        except OSError as exc:
            show_error(self, ScoutError(f"The calibration cannot be changed: {exc}"))
            return
        self.refresh()
        self.state.calibration_changed.emit()

    def _on_calibration_reset_requested(self) -> None:
        profile = self.state.this_machine
        if profile is None:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Reset the calibration"),
            self.tr(
                "Forget every run this machine's estimates learned from? The estimates go back "
                "to the raw model until new runs are made; the file is copied aside first."
            ),
            QMessageBox.StandardButton.Reset | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("resetCalibrationBox")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(self._on_reset_box_finished)
        box.open()

    def _on_reset_box_finished(self, result: int) -> None:
        profile = self.state.this_machine
        if result != QMessageBox.StandardButton.Reset.value or profile is None:
            return
        try:
            reset_calibration(machine_fingerprint(profile))
        except OSError as exc:
            show_error(self, ScoutError(f"The calibration cannot be changed: {exc}"))
            return
        self.refresh()
        self.state.calibration_changed.emit()

    # -- actions ------------------------------------------------------------------------------

    def _on_measure_button_clicked(self) -> None:
        profile = self.state.this_machine
        if profile is None or self._measuring:
            return
        self._measuring = True
        self.refresh()
        models_dir = self.state.workspace.models_dir

        def work(control: TaskControl) -> DiskInfo:
            return probe_disk(models_dir, measure=True)

        run_task(work, on_done=self._measured, on_failed=self._measure_failed)

    def _measured(self, disk: DiskInfo) -> None:
        self._measuring = False
        machine = self.state.this_machine
        if machine is not None:
            disks = (disk, *machine.disks[1:]) if machine.disks else (disk,)
            self.state._probed(replace(machine, disks=disks))
        self.refresh()

    def _measure_failed(self, error: Exception) -> None:
        self._measuring = False
        self.refresh()
        show_error(self, error)

    def _on_save_button_clicked(self) -> None:
        profile = self.state.this_machine
        if profile is None:
            return
        path, _ = QFileDialog.getSaveFileName(
            self,
            self.tr("Save this machine's profile"),
            str(Path.home() / "hardware-profile.json"),
            self.tr("Hardware profiles (*.json)"),
        )
        if path:
            self.save_profile(Path(path))

    def save_profile(self, path: Path) -> bool:
        profile = self.state.this_machine
        if profile is None:
            return False
        try:
            profile.save(path)
        except ScoutError as exc:
            show_error(self, exc)
            return False
        return True
