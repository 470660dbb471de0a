"""Numbers, sizes, durations and verdicts as a person reads them, in the UI's locale."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale

from desktop.core.fit import FitResult


def size(n: float | None, precision: int = 1) -> str:
    """``4.4 GiB``; ``-`` for unknown."""
    if n is None:
        return "-"
    return QLocale().formattedDataSize(int(n), precision, QLocale.DataSizeFormat.DataSizeIecFormat)


def number(value: float | None, decimals: int = 0) -> str:
    if value is None:
        return "-"
    return QLocale().toString(float(value), "f", decimals)


def integer(value: int | None) -> str:
    return "-" if value is None else QLocale().toString(int(value))


def params(n: int | None) -> str:
    """A parameter count: 135M, 7.6B."""
    if n is None or n <= 0:
        return "-"
    if n < 999_500_000:
        return number(n / 1e6, 0) + "M"
    return number(n / 1e9, 1) + "B"


def rate(tokens_per_s: float | None, predicted: bool = False) -> str:
    """``58.2 t/s``, or ``≈58 t/s`` for a prediction (UI.md: predictions are marked)."""
    if tokens_per_s is None:
        return "-"
    if predicted:
        # Whole tokens, but a slow prediction keeps one decimal: ≈0.4 t/s, not ≈0 t/s.
        decimals = 1 if tokens_per_s < 0.95 else 0
        return (
            "≈" + number(tokens_per_s, decimals) + " " + QCoreApplication.translate("Format", "t/s")
        )
    return number(tokens_per_s, 1) + " " + QCoreApplication.translate("Format", "t/s")


def seconds(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1:
        return number(value * 1000, 0) + " " + QCoreApplication.translate("Format", "ms")
    if value < 90:
        return number(value, 1) + " " + QCoreApplication.translate("Format", "s")
    minutes, rest = divmod(int(value + 0.5), 60)
    if minutes < 60:
        return (
            QCoreApplication.translate("Format", "%1 min %2 s")
            .replace("%1", str(minutes))
            .replace("%2", str(rest))
        )
    hours, minutes = divmod(minutes, 60)
    return (
        QCoreApplication.translate("Format", "%1 h %2 min")
        .replace("%1", str(hours))
        .replace("%2", str(minutes))
    )


def verdict_word(result: FitResult | None) -> str:
    """The verdict's word, the same vocabulary as the CLI: GPU, partial N/M, CPU, no."""
    if result is None:
        return QCoreApplication.translate("Format", "?")
    if result.verdict == "gpu":
        return QCoreApplication.translate("Format", "GPU")
    if result.verdict == "partial":
        return (
            QCoreApplication.translate("Format", "partial %1/%2")
            .replace("%1", str(result.n_gpu_layers))
            .replace("%2", str(result.n_layers))
        )
    if result.verdict == "cpu":
        return QCoreApplication.translate("Format", "CPU")
    if result.unsupported:
        return QCoreApplication.translate("Format", "not supported")
    return QCoreApplication.translate("Format", "no")


def verdict_tooltip(result: FitResult | None) -> str:
    if result is None:
        return QCoreApplication.translate("Format", "This variant could not be estimated.")
    if result.verdict == "gpu":
        return QCoreApplication.translate(
            "Format", "Runs fully on the GPU: every layer and the output layer in video memory."
        )
    if result.verdict == "partial":
        return (
            QCoreApplication.translate(
                "Format", "Partial offload: %1 of %2 layers on the GPU, the rest on the CPU."
            )
            .replace("%1", str(result.n_gpu_layers))
            .replace("%2", str(result.n_layers))
        )
    if result.verdict == "cpu":
        return QCoreApplication.translate("Format", "Runs on the CPU, in RAM.")
    if result.unsupported:
        return QCoreApplication.translate(
            "Format", "Not supported here: AWQ needs an NVIDIA GPU with compute capability 7.5+."
        )
    return QCoreApplication.translate(
        "Format", "Does not fit on this hardware at this context length."
    )
