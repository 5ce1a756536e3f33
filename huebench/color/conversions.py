"""Vectorised colour-space conversions: sRGB <-> linear RGB <-> XYZ (D65, 2°) <-> CIELAB <-> LCh(ab).

Every function takes an array-like whose last axis has length 3 and any leading shape
(a single colour, N×3 lists, H×W×3 images). Floating inputs keep their dtype
(float32 stays float32 for speed on images; float64 gives round trips below 1e-9);
integer inputs (8-bit sRGB) are computed in float64.

The constants follow IEC 61966-2-1 and CIE 15.4: the RGB→XYZ matrix is the standard's
published 4-decimal matrix (the one colour-science uses, so sRGB→Lab agrees with it to
~1e-12), the reference white is D65 at xy (0.3127, 0.3290). XYZ→RGB is the *exact* inverse
of that matrix, not the standard's separately rounded inverse (which colour-science uses):
the rounded pair loses ~1e-4 per round trip, the exact one ~1e-15.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike, NDArray

from huebench.color import _kernels

__all__ = [
    "D65_XY",
    "D65_XYZ",
    "RGB_TO_XYZ",
    "XYZ_TO_RGB",
    "lab_to_lch",
    "lab_to_srgb",
    "lab_to_xyz",
    "lch_to_lab",
    "linear_rgb_to_xyz",
    "linear_to_srgb",
    "linear_to_srgb8",
    "srgb8_to_linear",
    "srgb_to_lab",
    "srgb_to_linear",
    "xyz_to_lab",
    "xyz_to_linear_rgb",
]

D65_XY = (0.3127, 0.3290)


def _xy_to_xyz(xy: NDArray[np.float64]) -> NDArray[np.float64]:
    x, y = xy[..., 0], xy[..., 1]
    return np.stack([x / y, np.ones_like(x), (1.0 - x - y) / y], axis=-1)


D65_XYZ: NDArray[np.float64] = _xy_to_xyz(np.array(D65_XY))
RGB_TO_XYZ: NDArray[np.float64] = np.array(
    [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
)
XYZ_TO_RGB: NDArray[np.float64] = np.asarray(np.linalg.inv(RGB_TO_XYZ), dtype=np.float64)

# sRGB transfer function (IEC 61966-2-1).
_SRGB_A = 0.055
_SRGB_GAMMA = 2.4
_SRGB_SLOPE = 12.92
_SRGB_LINEAR_CUT = 0.0031308
_SRGB_ENCODED_CUT = _SRGB_LINEAR_CUT * _SRGB_SLOPE  # 0.04045

# CIE 1976 L*a*b* constants, exact rational forms.
_EPSILON = 216.0 / 24389.0
_KAPPA = 24389.0 / 27.0
_DELTA = 6.0 / 29.0


def _as_float(values: ArrayLike) -> NDArray[np.floating]:
    """Return a float array; integer arrays are treated as 8-bit and scaled to [0, 1] by callers."""
    arr = np.asarray(values)
    if arr.shape[-1:] != (3,):
        raise ValueError(f"expected an array whose last axis has length 3, got shape {arr.shape}")
    if np.issubdtype(arr.dtype, np.floating):
        return arr
    return arr.astype(np.float64)


def _as_srgb_float(values: ArrayLike) -> NDArray[np.floating]:
    arr = np.asarray(values)
    if np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_:
        return _as_float(arr) / 255.0
    return _as_float(arr)


def _matmul3(values: NDArray[np.floating], matrix: NDArray[np.float64]) -> NDArray[np.floating]:
    # values @ matrix.T keeps the input's float precision when the matrix is cast to it.
    return values @ matrix.T.astype(values.dtype, copy=False)


def srgb_to_linear(rgb: ArrayLike) -> NDArray[np.floating]:
    """Decode sRGB (float in [0, 1], or integer 0–255) to linear RGB."""
    c = _as_srgb_float(rgb)
    out = np.empty_like(c)
    low = np.abs(c) <= _SRGB_ENCODED_CUT
    np.divide(c, _SRGB_SLOPE, out=out, where=low)
    high = ~low
    # Mirror negative values so out-of-gamut inputs stay finite and invertible.
    hc = np.abs(c, where=high, out=np.zeros_like(c))
    np.power((hc + _SRGB_A) / (1 + _SRGB_A), _SRGB_GAMMA, out=hc, where=high)
    np.copysign(hc, c, out=hc)
    np.copyto(out, hc, where=high)
    return out


def linear_to_srgb(linear: ArrayLike) -> NDArray[np.floating]:
    """Encode linear RGB to sRGB floats (not clipped: out-of-gamut values stay outside [0, 1])."""
    c = _as_float(linear)
    out = np.empty_like(c)
    low = np.abs(c) <= _SRGB_LINEAR_CUT
    np.multiply(c, _SRGB_SLOPE, out=out, where=low)
    high = ~low
    hc = np.abs(c, where=high, out=np.zeros_like(c))
    np.power(hc, 1.0 / _SRGB_GAMMA, out=hc, where=high)
    hc = (1 + _SRGB_A) * hc - _SRGB_A
    np.copysign(hc, c, out=hc)
    np.copyto(out, hc, where=high)
    return out


def srgb8_to_linear(rgb8: ArrayLike) -> NDArray[np.float64]:
    """Decode 8-bit sRGB (0–255) to linear RGB: a table look-up for ``uint8`` input, the same
    values as ``srgb_to_linear(x / 255)`` (the table is made by it) without the per-call arithmetic;
    other dtypes are decoded arithmetically."""
    x = np.asarray(rgb8)
    if x.dtype == np.uint8:
        return _srgb8_lut()[x]
    return np.asarray(srgb_to_linear(x.astype(np.float64) / 255.0), dtype=np.float64)


def linear_to_srgb8(linear: ArrayLike) -> NDArray[np.uint8]:
    """Encode linear RGB to 8-bit sRGB: clipped to [0, 1], encoded, rounded to the nearest level."""
    return np.round(linear_to_srgb(np.clip(np.asarray(linear, dtype=np.float64), 0.0, 1.0)) * 255.0).astype(np.uint8)


def linear_rgb_to_xyz(linear: ArrayLike) -> NDArray[np.floating]:
    """Linear sRGB to CIE XYZ (D65, Y of white = 1)."""
    return _matmul3(_as_float(linear), RGB_TO_XYZ)


def xyz_to_linear_rgb(xyz: ArrayLike) -> NDArray[np.floating]:
    """CIE XYZ (D65) to linear sRGB."""
    return _matmul3(_as_float(xyz), XYZ_TO_RGB)


def _f(t: NDArray[np.floating]) -> NDArray[np.floating]:
    return np.where(t > _EPSILON, np.cbrt(t), (_KAPPA * t + 16.0) / 116.0)


def _f_inv(f: NDArray[np.floating]) -> NDArray[np.floating]:
    return np.where(f > _DELTA, f * f * f, (116.0 * f - 16.0) / _KAPPA)


def xyz_to_lab(xyz: ArrayLike) -> NDArray[np.floating]:
    """CIE XYZ (D65, Y of white = 1) to CIELAB."""
    x = _as_float(xyz)
    t = x / D65_XYZ.astype(x.dtype, copy=False)
    f = _f(t)
    fx, fy, fz = f[..., 0], f[..., 1], f[..., 2]
    return np.stack([116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)], axis=-1).astype(x.dtype, copy=False)


def lab_to_xyz(lab: ArrayLike) -> NDArray[np.floating]:
    """CIELAB to CIE XYZ (D65, Y of white = 1)."""
    lab_ = _as_float(lab)
    fy = (lab_[..., 0] + 16.0) / 116.0
    fx = fy + lab_[..., 1] / 500.0
    fz = fy - lab_[..., 2] / 200.0
    t = _f_inv(np.stack([fx, fy, fz], axis=-1))
    return (t * D65_XYZ.astype(lab_.dtype, copy=False)).astype(lab_.dtype, copy=False)


def srgb_to_lab(rgb: ArrayLike) -> NDArray[np.floating]:
    """sRGB (float in [0, 1], or 8-bit integers) to CIELAB (D65, 2°).

    Large uint8 and float64 inputs take the fused kernel of :mod:`huebench.color._kernels`
    (same numbers to ~1e-13, ~5× faster on a 4-megapixel image).
    """
    arr = np.asarray(rgb)
    if arr.shape[-1:] == (3,) and _kernels.enabled(arr.size // 3):
        if arr.dtype == np.uint8:
            return _kernels.srgb8_to_lab(arr, _srgb8_lut(), _xyz_over_white(), _EPSILON, _KAPPA)
        if arr.dtype == np.float64:
            linear = np.asarray(srgb_to_linear(arr), dtype=np.float64)  # float64 in, float64 out
            return _kernels.linear_to_lab(linear, _xyz_over_white(), _EPSILON, _KAPPA)
    return xyz_to_lab(linear_rgb_to_xyz(srgb_to_linear(arr)))


@functools.cache
def _srgb8_lut() -> NDArray[np.float64]:
    levels = np.repeat(np.arange(256, dtype=np.float64)[:, None] / 255.0, 3, axis=1)
    return np.asarray(srgb_to_linear(levels)[:, 0], dtype=np.float64).copy()


@functools.cache
def _xyz_over_white() -> NDArray[np.float64]:
    return RGB_TO_XYZ / D65_XYZ[:, None]


def lab_to_srgb(lab: ArrayLike, *, clip: bool = False) -> NDArray[np.floating]:
    """CIELAB to sRGB floats; ``clip=True`` clips to the displayable [0, 1] range."""
    rgb = linear_to_srgb(xyz_to_linear_rgb(lab_to_xyz(lab)))
    return np.clip(rgb, 0.0, 1.0) if clip else rgb


def lab_to_lch(lab: ArrayLike) -> NDArray[np.floating]:
    """CIELAB to LCh(ab): hue in degrees in [0, 360)."""
    lab_ = _as_float(lab)
    a, b = lab_[..., 1], lab_[..., 2]
    h = np.degrees(np.arctan2(b, a)) % 360.0
    return np.stack([lab_[..., 0], np.hypot(a, b), h], axis=-1).astype(lab_.dtype, copy=False)


def lch_to_lab(lch: ArrayLike) -> NDArray[np.floating]:
    """LCh(ab) with hue in degrees to CIELAB."""
    lch_ = _as_float(lch)
    h = np.radians(lch_[..., 2])
    c = lch_[..., 1]
    return np.stack([lch_[..., 0], c * np.cos(h), c * np.sin(h)], axis=-1).astype(lch_.dtype, copy=False)
