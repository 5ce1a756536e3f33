"""Gallery cards for GenColorBench reports: an image, target vs dominant colour, the three metrics
against their thresholds and the scorer's reason (:mod:`huebench.report.gallery`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from huebench.report.gallery import GalleryItem, Metric, lab_hex

__all__ = ["MAX_CARDS", "METRIC_NAMES", "image_cards", "score_card", "score_metrics"]


#: how the three metrics are named on a page
METRIC_NAMES = {"delta_e00": "ΔE00", "delta_chroma": "Δchroma", "delta_hue": "Δhue"}


def score_metrics(score: dict[str, Any], thresholds: dict[str, float]) -> tuple[list[Metric], float]:
    """The three metrics of a score (:meth:`ColorScore.as_dict` of ``scoring.py``) against their
    thresholds ({"jnd": …, "hue_threshold": …}), and how bad it is: the worst metric's ratio to its
    threshold (a gallery's sort key)."""
    jnd, hue = float(thresholds["jnd"]), float(thresholds["hue_threshold"])
    limits = {"delta_e00": jnd, "delta_chroma": jnd, "delta_hue": hue}
    passes = score.get("passes") or {}
    metrics = [Metric(METRIC_NAMES[k], _num(score.get(k)), limits[k], bool(passes.get(k, False))) for k in limits]
    ratios = [m.value / m.threshold for m in metrics if m.value is not None and m.threshold]
    return metrics, max(ratios, default=0.0)


def score_card(
    title: str,
    score: dict[str, Any],
    *,
    images: list[str],
    thresholds: dict[str, float],
    tags: dict[str, str],
    extra_swatches: Sequence[tuple[str, str | None]] = (),
) -> GalleryItem:
    """A card for one score: the target's colour and the dominant colour as swatches, then
    ``extra_swatches`` (label, '#rrggbb' or None: left out), and :func:`score_metrics`."""
    metrics, badness = score_metrics(score, thresholds)
    swatches = [("target", score.get("target_hex") or "")]
    dominant = lab_hex(score.get("dominant_lab"))
    if dominant is not None:
        swatches.append(("dominant", dominant))
    swatches += [(label, hexcode) for label, hexcode in extra_swatches if hexcode]
    candidates = score.get("candidates") or []
    return GalleryItem(
        title=title,
        passed=bool(score.get("pass")),
        reason=str(score.get("reason", "")),
        images=images,
        swatches=swatches,
        metrics=metrics,
        tags={**tags, **({"candidates": ", ".join(map(str, candidates))} if candidates else {})},
        sort_key=badness,
    )


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if f != f else f


#: at most this many cards in a run's gallery: every failure first, then the rest in record order
MAX_CARDS = 400


def image_cards(
    records: Sequence[dict[str, Any]], image_root: Path | None, thresholds: dict[str, float]
) -> list[GalleryItem]:
    """Cards for a GenColorBench run (one per judged image, failures first, at most
    :data:`MAX_CARDS`): the image from ``image_root`` (read, never written; left out when
    unreadable), each scored object's target and dominant colour, the first target object's metrics
    against their thresholds, the task's reason."""
    from huebench.report.gallery import file_thumbnail

    ranked = sorted(records, key=lambda r: r.get("correct") is not False)[:MAX_CARDS]
    cards = []
    for r in ranked:
        thumb = file_thumbnail(image_root / str(r["image"])) if image_root is not None and r.get("image") else None
        images = [thumb] if thumb else []
        scored = [o for o in r.get("objects") or [] if "score" in o]
        swatches: list[tuple[str, str]] = []
        for o in scored:
            swatches.append((f"{o['name']}: {o['color']}", str(o["score"].get("target_hex") or "")))
            found = lab_hex(o["score"].get("dominant_lab"))
            if found:
                swatches.append((f"{o['name']}: found", found))
        first = next((o for o in scored if o.get("role") == "target"), None)
        metrics, badness = score_metrics(first["score"], thresholds) if first is not None else ([], 0.0)
        card = GalleryItem(
            str(r["id"]),
            r.get("correct") if r.get("status") == "ok" else False,
            reason=str(r.get("reason", "")),
            images=images,
            swatches=swatches,
            metrics=metrics,
            tags={
                "task": str(r.get("task")),
                "system": str(r.get("system")),
                "category": str(r.get("category")),
                "colours": ", ".join(map(str, r.get("colors") or [])),
                **({"mask": str(r["mask_method"])} if r.get("mask_method") else {}),
            },
            sort_key=badness,
        )
        cards.append(card)
    return cards  # a Section orders its gallery, failures first
