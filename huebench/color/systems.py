"""Colour-naming systems shipped as CSV data: basic terms, ISCC-NBS L1/L2/L3 and CSS3/X11.

Provenance of each file (see ``docs/color-systems.md`` for every difference from upstream):

- ``basic.csv``: the 11 Berlin–Kay basic terms used by Rainbow, in the order of Rainbow's
  Table 5, each with a prototype sRGB: the ISCC-NBS Level 1 centroid of the same name;
- ``iscc_nbs_l1.csv``: the 13 Level-1 categories; their centroids are the rows of the same
  name in GenColorBench Table 5 (Level 2 contains every Level-1 name);
- ``iscc_nbs_l2.csv``: GenColorBench Table 5 (29 rows);
- ``iscc_nbs_l3.csv``: GenColorBench Table 6 (260 rows; ISCC-NBS numbers 49, 66, 124, 142,
  161, 167 and 170 are absent from the table, which the text calls "267 colors");
- ``css3.csv``: the 147 CSS Color Module Level 3 keywords, both gray/grey spellings: the 128
  rows of GenColorBench Table 7 that are CSS3 plus the 19 keywords the table omits (values
  from the W3C recommendation); the table's RebeccaPurple (CSS4) is not part of CSS3.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import NDArray

from huebench._suggest import suggestion_text
from huebench.color.conversions import lab_to_lch, srgb_to_lab
from huebench.color.difference import delta_e
from huebench.errors import UnknownNameError

if TYPE_CHECKING:
    from huebench.color.parsing import ColorLike

__all__ = ["SYSTEM_NAMES", "ColorSystem", "NamedColor", "load_system", "normalize_name", "system_names"]

#: Canonical system names, in the order name lookups try them (see :func:`huebench.color.parse`).
SYSTEM_NAMES = ("css3", "basic", "iscc-nbs-l1", "iscc-nbs-l2", "iscc-nbs-l3")

_FILES = {
    "basic": ("basic.csv", "Berlin–Kay basic colour terms (prototypes: ISCC-NBS L1 centroids)"),
    "iscc-nbs-l1": ("iscc_nbs_l1.csv", "ISCC-NBS Level 1 (13 categories)"),
    "iscc-nbs-l2": ("iscc_nbs_l2.csv", "ISCC-NBS Level 2 (29 categories)"),
    "iscc-nbs-l3": ("iscc_nbs_l3.csv", "ISCC-NBS Level 3 (GenColorBench Table 6)"),
    "css3": ("css3.csv", "CSS3/X11 colour keywords (147)"),
}

_ALIASES = {
    "basic": "basic",
    "berlinkay": "basic",
    "bk": "basic",
    "l1": "iscc-nbs-l1",
    "l2": "iscc-nbs-l2",
    "l3": "iscc-nbs-l3",
    "isccnbsl1": "iscc-nbs-l1",
    "isccnbsl2": "iscc-nbs-l2",
    "isccnbsl3": "iscc-nbs-l3",
    "isccnbs1": "iscc-nbs-l1",
    "isccnbs2": "iscc-nbs-l2",
    "isccnbs3": "iscc-nbs-l3",
    "css": "css3",
    "css3": "css3",
    "x11": "css3",
    "css3x11": "css3",
}


def normalize_name(name: str) -> str:
    """Lookup key of a colour or system name: lower case, no spaces/hyphens/underscores, grey → gray."""
    key = "".join(ch for ch in name.lower() if ch not in " -_\t")
    return key.replace("grey", "gray")


def system_names() -> tuple[str, ...]:
    return SYSTEM_NAMES


def canonical_system_name(name: str) -> str:
    """Map an alias (``"L2"``, ``"ISCC-NBS L3"``, ``"x11"``) to its canonical system name."""
    key = normalize_name(name)
    if key in _ALIASES:
        return _ALIASES[key]
    raise UnknownNameError(
        f"unknown colour system {name!r}; known systems: {', '.join(SYSTEM_NAMES)}."
        + suggestion_text(name, list(SYSTEM_NAMES) + list(_ALIASES), key=normalize_name)
    )


@dataclass(frozen=True)
class NamedColor:
    """One member of a colour system."""

    name: str
    rgb: tuple[int, int, int]
    system: str
    index: int
    lab: NDArray[np.float64] = field(compare=False, repr=False)

    @property
    def hex(self) -> str:
        return "#{:02X}{:02X}{:02X}".format(*self.rgb)

    @property
    def srgb(self) -> tuple[float, float, float]:
        r, g, b = self.rgb
        return (r / 255.0, g / 255.0, b / 255.0)

    @property
    def lch(self) -> NDArray[np.float64]:
        return np.asarray(lab_to_lch(self.lab), dtype=np.float64)  # float64 in, float64 out


@dataclass(frozen=True)
class Neighbour:
    """A system member and its distance to a query colour."""

    color: NamedColor
    distance: float


class ColorSystem:
    """A named set of colours with lookup by name and nearest-neighbour search in CIELAB.

    >>> css = load_system("css3")
    >>> len(css), css["light grey"].hex
    (147, '#D3D3D3')
    """

    def __init__(
        self, name: str, title: str, colors: list[tuple[str, tuple[int, int, int]]], extra: list[dict[str, str]]
    ):
        self.name = name
        self.title = title
        rgb = np.array([c[1] for c in colors], dtype=np.uint8).reshape(-1, 3)
        self.lab: NDArray[np.float64] = np.asarray(srgb_to_lab(rgb), dtype=np.float64)  # uint8 decodes to float64
        self.lab.setflags(write=False)
        self.colors: tuple[NamedColor, ...] = tuple(
            NamedColor(name=n, rgb=v, system=name, index=i, lab=self.lab[i]) for i, (n, v) in enumerate(colors)
        )
        self.extra = extra  # the CSV's other columns, per colour (provenance, flags)
        self._exact: dict[str, int] = {}
        self._normal: dict[str, int] = {}
        for i, c in enumerate(self.colors):
            self._exact.setdefault(c.name.lower(), i)
            self._normal.setdefault(normalize_name(c.name), i)

    def __len__(self) -> int:
        return len(self.colors)

    def __iter__(self) -> Iterator[NamedColor]:
        return iter(self.colors)

    def __repr__(self) -> str:
        return f"<ColorSystem {self.name!r}: {len(self)} colours>"

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def __getitem__(self, key: str | int) -> NamedColor:
        if isinstance(key, int):
            return self.colors[key]
        return self.get(key)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.colors]

    def find(self, name: str) -> NamedColor | None:
        """The member called ``name`` (exact spelling first, then case/space/hyphen/grey-insensitive)."""
        i = self._exact.get(name.strip().lower())
        if i is None:
            i = self._normal.get(normalize_name(name))
        return None if i is None else self.colors[i]

    def get(self, name: str) -> NamedColor:
        """Like :meth:`find`, but an unknown name raises with a did-you-mean suggestion."""
        found = self.find(name)
        if found is None:
            raise UnknownNameError(
                f"{name!r} is not a colour of the {self.name} system ({len(self)} colours)."
                + suggestion_text(name, self.names, key=normalize_name)
            )
        return found

    def nearest(
        self,
        color: ColorLike,
        k: int = 1,
        *,
        method: Literal["ciede2000", "cie76"] = "ciede2000",
    ) -> list[Neighbour]:
        """The ``k`` members closest to ``color`` (any :func:`parse`-able spec), nearest first."""
        from huebench.color.parsing import parse

        lab = parse(color).lab
        return self._rank(lab, k, method=method)

    def nearest_lab(
        self, lab: NDArray[np.floating], k: int = 1, *, method: Literal["ciede2000", "cie76"] = "ciede2000"
    ) -> list[Neighbour]:
        """As :meth:`nearest`, for a CIELAB value."""
        return self._rank(np.asarray(lab, dtype=np.float64), k, method=method)

    def _rank(
        self,
        lab: NDArray[np.floating],
        k: int,
        *,
        method: Literal["ciede2000", "cie76"],
        exclude: frozenset[int] = frozenset(),
        distinct: bool = False,
    ) -> list[Neighbour]:
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        d = delta_e(self.lab, lab[None, :], method=method)
        order = np.lexsort((np.arange(len(d)), d))  # stable: ties keep table order
        out: list[Neighbour] = []
        seen: set[tuple[int, int, int]] = set()
        for i in order:
            if len(out) == k:
                break
            c = self.colors[i]
            if i in exclude or (distinct and c.rgb in seen):
                continue
            seen.add(c.rgb)
            out.append(Neighbour(c, float(d[i])))
        return out

    def neighbours(self, name: str, k: int, *, method: Literal["ciede2000", "cie76"] = "ciede2000") -> list[Neighbour]:
        """The ``k`` perceptually nearest *other* colours of member ``name``.

        Aliases with the same sRGB (CSS ``gray``/``grey``, ``slategray``/``slategrey``) count
        once, and never as a neighbour of each other: they are one colour, and counting them
        twice would silently shrink a candidate set.
        """
        target = self.get(name)
        same = frozenset(i for i, c in enumerate(self.colors) if c.rgb == target.rgb)
        return self._rank(target.lab, k, method=method, exclude=same, distinct=True)

    def candidate_set(
        self, name: str, k: int, *, method: Literal["ciede2000", "cie76"] = "ciede2000"
    ) -> list[NamedColor]:
        """GenColorBench's candidate set: the member itself followed by its ``k`` nearest neighbours."""
        target = self.get(name)
        return [target] + [n.color for n in self.neighbours(name, k, method=method)]


def _read_csv(filename: str) -> list[dict[str, str]]:
    text = resources.files("huebench.color").joinpath("data").joinpath(filename).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


def load_system(name: str) -> ColorSystem:
    """Load a colour system by name or alias: ``basic``, ``iscc-nbs-l1``, ``iscc-nbs-l2``, ``iscc-nbs-l3``, ``css3``."""
    return _load(canonical_system_name(name))


@functools.cache
def _load(canonical: str) -> ColorSystem:
    filename, title = _FILES[canonical]
    rows = _read_csv(filename)
    colors = [(r["name"], (int(r["r"]), int(r["g"]), int(r["b"]))) for r in rows]
    extra = [{k: v for k, v in r.items() if k not in ("name", "r", "g", "b")} for r in rows]
    return ColorSystem(canonical, title, colors, extra)
