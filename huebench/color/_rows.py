"""Per-pixel sums, means and norms over a pixel's 2–3 channels (N×k arrays, k small).

NumPy's reductions along so short an axis cost 4–15 times the column arithmetic written here, which
adds the same terms in the same order: the same bits (tests/test_color_reflectance.py pins it;
docs/performance.md has the speed).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def row_sum(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """``a.sum(axis=1)`` of an N×k array, bit for bit."""
    out = a[:, 0] + a[:, 1]
    for j in range(2, a.shape[1]):
        out += a[:, j]
    return out


def row_mean(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """``a.mean(axis=1)`` of an N×k array, bit for bit."""
    return row_sum(a) / a.shape[1]


def row_norm(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """``np.linalg.norm(a, axis=1)`` of an N×k array, bit for bit."""
    out = a[:, 0] * a[:, 0] + a[:, 1] * a[:, 1]
    for j in range(2, a.shape[1]):
        out += a[:, j] * a[:, j]
    return np.sqrt(out)


def row_all(b: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """``b.all(axis=1)`` of an N×k boolean array."""
    out = b[:, 0] & b[:, 1]
    for j in range(2, b.shape[1]):
        out &= b[:, j]
    return out


def row_any(b: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """``b.any(axis=1)`` of an N×k boolean array."""
    out = b[:, 0] | b[:, 1]
    for j in range(2, b.shape[1]):
        out |= b[:, j]
    return out
