"""Per-pixel sums, means and norms over a pixel's 2–3 channels (N×k arrays, k small), the
median of each channel, and the pixels of an image under a mask.

NumPy's reductions along so short an axis cost 4–15 times the column arithmetic written here, which
adds the same terms in the same order: the same bits (tests/test_color_reflectance.py pins it;
docs/performance.md has the speed).
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from huebench import stats
from huebench.color import _kernels

_T = TypeVar("_T", bound=np.generic)


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


def masked(a: NDArray[_T], mask: NDArray[np.bool_]) -> NDArray[_T]:
    """``a[mask]`` for an array whose first two axes the 2-D boolean ``mask`` covers (an image and
    its object mask): the same elements in the same order. NumPy's boolean indexing over two axes
    costs several times what ``np.compress`` over one does, which is used where ``a`` is
    C-contiguous."""
    arr, m = np.asarray(a), np.asarray(mask)
    if m.dtype == np.bool_ and m.ndim == 2 and arr.shape[:2] == m.shape and arr.flags.c_contiguous:
        out: NDArray[_T] = np.compress(m.reshape(-1), arr.reshape((m.size, *arr.shape[2:])), axis=0)
        return out
    return arr[m]


def column_medians(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """``stats.median`` of each column of an N×k float64 array (``np.median(a, axis=0)``'s values),
    in one compiled call where numba is."""
    if _kernels.enabled(len(a)) and a.dtype == np.float64 and a.ndim == 2:
        return _kernels.column_medians(a)
    return np.array([stats.median(a[:, c]) for c in range(a.shape[1])], dtype=np.float64)
