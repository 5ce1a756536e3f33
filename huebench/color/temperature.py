"""Correlated colour temperature: where a light's chromaticity lies against the Planckian locus.

The locus is Krystek's rational approximation of the blackbody chromaticities in the CIE 1960 UCS
(*An algorithm to calculate correlated colour temperature*, Color Res. Appl. 10, 1985: within
about 1 × 10⁻⁴ in u and v of Planck's law from 1,000 to 15,000 K; above that the function runs on
towards the locus' end at infinite temperature, u ≈ 0.182, v ≈ 0.260, which is near the true
0.180, 0.264). :func:`cct_duv` finds a chromaticity's nearest point on it: the correlated colour
temperature (CCT) and the signed distance Δuv (positive above the locus, towards green; negative
below, towards magenta). The CIE holds a CCT meaningful only within Δuv 0.05 of the locus
(CIE 015, *Colorimetry*, on correlated colour temperature): a chromaticity farther away is not
the colour of any light a CCT describes.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike, NDArray

from huebench.color.conversions import linear_rgb_to_xyz
from huebench.errors import HuebenchError

__all__ = ["CCT_RANGE", "MAX_DUV", "cct_duv", "linear_rgb_cct_duv", "planckian_uv", "xyz_to_uv"]

#: the temperatures :func:`cct_duv` searches (kelvin): beyond them the nearest point is the end
CCT_RANGE = (1000.0, 100_000.0)
#: the CIE's limit on Δuv for a correlated colour temperature to mean anything (CIE 015, Colorimetry)
MAX_DUV = 0.05
#: the search grid's step in reciprocal megakelvin (mired): equal steps in mired are near-equal
#: steps along the locus, and 0.25 mired keeps the nearest grid point within about 5 × 10⁻⁵ of the
#: nearest point on the curve
_MIRED_STEP = 0.25


def planckian_uv(cct: ArrayLike) -> NDArray[np.float64]:
    """CIE 1960 (u, v) of a blackbody at ``cct`` kelvin (Krystek 1985), shape ``cct.shape + (2,)``."""
    t = np.asarray(cct, dtype=np.float64)
    u = (0.860117757 + 1.54118254e-4 * t + 1.28641212e-7 * t * t) / (1.0 + 8.42420235e-4 * t + 7.08145163e-7 * t * t)
    v = (0.317398726 + 4.22806245e-5 * t + 4.20481691e-8 * t * t) / (1.0 - 2.89741816e-5 * t + 1.61456053e-7 * t * t)
    return np.stack([u, v], axis=-1)


def xyz_to_uv(xyz: ArrayLike) -> NDArray[np.float64]:
    """CIE 1960 UCS (u, v) of CIE XYZ: u = 4X / (X + 15Y + 3Z), v = 6Y / (X + 15Y + 3Z)."""
    x = np.asarray(xyz, dtype=np.float64)
    d = x[..., 0] + 15.0 * x[..., 1] + 3.0 * x[..., 2]
    if np.any(~(d > 0)):
        raise HuebenchError("a chromaticity needs X + 15Y + 3Z > 0: black, or a negative tristimulus value")
    return np.stack([4.0 * x[..., 0] / d, 6.0 * x[..., 1] / d], axis=-1)


@functools.cache
def _locus() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    mired = np.arange(1e6 / CCT_RANGE[1], 1e6 / CCT_RANGE[0] + _MIRED_STEP, _MIRED_STEP)
    cct = 1e6 / mired
    return cct, planckian_uv(cct)


def cct_duv(xyz: ArrayLike) -> tuple[float, float]:
    """The correlated colour temperature (kelvin) and signed Δuv of one CIE XYZ colour: the nearest
    point of the Planckian locus between :data:`CCT_RANGE` in the CIE 1960 UCS, and the distance to
    it, positive above the locus (greener than a blackbody), negative below. At the range's ends the
    temperature is the end's and Δuv the distance to it."""
    uv = xyz_to_uv(np.asarray(xyz, dtype=np.float64).reshape(3))
    cct, locus = _locus()
    d = locus - uv
    i = int(np.argmin(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]))
    distance = float(np.hypot(*d[i]))
    j = min(max(i, 1), len(cct) - 2)  # the locus' direction there, towards higher temperature
    tangent = locus[j - 1] - locus[j + 1]
    # the locus runs towards lower u as the temperature rises: a point above it (greener) lies to
    # the right of that direction, where the cross product is negative
    side = tangent[0] * (uv[1] - locus[i, 1]) - tangent[1] * (uv[0] - locus[i, 0])
    return float(cct[i]), distance if side <= 0 else -distance


def linear_rgb_cct_duv(linear: ArrayLike) -> tuple[float, float]:
    """:func:`cct_duv` of a linear-sRGB colour (a light's colour as the scorer reads it)."""
    return cct_duv(linear_rgb_to_xyz(np.asarray(linear, dtype=np.float64).reshape(3)))
