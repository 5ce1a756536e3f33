"""Colour pipeline on a 4-megapixel image: sRGB (8-bit) → CIELAB → CIEDE2000, three ways.

huebench's own vectorised NumPy code (float64 and float32) against colour-science and
scikit-image, measured side by side in one run (best of ``--repeat`` runs each), with the
largest disagreement of each against huebench float64. Run:

    python perf/bench_color.py [--size 2000] [--repeat 3] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
import warnings
from collections.abc import Callable

import numpy as np

from huebench import color

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import colour
    import skimage
    from skimage.color import deltaE_ciede2000, rgb2lab


def _best(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=2000, help="image side (2000 → 4 MP)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, size=(args.size, args.size, 3), dtype=np.uint8)
    ref = np.array([185, 40, 66], dtype=np.uint8)  # ISCC-NBS "Red"
    ref_lab = color.srgb_to_lab(ref)

    def ours64():
        lab = color.srgb_to_lab(img)
        return lab, color.delta_e(lab, ref_lab)

    def ours32():
        lab = color.srgb_to_lab(img.astype(np.float32) / np.float32(255.0))
        return lab, color.delta_e(lab, ref_lab.astype(np.float32))

    def colour_science():
        lab = colour.XYZ_to_Lab(colour.sRGB_to_XYZ(img / 255.0))
        return lab, colour.delta_E(lab, colour.XYZ_to_Lab(colour.sRGB_to_XYZ(ref / 255.0)), method="CIE 2000")

    def scikit_image():
        lab = rgb2lab(img)
        return lab, deltaE_ciede2000(lab, np.broadcast_to(rgb2lab(ref[None, None, :])[0, 0], lab.shape))

    # ΔE00 alone on the same Lab input isolates the metric from the conversion constants.
    lab_in = color.srgb_to_lab(img)
    ref_b = np.broadcast_to(ref_lab, lab_in.shape)

    rows = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in [
            ("huebench float64", ours64),
            ("huebench float32", ours32),
            ("colour-science", colour_science),
            ("scikit-image", scikit_image),
        ]:
            t, (lab, de) = _best(fn, args.repeat)  # type: ignore[misc]
            rows[name] = {"seconds": t, "lab": lab, "de": de}
        t_de = {
            "huebench float64": _best(lambda: color.delta_e(lab_in, ref_b), args.repeat),
            "colour-science": _best(lambda: colour.delta_E(lab_in, ref_b, method="CIE 2000"), args.repeat),
            "scikit-image": _best(lambda: deltaE_ciede2000(lab_in, ref_b), args.repeat),
        }

    base = rows["huebench float64"]
    mp = args.size * args.size / 1e6
    report = {
        "image": f"{args.size}x{args.size} ({mp:.1f} MP), uint8 sRGB",
        "machine": f"{platform.processor() or platform.machine()}, numpy {np.__version__}, colour {colour.__version__}, skimage {skimage.__version__}",
        "pipeline": {},
        "ciede2000_only": {},
    }
    print(f"sRGB→Lab→ΔE00 on {report['image']}, best of {args.repeat}")
    print(f"{'implementation':<20}{'seconds':>9}{'MP/s':>8}{'speed-up vs it':>16}{'max |ΔLab|':>12}{'max |ΔΔE|':>11}")
    for name, r in rows.items():
        dlab = float(np.abs(r["lab"] - base["lab"]).max())
        dde = float(np.abs(r["de"] - base["de"]).max())
        speed = r["seconds"] / base["seconds"]
        report["pipeline"][name] = {
            "seconds": r["seconds"],
            "mp_per_s": mp / r["seconds"],
            "huebench_speedup": speed,
            "max_abs_lab_diff": dlab,
            "max_abs_de_diff": dde,
        }
        print(f"{name:<20}{r['seconds']:>9.3f}{mp / r['seconds']:>8.1f}{speed:>15.2f}x{dlab:>12.2e}{dde:>11.2e}")
    print("\nCIEDE2000 alone, identical Lab input")
    de_base = t_de["huebench float64"][1]
    for name, (t, de) in t_de.items():
        diff = float(np.abs(np.asarray(de) - de_base).max())
        speed = t / t_de["huebench float64"][0]
        report["ciede2000_only"][name] = {"seconds": t, "huebench_speedup": speed, "max_abs_de_diff": diff}
        print(f"{name:<20}{t:>9.3f}{'':>8}{speed:>15.2f}x{'':>12}{diff:>11.2e}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)


if __name__ == "__main__":
    main()
