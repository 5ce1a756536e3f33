"""Dominant colour of a set of pixels (GenColorBench 004 §3.4, after Witzel & Dewis 2022).

An object's pixels spread along its hue direction (shading changes lightness and
chroma, not hue), so the representative colour is found along the first principal
component of the (a*, b*) chromaticities:

1. flatten to N×3 CIELAB, drop non-finite pixels;
2. **outliers** (specular highlights, leaked background, dark crevices): pixels whose
   a*b* distance from the component-wise median exceeds ``median + outlier_mad × 1.4826·MAD``
   of those distances are dropped; a floor of ``min_outlier_radius`` ΔE keeps a uniform
   patch (MAD ≈ 0) from losing pixels to noise. At most ``max_outlier_fraction`` of the
   pixels may be dropped (the farthest ones) so a two-coloured object is not cut in half;
3. PCA on the kept a*b* *about the achromatic point* (second moments about a* = b* = 0, not the
   centred covariance): v1 = first eigenvector. A hue is a direction from the neutral axis, so
   this v1 follows the object's hue both when shading spreads its pixels along that direction and
   when the spread is only noise around one colour — centred PCA would then follow the noise and
   the projection below would throw most of the chroma away (a flat red patch came out with
   a* ≈ 0 before this choice);
4. the dominant colour is (mean L*, projection of the mean a*b* on v1) — the mean of
   the per-pixel projections onto the line through the origin along v1;
5. **near-achromatic or isotropic sets**: when the a*b* spread is tiny (√λ1 below
   ``min_spread`` ΔE) or has no preferred direction (λ2/λ1 above ``isotropy_ratio``),
   v1 is noise and projecting on it would shrink the chroma arbitrarily; the mean a*b*
   is used as is (method ``"mean"``). A perfectly grey set returns a* = b* = 0.

``method`` in the result tells which branch decided, for per-sample transparency.

:func:`dominant_color_paper` is the seed's method as written, for comparison: centred PCA on all
pixels' a*b*, no outliers, no window, no fallback (``DOMINANT_COLOR_METHODS`` names both).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from huebench import stats
from huebench.color import _kernels
from huebench.color._rows import column_medians, row_all

__all__ = ["DOMINANT_COLOR_METHODS", "DominantColor", "dominant_color", "dominant_color_paper"]


@dataclass(frozen=True)
class DominantColor:
    """Result of :func:`dominant_color`; ``np.asarray(result)`` gives the Lab triple."""

    lab: NDArray[np.float64]
    n_pixels: int
    n_used: int
    method: str  # "pca" or "mean"
    axis: NDArray[np.float64]  # unit a*b* direction used (v1, or the mean's direction)
    spread: float  # √λ1: standard deviation of a*b* along v1

    def __array__(self, dtype: DTypeLike | None = None, copy: object = None) -> NDArray[np.float64]:
        return self.lab if dtype is None else self.lab.astype(dtype)

    @property
    def n_outliers(self) -> int:
        return self.n_pixels - self.n_used


def dominant_color(
    lab_pixels: ArrayLike,
    *,
    outlier_mad: float = 3.0,
    min_outlier_radius: float = 10.0,
    max_outlier_fraction: float = 0.2,
    min_spread: float = 1.0,
    isotropy_ratio: float = 0.5,
    lightness_window: tuple[float, float] | None = None,
) -> DominantColor:
    """Dominant CIELAB colour of ``lab_pixels`` (any shape ending in 3). See the module doc.

    ``lightness_window=(lo, hi)`` keeps only pixels between those quantiles of L* before anything
    else — e.g. (0.6, 0.95) judges an object by its lit surface, as people do, rather than by its
    shadows (below) or specular highlights (above). ``None`` (the default) uses all pixels, as
    GenColorBench describes.
    """
    pixels = np.asarray(lab_pixels, dtype=np.float64)
    if pixels.shape[-1:] != (3,):
        raise ValueError(f"expected CIELAB pixels with a last axis of length 3, got shape {pixels.shape}")
    pixels = pixels.reshape(-1, 3)
    n_pixels = len(pixels)
    window_ok = lightness_window is None or all(isinstance(q, float) and 0.0 <= q <= 1.0 for q in lightness_window)
    if _kernels.enabled(n_pixels) and window_ok:
        # the steps up to the PCA in one kernel, the same rows and means
        pixels, means = _kernels.dominant_pixels(
            pixels,
            lightness_window,
            outlier_mad=outlier_mad,
            min_outlier_radius=min_outlier_radius,
            max_outlier_fraction=max_outlier_fraction,
        )
        if len(pixels):
            return _principal(pixels, float(means[0]), means[1:3], n_pixels, min_spread, isotropy_ratio)
        if means[3] == 0:
            raise ValueError(f"no finite pixels to take a dominant colour of ({n_pixels} given): is the mask empty?")
        pixels = np.asarray(lab_pixels, dtype=np.float64).reshape(-1, 3)  # an empty window: the steps below
    pixels = pixels[row_all(np.isfinite(pixels))]
    if len(pixels) == 0:
        raise ValueError(f"no finite pixels to take a dominant colour of ({n_pixels} given): is the mask empty?")
    if lightness_window is not None and len(pixels) >= 10:
        lo, hi = stats.quantile(pixels[:, 0], lightness_window)
        pixels = pixels[(pixels[:, 0] >= lo) & (pixels[:, 0] <= hi)]

    ab = pixels[:, 1:]
    if len(pixels) >= 3:
        centre = column_medians(ab)  # np.median(ab, axis=0)'s values
        dist = np.hypot(*(ab - centre).T)
        med = stats.median(dist)
        radius = max(med + outlier_mad * 1.4826 * stats.median(np.abs(dist - med)), min_outlier_radius)
        keep = dist <= radius
        max_drop = int(max_outlier_fraction * len(pixels))
        if (~keep).sum() > max_drop:
            keep = np.zeros(len(pixels), dtype=bool)
            keep[np.argsort(dist, kind="stable")[: len(pixels) - max_drop]] = True
        pixels = pixels[keep]
        ab = pixels[:, 1:]

    return _principal(pixels, float(pixels[:, 0].mean()), ab.mean(axis=0), n_pixels, min_spread, isotropy_ratio)


def _principal(
    pixels: NDArray[np.float64],
    mean_l: float,
    mean_ab: NDArray[np.float64],
    n_pixels: int,
    min_spread: float,
    isotropy_ratio: float,
) -> DominantColor:
    """The dominant colour of the pixels kept (N×3 Lab, their mean L* and a*b* given): the first
    principal axis of a*b* about the neutral point when the chroma spreads along one, else the mean."""
    ab = pixels[:, 1:]
    if len(ab) >= 2 and _kernels.enabled(len(ab)):
        # the 2×2 decomposition below in closed form (the same values up to rounding)
        big, small, v1 = _kernels.principal_axis(ab)
        lam2, lam1 = max(small, 0.0), max(big, 0.0)
    elif len(ab) >= 2:
        moments = ab.T @ ab / len(ab)  # about the neutral axis, not the mean (see the module doc)
        evals, evecs = np.linalg.eigh(moments)  # ascending
        lam2, lam1 = max(float(evals[0]), 0.0), max(float(evals[1]), 0.0)
        v1 = evecs[:, 1]
    else:
        lam1 = lam2 = 0.0
        v1 = np.array([1.0, 0.0])
    spread = float(np.sqrt(lam1))
    if spread >= min_spread and lam2 <= isotropy_ratio * lam1:
        proj = float(mean_ab @ v1)
        dominant_ab = proj * v1
        axis = v1 * (1.0 if proj >= 0 else -1.0)
        method = "pca"
    else:
        dominant_ab = mean_ab
        norm = float(np.hypot(*mean_ab))
        axis = mean_ab / norm if norm > 0 else np.array([1.0, 0.0])
        method = "mean"
    return DominantColor(
        lab=np.array([mean_l, dominant_ab[0], dominant_ab[1]]),
        n_pixels=n_pixels,
        n_used=len(pixels),
        method=method,
        axis=axis,
        spread=spread,
    )


def dominant_color_paper(lab_pixels: ArrayLike) -> DominantColor:
    """GenColorBench's dominant colour exactly as the paper describes it (seed 004 §3.4): PCA of
    the (a*, b*) of every pixel (centred covariance), v1 its first component, every chromaticity
    projected on the line through the neutral point along v1, and (mean L*, mean projection)."""
    pixels = np.asarray(lab_pixels, dtype=np.float64).reshape(-1, 3)
    n_pixels = len(pixels)
    pixels = pixels[row_all(np.isfinite(pixels))]
    if len(pixels) == 0:
        raise ValueError(f"no finite pixels to take a dominant colour of ({n_pixels} given): is the mask empty?")
    ab = pixels[:, 1:]
    if len(ab) >= 2:
        evals, evecs = np.linalg.eigh(np.cov(ab.T, bias=True))
        v1 = evecs[:, 1]
        spread = float(np.sqrt(max(float(evals[1]), 0.0)))
    else:
        v1, spread = np.array([1.0, 0.0]), 0.0
    proj = float(ab.mean(axis=0) @ v1)
    return DominantColor(
        lab=np.array([float(pixels[:, 0].mean()), *(proj * v1)]),
        n_pixels=n_pixels,
        n_used=len(pixels),
        method="paper-pca",
        axis=v1 * (1.0 if proj >= 0 else -1.0),
        spread=spread,
    )


#: named dominant-colour methods (colour-science's ``*_METHODS`` pattern); each takes the Lab
#: pixels and its own keyword options (``"paper"`` none)
DOMINANT_COLOR_METHODS: dict[str, Callable[..., DominantColor]] = {
    "huebench": dominant_color,
    "paper": dominant_color_paper,
}
