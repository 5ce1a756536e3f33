"""GenColorBench's per-image pipeline (seed 004 §3.4): presence → masks → colour → task rule.

1. **Presence** (optional, after DSG): any VLM is asked "Is there a {object} in the image?" per
   object that must be judged (targets and ICA partners; a COA context is not required); P(yes) <
   0.5 → the object is absent and the image is incorrect.
2. **Masks**, first that applies: a user mask ``MASKS/<prompt id>/<index>.<object>.png``; the
   open-vocabulary detector's best box for the object's name (GroundingDINO or OWLv2) → SAM mask,
   minus the SAM masks of the object's negative part labels that lie inside it (a part's mask is
   removed when at least ``NEGATIVE_OVERLAP`` of it overlaps the object: the paper's negative IoU
   filtering), then opening and removal of specks (< 5 % of the largest component); without a
   detector, the offline segmentation (``scoring.segment_offline``) — one foreground object, so
   only the target of a single-object prompt can be judged that way.
3. **Colour**: :class:`~huebench.benchmarks.gencolor.scoring.ColorScorer` on the mask.
4. **Task rule** (:func:`decide`): CNA/NCU — the target matches; COA — the target matches and the
   context has not taken the colour (leakage: the context's dominant colour passes the same
   test); MOC — every object matches its colour; ICA — the target and its partner both match.

Detector and SAM outputs go through the run's cache (masks run-length encoded), so a re-run or a
re-score with other colour thresholds costs no model calls.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from huebench.benchmarks.gencolor.scoring import ColorScorer, segment_offline
from huebench.images import rle_decode, rle_encode
from huebench.models.base import Model
from huebench.models.requests import Answers, Detection, Segmentation, YesProbability

__all__ = [
    "NEGATIVE_OVERLAP",
    "PRESENCE_THRESHOLD",
    "ObjectMask",
    "ObjectMasker",
    "decide",
    "rle_decode",
    "rle_encode",
]

PRESENCE_THRESHOLD = 0.5
NEGATIVE_OVERLAP = 0.5
MIN_COMPONENT = 0.05


def _user_mask_relative(pid: str, index: int, name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return f"{pid}/{index}.{slug}.png"


def user_mask_path(masks_dir: str | Path, pid: str, index: int, name: str) -> Path:
    """Where a user mask for object ``name`` in image ``index`` of prompt ``pid`` is looked for:
    ``MASKS/<prompt id>/<index>.<object slug>.png`` (lower case, runs of other characters → "-").
    It is read only if it stays inside ``MASKS`` (:func:`huebench.paths.resolve_under`)."""
    return Path(masks_dir) / _user_mask_relative(pid, index, name)


@dataclass
class ObjectMask:
    mask: NDArray[np.bool_] | None
    source: str  # "user", "detector+sam", "offline", or "none"
    reason: str = ""
    detection: dict[str, Any] | None = None
    negatives_removed: list[str] = field(default_factory=list)


class ObjectMasker:
    """Masks for the objects of one image (see the module doc); ``answers`` answers the detector and
    segmenter requests (the run context: cached)."""

    def __init__(
        self,
        answers: Answers,
        *,
        detector: Model | None = None,
        segmenter: Model | None = None,
        masks_dir: str | Path | None = None,
        box_threshold: float = 0.3,
    ):
        if (detector is None) != (segmenter is None):
            raise ValueError("the detector and the segmenter come together (GroundingDINO/OWLv2 → SAM)")
        self.answers = answers
        self.detector, self.segmenter = detector, segmenter
        self.masks_dir = Path(masks_dir) if masks_dir else None
        self.box_threshold = float(box_threshold)

    @property
    def method(self) -> str:
        return "detector+sam" if self.detector is not None else "offline"

    def user_mask(self, pid: str, index: int, name: str, shape: tuple[int, int]) -> NDArray[np.bool_] | None:
        if self.masks_dir is None:
            return None
        from huebench.images import load_image
        from huebench.paths import resolve_under

        path = resolve_under(self.masks_dir, _user_mask_relative(pid, index, name), what="mask")
        if not path.exists():
            return None
        m = np.asarray(load_image(path).convert("L")) > 0  # load_image: the pixel budget, before decoding
        if m.shape != shape:
            raise ValueError(f"{path}: mask is {m.shape[1]}×{m.shape[0]}, the image {shape[1]}×{shape[0]}")
        return m

    def _detect(self, image: NDArray[np.uint8], labels: Sequence[str]) -> list[dict[str, Any]]:
        assert self.detector is not None
        request = Detection(image, tuple(labels), self.box_threshold)
        return list(self.answers.answer([request], model=self.detector)[0]["output"])

    def _segment(self, image: NDArray[np.uint8], boxes: Sequence[Sequence[float]]) -> list[NDArray[np.bool_]]:
        assert self.segmenter is not None
        request = Segmentation(image, tuple(tuple(float(v) for v in b) for b in boxes))
        return [rle_decode(m) for m in self.answers.answer([request], model=self.segmenter)[0]["output"]]

    def mask(self, image: NDArray[np.uint8], pid: str, index: int, obj: dict[str, Any], *, single: bool) -> ObjectMask:
        """The mask of ``obj`` in ``image``; ``single``: the prompt has one object to judge (the
        offline path can only serve those)."""
        user = self.user_mask(pid, index, obj["name"], image.shape[:2])
        if user is not None:
            return ObjectMask(user, "user")
        if self.detector is None:
            if not single:
                return ObjectMask(
                    None,
                    "none",
                    "the offline segmentation finds one foreground object; judging several objects needs "
                    "--detector and --segmenter (GroundingDINO/OWLv2 + SAM) or user masks",
                )
            return ObjectMask(segment_offline(image), "offline")
        boxes = self._detect(image, [obj["name"]])
        if not boxes:
            return ObjectMask(
                None, "detector+sam", f"the detector found no {obj['name']!r} (threshold {self.box_threshold})"
            )
        best = max(boxes, key=lambda b: b["score"])
        negs = self._detect(image, obj.get("negative_labels") or []) if obj.get("negative_labels") else []
        negs = [b for b in negs if _box_overlap(b["box"], best["box"]) > 0]
        masks = self._segment(image, [best["box"], *[b["box"] for b in negs]])
        m = masks[0].copy()
        removed = []
        for b, n in zip(negs, masks[1:], strict=True):
            area = int(n.sum())
            if area and (n & m).sum() / area >= NEGATIVE_OVERLAP:
                m &= ~n
                removed.append(b["label"])
        m = _clean(m)
        info = {
            "label": best["label"],
            "score": round(float(best["score"]), 4),
            "box": [round(v, 1) for v in best["box"]],
        }
        if not m.any():
            return ObjectMask(None, "detector+sam", f"empty mask for {obj['name']!r} after part removal", info, removed)
        return ObjectMask(m, "detector+sam", "", info, sorted(set(removed)))


def _box_overlap(a: Sequence[float], b: Sequence[float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0.0) * max(h, 0.0)


def _clean(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Opening, then drop components smaller than MIN_COMPONENT of the largest."""
    from scipy import ndimage

    m = ndimage.binary_opening(mask, iterations=1) if mask.sum() > 200 else mask
    labels, n = ndimage.label(m)
    if n <= 1:
        return m
    sizes = np.asarray(ndimage.sum(m, labels, index=range(1, n + 1)))
    keep = np.flatnonzero(sizes >= MIN_COMPONENT * sizes.max()) + 1
    return np.isin(labels, keep)


def presence(answers: Answers, vqa: Model, image: NDArray[np.uint8], names: Sequence[str]) -> list[float]:
    """P(yes) for "Is there a {object} in the image?" per name (cached)."""
    from huebench.models.vqa import PRESENCE_QUESTION

    outs = answers.answer([YesProbability((image, PRESENCE_QUESTION.format(object=n))) for n in names], model=vqa)
    return [float(o["output"]) for o in outs]


def judge_objects(
    image: NDArray[np.uint8],
    prompt: dict[str, Any],
    index: int,
    masker: ObjectMasker,
    scorer: ColorScorer,
    p_yes: dict[str, float] | None = None,
) -> list[dict[str, Any]]:
    """Mask and score every object of the prompt; a context object is scored against the target colour."""
    judged_roles = [o for o in prompt["objects"] if o.get("role") != "context"]
    single = len(judged_roles) == 1
    out = []
    for obj in prompt["objects"]:
        role = obj.get("role", "target")
        color_idx = obj.get("color")
        if color_idx is None and role == "context":
            color_idx = 0  # leakage: has the context taken the target's colour?
        entry: dict[str, Any] = {"name": obj["name"], "role": role, "color": None}
        if p_yes is not None and role != "context":
            entry["p_yes"] = round(p_yes[obj["name"]], 4)
            entry["present"] = p_yes[obj["name"]] >= PRESENCE_THRESHOLD
            if entry["present"] is False:
                entry["reason"] = f"VQA: no {obj['name']} in the image (P(yes) {p_yes[obj['name']]:.2f})"
                out.append(entry)
                continue
        # the offline segmentation finds the one foreground object: the target, never the context
        om = masker.mask(image, prompt["id"], index, obj, single=single and role != "context")
        if role == "context" and om.source == "none":
            entry.update(mask_source="none", reason="context not segmented (needs a detector): leakage not judged")
            out.append(entry)
            continue
        entry.update(mask_source=om.source, mask_area=int(om.mask.sum()) if om.mask is not None else 0)
        if om.detection:
            entry["detection"] = om.detection
        if om.negatives_removed:
            entry["negatives_removed"] = om.negatives_removed
        if om.mask is None:
            entry["reason"] = om.reason
            out.append(entry)
            continue
        color = prompt["colors"][color_idx]
        score, _ = scorer.score_image(image, color["name"], mask=om.mask)
        entry["color"] = color["name"]
        entry["score"] = score.as_dict()
        entry["reason"] = score.reason
        out.append(entry)
    return out


def decide(task: str, objects: Sequence[dict[str, Any]]) -> tuple[bool | None, str]:
    """Apply the task rule to judged objects; ``None`` when the pipeline could not judge the image."""

    def passed(o: dict[str, Any]) -> bool | None:
        if o.get("present") is False:
            return False
        if "score" not in o:
            return None if o.get("mask_source") == "none" else False
        return bool(o["score"]["pass"])

    judged = [o for o in objects if o["role"] != "context"]
    absent = [o["name"] for o in judged if o.get("present") is False]
    if absent:
        return False, f"absent: {', '.join(absent)}"
    results = [(o, passed(o)) for o in judged]
    if any(r is None for _, r in results):
        unjudged = [o for o, r in results if r is None]
        return None, "; ".join(f"{o['name']}: {o.get('reason', 'not judged')}" for o in unjudged)
    wrong = [o for o, r in results if not r]
    if task == "coa" and not wrong:
        ctx = [o for o in objects if o["role"] == "context"]
        leaked = [o["name"] for o in ctx if o.get("score", {}).get("pass")]
        if leaked:
            return False, f"colour leaked onto the context ({', '.join(leaked)})"
        note = "" if all("score" in o for o in ctx) else " (leakage not judged)"
        return True, f"{judged[0]['name']} matches, no leakage{note}"
    if task not in ("cna", "ncu", "coa", "moc", "ica"):
        raise ValueError(f"unknown task {task!r}")
    if wrong:
        return False, "; ".join(f"{o['name']}: {o.get('reason', 'no match')}" for o in wrong)
    return True, "; ".join(f"{o['name']} matches" for o in judged)
