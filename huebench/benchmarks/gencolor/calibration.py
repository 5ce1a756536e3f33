"""The lit colour's calibration (scorer version 25): a learned correction of what the rules find.

Versions 1–24 of the scorer are rules, each chosen on some families of known-colour images and
judged on one it was not chosen with (docs/gencolor.md). What is left after them is spread over
many kinds of image, a few CIELAB units at a time, in both directions: no further rule carried to
the families it was not chosen on. A calibration learns it instead. From the rules' dominant colour
and eleven statistics of the object's own pixels (:data:`FEATURES`) a small ensemble of regression
trees gives a correction of its lightness (the format allows a second, of its chroma; the shipped
calibration has none — with one, the held-out 64 px Mitsuba renders lost: docs/gencolor.md); the
hue is kept. The scorer adds the correction before its bound on invented colour, which still holds.

The ensemble is trained by ``perf/scorer_calibration.py`` on the diagnostic's families (both
colour systems, both render settings) and shipped as data (``data/calibration-<name>.json``: trees,
thresholds, leaf values and how they were made — never a pickle). Its evidence is a
leave-one-family-out table: for every family, the ensemble trained without it, measured on it (and
across colour systems and render settings: trained on one, measured on the other);
docs/gencolor.md shows them. Trees
cannot extrapolate: the largest correction a calibration can make is the sum of its trees' largest
leaves, and never more than :data:`MAX_CORRECTION` (:meth:`Calibration.bound`).

The NumPy code here is the reference (the trees walked level by level over all trees at once, the
leaves added in scikit-learn's order); where numba is, the statistics and the walk each run as one
kernel (``_kernels.lit_statistics``, ``_kernels.tree_ensemble``), the same values.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import NDArray

from huebench import stats
from huebench.color import _kernels, linear_to_srgb8, srgb8_to_linear, srgb_to_lab
from huebench.color.conversions import srgb8_lab_tables, srgb8_table
from huebench.color.difference import HUE_CHROMA_THRESHOLD
from huebench.color.reflectance import CLIPPED, fit_sample_of
from huebench.errors import HuebenchError

__all__ = [
    "CALIBRATION",
    "CALIBRATIONS",
    "FEATURES",
    "Calibration",
    "TreeEnsemble",
    "calibration_features",
    "calibration_from_json",
    "load_calibration",
    "pixel_statistics",
]

#: the scorer's default calibration (``ColorScorer(calibration=...)``; None: the rules alone)
CALIBRATION = "families-v25"
#: the calibrations shipped in ``data/``: ``data/calibration-<name>.json``
CALIBRATIONS = ("families-v25",)
#: the file format :func:`load_calibration` reads
FORMAT = 1

#: quantiles of the pixels' L* and C*ab, and of the linear saturation of their brighter half (the
#: last, C*ab's 0.99, is also the scorer's bound on invented colour: it reads it from here)
LIGHTNESS_QUANTILES = (0.25, 0.5, 0.85, 0.95, 0.99)
CHROMA_QUANTILES = (0.5, 0.95, 0.99)
SATURATION_QUANTILES = (0.5, 0.9)
#: the three tuples as the kernel takes them
_QUANTILE_ARRAYS = tuple(
    np.array(q, dtype=np.float64) for q in (LIGHTNESS_QUANTILES, CHROMA_QUANTILES, SATURATION_QUANTILES)
)
#: what the trees read, in order: the rules' dominant colour (L*, C*ab), the gloss test's answer
#: (1 glossy, 0 matte, 0.5 not tested), the share of pixels with a clipped channel, the linear
#: saturation of the brighter half of the pixels (distance from grey over grey) at two quantiles,
#: then the pixels' L* and C*ab quantiles, each less the dominant colour's own
FEATURES = (
    "lightness",
    "chroma",
    "glossy",
    "clipped",
    *(f"saturation_q{round(100 * q)}" for q in SATURATION_QUANTILES),
    *(f"lightness_q{round(100 * q)}" for q in LIGHTNESS_QUANTILES),
    *(f"chroma_q{round(100 * q)}" for q in CHROMA_QUANTILES),
)
#: the pixel statistics' count: :data:`FEATURES` less the dominant colour and the gloss answer
N_STATISTICS = len(FEATURES) - 3
#: below this chroma the metrics gate the hue (``difference.HUE_CHROMA_THRESHOLD``): the scorer holds
#: the dominant colour's hue unreliable there, so the calibration may lower such a chroma but does
#: not raise it along that hue (which would invent one, and put it to the hue test)
MIN_CHROMA = HUE_CHROMA_THRESHOLD
#: the largest correction of L* and of C*ab a calibration makes, whatever its trees say (CIELAB
#: units): trees are bounded by their leaves, and this bounds what any file can ask for
MAX_CORRECTION = 10.0


def pixel_statistics(px8: NDArray[np.uint8], light: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    """The statistics of an object's N×3 8-bit sRGB pixels the calibration reads (:data:`FEATURES`
    from "clipped" on, before the dominant colour is subtracted), over their fit sample
    (``reflectance.fit_sample_of``); pixels judged white-balanced by ``light`` are put back under it
    first, as the image shows them. ``nan`` everywhere for fewer than 2 pixels."""
    px = fit_sample_of(np.asarray(px8, dtype=np.uint8).reshape(-1, 3))
    if light is not None:
        px = linear_to_srgb8(srgb8_to_linear(px) * light)
    if len(px) < 2:
        return np.full(N_STATISTICS, np.nan)
    if _kernels.enabled(len(px)):  # the steps below in one kernel, the same values
        lut, m = srgb8_lab_tables()
        return _kernels.lit_statistics(np.ascontiguousarray(px), lut, m, srgb8_table(), CLIPPED, *_QUANTILE_ARRAYS)
    lab = srgb_to_lab(px)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    lin = srgb8_to_linear(px)
    grey = (lin[:, 0] + lin[:, 1]) + lin[:, 2]
    grey = grey / 3.0
    d = lin - grey[:, None]
    sat = np.sqrt((d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + d[:, 2] * d[:, 2]) / np.maximum(grey, 1e-4)
    bright = sat[grey >= stats.median(grey)]
    clipped = float(np.count_nonzero((px >= CLIPPED).any(axis=1))) / len(px)
    return np.array(
        [
            clipped,
            *stats.quantile(bright, list(SATURATION_QUANTILES)),
            *stats.quantile(lab[:, 0].copy(), list(LIGHTNESS_QUANTILES)),
            *stats.quantile(chroma, list(CHROMA_QUANTILES)),
        ],
        dtype=np.float64,
    )


def calibration_features(
    dominant_lab: Any, glossy: bool | None, statistics: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The calibration's input (:data:`FEATURES`) from the rules' dominant colour (CIELAB), the
    gloss test's answer (None: not tested; the scorer calibrates only objects it tested, as those it
    learnt from) and :func:`pixel_statistics`."""
    lightness, chroma = float(dominant_lab[0]), math.hypot(dominant_lab[1], dominant_lab[2])
    s = np.asarray(statistics, dtype=np.float64)
    out = np.empty(len(FEATURES))
    out[0], out[1], out[2] = lightness, chroma, 0.5 if glossy is None else float(bool(glossy))
    out[3:_L_FROM] = s[:_STAT_L_FROM]  # the clipped share and the saturations, as read
    out[_L_FROM:_C_FROM] = s[_STAT_L_FROM:_STAT_C_FROM] - lightness
    out[_C_FROM:] = s[_STAT_C_FROM:] - chroma
    return out


#: where the L* and C*ab quantiles start, in the features and in the statistics
_L_FROM = 4 + len(SATURATION_QUANTILES)
_C_FROM = _L_FROM + len(LIGHTNESS_QUANTILES)
_STAT_L_FROM, _STAT_C_FROM = _L_FROM - 3, _C_FROM - 3


@dataclass(frozen=True, eq=False)
class TreeEnsemble:
    """Gradient-boosted regression trees: ``baseline`` plus one leaf value per tree. Node ``j`` of
    tree ``t`` sends an input ``x`` to ``left[t, j]`` when ``x[feature[t, j]] <= threshold[t, j]``,
    else to ``right[t, j]``; a leaf (``leaf[t, j]``) holds ``value[t, j]``. Trees are padded to one
    node count (padding nodes are leaves worth 0 that no path reaches)."""

    baseline: float
    feature: NDArray[np.intp]
    threshold: NDArray[np.float64]
    left: NDArray[np.intp]
    right: NDArray[np.intp]
    value: NDArray[np.float64]
    leaf: NDArray[np.bool_]

    @classmethod
    def from_json(cls, data: Any, n_features: int, where: str) -> TreeEnsemble:
        """The ensemble a calibration file describes (``{"baseline": b, "trees": [...]}``), checked
        so that no walk can leave its arrays or loop: every tree has nodes, every list of a tree the
        same length, every inner node a feature in range and two children after it and within the
        tree, every number finite. Anything else is a one-line HuebenchError naming ``where``."""
        try:
            return cls._from_json(data, n_features, where)
        except HuebenchError:
            raise
        except (TypeError, ValueError, KeyError, AttributeError, OverflowError) as exc:
            raise HuebenchError(f"{where}: not a tree ensemble ({type(exc).__name__}: {exc})") from exc

    @classmethod
    def _from_json(cls, data: Any, n_features: int, where: str) -> TreeEnsemble:
        trees = data.get("trees") if isinstance(data, dict) else None
        if not isinstance(trees, list) or not trees:
            raise HuebenchError(f"{where}: no trees")
        keys = ("feature", "threshold", "left", "right", "value", "leaf")
        sizes = []
        for i, t in enumerate(trees):
            if not isinstance(t, dict) or not all(isinstance(t.get(k), list) for k in keys):
                raise HuebenchError(f"{where}: tree {i} is malformed (it needs the lists {', '.join(keys)})")
            lengths = {len(t[k]) for k in keys}
            if len(lengths) != 1 or 0 in lengths:
                raise HuebenchError(f"{where}: tree {i} is malformed (its node lists differ in length, or it has none)")
            sizes.append(lengths.pop())
        shape = (len(trees), max(sizes))
        feature, left, right = np.zeros(shape, np.intp), np.zeros(shape, np.intp), np.zeros(shape, np.intp)
        threshold, value, leaf = np.zeros(shape), np.zeros(shape), np.ones(shape, bool)
        for i, (t, n) in enumerate(zip(trees, sizes, strict=True)):
            for key, arr in (("feature", feature), ("left", left), ("right", right)):
                arr[i, :n] = np.asarray(t[key], dtype=np.intp)
            threshold[i, :n] = np.asarray(t["threshold"], dtype=np.float64)
            value[i, :n] = np.asarray(t["value"], dtype=np.float64)
            leaf[i, :n] = np.asarray(t["leaf"], dtype=bool)
            inner = ~leaf[i, :n]
            rows = np.flatnonzero(inner)
            f, lo, hi = feature[i, :n][inner], left[i, :n][inner], right[i, :n][inner]
            if inner.any() and (
                f.min() < 0
                or f.max() >= n_features
                or not np.all((lo > rows) & (lo < n))  # children after their parent and in the tree:
                or not np.all((hi > rows) & (hi < n))  # every walk ends at a leaf
            ):
                raise HuebenchError(f"{where}: tree {i} is malformed (a feature or child index out of range)")
        baseline = float(data["baseline"])
        if not (np.isfinite(threshold).all() and np.isfinite(value).all() and math.isfinite(baseline)):
            raise HuebenchError(f"{where}: a threshold, leaf value or the baseline is not finite")
        frozen: tuple[NDArray[Any], ...] = (feature, threshold, left, right, value, leaf)
        for array in frozen:
            array.flags.writeable = False  # one loaded calibration is shared by every scorer
        return cls(baseline, feature, threshold, left, right, value, leaf)

    @property
    def depth(self) -> int:
        """The longest path from a root to a leaf (the levels :meth:`predict` walks)."""
        depth = np.zeros(self.value.shape, np.intp)
        for j in range(self.value.shape[1]):  # children come after their parents
            inner = ~self.leaf[:, j]
            rows = np.flatnonzero(inner)
            depth[rows, self.left[rows, j]] = depth[rows, j] + 1
            depth[rows, self.right[rows, j]] = depth[rows, j] + 1
        return int(depth.max())

    def predict(self, x: NDArray[np.float64]) -> float:
        """The ensemble's value at one input (1-D, finite): the baseline plus each tree's leaf, added
        one tree after another (as scikit-learn adds them: the same value)."""
        if _kernels.AVAILABLE:  # the walk below, tree by tree, in one call
            return _kernels.tree_ensemble(
                x, self.baseline, self.feature, self.threshold, self.left, self.right, self.value, self.leaf
            )
        rows = np.arange(self.value.shape[0])
        node = np.zeros(len(rows), np.intp)
        for _ in range(self._depth):  # every tree one level down at a time
            f = self.feature[rows, node]
            step = np.where(x[f] <= self.threshold[rows, node], self.left[rows, node], self.right[rows, node])
            node = np.where(self.leaf[rows, node], node, step)
        total = self.baseline
        for v in self.value[rows, node].tolist():
            total += v
        return total

    @functools.cached_property
    def _depth(self) -> int:
        return self.depth

    def bound(self) -> float:
        """The largest correction the ensemble can give in either direction: |baseline| plus each
        tree's largest |leaf value|."""
        leaves = np.where(self.leaf, np.abs(self.value), 0.0)
        return abs(self.baseline) + float(leaves.max(axis=1).sum())


@dataclass(frozen=True, eq=False)
class Calibration:
    """A shipped calibration: its name, the sha256 of its file (config.json records both), its
    ensembles (the lightness and, where the file has one, the chroma correction, CIELAB units; a
    calibration without a chroma ensemble keeps the rules' chroma) and how it was made."""

    name: str
    sha256: str
    lightness: TreeEnsemble
    chroma: TreeEnsemble | None
    training: dict[str, Any]

    def correction(self, features: NDArray[np.float64]) -> tuple[float, float] | None:
        """(ΔL*, ΔC*ab) for one input (:func:`calibration_features`); None where a feature is not
        finite (too few pixels for their statistics)."""
        if not math.isfinite(float(np.add.reduce(features))):  # a NaN or an infinity anywhere
            return None
        limit = MAX_CORRECTION
        d_l = self.lightness.predict(features)
        d_c = 0.0 if self.chroma is None else self.chroma.predict(features)
        return min(max(d_l, -limit), limit), min(max(d_c, -limit), limit)

    def bound(self) -> tuple[float, float]:
        """The largest |ΔL*| and |ΔC*ab| the calibration can give: its trees' bound
        (:meth:`TreeEnsemble.bound`) or :data:`MAX_CORRECTION`, whichever is smaller."""
        chroma = 0.0 if self.chroma is None else self.chroma.bound()
        return min(self.lightness.bound(), MAX_CORRECTION), min(chroma, MAX_CORRECTION)


def calibration_from_json(raw: bytes, name: str, where: str) -> Calibration:
    """A calibration from its file's bytes (:data:`FORMAT`; ``where`` names the file in errors):
    checked — its features are this scorer's, every tree is well formed, no correction above
    :data:`MAX_CORRECTION`."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise HuebenchError(f"{where}: not JSON ({type(exc).__name__}: {exc})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("name") != name:
        got = (data.get("format"), data.get("name")) if isinstance(data, dict) else (None, None)
        raise HuebenchError(f"{where}: format {got[0]!r}, name {got[1]!r}: expected {FORMAT}, {name!r}")
    if tuple(data.get("features", ())) != FEATURES:
        raise HuebenchError(f"{where}: its features are not this scorer's ({', '.join(FEATURES)})")
    targets = data.get("targets")
    if not isinstance(targets, dict) or not set(targets) <= {"lightness", "chroma"} or "lightness" not in targets:
        names = ", ".join(map(str, targets)) if isinstance(targets, dict) else "none"
        raise HuebenchError(f"{where}: targets {names}: expected lightness (and chroma, optional) ensembles")
    ensembles = {t: TreeEnsemble.from_json(v, len(FEATURES), f"{where}, {t}") for t, v in targets.items()}
    return Calibration(
        name,
        hashlib.sha256(raw).hexdigest(),
        ensembles["lightness"],
        ensembles.get("chroma"),
        dict(data.get("training", {})),
    )


@functools.cache
def load_calibration(name: str) -> Calibration:
    """The shipped calibration ``name`` (:data:`CALIBRATIONS`), from ``data/calibration-<name>.json``."""
    if name not in CALIBRATIONS:
        raise HuebenchError(f"calibration {name!r} unknown: use {' or '.join(CALIBRATIONS)}, or none")
    raw = resources.files("huebench.benchmarks.gencolor").joinpath("data", f"calibration-{name}.json").read_bytes()
    where = f"huebench/benchmarks/gencolor/data/calibration-{name}.json"
    return calibration_from_json(raw, name, where + " (reinstall huebench)")
