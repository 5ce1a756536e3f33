"""Transcribe GenColorBench's objects (Tables 8–9) and prompt templates (Appendix D) into JSON/CSV.

Provenance of ``huebench/benchmarks/gencolor/data/{objects.csv,templates.json}``. Run once by hand:

    python tools/transcribe_gencolor.py ../shared/seeds/004_fa24d34082bd2eb1.txt

Object rows are "Dataset Category Class Negative labels…" with period-separated negative labels;
class names of two words are listed below (the table does not delimit them). Templates are the
numbered items of D.1–D.4; in the PDF extraction a few D.4 items hold two templates run together,
which are split where a second sentence with its own {color} begins.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "huebench" / "benchmarks" / "gencolor" / "data"
CATEGORIES = [
    "Vehicle",
    "Fruit and Veg",
    "furniture and Household",
    "animals",
    "cloths and Accessories",
    "sports and toys",
    "Tools and Misc",
]
CANONICAL = {
    "Vehicle": "vehicles",
    "Fruit and Veg": "fruits and vegetables",
    "furniture and Household": "furniture and household",
    "animals": "animals",
    "cloths and Accessories": "clothing and accessories",
    "sports and toys": "sports and toys",
    "Tools and Misc": "tools and miscellaneous",
}
TWO_WORD = {
    "potted plant",
    "sports ball",
    "baseball bat",
    "baseball glove",
    "hair drier",
    "beach wagon",
    "sports car",
    "tow truck",
    "football helmet",
    "golf ball",
    "boxing glove",
    "teddy bear",
    "toy poodle",
    "toy terrier",
    "cutting board",
    "computer mouse",
    "hair dryer",
}


def objects(lines: list[str]) -> list[dict[str, str]]:
    rows = []
    for line in lines:
        m = re.match(r"^(COCO|ImageNet) (.*)$", line)
        if not m:
            continue
        rest = m.group(2)
        cat = next(c for c in sorted(CATEGORIES, key=len, reverse=True) if rest.startswith(c + " "))
        rest = rest[len(cat) + 1 :]
        words = rest.split(" ")
        name = " ".join(words[:2]) if " ".join(words[:2]) in TWO_WORD else words[0]
        negatives = [n.strip() for n in rest[len(name) :].split(".") if n.strip()]
        rows.append(
            {"source": m.group(1), "category": CANONICAL[cat], "name": name, "negative_labels": "; ".join(negatives)}
        )
    return rows


def templates(lines: list[str]) -> dict[str, list[str]]:
    start = next(i for i, line in enumerate(lines) if line.startswith("D.1 List of Object Focused"))
    end = next(i for i, line in enumerate(lines) if line.startswith("Table 10:"))
    sections: dict[str, list[str]] = {}
    sec = None
    in_caption = False
    for line in lines[start:end]:
        if line.startswith("D."):
            sec = line.split()[0]
            sections[sec] = []
            continue
        if re.match(r"^\s+\d+\.\s+\d+\.\s*$", line):
            sections[sec].append("")  # type: ignore[index]
            in_caption = False
            continue
        if sec and sections[sec] and line.strip() and not in_caption:
            # a figure and its caption are interleaved in the extraction: "Refer to caption" ends
            # the item, and nothing is appended until the next numbered item
            text, marker, _ = line.partition("Refer to caption")
            in_caption = bool(marker)
            sections[sec][-1] = (sections[sec][-1] + " " + text.strip()).strip()
    implicit = []
    for item in sections["D.4"]:
        parts = (
            re.split(r"(?<=[a-z.’”\"])\s+(?=(?:A|An|The)\s[^.]*\{color\})", item)
            if item.count("{color}") > 1
            else [item]
        )
        implicit += [p.strip() for p in parts]
    d1 = sections["D.1"]
    return {
        "object-focused": [t for t in d1 if "{color}" in t],
        "numeric-hex": [t for t in d1 if "{hex}" in t],
        "numeric-rgb": [t for t in d1 if "{r}" in t],
        "contextual": sections["D.2"],
        "scene": sections["D.3"],
        "implicit": implicit,
    }


def main(seed: str) -> None:
    lines = Path(seed).read_text(encoding="utf-8").splitlines()
    OUT.mkdir(parents=True, exist_ok=True)
    objs = objects(lines)
    with open(OUT / "objects.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["source", "category", "name", "negative_labels"], lineterminator="\n")
        w.writeheader()
        w.writerows(objs)
    tpl = templates(lines)
    (OUT / "templates.json").write_text(json.dumps(tpl, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(len(objs), {k: len(v) for k, v in tpl.items()})


if __name__ == "__main__":
    main(sys.argv[1])
