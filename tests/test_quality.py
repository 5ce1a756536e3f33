"""Quality rules the type checker does not enforce itself: every ``# type: ignore`` in the package
names the error code it silences and says why, on the same line:

    x = f(y)  # type: ignore[arg-type]  # the library's stub types y too narrowly

(mypy itself, run by .ci/run, reports ignores that are no longer needed.)"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

import huebench

ROOT = Path(huebench.__file__).parent
_MENTION = re.compile(r"type:\s*ignore")
#: "# type: ignore[code, code]  # reason": at least one code, then a comment with some text
_WELL_FORMED = re.compile(r"#\s*type:\s*ignore\[[a-z][a-z0-9-]*(\s*,\s*[a-z][a-z0-9-]*)*\]\s*#\s*\S")


def type_ignores(source: str) -> list[tuple[int, str]]:
    """(line, comment) for every comment that mentions ``type: ignore`` (strings are not comments)."""
    return [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT and _MENTION.search(tok.string)
    ]


def badly_formed(source: str) -> list[tuple[int, str]]:
    return [(line, text) for line, text in type_ignores(source) if not _WELL_FORMED.match(text)]


@pytest.mark.parametrize(
    "line",
    [
        "x = f()  # type: ignore\n",
        "x = f()  # type: ignore[arg-type]\n",
        "x = f()  # type: ignore[arg-type]  #\n",
        "x = f()  # type: ignore  # a reason but no code\n",
        "x = f()  # some note  # type: ignore[arg-type]  # the ignore is not the comment's start\n",
    ],
)
def test_the_rule_rejects(line):
    assert badly_formed(line)


@pytest.mark.parametrize(
    "line",
    [
        "x = f()  # type: ignore[arg-type]  # the stub is too narrow\n",
        "x = f()  # type: ignore[arg-type, call-arg]  # two codes, one reason\n",
        "x = f()  # type:ignore[no-redef] # compact spacing\n",
        's = "# type: ignore"  # a string is not a comment\n',
        "x = f()  # an ordinary comment\n",
    ],
)
def test_the_rule_accepts(line):
    assert not badly_formed(line)


def test_every_type_ignore_in_the_package_has_a_code_and_a_reason():
    bad = [
        f"huebench/{path.relative_to(ROOT).as_posix()}:{line}: {text}"
        for path in sorted(ROOT.rglob("*.py"))
        for line, text in badly_formed(path.read_text(encoding="utf-8"))
    ]
    assert not bad, (
        "write each as `# type: ignore[code]  # why it cannot be fixed` (or fix the type error):\n" + "\n".join(bad)
    )
