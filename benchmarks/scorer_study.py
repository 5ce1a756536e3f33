"""Which pixels should the dominant colour come from? A study on the known-colour renders.

Renders the diagnostic set once (cached in an .npz), then scores every render with exact masks
under several pixel-selection rules and prints accuracy per rule, for diffuse and glossy objects
separately, and the far-colour false-accept rate. Evidence for ``scoring.py``'s defaults:

    python benchmarks/scorer_study.py --system iscc-nbs-l2 --quick
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from huebench.benchmarks.gencolor.diagnostic import Diagnostic, _pick
from huebench.benchmarks.gencolor.render import OBJECTS, RenderSpec, render
from huebench.benchmarks.gencolor.scoring import ColorScorer


def renders(system: str, quick: bool, cache: Path) -> tuple[list[dict], np.ndarray, np.ndarray]:
    bench = Diagnostic(system=system, quick=quick)
    samples = bench.samples()
    if cache.exists():
        z = np.load(cache)
        return (
            [s.inputs | {"id": s.id, "far": bench._far_color(s.inputs["color"])} for s in samples],
            z["images"],
            z["masks"],
        )
    imgs, masks, meta = [], [], []
    for s in samples:
        i = s.inputs
        img, m = render(
            RenderSpec(
                i["object"],
                tuple(i["rgb"]),
                i["lighting"],
                i["background"],
                bench.size,
                bench.spp,
                seed=_pick(0, s.id) % 100000,
            )
        )
        imgs.append(img)
        masks.append(m)
        meta.append(i | {"id": s.id, "far": bench._far_color(i["color"])})
    np.savez_compressed(cache, images=np.stack(imgs), masks=np.stack(masks))
    return meta, np.stack(imgs), np.stack(masks)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--system", default="iscc-nbs-l2")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cache", default="/tmp/huebench-scorer-study.npz")
    args = ap.parse_args()
    meta, imgs, masks = renders(args.system, args.quick, Path(args.cache + f".{args.system}.{int(args.quick)}.npz"))
    rules = {
        "lit window (0.7, 0.97)": dict(specular=None),
        "diffuse mode + lit window": dict(specular="mode"),
        "saturated half + lit window": dict(specular="top"),
        "specular floor removed + lit window": dict(specular="dichromatic"),
        "floor removed + saturated half + lit": dict(specular="dichromatic+top"),
    }
    for name, kw in rules.items():
        scorer = ColorScorer(args.system, **kw)
        t = time.perf_counter()
        ok, far, kinds = [], [], []
        for m, img, mask in zip(meta, imgs, masks, strict=True):
            ok.append(scorer.score_image(img, m["color"], mask=mask)[0].passed)
            far.append(scorer.score_image(img, m["far"], mask=mask)[0].passed)
            kinds.append(OBJECTS[m["object"]].material)
        ok, far, kinds = np.array(ok), np.array(far), np.array(kinds)
        per = {k: 100 * ok[kinds == k].mean() for k in sorted(set(kinds))}
        print(
            f"{name:32s} accuracy {100 * ok.mean():6.2f} %  "
            + "  ".join(f"{k} {v:5.1f}" for k, v in per.items())
            + f"  far accepts {100 * far.mean():.2f} %  ({len(ok)} renders, {time.perf_counter() - t:.1f} s)"
        )


if __name__ == "__main__":
    main()
