"""Changes to the scorer's physics tried after version 19 and not adopted: the evidence, runnable.

Each trial replaces one step of the scorer (the albedo-saturation estimate of the diffuse line, the
gloss test, the veil's light) for the length of a run, then scores every image of the tuning
families and the held-out ones (``rendered`` apart: it is kept unseen) paired against the
default, as ``scorer_study.py --paired`` does for the scorer's options:

    python perf/scorer_trials.py --quick --trial mode --trial skew-switch-1.5
    python perf/scorer_trials.py --quick --system css3 --trial mode
    python perf/scorer_trials.py --list
    python perf/scorer_trials.py --quick --estimators   # q90, mode and median against the truth
    python perf/scorer_trials.py --quick --white        # the white on path-traced plastic, per light

The trials replace NumPy code paths, so the run sets ``HUEBENCH_NO_NUMBA`` (the kernels compute the
same values as those paths; docs/performance.md). Options the scorer takes (``max_chroma_excess``,
``fresnel``, …) are ``scorer_study.py --paired``'s. docs/gencolor.md shows the tables.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

os.environ["HUEBENCH_NO_NUMBA"] = "1"  # before huebench is imported: the trials replace NumPy paths

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scorer_study

from huebench import stats
from huebench.benchmarks.gencolor import scoring
from huebench.color import reflectance
from huebench.color.conversions import RGB_TO_XYZ, srgb8_to_linear


def half_sample_mode(values: np.ndarray) -> float:
    """The half-sample mode (Bickel and Frühwirth): repeatedly keep the densest half of the sorted
    values (the shortest window holding half of them) until three are left."""
    x = np.sort(np.asarray(values, dtype=np.float64))
    while len(x) > 3:
        half = (len(x) + 1) // 2
        widths = x[half - 1 :] - x[: len(x) - half + 1]
        start = int(np.argmin(widths))
        x = x[start : start + half]
    if len(x) == 3:
        low, high = x[1] - x[0], x[2] - x[1]
        return float(x[:2].mean() if low < high else x[1:].mean() if low > high else x[1])
    return float(x.mean())


def skew(values: np.ndarray) -> float:
    """How much longer the upper tail is than the lower: (q90 − q50) / (q50 − q10). Reflected white
    only lowers saturation, so a surface's reflections make the lower tail the long one."""
    q10, q50, q90 = np.quantile(values, [0.1, 0.5, 0.9])
    return float((q90 - q50) / max(q50 - q10, 1e-9))


def line_saturation(
    rule: Callable[[float, np.ndarray], float], *, glossy_only: bool = True, flat: float = 1.25
) -> None:
    """The diffuse line's albedo saturation from ``rule(quantile_value, saturations)`` — on glossy
    surfaces (the 0.9 quantile) only, or with ``glossy_only=False`` on matte ones (the median) only —
    the pixels chosen as the package chooses them; ``flat``: its flat-patch range test."""
    default = reflectance._saturation_from_fit

    def saturation(fit: Any, quantile: float) -> float | None:
        if (quantile >= 0.85) != glossy_only:
            return default(fit, quantile)
        grey, perp, use = fit.grey, fit.perp, fit.use
        sat = perp / np.maximum(grey, 1e-6)
        lo, hi = stats.quantile(grey[use], [0.1, 0.9])
        if hi < flat * lo:
            return None
        sat = sat[use & (sat >= 0.5 * stats.median(sat[use]))]
        return rule(float(stats.quantile(sat, quantile)), sat)

    reflectance._saturation_from_fit = saturation


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][min(int(np.searchsorted(cumulative / cumulative[-1], q)), len(values) - 1)])


def weighted_line(power: int) -> None:
    """The glossy line's 0.9 quantile weighted by the pixels' grey component to ``power``: bright
    pixels carry less noise in their saturation."""
    default = reflectance._saturation_from_fit

    def saturation(fit: Any, quantile: float) -> float | None:
        if quantile < 0.85 or default(fit, quantile) is None:
            return default(fit, quantile)
        grey, perp, use = fit.grey, fit.perp, fit.use
        sat = perp / np.maximum(grey, 1e-6)
        use = use & (sat >= 0.5 * stats.median(sat[use]))
        return weighted_quantile(sat[use], grey[use] ** power, quantile)

    reflectance._saturation_from_fit = saturation


def interior_saturations(image: np.ndarray, depth: np.ndarray) -> np.ndarray | None:
    """Saturations of the unclipped pixels more than two in from the mask's edge, the darkest
    tenth left out (None: fewer than 20)."""
    px = image[depth > 2]
    px = px[(px < reflectance.CLIPPED).all(axis=1)]
    lin = srgb8_to_linear(px)
    grey = lin.mean(axis=1)
    keep = grey > np.quantile(grey, 0.1) if len(grey) else grey > 0
    lin, grey = lin[keep], grey[keep]
    if len(grey) < 20:
        return None
    return np.linalg.norm(lin - grey[:, None], axis=1) / np.maximum(grey, 1e-6)


def gloss_test(extra: Callable[[bool, np.ndarray, np.ndarray, np.ndarray], bool]) -> None:
    """The gloss test's answer passed through ``extra(answer, image, mask, depth)``."""
    default = scoring.ColorScorer.looks_glossy

    def looks_glossy(self: Any, image: np.ndarray, mask: np.ndarray, depth: np.ndarray) -> bool:
        return extra(default(self, image, mask, depth), image, mask, depth)

    scoring.ColorScorer.looks_glossy = looks_glossy  # type: ignore[method-assign]


def skewed_is_matte(limit: float) -> Callable[[bool, np.ndarray, np.ndarray, np.ndarray], bool]:
    def extra(glossy: bool, image: np.ndarray, mask: np.ndarray, depth: np.ndarray) -> bool:
        sat = interior_saturations(image, depth) if glossy else None
        return glossy and (sat is None or skew(sat) <= limit)

    return extra


def rim_is_glossy(glossy: bool, image: np.ndarray, mask: np.ndarray, depth: np.ndarray) -> bool:
    rim = reflectance.rim_saturation(image, mask, depth=depth)
    return glossy or (rim is not None and rim < (reflectance.RIM_RATIO or 0.0))


def veil_without_gloss_test() -> None:
    """The veil wherever the rim shows reflected surroundings, whatever the gloss test says."""
    default = scoring.specular_veil

    def veil(image: np.ndarray, mask: np.ndarray, *, glossy: bool | None = None, **kw: Any) -> Any:
        return default(image, mask, glossy=True if glossy is False else glossy, **kw)

    scoring.specular_veil = veil


def light_veil(top_albedo: float) -> None:
    """The veil's light: the larger of the surroundings' radiance and the least light the lit
    surface implies (its lit pixels' largest channel over ``top_albedo`` + F0): under even light a
    dielectric mirrors the light that lights it, which a dark backdrop does not show."""
    default = reflectance.surround_radiance

    def radiance(image: np.ndarray, mask: np.ndarray, **kw: Any) -> Any:
        around = default(image, mask, **kw)
        px = image[np.asarray(mask, dtype=bool)]
        lin = srgb8_to_linear(px[(px < reflectance.CLIPPED).all(axis=1)])
        if around is None or len(lin) < 20:
            return around
        lum = lin @ RGB_TO_XYZ[1]
        lit = lin[lum >= np.quantile(lum, 0.85)]
        return np.maximum(around, float(np.median(lit.max(axis=1))) / (top_albedo + reflectance.F0_DIELECTRIC))

    reflectance.surround_radiance = radiance


def upper_mode(q: float, sat: np.ndarray) -> float:
    return half_sample_mode(sat[sat >= np.quantile(sat, 0.25)])


def skew_switch(limit: float) -> Callable[[float, np.ndarray], float]:
    return lambda q, sat: upper_mode(q, sat) if skew(sat) > limit else q


def quantile_of_glossy(q: float) -> None:
    scoring.DIFFUSE_QUANTILE = q  # read at each call of ColorScorer.specular_steps


#: name → (what it changes, how)
TRIALS: dict[str, tuple[str, Callable[[], None]]] = {
    "mode": (
        "glossy line: the half-sample mode of the saturations instead of their 0.9 quantile",
        lambda: line_saturation(lambda q, sat: half_sample_mode(sat)),
    ),
    "upper-mode": (
        "glossy line: the half-sample mode of the upper three quarters",
        lambda: line_saturation(upper_mode),
    ),
    **{
        f"skew-switch-{limit:g}": (
            f"glossy line: the upper mode where the upper tail is over {limit:g}× the lower (skew), else q90",
            lambda limit=limit: line_saturation(skew_switch(limit)),
        )
        for limit in (1.0, 1.5, 2.0)
    },
    **{
        f"weighted-q90-{power}": (
            f"glossy line: q90 weighted by the grey component to the power {power}",
            lambda power=power: weighted_line(power),
        )
        for power in (1, 2)
    },
    **{
        f"q{round(100 * q)}": (f"glossy line: the {q:g} quantile", lambda q=q: quantile_of_glossy(q))
        for q in (0.85, 0.95)
    },
    "matte-mode": (
        "matte line: the half-sample mode instead of the median",
        lambda: line_saturation(lambda q, sat: half_sample_mode(sat), glossy_only=False),
    ),
    "line-flat-0": (
        "glossy line: no flat-patch range test (has_shading alone)",
        lambda: line_saturation(lambda q, sat: q, flat=0.0),
    ),
    **{
        f"gloss-skew-{limit:g}": (
            f"gloss test: matte where the interior's saturation skew exceeds {limit:g}",
            lambda limit=limit: gloss_test(skewed_is_matte(limit)),
        )
        for limit in (0.8, 1.0, 1.3)
    },
    "rim-glossy": (
        "gloss test: glossy also where the rim shows reflected surroundings",
        lambda: gloss_test(rim_is_glossy),
    ),
    "rim-veil": ("veil wherever the rim shows reflected surroundings", veil_without_gloss_test),
    **{
        f"light-veil-{top:g}": (
            f"veil's light: at least the lit pixels' top channel / ({top:g} + F0)",
            lambda top=top: light_veil(top),
        )
        for top in (1.0, 0.9)
    },
}

_DATA: dict[str, Any] = {}


def _score(args: tuple[str, str, list[int]]) -> list[tuple[bool, bool]]:
    system, trial, idx = args
    if _DATA.get("trial") != trial:
        if trial != "default":
            TRIALS[trial][1]()
        _DATA["trial"] = trial
    meta, imgs, masks = _DATA["data"]
    scorer = scoring.ColorScorer(system)
    return [
        (
            scorer.score_image(imgs[i], meta[i]["target"], mask=masks[i])[0].passed,
            scorer.score_image(imgs[i], meta[i]["far"], mask=masks[i])[0].passed,
        )
        for i in idx
    ]


def run(system: str, trial: str, data: Any) -> np.ndarray:
    """Every image's (pass, far accepted) under ``trial`` (or "default"), in a fresh process pool:
    a trial's replacement lasts for its workers' lifetime."""
    n = len(data[0])
    with ProcessPoolExecutor(
        max_workers=os.cpu_count() or 2, initializer=_DATA.update, initargs=({"data": data},)
    ) as pool:
        parts = pool.map(_score, [(system, trial, c) for c in scorer_study.chunks(n, 100)])
        return np.array([r for part in parts for r in part], dtype=bool)


def truth_saturation(scorer: Any, target: str) -> float:
    """The saturation (linear RGB, as the diffuse line measures it) of a target's colour."""
    from huebench.color import lab_to_srgb, srgb_to_linear

    lin = srgb_to_linear(np.clip(lab_to_srgb(np.asarray(scorer.candidates(target)[0].lab, dtype=np.float64)), 0, 1))
    return float(np.linalg.norm(lin - lin.mean()) / max(float(lin.mean()), 1e-6))


def estimators(system: str, data: Any) -> None:
    """Per family, on the surfaces whose glossy diffuse line runs: how far the 0.9 quantile, the
    half-sample mode and the median of the pixels' saturations are from the truth's saturation
    (median |log ratio| and median log ratio), on chromatic truths (saturation > 0.15)."""
    meta, imgs, masks = data
    default = reflectance._saturation_from_fit
    seen: list[np.ndarray] = []

    def recording(fit: Any, quantile: float) -> float | None:
        if quantile >= 0.85 and not seen:
            grey, perp, use = fit.grey, fit.perp, fit.use
            sat = perp / np.maximum(grey, 1e-6)
            seen.append(sat[use & (sat >= 0.5 * stats.median(sat[use]))])
        return default(fit, quantile)

    reflectance._saturation_from_fit = recording
    scorer = scoring.ColorScorer(system)
    rows: dict[str, list[tuple[float, float, float]]] = {}
    for m, img, mask in zip(meta, imgs, masks, strict=True):
        seen.clear()
        scorer.score_image(img, m["target"], mask=mask)
        truth = truth_saturation(scorer, m["target"])
        if seen and len(seen[0]) >= 20 and truth > 0.15:
            sat = seen[0]
            rows.setdefault(m["family"], []).append(
                tuple(np.log(v / truth) for v in (np.quantile(sat, 0.9), half_sample_mode(sat), np.median(sat)))
            )
    reflectance._saturation_from_fit = default
    print("family        surfaces   median |log(estimate / truth)|: q90  mode  median   bias: q90  mode  median")
    for family, r in rows.items():
        e = np.array(r)
        err, bias = np.median(np.abs(e), axis=0), np.median(e, axis=0)
        print(
            f"{family:12s} {len(e):6d}   {err[0]:26.3f} {err[1]:5.3f} {err[2]:6.3f}   {bias[0]:+10.3f} {bias[1]:+5.3f} {bias[2]:+6.3f}"
        )


def white_on_plastic(system: str, data: Any) -> None:
    """The Mitsuba family's plastic renders (chromatic albedos), per lighting and backdrop: each
    pixel solved, by least squares, as a × albedo + w × white (linear RGB; the truth is the albedo
    lit and exposed), then the white of the least white tenth (w q10) and of the median pixel, the
    white per unit of shading a on the most lit 15 %, beside the veil the scorer estimates
    (F0 × surroundings) and how many pass."""
    meta, imgs, masks = data
    scorer = scoring.ColorScorer(system)
    groups: dict[tuple[str, str], list[tuple[float, ...]]] = {}
    for m, img, mask in zip(meta, imgs, masks, strict=True):
        albedo = srgb8_to_linear(np.asarray(m["rgb"], dtype=np.uint8))
        if m["family"] != "mitsuba" or m["material"] != "glossy" or np.ptp(albedo) < 0.05:
            continue
        px = img[reflectance.mask_depth(mask) > scorer.erode]
        lin = srgb8_to_linear(px[(px < reflectance.CLIPPED).all(axis=1)])
        basis = np.stack([albedo, np.ones(3)], axis=1)  # 3 × 2: shading a, white w
        a, w = np.linalg.lstsq(basis, lin.T, rcond=None)[0]
        lit = a >= np.quantile(a, 0.85)
        score = scorer.score_image(img, m["target"], mask=mask)[0]
        around = reflectance.surround_radiance(img, mask)
        groups.setdefault((m["lighting"], m["background"]), []).append(
            (
                float(np.quantile(w, 0.1)),
                float(np.median(w)),
                float(np.median(w[lit] / np.maximum(a[lit], 1e-3))),
                reflectance.F0_DIELECTRIC * (around or 0.0),
                float(score.veil is not None),
                float(score.passed),
            )
        )
    print("lighting / backdrop   renders   w q10   w median   w/a lit   F0 × surroundings   veil removed   pass")
    for (lighting, backdrop), r in sorted(groups.items()):
        v = np.array(r)
        med = np.median(v, axis=0)
        print(
            f"{lighting + ' / ' + backdrop:20s} {len(v):8d}   {med[0]:.4f}   {med[1]:.4f}     {med[2]:.3f}"
            f"   {med[3]:17.4f}   {100 * v[:, 4].mean():10.0f} %   {100 * v[:, 5].mean():3.0f} %"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--system", default="iscc-nbs-l2")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--cache", default="/tmp/huebench-families")
    p.add_argument("--trial", action="append", default=[], choices=sorted(TRIALS))
    p.add_argument("--list", action="store_true", help="the trials and what each changes")
    p.add_argument("--estimators", action="store_true", help="albedo-saturation estimates against the truth")
    p.add_argument("--white", action="store_true", help="the white on the Mitsuba plastic renders")
    args = p.parse_args()
    if args.list or not (args.trial or args.estimators or args.white):
        for name, (what, _) in TRIALS.items():
            print(f"{name:20s} {what}")
        return
    from huebench.benchmarks.gencolor.families import HELD_OUT_FAMILIES

    families = ["all", *(f for f in HELD_OUT_FAMILIES if f != "rendered")]
    study_args = argparse.Namespace(system=args.system, quick=args.quick, cache=args.cache, size=None, spp=None)
    parts = [
        scorer_study.build(args.system, args.quick, scorer_study.cache_path(study_args, f), family=f) for f in families
    ]
    data = tuple([x for part in parts for x in part[k]] for k in range(3))
    if args.estimators:
        estimators(args.system, data)
    if args.white:
        white_on_plastic(args.system, data)
    if not args.trial:
        return
    family = np.array([m["family"] for m in data[0]])
    default = run(args.system, "default", data)
    for trial in args.trial:
        print(f"\n{trial}: {TRIALS[trial][0]} — paired against the default ({args.system}, exact masks)")
        scorer_study._print_paired(scorer_study.paired_table(family, default, run(args.system, trial, data)))


if __name__ == "__main__":
    main()
