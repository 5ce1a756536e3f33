"""Statistics shared by the benchmarks: seeded bootstrap confidence intervals."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["bootstrap_ci", "paired_bootstrap"]


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
