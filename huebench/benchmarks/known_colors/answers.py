"""Open answers of a VLM ("It's a light blue mug") mapped to one name of the run's colour system.

The rules, in order (tests/test_known_colors_answers.py holds the corpus):

1. The answer is split into clauses (``. , ; : ! ?``, "and", "but", "while", "whereas") and words
   (hyphens and slashes separate words: "dark-red", "grey/gray").
2. Colour phrases are read left to right, the longest first (up to four words) at each word:
   a name of any shipped system ("light sea green", "navy"), a hex code ("#1e90ff"), a hue with a
   "-ish" modifier ("bluish green", "reddish") or another hue before it ("red-orange" reads as
   "reddish orange"), or lightness and strength modifiers before a name ("light blue", "deep navy
   blue").
3. A phrase right after "not"/"isn't"/"non" is skipped ("not red, it's orange" → orange), and so is
   the colour of the surroundings: a phrase followed by a word such as "background", "floor" or
   "light", or said of one ("the background is white": such a word, then "is", "looks" …, and no
   word for the object between them) — "the cup is blue, the background is white" → blue.
4. The first phrase left becomes a name of the run's system: the phrase itself when it is one
   ("grey" ≡ "gray"); else its head word when that is one and everything before it is a modifier
   ("light blue" → basic "blue", "bluish green" → "green" — a modified name stays in its category,
   as ISCC-NBS Level 3's "dark red" lies in Level 2's "red"); else the system's nearest colour by
   CIEDE2000 to the phrase's colour ("navy" → basic "blue").
5. No phrase left: no name ("I can't tell"), with the reason — a hedge with a colour in it
   ("I can't tell, maybe red") still names it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from huebench.color import SYSTEM_NAMES, ColorSystem, load_system, normalize_name, parse, srgb_to_lab

__all__ = ["ParsedAnswer", "parse_answer", "spoken"]

#: words that make a name lighter, darker, stronger or weaker without leaving its category
MODIFIERS = frozenset({
    "light", "dark", "pale", "bright", "deep", "vivid", "medium", "pastel", "neon", "dull", "muted", "soft",
    "rich", "strong", "dusty", "dim", "faded", "hot", "baby", "sky", "navy", "royal", "forest", "lime",
    "olive", "sea", "slate", "steel", "powder", "midnight", "cornflower", "dodger", "very", "quite",
    "slightly", "mostly", "mainly", "predominantly", "solid", "pure", "true",
})  # fmt: skip
#: "-ish" forms and their hue
ISH = {
    "reddish": "red",
    "orangish": "orange",
    "orangey": "orange",
    "yellowish": "yellow",
    "greenish": "green",
    "bluish": "blue",
    "blueish": "blue",
    "purplish": "purple",
    "pinkish": "pink",
    "brownish": "brown",
    "greyish": "gray",
    "grayish": "gray",
    "blackish": "black",
    "whitish": "white",
    "violetish": "violet",
    "oliveish": "olive",
}
#: a hue before another hue reads as its "-ish" form: "red-orange" is "reddish orange"
HUE_ISH = {hue: ish for ish, hue in reversed(ISH.items())}
#: words naming the object's surroundings or its light, not the object
SURROUNDINGS = frozenset({
    "background", "backdrop", "floor", "wall", "walls", "surface", "table", "ground", "surroundings",
    "surrounding", "sky", "scene", "light", "lighting", "illumination", "shadow", "shadows", "highlight",
    "highlights", "reflection", "reflections", "tint", "cast",
})  # fmt: skip
NEGATIONS = frozenset({"not", "isn't", "isnt", "non", "never", "nor"})
COPULAS = frozenset({"is", "are", "was", "looks", "look", "appears", "appear", "seems", "seem", "remains"})
#: words that refer to the object, besides its noun
OBJECT_WORDS = frozenset({"it", "its", "object", "item", "thing", "shape", "square", "patch"})
REFUSAL = re.compile(
    r"\b(can'?t|cannot|can not|unable|impossible|not sure|unsure|don'?t know|no idea|unclear|hard to say|unknown)\b"
)
_CLAUSES = re.compile(r"[.,;:!?\n]+|\b(?:and|but|while|whereas|although)\b")
_WORD = re.compile(r"#[0-9a-f]{6}\b|#[0-9a-f]{3}\b|[a-z]+(?:'[a-z]+)?")
MAX_WORDS = 4


def spoken(name: str) -> str:
    """A system name as it is written in a sentence: "LightSeaGreen" → "light sea green"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()


@dataclass(frozen=True)
class ParsedAnswer:
    name: str | None  # a name of the run's system, or None
    phrase: str | None  # the words it was read from
    why: str  # how the phrase became the name, or why there is none


@functools.cache
def _lexicon() -> dict[str, tuple[str, str]]:
    """Normalised name → (system, name), over every shipped system in the order parse() tries them."""
    out: dict[str, tuple[str, str]] = {}
    for system in SYSTEM_NAMES:
        for c in load_system(system):
            out.setdefault(normalize_name(c.name), (system, c.name))
    return out


def _is_colour(words: list[str]) -> bool:
    if len(words) == 1 and words[0].startswith("#"):
        return True
    key = normalize_name(" ".join(words))
    if key in _lexicon():
        return True
    if len(words) == 1:
        return words[0] in ISH
    *mods, head = words
    return all(_modifies(m) for m in mods) and (normalize_name(head) in _lexicon() or head in ISH)


def _modifies(word: str) -> bool:
    """A word that may stand before a colour name: a modifier, an "-ish" form, or a hue ("red-orange")."""
    return word in MODIFIERS or word in ISH or word in HUE_ISH


def _phrases(clause: list[str]) -> list[tuple[int, int]]:
    """(start, end) word spans of the colour phrases of a clause, left to right, longest first."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(clause):
        for n in range(min(MAX_WORDS, len(clause) - i), 0, -1):
            if _is_colour(clause[i : i + n]):
                out.append((i, i + n))
                i += n
                break
        else:
            i += 1
    return out


def _to_system(words: list[str], system: ColorSystem) -> tuple[str, str]:
    """(system name, how) for a colour phrase."""
    if len(words) == 1 and words[0].startswith("#"):
        lab = parse(words[0]).lab
        return system.nearest_lab(lab)[0].color.name, f"nearest {system.name} colour to {words[0]}"
    words = [ISH.get(words[0], words[0])] if len(words) == 1 else words
    hued = [*(HUE_ISH.get(w, w) for w in words[:-1]), words[-1]]  # "red orange" → "reddish orange"
    for phrase in dict.fromkeys((" ".join(words), " ".join(hued))):
        own = system.find(phrase)
        if own is not None:
            return own.name, f"a name in the {system.name} system"
    head = ISH.get(words[-1], words[-1])
    if len(words) > 1:
        for k in (2, 1):  # the head may be two words ("bluish green" in ISCC-NBS L2)
            tail = system.find(" ".join(hued[-k:])) if k < len(words) else None
            if tail is not None and all(_modifies(m) for m in words[:-k]):
                return tail.name, f"the name in the {system.name} system that it modifies"
    where = next(
        (_lexicon()[k] for k in (normalize_name(" ".join(words)), normalize_name(" ".join(hued))) if k in _lexicon()),
        _lexicon().get(normalize_name(head)),
    )
    if where is None:
        raise AssertionError(f"{words} is no colour")  # pragma: no cover - _is_colour admitted it
    other = load_system(where[0]).find(where[1])
    assert other is not None
    lab = np.asarray(srgb_to_lab(np.asarray(other.rgb, dtype=np.uint8)), dtype=np.float64)
    near = system.nearest_lab(lab)[0].color.name
    return near, f"nearest {system.name} colour to {where[0]} {other.name!r}"


def _said_of_surroundings(clause: list[str], start: int, nouns: set[str]) -> bool:
    """ "the background is white": a surroundings word, then a verb like "is", then the phrase,
    with no word for the object between them."""
    last = max((j for j in range(start) if clause[j] in SURROUNDINGS), default=None)
    if last is None:
        return False
    between = clause[last + 1 : start]
    return any(w in COPULAS for w in between) and not any(w in nouns for w in between)


def parse_answer(answer: str, system: str | ColorSystem, *, noun: str = "") -> ParsedAnswer:
    """The colour an open answer names, as a name of ``system`` (see the module's rules)."""
    sys_ = load_system(system) if isinstance(system, str) else system
    text = answer.lower().replace("’", "'")
    nouns = {w for w in noun.lower().split()} | OBJECT_WORDS
    surroundings_only = False
    for clause_text in _CLAUSES.split(text):
        if not clause_text:
            continue
        clause = _WORD.findall(clause_text)
        for start, end in _phrases(clause):
            before = clause[start - 1] if start else ""
            after = clause[end] if end < len(clause) else ""
            if before in NEGATIONS:
                continue
            if after in SURROUNDINGS or _said_of_surroundings(clause, start, nouns):
                surroundings_only = True
                continue
            words = clause[start:end]
            name, how = _to_system(words, sys_)
            return ParsedAnswer(name, " ".join(words), how)
    if surroundings_only:
        return ParsedAnswer(None, None, "only the surroundings' colour is named")
    if REFUSAL.search(text):
        return ParsedAnswer(None, None, "no colour named (the model declines)")
    return ParsedAnswer(None, None, "no colour named")
