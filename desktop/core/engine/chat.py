"""A conversation with a loaded model: history, system prompt, a context that never ends it.

:class:`Conversation` is what ``llm-scout run --chat`` and the window's Playground share. Each
:meth:`Conversation.ask` sends the whole history; when it no longer fits the context, the oldest
turns are dropped (the system prompt is kept) and the turn is sent again, and the answer says
how many turns went (:attr:`Answer.dropped_turns`). A turn that does not fit even alone raises
the worker's ``context_overflow`` error with a hint to clear the conversation. An answer stopped
by the user keeps what came, marked as cancelled. A worker that dies does not end the
conversation: what it answered so far is kept, marked as crashed, and
:meth:`Conversation.restart` starts a new one with the model; a worker found dead when a message
is sent is restarted first. :meth:`Conversation.to_markdown` and :meth:`Conversation.to_dict`
save a transcript with the settings and the metrics of each answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop.core.engine import protocol as p
from desktop.core.engine.metrics import RunReport
from desktop.core.engine.request import Request, WorkerError
from desktop.core.engine.run import Session
from desktop.core.errors import is_fatal

OVERFLOW_KIND = "engine.context_overflow"


def worker_gone(error: BaseException) -> bool:
    """Whether ``error`` says the engine is gone (restart it to go on): one of the kinds that
    end a run (:func:`desktop.core.errors.is_fatal`, the one list of them)."""
    kind = getattr(error, "kind", None)
    return isinstance(kind, str) and is_fatal(kind)


@dataclass(frozen=True)
class Turn:
    """One exchange: the user's message and the answer (with its report when it finished)."""

    user: str
    answer: str
    finish_reason: str
    report: RunReport | None = None
    dropped_turns: int = 0
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class Answer:
    """What :meth:`Conversation.ask` returns: the text, why it stopped, how many old turns had
    to go to make room, and predicted vs measured for it."""

    text: str
    finish_reason: str
    report: RunReport
    dropped_turns: int = 0


class Conversation:
    """The history of one chat with a :class:`Session`'s model."""

    def __init__(
        self,
        session: Session,
        *,
        system: str | None = None,
        params: p.SamplingParams | None = None,
    ) -> None:
        self.session = session
        self.system = system or None
        self.params = params or p.SamplingParams()
        self.turns: list[Turn] = []
        self.dropped_total = 0
        self.current: Request | None = None

    def messages(self, start: int = 0) -> list[p.ChatMessage]:
        out: list[p.ChatMessage] = []
        for turn in self.turns[start:]:
            out.append(p.ChatMessage("user", turn.user))
            out.append(p.ChatMessage("assistant", turn.answer))
        return out

    def clear(self) -> None:
        self.turns.clear()

    def set_system(self, text: str | None) -> None:
        self.system = text or None

    def ask(
        self,
        text: str,
        on_text: Callable[[str], None] | None = None,
        on_restart: Callable[[str], None] | None = None,
    ) -> Answer:
        """Send ``text`` with as much history as fits; stream the answer to ``on_text``.

        KeyboardInterrupt (or :meth:`cancel` from another thread) stops the answer: what came
        is kept in the history with ``finish_reason == "cancelled"`` and returned. A worker
        found dead before the message goes out is restarted first, and ``on_restart`` gets the
        sentence saying how it had ended. A worker that dies during the answer raises its
        WorkerError (:func:`worker_gone` is true) after what came was kept as ``crashed``.
        """
        client = self.session.client
        if not client.alive and self.session.loaded is not None:
            why = getattr(client, "exit_sentence", None) or "The engine worker had stopped."
            self.restart()
            if on_restart is not None:
                on_restart(why)
        start = 0
        while True:
            history = [*self.messages(start), p.ChatMessage("user", text)]
            # Only a continuation reuses the worker's cached prompt: the first turn is
            # evaluated afresh, so it gives the answer a one-shot `llm-scout run` gives.
            request = self.session.generate(
                messages=history,
                system=self.system,
                params=self.params,
                cache_prompt=len(history) > 1,
            )
            self.current = request
            try:
                done = self.session.stream(request, on_text)
            except WorkerError as exc:
                if exc.kind == OVERFLOW_KIND and start < len(self.turns):
                    start += 1  # drop the oldest turn that is still sent, keep the system prompt
                    continue
                if exc.kind == OVERFLOW_KIND:
                    raise WorkerError(
                        p.Error(
                            request.id,
                            "context_overflow",
                            f"{exc.message[:-1] if exc.message.endswith('.') else exc.message}; "
                            "this message does not fit even without the earlier turns: write "
                            "a shorter one, or load the model with a larger context.",
                        )
                    ) from exc
                if worker_gone(exc):
                    report = self.session.report(request)
                    self._keep(text, request.text, "crashed", report, start)
                raise
            except KeyboardInterrupt:
                report = self.session.report(request)
                self._keep(text, request.text, "cancelled", report, start)
                raise
            finally:
                self.current = None
            report = self.session.report(request)
            self._keep(text, request.text, done.finish_reason, report, start)
            return Answer(request.text, done.finish_reason, report, start)

    def restart(self) -> None:
        """Start a new worker with the same model and settings; the conversation stays."""
        self.session.reopen()

    def cancel(self) -> None:
        """Stop the answer being generated (from another thread); it ends as cancelled."""
        request = self.current
        if request is not None:
            self.session.client.cancel(request.id)

    def _keep(self, user: str, answer: str, reason: str, report: RunReport, dropped: int) -> None:
        if dropped:
            del self.turns[:dropped]
            self.dropped_total += dropped
        self.turns.append(Turn(user, answer, reason, report, dropped))

    # -- transcripts --------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Totals over the kept turns (what `/stats` prints)."""
        reports = [t.report for t in self.turns if t.report is not None]
        generated = sum(r.metrics.generated_tokens for r in reports)
        rates = [r.metrics.tokens_per_s for r in reports if r.metrics.tokens_per_s]
        peaks = [r.rss_peak_bytes for r in reports if r.rss_peak_bytes]
        return {
            "turns": len(self.turns),
            "dropped_turns": self.dropped_total,
            "generated_tokens": generated,
            "mean_tokens_per_s": sum(rates) / len(rates) if rates else None,
            "rss_peak_bytes": max(peaks) if peaks else None,
        }

    def to_dict(self) -> dict[str, Any]:
        """The transcript as JSON: model, load and sampling settings, each turn with metrics."""
        session = self.session
        loaded = session.loaded
        return {
            "model": str(session.path),
            "load": {
                "n_ctx": session.load_settings.n_ctx,
                "n_gpu_layers": session.load_settings.n_gpu_layers,
                "n_threads": loaded.n_threads if loaded is not None else None,
                "cache_type": session.load_settings.cache_type,
                "flash_attn": session.load_settings.flash_attn,
                "template": loaded.template_name if loaded is not None else None,
            },
            "sampling": {
                "temperature": self.params.temperature,
                "top_p": self.params.top_p,
                "top_k": self.params.top_k,
                "min_p": self.params.min_p,
                "repeat_penalty": self.params.repeat_penalty,
                "seed": self.params.seed,
                "max_tokens": self.params.max_tokens,
            },
            "system": self.system,
            "turns": [
                {
                    "user": t.user,
                    "assistant": t.answer,
                    "finish_reason": t.finish_reason,
                    "dropped_turns": t.dropped_turns,
                    "metrics": t.report.to_dict() if t.report is not None else None,
                }
                for t in self.turns
            ],
            "stats": self.stats(),
        }

    def settings_line(self) -> str:
        """The load and sampling settings in one line (the Markdown transcript's header)."""
        load = self.session.load_settings
        loaded = self.session.loaded
        params = self.params
        threads = loaded.n_threads if loaded is not None else load.n_threads
        template = loaded.template_name if loaded is not None else load.template
        parts = [
            f"context {load.n_ctx}",
            f"GPU layers {'all' if load.n_gpu_layers == -1 else load.n_gpu_layers}",
            f"threads {threads if threads is not None else 'auto'}",
            f"KV cache {load.cache_type}",
            f"flash attention {'on' if load.flash_attn else 'off'}",
            f"template {template or 'auto'}",
            f"temperature {params.temperature:g}",
            f"top-p {params.top_p:g}",
            f"top-k {params.top_k}",
            f"min-p {params.min_p:g}",
            f"repeat penalty {params.repeat_penalty:g}",
            f"seed {params.seed if params.seed is not None else 'random'}",
            f"max tokens {params.max_tokens}",
        ]
        return " · ".join(parts)

    def to_markdown(self, title: str) -> str:
        lines = [f"# {title}", "", f"<sub>{self.settings_line()}</sub>", ""]
        if self.system:
            lines += [f"**System:** {self.system}", ""]
        for turn in self.turns:
            lines += [f"**You:** {turn.user}", "", turn.answer, ""]
            report = turn.report
            if report is not None:
                m = report.metrics
                rate = "-" if m.tokens_per_s is None else f"{m.tokens_per_s:.1f}"
                ttft = "-" if m.ttft_ms is None else f"{m.ttft_ms:.0f}"
                lines += [
                    f"<sub>{m.generated_tokens} tokens, {rate} tokens/s, TTFT {ttft} ms, "
                    f"stop: {turn.finish_reason}</sub>",
                    "",
                ]
        return "\n".join(lines).rstrip() + "\n"
