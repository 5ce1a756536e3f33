"""The documentation keeps up with the code: every model alias has its row in docs/models.md, and
every docs page that code, README or another page points to exists."""

from __future__ import annotations

import re
from pathlib import Path

from huebench.models.registry import entries

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def test_every_model_alias_is_in_docs_models():
    text = (DOCS / "models.md").read_text(encoding="utf-8")
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `([^`]+)` \| `([^`]+)` \|", text, re.M)}
    missing = [e.alias for e in entries() if e.alias not in rows]
    assert not missing, f"add these aliases to the table in docs/models.md: {missing}"
    wrong = {e.alias: (rows[e.alias], e.source) for e in entries() if rows[e.alias] != e.source}
    assert not wrong, f"docs/models.md gives another source for: {wrong}"


def test_referenced_docs_pages_exist():
    sources = [ROOT / "README.md", *DOCS.glob("*.md"), *(ROOT / "huebench").rglob("*.py")]
    broken = []
    for path in sources:
        text = path.read_text(encoding="utf-8")
        names = set(re.findall(r"\bdocs/([\w.-]+\.md)\b", text))
        if path.parent == DOCS:  # links between pages: [text](page.md#anchor)
            names |= set(re.findall(r"\]\(([\w.-]+\.md)(?:#[\w-]*)?\)", text))
        broken += [f"{path.relative_to(ROOT)} → docs/{n}" for n in sorted(names) if not (DOCS / n).is_file()]
    assert not broken, broken
