"""The Models page's detail panel: one variant, its verdict, where its memory goes, and what to
do next (download it, or open it in the Playground).

A view only: :meth:`ModelDetailPanel.show_entry` gets a
:class:`~desktop.ui.models.catalog_model.CatalogEntry` (the variant and its estimate) and the
state of its download; the buttons emit intents the page acts on.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktop.core.engine import CrossCheck
from desktop.core.fit import FitResult, FitTarget, VllmPlan, plan_vllm, what_if_plan
from desktop.core.hardware import HardwareProfile
from desktop.core.library import variant_label
from desktop.ui import format as fmt
from desktop.ui.models.catalog_model import (
    PAST_TRAINED,
    PREDICTED,
    UNVERIFIED,
    CatalogEntry,
    size_text,
)
from desktop.ui.theme import VERDICT_COLORS, icon
from desktop.ui.widgets.memory_bar import MemoryBar
from desktop.ui.widgets.verdict import text_color_on
from desktop.ui.widgets.vllm_server_box import VllmServerBox


def _label(object_name: str = "", *, wrap: bool = True, selectable: bool = False) -> QLabel:
    label = QLabel()
    if object_name:
        label.setObjectName(object_name)
    label.setWordWrap(wrap)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ModelDetailPanel(QWidget):
    """Details of the selected variant: facts that scroll, and a footer with the buttons that
    stays in view.

    Signals:
        download_requested(): the Download button was pressed.
        playground_requested(): the Open in Playground button was pressed.
        vllm_playground_requested(str, str): Open in Playground for the vLLM server started
            here (its base URL, the model it serves).
    """

    download_requested = Signal()
    playground_requested = Signal()
    vllm_playground_requested = Signal(str, str)
    crosscheck_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("detailPanel")
        self.setAccessibleName(self.tr("Model details"))
        self.setMinimumWidth(260)
        self.entry: CatalogEntry | None = None
        self._checked_for: tuple[str, int] | None = None
        self.scroller = QScrollArea()
        self.scroller.setObjectName("detailScroller")
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        body = QWidget()
        body.setObjectName("detailBody")
        layout = QVBoxLayout(body)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(8)

        self.empty_label = _label("detailEmpty")
        self.empty_label.setText(
            self.tr("Select a model in the table to see where it would run and why.")
        )
        layout.addWidget(self.empty_label)

        self.content = QWidget()
        content = QVBoxLayout(self.content)
        content.setContentsMargins(0, 0, 0, 0)
        content.setSpacing(8)
        layout.addWidget(self.content)

        self.title_label = _label("detailTitle", selectable=True)
        font = self.title_label.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.title_label.setFont(font)
        content.addWidget(self.title_label)
        self.id_label = _label("detailVariantId", selectable=True)
        muted = self.id_label.palette()
        muted.setColor(
            QPalette.ColorRole.WindowText, muted.color(QPalette.ColorRole.PlaceholderText)
        )
        self.id_label.setPalette(muted)
        content.addWidget(self.id_label)

        verdict_row = QHBoxLayout()
        verdict_row.setSpacing(8)
        self.verdict_badge = QLabel()
        self.verdict_badge.setObjectName("verdictBadge")
        self.verdict_badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.verdict_badge.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        verdict_row.addWidget(self.verdict_badge, 0, Qt.AlignmentFlag.AlignTop)
        self.verdict_label = _label("verdictText")
        verdict_row.addWidget(self.verdict_label, 1)
        content.addLayout(verdict_row)

        self.context_label = _label("detailContext")
        content.addWidget(self.context_label)

        self.vram_bar = MemoryBar(self.tr("VRAM"))
        self.vram_bar.setObjectName("vramBar")
        content.addWidget(self.vram_bar)
        self.no_gpu_label = _label("noGpuLabel")
        content.addWidget(self.no_gpu_label)
        self.ram_bar = MemoryBar(self.tr("RAM"))
        self.ram_bar.setObjectName("ramBar")
        content.addWidget(self.ram_bar)
        self.full_context_label = _label("fullContextLabel")
        content.addWidget(self.full_context_label)
        # llama.cpp's own projection for a file on this machine (a dry run, nothing allocated).
        self.crosscheck_button = QPushButton(self.tr("Ask llama.cpp"))
        self.crosscheck_button.setObjectName("crosscheckButton")
        self.crosscheck_button.setToolTip(
            self.tr(
                "Load the file in llama.cpp without allocating anything and compare the "
                "buffers it would use with this estimate (a second or two)."
            )
        )
        self.crosscheck_button.clicked.connect(self.crosscheck_requested)
        content.addWidget(self.crosscheck_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.crosscheck_label = _label("crosscheckLabel")
        self.crosscheck_label.setTextFormat(Qt.TextFormat.RichText)
        content.addWidget(self.crosscheck_label)
        self._build_vllm(content)

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.setHorizontalSpacing(10)
        form.setVerticalSpacing(6)
        self.max_ctx_label = self._form_row(form, "maxContextLabel", self.tr("Largest context"))
        self.speed_label = self._form_row(form, "speedLabel", self.tr("Speed"))
        self.load_label = self._form_row(form, "loadLabel", self.tr("Load time"))
        self.disk_label = self._form_row(form, "diskLabel", self.tr("Disk"))
        self.licence_label = self._form_row(form, "licenceLabel", self.tr("Licence"))
        self.licence_label.setTextFormat(Qt.TextFormat.RichText)
        self.licence_label.setOpenExternalLinks(True)
        self.licence_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.languages_label = self._form_row(form, "languagesLabel", self.tr("Languages"))
        content.addLayout(form)

        self.reasons_title = QLabel(self.tr("Why"))
        bold = self.reasons_title.font()
        bold.setBold(True)
        self.reasons_title.setFont(bold)
        content.addWidget(self.reasons_title)
        self.reasons_label = _label("reasonsLabel", selectable=True)
        content.addWidget(self.reasons_label)

        self.description_label = _label("descriptionLabel", selectable=True)
        content.addWidget(self.description_label)

        layout.addStretch(1)
        self.scroller.setWidget(body)

        self.footer = QWidget()
        self.footer.setObjectName("detailFooter")
        buttons = QVBoxLayout(self.footer)
        buttons.setContentsMargins(14, 6, 14, 8)
        buttons.setSpacing(6)
        self.download_button = QPushButton(icon("downloads"), self.tr("Download"))
        self.download_button.setObjectName("downloadButton")
        self.download_button.clicked.connect(self.download_requested)
        self.playground_button = QPushButton(icon("playground"), self.tr("Open in Playground"))
        self.playground_button.setObjectName("playgroundButton")
        self.playground_button.clicked.connect(self.playground_requested)
        buttons.addWidget(self.download_button)
        buttons.addWidget(self.playground_button)
        self.download_status = _label("downloadStatus")
        buttons.addWidget(self.download_status)
        rule = QFrame()
        rule.setFrameShape(QFrame.Shape.HLine)
        rule.setFrameShadow(QFrame.Shadow.Sunken)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self.scroller, 1)
        outer.addWidget(rule)
        outer.addWidget(self.footer)
        self.show_entry(None, None)

    def _build_vllm(self, content: QVBoxLayout) -> None:
        """AWQ variants: the ``vllm serve`` command that matches the estimate, with Copy."""
        self.vllm_command = ""
        self.vllm_box = QWidget()
        self.vllm_box.setObjectName("vllmBox")
        box = QVBoxLayout(self.vllm_box)
        box.setContentsMargins(0, 4, 0, 0)
        box.setSpacing(4)
        self.vllm_title = QLabel(self.tr("Run with vLLM"))
        bold = self.vllm_title.font()
        bold.setBold(True)
        self.vllm_title.setFont(bold)
        box.addWidget(self.vllm_title)
        self.vllm_note_label = _label("vllmNoteLabel")
        box.addWidget(self.vllm_note_label)
        self.vllm_command_label = _label("vllmCommandLabel", selectable=True)
        self.vllm_command_label.setFont(
            QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        )
        self.vllm_command_label.setAccessibleName(self.tr("vLLM command"))
        box.addWidget(self.vllm_command_label)
        self.vllm_copy_button = QPushButton(self.tr("Copy"))
        self.vllm_copy_button.setObjectName("vllmCopyButton")
        self.vllm_copy_button.setToolTip(self.tr("Copy the command to the clipboard."))
        self.vllm_copy_button.clicked.connect(self._on_vllm_copy_button_clicked)
        box.addWidget(self.vllm_copy_button, 0, Qt.AlignmentFlag.AlignLeft)
        # Start that command here as a managed server (where vLLM can run), stop it, chat.
        self.vllm_server = VllmServerBox()
        self.vllm_server.playground_requested.connect(self.vllm_playground_requested)
        box.addWidget(self.vllm_server)
        content.addWidget(self.vllm_box)

    def _form_row(self, form: QFormLayout, name: str, title: str) -> QLabel:
        value = _label(name, selectable=True)
        label = QLabel(title)
        label.setBuddy(value)
        form.addRow(label, value)
        return value

    # -- contents -----------------------------------------------------------------------------

    def show_entry(
        self,
        entry: CatalogEntry | None,
        profile: HardwareProfile | None,
        *,
        download_state: str = "",
        download_percent: int | None = None,
    ) -> None:
        """Show ``entry`` (None: the hint to select one). ``download_state``: "" (none),
        "running", "paused", "done" or "failed" for this variant's download in this
        session."""
        self.entry = entry
        self.empty_label.setVisible(entry is None)
        self.content.setVisible(entry is not None)
        self.footer.setVisible(entry is not None)
        if entry is None:
            return
        model, variant, fit = entry.model, entry.variant, entry.fit
        self.title_label.setText(variant_label(model, variant))
        self.id_label.setText(variant.id)
        self._show_verdict(entry, profile)
        self._show_memory(fit, profile)
        self._show_facts(entry, profile)
        self._show_buttons(entry, download_state, download_percent)
        self._show_vllm(entry, profile)
        can_check = (
            entry.on_disk
            and entry.variant.format == "gguf"
            and fit is not None
            and profile is not None
            and profile.source == "probe"  # this machine, probed: llama.cpp runs here
        )
        self.crosscheck_button.setVisible(can_check)
        if self._checked_for != (entry.variant_id, entry.n_ctx):
            self.crosscheck_label.setText("")
            self.crosscheck_label.setVisible(False)

    def set_crosscheck_busy(self) -> None:
        self.crosscheck_button.setEnabled(False)
        self.crosscheck_label.setVisible(True)
        self.crosscheck_label.setText(html.escape(self.tr("Asking llama.cpp…")))

    def show_crosscheck(self, check: CrossCheck | None, error: str = "") -> None:
        """llama.cpp's projected buffers beside the estimate's, or the sentence why not."""
        self.crosscheck_button.setEnabled(True)
        self.crosscheck_label.setVisible(True)
        entry = self.entry
        self._checked_for = (entry.variant_id, entry.n_ctx) if entry is not None else None
        if check is None:
            self.crosscheck_label.setText(html.escape(error))
            return
        names = {
            "weights": self.tr("weights"),
            "repacked": self.tr("repacked copies"),
            "kv_cache": self.tr("KV cache"),
            "compute": self.tr("compute buffers"),
        }
        rows = []
        for term in check.terms:
            theirs = "-" if term.llama_cpp is None else fmt.size(term.llama_cpp)
            gap = term.gap_pct
            gap_text = "" if gap is None else f"{gap:+.1f}%"
            rows.append(
                f"<tr><td>{html.escape(names.get(term.term, term.term))}</td>"
                f"<td align='right'>{fmt.size(term.ours)}</td>"
                f"<td align='right'>{theirs}</td><td align='right'>{gap_text}</td></tr>"
            )
        columns = (self.tr("estimate"), "llama.cpp", self.tr("gap"))
        head = "<tr><th></th>" + "".join(f"<th>{html.escape(c)}</th>" for c in columns) + "</tr>"
        title = self.tr("llama.cpp's own projection (nothing allocated, %1):").replace(
            "%1", fmt.seconds(check.projection.seconds)
        )
        self.crosscheck_label.setText(
            f"<p>{html.escape(title)}</p><table cellspacing='4'>{head}{''.join(rows)}</table>"
        )

    def _show_vllm(self, entry: CatalogEntry, profile: HardwareProfile | None) -> None:
        """The vLLM command for an AWQ variant on ``profile``; where the profile has no GPU
        vLLM can use, why, and the command for the smallest what-if profile that runs it."""
        show = entry.variant.format == "awq" and profile is not None and entry.n_ctx > 0
        self.vllm_box.setVisible(show)
        self.vllm_command = ""
        if not show or profile is None:
            self.vllm_server.set_plan(None)
            return
        n_ctx = entry.fit.n_ctx if entry.fit is not None else entry.n_ctx
        target = FitTarget.from_variant(entry.model, entry.variant)
        plan = plan_vllm(target, profile, n_ctx=n_ctx)
        notes: list[str] = []
        shown: VllmPlan | None = plan if plan.fits else None
        if plan.fits and plan.per_gpu is not None:
            gpus = plan.gpu_name
            if plan.tensor_parallel_size > 1:
                gpus = f"{plan.tensor_parallel_size} × {plan.gpu_name}"
            notes.append(
                self.tr("AWQ runs in a vLLM server (Linux, NVIDIA GPU). Per GPU: %1 on %2.")
                .replace("%1", PREDICTED + fmt.size(plan.per_gpu.total))
                .replace("%2", gpus)
            )
        else:
            notes.append(self.tr("Not on this profile: %1").replace("%1", plan.reason))
            found = what_if_plan(target, n_ctx)
            if found is not None:
                name, shown = found
                notes.append(self.tr("On the what-if profile %1:").replace("%1", name))
        self.vllm_note_label.setText(" ".join(notes))
        self.vllm_command = shown.command if shown is not None else ""
        self.vllm_command_label.setText(self.vllm_command)
        self.vllm_command_label.setVisible(bool(self.vllm_command))
        self.vllm_copy_button.setVisible(bool(self.vllm_command))
        self.vllm_copy_button.setText(self.tr("Copy"))
        self.vllm_server.set_plan(plan if plan.fits else None)  # this profile's plan only

    def _on_vllm_copy_button_clicked(self) -> None:
        if not self.vllm_command:
            return
        QGuiApplication.clipboard().setText(self.vllm_command)
        self.vllm_copy_button.setText(self.tr("Copied"))

    def _show_verdict(self, entry: CatalogEntry, profile: HardwareProfile | None) -> None:
        fit = entry.fit
        word = fmt.verdict_word(fit) if entry.estimated else "…"
        color = VERDICT_COLORS.get(entry.verdict, "#8a8f96")
        fg = text_color_on(QColor(color)).name()
        self.verdict_badge.setText(word)
        self.verdict_badge.setStyleSheet(
            f"QLabel#verdictBadge {{ background: {color}; color: {fg}; border-radius: 9px; "
            "padding: 2px 10px; font-weight: bold; }"
        )
        self.verdict_badge.setToolTip(fmt.verdict_tooltip(fit))
        self.verdict_badge.setAccessibleName(self.tr("Verdict: %1").replace("%1", word))
        if not entry.estimated:
            self.verdict_label.setText(self.tr("Estimating…"))
        elif fit is None:
            self.verdict_label.setText(entry.error or fmt.verdict_tooltip(None))
        else:
            self.verdict_label.setText(fmt.verdict_tooltip(fit))
        context = self.tr("Estimated for %1 tokens of context.").replace(
            "%1", fmt.integer(entry.n_ctx)
        )
        if fit is not None and fit.past_trained_ctx:
            context += (
                " "
                + PAST_TRAINED
                + " "
                + (
                    self.tr("The model was trained for %1; answers may degrade past it.").replace(
                        "%1", fmt.integer(fit.n_ctx_train)
                    )
                )
            )
        if entry.from_file:
            context += " " + self.tr("Numbers from the file on disk.")
        if entry.calibration_runs and entry.calibration_source == "profile" and profile:
            # A saved or imported machine's own runs: say whose speeds these are.
            context += " " + (
                self.tr("Calibrated from %1 runs measured on %2.")
                .replace("%1", str(entry.calibration_runs))
                .replace("%2", profile.name or self.tr("that machine"))
            )
        elif entry.calibration_runs:  # two or more: a calibration needs at least two
            context += " " + self.tr("Calibrated from %1 measured runs.").replace(
                "%1", str(entry.calibration_runs)
            )
        self.context_label.setText(context if entry.estimated else "")

    def _show_memory(self, fit: FitResult | None, profile: HardwareProfile | None) -> None:
        has_gpu = bool(profile is not None and profile.gpus)
        # A variant that cannot run here (AWQ without an NVIDIA GPU) has no memory to show.
        show = fit is not None and not fit.unsupported
        self.vram_bar.setVisible(show and has_gpu)
        self.ram_bar.setVisible(show)
        self.no_gpu_label.setVisible(show and not has_gpu)
        self.no_gpu_label.setText(self.tr("No GPU in this profile: models run in RAM."))
        self.full_context_label.setVisible(False)
        if fit is None or not show:
            return
        if has_gpu and profile is not None:
            free = sum(fit.vram_free_bytes) or sum(g.memory_total_bytes for g in profile.gpus)
            self.vram_bar.set_usage(fit.vram, free or None, self.tr("free"))
        # The bar shows what the verdict rests on: what must stay resident with the whole
        # context in use (the CLI's "needs X of Y available"); clean pages of the mapped file
        # (the peak RSS counts them, the kernel drops them under pressure) are said apart.
        self.ram_bar.set_usage(fit.need_ram, fit.ram_available_bytes or None, self.tr("available"))
        notes: list[str] = []
        if fit.page_cache_bytes:
            notes.append(
                self.tr(
                    "Plus %1 of page cache of the model file, which the system can drop."
                ).replace("%1", PREDICTED + fmt.size(fit.page_cache_bytes))
            )
        if notes:
            self.full_context_label.setVisible(True)
            self.full_context_label.setText(" ".join(notes))

    def _show_facts(self, entry: CatalogEntry, profile: HardwareProfile | None) -> None:
        model, fit = entry.model, entry.fit
        if fit is not None and not fit.unsupported:
            text = self.tr("%1 tokens").replace("%1", fmt.integer(fit.max_ctx))
            if model.context_length:
                text += " · " + self.tr("trained for %1").replace(
                    "%1", fmt.integer(model.context_length)
                )
            self.max_ctx_label.setText(text if fit.max_ctx > 0 else self.tr("none fits"))
            speed = fit.tokens_per_s if fit.verdict != "no" else None
            self.speed_label.setText(
                fmt.rate(speed, predicted=True) + " " + self.tr("(predicted)")
                if speed is not None
                else "-"
            )
            load = "-"
            if fit.load_seconds is not None:
                load = PREDICTED + fmt.seconds(fit.load_seconds)
                disk = profile.models_disk if profile is not None else None
                if disk is not None and disk.kind != "unknown":
                    kind = "NVMe" if disk.kind == "nvme" else disk.kind.upper()
                    load += " " + self.tr("from %1").replace("%1", kind)
            self.load_label.setText(load)
        else:
            for label in (self.max_ctx_label, self.speed_label, self.load_label):
                label.setText("-")
        self.disk_label.setText(self._disk_text(entry, profile))
        self.disk_label.setToolTip(str(entry.path) if entry.path is not None else "")

        licence = model.license
        commercial = (
            self.tr("commercial use: yes")
            if licence.commercial_use
            else self.tr("commercial use: no")
        )
        name = html.escape(licence.name)
        linked = f'<a href="{html.escape(licence.url)}">{name}</a>' if licence.url else name
        note = f"<br><small>{html.escape(licence.note)}</small>" if licence.note else ""
        self.licence_label.setText(f"{linked} · {html.escape(commercial)}{note}")
        self.licence_label.setToolTip(licence.url)
        chinese = "中文 ✓" if model.supports_chinese else self.tr("no Chinese")
        self.languages_label.setText(f"{chinese} · {', '.join(model.languages)}")

        reasons = list(fit.reasons) if fit is not None else []
        if fit is None and entry.error:
            reasons.append(entry.error)
        self.reasons_title.setVisible(bool(reasons))
        self.reasons_label.setVisible(bool(reasons))
        self.reasons_label.setText("\n".join(f"• {r}" for r in reasons))
        self.description_label.setText(model.description)

    def _disk_text(self, entry: CatalogEntry, profile: HardwareProfile | None) -> str:
        if entry.path is not None:
            # The file's name (its folder is in the tooltip): paths do not wrap.
            name = self.disk_label.fontMetrics().elidedText(
                entry.path.name, Qt.TextElideMode.ElideMiddle, 170
            )
            return self.tr("On disk: %1").replace("%1", name)
        fit = entry.fit
        text = self.tr("Download %1").replace("%1", size_text(entry))
        disk = profile.models_disk if profile is not None else None
        free = f" ({fmt.size(disk.free_bytes)} " + self.tr("free") + ")" if disk else ""
        if fit is not None and fit.fits_disk is True:
            text += " · " + self.tr("fits on the disk") + free
        elif fit is not None and fit.fits_disk is False:
            text += " · " + self.tr("does not fit on the disk") + free
        return text

    def _show_buttons(self, entry: CatalogEntry, state: str, percent: int | None) -> None:
        variant = entry.variant
        size = size_text(entry) if entry.download_size[0] else ""
        button = self.download_button
        status = ""
        if entry.on_disk:
            button.setText(self.tr("Downloaded"))
            button.setEnabled(False)
            button.setToolTip(self.tr("The files are on this machine."))
        elif state == "running":
            shown = f" {percent}%" if percent is not None else ""
            button.setText(self.tr("Downloading…") + shown)
            button.setEnabled(False)
            button.setToolTip(self.tr("The Downloads page shows its progress."))
            status = self.tr("Downloading: follow it, pause or cancel it on the Downloads page.")
        elif state == "paused":
            button.setText(self.tr("Paused"))
            button.setEnabled(False)
            status = self.tr("Paused: resume it on the Downloads page.")
        elif state == "done":
            button.setText(self.tr("Downloaded"))
            button.setEnabled(False)
            status = self.tr("Downloaded; the library is being updated.")
        else:
            button.setText(self.tr("Download %1").replace("%1", size).strip())
            button.setEnabled(True)
            tip = (
                self.tr("Download every file of %1 from %2 into the models folder.")
                .replace("%1", variant.id)
                .replace("%2", variant.repo)
            )
            if not entry.download_size[1]:
                tip += " " + self.tr(
                    "%1: the size is estimated from the model's shapes, not verified against "
                    "the Hub."
                ).replace("%1", UNVERIFIED)
            button.setToolTip(tip)
            if state == "failed":
                status = self.tr("The last download failed; the Downloads page says why.")
        button.setAccessibleName(button.text())
        self.download_status.setText(status)
        self.download_status.setVisible(bool(status))

        runnable = variant.format == "gguf"
        self.playground_button.setEnabled(entry.on_disk and runnable)
        if not runnable:
            tip = self.tr("The Playground runs GGUF files with llama.cpp; AWQ is for vLLM.")
        elif not entry.on_disk:
            tip = self.tr("Download the model first.")
        else:
            tip = self.tr("Chat with this model and watch its speed and memory.")
        self.playground_button.setToolTip(tip)

    def primary_button(self) -> QPushButton | None:
        """The button Enter on the table leads to: the first one that can be pressed."""
        for button in (self.playground_button, self.download_button):
            if button.isVisible() and button.isEnabled():
                return button
        return None
