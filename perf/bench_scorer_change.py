"""The cost of a scorer change, side by side in one process: the default scorer against one with
``--against`` options (an earlier version's), on the quick ISCC-NBS L2 family images and one
1-megapixel object (ratios, not absolute targets; docs/performance.md).

    python perf/bench_scorer_change.py --against '{"curve_turn": null}' [--family tonemapped]
    python perf/bench_scorer_change.py --against '{"floor_curve_turn": null}'   # version 23
    python perf/bench_scorer_change.py --against '{"line_band": null, "floor_curve_turn": null}' --numpy-floor   # version 22 as it ran

Per round, best of ``--passes`` passes per scorer, the two alternating in turn; the 1 MP image
(``bench_harness``'s analytic sphere) on one numba thread, the small images on numba's default. The images are ``scorer_study``'s
cached family images (built on first use).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scorer_study
from bench_harness import _one_megapixel_object

from huebench.benchmarks.gencolor.scoring import SCORER_VERSION, ColorScorer
from huebench.color import _kernels, reflectance
from huebench.errors import HuebenchError


@contextmanager
def numpy_floor() -> Iterator[None]:
    """``reflectance.darker_floor`` on its NumPy steps for the length of the block, as version 22
    read it before the floor was compiled (version 23; the same values)."""
    kernel = _kernels.darker_floor

    def numpy_steps(
        image: Any, depth: Any, interior: int, table: Any, clipped: int, share: float, max_pixels: int
    ) -> Any:
        return reflectance._darker_floor_numpy(image, depth, interior, share)

    _kernels.darker_floor = numpy_steps
    try:
        yield
    finally:
        _kernels.darker_floor = kernel


def pass_seconds(scorer: ColorScorer, data: Any) -> float:
    """One pass of ``scorer`` over the images of ``data`` (scorer_study.build's triple), seconds."""
    meta, imgs, masks = data
    start = time.perf_counter()
    for m, img, mask in zip(meta, imgs, masks, strict=True):
        scorer.score_image(img, m["target"], mask=mask)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", required=True, help="JSON options of the scorer to compare with the default")
    ap.add_argument("--family", action="append", default=[], help="held-out families to time besides the five")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--passes", type=int, default=8)
    ap.add_argument("--cache", default=scorer_study.CACHE)
    ap.add_argument(
        "--numpy-floor",
        action="store_true",
        help="the --against scorer reads the darker pixels' floor on NumPy's path (version 22 as it ran)",
    )
    args = ap.parse_args()
    try:
        options = json.loads(args.against)
        scorers = {"against": ColorScorer("iscc-nbs-l2", **options), "default": ColorScorer("iscc-nbs-l2")}
    except (json.JSONDecodeError, TypeError, HuebenchError) as e:
        ap.error(f"--against must be a JSON object of ColorScorer options: {e}")
    study = argparse.Namespace(system="iscc-nbs-l2", quick=True, cache=args.cache, size=None, spp=None)
    sets = {"the five families": scorer_study.every_family_images(study, ["all"])}
    if args.family:
        sets[" + ".join(args.family)] = scorer_study.every_family_images(study, args.family)
    image, mask, target = _one_megapixel_object()
    try:
        import numba
    except ImportError:
        numba = None

    def one_mp(scorer: ColorScorer) -> float:
        """One call on the 1 MP image, on one numba thread (as bench_harness times it)."""
        threads = numba.get_num_threads() if numba is not None else None
        if numba is not None:
            numba.set_num_threads(1)
        try:
            start = time.perf_counter()
            scorer.score_image(image, target, mask=mask)
            return time.perf_counter() - start
        finally:
            if threads is not None:
                numba.set_num_threads(threads)

    def as_run(k: str) -> Any:
        return numpy_floor() if args.numpy_floor and k == "against" else nullcontext()

    for k, s in scorers.items():  # first calls pay for imports, caches and compilation: warm both alike
        with as_run(k):
            one_mp(s)
            for data in sets.values():
                pass_seconds(s, data)
    floor = ", its darker floor on NumPy's path" if args.numpy_floor else ""
    print(
        f"the default (version {SCORER_VERSION}) against {options}{floor}, best of {args.passes} alternating passes "
        "per round"
    )
    for r in range(args.rounds):
        best = {k: {**dict.fromkeys(sets, float("inf")), "1 MP": float("inf")} for k in scorers}
        for p in range(args.passes):
            for k in ("against", "default") if p % 2 == 0 else ("default", "against"):
                with as_run(k):
                    for name, data in sets.items():
                        best[k][name] = min(best[k][name], pass_seconds(scorers[k], data))
                    best[k]["1 MP"] = min(best[k]["1 MP"], one_mp(scorers[k]))
        cells = []
        for name, data in sets.items():
            before, after = len(data[1]) / best["against"][name], len(data[1]) / best["default"][name]
            cells.append(f"{name} {before:.0f} → {after:.0f} images/s ({after / before:.2f}×)")
        ms = {k: 1000 * best[k]["1 MP"] for k in scorers}
        cells.append(f"1 MP {ms['against']:.1f} → {ms['default']:.1f} ms ({ms['against'] / ms['default']:.2f}×)")
        print(f"round {r + 1}: " + "; ".join(cells), flush=True)


if __name__ == "__main__":
    main()
