"""Why the default scorer fails, per family: each failing image (exact mask) put in one class by
how its dominant colour misses the truth — a near-neutral truth read as a colour, a chromatic truth
read too pale or too saturated, the lightness, or the hue — and, on ``bounce``, whether the reading
turned toward the surroundings' hue.

    python perf/failure_modes.py [--system iscc-nbs-l2] [--family bounce,rendered]

Uses the images ``perf/scorer_study.py --quick`` caches (built here if missing)."""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scorer_study

from huebench.benchmarks.gencolor.families import BOUNCE_SURROUNDINGS, UNSEEN_FAMILIES
from huebench.benchmarks.gencolor.scoring import JND, ColorScorer
from huebench.color import delta_hue, lab_to_lch, linear_to_srgb8, srgb_to_lab

#: a truth below this C*ab is near-neutral: the hue test is gated and any colour read is invented
NEAR_NEUTRAL = 10.0


def toward(read: np.ndarray, surroundings: np.ndarray) -> bool:
    """Whether the reading's hue lies within 45° of the surroundings' (either way round the circle)."""
    return bool(delta_hue(read, surroundings, chroma_threshold=0.0) < 45.0)


def failure_class(truth: np.ndarray, read: np.ndarray, jnd: float = JND) -> str:
    """How a failing reading misses: by chroma first (the metric that fails most), else lightness, else hue."""
    ct, cr = float(lab_to_lch(truth)[1]), float(lab_to_lch(read)[1])
    if ct < NEAR_NEUTRAL:
        return "neutral read as a colour" if cr - ct > jnd else "neutral, lightness"
    if cr - ct < -jnd:
        return "too pale"
    if cr - ct > jnd:
        return "too saturated"
    return "lightness" if abs(float(read[0] - truth[0])) > jnd else "hue"


def family_modes(system: str, family: str, cache: str = scorer_study.CACHE) -> dict[str, Any]:
    args = argparse.Namespace(system=system, quick=True, size=None, spp=None, cache=cache)
    meta, imgs, masks = scorer_study.build(system, True, scorer_study.cache_path(args, family), family=family)
    scorer = ColorScorer.named("huebench", system)
    walls = {name: srgb_to_lab(linear_to_srgb8(np.asarray(rgb))) for name, rgb in BOUNCE_SURROUNDINGS.items()}
    classes: collections.Counter[str] = collections.Counter()
    turned, gaps = [0, 0], []
    for m, img, mask in zip(meta, imgs, masks, strict=True):
        score, _ = scorer.score_image(img, m["target"], mask=mask)
        if score.passed:
            continue
        truth = np.asarray(scorer.candidates(m["target"])[0].lab, dtype=np.float64)
        read = np.asarray(score.dominant_lab, dtype=np.float64)
        kind = failure_class(truth, read, scorer.jnd)
        classes[kind] += 1
        gaps.append(float(lab_to_lch(read)[1] - lab_to_lch(truth)[1]))
        if m.get("surroundings") and kind == "neutral read as a colour":
            turned[0] += toward(read, walls[m["surroundings"]])
            turned[1] += 1
    return {"n": len(meta), "classes": classes, "toward": turned, "gaps": gaps}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--system", default="iscc-nbs-l2")
    ap.add_argument("--family", default="bounce,rendered,finishes,encodings")
    ap.add_argument("--cache", default=scorer_study.CACHE, help="the image caches perf/scorer_study.py uses")
    args = ap.parse_args()
    unseen = sorted(set(args.family.split(",")) & set(UNSEEN_FAMILIES))
    if unseen:
        ap.error(
            f"{', '.join(unseen)} is kept unseen (families.UNSEEN_FAMILIES): judge it once with huebench gencolor diagnose"
        )
    for family in args.family.split(","):
        r = family_modes(args.system, family, args.cache)
        fails = sum(r["classes"].values())
        parts = ", ".join(f"{k} {v}" for k, v in r["classes"].most_common())
        print(f"{family}: {fails} of {r['n']} fail — {parts}")
        if r["gaps"]:
            print(f"  ΔC*ab of the failures (read − truth): median {np.median(r['gaps']):+.1f}")
        if r["toward"][1]:
            print(
                f"  neutral read as a colour, within 45° of the surroundings' hue: {r['toward'][0]} of {r['toward'][1]}"
            )


if __name__ == "__main__":
    main()
