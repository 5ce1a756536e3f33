"""Colour differences on CIELAB arrays (any leading shape, broadcasting like NumPy), in float64.

- :func:`delta_e` with ``method="cie76"`` (Euclidean ΔE*ab) or ``"ciede2000"`` (Sharma, Wu &
  Dalal 2005, with the parametric factors kL, kC, kH);
- :func:`srgb_delta_e`: ΔE between sRGB pixels and CIELAB colours, equal to
  ``delta_e(srgb_to_lab(rgb), lab)``; 8-bit images against one colour skip the Lab image;
- :func:`delta_chroma`: Euclidean distance in the a*b* plane (GenColorBench's "Delta Chroma");
- :func:`delta_hue`: absolute hue-angle difference in degrees, gated by chroma.
"""

from __future__ import annotations

import functools
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from huebench.color import _kernels
from huebench.color.conversions import D65_XYZ, RGB_TO_XYZ, srgb8_to_linear, srgb_to_lab

__all__ = [
    "DELTA_E_METHODS",
    "HUE_CHROMA_THRESHOLD",
    "delta_chroma",
    "delta_e",
    "delta_hue",
    "srgb_delta_e",
    "three_differences",
    "within_and_nearer",
]

DELTA_E_METHODS = ("ciede2000", "cie76")

#: Chroma (C*ab) below which a hue angle is treated as undefined by :func:`delta_hue`.
#: 5 is about one just-noticeable difference: below it, a few units of pixel noise or a
#: slight white-balance cast swing the hue angle arbitrarily (ISCC-NBS "gray" has C* 3.4).
HUE_CHROMA_THRESHOLD = 5.0

_25_POW_7 = 25.0**7
#: hue differences within this many radians of 180° are exactly 180°: two colours of opposite hue
#: are a tie in Sharma et al.'s rules (|Δh'| ≤ 180° keeps the plain mean hue), and a last-bit
#: rounding difference between the NumPy and the fused kernel must not pick a different branch
#: (it changed ΔE00 from 32.94 to 39.68 for one pair); the kernel uses the same constant
HUE_TIE = 1e-9


def _lab_pair(lab1: ArrayLike, lab2: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    a = np.asarray(lab1)
    b = np.asarray(lab2)
    for name, arr in (("lab1", a), ("lab2", b)):
        if arr.shape[-1:] != (3,):
            raise ValueError(f"{name}: expected CIELAB values with a last axis of length 3, got shape {arr.shape}")
    # float64 whatever the input (float32 is widened: there is no float32 path, see conversions)
    return np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)


def delta_e(
    lab1: ArrayLike,
    lab2: ArrayLike,
    method: Literal["ciede2000", "cie76"] = "ciede2000",
    *,
    kL: float = 1.0,
    kC: float = 1.0,
    kH: float = 1.0,
    compiled: bool = False,
) -> NDArray[np.float64]:
    """Colour difference between two CIELAB arrays (broadcast against each other).

    ``kL``, ``kC`` and ``kH`` are CIEDE2000's parametric weights (1 for the reference
    conditions; textiles use ``kL=2``); they are ignored by ``cie76``. ``compiled``: CIEDE2000 takes
    the compiled kernel (where numba is) however few the pairs, for a caller that has loaded the
    kernels anyway — on a handful of pairs the NumPy code's dozens of array operations cost several
    times the kernel (docs/performance.md); by default fewer than :data:`~huebench.color._kernels.KERNEL_FROM` pairs stay with NumPy
    (the two agree to ~1e-12).
    """
    if method == "cie76":
        a, b = _lab_pair(lab1, lab2)
        return np.sqrt(np.sum((a - b) ** 2, axis=-1))
    if method == "ciede2000":
        return _ciede2000(lab1, lab2, kL, kC, kH, compiled)
    raise ValueError(f"unknown delta_e method {method!r}; choose one of {', '.join(DELTA_E_METHODS)}")


def _kernel_weights(kL: float, kC: float, kH: float) -> bool:
    # the kernel folds the three weights into one division, which only equals the reference for
    # positive finite weights (the reference's kL = 0 gives inf where the fold would give nan)
    return all(0.0 < k < np.inf for k in (kL, kC, kH))


def _ciede2000(
    lab1: ArrayLike, lab2: ArrayLike, kL: float, kC: float, kH: float, compiled: bool = False
) -> NDArray[np.float64]:
    a, b = _lab_pair(lab1, lab2)
    pairs = int(np.prod(np.broadcast_shapes(a.shape, b.shape)[:-1]))
    kernel = _kernels.AVAILABLE and pairs > 0 if compiled else _kernels.enabled(pairs)
    if kernel and _kernel_weights(kL, kC, kH):
        return _kernels.ciede2000(a, b, kL, kC, kH)
    return np.asarray(ciede2000_numpy(a, b, kL, kC, kH), dtype=np.float64)  # float64 in, float64 out


def three_differences(
    labs: ArrayLike, lab: ArrayLike, *, chroma_threshold: float = HUE_CHROMA_THRESHOLD
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """``delta_e(labs, lab, compiled=True)``, ``delta_chroma(labs, lab)`` and
    ``delta_hue(labs, lab, neutral=nan)`` of N×3 CIELAB colours against one (shape (3,)): the three
    differences a colour is judged by, in one compiled call where numba is (the hue from the same
    arctangent, to the last place where NumPy's is the C library's)."""
    many, ref = _lab_pair(labs, lab)
    if _kernels.AVAILABLE and many.ndim == 2 and ref.shape == (3,):
        return _kernels.three_differences(many, ref, chroma_threshold)
    return (
        delta_e(many, ref, compiled=True),
        delta_chroma(many, ref),
        delta_hue(many, ref, chroma_threshold=chroma_threshold, neutral=np.nan),
    )


def within_and_nearer(lab: ArrayLike, a: ArrayLike, b: ArrayLike, threshold: float) -> tuple[float, NDArray[np.bool_]]:
    """ΔE00 between the colours ``a`` and ``b`` (CIELAB, shape (3,)), and which of the N×3 colours
    ``lab`` lie within ``threshold`` ΔE00 of ``a`` and nearer to it than to ``b``: the values of
    ``delta_e(..., compiled=True)`` (the kernel wherever numba is, in one call)."""
    pixels, ca = _lab_pair(lab, a)
    cb = np.asarray(b, dtype=np.float64)
    if _kernels.AVAILABLE and pixels.ndim == 2 and ca.shape == cb.shape == (3,):
        return _kernels.within_and_nearer(pixels, ca, cb, threshold)
    to_a, to_b = delta_e(pixels, ca, compiled=True), delta_e(pixels, cb, compiled=True)
    return float(delta_e(ca, cb, compiled=True)), (to_a < threshold) & (to_a < to_b)


def srgb_delta_e(
    rgb: ArrayLike,
    lab: ArrayLike,
    method: Literal["ciede2000", "cie76"] = "ciede2000",
    *,
    kL: float = 1.0,
    kC: float = 1.0,
    kH: float = 1.0,
) -> NDArray[np.float64]:
    """``delta_e(srgb_to_lab(rgb), lab, ...)``, the same numbers (to ~1e-13).

    For 8-bit pixels (at least :data:`~huebench.color._kernels.KERNEL_FROM`) against one colour
    (``lab`` of shape (3,)) with CIEDE2000, one compiled kernel goes from the pixels to ΔE00 without
    writing the Lab image out (what scoring a pixel set against a target colour needs); otherwise
    it is the two calls.
    """
    arr = np.asarray(rgb)
    ref = np.asarray(lab)
    if (
        method == "ciede2000"
        and arr.dtype == np.uint8
        and arr.shape[-1:] == (3,)
        and ref.shape == (3,)
        and _kernels.enabled(arr.size // 3)
        and _kernel_weights(kL, kC, kH)
    ):
        lut, m = _srgb8_tables()
        return _kernels.srgb8_ciede2000(arr, lut, m, np.asarray(ref, dtype=np.float64), kL, kC, kH)
    return delta_e(srgb_to_lab(arr), ref, method, kL=kL, kC=kC, kH=kH)


@functools.cache
def _srgb8_tables() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    # the tables srgb_to_lab's kernel uses: the decoding of 0..255 and RGB→XYZ over the white
    return srgb8_to_linear(np.arange(256, dtype=np.uint8)), RGB_TO_XYZ / D65_XYZ[:, None]


def ciede2000_numpy(
    a: NDArray[np.floating], b: NDArray[np.floating], kL: float, kC: float, kH: float
) -> NDArray[np.floating]:
    """The reference NumPy CIEDE2000 (any float dtype); :func:`delta_e` runs inputs of at least
    :data:`~huebench.color._kernels.KERNEL_FROM` pairs through the compiled kernels instead, which
    tests hold to this function."""
    L1, a1, b1 = a[..., 0], a[..., 1], a[..., 2]
    L2, a2, b2 = b[..., 0], b[..., 1], b[..., 2]

    # Step 1: a' rescaled by G, C', h' (radians, in [0, 2π)).
    c_bar = 0.5 * (np.hypot(a1, b1) + np.hypot(a2, b2))
    c_bar7 = c_bar**7
    gp = 1.5 - 0.5 * np.sqrt(c_bar7 / (c_bar7 + _25_POW_7))  # 1 + G, as the kernel computes it
    a1p = a1 * gp
    a2p = a2 * gp
    c1p = np.hypot(a1p, b1)
    c2p = np.hypot(a2p, b2)
    two_pi = 2.0 * np.pi
    h1p = np.arctan2(b1, a1p)  # atan2(0, 0) = 0, as the standard requires
    h2p = np.arctan2(b2, a2p)
    h1p = np.where(h1p < 0.0, h1p + two_pi, h1p)  # [0, 2π), as the kernel computes it
    h2p = np.where(h2p < 0.0, h2p + two_pi, h2p)

    # Step 2: ΔL', ΔC', ΔH'. A zero chroma on either side makes the hue difference 0.
    dLp = L2 - L1
    dCp = c2p - c1p
    chroma_product = c1p * c2p
    dhp = h2p - h1p
    dhp = np.where(dhp > np.pi + HUE_TIE, dhp - two_pi, np.where(dhp < -np.pi - HUE_TIE, dhp + two_pi, dhp))
    dhp = np.where(chroma_product == 0, 0.0, dhp)
    dHp = 2.0 * np.sqrt(chroma_product) * np.sin(dhp / 2.0)

    # Step 3: means and weighting functions.
    Lp_bar = 0.5 * (L1 + L2)
    Cp_bar = 0.5 * (c1p + c2p)
    h_sum = h1p + h2p
    h_bar = np.where(
        np.abs(h1p - h2p) > np.pi + HUE_TIE,
        np.where(h_sum < two_pi, (h_sum + two_pi) / 2.0, (h_sum - two_pi) / 2.0),
        h_sum / 2.0,
    )
    h_bar = np.where(chroma_product == 0, h_sum, h_bar)
    t = (
        1.0
        - 0.17 * np.cos(h_bar - np.radians(30.0))
        + 0.24 * np.cos(2.0 * h_bar)
        + 0.32 * np.cos(3.0 * h_bar + np.radians(6.0))
        - 0.20 * np.cos(4.0 * h_bar - np.radians(63.0))
    )
    d_theta = np.radians(30.0) * np.exp(-(((np.degrees(h_bar) - 275.0) / 25.0) ** 2))
    cp_bar7 = Cp_bar**7
    r_c = 2.0 * np.sqrt(cp_bar7 / (cp_bar7 + _25_POW_7))
    l50 = (Lp_bar - 50.0) ** 2
    s_l = 1.0 + 0.015 * l50 / np.sqrt(20.0 + l50)
    s_c = 1.0 + 0.045 * Cp_bar
    s_h = 1.0 + 0.015 * Cp_bar * t
    r_t = -np.sin(2.0 * d_theta) * r_c

    tl = dLp / (kL * s_l)
    tc = dCp / (kC * s_c)
    th = dHp / (kH * s_h)
    return np.sqrt(tl * tl + tc * tc + th * th + r_t * tc * th)


def delta_chroma(lab1: ArrayLike, lab2: ArrayLike) -> NDArray[np.float64]:
    """Euclidean distance between the two colours' (a*, b*) chromaticities (lightness ignored)."""
    a, b = _lab_pair(lab1, lab2)
    return np.hypot(a[..., 1] - b[..., 1], a[..., 2] - b[..., 2])


def delta_hue(
    lab1: ArrayLike,
    lab2: ArrayLike,
    *,
    chroma_threshold: float = HUE_CHROMA_THRESHOLD,
    neutral: float = 0.0,
) -> NDArray[np.float64]:
    """Absolute hue-angle difference in degrees (0–180), with chroma gating.

    A hue angle carries no information when the colour is (near) achromatic, so wherever
    either chroma is below ``chroma_threshold`` the result is ``neutral``. The default
    neutral value 0.0 means "the hue test does not object": for an achromatic target or
    prediction, lightness and chroma (:func:`delta_e`, :func:`delta_chroma`) decide. Pass
    ``neutral=float("nan")`` to see where the gate applied.
    """
    a, b = _lab_pair(lab1, lab2)
    h1 = np.degrees(np.arctan2(a[..., 2], a[..., 1]))
    h2 = np.degrees(np.arctan2(b[..., 2], b[..., 1]))
    d = np.abs(h1 - h2) % 360.0
    d = np.minimum(d, 360.0 - d)
    gated = (np.hypot(a[..., 1], a[..., 2]) < chroma_threshold) | (np.hypot(b[..., 1], b[..., 2]) < chroma_threshold)
    return np.where(gated, np.asarray(neutral, dtype=d.dtype), d)
