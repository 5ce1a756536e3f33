"""Which pixels should the dominant colour come from? A study on the known-colour renders.

Renders the diagnostic set once (cached in an .npz), then scores every render with exact masks
under several pixel-selection rules and prints accuracy per rule, for diffuse and glossy objects
separately, and the far-colour false-accept rate. Evidence for ``scoring.py``'s defaults:

    python benchmarks/scorer_study.py --system iscc-nbs-l2 --quick
    python benchmarks/scorer_study.py --system iscc-nbs-l2 --quick --oracle

``--oracle`` asks where the remaining error on glossy objects comes from: it gives the diffuse-line
reconstruction the renders' true albedo saturation (and that saturation off by a factor), and
compares the estimate with the truth.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from huebench.benchmarks.gencolor.diagnostic import Diagnostic
from huebench.benchmarks.gencolor.render import OBJECTS
from huebench.benchmarks.gencolor.scoring import ColorScorer


def renders(system: str, quick: bool, cache: Path) -> tuple[list[dict], np.ndarray, np.ndarray]:
    bench = Diagnostic(system=system, quick=quick)
    samples = bench.samples()
    meta = [s.inputs | {"id": s.id, "far": bench._far_color(s.inputs["color"])} for s in samples]
    if cache.exists():
        z = np.load(cache)
        return meta, z["images"], z["masks"]
    rendered = [bench.render_sample(s) for s in samples]
    imgs, masks = np.stack([r[0] for r in rendered]), np.stack([r[1] for r in rendered])
    np.savez_compressed(cache, images=imgs, masks=masks)
    return meta, imgs, masks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--system", default="iscc-nbs-l2")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cache", default="/tmp/huebench-scorer-study.npz")
    ap.add_argument("--oracle", action="store_true", help="the saturation study instead of the rules")
    args = ap.parse_args()
    meta, imgs, masks = renders(args.system, args.quick, Path(args.cache + f".{args.system}.{int(args.quick)}.npz"))
    if args.oracle:
        saturation_oracle(args.system, meta, imgs, masks)
        return
    # the rules before the Fresnel veil (fresnel=None), then the veil and its two settings
    before = dict(fresnel=None, smooth=0)
    rules = {
        "lit window (0.7, 0.97)": dict(before, specular=None, lightness_window=(0.7, 0.97)),
        "saturated half + lit window": dict(before, specular="top", lightness_window=(0.7, 0.97)),
        "specular floor removed + lit window": dict(before, specular="dichromatic", lightness_window=(0.7, 0.97)),
        "floor + line q90, (.7,.97)": dict(before, specular="dichromatic+envelope90", lightness_window=(0.7, 0.97)),
        "floor + line q90, (.85,.99), floor ≥ .15": dict(before, floor_min_saturation=0.15),
        "floor + line q90, (.85,.99), floor ≥ .4": dict(before),
        "floor + line q90, (.85,.99), floor ≥ .6": dict(before, floor_min_saturation=0.6),
        "floor + line q90, (.85,.99), σ 1": dict(before, smooth=1.0),
        "floor + line q90, (.85,.99), σ 1.5": dict(before, smooth=1.5),
        "floor + line q90, (.8,.97), σ 1": dict(before, lightness_window=(0.8, 0.97), smooth=1.0),
        "veil F0 .03 + line q90": dict(fresnel=0.03),
        "veil F0 .04 + line q90 (default)": {},
        "veil F0 .05 + line q90": dict(fresnel=0.05),
        "veil + line q95": dict(specular="dichromatic+envelope95"),
        "veil, gloss test .93": dict(gloss_uniformity=0.93),
        "veil, gloss test .97": dict(gloss_uniformity=0.97),
    }
    for name, kw in rules.items():
        scorer = ColorScorer(args.system, **kw)
        t = time.perf_counter()
        ok, far, kinds, veiled = [], [], [], 0
        for m, img, mask in zip(meta, imgs, masks, strict=True):
            score = scorer.score_image(img, m["color"], mask=mask)[0]
            ok.append(score.passed)
            veiled += score.veil is not None
            far.append(scorer.score_image(img, m["far"], mask=mask)[0].passed)
            kinds.append(OBJECTS[m["object"]].material)
        ok, far, kinds = np.array(ok), np.array(far), np.array(kinds)
        per = {k: 100 * ok[kinds == k].mean() for k in sorted(set(kinds))}
        print(
            f"{name:40s} accuracy {100 * ok.mean():6.2f} %  "
            + "  ".join(f"{k} {v:5.1f}" for k, v in per.items())
            + f"  far accepts {100 * far.mean():.2f} %  veil on {veiled}"
            + f"  ({len(ok)} renders, {time.perf_counter() - t:.1f} s)"
        )
    flat_noise(args.system)


def saturation_oracle(system: str, meta: list[dict], imgs: np.ndarray, masks: np.ndarray) -> None:
    """Glossy renders of chromatic colours (those the reconstruction corrects): accuracy when the
    reconstruction is given the true albedo saturation × f, and how far the estimates are from it —
    the fitted floor's (the default before the Fresnel veil) and the default's."""
    from scipy import ndimage

    from huebench.benchmarks.gencolor.scoring import (
        albedo_saturation,
        diffuse_reconstruction,
        remove_specular,
        remove_veil,
        specular_veil,
    )
    from huebench.color import srgb_to_linear

    scorer = ColorScorer(system, specular=None, fresnel=None)  # the reconstruction is applied here, by hand
    default, before = ColorScorer(system), ColorScorer(system, fresnel=None)
    rows = []
    for m, img, mask in zip(meta, imgs, masks, strict=True):
        if OBJECTS[m["object"]].material != "plastic":
            continue
        px = img[ndimage.binary_erosion(mask, iterations=scorer.erode)]
        fitted = albedo_saturation(remove_specular(px), quantile=0.9)
        if fitted is None:  # achromatic or flat: the scorer leaves these pixels alone
            continue
        veil = specular_veil(img, mask)
        estimate = fitted if veil is None else albedo_saturation(remove_veil(px, veil), quantile=0.9)
        a = srgb_to_linear(np.asarray(m["rgb"], dtype=np.float64) / 255.0)
        truth = float(np.linalg.norm(a - a.mean()) / a.mean())
        rows.append((m, img, mask, px, truth, fitted, estimate))
    print(f"{len(rows)} glossy renders of chromatic colours ({system})")
    ok = [before.score_image(img, m["color"], mask=k)[0].passed for m, img, k, *_ in rows]
    print(f"  fitted floor (before the veil):     {100 * np.mean(ok):6.2f} % correct")
    ok = [default.score_image(img, m["color"], mask=k)[0].passed for m, img, k, *_ in rows]
    print(f"  default (Fresnel veil when glossy): {100 * np.mean(ok):6.2f} % correct")
    for f in (0.9, 0.95, 0.97, 1.0, 1.03, 1.05, 1.08, 1.1):
        ok = [
            scorer.score_pixels(diffuse_reconstruction(px, saturation=f * truth), m["color"]).passed
            for m, _, _, px, truth, _, _ in rows
        ]
        print(f"  true saturation × {f:<4}: {100 * np.mean(ok):6.2f} % correct")
    for name, col in (("fitted floor", 5), ("default", 6)):
        ratio = np.array([r[col] / r[4] for r in rows if r[col] is not None])
        q = np.quantile(ratio, [0.05, 0.25, 0.5, 0.75, 0.95])
        inside = 100 * np.mean((ratio >= 0.97) & (ratio <= 1.05))
        print(
            f"  {name} estimate / truth: 5/25/50/75/95 % quantiles "
            + " ".join(f"{v:.3f}" for v in q)
            + f"; within [0.97, 1.05]: {inside:.1f} %"
        )


def flat_noise(system: str) -> None:
    """Flat patches of every colour with i.i.d. pixel noise: no lit side, no specular — the
    defaults must not mistake noise for either."""
    from huebench.color import load_system

    for name, kw in {"defaults": {}, "without the specular steps": {"specular": None}}.items():
        scorer = ColorScorer(system, **kw)
        rng = np.random.default_rng(0)
        for sigma in (2, 4, 6):
            ok = [
                scorer.score_pixels(
                    np.clip(np.array(c.rgb) + rng.normal(0, sigma, (2000, 3)), 0, 255).astype(np.uint8), c.name
                ).passed
                for c in load_system(system)
            ]
            print(f"flat patches, noise σ {sigma}: {name:34s} {100 * np.mean(ok):6.2f} % pass")


if __name__ == "__main__":
    main()
