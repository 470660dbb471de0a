"""Translations of the window: extract, fill, check and compile ``resources/i18n/*.ts``.

    python scripts/i18n.py update            # pyside6-lupdate over desktop/ui: new strings appear
                                             # as unfinished, obsolete ones are dropped
    python scripts/i18n.py todo              # print the messages still to translate (JSON)
    python scripts/i18n.py fill FILE.json    # set translations from a JSON file (see below)
    python scripts/i18n.py check             # exit 1 when a message is unfinished, empty or loses
                                             # a placeholder (the same rule as tests/ui/test_i18n)
    python scripts/i18n.py build             # pyside6-lrelease: .ts -> .qm beside it

``fill`` takes ``{"source": "translation", "Context|source": "translation", ...}``: a key with a
context (the class name, or the first argument of ``QCoreApplication.translate``) wins over the
bare source. The workflow for a new string: ``update``, ``todo``, write the Chinese into a JSON
file, ``fill`` it, ``check``, ``build``. Only the standard library and the lupdate/lrelease
tools of the PySide6 wheel are used, so the Makefile can call it before anything else works.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "desktop" / "ui"
I18N = ROOT / "resources" / "i18n"
LANGUAGES = ("zh_CN",)

# %1..%99, {name} and %n: each translation must keep the same set as its source.
_PLACEHOLDER = re.compile(r"%\d+|%n|\{[A-Za-z_][A-Za-z0-9_]*\}")


def placeholders(text: str) -> set[str]:
    return set(_PLACEHOLDER.findall(text))


def ts_path(language: str) -> Path:
    return I18N / f"llm_scout_{language}.ts"


def qm_path(language: str) -> Path:
    return I18N / f"llm_scout_{language}.qm"


def _tool(name: str) -> str:
    """``pyside6-<name>`` next to this Python (the venv's), else on PATH."""
    here = Path(sys.executable).parent / f"pyside6-{name}"
    if here.exists():
        return str(here)
    found = shutil.which(f"pyside6-{name}")
    if found is None:
        raise SystemExit(f"pyside6-{name} not found: install PySide6 (the gui extra).")
    return found


def source_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in SOURCES.rglob("*.py"))


def update(language: str) -> None:
    I18N.mkdir(parents=True, exist_ok=True)
    cmd = [_tool("lupdate"), "-silent", "-no-obsolete", "-locations", "relative"]
    cmd += source_files()
    cmd += ["-target-language", language, "-ts", str(ts_path(language).relative_to(ROOT))]
    subprocess.run(cmd, cwd=ROOT, check=True)


def build(language: str) -> None:
    subprocess.run(
        [_tool("lrelease"), "-silent", str(ts_path(language)), "-qm", str(qm_path(language))],
        cwd=ROOT,
        check=True,
    )


def messages(root: ET.Element) -> list[tuple[str, ET.Element]]:
    out: list[tuple[str, ET.Element]] = []
    for context in root.iter("context"):
        name = context.findtext("name") or ""
        out.extend((name, message) for message in context.iter("message"))
    return out


def problems(language: str) -> list[str]:
    """One line per message that is not translated or loses a placeholder."""
    out = []
    for context, message in messages(ET.parse(ts_path(language)).getroot()):
        source = message.findtext("source") or ""
        translation = message.find("translation")
        where = f"{context}: {source!r}"
        if translation is None or translation.get("type") in ("unfinished", "vanished"):
            out.append(f"unfinished {where}")
            continue
        text = translation.text or ""
        if not text.strip():
            out.append(f"empty {where}")
        elif placeholders(text) != placeholders(source):
            out.append(f"placeholders {where} -> {text!r}")
    return out


def todo(language: str) -> list[dict[str, str]]:
    out = []
    for context, message in messages(ET.parse(ts_path(language)).getroot()):
        translation = message.find("translation")
        if translation is None or translation.get("type") == "unfinished":
            item = {"context": context, "source": message.findtext("source") or ""}
            comment = message.findtext("extracomment") or message.findtext("comment")
            if comment:
                item["comment"] = comment
            out.append(item)
    return out


def fill(language: str, table: dict[str, str]) -> int:
    """Set every message found in ``table``; returns how many were set."""
    path = ts_path(language)
    root = ET.parse(path).getroot()
    count = 0
    for context, message in messages(root):
        source = message.findtext("source") or ""
        text = table.get(f"{context}|{source}", table.get(source))
        if text is None:
            continue
        translation = message.find("translation")
        if translation is None:
            translation = ET.SubElement(message, "translation")
        translation.text = text
        translation.attrib.pop("type", None)
        count += 1
    _write(root, path)
    return count


def _write(root: ET.Element, path: Path) -> None:
    """A valid .ts; ``fill`` runs lupdate after it to bring back lupdate's own layout."""
    ET.indent(root, space="    ")
    body = ET.tostring(root, encoding="unicode")
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("update", "todo", "fill", "check", "build"))
    parser.add_argument("file", nargs="?", help="fill: the JSON file of translations")
    parser.add_argument("--language", choices=LANGUAGES, action="append")
    args = parser.parse_args(argv)
    languages = args.language or list(LANGUAGES)
    for language in languages:
        if args.command == "update":
            update(language)
        elif args.command == "build":
            build(language)
        elif args.command == "todo":
            print(json.dumps(todo(language), ensure_ascii=False, indent=1))
        elif args.command == "fill":
            if not args.file:
                parser.error("fill needs a JSON file")
            table = json.loads(Path(args.file).read_text(encoding="utf-8"))
            print(f"{ts_path(language).name}: {fill(language, table)} messages set")
            update(language)  # back to lupdate's own layout, so diffs stay small
        else:
            found = problems(language)
            for line in found:
                print(line)
            if found:
                print(f"{ts_path(language).name}: {len(found)} problems", file=sys.stderr)
                return 1
            print(f"{ts_path(language).name}: complete")
    return 0


if __name__ == "__main__":
    sys.exit(main())
