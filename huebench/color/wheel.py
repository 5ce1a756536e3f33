"""Wheel relations of the 11 basic colour terms: adjacent, complementary or other.

Rainbow (seed 000, §3 and §4.3.1) contrasts colour replacements between *adjacent* terms
(a red object might also be called orange) with *complementary* ones (a shade called blue
can never be called yellow). The relations are stored in ``data/basic_relations.csv`` and
:func:`derive_relations` re-derives them from the terms' prototypes by this rule:

1. A term is *achromatic* if its prototype's chroma C*ab is below
   :data:`ACHROMATIC_CHROMA`. White, gray and black lie on their own lightness axis:
   terms next to each other in L* are adjacent, the lightest and darkest complementary.
2. The chromatic terms flagged ``on_wheel`` in ``basic.csv`` form the hue wheel, ordered by
   the CIELAB hue angle h_ab of their prototypes; circular neighbours are adjacent.
3. Brown is chromatic but not a hue of its own (a dark, desaturated orange: RGB wheels
   show it nowhere). It is adjacent to the two wheel terms whose hue angles bracket its own.
4. Two chromatic terms whose hue angles are at least :data:`COMPLEMENTARY_MIN_ANGLE` apart
   (within 40° of opposite) are complementary.
5. Every other pair is ``other``.

With the ISCC-NBS L1 centroids as prototypes this gives the wheel
pink (10°) – red (21°) – orange (60°) – yellow (88°) – green (167°) – blue (278°) –
purple (322°) – pink, brown (54°) beside red and orange, and the complementary pairs
yellow–blue, green–pink, green–purple, red–green, orange–blue and white–black.
"""

from __future__ import annotations

import csv
import functools
import itertools
from importlib import resources
from typing import Literal, cast

from huebench._suggest import suggestion_text
from huebench.color.systems import ColorSystem, load_system, normalize_name
from huebench.errors import UnknownNameError

__all__ = [
    "ACHROMATIC_CHROMA",
    "COMPLEMENTARY_MIN_ANGLE",
    "Relation",
    "basic_terms",
    "derive_relations",
    "relation",
    "relations",
]

Relation = Literal["adjacent", "complementary", "other"]

#: C*ab below which a term's prototype counts as achromatic (ISCC-NBS white/gray/black: 4.7/3.4/1.7).
ACHROMATIC_CHROMA = 10.0
#: Smallest hue-angle difference (degrees) at which two chromatic terms are complementary.
COMPLEMENTARY_MIN_ANGLE = 140.0


def _hue_gap(h1: float, h2: float) -> float:
    d = abs(h1 - h2) % 360.0
    return min(d, 360.0 - d)


def derive_relations(system: ColorSystem | None = None) -> dict[frozenset[str], Relation]:
    """Apply the module's rule to the basic terms; returns ``{frozenset({a, b}): relation}``."""
    system = system or load_system("basic")
    on_wheel = {
        c.name: row.get("on_wheel", "false").lower() == "true" for c, row in zip(system, system.extra, strict=True)
    }
    lch = {c.name: c.lch for c in system}
    achromatic = sorted((n for n in lch if lch[n][1] < ACHROMATIC_CHROMA), key=lambda n: -lch[n][0])
    chromatic = [n for n in lch if n not in achromatic]
    wheel = sorted((n for n in chromatic if on_wheel[n]), key=lambda n: lch[n][2])

    rel: dict[frozenset[str], Relation] = {frozenset(p): "other" for p in itertools.combinations(system.names, 2)}
    for a, b in itertools.combinations(chromatic, 2):
        if _hue_gap(lch[a][2], lch[b][2]) >= COMPLEMENTARY_MIN_ANGLE:
            rel[frozenset((a, b))] = "complementary"
    for i, name in enumerate(wheel):
        rel[frozenset((name, wheel[(i + 1) % len(wheel)]))] = "adjacent"
    for name in chromatic:
        if on_wheel[name]:
            continue
        h = lch[name][2]
        # the wheel terms just below and just above h, circularly
        below = min(wheel, key=lambda w: (h - lch[w][2]) % 360.0)
        above = min(wheel, key=lambda w: (lch[w][2] - h) % 360.0)
        for w in {below, above}:
            rel[frozenset((name, w))] = "adjacent"
    for a, b in itertools.pairwise(achromatic):
        rel[frozenset((a, b))] = "adjacent"
    if len(achromatic) >= 3:
        rel[frozenset((achromatic[0], achromatic[-1]))] = "complementary"
    return rel


@functools.cache
def relations() -> dict[frozenset[str], Relation]:
    """The stored relations of the 11 basic terms (``data/basic_relations.csv``)."""
    text = (
        resources.files("huebench.color").joinpath("data").joinpath("basic_relations.csv").read_text(encoding="utf-8")
    )
    out: dict[frozenset[str], Relation] = {}
    for row in csv.DictReader(text.splitlines()):
        # the packaged file holds only Relation values (tests/test_color_wheel.py compares it with derive_relations)
        out[frozenset((row["color_a"], row["color_b"]))] = cast(Relation, row["relation"])
    return out


def basic_terms() -> list[str]:
    """The 11 basic colour terms in Rainbow's order (white, yellow, orange, …, black)."""
    return load_system("basic").names


def _term(name: str) -> str:
    key = normalize_name(name)
    for term in basic_terms():
        if term == key:
            return term
    raise UnknownNameError(
        f"{name!r} is not one of the 11 basic colour terms ({', '.join(basic_terms())})."
        + suggestion_text(name, basic_terms(), key=normalize_name)
    )


def relation(a: str, b: str) -> Relation:
    """``"adjacent"``, ``"complementary"`` or ``"other"`` for two different basic colour terms."""
    ta, tb = _term(a), _term(b)
    if ta == tb:
        raise ValueError(f"{a!r} and {b!r} are the same basic term; a relation needs two different colours")
    return relations()[frozenset((ta, tb))]
