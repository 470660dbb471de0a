"""Languages: English (the source) and Simplified Chinese, from the settings or the system.

Translations are Qt ``.ts`` sources in ``resources/i18n/`` compiled to ``.qm`` by the Makefile
(``pyside6-lrelease``); Qt's own strings (standard dialogs, buttons) come from Qt's bundled
translations. Switching the language installs the new translators and the window is rebuilt.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QApplication

from desktop.core import paths

log = logging.getLogger(__name__)

LANGUAGES = ("en", "zh_CN")
_installed: list[QTranslator] = []


def resolve_language(setting: str) -> str:
    """The setting when set ("en", "zh_CN"), else the system's: Chinese locales get zh_CN."""
    if setting in LANGUAGES:
        return setting
    name = QLocale.system().name()
    return "zh_CN" if name.startswith("zh") else "en"


def qm_path(language: str) -> str:
    return str(paths.resources_dir() / "i18n" / f"llm_scout_{language}.qm")


def default_quality_text() -> str:
    """The shipped text a quality loss is measured on unless the person chooses another: the
    Chinese one when the window is in Chinese, else the English one."""
    return "zh" if QLocale().language() == QLocale.Language.Chinese else "en"


def quality_text_name(text: str) -> str:
    """A quality text as the window names it, in the Quality window and in Compare alike:
    ``English text (shipped)``, ``Chinese text (shipped)``, or a file by its name."""
    names = {
        "en": QCoreApplication.translate("QualityText", "English text (shipped)"),
        "zh": QCoreApplication.translate("QualityText", "Chinese text (shipped)"),
    }
    return names.get(text) or Path(text).name or text


def install_language(app: QApplication, setting: str) -> str:
    """Install the translators for the language ``setting`` resolves to; returns it."""
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    language = resolve_language(setting)
    if language == "en":
        QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
        return language
    QLocale.setDefault(QLocale(language))
    ours = QTranslator(app)
    if ours.load(qm_path(language)):
        app.installTranslator(ours)
        _installed.append(ours)
    else:
        log.warning("No translation file %s; the window stays in English.", qm_path(language))
    qt = QTranslator(app)
    if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        _installed.append(qt)
    return language
