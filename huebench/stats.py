"""Statistics shared by the benchmarks: seeded bootstrap confidence intervals, and the quantiles
and medians the colour scorer takes of small arrays many times per image."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["bootstrap_ci", "mean", "median", "paired_bootstrap", "quantile", "variance"]


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    statistic: Callable[[np.ndarray], float] = np.mean,
) -> dict[str, Any]:
    """Percentile bootstrap of ``statistic`` over per-sample ``values``: ``{"value", "low", "high", "n"}``.

    With no values the three numbers are ``None`` (JSON has no NaN)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return {"value": None, "low": None, "high": None, "n": 0}
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(n_resamples, x.size))
    stats = np.array([statistic(x[row]) for row in idx]) if statistic is not np.mean else x[idx].mean(axis=1)
    alpha = (1 - confidence) / 2
    return {
        "value": float(statistic(x)),
        "low": float(np.quantile(stats, alpha)),
        "high": float(np.quantile(stats, 1 - alpha)),
        "n": int(x.size),
    }


def paired_bootstrap(
    columns: Mapping[str, Sequence[float] | np.ndarray],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, dict[str, Any]]:
    """Bootstrap several per-sample metrics with the *same* resampled indices (paired), so their
    intervals and differences are comparable (ColorSwap App. G). All columns must have equal length."""
    arrays = {k: np.asarray(v, dtype=np.float64) for k, v in columns.items()}
    sizes = {a.size for a in arrays.values()}
    if len(sizes) > 1:
        raise ValueError(f"paired bootstrap needs equal-length columns, got sizes {sorted(sizes)}")
    n = sizes.pop() if sizes else 0
    if n == 0:
        return {k: {"value": None, "low": None, "high": None, "n": 0} for k in arrays}
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_resamples, n))
    alpha = (1 - confidence) / 2
    out = {}
    for k, a in arrays.items():
        means = a[idx].mean(axis=1)
        out[k] = {
            "value": float(a.mean()),
            "low": float(np.quantile(means, alpha)),
            "high": float(np.quantile(means, 1 - alpha)),
            "n": n,
        }
    return out


#: :func:`quantile` of several ``q`` reads its order statistics off a partition from arrays this
#: long, and off a sort below it (one ``q`` always from a partition), whichever is faster there (docs/performance.md, "Quantiles from a
#: partition")
PARTITION_FROM = 512


def quantile(x: np.ndarray, q: float | Sequence[float] | np.ndarray) -> Any:
    """``np.quantile(x, q)`` (its default "linear" method) of a 1-D array without NaN: the same
    values, bit for bit, from one partition (a sort for short arrays), without NumPy's general-case
    dispatch. The colour scorer takes a dozen quantiles of arrays of a few thousand values per
    image, and that dispatch was most of their cost. A float for a scalar ``q``, else an array
    shaped like ``q``. Arrays with NaN, other dtypes and shapes, and empty arrays go to
    ``np.quantile`` (same result or error)."""
    a = np.asarray(x)
    plain = a.ndim == 1 and a.size and a.dtype == np.float64  # what the fast paths take
    if plain and isinstance(q, float) and 0.0 <= q <= 1.0:
        found = _quantiles(a, [q])
        return np.quantile(a, q) if found is None else found[0]
    if plain and isinstance(q, (list, tuple)) and all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in q):
        found = _quantiles(a, list(q))
        return np.quantile(a, q) if found is None else np.array(found, dtype=np.float64)
    scalar = np.ndim(q) == 0
    qs = np.atleast_1d(np.asarray(q, dtype=np.float64))
    if a.ndim != 1 or a.size == 0 or a.dtype != np.float64 or qs.ndim != 1 or not (qs.min() >= 0 and qs.max() <= 1):
        return np.quantile(a, q)
    out = _quantiles(a, qs.tolist())
    if out is None:
        return np.quantile(a, q)
    return float(out[0]) if scalar else np.array(out, dtype=np.float64)


def _quantiles(a: np.ndarray, qs: list[float]) -> list[float] | None:
    """NumPy's steps for method "linear", in its order of operations, on Python floats (the same
    IEEE operations), reading the order statistics they need — and the largest, as NaN sorts last —
    off one partition of ``a`` (a sort instead below :data:`PARTITION_FROM` values, when more than
    one quantile is asked for): the values a sort puts there. A list of floats; None where ``a`` holds NaN (NumPy's answer is then the caller's)."""
    n = a.size
    plans = []
    kth = {n - 1}
    for qv in qs:
        virtual = (n - 1) * qv
        if virtual >= n - 1:  # NumPy takes the largest value for both neighbours
            previous = nxt = -1
        else:
            previous = math.floor(virtual)
            nxt = previous + 1
            kth.update((previous, nxt))
        plans.append((previous, nxt, virtual - previous))
    s = a.copy()  # np.sort / np.partition's own copy, then their algorithm, without their wrappers
    if n < PARTITION_FROM and len(kth) > 3:
        s.sort()
    else:
        s.partition(sorted(kth))
    if math.isnan(s[-1]):
        return None
    out = []
    for previous, nxt, gamma in plans:
        lo, hi = s[previous], s[nxt]
        diff = hi - lo
        out.append(float(hi - diff * (1 - gamma)) if gamma >= 0.5 else float(lo + diff * gamma))
    return out


def median(x: np.ndarray) -> float:
    """``np.median`` of a 1-D array, the same value, without its dispatch overhead (see
    :func:`quantile`)."""
    n = len(x)
    if n == 0:
        return float("nan")
    k = n // 2
    part = np.array(x, copy=True)  # np.partition's copy and algorithm, without its wrapper
    if n % 2:
        part.partition(k)
        return float(part[k])
    part.partition([k - 1, k])
    return float((part[k - 1] + part[k]) / 2)


def mean(x: np.ndarray) -> float:
    """``np.mean`` of a 1-D float64 array, the same value (NumPy's pairwise sum over the count),
    without its dispatch overhead."""
    return float(np.add.reduce(x) / len(x))


def variance(x: np.ndarray) -> float:
    """``np.var`` of a 1-D float64 array, the same value: NumPy's steps (the mean, the squared
    deviations, their pairwise sum over the count) without its dispatch overhead."""
    d = x - np.add.reduce(x) / len(x)
    return float(np.add.reduce(d * d) / len(x))
