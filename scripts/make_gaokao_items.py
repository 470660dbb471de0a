"""Build resources/quality/items/gaokao/ from a checkout of OpenLMLab/GAOKAO-Bench (Apache-2.0).

    python scripts/make_gaokao_items.py PATH/TO/GAOKAO-Bench

Takes the single-answer multiple-choice files of seven subjects, drops the worked analyses, the
question numbers and marks, and joins the lines PDF extraction broke inside Chinese sentences;
writes one JSONL per subject (subject, language, question with its lettered options, answer,
year, id).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "resources" / "quality" / "items" / "gaokao"
SUBJECTS = {
    "2010-2022_History_MCQs": ("history", "历史"),
    "2010-2022_Biology_MCQs": ("biology", "生物"),
    "2010-2022_Political_Science_MCQs": ("politics", "思想政治"),
    "2010-2022_Chemistry_MCQs": ("chemistry", "化学"),
    "2010-2022_Physics_MCQs": ("physics", "物理"),
    "2010-2022_Math_I_MCQs": ("math", "数学"),
    "2010-2013_English_MCQs": ("english", "英语"),
}
NUMBER = re.compile(r"^\s*\d+\s*[．.、]\s*(?:[（(]\s*\d+\s*分\s*[)）])?\s*")
OPTION = re.compile(r"\s*\n\s*(?=[A-D]\s*[．.、])")


def clean(question: str) -> str:
    text = NUMBER.sub("", question.strip())
    text = OPTION.sub("\x00", text)
    text = re.sub(r"(?<=[^\x00-\x7f])\s*\n\s*(?=[^\x00-\x7f])", "", text)
    text = re.sub(r"\s*\n\s*", " ", text)
    text = re.sub(r"[ \t\u3000]{3,}", "  ", text)
    return text.replace("\x00", "\n").strip()


def main(repo: Path) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (slug, subject) in SUBJECTS.items():
        data = json.loads((repo / "Data" / "Objective_Questions" / f"{name}.json").read_text())
        lines = []
        for example in data["example"]:
            answer = example["answer"]
            if len(answer) != 1 or answer[0] not in ("A", "B", "C", "D"):
                continue
            question = clean(example["question"])
            if not all(f"{label}" in question for label in "ABCD"):
                continue
            lines.append(
                json.dumps(
                    {
                        "id": f"{slug}-{example['index']}",
                        "subject": subject,
                        "language": "zh",
                        "year": example["year"],
                        "question": question,
                        "answer": answer[0],
                    },
                    ensure_ascii=False,
                )
            )
        (OUT / f"{slug}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{slug}: {len(lines)} items")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
