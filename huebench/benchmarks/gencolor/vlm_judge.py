"""VLM-as-judge questions on known-colour renders (seed 004 Appendix E, Table 10).

CSS3/X11 asks Q1–Q6, ISCC-NBS Level 2 asks Q1–Q4:

| question | CSS3/X11 | ISCC-NBS L2 |
| --- | --- | --- |
| open-ended name | Q1 | Q1 |
| multiple-choice name | Q2 | Q2 |
| open-ended hex code | Q3 | — |
| verify the name (yes/no) | Q4 | Q3 |
| verify the RGB triple (yes/no) | Q5 | Q4 |
| verify the hex code (yes/no) | Q6 | — |

Verification questions are asked once with the true value and once with a wrong one (a far member
of the system), so "always yes" scores 50 %. Answers are parsed: colour names are matched against
the system's names (case/space/hyphen-insensitive, longest match first), hex codes by pattern,
yes/no by the first word.
"""

from __future__ import annotations

import re
from typing import Any

from huebench.color import load_system, normalize_name

__all__ = ["QUESTIONS", "parse_hex", "parse_name", "parse_yes_no", "questions_for"]

_SYSTEM_LABEL = {"css3": "CSS3/X11", "iscc-nbs-l2": "ISCC-NBS Level 2"}

QUESTIONS = {
    "css3": ["name", "mcq", "hex", "verify-name", "verify-rgb", "verify-hex"],
    "iscc-nbs-l2": ["name", "mcq", "verify-name", "verify-rgb"],
}


def questions_for(system: str, obj: str, true: Any, wrong: Any) -> list[dict[str, Any]]:
    """The questions for one render: ``{"q", "prompt", "expected"}``; ``expected`` is a name, a hex or a bool."""
    label = _SYSTEM_LABEL[system]
    names = ", ".join(c.name for c in load_system(system))
    out = []
    for q in QUESTIONS[system]:
        if q == "name":
            out.append(
                {
                    "q": q,
                    "prompt": f"What is the {label} color name of the {obj} in the given image? Answer with the color name only.",
                    "expected": true.name,
                }
            )
        elif q == "mcq":
            out.append(
                {
                    "q": q,
                    "prompt": f"Given the list of {label} color names [{names}], what is the color name of the {obj} in the image? Answer with one name from the list.",
                    "expected": true.name,
                }
            )
        elif q == "hex":
            out.append(
                {
                    "q": q,
                    "prompt": f"What is the {label} hex color code of the {obj} in the image? Answer with the hex code only.",
                    "expected": true.hex,
                }
            )
        else:
            for c, truth in ((true, True), (wrong, False)):
                value = {"verify-name": c.name, "verify-rgb": "({}, {}, {})".format(*c.rgb), "verify-hex": c.hex}[q]
                noun = {"verify-name": "color name", "verify-rgb": "RGB color", "verify-hex": "hex color code"}[q]
                out.append(
                    {
                        "q": q,
                        "prompt": f"Is the {noun} of the {obj} {value} in the image? Answer yes or no.",
                        "expected": truth,
                    }
                )
    return out


def parse_yes_no(answer: str) -> bool | None:
    words = re.findall(r"[a-z]+", answer.lower())
    if not words:
        return None
    return True if words[0] == "yes" else False if words[0] == "no" else None


_HEX_RE = re.compile(r"#?\b([0-9a-fA-F]{6})\b")


def parse_hex(answer: str) -> str | None:
    m = _HEX_RE.search(answer)
    return f"#{m.group(1).upper()}" if m else None


def parse_name(answer: str, system: str) -> str | None:
    """The system colour named in the answer (the longest name found; none if two different ones tie)."""
    said = normalize_name(answer)
    keys = {c.name: normalize_name(c.name) for c in load_system(system)}
    hits = [n for n, k in keys.items() if k and k in said]
    # keep maximal matches ("light sea green", not also "sea green" and "green")
    maximal = [h for h in hits if not any(keys[h] != keys[o] and keys[h] in keys[o] for o in hits)]
    if not maximal:
        return None
    distinct = {load_system(system).get(h).rgb for h in maximal}
    return sorted(maximal)[0] if len(distinct) == 1 else None  # two different colours named: no answer


def judge(q: dict[str, Any], answer: str, system: str) -> bool:
    if isinstance(q["expected"], bool):
        return parse_yes_no(answer) is q["expected"]
    if q["q"] == "hex":
        return parse_hex(answer) == q["expected"]
    got = parse_name(answer, system)
    return got is not None and load_system(system).get(got).rgb == load_system(system).get(q["expected"]).rgb
