"""Which scorer settings hold on every kind of image? Leave-one-family-out tables.

Builds the diagnostic's known-colour images of every family once (cached in an .npz), then scores
them (exact masks) under each value of each scorer setting and prints

1. accuracy per family for every value (and far-colour false accepts), and
2. for every setting, a **leave-one-family-out** table: for each family held out, the value that
   the *other* families choose (best worst-family accuracy, ties broken by their mean) and its
   accuracy on the held-out family, beside the default's. A value that wins on some families by
   losing on another is visible here, and it is not a default.

    python benchmarks/scorer_study.py --quick                       # ISCC-NBS L2, 48 px
    python benchmarks/scorer_study.py --quick --system css3
    python benchmarks/scorer_study.py --quick --setting fresnel     # one setting only

docs/gencolor.md shows the tables.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from huebench.benchmarks.gencolor.diagnostic import Diagnostic
from huebench.benchmarks.gencolor.scoring import ColorScorer

#: each setting and the values tried; the first value listed is not special — the default is
#: whatever ColorScorer's default is, marked in the output
SETTINGS: dict[str, dict[str, dict[str, Any]]] = {
    "fresnel": {
        "none": {"fresnel": None},
        "0.03": {"fresnel": 0.03},
        "0.04": {"fresnel": 0.04},
        "0.05": {"fresnel": 0.05},
    },
    "gloss_uniformity": {f"{v}": {"gloss_uniformity": v} for v in (0.9, 0.93, 0.955, 0.97)},
    "gloss_smooth": {f"{v}": {"gloss_smooth": v} for v in (0.0, 1.0, 1.5, 2.5)},
    "envelope": {
        "q75": {"specular": "dichromatic+envelope75"},
        "q90": {"specular": "dichromatic+envelope90"},
        "q95": {"specular": "dichromatic+envelope95"},
        "none": {"specular": "dichromatic"},
    },
    "lightness_window": {
        "(.7,.97)": {"lightness_window": (0.7, 0.97)},
        "(.85,.99)": {"lightness_window": (0.85, 0.99)},
        "(.8,.98)": {"lightness_window": (0.8, 0.98)},
        "(.9,.995)": {"lightness_window": (0.9, 0.995)},
    },
    "max_chroma_excess": {f"{v}": {"max_chroma_excess": v} for v in (None, 2.0, 5.0, 10.0)},
    "main_color": {f"{v}": {"main_color": v} for v in (None, 0.7, 0.5)},
    "rim_ratio": {f"{v}": {"rim_ratio": v} for v in (None, 0.93, 0.95, 0.97)},
}


def build(system: str, quick: bool, cache: Path) -> tuple[list[dict[str, Any]], list[np.ndarray], list[np.ndarray]]:
    bench = Diagnostic(system=system, quick=quick)
    samples = bench.samples()
    if cache.exists():
        z = np.load(cache, allow_pickle=False)
        n = len(samples)
        meta = [
            dict(s.inputs, id=s.id, target=str(z["targets"][i]), far=str(z["fars"][i])) for i, s in enumerate(samples)
        ]
        return meta, [z[f"i{i}"] for i in range(n)], [z[f"m{i}"] for i in range(n)]
    from huebench.color import parse

    imgs, masks, targets, fars = [], [], [], []
    for s in samples:
        known = bench.known_image(s)
        target = bench.target_of(s, known.truth)
        imgs.append(known.image)
        masks.append(known.mask)
        targets.append(target)
        fars.append(bench._far_color(s.id, parse(target).lab))
    arrays = {f"i{i}": a for i, a in enumerate(imgs)} | {f"m{i}": m for i, m in enumerate(masks)}
    np.savez_compressed(cache, targets=np.array(targets), fars=np.array(fars), **arrays)
    meta = [dict(s.inputs, id=s.id, target=t, far=f) for s, t, f in zip(samples, targets, fars, strict=True)]
    return meta, imgs, masks


_DATA: dict[str, Any] = {}


def _score_chunk(args: tuple[str, dict[str, Any], list[int]]) -> list[tuple[bool, bool]]:
    system, options, idx = args
    meta, imgs, masks = _DATA["data"]
    scorer = ColorScorer(system, **options)
    out = []
    for i in idx:
        ok = scorer.score_image(imgs[i], meta[i]["target"], mask=masks[i])[0].passed
        far = scorer.score_image(imgs[i], meta[i]["far"], mask=masks[i])[0].passed
        out.append((ok, far))
    return out


def score_all(pool: ProcessPoolExecutor, system: str, options: dict[str, Any], n: int) -> np.ndarray:
    chunks = [list(range(i, min(i + 200, n))) for i in range(0, n, 200)]
    rows = [r for part in pool.map(_score_chunk, [(system, options, c) for c in chunks]) for r in part]
    return np.array(rows, dtype=bool)


def lofo(acc: dict[str, dict[str, float]], families: list[str], default: str) -> list[tuple[str, str, float, float]]:
    """For each held-out family: (family, value chosen on the others, its accuracy there, the default's)."""
    rows = []
    for held in families:
        others = [f for f in families if f != held]
        chosen = max(acc, key=lambda v: (min(acc[v][f] for f in others), np.mean([acc[v][f] for f in others])))
        rows.append((held, chosen, acc[chosen][held], acc[default][held]))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--system", default="iscc-nbs-l2")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cache", default="/tmp/huebench-families")
    ap.add_argument("--setting", action="append", help="only these settings (default: all)")
    ap.add_argument("--variant", action="append", default=[], help="NAME=python-dict of options: an extra row")
    args = ap.parse_args()
    t0 = time.perf_counter()
    data = build(args.system, args.quick, Path(f"{args.cache}.{args.system}.{int(args.quick)}.npz"))
    _DATA["data"] = data
    meta = data[0]
    fam = np.array([m["family"] for m in meta])
    families = sorted(set(fam))
    print(
        f"{len(meta)} images ({', '.join(f'{f} {int((fam == f).sum())}' for f in families)}) in {time.perf_counter() - t0:.0f} s"
    )
    defaults = ColorScorer(args.system).config()
    with ProcessPoolExecutor(
        max_workers=os.cpu_count() or 2, initializer=_DATA.update, initargs=({"data": data},)
    ) as pool:

        def table(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
            acc = {}
            for name, options in rows.items():
                res = score_all(pool, args.system, options, len(meta))
                acc[name] = {f: 100 * res[fam == f, 0].mean() for f in families}
                worst = min(acc[name].values())
                print(
                    f"  {name:28s} "
                    + " ".join(f"{f} {acc[name][f]:6.2f}" for f in families)
                    + f" | worst {worst:6.2f} | far accepts {100 * res[:, 1].mean():.2f} %"
                )
            return acc

        if args.variant:
            print("variants")
            table({v.split("=", 1)[0]: eval(v.split("=", 1)[1]) for v in args.variant})
        for setting, values in SETTINGS.items():
            if args.setting and setting not in args.setting:
                continue
            default = next(
                (
                    k
                    for k, o in values.items()
                    if all(
                        defaults.get(kk) == vv or (kk == "lightness_window" and tuple(defaults[kk] or ()) == vv)
                        for kk, vv in o.items()
                    )
                ),
                None,
            )
            print(f"\n{setting} (default: {default})")
            acc = table(values)
            if default is None:
                continue
            print(
                f"  leave one family out — {setting}: held-out family, value the others choose, its accuracy there, the default's"
            )
            for held, chosen, a, d in lofo(acc, families, default):
                print(f"    {held:12s} {chosen:12s} {a:6.2f}   default {d:6.2f}")


if __name__ == "__main__":
    main()
