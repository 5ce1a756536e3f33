"""Fused, multi-threaded numba kernels for the two hot loops of image scoring.

``perf/bench_color.py`` measured the NumPy implementations in ``conversions`` and
``difference`` at ~1.3× colour-science and ~0.95× scikit-image on a 4-megapixel image: every
NumPy step allocates and streams a full-size temporary, and CIEDE2000 has ~20 of them. One
fused per-pixel loop over both cores runs the whole pipeline ~4× faster than colour-science
(figures in docs/performance.md). The NumPy code stays the reference: tests check the kernels
against it to 1e-12, and it serves small inputs, float32 inputs, and machines without numba.

The kernels compile on first use (cached on disk by numba), so callers only route arrays of at
least :data:`MIN_ELEMENTS` pixels here.
"""

from __future__ import annotations

import math
import os

import numpy as np
from numpy.typing import NDArray

MIN_ELEMENTS = 65_536

try:  # numba is a dependency, but the colour core must still work where it cannot be installed
    if os.environ.get("HUEBENCH_NO_NUMBA"):
        raise ImportError("disabled by HUEBENCH_NO_NUMBA")
    from numba import njit, prange

    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised via HUEBENCH_NO_NUMBA in tests
    AVAILABLE = False


def enabled(n_elements: int) -> bool:
    return AVAILABLE and n_elements >= MIN_ELEMENTS


if AVAILABLE:
    _P7 = 25.0**7
    _TWO_PI = 2.0 * math.pi
    _R30 = math.radians(30.0)
    _R6 = math.radians(6.0)
    _R63 = math.radians(63.0)
    _DEG = 180.0 / math.pi
    _HUE_TIE = 1e-9  # difference.HUE_TIE: a tie at 180° takes the same branch on both paths

    @njit(parallel=True, cache=True)
    def _ciede2000(lab1, lab2, out, kL, kC, kH):  # pragma: no cover - compiled
        # lab1, lab2: (n, 3) float64 (lab2 may have stride 0 when broadcast); same steps as
        # difference._ciede2000, one pixel at a time.
        for i in prange(out.shape[0]):
            L1 = lab1[i, 0]
            a1 = lab1[i, 1]
            b1 = lab1[i, 2]
            L2 = lab2[i, 0]
            a2 = lab2[i, 1]
            b2 = lab2[i, 2]
            c_bar = 0.5 * (math.sqrt(a1 * a1 + b1 * b1) + math.sqrt(a2 * a2 + b2 * b2))
            c_bar7 = c_bar**7
            gp = 1.5 - 0.5 * math.sqrt(c_bar7 / (c_bar7 + _P7))
            a1p = a1 * gp
            a2p = a2 * gp
            c1p = math.sqrt(a1p * a1p + b1 * b1)
            c2p = math.sqrt(a2p * a2p + b2 * b2)
            h1 = math.atan2(b1, a1p)
            h2 = math.atan2(b2, a2p)
            if h1 < 0.0:
                h1 += _TWO_PI
            if h2 < 0.0:
                h2 += _TWO_PI
            cp = c1p * c2p
            if cp == 0.0:
                dh = 0.0
                hb = h1 + h2
            else:
                dh = h2 - h1
                if dh > math.pi + _HUE_TIE:
                    dh -= _TWO_PI
                elif dh < -math.pi - _HUE_TIE:
                    dh += _TWO_PI
                s = h1 + h2
                if abs(h1 - h2) > math.pi + _HUE_TIE:
                    hb = (s + _TWO_PI) * 0.5 if s < _TWO_PI else (s - _TWO_PI) * 0.5
                else:
                    hb = s * 0.5
            dHp = 2.0 * math.sqrt(cp) * math.sin(dh * 0.5)
            l50 = 0.5 * (L1 + L2) - 50.0
            l50 *= l50
            cpb = 0.5 * (c1p + c2p)
            cpb7 = cpb**7
            t = (
                1.0
                - 0.17 * math.cos(hb - _R30)
                + 0.24 * math.cos(2.0 * hb)
                + 0.32 * math.cos(3.0 * hb + _R6)
                - 0.20 * math.cos(4.0 * hb - _R63)
            )
            d_theta = _R30 * math.exp(-(((hb * _DEG - 275.0) / 25.0) ** 2))
            r_t = -math.sin(2.0 * d_theta) * 2.0 * math.sqrt(cpb7 / (cpb7 + _P7))
            tl = (L2 - L1) / (kL * (1.0 + 0.015 * l50 / math.sqrt(20.0 + l50)))
            tc = (c2p - c1p) / (kC * (1.0 + 0.045 * cpb))
            th = dHp / (kH * (1.0 + 0.015 * cpb * t))
            out[i] = math.sqrt(tl * tl + tc * tc + th * th + r_t * tc * th)

    @njit(inline="always", cache=True)
    def _store_lab(r, g, b, m, eps, kappa, out, i):  # pragma: no cover - compiled
        # linear RGB -> XYZ / white (m has the white point folded in) -> f(t) -> L*a*b*
        fx = m[0, 0] * r + m[0, 1] * g + m[0, 2] * b
        fy = m[1, 0] * r + m[1, 1] * g + m[1, 2] * b
        fz = m[2, 0] * r + m[2, 1] * g + m[2, 2] * b
        fx = np.cbrt(fx) if fx > eps else (kappa * fx + 16.0) / 116.0
        fy = np.cbrt(fy) if fy > eps else (kappa * fy + 16.0) / 116.0
        fz = np.cbrt(fz) if fz > eps else (kappa * fz + 16.0) / 116.0
        out[i, 0] = 116.0 * fy - 16.0
        out[i, 1] = 500.0 * (fx - fy)
        out[i, 2] = 200.0 * (fy - fz)

    @njit(parallel=True, cache=True)
    def _linear_to_lab(lin, m, eps, kappa, out):  # pragma: no cover - compiled
        for i in prange(lin.shape[0]):
            _store_lab(lin[i, 0], lin[i, 1], lin[i, 2], m, eps, kappa, out, i)

    @njit(parallel=True, cache=True)
    def _srgb8_to_lab(rgb8, lut, m, eps, kappa, out):  # pragma: no cover - compiled
        # rgb8: (n, 3) uint8; lut: the sRGB decoding of 0..255.
        for i in prange(rgb8.shape[0]):
            _store_lab(lut[rgb8[i, 0]], lut[rgb8[i, 1]], lut[rgb8[i, 2]], m, eps, kappa, out, i)


def ciede2000(
    lab1: NDArray[np.float64], lab2: NDArray[np.float64], kL: float, kC: float, kH: float
) -> NDArray[np.float64]:
    """CIEDE2000 of two float64 Lab arrays of one broadcast shape (…, 3)."""
    shape = np.broadcast_shapes(lab1.shape, lab2.shape)
    a = np.broadcast_to(lab1, shape).reshape(-1, 3) if lab1.shape != shape else lab1.reshape(-1, 3)
    b = np.broadcast_to(lab2, shape).reshape(-1, 3) if lab2.shape != shape else lab2.reshape(-1, 3)
    out = np.empty(a.shape[0], dtype=np.float64)
    _ciede2000(a, b, out, float(kL), float(kC), float(kH))
    return out.reshape(shape[:-1])


def linear_to_lab(lin: NDArray[np.float64], m: NDArray[np.float64], eps: float, kappa: float) -> NDArray[np.float64]:
    flat = lin.reshape(-1, 3)
    out = np.empty_like(flat, dtype=np.float64)
    _linear_to_lab(flat, m, eps, kappa, out)
    return out.reshape(lin.shape)


def srgb8_to_lab(
    rgb8: NDArray[np.uint8], lut: NDArray[np.float64], m: NDArray[np.float64], eps: float, kappa: float
) -> NDArray[np.float64]:
    flat = np.ascontiguousarray(rgb8).reshape(-1, 3)
    out = np.empty(flat.shape, dtype=np.float64)
    _srgb8_to_lab(flat, lut, m, eps, kappa, out)
    return out.reshape(rgb8.shape)
