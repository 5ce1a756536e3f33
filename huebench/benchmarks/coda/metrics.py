"""Distribution metrics used across CoDa: Spearman ρ, Kendall τ-b, Acc@1, Jensen-Shannon divergence.

Colour order everywhere in CoDa is alphabetical (:data:`COLORS`), so "argmax of a tie" is the
first colour alphabetically, as in the published tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

__all__ = ["COLORS", "acc1", "avg_correlation", "js_distance", "js_divergence", "kendall", "spearman"]

COLORS = ("black", "blue", "brown", "gray", "green", "orange", "pink", "purple", "red", "white", "yellow")


def _pair(p: ArrayLike, q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"distributions differ in shape: {a.shape} vs {b.shape}")
    return a, b


def spearman(p: ArrayLike, q: ArrayLike) -> float:
    """Spearman's ρ (NaN when either side is constant)."""
    a, b = _pair(p, q)
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return math.nan
    return float(stats.spearmanr(a, b).statistic)


def kendall(p: ArrayLike, q: ArrayLike) -> float:
    """Kendall's τ-b (NaN when either side is constant)."""
    a, b = _pair(p, q)
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return math.nan
    return float(stats.kendalltau(a, b).statistic)


def js_divergence(p: ArrayLike, q: ArrayLike) -> float:
    """Jensen-Shannon divergence in nats (not the square-root distance); inputs are normalised."""
    a, b = _pair(p, q)
    sa, sb = a.sum(), b.sum()
    if sa <= 0 or sb <= 0:
        return math.nan
    a, b = a / sa, b / sb
    m = 0.5 * (a + b)

    def kl(x: np.ndarray, y: np.ndarray) -> float:
        mask = x > 0
        return float(np.sum(x[mask] * np.log(x[mask] / y[mask])))

    return 0.5 * kl(a, m) + 0.5 * kl(b, m)


def js_distance(p: ArrayLike, q: ArrayLike) -> float:
    """Jensen-Shannon distance: the square root of :func:`js_divergence` (a metric)."""
    d = js_divergence(p, q)
    return math.sqrt(max(d, 0.0)) if not math.isnan(d) else math.nan


def acc1(pred: ArrayLike, truth: ArrayLike) -> bool:
    """Does the predicted most likely colour equal the true one? Ties go to the first colour."""
    return int(np.argmax(np.asarray(pred))) == int(np.argmax(np.asarray(truth)))


def avg_correlation(p: ArrayLike, q: ArrayLike) -> float:
    """(ρ + τ) / 2 for one object (CoDa's "Avg. Correlation", computed per object first)."""
    return (spearman(p, q) + kendall(p, q)) / 2.0


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (ddof=1) over the finite values."""
    x = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=np.float64)
    if x.size == 0:
        return math.nan, math.nan
    return float(x.mean()), float(x.std(ddof=1)) if x.size > 1 else 0.0
