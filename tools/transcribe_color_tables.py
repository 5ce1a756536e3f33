"""Transcribe the color tables of GenColorBench (seed 004, Appendix B) into CSV.

This is the provenance of ``huebench/color/data/*.csv``: it reads the seed's text
(Tables 5, 6 and 7, laid out in one to three columns per line) and writes one CSV
per system.  Run it once by hand; the CSVs are committed and tests check counts
and cross-check against upstream's files.

    python tools/transcribe_color_tables.py ../shared/seeds/004_fa24d34082bd2eb1.txt
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "huebench" / "color" / "data"

# "ID Name R G B" entries; a name is letters, spaces and hyphens.
ISCC_ENTRY = re.compile(r"(\d+) ([A-Za-z][A-Za-z \-]*?) (\d{1,3}) (\d{1,3}) (\d{1,3})(?= \d|$| \\)")
CSS_ENTRY = re.compile(r"(\d+) ([A-Za-z]+) (#[0-9A-Fa-f]{6}) (\d{1,3}) (\d{1,3}) (\d{1,3})")


def _section(lines: list[str], start: str, end: str) -> list[str]:
    i = next(k for k, line in enumerate(lines) if line.startswith(start))
    j = next(k for k in range(i + 1, len(lines)) if lines[k].startswith(end))
    return lines[i:j]


def main(seed: str) -> None:
    lines = Path(seed).read_text(encoding="utf-8").splitlines()
    l2 = _section(lines, "1 Pink 230 134 151", "Table 5:")
    l3 = _section(lines, "1 Vivid pink", "Table 6:")
    css = _section(lines, "1 AliceBlue", "Table 7:")

    rows2 = [m.groups() for line in l2 for m in ISCC_ENTRY.finditer(line)]
    rows3 = [m.groups() for line in l3 for m in ISCC_ENTRY.finditer(line)]
    rows_css = [m.groups() for line in css for m in CSS_ENTRY.finditer(line)]
    rows3.sort(key=lambda r: int(r[0]))
    rows_css.sort(key=lambda r: int(r[0]))

    def write(name: str, header: list[str], rows: list[tuple[str, ...]]) -> None:
        with open(OUT / name, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            w.writerows(rows)
        print(f"{name}: {len(rows)} rows")

    write("iscc_nbs_l2.csv", ["id", "name", "r", "g", "b"], rows2)
    write("iscc_nbs_l3.csv", ["id", "name", "r", "g", "b"], rows3)
    write("css3.csv", ["id", "name", "hex", "r", "g", "b"], rows_css)


if __name__ == "__main__":
    main(sys.argv[1])
