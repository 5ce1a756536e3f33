"""The offline segmentation against an earlier commit's, side by side in one run: the same images,
the same process, passes interleaved (a speed change to ``segment_offline`` is measured here).

    python perf/bench_segmentation.py --against 925ce1e~1 [--repeat 5]

The earlier ``huebench/benchmarks/gencolor/scoring.py`` is read from git and loaded as its own
module (its imports resolve to this checkout's other modules: only the scoring module differs).
Prints images/s on 120 renders (64 px) and ms on the 1 MP object for each (the fastest pass),
their ratio, and whether the two give the same masks on every image. The ratio on the renders
moves from run to run on a shared machine (a few ms per pass): run it more than once."""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_harness import _one_megapixel_object

from huebench.benchmarks.gencolor import scoring
from huebench.errors import HuebenchError


def _earlier(commit: str) -> Any:
    """The scoring module as ``commit`` had it; a commit git does not know is a HuebenchError."""
    root = Path(__file__).resolve().parents[1]
    shown = subprocess.run(
        ["git", "show", f"{commit}:huebench/benchmarks/gencolor/scoring.py"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    if shown.returncode != 0:
        why = (shown.stderr.strip().splitlines() or ["no output"])[0]
        raise HuebenchError(
            f"--against {commit}: git cannot show its scoring.py ({why}); give a commit of this repository"
        )
    src = shown.stdout
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "earlier_scoring.py"
        path.write_text(src)
        spec = importlib.util.spec_from_file_location("earlier_scoring", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", required=True, help="the commit whose segment_offline to compare with")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved passes; the fastest counts")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error(f"--repeat {args.repeat}: give at least 1 pass")
    from huebench.benchmarks.gencolor.render import OBJECTS, RenderSpec, render
    from huebench.color import load_system

    try:
        earlier = _earlier(args.against)
    except HuebenchError as e:
        ap.error(str(e))
    l2 = load_system("iscc-nbs-l2")
    renders = [render(RenderSpec(obj, c.rgb, size=64, spp=8))[0] for c in list(l2)[:8] for obj in OBJECTS]
    big, _, _ = _one_megapixel_object()
    versions = {"this checkout": scoring.segment_offline, args.against: earlier.segment_offline}
    same = all(
        (a is None and b is None) or (a is not None and b is not None and (a == b).all())
        for img in [*renders, big]
        for a, b in [(scoring.segment_offline(img), earlier.segment_offline(img))]
    )
    best: dict[str, list[float]] = {name: [float("inf"), float("inf")] for name in versions}
    for i in range(args.repeat):
        # each pass in the other order: neither version always runs on a warmer cache
        for name, segment in list(versions.items())[:: 1 if i % 2 == 0 else -1]:
            t = time.perf_counter()
            for img in renders:
                segment(img)
            best[name][0] = min(best[name][0], time.perf_counter() - t)
            t = time.perf_counter()
            segment(big)
            best[name][1] = min(best[name][1], time.perf_counter() - t)
    for name, (small, one_mp) in best.items():
        print(
            f"{name}: {len(renders) / small:.0f} images/s on {len(renders)} renders (64 px), {1000 * one_mp:.0f} ms on the 1 MP image"
        )
    (a_small, a_mp), (b_small, b_mp) = best.values()
    print(
        f"this checkout takes {a_small / b_small:.2f}× the time on the renders and {a_mp / b_mp:.2f}× on the 1 MP image; "
        f"the same masks on every image: {same}"
    )


if __name__ == "__main__":
    main()
