"""Recolouring: turn the hue of an image, or of a masked part of it, by a given angle.

Two methods (:data:`RECOLOR_METHODS`):

- ``"lch"`` (perceptual): the hue angle turns in CIELCh(ab) at constant L* and C*, so lightness and
  colourfulness stay as they were. A turned colour that sRGB cannot show keeps its L* and hue, and
  loses chroma until it can (:func:`map_into_gamut`): the nearest displayable colour of that
  lightness and hue, found by bisection on C*.
- ``"hsv"``: the hue of HSV turns (H + shift), as ColorBench's robustness variants do. HSV's hue is
  not a perceptual one and its V and S are not lightness and chroma: a blue turned to yellow at the
  same V and S is far lighter (L* 32 → 97 for pure blue → pure yellow).

:func:`recolor` reports what the edit did per image (:class:`Recoloring`): ΔE00 between each edited
pixel before and after, the change of L*, and the share of pixels whose chroma was reduced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from huebench._suggest import suggestion_text
from huebench.color.conversions import lab_to_lch, lab_to_srgb, lch_to_lab, srgb_to_lab
from huebench.color.difference import delta_e
from huebench.errors import HuebenchError, UnknownNameError

__all__ = ["RECOLOR_METHODS", "Recoloring", "map_into_gamut", "recolor", "rotate_hue_hsv", "rotate_hue_lch"]

#: bisection steps on C* in :func:`map_into_gamut`: 2⁻²⁴ of the chroma, far below one 8-bit step
GAMUT_STEPS = 24
#: how far outside [0, 1] an sRGB channel may be and still count as shown: a fortieth of an 8-bit
#: step. The sRGB matrix and the D65 white agree to about 1e-4 (sRGB white is Lab (100, 0.008,
#: 0.004)), so the greys at the top of the L* range lie just outside the cube by a tighter measure
GAMUT_TOLERANCE = 1e-4


def _in_gamut(lab: NDArray[np.float64]) -> NDArray[np.bool_]:
    rgb = lab_to_srgb(lab)
    return np.all((rgb >= -GAMUT_TOLERANCE) & (rgb <= 1 + GAMUT_TOLERANCE), axis=-1)


def map_into_gamut(lab: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Bring Lab colours into the sRGB gamut at constant L* and hue, reducing only C*.

    Returns the mapped colours and a mask of those that had to be mapped. L* is clipped to
    [0, 100] first (the grey of every L* in that range is displayable, so the bisection between that
    grey and the colour always ends in gamut)."""
    out = np.array(lab, dtype=np.float64).reshape(-1, 3)
    out[:, 0] = np.clip(out[:, 0], 0.0, 100.0)
    outside = ~_in_gamut(out)
    if outside.any():
        lab_out = out[outside]
        lo = np.zeros(len(lab_out))  # chroma scale known to be in gamut
        hi = np.ones(len(lab_out))  # … known to be outside
        for _ in range(GAMUT_STEPS):
            mid = 0.5 * (lo + hi)
            trial = lab_out.copy()
            trial[:, 1:] *= mid[:, None]
            ok = _in_gamut(trial)
            lo = np.where(ok, mid, lo)
            hi = np.where(ok, hi, mid)
        lab_out[:, 1:] *= lo[:, None]
        out[outside] = lab_out
    shape = np.shape(lab)
    return out.reshape(shape), outside.reshape(shape[:-1])


def rotate_hue_lch(lab: ArrayLike, hue_shift: float) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Turn the CIELCh hue of Lab colours by ``hue_shift`` degrees at constant L* and C*, then bring
    them into the sRGB gamut (:func:`map_into_gamut`). Returns the colours and the mapped mask."""
    lch = lab_to_lch(np.asarray(lab, dtype=np.float64))
    lch[..., 2] = (lch[..., 2] + float(hue_shift)) % 360.0
    return map_into_gamut(lch_to_lab(lch))


def rotate_hue_hsv(rgb: ArrayLike, hue_shift: float) -> NDArray[np.float64]:
    """Turn the HSV hue of sRGB colours (floats in [0, 1]) by ``hue_shift`` degrees, keeping S and V."""
    c = np.asarray(rgb, dtype=np.float64)
    v = c.max(axis=-1)
    spread = v - c.min(axis=-1)
    s = np.divide(spread, v, out=np.zeros_like(v), where=v > 0)
    r, g, b = c[..., 0], c[..., 1], c[..., 2]
    safe = np.where(spread > 0, spread, 1.0)
    h = np.where(
        v == r, ((g - b) / safe) % 6.0, np.where(v == g, (b - r) / safe + 2.0, (r - g) / safe + 4.0)
    )  # in sixths of the circle
    h = np.where(spread > 0, (h + float(hue_shift) / 60.0) % 6.0, 0.0)
    i = np.floor(h).astype(np.int64) % 6
    f = h - np.floor(h)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = np.empty_like(c)
    for channel in range(3):
        out[..., channel] = np.choose(i, [sector[channel] for sector in choices])
    return out


def _recolor_lch(rgb8: NDArray[np.uint8], hue_shift: float) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    lab, mapped = rotate_hue_lch(srgb_to_lab(rgb8), hue_shift)
    return np.clip(lab_to_srgb(lab), 0.0, 1.0), mapped


def _recolor_hsv(rgb8: NDArray[np.uint8], hue_shift: float) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    return rotate_hue_hsv(rgb8 / 255.0, hue_shift), np.zeros(len(rgb8), dtype=bool)


#: method name → function of (N×3 uint8 sRGB, hue shift in degrees) → (N×3 sRGB floats, mapped mask)
RECOLOR_METHODS: dict[str, Callable[[NDArray[np.uint8], float], tuple[NDArray[np.float64], NDArray[np.bool_]]]] = {
    "lch": _recolor_lch,
    "hsv": _recolor_hsv,
}


@dataclass(frozen=True)
class Recoloring:
    """A recoloured image and what the edit did to its edited pixels."""

    image: NDArray[np.uint8]
    method: str
    hue_shift: float
    pixels: int  # edited pixels (the mask's, or the whole image's)
    delta_e00_mean: float  # CIEDE2000 between each edited pixel before and after, averaged
    delta_e00_max: float
    delta_l_mean: float  # mean |ΔL*| of the edited pixels
    gamut_mapped: float  # share of edited pixels whose chroma was reduced to fit sRGB

    def summary(self) -> dict[str, float | int | str]:
        return {
            "method": self.method,
            "hue_shift": self.hue_shift,
            "pixels": self.pixels,
            "delta_e00_mean": round(self.delta_e00_mean, 4),
            "delta_e00_max": round(self.delta_e00_max, 4),
            "delta_l_mean": round(self.delta_l_mean, 4),
            "gamut_mapped": round(self.gamut_mapped, 4),
        }


def recolor(image: ArrayLike, hue_shift: float, *, mask: ArrayLike | None = None, method: str = "lch") -> Recoloring:
    """Turn the hue of an H×W×3 8-bit sRGB image by ``hue_shift`` degrees, inside ``mask`` (H×W
    booleans; None: the whole image), with one of :data:`RECOLOR_METHODS`."""
    if method not in RECOLOR_METHODS:
        raise UnknownNameError(
            f"recolouring method {method!r} unknown: use {' or '.join(RECOLOR_METHODS)}"
            + suggestion_text(method, list(RECOLOR_METHODS))
        )
    img = np.asarray(image)
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise HuebenchError(f"expected an H×W×3 8-bit RGB image, got shape {img.shape} and type {img.dtype}")
    m = np.ones(img.shape[:2], dtype=bool) if mask is None else np.asarray(mask).astype(bool)
    if m.shape != img.shape[:2]:
        raise HuebenchError(
            f"mask shape {m.shape} does not match the image's {img.shape[:2]}: give a mask of the same size"
        )
    before = img[m]
    out = img.copy()
    if len(before) == 0:
        return Recoloring(out, method, float(hue_shift), 0, 0.0, 0.0, 0.0, 0.0)
    # an 8-bit image repeats its colours: each distinct one is turned once
    key = (before[:, 0].astype(np.uint32) << 16) | (before[:, 1].astype(np.uint32) << 8) | before[:, 2]
    distinct, inverse = np.unique(key, return_inverse=True)
    colors = np.stack([(distinct >> 16) & 255, (distinct >> 8) & 255, distinct & 255], axis=1).astype(np.uint8)
    srgb, mapped_colors = RECOLOR_METHODS[method](colors, float(hue_shift))
    after = np.round(np.clip(srgb, 0.0, 1.0) * 255.0).astype(np.uint8)[inverse]
    mapped = mapped_colors[inverse]
    out[m] = after
    lab_before, lab_after = srgb_to_lab(before), srgb_to_lab(after)
    de = delta_e(lab_before, lab_after)
    return Recoloring(
        out,
        method,
        float(hue_shift),
        len(before),
        float(de.mean()),
        float(de.max()),
        float(np.abs(lab_after[:, 0] - lab_before[:, 0]).mean()),
        float(mapped.mean()),
    )
