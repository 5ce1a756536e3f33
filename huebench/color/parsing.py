"""Parsing of colour specifications into :class:`Color`.

Accepted forms (see :func:`parse`):

- a name from any shipped system, case-, space- and hyphen-insensitive, ``grey`` ≡ ``gray``
  (``"Light Sea-Green"``, ``"lightseagreen"``); pin a system with a prefix
  (``"iscc-nbs-l2:red"``) or the ``system=`` argument;
- ``#rgb`` and ``#rrggbb`` hex;
- CSS ``rgb(r, g, b)`` with numbers 0–255 or percentages (commas or spaces);
- a 3-sequence or array: integers are 8-bit (0–255), floats are in [0, 1].
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from huebench._suggest import suggestion_text
from huebench.color.conversions import lab_to_lch, srgb_to_lab
from huebench.color.systems import SYSTEM_NAMES, NamedColor, canonical_system_name, load_system, normalize_name
from huebench.errors import ColorSpecError, UnknownNameError

__all__ = ["Color", "ColorLike", "parse"]


@dataclass(frozen=True)
class Color:
    """An sRGB colour, optionally with the name and system it was looked up in."""

    srgb: tuple[float, float, float]
    name: str | None = None
    system: str | None = None

    @property
    def rgb(self) -> tuple[int, int, int]:
        """8-bit sRGB, rounded and clipped."""
        r, g, b = (round(min(max(c, 0.0), 1.0) * 255.0) for c in self.srgb)
        return (r, g, b)

    @property
    def hex(self) -> str:
        return "#{:02X}{:02X}{:02X}".format(*self.rgb)

    @property
    def lab(self) -> NDArray[np.float64]:
        return np.asarray(srgb_to_lab(np.asarray(self.srgb, dtype=np.float64)), dtype=np.float64)  # float64 in and out

    @property
    def lch(self) -> NDArray[np.float64]:
        return np.asarray(lab_to_lch(self.lab), dtype=np.float64)  # float64 in and out

    def __str__(self) -> str:
        return f"{self.name} ({self.hex})" if self.name else self.hex


ColorLike = str | Color | NamedColor | Sequence[float] | NDArray[np.generic]

_HEX = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_RGB_FUNC = re.compile(r"rgb\s*\((?P<body>[^)]*)\)", re.IGNORECASE)
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?%?", re.IGNORECASE)


def parse(spec: ColorLike, *, system: str | None = None) -> Color:
    """Parse any colour specification into a :class:`Color`.

    A bare name is looked up in ``system`` if given, else in the systems of
    :data:`~huebench.color.systems.SYSTEM_NAMES` in that order (so ``"red"`` is CSS red
    ``#FF0000``; write ``"iscc-nbs-l2:red"`` for the ISCC-NBS centroid).

    Raises :class:`~huebench.errors.ColorSpecError` with what was wrong and the valid
    form or range; unknown names get a did-you-mean suggestion.
    """
    if isinstance(spec, Color):
        return spec
    if isinstance(spec, NamedColor):
        return Color(spec.srgb, spec.name, spec.system)
    if isinstance(spec, str):
        return _parse_string(spec, system)
    # str is handled above; naming it again lets the type checker drop it (a str is a Sequence)
    if isinstance(spec, (Sequence, np.ndarray)) and not isinstance(spec, (str, bytes, bytearray)):
        return _parse_components(spec)
    raise ColorSpecError(
        f"cannot read a colour from a {type(spec).__name__}: give a name, '#rrggbb', 'rgb(r, g, b)' or a 3-sequence"
    )


def _parse_string(text: str, system: str | None) -> Color:
    s = text.strip()
    if not s:
        raise ColorSpecError("empty colour specification: give a name, '#rrggbb', 'rgb(r, g, b)' or a 3-sequence")
    if s.startswith("#"):
        m = _HEX.fullmatch(s)
        if not m:
            raise ColorSpecError(
                f"bad hex colour {text!r}: expected '#rgb' or '#rrggbb' with hex digits 0-9/a-f (e.g. '#f80' or '#ff8800')"
            )
        digits = m.group(1)
        if len(digits) == 3:
            digits = "".join(ch * 2 for ch in digits)
        r, g, b = (int(digits[i : i + 2], 16) / 255.0 for i in (0, 2, 4))
        return Color((r, g, b))
    if s.lower().startswith("rgb"):
        return _parse_rgb_function(text, s)
    if ":" in s:
        prefix, _, rest = s.partition(":")
        return _lookup_name(rest.strip(), canonical_system_name(prefix))
    return _lookup_name(s, canonical_system_name(system) if system else None)


def _parse_rgb_function(original: str, s: str) -> Color:
    m = _RGB_FUNC.fullmatch(s)
    parts = re.split(r"[\s,]+", m.group("body").strip()) if m else []
    if not m or len(parts) != 3 or not all(_NUMBER.fullmatch(p) for p in parts):
        raise ColorSpecError(
            f"bad rgb() colour {original!r}: expected 'rgb(r, g, b)' with three numbers 0-255 or percentages 0%-100%"
        )
    values: list[float] = []
    for channel, part in zip("rgb", parts, strict=True):
        if part.endswith("%"):
            v = float(part[:-1])
            if not 0.0 <= v <= 100.0:
                raise ColorSpecError(f"{channel} = {part} in {original!r} is out of range: percentages must be 0%-100%")
            values.append(v / 100.0)
        else:
            v = float(part)
            if not 0.0 <= v <= 255.0:
                raise ColorSpecError(f"{channel} = {part} in {original!r} is out of range: rgb() numbers must be 0-255")
            values.append(v / 255.0)
    r, g, b = values  # three parts, checked above
    return Color((r, g, b))


def _parse_components(seq: Sequence[float] | NDArray[np.generic]) -> Color:
    arr = np.asarray(seq)
    if arr.shape != (3,):
        raise ColorSpecError(f"a colour needs exactly 3 components (r, g, b); got shape {arr.shape}")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number):
        raise ColorSpecError(f"colour components must be numbers, got {arr.dtype} values {list(arr)!r}")
    is_int = np.issubdtype(arr.dtype, np.integer)
    if not is_int and isinstance(seq, Sequence) and all(isinstance(v, (int, np.integer)) for v in seq):
        is_int = True
    if is_int:
        bad = [(c, int(v)) for c, v in zip("rgb", arr.tolist(), strict=True) if not 0 <= v <= 255]
        if bad:
            c, v = bad[0]
            raise ColorSpecError(
                f"{c} = {v} is out of range: integer components are 8-bit values 0-255 (floats are read as 0.0-1.0)"
            )
        r, g, b = (float(v) / 255.0 for v in arr.tolist())
        return Color((r, g, b))
    values = arr.astype(np.float64)
    if not np.all(np.isfinite(values)):
        raise ColorSpecError(f"colour components must be finite numbers, got {values.tolist()!r}")
    bad_f = [(c, v) for c, v in zip("rgb", values.tolist(), strict=True) if not 0.0 <= v <= 1.0]
    if bad_f:
        c, v = bad_f[0]
        raise ColorSpecError(
            f"{c} = {v} is out of range: float components are in 0.0-1.0 (use integers for 8-bit 0-255 values)"
        )
    r, g, b = values.tolist()
    return Color((r, g, b))


def _lookup_name(name: str, system: str | None) -> Color:
    systems = (system,) if system else SYSTEM_NAMES
    for sys_name in systems:
        found = load_system(sys_name).find(name)
        if found is not None:
            return Color(found.srgb, found.name, found.system)
    pool = [c.name for s in systems for c in load_system(s)]
    where = f"the {system} system" if system else "any colour system (" + ", ".join(SYSTEM_NAMES) + ")"
    raise UnknownNameError(
        f"unknown colour name {name!r}: not in {where}."
        + (suggestion_text(name, pool, key=normalize_name) or " Use '#rrggbb' or 'rgb(r, g, b)' for other colours.")
    )
