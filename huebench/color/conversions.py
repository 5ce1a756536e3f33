"""Vectorised colour-space conversions: sRGB <-> linear RGB <-> XYZ (D65, 2°) <-> CIELAB <-> LCh(ab).

Every function takes an array-like whose last axis has length 3 and any leading shape
(a single colour, N×3 lists, H×W×3 images) and computes in float64, whatever the input's
dtype: float32 (and float16) input is widened, and results are float64 (round trips below 1e-9).
There is no float32 path: measured, it could not be held within 1e-3 ΔE00 of float64 next to
CIEDE2000's discontinuity at opposite hues, and 8-bit images are decoded through a float64 table
anyway (docs/performance.md). Integer inputs of the sRGB functions are 8-bit sRGB (0–255).

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
    "srgb8_encoding_tables",
    "srgb8_lab_tables",
    "srgb8_table",
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


def _as_float(values: ArrayLike) -> NDArray[np.float64]:
    """Return a float64 array (no copy when it already is one); integer arrays are treated as 8-bit
    and scaled to [0, 1] by callers."""
    arr = np.asarray(values)
    if arr.shape[-1:] != (3,):
        raise ValueError(f"expected an array whose last axis has length 3, got shape {arr.shape}")
    return np.asarray(arr, dtype=np.float64)


def _as_srgb_float(values: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(values)
    if np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_:
        return _as_float(arr) / 255.0
    return _as_float(arr)


def _matmul3(values: NDArray[np.float64], matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    return values @ matrix.T


def srgb_to_linear(rgb: ArrayLike) -> NDArray[np.float64]:
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


def linear_to_srgb(linear: ArrayLike) -> NDArray[np.float64]:
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
    values as ``srgb_to_linear(x / 255)`` (the table is made by it) without the per-call arithmetic
    (pixels, …×3, from :data:`~huebench.color._kernels.KERNEL_FROM` read it in a numba kernel: the
    same values); other dtypes are decoded arithmetically."""
    x = np.asarray(rgb8)
    if x.dtype == np.uint8:
        if x.shape[-1:] == (3,) and _kernels.enabled(x.size // 3):
            return _kernels.lookup(x, srgb8_table())
        return srgb8_table()[x]
    return srgb_to_linear(x.astype(np.float64) / 255.0)


def linear_to_srgb8(linear: ArrayLike) -> NDArray[np.uint8]:
    """Encode linear RGB to 8-bit sRGB: clipped to [0, 1], encoded, rounded to the nearest level
    (NaN encodes to 0).

    Bit-identical to :func:`_linear_to_srgb8_reference` (clip, :func:`linear_to_srgb`, ×255, round
    half to even) for every float64 input, without evaluating the transfer function: the level is
    the number of the 255 decision thresholds at or below the value (:func:`_srgb8_thresholds`,
    derived from the reference itself), found with a 4096-bin table and one comparison; inputs of
    at least :data:`~huebench.color._kernels.KERNEL_FROM` pixels run in a numba kernel (the same
    levels).
    """
    x = _as_float(linear)
    thresholds, bins = _srgb8_encoder()
    if _kernels.enabled(x.size // 3):
        return _kernels.linear_to_srgb8(x, thresholds, bins, _SRGB8_BINS)
    xc = np.where(x > 0.0, np.minimum(x, 1.0), 0.0)  # also NaN -> 0, as the reference's cast gives
    level = bins[(xc * _SRGB8_BINS).astype(np.intp)]  # exact: the bin count is a power of two
    level += xc >= thresholds[level.astype(np.intp) + 1]
    return level


def _linear_to_srgb8_reference(linear: ArrayLike) -> NDArray[np.uint8]:
    """The defining formula of :func:`linear_to_srgb8` (slow: it evaluates the transfer function).

    NaN gives 0 (the float-to-uint8 cast of NaN, with a warning)."""
    return np.round(linear_to_srgb(np.clip(np.asarray(linear, dtype=np.float64), 0.0, 1.0)) * 255.0).astype(np.uint8)


#: bins of [0, 1] in linear_to_srgb8's table: a power of two (so x·bins is exact) small enough that
#: no bin holds two thresholds (the closest two, in the linear segment, are 1/(255·12.92) = 3.0e-4 apart)
_SRGB8_BINS = 4096


@functools.cache
def _srgb8_thresholds() -> NDArray[np.float64]:
    """The 255 decision thresholds of 8-bit sRGB encoding in linear light: ``t[k-1]`` is the
    smallest float64 ``x`` with ``_linear_to_srgb8_reference(x) >= k``, found by bisection on the
    float64 bit patterns of [0, 1] with the reference formula as oracle (so they are exact for this
    machine's ``np.power``, whatever its last-bit rounding)."""
    level = np.arange(1, 256)
    lo = np.zeros(255, dtype=np.int64)  # bit patterns: non-negative doubles order as their bits
    hi = np.full(255, np.float64(1.0).view(np.int64))
    while np.any(hi - lo > 1):  # invariant: reference(lo) < level <= reference(hi)
        mid = lo + (hi - lo) // 2
        up = _linear_to_srgb8_reference(mid.view(np.float64).reshape(-1, 3)).reshape(-1) >= level
        hi = np.where(up, mid, hi)
        lo = np.where(up, lo, mid)
    return hi.view(np.float64)


def srgb8_encoding_tables() -> tuple[NDArray[np.float64], NDArray[np.uint8], int]:
    """What :func:`linear_to_srgb8` encodes with (for kernels that encode inside a longer step): its
    decision thresholds (with -inf and +inf at both ends), the level at the start of each table bin,
    and the number of bins."""
    thresholds, bins = _srgb8_encoder()
    return thresholds, bins, _SRGB8_BINS


@functools.cache
def _srgb8_encoder() -> tuple[NDArray[np.float64], NDArray[np.uint8]]:
    """(thresholds with -inf and +inf at both ends, level at the start of each table bin)."""
    t = _srgb8_thresholds()
    edges = np.arange(_SRGB8_BINS + 1, dtype=np.float64) / _SRGB8_BINS
    bins = np.searchsorted(t, edges, side="right").astype(np.uint8)
    if np.any(np.diff(np.searchsorted(t, edges, side="left")) > 1):  # pragma: no cover - a proof, not a branch
        raise AssertionError("a table bin holds two sRGB decision thresholds: use more bins")
    return np.concatenate([[-np.inf], t, [np.inf]]), bins


def linear_rgb_to_xyz(linear: ArrayLike) -> NDArray[np.float64]:
    """Linear sRGB to CIE XYZ (D65, Y of white = 1)."""
    return _matmul3(_as_float(linear), RGB_TO_XYZ)


def xyz_to_linear_rgb(xyz: ArrayLike) -> NDArray[np.float64]:
    """CIE XYZ (D65) to linear sRGB."""
    return _matmul3(_as_float(xyz), XYZ_TO_RGB)


def _f(t: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.where(t > _EPSILON, np.cbrt(t), (_KAPPA * t + 16.0) / 116.0)


def _f_inv(f: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.where(f > _DELTA, f * f * f, (116.0 * f - 16.0) / _KAPPA)


def xyz_to_lab(xyz: ArrayLike) -> NDArray[np.float64]:
    """CIE XYZ (D65, Y of white = 1) to CIELAB."""
    x = _as_float(xyz)
    f = _f(x / D65_XYZ)
    fx, fy, fz = f[..., 0], f[..., 1], f[..., 2]
    return np.stack([116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)], axis=-1)


def lab_to_xyz(lab: ArrayLike) -> NDArray[np.float64]:
    """CIELAB to CIE XYZ (D65, Y of white = 1)."""
    lab_ = _as_float(lab)
    fy = (lab_[..., 0] + 16.0) / 116.0
    fx = fy + lab_[..., 1] / 500.0
    fz = fy - lab_[..., 2] / 200.0
    return _f_inv(np.stack([fx, fy, fz], axis=-1)) * D65_XYZ


def srgb_to_lab(rgb: ArrayLike) -> NDArray[np.float64]:
    """sRGB (float in [0, 1], or 8-bit integers) to CIELAB (D65, 2°).

    Inputs of at least :data:`~huebench.color._kernels.KERNEL_FROM` pixels take the compiled
    kernels of :mod:`huebench.color._kernels` (the same numbers to ~1e-13): ``uint8`` images through
    the linearisation table, others after :func:`srgb_to_linear`. A handful of ``uint8`` colours is
    linearised by the same table (its values are :func:`srgb_to_linear`'s, bit for bit), not by the
    transfer function per pixel.
    """
    arr = np.asarray(rgb)
    if arr.shape[-1:] == (3,) and _kernels.enabled(arr.size // 3):
        if arr.dtype == np.uint8:
            return _kernels.srgb8_to_lab(arr, srgb8_table(), _xyz_over_white())
        return _kernels.linear_to_lab(srgb_to_linear(arr), _xyz_over_white())
    linear = srgb8_table()[arr] if arr.dtype == np.uint8 and arr.shape[-1:] == (3,) else srgb_to_linear(arr)
    return xyz_to_lab(linear_rgb_to_xyz(linear))


@functools.cache
def srgb8_table() -> NDArray[np.float64]:
    """The linear value of each 8-bit sRGB level (256 entries, ``srgb_to_linear(level / 255)``):
    the table :func:`srgb8_to_linear` reads. Cached; do not write to it."""
    levels = np.repeat(np.arange(256, dtype=np.float64)[:, None] / 255.0, 3, axis=1)
    return srgb_to_linear(levels)[:, 0].copy()


@functools.cache
def _xyz_over_white() -> NDArray[np.float64]:
    return RGB_TO_XYZ / D65_XYZ[:, None]


def srgb8_lab_tables() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """What :func:`srgb_to_lab`'s kernel converts 8-bit pixels with (for kernels that convert
    inside a longer step): the decoding table (:func:`srgb8_table`) and RGB→XYZ over the white."""
    return srgb8_table(), _xyz_over_white()


def lab_to_srgb(lab: ArrayLike, *, clip: bool = False) -> NDArray[np.float64]:
    """CIELAB to sRGB floats; ``clip=True`` clips to the displayable [0, 1] range."""
    rgb = linear_to_srgb(xyz_to_linear_rgb(lab_to_xyz(lab)))
    return np.clip(rgb, 0.0, 1.0) if clip else rgb


def lab_to_lch(lab: ArrayLike) -> NDArray[np.float64]:
    """CIELAB to LCh(ab): hue in degrees in [0, 360)."""
    lab_ = _as_float(lab)
    a, b = lab_[..., 1], lab_[..., 2]
    h = np.degrees(np.arctan2(b, a)) % 360.0
    return np.stack([lab_[..., 0], np.hypot(a, b), h], axis=-1)


def lch_to_lab(lch: ArrayLike) -> NDArray[np.float64]:
    """LCh(ab) with hue in degrees to CIELAB."""
    lch_ = _as_float(lch)
    h = np.radians(lch_[..., 2])
    c = lch_[..., 1]
    return np.stack([lch_[..., 0], c * np.cos(h), c * np.sin(h)], axis=-1)
