"""Changes to the scorer's physics tried after version 19 and not adopted: the evidence, runnable.

Each trial replaces one step of the scorer (the albedo-saturation estimate of the diffuse line, the
gloss test, the veil's light, the fitted floor) for the length of a run, then scores every image of
the tuning families and the held-out ones but those kept unseen (``UNSEEN_FAMILIES``; ``rendered``
judged version 20, ``graded`` version 21, ``looks`` version 22, ``finishes`` version 23 and
``encodings`` version 24, each once, and are measured since) paired against the default, as
``scorer_study.py --paired`` does for the scorer's options.
Version 20's curve test (the scorer's ``curve_turn``), version 21's darker-half test
(``dark_fall``), version 22's darker-pixel floor on the veil (``veil_floor_errors``) and version
23's band cap on the glossy line (``line_band``, ``band_floor_errors``) came out of these trials,
and version 24's curve test below that floor (``floor_curve_turn``) out of ``scorer_study.py
--paired``; ``--version19`` runs the default and the trials without the first four, ``--version20``
without the last three of them, ``--version21`` without the last two, ``--version22`` without the
band cap and version 24's test, ``--version23`` without that test, as the trials before each were
measured (the trials that change the veil — ``light-veil-*``, ``shade-veil-*``,
``soft-veil-*``, the ``*-no-veil-*`` gates — were measured before version 22: under the default
their veil is then cut to the darker pixels' floor, so run them with ``--version21`` to repeat
their figures; the glossy line's rules read the package's estimate, capped since version 23):

    python perf/scorer_trials.py --quick --version19 --trial mode --trial skew-switch-1.5
    python perf/scorer_trials.py --quick --version20 --trial dark-fall-switch-90 --trial soft-veil-95
    python perf/scorer_trials.py --quick --version21 --trial darker-floor-veil-se2 --trial matte-bright-50
    python perf/scorer_trials.py --quick --version22 --trial band-cap-30-80-floor2 --trial upper-noise-50
    python perf/scorer_trials.py --quick --system css3 --trial mode
    python perf/scorer_trials.py --list
    python perf/scorer_trials.py --quick --estimators   # q90, mode and median against the truth
    python perf/scorer_trials.py --quick --white        # the white on path-traced plastic, per light
    python perf/scorer_trials.py --flat-noise --trial line-flat-0 --system css3   # flat noisy patches

The trials replace NumPy code paths, so the run sets ``HUEBENCH_NO_NUMBA`` (the kernels compute the
same values as those paths; docs/performance.md). They are trials of the rules: every scorer runs
without version 25's calibration (``HUEBENCH_STUDY_RULES``, scorer_study's ``--rules``). Options the scorer takes (``max_chroma_excess``,
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
# the trials are trials of the rules: every scorer without version 25's calibration, which learnt
# the default rules' output (scorer_study's --rules; the workers read it from the environment)
os.environ["HUEBENCH_STUDY_RULES"] = "1"

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scorer_study

from huebench import stats
from huebench.benchmarks.gencolor import scoring
from huebench.color import _kernels, reflectance
from huebench.color.conversions import RGB_TO_XYZ, srgb8_to_linear

assert not _kernels.AVAILABLE, "HUEBENCH_NO_NUMBA must be set before huebench is imported"


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


def line_pixels(fit: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The saturations, grey components and linear RGB of the pixels the diffuse line estimates
    from (the package's :meth:`~huebench.color.reflectance.DichromaticFit.line_pixels`)."""
    return fit.line_pixels()


#: what a line rule gets: the package's estimate (the quantile's value), the quantile, and the
#: saturations, grey components and linear RGB of the pixels it was taken from (:func:`line_pixels`);
#: it returns the saturation (None: no line)
LineRule = Callable[[float, float, np.ndarray, np.ndarray, np.ndarray], float | None]


def line_saturation(rule: LineRule, *, glossy_only: bool = True, flat: float | None = None) -> None:
    """The diffuse line's albedo saturation from ``rule(package_estimate, quantile, saturations,
    greys)`` — on glossy surfaces (the 0.9 quantile) only, or with ``glossy_only=False`` on matte
    ones (the median) only; ``flat``: the flat-patch range test's ratio instead of the package's (a
    flat patch gets no line)."""
    default = reflectance._saturation_from_fit

    def saturation(
        fit: Any,
        quantile: float,
        curve_turn: float | None = None,
        dark_fall: float | None = None,
        line_band: tuple[float, float] | None = None,
        flat_line: bool = False,
    ) -> float | None:
        if (quantile >= 0.85) != glossy_only:
            return default(fit, quantile, curve_turn, dark_fall, line_band, flat_line)
        sat, grey, lin = line_pixels(fit)
        if flat is None:
            estimate = default(fit, quantile, curve_turn, dark_fall, line_band, flat_line)
            if estimate is None:
                return None
        else:  # the trial's range test where the package's would run (version 28: not on glossy-called flat_line)
            lo, hi = stats.quantile(fit.grey[fit.use], [0.1, 0.9])
            if not flat_line and hi < flat * lo:
                return None
            estimate = float(stats.quantile(sat, quantile))
        return rule(estimate, quantile, sat, grey, lin)

    reflectance._saturation_from_fit = saturation


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``values`` where each counts with its weight (the smallest value whose
    cumulative weight share reaches ``q``)."""
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][min(int(np.searchsorted(cumulative / cumulative[-1], q)), len(values) - 1)])


def grey_weighted(power: int) -> LineRule:
    """The glossy line's quantile weighted by the pixels' grey component to ``power``: bright
    pixels carry less noise in their saturation."""
    return lambda estimate, quantile, sat, grey, lin: weighted_quantile(sat, grey**power, quantile)


def interior_saturations(image: np.ndarray, depth: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Saturations and grey components of the unclipped pixels more than two in from the mask's
    edge, the darkest tenth left out (None: fewer than 20)."""
    px = image[depth > 2]
    px = px[(px < reflectance.CLIPPED).all(axis=1)]
    lin = srgb8_to_linear(px)
    grey = lin.mean(axis=1)
    keep = grey > np.quantile(grey, 0.1) if len(grey) else grey > 0
    lin, grey = lin[keep], grey[keep]
    if len(grey) < 20:
        return None
    return np.linalg.norm(lin - grey[:, None], axis=1) / np.maximum(grey, 1e-6), grey


#: what a gloss rule gets: the scorer, the gloss test's answer, the image, its mask and mask depth
GlossRule = Callable[[Any, bool, np.ndarray, np.ndarray, np.ndarray], bool]


def gloss_test(rule: GlossRule) -> None:
    """The gloss test's answer passed through ``rule(scorer, answer, image, mask, depth)``."""
    default = scoring.ColorScorer.looks_glossy

    def looks_glossy(self: Any, image: np.ndarray, mask: np.ndarray, depth: np.ndarray) -> bool:
        return rule(self, default(self, image, mask, depth), image, mask, depth)

    scoring.ColorScorer.looks_glossy = looks_glossy  # type: ignore[method-assign]


def skewed_is_matte(limit: float) -> GlossRule:
    def rule(scorer: Any, glossy: bool, image: np.ndarray, mask: np.ndarray, depth: np.ndarray) -> bool:
        found = interior_saturations(image, depth) if glossy else None
        return glossy and (found is None or skew(found[0]) <= limit)

    return rule


def rim_is_glossy(scorer: Any, glossy: bool, image: np.ndarray, mask: np.ndarray, depth: np.ndarray) -> bool:
    rim = reflectance.rim_saturation(image, mask, band=scorer.rim_band, depth=depth)
    return glossy or (rim is not None and scorer.rim_ratio is not None and rim < scorer.rim_ratio)


def veil_without_gloss_test() -> None:
    """The veil wherever the rim shows reflected surroundings, whatever the gloss test says."""
    default = scoring.specular_veil

    def veil(image: np.ndarray, mask: np.ndarray, *, glossy: bool | None = None, **kw: Any) -> Any:
        return default(image, mask, glossy=True if glossy is False else glossy, **kw)

    scoring.specular_veil = veil


def lit_pixels(image: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The object's unclipped pixels (linear RGB), their luminance, and which are its most lit 15 %
    (None: fewer than 20)."""
    px = image[np.asarray(mask, dtype=bool)]
    lin = srgb8_to_linear(px[(px < reflectance.CLIPPED).all(axis=1)])
    if len(lin) < 20:
        return None
    lum = lin @ RGB_TO_XYZ[1]
    return lin, lum, lum >= np.quantile(lum, 0.85)


def lit_light(image: np.ndarray, mask: np.ndarray, top_albedo: float) -> float | None:
    """The least light the lit surface implies: the median over its most lit 15 % (luminance) of
    their largest channel, over ``top_albedo`` + F0 (no albedo channel reflects more)."""
    found = lit_pixels(image, mask)
    if found is None:
        return None
    lin, _, lit = found
    return float(np.median(lin[lit].max(axis=1))) / (top_albedo + reflectance.F0_DIELECTRIC)


def shade_share(image: np.ndarray, mask: np.ndarray, level: float) -> float | None:
    """The share of the lit surface's light that reaches its shaded side: the ``level`` quantile of
    the unclipped pixels' luminance over the median of the most lit 15 % (None: fewer than 20)."""
    found = lit_pixels(image, mask)
    if found is None:
        return None
    _, lum, lit = found
    top = float(np.median(lum[lit]))
    return float(np.quantile(lum, level)) / top if top > 0 else None


#: what a veil rule gets: the veil the package found (linear RGB, not None), the image, its mask and
#: the Fresnel reflectance; it returns the veil to take off (None: none)
VeilRule = Callable[[Any, np.ndarray, np.ndarray, float], Any]


def veil_rule(rule: VeilRule) -> None:
    """Where the package finds a veil, ``rule`` says which one comes off (only the veil changes:
    the light-colour step keeps its reading of the surroundings)."""
    default = scoring.specular_veil

    def veil(image: np.ndarray, mask: np.ndarray, *, fresnel: float = reflectance.F0_DIELECTRIC, **kw: Any) -> Any:
        found = default(image, mask, fresnel=fresnel, **kw)
        return None if found is None else rule(found, image, mask, fresnel)

    scoring.specular_veil = veil


def light_veil(top_albedo: float) -> None:
    """Where a veil comes off, it is at least F0 × the light the lit surface implies
    (:func:`lit_light`): under even light a dielectric mirrors the light that lights it, which a
    dark backdrop does not show."""

    def rule(found: Any, image: np.ndarray, mask: np.ndarray, fresnel: float) -> Any:
        light = lit_light(image, mask, top_albedo)
        return found if light is None else np.maximum(found, fresnel * light)

    veil_rule(rule)


def shade_veil(level: float) -> None:
    """Where a veil comes off, it is at least F0 × the light the lit surface implies × the share of
    it that reaches the shaded side (:func:`shade_share`): the light from everywhere (the
    environment), which a dielectric mirrors wherever it does not mirror the lamp."""

    def rule(found: Any, image: np.ndarray, mask: np.ndarray, fresnel: float) -> Any:
        light, share = lit_light(image, mask, 1.0), shade_share(image, mask, level)
        return found if light is None or share is None else np.maximum(found, fresnel * light * min(share, 1.0))

    veil_rule(rule)


def soft_light_veil(rim_below: float) -> None:
    """A veil also on surfaces the gloss test calls matte where the rim shows a Fresnel reflection
    (:func:`~huebench.color.reflectance.rim_saturation` below ``rim_below``): F0 × the light the
    lit surface implies (:func:`lit_light`, top albedo 1). Under an even (soft) light a plastic
    mirrors the light that lights it on every pixel alike — no highlight for the gloss test, every
    pixel equally whitened — and only its grazing rim, where Fresnel reflection climbs, shows it."""
    default = scoring.specular_veil

    def veil(image: np.ndarray, mask: np.ndarray, *, glossy: bool | None = None, **kw: Any) -> Any:
        found = default(image, mask, glossy=glossy, **kw)
        if found is not None or glossy is not False:
            return found
        rim = reflectance.rim_saturation(
            image, mask, band=kw.get("rim_band", reflectance.RIM_BAND), depth=kw.get("depth")
        )
        if rim is None or rim >= rim_below:
            return None
        light = lit_light(image, mask, 1.0)
        return None if light is None else kw.get("fresnel", reflectance.F0_DIELECTRIC) * light

    scoring.specular_veil = veil


def interior_rank(image: np.ndarray, mask: np.ndarray, darker_half: bool) -> float | None:
    """The rank correlation of saturation with brightness over the object's interior pixels
    (:func:`interior_saturations`) — over their darker half only with ``darker_half`` (None: too
    few pixels)."""
    found = interior_saturations(image, reflectance.mask_depth(np.asarray(mask, dtype=bool)))
    if found is None:
        return None
    sat, grey = found
    if darker_half:
        dark = grey < np.median(grey)
        if dark.sum() < 10:
            return None
        sat, grey = sat[dark], grey[dark]
    return reflectance.rank_correlation(sat, grey)


def falling_keeps_veil(fall: float, darker_half: bool) -> None:
    """No veil where the object's saturation falls with brightness rank for rank (below ``fall``),
    over all its interior or over its darker half: a veil reflected alike onto every pixel makes
    the darker pixels *less* saturated, not more."""

    def rule(found: Any, image: np.ndarray, mask: np.ndarray, fresnel: float) -> Any:
        rank = interior_rank(image, mask, darker_half)
        return None if rank is not None and rank < fall else found

    veil_rule(rule)


def curve_keeps_veil(turn: float) -> None:
    """No veil where the object's pixels show a curve on each channel
    (``reflectance.shows_channel_curve`` on the diffuse line's pixels, hue turn above ``turn``):
    a curve's compression, not a reflection, whitens the lit face."""

    def rule(found: Any, image: np.ndarray, mask: np.ndarray, fresnel: float) -> Any:
        fit = reflectance.DichromaticFit(image[np.asarray(mask, dtype=bool)])
        if not fit.fits(0.15):
            return found
        sat, grey, lin = fit.line_pixels()
        return None if reflectance.shows_channel_curve(lin, grey, sat, turn=turn) else found

    veil_rule(rule)


def mode(estimate: float, quantile: float, sat: np.ndarray, grey: np.ndarray, lin: np.ndarray) -> float:
    """The half-sample mode of the saturations."""
    return half_sample_mode(sat)


def upper_mode(estimate: float, quantile: float, sat: np.ndarray, grey: np.ndarray, lin: np.ndarray) -> float:
    """The half-sample mode of the saturations from their 0.25 quantile up."""
    return half_sample_mode(sat[sat >= np.quantile(sat, 0.25)])


def skew_switch(limit: float) -> LineRule:
    """:func:`upper_mode` where the saturations' upper tail is over ``limit`` × the lower, else the
    package's estimate."""
    return lambda estimate, quantile, sat, grey, lin: (
        upper_mode(estimate, quantile, sat, grey, lin) if skew(sat) > limit else estimate
    )


def brighter_quantile(share: float) -> LineRule:
    """The glossy line's quantile over the pixels whose grey component is at or above its ``share``
    quantile: the saturation near the lit surface's brightness (a tone curve makes darker pixels
    more saturated than the lit face)."""

    def rule(estimate: float, quantile: float, sat: np.ndarray, grey: np.ndarray, lin: np.ndarray) -> float:
        bright = grey >= np.quantile(grey, share)
        return float(np.quantile(sat[bright], quantile)) if bright.sum() >= 10 else estimate

    return rule


def curve_switch(share: float, fall: float | None, turn: float | None) -> LineRule:
    """:func:`brighter_quantile` where the pixels look curved by one test alone — saturation falls
    with brightness (rank correlation below ``fall``) or their hue turns by more than ``turn``
    degrees — else the package's estimate. The scorer's ``curve_turn`` (version 20) asks for both
    (``reflectance.shows_channel_curve``); with both given this is its rule but for the fallback of
    :func:`brighter_quantile` on fewer than 10 bright pixels."""
    brighter = brighter_quantile(share)

    def rule(estimate: float, quantile: float, sat: np.ndarray, grey: np.ndarray, lin: np.ndarray) -> float:
        curved = len(sat) >= 20
        if curved and fall is not None:
            curved = reflectance.rank_correlation(sat, grey) < fall
        if curved and turn is not None:
            curved = abs(reflectance.hue_turn(lin, grey)) > turn
        return brighter(estimate, quantile, sat, grey, lin) if curved else estimate

    return rule


def dark_fall_switch(fall: float, share: float = 0.7) -> LineRule:
    """:func:`brighter_quantile` also where the saturation of the darker half of the line's pixels
    falls with their brightness rank for rank (rank correlation below ``fall``), hue turn or not: a
    constant veil makes the darker pixels *less* saturated, a highlight stays in the brighter half,
    one albedo keeps one saturation — a curve on the channels (or a veil taken off that was not
    there) makes them more saturated the darker they are."""
    brighter = brighter_quantile(share)

    def rule(estimate: float, quantile: float, sat: np.ndarray, grey: np.ndarray, lin: np.ndarray) -> float:
        dark = grey < np.median(grey)
        if dark.sum() < 10 or reflectance.rank_correlation(sat[dark], grey[dark]) >= fall:
            return estimate
        return brighter(estimate, quantile, sat, grey, lin)

    return rule


def upper_noise(share: float) -> LineRule:
    """The glossy line's estimate less ``share`` of the noise its quantile reads above the albedo:
    reflected white lowers saturation only, so the saturations above the 0.9 quantile are the
    noise's upper tail, whose width there, (q97.5 − q90) / (1.96 − 1.28), is its σ; a 0.9 quantile of
    one saturation under that noise lies 1.28 σ above it."""

    def rule(estimate: float, quantile: float, sat: np.ndarray, grey: np.ndarray, lin: np.ndarray) -> float:
        q90, q975 = np.quantile(sat, [0.9, 0.975])
        return max(estimate - share * 1.2816 * (q975 - q90) / (1.96 - 1.2816), 1e-3)

    return rule


def band_cap(low: float, high: float, floor_errors: float | None = None) -> LineRule:
    """The glossy line's estimate, or the 0.9 quantile over the pixels between the ``low`` and
    ``high`` quantiles of brightness where that is lower: the darkest pixels' saturation is the
    noisiest (noise over a small grey component) and a curve's toe raises it, the brightest carry
    the highlight. ``floor_errors``: only where the image's darker-pixel floor (:data:`_DARKER`,
    :func:`read_darker_floor`) lies no more than this many standard errors below 0 — where it
    lies further below, the darker pixels are more saturated than one albedo under a veil makes
    them (a face mirroring a darker floor than the lit one mirrors), and they say so."""

    def rule(estimate: float, quantile: float, sat: np.ndarray, grey: np.ndarray, lin: np.ndarray) -> float:
        if floor_errors is not None and reflectance.floor_below_zero(_DARKER.get("floor"), floor_errors):
            return estimate
        band = reflectance.line_band_saturation(sat, grey, quantile, (low, high))
        return estimate if band is None else min(estimate, band)

    return rule


def chroma_top(share: float, level: float = 0.5) -> LineRule:
    """The ``level`` quantile of the saturations of the ``share`` of pixels farthest from the grey
    axis (saturation × grey component: linear chroma), at least 10 of them."""

    def rule(estimate: float, quantile: float, sat: np.ndarray, grey: np.ndarray, lin: np.ndarray) -> float:
        chroma = sat * grey
        top = chroma >= np.quantile(chroma, 1.0 - share)
        return float(np.quantile(sat[top], level)) if top.sum() >= 10 else estimate

    return rule


def curved_chroma_top(share: float) -> LineRule:
    """:func:`chroma_top`'s q90 where the package's curve tests fire on the line's pixels
    (``reflectance.line_shows_curve`` at the defaults), else the package's estimate."""
    top = chroma_top(share, 0.9)

    def rule(estimate: float, quantile: float, sat: np.ndarray, grey: np.ndarray, lin: np.ndarray) -> float:
        return top(estimate, quantile, sat, grey, lin) if reflectance.line_shows_curve(lin, grey, sat) else estimate

    return rule


def raw_bound_where_curved() -> None:
    """The bound on invented chroma counted from the pixels before the veil comes off (as without a
    veil) where those pixels show a curve on each channel (version 20's and 21's tests on the
    line's pixels): a curve makes the veil's gain in chroma doubtful."""
    remove, p99 = scoring.remove_specular, scoring._chroma_p99
    after: dict[int, Any] = {}

    def removing(px8: np.ndarray, method: str = "fitted-floor", **kwargs: Any) -> np.ndarray:
        out = remove(px8, method=method, **kwargs)
        if method == "fresnel-veil":
            fit = reflectance.DichromaticFit(px8)
            if fit.fits(0.15):
                sat, grey, lin = fit.line_pixels()
                if reflectance.line_shows_curve(lin, grey, sat):
                    after.clear()
                    after[id(out)] = px8
        return out

    def bound(px8: np.ndarray, light: Any) -> float:
        raw = after.pop(id(px8), None)
        return p99(px8 if raw is None else raw, light)

    scoring.remove_specular = removing
    scoring._chroma_p99 = bound


def darker_floor_veil_se(share: float, k: float) -> None:
    """The veil as the darker ``share`` of the interior's pixels allow it, ``k`` standard errors of
    their floor (version 22's rule, ``reflectance.veil_within_floor``, at any share and ``k``)."""

    def rule(found: Any, image: np.ndarray, mask: np.ndarray, fresnel: float) -> Any:
        return reflectance.veil_within_floor(found, reflectance.darker_floor(image, mask, share=share), k)

    veil_rule(rule)


def darker_floor_veil(share: float) -> None:
    """The veil no larger than the floor the darker ``share`` of the interior's pixels show
    (``reflectance.darker_floor``, its standard error unused); none where that floor is not
    positive."""

    def rule(found: Any, image: np.ndarray, mask: np.ndarray, fresnel: float) -> Any:
        fitted = reflectance.darker_floor(image, mask, share=share)
        if fitted is None:
            return found
        return None if fitted[0] <= 0 else np.minimum(found, fitted[0])

    veil_rule(rule)


#: the darker pixels' floor of the image being scored (``reflectance.darker_floor``), and whether
#: it cut the veil to nothing: what the fitted-floor trials bound the fitted floor by
_DARKER: dict[str, Any] = {}


def read_darker_floor() -> None:
    """Read each scored image's darker-pixel floor into :data:`_DARKER` (for every image whose veil
    the scorer looks for: not those version 24's curve test calls a curve, which take none), and
    whether it cut the veil to nothing."""
    score_image, fresnel_veil = scoring.ColorScorer.score_image, scoring.ColorScorer.fresnel_veil

    def scoring_image(self: Any, image: Any, target: str, mask: Any = None) -> Any:
        _DARKER.clear()
        return score_image(self, image, target, mask)

    def veil_of(self: Any, image: np.ndarray, mask: np.ndarray, depth: np.ndarray, glossy: bool, **kw: Any) -> Any:
        veil, surroundings = fresnel_veil(self, image, mask, depth, glossy, **kw)
        read = kw.get("floor", "unread")  # score_image's read, where it made one
        _DARKER["floor"] = reflectance.darker_floor(image, mask, depth=depth) if read == "unread" else read
        _DARKER["cut"] = veil is None and surroundings is not None
        return veil, surroundings

    scoring.ColorScorer.score_image = scoring_image  # type: ignore[method-assign]
    scoring.ColorScorer.fresnel_veil = veil_of  # type: ignore[method-assign]


def fitted_floor_rule(rule: Callable[[float, dict[str, Any]], float | None]) -> None:
    """Where the fitted white floor (``reflectance.remove_fitted_floor``) would come off, ``rule``
    (the fitted floor, the image's :data:`_DARKER`) says how much does (None: none)."""
    read_darker_floor()
    without = reflectance._without_floor

    def taking(rgb8: np.ndarray, lin_all: np.ndarray, floor: float, max_floor: float | None) -> np.ndarray:
        allowed = rule(floor, _DARKER)
        return np.asarray(rgb8) if allowed is None else without(rgb8, lin_all, allowed, max_floor)

    reflectance._without_floor = taking


def cut_veil_refuses_floor(floor: float, darker: dict[str, Any]) -> float | None:
    """No fitted floor where the darker pixels cut the veil to nothing (a floor ≤ 0)."""
    return None if darker.get("cut") else floor


def darker_floor_bounds_fitted(k: float) -> Callable[[float, dict[str, Any]], float | None]:
    """The fitted floor as the darker pixels' floor allows a veil (``veil_within_floor``, ``k``)."""

    def rule(floor: float, darker: dict[str, Any]) -> float | None:
        allowed = reflectance.veil_within_floor(floor, darker.get("floor"), k)
        return None if allowed is None else float(np.mean(allowed))

    return rule


def darker_floor_raises_fitted(k: float) -> Callable[[float, dict[str, Any]], float | None]:
    """The darker pixels' floor instead of the fitted floor where it lies more than ``k`` standard
    errors above it (and above 0): a veil on every pixel that the fit over all of them (highlights,
    a tone curve's shoulder) reads too low."""

    def rule(floor: float, darker: dict[str, Any]) -> float | None:
        found = darker.get("floor")
        if found is None or found[0] <= 0 or found[0] <= floor + k * found[1]:
            return floor
        return found[0]

    return rule


def dark_neutral_middle(below: float, window: tuple[float, float] = (0.4, 0.6)) -> None:
    """The lightness window ``window`` (quantiles of L*) instead of the lit one on neutral surfaces
    (the interior's 0.9 quantile of saturation below ``reflectance.NEUTRAL_SATURATION``) whose
    interior's median grey component (linear) is below ``below``: on a dark surface the reflections
    are as bright as the body, and without chroma the gloss test cannot see them."""
    score_image = scoring.ColorScorer.score_image

    def scoring_image(self: Any, image: Any, target: str, mask: Any = None) -> Any:
        if mask is None:  # the trials score exact masks
            return score_image(self, image, target, mask)
        m = np.asarray(mask, dtype=bool)
        px = reflectance.interior_unclipped(np.asarray(image), reflectance.mask_depth(m), reflectance.GLOSS_INTERIOR)
        saved = self.lightness_window
        if len(px) >= 20:
            lin = reflectance.srgb8_to_linear(px)
            grey = lin.mean(axis=1)
            sat = np.linalg.norm(lin - grey[:, None], axis=1) / np.maximum(grey, 1e-6)
            if np.quantile(sat, 0.9) < reflectance.NEUTRAL_SATURATION and np.median(grey) < below:
                self.lightness_window = window
        try:
            return score_image(self, image, target, mask)
        finally:
            self.lightness_window = saved

    scoring.ColorScorer.score_image = scoring_image  # type: ignore[method-assign]


def glossy_quantile(level: float) -> None:
    scoring.DIFFUSE_QUANTILE = level  # read at each call of ColorScorer.specular_steps


#: the scorer options that give an earlier version's scores (``--version19`` … ``--version23``;
#: versions 19–21 have no darker floor, so version 24's test on it cannot fire there)
VERSION_OPTIONS: dict[str, dict[str, Any]] = {
    "19": {"curve_turn": None, "dark_fall": None, "veil_floor_errors": None, "line_band": None},
    "20": {"dark_fall": None, "veil_floor_errors": None, "line_band": None},
    "21": {"veil_floor_errors": None, "line_band": None},
    "22": {"line_band": None, "floor_curve_turn": None},
    "23": {"floor_curve_turn": None},
}

#: name → (what it changes, how)
TRIALS: dict[str, tuple[str, Callable[[], None]]] = {
    "mode": (
        "glossy line: the half-sample mode of the saturations instead of their 0.9 quantile",
        lambda: line_saturation(mode),
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
        for limit in (1.0, 1.5, 2.0, 2.5, 3.0)
    },
    **{
        f"weighted-q90-{power}": (
            f"glossy line: q90 weighted by the grey component to the power {power}",
            lambda power=power: line_saturation(grey_weighted(power)),
        )
        for power in (1, 2)
    },
    **{
        f"q{round(100 * level)}": (f"glossy line: the {level:g} quantile", lambda level=level: glossy_quantile(level))
        for level in (0.85, 0.95)
    },
    **{
        f"shade-veil-{round(100 * level)}": (
            f"veil: at least F0 × the lit light × the {level:g} quantile of luminance over the lit surface's",
            lambda level=level: shade_veil(level),
        )
        for level in (0.1, 0.25, 0.5)
    },
    **{
        f"bright-q90-{round(100 * share)}": (
            f"glossy line: q90 over the pixels from the {share:g} quantile of brightness up, everywhere",
            lambda share=share: line_saturation(brighter_quantile(share)),
        )
        for share in (0.5, 0.75)
    },
    **{
        f"fall-switch-{round(-100 * fall)}-from-{round(100 * share)}": (
            f"glossy line: q90 from the {share:g} quantile of brightness up where saturation's rank "
            f"correlation with brightness is below {fall:g} (no hue test)",
            lambda fall=fall, share=share: line_saturation(curve_switch(share, fall, None)),
        )
        for fall, share in ((-0.8, 0.5), (-0.9, 0.5), (-0.9, 0.7))
    },
    **{
        f"turn-switch-{turn:g}": (
            f"glossy line: q90 from the 0.7 quantile of brightness up where hue turns by more than {turn:g}° (no fall test)",
            lambda turn=turn: line_saturation(curve_switch(0.7, None, turn)),
        )
        for turn in (0.5, 1.0)
    },
    **{
        f"dark-fall-switch-{round(-100 * fall)}": (
            f"glossy line: q90 from the 0.7 quantile of brightness up also where the darker half's saturation "
            f"falls with brightness (rank correlation below {fall:g}), hue turn or not",
            lambda fall=fall: line_saturation(dark_fall_switch(fall)),
        )
        for fall in (-0.95, -0.9, -0.85, -0.8)
    },
    **{
        f"soft-veil-{round(100 * rim)}": (
            f"veil F0 × the lit light also on matte-called surfaces whose rim ratio is below {rim:g}",
            lambda rim=rim: soft_light_veil(rim),
        )
        for rim in (0.95, 0.93)
    },
    **{
        f"{'dark-' if dark else ''}fall-no-veil-{round(-100 * fall)}": (
            f"veil: none where the saturation of the object's {'darker half' if dark else 'interior'} falls with "
            f"brightness (rank correlation below {fall:g})",
            lambda fall=fall, dark=dark: falling_keeps_veil(fall, dark),
        )
        for dark in (True, False)
        for fall in (-0.9, -0.85)
    },
    "curve-no-line": (
        "glossy line: none where the pixels show a curve on each channel (the lit window reads the pixels as they are)",
        lambda: line_saturation(
            lambda estimate, quantile, sat, grey, lin: (
                None if len(sat) >= 20 and reflectance.shows_channel_curve(lin, grey, sat) else estimate
            )
        ),
    ),
    **{
        f"dark-neutral-middle-{round(100 * below)}": (
            f"lightness: the window (0.4, 0.6) of L* on neutral surfaces whose median interior grey is below {below:g} "
            "(glossy blacks' reflections fill the lit window)",
            lambda below=below: dark_neutral_middle(below),
        )
        for below in (0.05, 0.08)
    },
    "curve-no-veil": (
        "veil: none where the object's pixels show a curve on each channel (hue turn > 0.5°, rank < -0.9)",
        lambda: curve_keeps_veil(0.5),
    ),
    **{
        f"matte-bright-{round(100 * share)}": (
            f"matte line: the median over the pixels from the {share:g} quantile of brightness up, everywhere",
            lambda share=share: line_saturation(brighter_quantile(share), glossy_only=False),
        )
        for share in (0.5, 0.7)
    },
    **{
        f"matte-dark-fall-{round(-100 * fall)}": (
            f"matte line: the median from the 0.7 quantile of brightness up where the darker half's saturation "
            f"falls with brightness (rank correlation below {fall:g})",
            lambda fall=fall: line_saturation(dark_fall_switch(fall), glossy_only=False),
        )
        for fall in (-0.9, -0.8, -0.7, -0.6)
    },
    **{
        f"matte-fall-{round(-100 * fall)}-from-{round(100 * share)}": (
            f"matte line: the median from the {share:g} quantile of brightness up where saturation's rank "
            f"correlation with brightness is below {fall:g}",
            lambda fall=fall, share=share: line_saturation(curve_switch(share, fall, None), glossy_only=False),
        )
        for fall, share in ((-0.5, 0.5), (-0.7, 0.5), (-0.8, 0.5), (-0.7, 0.7))
    },
    **{
        f"matte-chroma-top-{round(100 * share)}": (
            f"matte line: the median saturation of the {share:g} of its pixels farthest from grey (linear chroma: "
            "the lit face, where a curve's toe and shoulder meet; no curve: one albedo, one saturation)",
            lambda share=share: line_saturation(chroma_top(share), glossy_only=False),
        )
        for share in (0.05, 0.1, 0.2)
    },
    **{
        f"curved-chroma-top-{round(100 * share)}": (
            f"glossy line: where the curve tests fire (version 20's hue turn, version 21's darker half), q90 of the "
            f"{share:g} of its pixels farthest from grey (the lit face) instead of q90 from the 0.7 quantile of brightness up",
            lambda share=share: line_saturation(curved_chroma_top(share)),
        )
        for share in (0.1, 0.2, 0.3)
    },
    "curved-raw-bound": (
        "chroma bound: counted from the pixels as they are, not with the veil removed, where they show a curve "
        "(the glossy line's curve tests on them)",
        lambda: raw_bound_where_curved(),
    ),
    **{
        f"darker-floor-veil{'-' + str(round(100 * share)) if share != 0.5 else ''}": (
            f"veil: at most the white floor a line fit finds on the darker {share:g} of the object's interior "
            "(pixels = shading × albedo + veil: the veil is the line's intercept; where no highlight reaches)",
            lambda share=share: darker_floor_veil(share),
        )
        for share in (0.5, 0.7)
    },
    **{
        f"darker-floor-veil-se{k}": (
            f"veil: cut to the darker 0.7 of the interior's white floor (at least 0) where it lies more than {k} standard "
            f"errors above that floor; kept where the floor is more than {k} below 0 (the darker pixels more saturated "
            "than one albedo and a veil make them: the fit says nothing)",
            lambda k=k: darker_floor_veil_se(0.7, k),
        )
        for k in (1, 2, 3)
    },
    "cut-veil-no-floor": (
        "fitted floor: none where the darker pixels cut the Fresnel veil to nothing (their floor ≤ 0)",
        lambda: fitted_floor_rule(cut_veil_refuses_floor),
    ),
    **{
        f"darker-floor-fitted-se{k}": (
            f"fitted floor: cut to the darker 0.7 of the interior's white floor (none at a floor ≤ 0) where it lies "
            f"more than {k} standard errors above it (version 22's rule for the veil, on the fitted floor)",
            lambda k=k: fitted_floor_rule(darker_floor_bounds_fitted(k)),
        )
        for k in (1, 2, 3)
    },
    **{
        f"darker-floor-raises-fitted-se{k}": (
            f"fitted floor: the darker 0.7 of the interior's white floor instead where it lies more than {k} standard "
            "errors above the fitted one (a veil on every pixel the fit over all of them reads too low)",
            lambda k=k: fitted_floor_rule(darker_floor_raises_fitted(k)),
        )
        for k in (2, 3)
    },
    **{
        f"upper-noise-{round(100 * share)}": (
            f"glossy line: the estimate less {share:g} of the noise above the albedo (σ from the saturations' "
            "upper tail, q97.5 − q90, where reflected white never reaches)",
            lambda share=share: line_saturation(upper_noise(share)),
        )
        for share in (0.25, 0.5, 1.0)
    },
    "band-cap-30-80": (
        "glossy line: at most q90 over the pixels from the 0.3 to the 0.8 quantile of brightness (not the noisiest "
        "darkest, not the highlight)",
        lambda: line_saturation(band_cap(0.3, 0.8)),
    ),
    **{
        f"band-cap-30-80-floor{k}": (
            f"glossy line: band-cap-30-80 only where the darker pixels' floor lies no more than {k} standard errors "
            "below 0 (further below, the darker pixels are more saturated than a veil leaves them, and say so)",
            lambda k=k: (read_darker_floor(), line_saturation(band_cap(0.3, 0.8, k))),
        )
        for k in (1, 2, 3)
    },
    "matte-mode": (
        "matte line: the half-sample mode instead of the median",
        lambda: line_saturation(mode, glossy_only=False),
    ),
    "line-flat-0": (
        "glossy line: no flat-patch range test (has_shading alone; without the curve tests: run it with --version19)",
        lambda: line_saturation(lambda estimate, quantile, sat, grey, lin: estimate, flat=0.0),
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
            f"veil: at least F0 × the lit pixels' top channel / ({top:g} + F0)",
            lambda top=top: light_veil(top),
        )
        for top in (1.0, 0.9)
    },
}


def start_worker(data: Any, trial: str | None) -> None:
    """A scoring process of :func:`run`: the images, then the trial's replacement (for its life)."""
    scorer_study._DATA["data"] = data
    if trial is not None:
        TRIALS[trial][1]()


def run(system: str, trial: str | None, data: Any, options: dict[str, Any] | None = None) -> np.ndarray:
    """Every image's (pass, far accepted) under ``trial`` (None: the default), scored by
    ``scorer_study.score_all`` in a fresh process pool (fork: the workers inherit the images)."""
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 2, initializer=start_worker, initargs=(data, trial)) as pool:
        return scorer_study.score_all(pool, system, options or {}, len(data[0]))


def flat_noise_under(system: str, trial: str | None) -> None:
    """``scorer_study.flat_noise`` (flat patches of every colour with pixel noise) under ``trial``,
    in a fresh process so that the replacement ends with it."""
    with ProcessPoolExecutor(max_workers=1, initializer=start_worker, initargs=((), trial)) as pool:
        pool.submit(scorer_study.flat_noise, system).result()


def estimators(system: str, data: Any, options: dict[str, Any] | None = None) -> None:
    """Per family, on the surfaces whose glossy diffuse line runs (chromatic truths, saturation >
    0.15): how far the 0.9 quantile, the half-sample mode and the median of the line's saturations
    are from the truth's saturation (median |log ratio| and median log ratio), and the share of
    surfaces whose saturations have the longer upper tail (:func:`skew` > 1)."""
    meta, imgs, masks = data
    default = reflectance._saturation_from_fit
    seen: list[np.ndarray] = []

    def recording(
        fit: Any,
        quantile: float,
        curve_turn: float | None = None,
        dark_fall: float | None = None,
        line_band: tuple[float, float] | None = None,
        flat_line: bool = False,
    ) -> float | None:
        estimate = default(fit, quantile, curve_turn, dark_fall, line_band, flat_line)
        if quantile >= 0.85 and estimate is not None and not seen:
            seen.append(line_pixels(fit)[0])
        return estimate

    reflectance._saturation_from_fit = recording
    scorer = scoring.ColorScorer(system, **{"calibration": None, **(options or {})})
    rows: dict[str, list[tuple[float, ...]]] = {}
    for m, img, mask in zip(meta, imgs, masks, strict=True):
        seen.clear()
        scorer.score_image(img, m["target"], mask=mask)
        truth = scorer_study.saturation_of(srgb8_to_linear(np.asarray(scorer_study.truth_of(m), dtype=np.uint8)))
        if seen and truth > 0.15:
            sat = seen[0]
            estimates = (np.quantile(sat, 0.9), half_sample_mode(sat), np.median(sat))
            rows.setdefault(m["family"], []).append((*(np.log(v / truth) for v in estimates), skew(sat) > 1))
    reflectance._saturation_from_fit = default
    print(
        "family        surfaces   median |log(estimate / truth)|: q90  mode  median"
        "   bias: q90  mode  median   upper tail longer"
    )
    for family, r in rows.items():
        e = np.array(r)
        err, bias = np.median(np.abs(e[:, :3]), axis=0), np.median(e[:, :3], axis=0)
        print(
            f"{family:12s} {len(e):6d}   {err[0]:26.3f} {err[1]:5.3f} {err[2]:6.3f}"
            f"   {bias[0]:+10.3f} {bias[1]:+5.3f} {bias[2]:+6.3f}   {100 * e[:, 3].mean():10.0f} %"
        )


def white_on_plastic(system: str, data: Any) -> None:
    """The Mitsuba family's plastic renders (chromatic albedos), per lighting and backdrop: each
    pixel solved, by least squares, as a × albedo + w × white (linear RGB; the truth is the albedo
    lit and exposed), then medians of the white of the least white tenth (w q10), of the median
    pixel's and of the white per unit of shading a on the most lit 15 %, beside the veil the scorer
    estimates (F0 × surroundings); and the shares the gloss test calls glossy, a veil comes off and
    pass."""
    meta, imgs, masks = data
    scorer = scoring.ColorScorer(system, calibration=None)
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
                float(bool(score.glossy)),
                float(score.veil is not None),
                float(score.passed),
            )
        )
    print(
        "lighting / backdrop   renders   w q10   w median   w/a lit   F0 × surroundings"
        "   called glossy   veil removed   pass"
    )
    for (lighting, backdrop), r in sorted(groups.items()):
        v = np.array(r)
        med, share = np.median(v[:, :4], axis=0), 100 * v[:, 4:].mean(axis=0)
        print(
            f"{lighting + ' / ' + backdrop:20s} {len(v):8d}   {med[0]:.4f}   {med[1]:.4f}     {med[2]:.3f}"
            f"   {med[3]:17.4f}   {share[0]:11.0f} %   {share[1]:10.0f} %   {share[2]:3.0f} %"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--system", default="iscc-nbs-l2", choices=["iscc-nbs-l2", "css3"])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--cache", default=scorer_study.CACHE)
    p.add_argument("--trial", action="append", default=[], choices=sorted(TRIALS))
    p.add_argument("--list", action="store_true", help="the trials and what each changes")
    p.add_argument("--estimators", action="store_true", help="albedo-saturation estimates against the truth")
    p.add_argument("--white", action="store_true", help="the white on the Mitsuba plastic renders")
    p.add_argument("--flat-noise", action="store_true", help="flat noisy patches, the default and each --trial")
    older = p.add_mutually_exclusive_group()
    older.add_argument(
        "--version19",
        action="store_true",
        help="version 19's scorer (no curve tests: curve_turn and dark_fall None) under the default and every "
        "trial, as the trials made before version 20 were measured",
    )
    older.add_argument(
        "--version20",
        action="store_true",
        help="version 20's scorer (no darker-half test: dark_fall None) under the default and every trial, as "
        "the trials made before version 21 were measured",
    )
    older.add_argument(
        "--version21",
        action="store_true",
        help="version 21's scorer (no darker-pixel floor on the veil: veil_floor_errors None) under the default "
        "and every trial, as the trials made before version 22 were measured",
    )
    older.add_argument(
        "--version22",
        action="store_true",
        help="version 22's scorer (no band cap on the glossy line and no curve test below the darker floor: "
        "line_band and floor_curve_turn None) under the default and every trial, as the trials made before "
        "version 23 were measured",
    )
    older.add_argument(
        "--version23",
        action="store_true",
        help="version 23's scorer (no curve test below the darker floor: floor_curve_turn None) under the default "
        "and every trial, as the trials made before version 24 were measured",
    )
    args = p.parse_args()
    older_version = next((v for v in VERSION_OPTIONS if getattr(args, f"version{v}")), None)
    options = dict(VERSION_OPTIONS[older_version]) if older_version else {}
    if args.list or not (args.trial or args.estimators or args.white or args.flat_noise):
        for name, (what, _) in TRIALS.items():
            print(f"{name:20s} {what}")
        return
    if args.flat_noise:
        for trial in (None, *args.trial):
            print(f"\n{trial or 'the default'}:")
            flat_noise_under(args.system, trial)
    paired = bool(args.trial) and not args.flat_noise  # with --flat-noise the trials are the patches'
    if not (args.estimators or args.white or paired):
        return
    study_args = argparse.Namespace(system=args.system, quick=args.quick, cache=args.cache, size=None, spp=None)
    data = scorer_study.every_family_images(study_args)
    if args.estimators:
        estimators(args.system, data, options)
    if args.white:
        white_on_plastic(args.system, data)
    if not paired:
        return
    family = np.array([m["family"] for m in data[0]])
    default = run(args.system, None, data, options)
    base = f"version {older_version}" if older_version else "the default"
    for trial in args.trial:
        print(f"\n{trial}: {TRIALS[trial][0]} — paired against {base} ({args.system}, exact masks)")
        variant = run(args.system, trial, data, options)
        scorer_study._print_paired(scorer_study.paired_table(family, default, variant))


if __name__ == "__main__":
    main()
