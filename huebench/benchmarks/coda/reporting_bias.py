"""Reporting bias in text (seed 001 §3.2, Table 4): n-gram colour counts vs human distributions.

For each object o and colour c, φ(c, o) counts "c o" n-grams in a corpus and φ(o) counts o:

    Freq(o)   = 100 / φ(o) · Σ_c φ(c, o)                         (eq. 1)
    P(c* | o) = φ(c*, o) / Σ_c φ(c, o)                           (eq. 2)

Compared with the ground truth per object: Spearman ρ and Kendall τ-b (×100), Acc@1 (argmax
agreement) and D_JS (Jensen-Shannon divergence, nats); mean ± sample std per group.

The published numbers treat an object absent from a counts file, or with no colour n-grams, as
all-zero counts: Freq 0 (kept in the Freq mean), Acc@1 decided by the argmax of the zero vector
(the first colour alphabetically), correlations and D_JS undefined and left out of their means.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from huebench.benchmarks.coda.dataset import GROUPS, CodaObject
from huebench.benchmarks.coda.metrics import COLORS, acc1, js_divergence, kendall, mean_std, spearman
from huebench.io import InputFileError, read_table

__all__ = ["object_metrics", "read_counts", "reporting_bias", "summarize_groups"]


def read_counts(path: str | Path) -> dict[str, tuple[float, np.ndarray]]:
    """``class_id → (object count, colour counts in COLORS order)`` from a counts CSV."""
    out = {}
    for line, row in read_table(path, required=("class_id", "object_count", *COLORS)):
        try:
            vec = np.array([float(row[c]) for c in COLORS])
            n = float(row["object_count"])
        except ValueError as exc:
            raise InputFileError(f"{path}:{line}: counts must be numbers ({exc})") from None
        if n < 0 or np.any(vec < 0):
            raise InputFileError(f"{path}:{line}: counts must be non-negative")
        if row["class_id"] in out:
            raise InputFileError(f"{path}:{line}: duplicate class_id {row['class_id']!r}")
        out[row["class_id"]] = (n, vec)
    return out


def object_metrics(pred: np.ndarray, truth: Sequence[float]) -> dict[str, Any]:
    """ρ, τ (×100), Acc@1 and D_JS of one predicted distribution (or raw counts) against the truth."""
    pred = np.asarray(pred, dtype=np.float64)
    defined = pred.sum() > 0
    rho = 100.0 * spearman(pred, truth) if defined else math.nan
    tau = 100.0 * kendall(pred, truth) if defined else math.nan
    return {
        "spearman": rho,
        "kendall": tau,
        "avg_correlation": (rho + tau) / 2.0,
        "acc1": acc1(pred, truth),
        "js": js_divergence(pred, truth) if defined else math.nan,
    }


def summarize_groups(
    per_object: Sequence[Mapping[str, Any]], objects: Sequence[CodaObject], *, extra: Sequence[str] = ()
) -> dict[str, dict[str, Any]]:
    """Mean ± sample std per group of the per-object metrics (undefined values left out)."""
    out: dict[str, dict[str, Any]] = {}
    for g in GROUPS:
        rows = [m for m, o in zip(per_object, objects, strict=True) if o.group == g]
        if not rows:
            continue
        summary: dict[str, Any] = {"n": len(rows)}
        for key in ("spearman", "kendall", "js", "avg_correlation", *extra):
            mean, std = mean_std([r[key] for r in rows])
            summary[f"{key}_mean"], summary[f"{key}_std"] = mean, std
        summary["acc1"] = 100.0 * float(np.mean([bool(r["acc1"]) for r in rows]))
        out[g] = summary
    return out


def reporting_bias(objects: Sequence[CodaObject], counts: Mapping[str, tuple[float, np.ndarray]]) -> dict[str, Any]:
    """Table 4 for one corpus: per group Freq, ρ, τ, Acc@1, D_JS; plus per-object values."""
    per_object = []
    for o in objects:
        n, vec = counts.get(o.class_id, (0.0, np.zeros(len(COLORS))))
        m = object_metrics(vec, o.distribution)
        m["freq"] = 100.0 * vec.sum() / n if n > 0 else 0.0
        m["class_id"] = o.class_id
        per_object.append(m)
    groups = summarize_groups(per_object, objects)
    for g, summary in groups.items():
        summary["freq"] = float(np.mean([m["freq"] for m, o in zip(per_object, objects, strict=True) if o.group == g]))
    return {"groups": groups, "objects": per_object}


def table4_json(result: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """The ``--json`` shape: per group freq, spearman/kendall/js mean and std, acc1."""
    keys = ("freq", "spearman_mean", "spearman_std", "kendall_mean", "kendall_std", "acc1", "js_mean", "js_std")
    return {g: {k: s[k] for k in keys} for g, s in result["groups"].items()}
