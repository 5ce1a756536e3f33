"""Build Rainbow probes from captions (seed 000 §4.2).

Rules, in order, for every caption:

1. colour mentions are the 11 basic colour words as whole words, case-insensitive ("whiteboard",
   "Greenland", "redwood" are not mentions; "red-haired" is);
2. "grey" becomes "gray" in the kept text, in the writer's capitalisation (Grey → Gray);
3. "orange" the fruit is not a colour: spaCy's English parser marks a NOUN "orange" that heads
   its own noun phrase with a determiner or numeral ("an orange", "two orange") as the fruit;
   adjectives, compounds ("orange shirt") and bare nouns ("dressed in orange") are colours. The
   number of fruit cases is reported;
4. descriptions where an object has two colours are excluded: ⟨colour colour⟩ and
   ⟨colour and colour⟩, also hyphenated ("black-and-white", "blue-green");
5. articles: "a" before a colour word starting with a vowel sound (orange) becomes "an", "an"
   before other colours becomes "a" — in the original (a fix, counted) and in every foil;
6. replacements: each mention yields 10 probes, one per other basic colour, in the mention's
   capitalisation style;
7. swaps: a description with exactly two mentions of *different* colours yields one probe with the
   two exchanged.

Output order is deterministic (captions in input order, mentions left to right, foil colours in
the basic-term order), and probe ids encode where they came from.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from huebench.color import basic_terms, relation

__all__ = ["Caption", "Mention", "ProbeBuilder", "apply_case"]

COLORS: tuple[str, ...] = tuple(
    basic_terms()
)  # white, yellow, orange, red, pink, purple, blue, green, brown, gray, black
_WORDS = "|".join([*COLORS, "grey"])
MENTION_RE = re.compile(rf"\b({_WORDS})\b", re.IGNORECASE)
TWO_COLOR_RE = re.compile(rf"\b(?:{_WORDS})(?:\s*-\s*|\s+)(?:and\s*-?\s*)?(?:{_WORDS})\b", re.IGNORECASE)
_ARTICLE_RE = re.compile(r"\b(a|an)(\s+)$", re.IGNORECASE)
_VOWEL_COLORS = {"orange"}


@dataclass(frozen=True)
class Caption:
    id: str
    image: str
    caption: str
    source: str = ""


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    color: str  # normalised basic term


@dataclass
class BuildStats:
    captions: int = 0
    kept: int = 0
    without_color: int = 0
    two_color_excluded: int = 0
    fruit_oranges: int = 0
    article_fixes: int = 0
    mentions: Counter = field(default_factory=Counter)
    swaps: Counter = field(default_factory=Counter)
    by_source: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))


def apply_case(template: str, word: str) -> str:
    """``word`` in ``template``'s capitalisation style (lower, Title, UPPER)."""
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _fix_article(before: str, color: str) -> tuple[str, bool]:
    """Make an "a"/"an" right before a colour word agree with it; returns (text, changed)."""
    m = _ARTICLE_RE.search(before)
    if not m:
        return before, False
    article = m.group(1)
    wanted = "an" if color in _VOWEL_COLORS else "a"
    if article.lower() == wanted:
        return before, False
    return before[: m.start(1)] + apply_case(article, wanted) + m.group(2), True


def _render(text: str, mentions: Sequence[Mention], colors: Sequence[str]) -> tuple[str, int]:
    """``text`` with each mention's word set to ``colors[i]`` (case kept) and articles agreed."""
    out: list[str] = []
    pos, fixes = 0, 0
    for m, c in zip(mentions, colors, strict=True):
        before = text[pos : m.start]
        before, changed = _fix_article("".join(out) + before, c)
        fixes += changed
        out = [before]
        out.append(apply_case(text[m.start : m.end], c))
        pos = m.end
    out.append(text[pos:])
    return "".join(out), fixes


class ProbeBuilder:
    """Derive replacement and swap probes; ``nlp`` is a spaCy pipeline (loaded lazily)."""

    def __init__(self, nlp: Any = None):
        self._nlp = nlp
        self.stats = BuildStats()

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from huebench.nlp import load_spacy

            self._nlp = load_spacy()
        return self._nlp

    def _fruit_spans(self, text: str) -> set[int]:
        """Start offsets of "orange" tokens that are the fruit."""
        if "orange" not in text.lower():
            return set()
        doc = self.nlp(text)
        out = set()
        for tok in doc:
            if tok.lower_ != "orange" or tok.pos_ not in ("NOUN", "PROPN"):
                continue
            if tok.dep_ in ("compound", "amod"):
                continue  # "orange shirt"
            if any(ch.dep_ in ("det", "nummod") for ch in tok.children):
                out.add(tok.idx)  # "an orange", "two orange"
        return out

    def mentions(self, text: str) -> tuple[list[Mention], int]:
        fruit = self._fruit_spans(text)
        ms = []
        for m in MENTION_RE.finditer(text):
            if m.start() in fruit:
                continue
            word = m.group(1).lower()
            ms.append(Mention(m.start(), m.end(), "gray" if word == "grey" else word))
        return ms, len(fruit)

    def build(self, captions: Iterable[Caption]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        replacements: list[dict[str, Any]] = []
        swaps: list[dict[str, Any]] = []
        st = self.stats
        for cap in captions:
            st.captions += 1
            source = cap.source or "default"
            src = st.by_source[source]
            src["captions"] += 1
            if TWO_COLOR_RE.search(cap.caption):
                st.two_color_excluded += 1
                src["two_color_excluded"] += 1
                continue
            mentions, fruit = self.mentions(cap.caption)
            st.fruit_oranges += fruit
            src["fruit_oranges"] += fruit
            if not mentions:
                st.without_color += 1
                continue
            # normalised original: grey → gray, articles agreed (a fix when they were wrong)
            text, fixes = _render(cap.caption, mentions, [m.color for m in mentions])
            st.article_fixes += fixes
            src["article_fixes"] += fixes
            mentions, _ = self.mentions(text)  # offsets in the normalised text
            st.kept += 1
            src["kept"] += 1
            base = {"caption_id": cap.id, "image": cap.image, "source": cap.source, "text": text}
            for k, m in enumerate(mentions):
                st.mentions[(source, m.color)] += 1
                for foil_color in COLORS:
                    if foil_color == m.color:
                        continue
                    colors = [mm.color for mm in mentions]
                    colors[k] = foil_color
                    foil, _ = _render(text, mentions, colors)
                    replacements.append(
                        {
                            "id": f"{cap.id}:r{k}:{foil_color}",
                            **base,
                            "kind": "replacement",
                            "foil": foil,
                            "original_color": m.color,
                            "foil_color": foil_color,
                            "relation": relation(m.color, foil_color),
                            "mention_index": k,
                        }
                    )
            if len(mentions) == 2 and mentions[0].color != mentions[1].color:
                a, b = mentions[0].color, mentions[1].color
                foil, _ = _render(text, mentions, [b, a])
                st.swaps[(source, *sorted((a, b), key=COLORS.index))] += 1
                swaps.append(
                    {
                        "id": f"{cap.id}:s",
                        **base,
                        "kind": "swap",
                        "foil": foil,
                        "original_color": a,
                        "foil_color": b,
                        "relation": relation(a, b),
                    }
                )
        return replacements, swaps

    def stats_json(
        self, replacements: Sequence[dict[str, Any]], swaps: Sequence[dict[str, Any]], captions: Sequence[Caption]
    ) -> dict[str, Any]:
        """Tables 1, 5 and 6 in JSON: per source sentences/images/mentions/swaps; mentions per colour; swaps per pair."""
        st = self.stats
        sources = sorted({c.source or "default" for c in captions})
        kept_ids = {p["caption_id"] for p in replacements}
        per_source = {}
        for s in sources:
            caps = [c for c in captions if (c.source or "default") == s and c.id in kept_ids]
            per_source[s] = {
                "images": len({c.image for c in caps}),
                "sentences": len(caps),
                "tokens_mean": (sum(len(c.caption.split()) for c in caps) / len(caps)) if caps else 0.0,
                "mentions": sum(n for (src, _), n in st.mentions.items() if src == s),
                "swaps": sum(n for (src, *_), n in st.swaps.items() if src == s),
                "two_color_excluded": st.by_source[s]["two_color_excluded"],
                "fruit_oranges": st.by_source[s]["fruit_oranges"],
                "article_fixes": st.by_source[s]["article_fixes"],
            }
        mentions_per_color = {c: {s: st.mentions.get((s, c), 0) for s in sources} for c in COLORS}
        swaps_per_pair: dict[str, dict[str, int]] = defaultdict(dict)
        for (src, a, b), n in sorted(st.swaps.items(), key=lambda kv: (COLORS.index(kv[0][1]), COLORS.index(kv[0][2]))):
            swaps_per_pair[f"{a}-{b}"][src] = n
        return {
            "colors": list(COLORS),
            "captions_read": st.captions,
            "captions_kept": st.kept,
            "captions_without_color": st.without_color,
            "two_color_excluded": st.two_color_excluded,
            "fruit_oranges": st.fruit_oranges,
            "article_fixes": st.article_fixes,
            "replacements": len(replacements),
            "swaps": len(swaps),
            "per_source": per_source,
            "mentions_per_color": mentions_per_color,
            "swaps_per_pair": dict(swaps_per_pair),
        }
