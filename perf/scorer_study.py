"""Which scorer settings hold on every kind of image? Leave-one-family-out tables.

Builds the diagnostic's known-colour images of every family once (cached in an .npz), then scores
them (exact masks) under each value of each scorer setting and prints

1. accuracy per family for every value (and far-colour false accepts), and
2. for every setting, a **leave-one-family-out** table: for each family held out, the value that
   the *other* families choose (best worst-family accuracy, ties broken by their mean) and its
   accuracy on the held-out family, beside the default's. A value that wins on some families by
   losing on another is visible here, and it is not a default.

    python perf/scorer_study.py --quick                       # ISCC-NBS L2, 48 px
    python perf/scorer_study.py --quick --system css3
    python perf/scorer_study.py --quick --setting fresnel     # one setting only
    python perf/scorer_study.py --quick --oracle              # the albedo-saturation study
    python perf/scorer_study.py --quick --ceiling             # how far the present scorer reaches
    python perf/scorer_study.py --quick --flat-noise          # flat noisy patches
    python perf/scorer_study.py --work-bound                  # max_object_pixels on large images
    python perf/scorer_study.py --quick --light-check         # GGX highlights under coloured lights
    python perf/scorer_study.py --quick --paired 'F06={"fresnel": 0.06}'   # paired, held-out families too
    python perf/scorer_study.py --size 128 --spp 16 --paired 'F06={"fresnel": 0.06}'  # at another scale
    python perf/scorer_study.py --quick --surround --paired 'F06={"fresnel": 0.06}'  # on coloured surroundings
    python perf/scorer_study.py --quick --cut --paired 'F06={"fresnel": 0.06}'       # objects cut by the frame
    python perf/scorer_study.py --quick --loose 2 --paired 'F06={"fresnel": 0.06}'   # masks 2 px too large
    python perf/scorer_study.py --quick --dump before.npy     # every score, full precision: a change
    python perf/scorer_study.py --quick --rules --paired 'F06={"fresnel": 0.06}'  # a rule on the rules alone
    python perf/scorer_study.py --compare before.npy after.npy  # that must not move one (issue 20;
                                                              # exit 0 identical, 1 not, 2 bad files)

Settings the package's scorer does not take — other diffuse-line quantiles, the fitted floor
alone, the "top" and "mode" pixel selections, an in-mask smoothing before the pixel statistics —
are study variants: :class:`StudyScorer` below adds them to ``ColorScorer``.

Since version 25 the default scorer carries a calibration trained on these families' images: its
figures here are in-sample, and a rule's variant is scored with a calibration learnt on the default
rules. Study a rule with ``--rules`` (every scorer without the calibration), then train the
calibration again (``perf/scorer_calibration.py --quick``), whose held-out tables are its evidence.

docs/gencolor.md shows the tables.
"""

from __future__ import annotations

import argparse
import ast
import functools
import hashlib
import os
import re
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from huebench.benchmarks.gencolor.diagnostic import Diagnostic
from huebench.benchmarks.gencolor.scoring import SPECULAR, ColorScorer
from huebench.color import albedo_saturation, diffuse_reconstruction, remove_specular, srgb8_to_linear
from huebench.color.reflectance import MAX_REMOVED_WHITE, smooth_within, unclipped_shading
from huebench.errors import HuebenchError


def diffuse_pixels(rgb8: np.ndarray, *, rule: str = "mode", min_keep: int = 20) -> np.ndarray:
    """Pixels least touched by specular reflection (dichromatic model, neutral light): a study
    variant of the diffuse reconstruction that selects pixels instead of correcting them.

    In linear RGB a diffuse pixel is albedo × shading, so its saturation — distance from the grey
    axis over mean intensity — is the albedo's whatever the shading; a specular highlight adds
    white and lowers it. ``mode`` keeps pixels near the most common saturation of the brighter
    half (the diffuse surface, robust to noise); ``top`` keeps the more saturated half.
    """
    lin = srgb8_to_linear(rgb8)
    mean = lin.mean(axis=1)
    sat = np.linalg.norm(lin - mean[:, None], axis=1) / np.maximum(mean, 1e-4)
    valid = mean >= np.quantile(mean, 0.5)  # shadows: noisy ratios
    if valid.sum() < min_keep:
        return np.ones(len(rgb8), dtype=bool)
    if rule == "top":
        keep = valid & (sat >= np.quantile(sat[valid], 0.5))
    else:
        v = sat[valid]
        lo, hi = np.quantile(v, [0.02, 0.98])
        if hi - lo < 1e-6:
            return np.ones(len(rgb8), dtype=bool)
        hist, edges = np.histogram(v, bins=24, range=(lo, hi))
        k = int(np.argmax(np.convolve(hist, [1, 2, 1], mode="same")))
        mode = 0.5 * (edges[k] + edges[k + 1])
        tol = max(0.08 * mode, 1.5 * (edges[1] - edges[0]))
        keep = np.abs(sat - mode) <= tol
    return keep if keep.sum() >= min_keep else np.ones(len(rgb8), dtype=bool)


#: options every StudyScorer takes first (``--rules``: ``{"calibration": None}``, the rules alone — a
#: rule's setting is studied on the rules, since the calibration learnt the default rules' output
#: and is trained again after a rule changes: perf/scorer_calibration.py). Read from the
#: environment (:data:`RULES_ENV` = "1"), so that worker processes started any way see it too
RULES_ENV = "HUEBENCH_STUDY_RULES"
RULES_ONLY: dict[str, Any] = {"calibration": None} if os.environ.get(RULES_ENV) == "1" else {}

#: where the families' images are cached (``--cache``): one .npz per system, size and family
CACHE = "/tmp/huebench-families"


class StudyScorer(ColorScorer):
    """``ColorScorer`` with the study's variants of two steps.

    ``specular``: '+'-joined steps, in order — "dichromatic" (the fitted floor; skipped where the
    Fresnel veil was removed, which is that floor), "envelopeNN" (the diffuse line at the NN-th
    percentile of saturation), "top" (the more saturated half) and "mode" (pixels near the modal
    saturation); None: none. The package's default, "dichromatic+envelope90", is the same steps.
    ``smooth``: σ (pixels) of an in-mask Gaussian blur before the pixel statistics (0: none; it
    blurs the highlights of small objects into their neighbours). ``bands=False``: the lit window's
    flat test without flat bands (the unclipped pixels' shading test alone: version 16's), so that
    ``--paired 'V16={"bands": False}'`` measures version 17's change on every family.

    Two oracles for ``--ceiling`` (what the default's steps would reach given what they estimate):
    ``glossy`` answers the gloss test (True / False: a material known from outside the image; None:
    the test decides), and ``truth`` (8-bit sRGB, the image's true colour) gives the diffuse line its
    saturation (:func:`saturation_of`; where the scorer read a coloured light from the surface, of the
    truth balanced by that light, as the pixels are) instead of estimating it from the pixels — on
    chromatic surfaces with shading, those the default's line corrects, after the same floor.
    """

    def __init__(
        self,
        system: str = "css3",
        *,
        specular: str | None = SPECULAR,
        smooth: float = 0.0,
        bands: bool = True,
        glossy: bool | None = None,
        truth: tuple[int, int, int] | None = None,
        **options: Any,
    ):
        for step in (specular or "").split("+"):
            if step and step not in ("dichromatic", "top", "mode") and not re.fullmatch(r"envelope\d{1,2}", step):
                raise HuebenchError(
                    f"specular step {step!r} unknown: use dichromatic, envelopeNN (e.g. envelope90), top or mode, "
                    "joined with '+', or None"
                )
        if truth is not None and specular != SPECULAR:
            raise HuebenchError(f"the saturation oracle replaces the default's diffuse line, not {specular!r}")
        super().__init__(system, specular=None, **{**RULES_ONLY, **options})
        self.specular = specular
        self.smooth = float(smooth)
        self.bands = bool(bands)
        self.glossy, self.truth = glossy, truth
        self._light: np.ndarray | None = None  # the light score_pixels was given, for the oracle

    def config(self) -> dict[str, Any]:
        oracles = {k: v for k, v in (("glossy", self.glossy), ("truth", self.truth)) if v is not None}
        older = {} if self.bands else {"bands": False}
        return {**super().config(), "smooth": self.smooth, **older, **oracles}  # by default, the package's

    def score_pixels(self, rgb_pixels: Any, target: str, **kwargs: Any) -> Any:
        self._light = kwargs.get("light")
        return super().score_pixels(rgb_pixels, target, **kwargs)

    def looks_glossy(self, image: np.ndarray, mask: np.ndarray, depth: np.ndarray) -> bool:
        return super().looks_glossy(image, mask, depth) if self.glossy is None else self.glossy

    def lit_surface_varies(self, px8: np.ndarray, lit_from: float) -> bool:
        return super().lit_surface_varies(px8, lit_from) if self.bands else unclipped_shading(px8) is not False

    def object_pixels(self, image: np.ndarray, inner: np.ndarray) -> np.ndarray:
        if self.smooth > 0 and inner.any():
            return smooth_within(image, inner, self.smooth)
        return image[inner]

    def specular_steps(
        self, px8: np.ndarray, veil: Any, glossy: bool | None = None, *, cap_by_band: bool = True
    ) -> np.ndarray:
        if self.specular == SPECULAR and self.truth is not None:
            px = px8
            if veil is None:  # the default's floor, as the package's steps take it
                px = remove_specular(
                    px8, method="fitted-floor", min_saturation=self.floor_min_saturation, max_floor=self.max_floor
                )
            # the default's line leaves achromatic surfaces and flat patches alone: the same tests
            # (dichromatic_steps' min_saturation, its fit's shading test and its estimate's range test)
            if albedo_saturation(px, flat_line=self.reads_flat_line(glossy)) is None:
                return px
            matte = glossy is False
            lin = srgb8_to_linear(np.asarray(self.truth, dtype=np.uint8))
            if self._light is not None:  # the pixels were balanced by this light
                lin = lin / self._light
            return diffuse_reconstruction(
                px, saturation=max(saturation_of(lin), 1e-3), keep_clipped=matte and self.matte_keeps_clipped
            )
        if self.specular == SPECULAR:  # the package's own steps
            return super().specular_steps(px8, veil, glossy, cap_by_band=cap_by_band)
        for step in (self.specular or "").split("+"):
            if step == "dichromatic" and veil is not None:
                continue  # the veil is the floor this step would fit
            if step == "dichromatic":
                px8 = remove_specular(
                    px8, method="fitted-floor", min_saturation=self.floor_min_saturation, max_floor=self.max_floor
                )
            elif step.startswith("envelope"):
                quantile = float(step[len("envelope") :] or 75) / 100
                px8 = diffuse_reconstruction(px8, method="diffuse-line", quantile=quantile)
            elif step:
                px8 = px8[diffuse_pixels(px8, rule=step)]
        return px8


#: each setting and the values tried; the default is whatever ColorScorer's default is, marked in
#: the output. The first value listed wins ties in the leave-one-family-out choice (lofo)
SETTINGS: dict[str, dict[str, dict[str, Any]]] = {
    "fresnel": {
        "none": {"fresnel": None},
        "0.03": {"fresnel": 0.03},
        "0.04": {"fresnel": 0.04},
        "0.05": {"fresnel": 0.05},
    },
    "gloss_uniformity": {f"{v}": {"gloss_uniformity": v} for v in (0.9, 0.93, 0.955, 0.97)},
    "gloss_smooth": {f"{v}": {"gloss_smooth": v} for v in (0.0, 1.0, 1.5, 2.5)},
    "gloss_radial": {f"{v}": {"gloss_radial": v} for v in (None, 1.5, 2.0, 3.0)},
    "max_floor": {f"{v}": {"max_floor": v} for v in (None, 0.04, 0.05, 0.1)},
    "max_removed_white": {
        "None": {"max_removed_white": None},
        "0.04": {"max_removed_white": 0.04},  # F0 of n = 1.5
        "0.0918": {"max_removed_white": MAX_REMOVED_WHITE},  # its diffuse Fresnel reflectance (the default)
        "0.15": {"max_removed_white": 0.15},
    },
    "curve_spread": {f"{v}": {"curve_spread": v} for v in (None, 0.15, 0.25, 0.35)},
    "curve_rank": {f"{v}": {"curve_rank": v} for v in (0.9, 0.95, 0.97, 0.99)},
    "curve_turn": {f"{v}": {"curve_turn": v} for v in (None, 0.3, 0.5, 1.0)},
    "dark_fall": {f"{v}": {"dark_fall": v} for v in (None, -0.95, -0.9, -0.85)},
    "veil_floor_errors": {f"{v}": {"veil_floor_errors": v} for v in (None, 1.0, 2.0, 3.0)},
    "line_band": {
        "None": {"line_band": None},
        "(.3,.8)": {"line_band": (0.3, 0.8)},
        "(.2,.8)": {"line_band": (0.2, 0.8)},
        "(.3,.9)": {"line_band": (0.3, 0.9)},
        "(.4,.8)": {"line_band": (0.4, 0.8)},
    },
    "band_floor_errors": {f"{v}": {"band_floor_errors": v} for v in (None, 1.0, 2.0, 3.0)},
    "floor_curve_turn": {f"{v}": {"floor_curve_turn": v} for v in (None, 0.25, 0.5, 1.0, 2.0)},
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
    "dark_neutral": {f"{v}": {"dark_neutral": v} for v in (None, 22.0, 25.0, 28.0, 31.0, 34.0)},
    "main_color": {f"{v}": {"main_color": v} for v in (None, 0.7, 0.5)},
    "main_color_from": {f"{v}": {"main_color_from": v} for v in (0.5, 0.25, 0.0)},
    "neutral_highlight": {f"{v}": {"neutral_highlight": v} for v in (None, 0.15, 0.3, 0.5, 1.0)},
    "rim_ratio": {f"{v}": {"rim_ratio": v} for v in (None, 0.93, 0.95, 0.97)},
    "veil_color": {f"{v}": {"veil_color": v} for v in (False, True)},
    "frame_cuts": {f"{v}": {"frame_cuts": v} for v in (False, True)},
    "peel": {f"{v}": {"peel": v} for v in (None, 4.0, 6.0, 10.0)},
    "matte_quantile": {f"{v}": {"matte_quantile": v} for v in (None, 0.5, 0.75)},
    "veil_quantile": {f"{v}": {"veil_quantile": v} for v in (None, 0.05, 0.1, 0.2, 0.3, 0.5)},
    "matte_keeps_clipped": {f"{v}": {"matte_keeps_clipped": v} for v in (False, True)},
    "glossy_flat_line": {f"{v}": {"glossy_flat_line": v} for v in (False, True)},
    "light_planarity": {f"{v}": {"light_planarity": v} for v in (None, 3.0, 5.0, 8.0)},
    "light_margin": {f"{v}": {"light_margin": v} for v in (2.0, 4.0, 8.0)},
}


def build(
    system: str,
    quick: bool,
    cache: Path,
    family: str = "all",
    *,
    size: int | None = None,
    spp: int | None = None,
) -> tuple[list[dict[str, Any]], list[np.ndarray], list[np.ndarray]]:
    """Every image of ``family`` (the diagnostic's ``--family``: all, or a held-out one), its exact
    mask, target and far colour; the images are cached in ``cache`` (an .npz) after the first call.
    ``size``, ``spp``: the diagnostic's render size and samples (None: its defaults, 48 px and 16
    with ``quick``, else 64 and 32)."""
    bench = Diagnostic(system=system, quick=quick, family=family, size=size, spp=spp)
    samples = bench.samples()
    z = np.load(cache, allow_pickle=False) if cache.exists() else None
    if z is not None and len(z["targets"]) != len(samples):
        print(f"{cache} holds another set of images than {family!r} has now: made again")
        z.close()
        z = None
    if z is not None:
        n = len(samples)
        meta = [
            dict(s.inputs, id=s.id, target=str(z["targets"][i]), far=str(z["fars"][i])) for i, s in enumerate(samples)
        ]
        return meta, [z[f"i{i}"] for i in range(n)], [z[f"m{i}"] for i in range(n)]
    imgs, masks, targets, fars = [], [], [], []
    for s in samples:
        known = bench.known_image(s)
        target = bench.target_of(s, known.truth)
        imgs.append(known.image)
        masks.append(known.mask)
        targets.append(target)
        fars.append(bench.far_color(s, known.truth))
    arrays = {f"i{i}": a for i, a in enumerate(imgs)} | {f"m{i}": m for i, m in enumerate(masks)}
    np.savez_compressed(cache, targets=np.array(targets), fars=np.array(fars), **arrays)
    meta = [dict(s.inputs, id=s.id, target=t, far=f) for s, t, f in zip(samples, targets, fars, strict=True)]
    return meta, imgs, masks


_DATA: dict[str, Any] = {}


def _score_chunk(args: tuple[str, dict[str, Any], list[int], bool]) -> list[tuple[bool, bool]]:
    system, options, idx, far_too = args
    meta, imgs, masks = _DATA["data"]
    scorer = StudyScorer(system, **options)
    out = []
    for i in idx:
        ok = scorer.score_image(imgs[i], meta[i]["target"], mask=masks[i])[0].passed
        far = far_too and scorer.score_image(imgs[i], meta[i]["far"], mask=masks[i])[0].passed
        out.append((ok, far))
    return out


def chunks(n: int, size: int = 200) -> list[list[int]]:
    """Image indices 0 … n − 1 in runs of ``size``: one task of the process pool each."""
    return [list(range(i, min(i + size, n))) for i in range(0, n, size)]


def score_all(
    pool: ProcessPoolExecutor, system: str, options: dict[str, Any], n: int, *, far: bool = True
) -> np.ndarray:
    """Every image's (pass, far colour accepted) under ``options``; ``far=False``: the target only
    (the far column all False)."""
    rows = [r for part in pool.map(_score_chunk, [(system, options, c, far) for c in chunks(n)]) for r in part]
    return np.array(rows, dtype=bool)


def paired_table(
    families: np.ndarray, default: np.ndarray, variant: np.ndarray
) -> list[tuple[str, int, float, float, tuple[float, float, float], int, int, int, int]]:
    """Per family: (family, images, default %, variant %, paired difference (points, 95 % interval),
    gained, lost, far accepts default, far accepts variant); ``default`` and ``variant`` are every
    image's (pass, far accepted), in the same order as ``families``."""
    rows = []
    for f in sorted(set(families.tolist())):
        a, b = default[families == f], variant[families == f]
        rows.append(
            (
                f,
                len(a),
                100 * float(a[:, 0].mean()),
                100 * float(b[:, 0].mean()),
                paired_difference(b[:, 0], a[:, 0]),
                int((b[:, 0] & ~a[:, 0]).sum()),
                int((a[:, 0] & ~b[:, 0]).sum()),
                int(a[:, 1].sum()),
                int(b[:, 1].sum()),
            )
        )
    return rows


#: what ``--dump`` records of each score, in this order (``veil`` -1: none removed; ``glossy`` -1:
#: not tested)
DUMP_COLUMNS = ("pass", "delta_e00", "delta_chroma", "delta_hue", "L", "a", "b", "veil", "glossy")


def score_row(score: Any) -> list[float]:
    """One score as the numbers ``--dump`` keeps (:data:`DUMP_COLUMNS`), at full precision."""
    lab = list(score.dominant_lab) or [float("nan")] * 3
    return [
        float(score.passed),
        score.delta_e00,
        score.delta_chroma,
        score.delta_hue,
        *lab,
        -1.0 if score.veil is None else float(score.veil),
        -1.0 if score.glossy is None else float(score.glossy),
    ]


def compare_dumps(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """Two ``--dump`` files of the same images: are they the same scores? Pass/fail flips, and the
    largest difference in each column (NaN where both are NaN counts as equal)."""
    if a.shape != b.shape:
        raise HuebenchError(f"the dumps hold different score tables ({a.shape} and {b.shape}): dump the same images")
    both_nan = np.isnan(a) & np.isnan(b)
    diff = np.where(both_nan, 0.0, np.abs(a - b))
    diff = np.where(np.isnan(diff), np.inf, diff)  # NaN on one side only: as different as can be
    return {
        "scores": len(a),
        "identical": bool(not diff.any()),
        "flips": int((a[:, 0] != b[:, 0]).sum()),
        "largest": {c: float(diff[:, i].max()) if len(a) else 0.0 for i, c in enumerate(DUMP_COLUMNS)},
    }


def _dump_chunk(args: tuple[str, list[int]]) -> list[list[float]]:
    system, idx = args
    meta, imgs, masks = _DATA["data"]
    scorers = [ColorScorer.named(name, system) for name in ("huebench", "paper")]
    return [
        score_row(sc.score_image(imgs[i], meta[i][which], mask=masks[i])[0])
        for i in idx
        for sc in scorers
        for which in ("target", "far")
    ]


def paired_difference(a: np.ndarray, b: np.ndarray, *, n_boot: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Accuracy of ``a`` minus ``b`` on the same images, in points, with a 95 % paired bootstrap
    interval (images resampled together): the test of whether a setting helps or hurts a family."""
    diff = a.astype(float) - b.astype(float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(diff), size=(n_boot, len(diff)))
    boots = diff[idx].mean(axis=1)
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return 100 * float(diff.mean()), 100 * float(lo), 100 * float(hi)


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
    ap.add_argument(
        "--size",
        type=int,
        help="render size in pixels (the diagnostic's default: 48 with --quick, else 64): "
        "settings chosen at one size, measured at another",
    )
    ap.add_argument("--spp", type=int, help="render samples per pixel (default: 16 with --quick, else 32)")
    ap.add_argument("--cache", default=CACHE)
    ap.add_argument("--setting", action="append", help="only these settings (default: all)")
    ap.add_argument(
        "--rules",
        action="store_true",
        help="every scorer without its calibration (version 25): study a rule on the rules, then train "
        "the calibration again (perf/scorer_calibration.py)",
    )
    ap.add_argument("--variant", action="append", default=[], help="NAME=python-dict of options: an extra row")
    ap.add_argument("--oracle", action="store_true", help="the albedo-saturation study on the Mitsuba renders")
    ap.add_argument(
        "--ceiling",
        action="store_true",
        help="how far the present scorer reaches per family: gloss and saturation oracles, best setting per image",
    )
    ap.add_argument("--flat-noise", action="store_true", help="flat patches with pixel noise, every colour")
    ap.add_argument(
        "--light-check",
        action="store_true",
        help="the held-out microfacet set-ups under the illuminant family's lights: light step on and off",
    )
    ap.add_argument(
        "--work-bound", action="store_true", help="large images: max_object_pixels against every pixel (ΔE00, time)"
    )
    ap.add_argument(
        "--paired",
        action="append",
        default=[],
        help="NAME=python-dict of options: paired against the default on every family, held-out ones too",
    )
    ap.add_argument(
        "--dump", help="every score (both scorers, target and far colour, every family) to this .npy, full precision"
    )
    ap.add_argument(
        "--surround",
        action="store_true",
        help="every image on coloured surroundings, the objects untouched: the default before and after, "
        "and --paired / --dump on the painted images",
    )
    ap.add_argument(
        "--cut",
        action="store_true",
        help="every object cut by the image's left border: the default before and after, "
        "and --paired / --dump on the cropped images",
    )
    ap.add_argument(
        "--loose",
        type=int,
        default=0,
        metavar="PX",
        help="every exact mask grown by PX pixels (a segmenter's loose mask): the default before and after, "
        "and --paired / --dump with the grown masks",
    )
    ap.add_argument("--compare", nargs=2, metavar="DUMP", help="two --dump files: are their scores the same?")
    args = ap.parse_args()
    if args.rules:
        os.environ[RULES_ENV] = "1"  # for the workers, however they start
        RULES_ONLY["calibration"] = None
    unknown = sorted(set(args.setting or ()) - set(SETTINGS))
    if unknown:
        ap.error(f"unknown --setting {', '.join(unknown)}; the settings: {', '.join(SETTINGS)}")
    on = {  # the options that pick what the study does
        "--oracle": args.oracle,
        "--ceiling": args.ceiling,
        "--flat-noise": args.flat_noise,
        "--light-check": args.light_check,
        "--setting": bool(args.setting),
        "--variant": bool(args.variant),
        "--work-bound": args.work_bound,
        "--compare": bool(args.compare),
        "--paired": bool(args.paired),
        "--dump": bool(args.dump),
    }
    alongside = [flag for flag, given in on.items() if given and flag not in ("--ceiling", "--setting")]
    if args.ceiling and alongside:
        ap.error(f"--ceiling runs alone (--setting limits its values), not with {', '.join(alongside)}")
    changed = [flag for flag, _ in image_changes(args)]
    # --paired and --dump take the changed images; every other study its own
    others = [flag for flag, given in on.items() if given and flag not in ("--paired", "--dump")]
    if changed and others:
        verb = "changes" if len(changed) == 1 else "change"
        ap.error(f"{' and '.join(changed)} {verb} the images of --paired and --dump only, not of {', '.join(others)}")
    if args.compare:
        try:
            result = compare_dumps(*(np.load(f, allow_pickle=False) for f in args.compare))
        except (OSError, ValueError, HuebenchError) as e:
            ap.exit(2, f"scorer_study.py --compare: {e} (give two .npy files written by --dump)\n")
        largest = ", ".join(f"{k} {v:g}" for k, v in result["largest"].items())
        print(
            f"{result['scores']} scores: {'identical' if result['identical'] else 'NOT identical'}; "
            f"pass/fail flips {result['flips']}; largest differences: {largest}"
        )
        ap.exit(0 if result["identical"] else 1)
    if args.work_bound:
        work_bound(args.system)
        return
    if args.ceiling:
        ceiling(args)
        return
    if args.paired or args.dump or changed:
        every_family(args)
        return
    t0 = time.perf_counter()
    data = build(args.system, args.quick, cache_path(args), size=args.size, spp=args.spp)
    _DATA["data"] = data
    if args.oracle:
        saturation_oracle(args.system, *data)
        return
    if args.flat_noise:
        flat_noise(args.system)
        return
    if args.light_check:
        light_check(args.system, args.quick, args.size)
        return
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
        outcomes: dict[str, np.ndarray] = {}  # per value: every image's (pass, far accepted)

        def table(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
            acc = {}
            for name, options in rows.items():
                res = score_all(pool, args.system, options, len(meta))
                outcomes[name] = res
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
            table({v.split("=", 1)[0]: ast.literal_eval(v.split("=", 1)[1]) for v in args.variant})
        for setting, values in SETTINGS.items():
            if args.setting and setting not in args.setting:
                continue
            default = next(
                (
                    k
                    for k, o in values.items()
                    # config.json keeps pairs (lightness_window, line_band) as lists
                    if all(defaults.get(kk) == (list(vv) if isinstance(vv, tuple) else vv) for kk, vv in o.items())
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
            print(
                f"  paired differences from the default — {setting}: points, 95 % paired bootstrap interval, * = beyond it"
            )
            for name in values:
                if name == default:
                    continue
                cells = []
                for f in families:
                    d, lo, hi = paired_difference(outcomes[name][fam == f, 0], outcomes[default][fam == f, 0])
                    cells.append(f"{f} {d:+5.2f} [{lo:+.2f}, {hi:+.2f}]{'*' if lo > 0 or hi < 0 else ' '}")
                print(f"    {name:12s} " + "  ".join(cells))


#: the gloss the ``--ceiling`` oracle knows from how an image was made: rendered materials only (a
#: photograph's object, recolored, has a material name but no known gloss as the camera saw it)
GLOSS_OF_MATERIAL = {"glossy": True, "diffuse": False}


def saturation_of(lin: np.ndarray) -> float:
    """A colour's saturation as the diffuse line reads it: distance from the grey axis over the grey
    component, linear RGB."""
    grey = float(np.mean(lin))
    return float(np.linalg.norm(lin - grey)) / max(grey, 1e-6)


def truth_of(meta: dict[str, Any]) -> tuple[int, int, int]:
    """An image's true colour (8-bit sRGB): the target's hex code where the image shows a transformed
    albedo, else the albedo itself (:meth:`Diagnostic.target_of`)."""
    target = meta["target"]
    rgb = [int(target[k : k + 2], 16) for k in (1, 3, 5)] if target.startswith("#") else meta["rgb"]
    return (int(rgb[0]), int(rgb[1]), int(rgb[2]))


def _oracle_chunk(args: tuple[str, list[int]]) -> list[tuple[int, int]]:
    """Each image scored by the default with the gloss test answered by its material, and with the
    diffuse line given its truth's saturation: 1 / 0 passed or not, -1 where the oracle knows nothing
    (a material of unknown gloss)."""
    system, idx = args
    meta, imgs, masks = _DATA["data"]
    out = []
    for i in idx:
        m, image, mask = meta[i], imgs[i], masks[i]
        glossy = GLOSS_OF_MATERIAL.get(m["material"])
        gloss = StudyScorer(system, glossy=glossy) if glossy is not None else None
        sat = StudyScorer(system, truth=truth_of(m))
        out.append(
            (
                -1 if gloss is None else int(gloss.score_image(image, m["target"], mask=mask)[0].passed),
                int(sat.score_image(image, m["target"], mask=mask)[0].passed),
            )
        )
    return out


def ceiling_table(
    families: np.ndarray, default: np.ndarray, oracles: np.ndarray, outcomes: dict[str, np.ndarray]
) -> list[tuple[str, int, float, float | None, float | None, float, list[tuple[str, int]]]]:
    """Per family: (family, images, the default's accuracy, with the gloss test answered by the
    material, with the diffuse line at the truth's saturation, the best single setting value per
    image, the values that pass most of the default's failures). ``default``: every image's pass;
    ``oracles``: :func:`_oracle_chunk`'s rows (-1: the oracle knows nothing there, and the default's
    outcome stands); ``outcomes``: every setting value's passes, named "setting=value". An oracle no
    image of a family can use is None."""
    rows = []
    union = np.logical_or.reduce([default, *outcomes.values()])
    for f in sorted(set(families.tolist())):
        sel = families == f
        base = default[sel]
        cells: list[float | None] = []
        for k in range(2):
            o = oracles[sel, k]
            cells.append(None if (o < 0).all() else 100 * float(np.where(o < 0, base, o == 1).mean()))
        failed = ~base
        rescue = sorted(
            ((name, int((res[sel] & failed).sum())) for name, res in outcomes.items()), key=lambda r: (-r[1], r[0])
        )
        rows.append(
            (
                f,
                int(sel.sum()),
                100 * float(base.mean()),
                cells[0],
                cells[1],
                100 * float(union[sel].mean()),
                [r for r in rescue if r[1] > 0][:3],
            )
        )
    return rows


def ceiling(args: argparse.Namespace) -> None:
    """``--ceiling``: how far the present scorer reaches on each family, tuning and held-out ones —
    the default; the default with its gloss test answered by the material; with its diffuse line at
    the truth's saturation; and the best of every value of every setting (:data:`SETTINGS`), chosen
    per image (an oracle no default can be: it knows which value passes)."""
    from huebench.benchmarks.gencolor.families import HELD_OUT_FAMILIES

    data = every_family_images(args)
    meta = data[0]
    n = len(meta)
    families = np.array([m["family"] for m in meta])
    t0 = time.perf_counter()
    with ProcessPoolExecutor(
        max_workers=os.cpu_count() or 2, initializer=_DATA.update, initargs=({"data": data},)
    ) as pool:
        default = score_all(pool, args.system, {}, n, far=False)[:, 0]
        tasks = [(args.system, c) for c in chunks(n)]
        oracles = np.array([r for part in pool.map(_oracle_chunk, tasks) for r in part], dtype=int)
        outcomes = {
            f"{setting}={name}": score_all(pool, args.system, options, n, far=False)[:, 0]
            for setting, values in SETTINGS.items()
            if not args.setting or setting in args.setting
            for name, options in values.items()
        }
    print(
        f"{n} images, {len(outcomes)} setting values, exact masks ({time.perf_counter() - t0:.0f} s): "
        "the default; its gloss test answered by the material (rendered families); its diffuse line at "
        "the truth's saturation; the best setting value per image"
    )
    for f, k, acc, gloss, sat, best, rescue in ceiling_table(families, default, oracles, outcomes):
        held = " (held out)" if f in HELD_OUT_FAMILIES else ""
        cells = " ".join("    —   " if v is None else f"{v:7.2f} " for v in (gloss, sat))
        print(
            f"  {f + held:22s} {k:5d} images  {acc:6.2f}  {cells} {best:6.2f} %"
            + (f"   rescued most by {', '.join(f'{name} {c}' for name, c in rescue)}" if rescue else "")
        )


def cache_path(args: argparse.Namespace, family: str = "all") -> Path:
    """Where :func:`build` caches a family's images for these arguments (held-out families apart;
    another ``--size`` or ``--spp``, another file; the code that makes the images changed, another
    file: a cache from before a change to a family would score the old images)."""
    suffix = "" if family == "all" else f".{family}"
    render = "".join(
        f".{k}{v}" for k, v in (("s", getattr(args, "size", None)), ("spp", getattr(args, "spp", None))) if v
    )
    return Path(f"{args.cache}.{args.system}.{int(args.quick)}{render}{suffix}.{image_code_digest()}.npz")


#: the packages whose releases the images depend on (Mitsuba's renders, Pillow's JPEG, the
#: resampling and the photographs)
IMAGE_PACKAGES = ("mitsuba", "drjit", "pillow", "numpy", "scipy", "scikit-image")


def image_inputs() -> list[Path]:
    """The files the families' images, truths, targets and far colours are made from: the modules
    that make them, the colour maths and systems they use, and the photographs' objects."""
    import huebench.color
    from huebench.benchmarks.gencolor import diagnostic, families, photos, render

    colour = Path(str(huebench.color.__file__)).parent
    modules = [Path(str(m.__file__)) for m in (families, render, photos, diagnostic)]
    maths = [colour / f"{name}.py" for name in ("conversions", "recolor", "systems", "difference")]
    data = sorted(p for p in (colour / "data").rglob("*") if p.is_file())
    return [*modules, *maths, *data, modules[0].parent / "data" / "photo_objects.json"]


def code_digest(paths: list[Path], packages: tuple[str, ...] = (), machine: str | None = None) -> str:
    """The first 8 hex digits of a hash of these files' bytes, these packages' installed releases
    and ``machine`` (None: left out)."""
    from importlib import metadata

    digest = hashlib.sha256()
    if machine is not None:
        digest.update(f"machine={machine}\0".encode())
    for path in paths:
        digest.update(str(path.name).encode() + b"\0" + path.read_bytes())
    for name in packages:
        try:
            release = metadata.version(name)
        except metadata.PackageNotFoundError:
            release = "absent"
        digest.update(f"{name}={release}\0".encode())
    return digest.hexdigest()[:8]


@functools.cache
def image_code_digest() -> str:
    """:func:`code_digest` of what the families' images are made from (:func:`image_inputs`,
    :data:`IMAGE_PACKAGES`) and the CPU's widest vector instructions, which change a few Mitsuba
    renders (:func:`~huebench.runs.runner.cpu_vector_isa`): another, another cache file."""
    from huebench.runs.runner import cpu_vector_isa

    return code_digest(image_inputs(), IMAGE_PACKAGES, machine=str(cpu_vector_isa()))


#: sRGB colours that ``--surround`` paints around the objects, one per image in turn: saturated
#: backdrops of several hues and lightnesses, as generated images put objects on coloured tables,
#: walls and skies
SURROUNDS = ((40, 70, 200), (230, 120, 30), (60, 160, 70), (200, 40, 50), (130, 60, 170), (200, 190, 60))


def on_coloured_surroundings(imgs: list[np.ndarray], masks: list[np.ndarray]) -> list[np.ndarray]:
    """Each image with everything beyond one pixel around its object (the mask dilated once with
    the 4-neighbour cross) painted in one of :data:`SURROUNDS` (in turn). The object's pixels and its anti-aliased edge are untouched, so its
    truth stands: only what the scorer reads from the surroundings changes (the veil, the light)."""
    from huebench.benchmarks.gencolor.families import replace_surroundings

    return [
        replace_surroundings(img, mask, SURROUNDS[i % len(SURROUNDS)])
        for i, (img, mask) in enumerate(zip(imgs, masks, strict=True))
    ]


#: the share of each object's width that ``--cut`` crops away at the left: the object then runs
#: into the image's left border, as close-ups and crowded generated scenes cut objects
CUT = 0.35


def cut_by_the_frame(imgs: list[np.ndarray], masks: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each image and mask cropped so that the frame cuts the object: the columns from the image's
    left edge to :data:`CUT` of the way across the object (rounded down) are dropped. What is left of the object is
    as it was, so its truth stands; only its own edge is now partly the frame."""
    out_imgs, out_masks = [], []
    for img, mask in zip(imgs, masks, strict=True):
        cols = np.flatnonzero(np.asarray(mask).any(axis=0))
        start = int(cols[0] + CUT * (cols[-1] - cols[0] + 1)) if len(cols) else 0
        out_imgs.append(np.ascontiguousarray(img[:, start:]))
        out_masks.append(np.ascontiguousarray(mask[:, start:]))
    return out_imgs, out_masks


def loose_masks(masks: list[np.ndarray], grow: int) -> list[np.ndarray]:
    """Every mask grown by ``grow`` pixels (dilated with the 4-neighbour cross): a detector and a
    segmenter's mask a little too large, with a ring of background in it."""
    from scipy import ndimage

    return [ndimage.binary_dilation(m, iterations=grow) for m in masks]


def image_changes(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The changes to the images that ``--cut``, ``--surround`` and ``--loose`` ask for, in the order
    :func:`every_family` makes them: (option, what it does)."""
    return [
        (flag, what)
        for flag, what, on in (
            ("--cut", f"cut by the frame ({CUT:.0%} of the object's width cropped at the left)", args.cut),
            ("--surround", f"on coloured surroundings ({len(SURROUNDS)} colours in turn)", args.surround),
            ("--loose", f"masks {args.loose} px too large", bool(args.loose)),
        )
        if on
    ]


def study_families() -> list[str]:
    """The ``--family`` values a study scores: all (the tuning families), then every held-out
    family but those kept unseen (``UNSEEN_FAMILIES``: each judges the next scorer change once,
    through the diagnostic, and nothing tunes on it before)."""
    from huebench.benchmarks.gencolor.families import HELD_OUT_FAMILIES, UNSEEN_FAMILIES

    return ["all", *(f for f in HELD_OUT_FAMILIES if f not in UNSEEN_FAMILIES)]


def every_family_images(
    args: argparse.Namespace, families: list[str] | None = None
) -> tuple[list[Any], list[np.ndarray], list[np.ndarray]]:
    """Every image of ``families`` (``--family`` values; None: the tuning families and the held-out
    ones but those kept unseen, :func:`study_families`), each family set cached apart: (meta,
    images, exact masks), in that order."""
    parts = [
        build(args.system, args.quick, cache_path(args, f), family=f, size=args.size, spp=args.spp)
        for f in (study_families() if families is None else families)
    ]
    meta, imgs, masks = ([x for part in parts for x in part[k]] for k in range(3))
    return meta, imgs, masks


def every_family(args: argparse.Namespace) -> None:
    """``--paired`` and ``--dump``: the tuning families and the held-out ones but those kept unseen
    (:func:`study_families`), each cached apart;
    with ``--cut``, ``--surround`` and/or ``--loose`` on the changed images, after the default's
    accuracy on the images as made and on the changed ones."""
    data = every_family_images(args)
    meta = data[0]
    n = len(meta)
    families = np.array([m["family"] for m in meta])
    original = None
    if image_changes(args):
        with ProcessPoolExecutor(
            max_workers=os.cpu_count() or 2, initializer=_DATA.update, initargs=({"data": data},)
        ) as pool:
            original = score_all(pool, args.system, {}, n)
        if args.cut:
            data = (data[0], *cut_by_the_frame(data[1], data[2]))
        if args.surround:
            data = (data[0], on_coloured_surroundings(data[1], data[2]), data[2])
        if args.loose:  # after the painting: the ring the grown mask takes in is what surrounds the object
            data = (data[0], data[1], loose_masks(data[2], args.loose))
    with ProcessPoolExecutor(
        max_workers=os.cpu_count() or 2, initializer=_DATA.update, initargs=({"data": data},)
    ) as pool:
        if args.dump:
            rows = [r for part in pool.map(_dump_chunk, [(args.system, c) for c in chunks(n)]) for r in part]
            np.save(args.dump, np.array(rows, dtype=np.float64))
            print(f"{len(rows)} scores of {n} images ({', '.join(DUMP_COLUMNS)}) → {args.dump}")
        if not args.paired and original is None:
            return
        default = score_all(pool, args.system, {}, n)
        tables = [(name, ast.literal_eval(options)) for name, options in (v.split("=", 1) for v in args.paired)]
        if original is not None:
            changed = " and ".join(what for _, what in image_changes(args))
            print(
                f"\nthe default, each image as made → {changed}, the object's pixels as they were; "
                "the variants below are paired on the changed images"
            )
            _print_paired(paired_table(families, original, default))
        for name, options in tables:
            print(
                f"\n{name}: paired against the default ({f'masks {args.loose} px too large' if args.loose else 'exact masks'}; "
                "points, 95 % paired bootstrap interval, * = beyond it)"
            )
            _print_paired(paired_table(families, default, score_all(pool, args.system, options, n)))


def _print_paired(rows: list[tuple[str, int, float, float, tuple[float, float, float], int, int, int, int]]) -> None:
    from huebench.benchmarks.gencolor.families import HELD_OUT_FAMILIES

    for f, k, a, b, (d, lo, hi), won, lost, far_a, far_b in rows:
        held = " (held out)" if f in HELD_OUT_FAMILIES else ""
        print(
            f"  {f + held:22s} {k:5d} images  {a:6.2f} → {b:6.2f} %  {d:+5.2f} [{lo:+.2f}, {hi:+.2f}]"
            f"{'*' if lo > 0 or hi < 0 else ' '}  gained {won}, lost {lost}; far accepts {far_a} → {far_b}"
        )


def saturation_oracle(system: str, meta: list[dict], imgs: np.ndarray, masks: np.ndarray) -> None:
    """Glossy renders of chromatic colours (those the reconstruction corrects): accuracy when the
    reconstruction is given the true albedo saturation × f, and how far the estimates are from it —
    the fitted floor's (the default before the Fresnel veil) and the default's."""
    from huebench.color import albedo_saturation, remove_veil, srgb_to_linear
    from huebench.color.reflectance import mask_depth

    scorer = ColorScorer(system, specular=None, fresnel=None, main_color=None, max_chroma_excess=None)
    default, before = ColorScorer(system), ColorScorer(system, fresnel=None)
    rows = []
    for m, img, mask in zip(meta, imgs, masks, strict=True):
        if m["family"] != "mitsuba" or m["material"] != "glossy":
            continue
        px = img[mask_depth(mask, frame_cuts=default.frame_cuts) > scorer.erode]
        # the glossy line as this study was first measured: without the curve tests
        # (versions 20, 21) and the band (version 23) that the default's line has since
        fitted = albedo_saturation(remove_specular(px), quantile=0.9)
        if fitted is None:  # achromatic or flat: the scorer leaves these pixels alone
            continue
        depth = mask_depth(mask, frame_cuts=default.frame_cuts)
        veil, _ = default.fresnel_veil(img, mask, depth, default.looks_glossy(img, mask, depth))
        veil = None if veil is None else np.asarray(veil)
        estimate = fitted if veil is None else albedo_saturation(remove_veil(px, veil), quantile=0.9)
        a = srgb_to_linear(np.asarray(m["rgb"], dtype=np.float64) / 255.0)
        truth = float(np.linalg.norm(a - a.mean()) / a.mean())
        rows.append((m, img, mask, px, truth, fitted, estimate))
    print(f"{len(rows)} glossy renders of chromatic colours ({system})")
    ok = [before.score_image(img, m["color"], mask=k)[0].passed for m, img, k, *_ in rows]
    print(f"  fitted floor (no veil):             {100 * np.mean(ok):6.2f} % correct")
    ok = [default.score_image(img, m["color"], mask=k)[0].passed for m, img, k, *_ in rows]
    print(f"  default:                            {100 * np.mean(ok):6.2f} % correct")
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


def light_check(system: str, quick: bool, size: int | None = None) -> None:
    """Scorer version 13's coloured-light step judged on images made after it was chosen: the
    held-out microfacet family's samples (GGX highlights), each under one of the illuminant
    family's lights in turn, every other one grey-world balanced, truth as the illuminant family
    defines it. Accuracy with the step (the default) and without (``light_planarity=None``), paired."""
    from huebench.benchmarks.gencolor import families as fam

    bench = Diagnostic(system=system, quick=quick, family="microfacet", size=size)
    size = bench.size
    on, off = ColorScorer(system), ColorScorer(system, light_planarity=None)
    rows: dict[tuple[str, bool], list[tuple[bool, bool, bool, bool]]] = {}
    for j, s in enumerate(bench.samples()):
        light, balanced = list(fam.ILLUMINANTS)[j % 4], (j // 4) % 2 == 1
        shading = fam.MICROFACET_SETUPS[s.inputs["setup"]][1]
        known = fam.under_light(s.inputs["object"], s.inputs["rgb"], shading, light, balanced, size, j)
        target, far = bench.target_of(s, known.truth), bench.far_color(s, known.truth)
        rows.setdefault((light, balanced), []).append(
            tuple(  # type: ignore[arg-type]
                sc.score_image(known.image, t, mask=known.mask)[0].passed for sc in (off, on) for t in (target, far)
            )
        )
    every = []
    for (light, balanced), r in sorted(rows.items()):
        a = np.array(r, dtype=bool)
        every.append(a)
        print(
            f"  {light:7s} {'balanced' if balanced else 'as lit  '} {len(a):5d} images: "
            f"{100 * a[:, 0].mean():6.2f} → {100 * a[:, 2].mean():6.2f} % "
            f"(gained {int((a[:, 2] & ~a[:, 0]).sum())}, lost {int((a[:, 0] & ~a[:, 2]).sum())}; "
            f"far accepts {int(a[:, 1].sum())} → {int(a[:, 3].sum())})"
        )
    a = np.concatenate(every)
    d, lo, hi = paired_difference(a[:, 2], a[:, 0])
    print(
        f"  all {len(a)} images: {100 * a[:, 0].mean():.2f} → {100 * a[:, 2].mean():.2f} % ({d:+.2f} [{lo:+.2f}, {hi:+.2f}])"
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


def work_bound(system: str, bounds: tuple[int, ...] = (65_536, 32_768, 16_384)) -> None:
    """Large known-colour images (16 of each NumPy-made family, alternately 384 and 768 px, the
    objects 40–230K pixels): the dominant colour under each ``max_object_pixels`` against every
    pixel — |ΔE00|, pass/fail flips, gloss-decision flips — and the time per image (one process).
    Images whose mask is under the bound are judged at every pixel: identical by construction, so
    every 48–64 px family image is unchanged."""
    from huebench.benchmarks.base import Sample
    from huebench.benchmarks.gencolor.families import family_samples, make_image
    from huebench.color import delta_e

    bench = Diagnostic(system=system, quick=True)
    rng = np.random.default_rng(7)
    images = []
    for family in ("analytic", "textured", "illuminant", "microfacet", "processed"):
        inputs = [i for i in family_samples(family, bench._colors(), seed=0) if i.get("base") != "mitsuba"]
        for j, k in enumerate(rng.choice(len(inputs), size=16, replace=False)):
            known = make_image(inputs[k], size=384 if j % 2 == 0 else 768, seed=0)
            target = bench.target_of(Sample(id=f"{family}{j}", inputs=inputs[k]), known.truth)
            images.append((known.image, known.mask, target))
    print(f"{len(images)} images, mask pixels: median {int(np.median([m.sum() for _, m, _ in images])):,}")
    results = {}
    for bound in (None, *bounds):
        scorer = ColorScorer(system, max_object_pixels=bound)
        t0 = time.perf_counter()
        results[bound] = [scorer.score_image(img, target, mask=m)[0] for img, m, target in images]
        ms = 1000 * (time.perf_counter() - t0) / len(images)
        print(
            f"  max_object_pixels {bound}: {ms:.0f} ms per image, {100 * np.mean([s.passed for s in results[bound]]):.2f} % pass"
        )
    full = results[None]
    for bound in bounds:
        d = np.array(
            [
                float(delta_e(np.array(a.dominant_lab), np.array(b.dominant_lab)))
                for a, b in zip(full, results[bound], strict=True)
            ]
        )
        flips = sum(a.passed != b.passed for a, b in zip(full, results[bound], strict=True))
        gloss = sum((a.veil is None) != (b.veil is None) for a, b in zip(full, results[bound], strict=True))
        print(
            f"  {bound} vs every pixel: |ΔE00| median {np.median(d):.3f}, 90th percentile {np.quantile(d, 0.9):.3f}, "
            f"99th {np.quantile(d, 0.99):.3f}, max {d.max():.3f}; pass/fail flips {flips}; veil decisions changed {gloss}"
        )


if __name__ == "__main__":
    main()
