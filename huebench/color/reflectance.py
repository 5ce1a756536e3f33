"""Reflectance of opaque surfaces in images: the gloss test, the Fresnel veil, the dichromatic fit.

Everything here works on 8-bit sRGB pixels in **linear RGB** and rests on the dichromatic
reflection model (Shafer 1985): a pixel of an opaque dielectric is

    p = m_d · A + m_s · S

— the albedo ``A`` scaled by the diffuse shading ``m_d``, plus the light's colour ``S`` (white under
white light) scaled by a specular weight ``m_s``. Two invariants follow, and every function leans on
one of them:

- **saturation** — distance from the grey axis over the grey component, ``|p − p̄| / p̄`` — is the
  albedo's wherever a pixel is purely diffuse, whatever its shading; reflected white only lowers it;
- **chromaticity** — ``p / (r + g + b)`` — does not move with shading either.

The pieces:

- the gloss test: :func:`looks_glossy` (is the lit half uniformly saturated?),
  :func:`surface_looks_glossy` (the same on a mask's interior, after an in-mask blur),
  :func:`rim_saturation` (the Fresnel rim of a surface that reflects its surroundings) and
  :func:`has_shading` (is there shading beyond pixel noise at all?);
- specular removal, :func:`remove_specular` over :data:`SPECULAR_REMOVAL_METHODS`:
  ``"fitted-floor"`` (:func:`remove_fitted_floor`, a floor fitted from the pixels alone) and
  ``"fresnel-veil"`` (:func:`remove_veil`, a veil known from outside the pixels —
  :func:`specular_veil` measures it from the surroundings, :func:`surround_radiance`);
- diffuse reconstruction, :func:`diffuse_reconstruction` over
  :data:`DIFFUSE_RECONSTRUCTION_METHODS`: ``"diffuse-line"`` (:func:`diffuse_line_reconstruction`,
  every pixel back on the albedo's diffuse line, whose saturation :func:`albedo_saturation`
  estimates);
- :func:`main_color_pixels`: the pixels of a surface's main colour (by chromaticity);
- helpers: :func:`mask_depth`, :func:`mask_box`, :func:`smooth_within`, :func:`fit_sample`.

A new method is one function and one entry in its table; ``perf/scorer_study.py`` compares
methods and settings by name. The defaults below are GenColorBench's scorer's
(``huebench/benchmarks/gencolor/scoring.py``), measured there on known-colour images.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from huebench import stats
from huebench._suggest import suggestion_text
from huebench.color import _kernels
from huebench.color._rows import column_medians, masked, row_all, row_any, row_mean, row_norm, row_sum
from huebench.color.conversions import (
    RGB_TO_XYZ,
    linear_to_srgb8,
    srgb8_encoding_tables,
    srgb8_lab_tables,
    srgb8_table,
    srgb8_to_linear,
    srgb_to_lab,
    srgb_to_linear,
)
from huebench.color.difference import delta_e, within_and_nearer
from huebench.color.temperature import MAX_DUV, linear_rgb_cct_duv
from huebench.errors import HuebenchError, UnknownNameError

__all__ = [
    "CURVE_DARK_FALL",
    "CURVE_FALL",
    "CURVE_HUE_TURN",
    "CURVE_LIT_FROM",
    "CURVE_RANK",
    "CURVE_SPREAD",
    "DARK_FALL_PIXELS",
    "DARK_NEUTRAL_LIGHTNESS",
    "DARK_NEUTRAL_QUANTILE",
    "DIFFUSE_RECONSTRUCTION_METHODS",
    "F0_DIELECTRIC",
    "FIT_PIXELS",
    "FLOOR_MIN_SATURATION",
    "GLOSS_INTERIOR",
    "GLOSS_SMOOTH",
    "GLOSS_UNIFORMITY",
    "LIGHT_CCT",
    "LIGHT_MARGIN",
    "LIGHT_MAX_DUV",
    "LIGHT_MIN_TILT",
    "LIGHT_PLANARITY",
    "LIGHT_PLANE_FILL",
    "LINE_BAND",
    "MAIN_COLOR_FROM",
    "MAX_REMOVED_WHITE",
    "NEUTRAL_HIGHLIGHT",
    "NEUTRAL_SATURATION",
    "RIM_BAND",
    "RIM_RATIO",
    "SPECULAR_REMOVAL_METHODS",
    "VEIL_FLOOR_ERRORS",
    "VEIL_FLOOR_SHARE",
    "VEIL_NOISE",
    "VEIL_QUANTILE",
    "VEIL_TOLERANCE",
    "DichromaticFit",
    "albedo_saturation",
    "balance",
    "check_curve_turn",
    "check_dark_fall",
    "check_floor_errors",
    "check_line_band",
    "check_max_duv",
    "check_veil_floor",
    "check_white_bounds",
    "chroma_quantile",
    "dark_neutral",
    "darker_floor",
    "darker_half_falls",
    "dichromatic_steps",
    "diffuse_fresnel_reflectance",
    "diffuse_line_reconstruction",
    "diffuse_reconstruction",
    "edge_near_surroundings",
    "fit_sample",
    "fit_sample_of",
    "fit_veil",
    "floor_below_zero",
    "fresnel_reflectance",
    "gaussian_blur",
    "grow_mask",
    "has_shading",
    "hue_turn",
    "interior_hue_turn",
    "interior_unclipped",
    "light_colour",
    "lightness_varies",
    "line_band_saturation",
    "line_shows_curve",
    "lit_saturation",
    "looks_glossy",
    "main_color_pixels",
    "mask_box",
    "mask_depth",
    "neutral_highlights",
    "plausible_light",
    "rank_correlation",
    "remove_fitted_floor",
    "remove_specular",
    "remove_veil",
    "rim_saturation",
    "shows_channel_curve",
    "smooth_within",
    "specular_veil",
    "surface_looks_glossy",
    "surround_radiance",
    "unclipped",
    "unclipped_shading",
    "veil_within_floor",
    "white_follows_brightness",
]

#: Fresnel reflectance at normal incidence of the dielectrics most objects are made of, coated or
#: painted with (plastics, paints, glazes, glass: n ≈ 1.5 gives ((n − 1)/(n + 1))² ≈ 0.04; the
#: diagnostic renders' plastic has n = 1.49, 0.039). Even where a glossy surface reflects least it
#: reflects this much of its surroundings as white (:func:`specular_veil`)
F0_DIELECTRIC = 0.04


def fresnel_reflectance(cos_incidence: Any, n: float = 1.5) -> NDArray[np.float64]:
    """Unpolarised Fresnel reflectance of a smooth dielectric of relative refractive index ``n``
    at these cosines of the angle of incidence, each in [0, 1] (the mean of the s and p
    reflectances; 1 beyond the critical angle where ``n`` < 1, 0 everywhere for ``n`` = 1: no
    interface). At normal incidence it is ((n − 1)/(n + 1))²."""
    if not n > 0:
        raise HuebenchError(f"n must be a refractive index > 0, got {n!r}")
    cos_i = np.asarray(cos_incidence, dtype=np.float64)
    if not np.all((cos_i >= 0.0) & (cos_i <= 1.0)):
        raise HuebenchError("cosines of incidence must lie in [0, 1] (light from the surface's outer side)")
    if n == 1:
        return np.zeros_like(cos_i)
    sin_t2 = (1.0 - cos_i * cos_i) / (n * n)
    cos_t = np.sqrt(np.clip(1.0 - sin_t2, 0.0, None))
    with np.errstate(invalid="ignore", divide="ignore"):
        r_s = ((cos_i - n * cos_t) / (cos_i + n * cos_t)) ** 2
        r_p = ((cos_t - n * cos_i) / (cos_t + n * cos_i)) ** 2
    return np.where(sin_t2 >= 1.0, 1.0, (r_s + r_p) / 2)


@functools.cache
def diffuse_fresnel_reflectance(n: float = 1.5) -> float:
    """The share of light from a uniform sky that a smooth dielectric of index ``n`` reflects: the
    Fresnel reflectance averaged over the hemisphere, cosine-weighted, ∫₀¹ 2μ F(μ) dμ over the
    cosine μ of incidence (0.0918 for n = 1.5; Gauss–Legendre, 96 nodes, above the critical
    angle's cosine where ``n`` < 1: below it every ray is reflected). It is also the mean, over a
    glossy sphere's image, of the white it mirrors from uniform white surroundings: a sphere seen
    from afar shows its surface at viewing cosine μ with image area ∝ 2μ dμ."""
    if not n > 0:
        raise HuebenchError(f"n must be a refractive index > 0, got {n!r}")
    critical = float(np.sqrt(1.0 - n * n)) if n < 1 else 0.0
    nodes, weights = np.polynomial.legendre.leggauss(96)
    half = (1.0 - critical) / 2.0
    mu = critical + (nodes + 1.0) * half  # [-1, 1] → [critical, 1]
    return critical**2 + float(np.sum(weights * half * 2.0 * mu * fresnel_reflectance(mu, n)))


#: gloss test (:func:`looks_glossy`): one albedo under white light has one saturation whatever the
#: shading, so when a tenth of the lit half falls below this fraction of the top saturation, white
#: light is added somewhere — specular reflection. Chosen by the leave-one-family-out tables in
#: docs/gencolor.md ("gloss_uniformity"), measured by perf/scorer_study.py
GLOSS_UNIFORMITY = 0.955
#: reflected white moves a pixel's chroma toward grey along the body colour's own direction (the
#: dichromatic plane), while JPEG's halved and quantised chroma, blur and prints move it every way:
#: the gloss test also needs the lit half's chroma to spread along the body colour (radially) at
#: least this many times as far as across it (tangentially, where only noise and texture reach).
#: Chosen by the leave-one-family-out tables in docs/gencolor.md ("gloss_radial"); None: no such
#: condition
GLOSS_RADIAL: float | None = 2.0
#: the gloss test reads saturations after an in-mask Gaussian blur of this σ (pixels): sensor noise,
#: JPEG blocks and fine texture spread saturations as a highlight does, a blur removes them and
#: keeps the reflections, which are smooth over the surface (0: no blur)
GLOSS_SMOOTH = 1.0
#: the gloss test reads the mask's interior, this many pixels in: the outermost pixels mix in the
#: backdrop (the scorer drops one border pixel, and the blur reaches one more)
GLOSS_INTERIOR = 2
#: a surface that reflects its surroundings reflects far more of them at grazing angles (Fresnel),
#: so its silhouette band is less saturated than its lit interior; a highlight from a lamp alone
#: leaves the band as saturated as the interior. :func:`specular_veil` removes the veil only when
#: the band's median saturation is below this fraction of the interior's 90th percentile
#: (:func:`rim_saturation`); None: no such condition
RIM_RATIO: float | None = 0.93
#: pixels of the silhouette band: from ``RIM_BAND[0]`` to ``RIM_BAND[1]`` pixels inside the mask
#: (the outermost pixels mix in the backdrop, more so after blur or JPEG's halved chroma)
RIM_BAND = (1, 3)
#: the white-floor fit needs a clearly chromatic surface (saturation, linear RGB): on pale colours
#: the chroma magnitude it regresses on is mostly pixel noise and 8-bit steps (the norm of a small
#: noisy vector is biased up), and the fit invents a floor. The value and its alternatives are
#: measured in docs/gencolor.md (the "floor fitted from saturation" rows), by perf/scorer_study.py
FLOOR_MIN_SATURATION = 0.4
#: :func:`main_color_pixels` looks for the main colour among the pixels above this quantile of
#: brightness: the darkest are mostly noise, and from the brighter half alone a bright second
#: colour on 30 % of an object can fill most of it. Chosen by the leave-one-family-out tables in
#: docs/gencolor.md ("main_color_from")
MAIN_COLOR_FROM = 0.25
#: :func:`neutral_highlights`: a pixel of a neutral surface is a highlight when its luminance is
#: more than this fraction above the smooth shading fitted over the surface. Chosen by the
#: leave-one-family-out tables in docs/gencolor.md ("neutral_highlight")
NEUTRAL_HIGHLIGHT = 0.3
#: surfaces whose lit half's mean colour is less saturated than this (linear RGB) are neutral:
#: reflected white cannot be told from the body colour by chroma (as in :func:`looks_glossy`)
NEUTRAL_SATURATION = 0.15
#: :func:`dark_neutral`: a neutral surface with :data:`DARK_NEUTRAL_QUANTILE` of its pixels darker
#: than this L* is black or near black, and judged on all its pixels rather than its lit window.
#: Version 27, chosen with the quantile by the leave-one-family-out table in docs/gencolor.md
#: ("Version 27")
DARK_NEUTRAL_LIGHTNESS = 31.0
#: :func:`dark_neutral` reads this quantile of L*: three quarters of a black surface stay dark
#: whatever a quarter of it mirrors, while a dark grey in deep shade has half its pixels dark but not
#: three quarters (a median bound called CSS3/X11's DimGray black: docs/gencolor.md, "Version 27")
DARK_NEUTRAL_QUANTILE = 0.75
#: a veil is light every pixel of a glossy surface reflects, shadows included, so no channel of it
#: can exceed what the pixels show in that channel (:func:`fit_veil`): their floor is this quantile
#: of each channel, raised by :data:`VEIL_NOISE` for pixel noise. Chosen by the leave-one-family-out
#: tables in docs/gencolor.md ("veil_quantile")
VEIL_QUANTILE = 0.2
#: 8-bit steps of noise allowed above the pixels' floor (:func:`fit_veil`): where the veil is all a
#: channel shows (a saturated colour's small channels), noise spreads that channel both ways
VEIL_NOISE = 2.0
#: the veil F0 × surroundings is known to within this factor — F0 of 0.03 to 0.05 around 0.04, and
#: the surroundings an image shows are not all that the surface reflects — so a veil up to this
#: factor above the pixels' floor is cut down to it; further above, the pixels show no such veil
#: and it is refused (:func:`fit_veil`)
VEIL_TOLERANCE = 1.25
#: a veil reflected alike onto every pixel lifts the darker pixels too, where no highlight reaches:
#: there the pixels lie on a line, grey component = shading × the albedo's grey + veil against
#: distance from grey = shading × the albedo's chroma, whose intercept is the veil
#: (:func:`darker_floor`). The line is fitted on the interior's pixels from the 0.1 to this quantile
#: of brightness. Chosen with :data:`VEIL_FLOOR_ERRORS` (0.5 and 0.7 tried; docs/gencolor.md,
#: version 22)
VEIL_FLOOR_SHARE = 0.7
#: F0 × the surroundings is cut to the darker pixels' floor (at least 0: none) where it lies more
#: than this many standard errors of the fitted intercept above it — the pixels show no such veil
#: (:func:`veil_within_floor`); and the floor says nothing where it is more than this many below
#: 0: the darker pixels are more saturated than one albedo under any veil makes them (a tone curve's
#: toe, light bounced off the object itself, a bright sky mirrored on the lit side only). 1, 2 and 3
#: tried; docs/gencolor.md, version 22. The GenColorBench scorer's curve test below that floor
#: (``floor_curve_turn``, version 24) reads the same threshold, and stands down with it. None: no
#: such test
VEIL_FLOOR_ERRORS: float | None = 2.0
#: the fitted floor is reflected light common to every pixel: the Fresnel reflection of the
#: surroundings, which an 8-bit image shows at most as white (1.0 linear), so the floor is at most
#: F0 × 1.0, within the veil's uncertainty: :data:`VEIL_TOLERANCE` × :data:`F0_DIELECTRIC` = 0.05.
#: A fit above it is a line through noisy or tone-mapped pixels, not a reflection, and is refused
#: (:func:`remove_fitted_floor`). Chosen by the leave-one-family-out tables in docs/gencolor.md
#: ("max_floor"); None: no bound
MAX_FLOOR: float | None = VEIL_TOLERANCE * F0_DIELECTRIC
#: the most white the dichromatic steps (floor and diffuse line) may take off a surface's pixels,
#: the median over its pixels of the white taken from each (linear): a glossy dielectric sphere in
#: uniform white surroundings mirrors on average, over its image, their diffuse Fresnel reflectance
#: (:func:`diffuse_fresnel_reflectance` of n = 1.5, 0.0918), its median pixel about F(45°) = 0.05,
#: and a lamp's highlight more but on few pixels; more is a tone curve's or a saturation change's
#: compression read as reflections, and the line is refused (the fitted floor stays:
#: :func:`dichromatic_steps`). A Fresnel veil removed before the steps is not counted. Computed,
#: not tuned; the leave-one-family-out tables in docs/gencolor.md ("max_removed_white") measure
#: it. None: no bound
MAX_REMOVED_WHITE: float | None = diffuse_fresnel_reflectance(1.5)
#: and where the white the steps would take follows brightness, it is a tone curve's compression
#: too (:func:`white_follows_brightness`): a lamp's highlight puts reflected white on a few pixels
#: and a reflection of the surroundings puts about as much on every pixel, but a compressive curve
#: takes more from every pixel the brighter it is. The white is spread when more than
#: ``CURVE_SPREAD`` of the pixels give up more than half of what the 95th-percentile pixel gives,
#: and follows brightness when its rank correlation with the pixels' brightness exceeds
#: ``CURVE_RANK``. Chosen on ISCC-NBS L2 (its five families and the tone-mapped one), checked on
#: CSS3/X11 and on the held-out camera family, which was not scored until these values were fixed:
#: docs/gencolor.md, version 19. None: no test
CURVE_SPREAD = 0.25
CURVE_RANK = 0.97
#: a curve on each channel (a renderer's or camera's tone curve, a filmic view) makes a diffuse
#: body's darker pixels more saturated than its lit face, so the diffuse line's upper quantile of
#: saturation reads them and overshoots. Reflected white cannot turn hue — it adds the same to
#: every channel and leaves a pixel's chromatic part as it is — but a per-channel curve does; so
#: where the hue of a surface's chromatic part turns by more than ``CURVE_HUE_TURN`` degrees
#: between its darker and brighter half while its saturation falls with brightness (a Spearman
#: rank correlation below ``CURVE_FALL``: :func:`shows_channel_curve`), the glossy line reads its
#: quantile from the pixels from the ``CURVE_LIT_FROM`` quantile of brightness up, near the lit
#: face where the colour is judged. Chosen on ISCC-NBS L2 (the five families, the tone-mapped and
#: camera ones), checked on CSS3/X11, measured once on the held-out ``rendered`` family:
#: docs/gencolor.md, version 20. None (the scorer's ``curve_turn``): no such test
CURVE_HUE_TURN = 0.5
CURVE_FALL = -0.9
CURVE_LIT_FROM = 0.7
#: a curve that turns no hue — on luminance, or with the channels inset towards each other first —
#: still shows in the darker half of a surface's pixels: there one albedo keeps one saturation, a
#: veil reflected alike onto every pixel makes the darker ones *less* saturated and highlights do
#: not reach, but a compressive curve makes them *more* saturated the darker they are. So the
#: glossy line also reads its quantile from the ``CURVE_LIT_FROM`` quantile of brightness up where
#: the saturation of the darker half of its pixels falls with their brightness, a Spearman rank
#: correlation below this (:func:`darker_half_falls`). Chosen on ISCC-NBS L2 (every family but the
#: then unseen ``graded`` one), checked on CSS3/X11, measured once on ``graded``:
#: docs/gencolor.md, version 21. None (the scorer's ``dark_fall``): no such test
CURVE_DARK_FALL = -0.9
#: :func:`darker_half_falls` reads at most this many of the darker half's pixels (every k-th): a
#: rank correlation over more says the same to its second decimal and costs two sorts (surfaces of
#: the quick and full diagnostics never have this many)
DARK_FALL_PIXELS = 4096
#: the glossy line's upper quantile of saturation reads high where the darkest pixels are more
#: saturated than the rest for a reason other than the albedo — pixel noise and JPEG's chroma,
#: divided by a small grey component, and a tone curve's toe — and reflected white pulls the
#: brightest down. So the estimate is at most the same quantile over the pixels between these
#: quantiles of brightness (:func:`line_band_saturation`). Chosen on ISCC-NBS L2 (every family but
#: the then unseen ``finishes``), checked on CSS3/X11, measured once on ``finishes``:
#: docs/gencolor.md, version 23. The scorer reads the line uncapped where the object's darker
#: pixels show themselves more saturated than a veil leaves them (its ``band_floor_errors``).
#: None (the scorer's ``line_band``): no cap
LINE_BAND: tuple[float, float] | None = (0.3, 0.8)
#: under a coloured light a glossy surface reflects that colour, not white; the scorer judges such
#: an object white-balanced by the light (:func:`light_colour`, :func:`balance`) and puts its colour
#: back under the light before the comparison (``ColorScorer(light_planarity=None)``: the light is
#: always taken as white). Values chosen by the leave-one-family-out tables in docs/gencolor.md.
#: :func:`light_colour`: the object's pixels must spread over a plane (the dichromatic plane of body
#: colour and reflected light) — its second singular value at least this many times the third,
#: which only noise fills — before the plane can say what colour the reflected light has
LIGHT_PLANARITY = 3.0
#: ... and reflected light must be a visible share of what the pixels show: the plane's second
#: singular value at least this fraction of the first (a matte surface's line, with one channel a
#: few 8-bit steps above 0, is thin enough in its third direction to pass the test above)
LIGHT_PLANE_FILL = 0.02
#: :func:`light_colour`: the surroundings' colour is taken as the light's when grey leaves the
#: dichromatic plane by at least :data:`LIGHT_MIN_TILT` degrees and by this many times the angle at
#: which the surroundings' colour leaves it
LIGHT_MARGIN = 4.0
LIGHT_MIN_TILT = 2.0
#: :func:`light_colour`: the colour read must be a light's — within this Δuv of the Planckian locus
#: (:func:`~huebench.color.temperature.cct_duv`; 0.05, the CIE's limit for a correlated colour
#: temperature to mean anything) at a correlated colour temperature within :data:`LIGHT_CCT` —
#: else it is the surroundings' own colour (a red wall, a blue backdrop), not the light's: a
#: coloured backdrop whose colour happens to lie in a glossy body's plane (its complementary
#: hue does: the plane of a body colour and white holds white less that colour) is not read as
#: the light. Version 26 (docs/gencolor.md); None: any colour may be the light's
LIGHT_MAX_DUV: float | None = MAX_DUV
#: ... from a match flame's about 1,700 K (candlelight is about 1,850 K) to a deep-blue north
#: sky's 30,000 K (kelvin)
LIGHT_CCT = (1500.0, 30_000.0)
#: pixels used to estimate the specular corrections (a deterministic, evenly strided sample)
FIT_PIXELS = 20000
#: an 8-bit channel at or above this level is taken as clipped: its true value may lie beyond it
CLIPPED = 254
#: :func:`has_shading`: the grey axis's spread must exceed the noise directions' by this factor
SHADING_FACTOR = 3.0
#: :func:`lightness_varies`: flat bands are one colour's when the lit band is within this CIEDE2000
#: of the median pixel brought to its luminance — GenColorBench's own threshold for one colour
BAND_DELTA_E = 5.0


# -- helpers ----------------------------------------------------------------------------------


def fit_sample(n: int) -> NDArray[np.intp]:
    """Indices of the pixels the fits here estimate from: all ``n`` up to :data:`FIT_PIXELS`,
    beyond that an evenly strided, deterministic sample of that many (the correction then goes to
    every pixel)."""
    return np.arange(n) if n <= FIT_PIXELS else np.linspace(0, n - 1, FIT_PIXELS).astype(np.intp)


def fit_sample_of(a: NDArray[Any]) -> NDArray[Any]:
    """The rows of ``a`` at :func:`fit_sample`: ``a`` itself (not a copy: callers read it) when it
    has at most :data:`FIT_PIXELS` rows."""
    return a if len(a) <= FIT_PIXELS else a[fit_sample(len(a))]


def unclipped(rgb8: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The N×3 8-bit pixels with no channel at the ceiling (:data:`CLIPPED`): a clipped channel
    stopped following the light, so tests of shading and saturation read the others only."""
    return rgb8[row_all(rgb8 < CLIPPED)]


def _spread(x: NDArray[np.float64], bands: bool = False) -> float:
    """A robust standard deviation: 1.4826 × the median absolute deviation; with ``bands`` the
    larger of it and the 10-to-90 % range over a normal distribution's (:func:`has_shading`)."""
    spread = float(1.4826 * stats.median(np.abs(x - stats.median(x))))
    if not bands:
        return spread
    q10, q90 = stats.quantile(x, [0.1, 0.9])
    return max(spread, float(q90 - q10) / _kernels.NORMAL_RANGE_10_90)


def _cross(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """``np.cross`` of two 3-vectors, the same arithmetic without its general-shape overhead."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def mask_depth(mask: NDArray[np.bool_], *, frame_cuts: bool = True) -> NDArray[np.int32]:
    """How many pixels in from the edge of a 2-D mask each pixel lies.

    ``mask_depth(m) > k`` is ``m`` eroded k times with the 4-neighbour cross, for every k from one
    transform. With ``frame_cuts`` (the default) a mask that reaches the image's border goes on
    beyond it — the frame cuts the object there, its pixels at the border are not a silhouette that
    mixes in the background — as ``scipy.ndimage.binary_erosion(m, iterations=k, border_value=1)``
    gives; without, the border is the object's edge (``border_value=0``).
    """
    m = np.asarray(mask, dtype=bool)
    if _kernels.AVAILABLE:  # the same integers as SciPy's transform below, without its per-call cost
        depth = _kernels.taxicab_depth(m, outside_is_background=not frame_cuts)
        far = depth > sum(m.shape)  # no background anywhere (see below)
    else:
        from scipy import ndimage

        padded = np.pad(m, 1, mode="edge" if frame_cuts else "constant")
        depth = ndimage.distance_transform_cdt(padded, metric="taxicab")[1:-1, 1:-1]
        far = depth < 0
    # a mask that fills the whole frame has no edge in it: scipy answers -1 for "no background
    # anywhere"; every erosion keeps all of it, so its depth is deeper than any erosion reaches
    depth[far] = sum(depth.shape)
    return depth


def edge_near_surroundings(
    image: NDArray[np.uint8],
    ring: NDArray[np.bool_],
    deep: NDArray[np.bool_],
    edge: NDArray[np.bool_],
    max_delta_e: float,
) -> tuple[float, NDArray[np.bool_]]:
    """Which pixels of a mask's ``edge`` look like what lies around it (``ring``) rather than like
    its ``deep`` interior: ΔE00 between the ring's and the interior's median colours (CIELAB, per
    channel, over :func:`fit_sample_of` each), and per edge pixel (raster order) whether it is
    within ``max_delta_e`` of the ring's and nearer to it than to the interior's
    (:func:`~huebench.color.difference.within_and_nearer`). The three masks are disjoint, each
    non-empty; one compiled call where numba is."""
    img = np.asarray(image)
    n_ring, n_deep, n_edge = (int(np.count_nonzero(x)) for x in (ring, deep, edge))
    if (
        _kernels.enabled(n_ring + n_deep + n_edge)
        and max(n_ring, n_deep) <= FIT_PIXELS
        and img.dtype == np.uint8
        and img.ndim == 3
        and img.shape[2] == 3
        and all(np.shape(x) == img.shape[:2] for x in (ring, deep, edge))
    ):
        lut, m = srgb8_lab_tables()
        return _kernels.edge_near_surroundings(img, ring, deep, edge, n_edge, lut, m, max_delta_e)
    ring_px, deep_px, edge_px = masked(img, ring), masked(img, deep), masked(img, edge)
    ring_px, deep_px = fit_sample_of(ring_px), fit_sample_of(deep_px)
    lab = srgb_to_lab(np.concatenate([ring_px, deep_px, edge_px]))  # one conversion for the three
    a, b = len(ring_px), len(ring_px) + len(deep_px)
    return within_and_nearer(lab[b:], column_medians(lab[:a]), column_medians(lab[a:b]), max_delta_e)


def chroma_quantile(rgb8: NDArray[np.uint8], q: float) -> float:
    """The ``q``-quantile of the chroma C*ab of N×3 8-bit sRGB pixels (over :func:`fit_sample_of`),
    in one compiled call where numba is."""
    px = fit_sample_of(np.asarray(rgb8))
    if _kernels.enabled(len(px)) and px.dtype == np.uint8 and px.ndim == 2 and px.shape[1] == 3 and 0.0 <= q <= 1.0:
        lut, m = srgb8_lab_tables()
        return _kernels.chroma_quantile(px, lut, m, q)
    lab = srgb_to_lab(px)
    return float(stats.quantile(np.hypot(lab[:, 1], lab[:, 2]), q))


def mask_box(mask: NDArray[np.bool_], margin: int = 0) -> tuple[slice, slice] | None:
    """The bounding box of a 2-D mask's pixels grown by ``margin`` on every side (within the
    image), as the slices that crop it; None for an empty mask."""
    m = np.asarray(mask, dtype=bool)
    rows, cols = np.flatnonzero(m.any(axis=1)), np.flatnonzero(m.any(axis=0))
    if not len(rows):
        return None
    return (
        slice(max(int(rows[0]) - margin, 0), min(int(rows[-1]) + margin + 1, m.shape[0])),
        slice(max(int(cols[0]) - margin, 0), min(int(cols[-1]) + margin + 1, m.shape[1])),
    )


def grow_mask(mask: NDArray[np.bool_], pixels: int) -> NDArray[np.bool_]:
    """``scipy.ndimage.binary_dilation(mask, iterations=pixels)`` of a 2-D mask, ``pixels`` ≥ 1
    (the 4-neighbour cross, nothing beyond the border): the pixels within ``pixels`` steps of the
    mask, from one distance transform where numba is."""
    if int(pixels) < 1:
        raise ValueError(f"grow_mask grows by at least one pixel, got {pixels!r}")
    m = np.asarray(mask, dtype=bool)
    if not m.any():  # the transform's "no mask anywhere" is a distance larger than any image
        return np.zeros_like(m)
    if _kernels.AVAILABLE:
        return _kernels.taxicab_depth(~m, outside_is_background=False) <= pixels
    from scipy import ndimage

    return ndimage.binary_dilation(m, iterations=int(pixels))


@functools.cache
def _gaussian_weights(sigma: float) -> NDArray[np.float64]:
    """SciPy's Gaussian kernel of σ ``sigma`` (truncated at 4σ): its own filter on a unit impulse."""
    from scipy import ndimage

    radius = int(4.0 * sigma + 0.5)
    impulse = np.zeros(2 * radius + 1)
    impulse[radius] = 1.0
    weights = ndimage.gaussian_filter1d(impulse, sigma, mode="constant")
    weights.setflags(write=False)  # shared by every call (functools.cache)
    return weights


#: :func:`gaussian_blur` leaves arrays of at least this many values to SciPy, whose line buffers are
#: faster on large arrays (the measurements are in docs/performance.md)
BLUR_COMPILED_BELOW = 65_536


def _blur_compiles(arr: NDArray[Any], sigma: float) -> bool:
    """Does a blur of σ ``sigma`` over ``arr`` (its channels counted) take the compiled kernels?"""
    return (
        _kernels.AVAILABLE
        and 0 < arr.size < BLUR_COMPILED_BELOW
        and type(sigma) in (float, int)  # SciPy's weights from another type may differ in the last bit
        and sigma > 1e-15  # SciPy leaves such an axis alone
    )


def gaussian_blur(x: NDArray[np.float64], sigma: float) -> NDArray[np.float64]:
    """``scipy.ndimage.gaussian_filter(x, sigma)`` over the first two axes of an (H, W) or
    (H, W, C) array (C channels apart), bit for bit. A non-empty float64 array of fewer than
    :data:`BLUR_COMPILED_BELOW` values with σ > 0 is blurred by a compiled kernel where numba is (on
    a small object's box SciPy's call costs more than the blur); everything else by SciPy."""
    arr = np.asarray(x)
    if arr.dtype == np.float64 and arr.ndim in (2, 3) and _blur_compiles(arr, sigma):
        return _kernels.gaussian_blur(arr, _gaussian_weights(float(sigma)))
    from scipy import ndimage

    return ndimage.gaussian_filter(arr, (sigma, sigma, 0.0)[: arr.ndim])


def smooth_within(
    image: NDArray[np.uint8], mask: NDArray[np.bool_], sigma: float, *, sample: NDArray[np.intp] | None = None
) -> NDArray[np.uint8]:
    """The mask's pixels (N×3, 8-bit sRGB) after a Gaussian blur of σ ``sigma`` pixels; with
    ``sample`` (indices into those N), only these pixels, in that order.

    The blur runs in linear light and averages mask pixels only — normalised convolution, so the
    background never bleeds in. Pixel noise and fine texture shrink; shading and reflections, which
    are smooth over the surface, stay.
    """
    mask = np.asarray(mask, dtype=bool)
    # only the mask's box and the kernel's reach matter: outside it every weight is 0 (the reach:
    # scipy's kernel radius, truncate 4, and one more)
    box = mask_box(mask, int(4.0 * sigma + 0.5) + 1)
    if box is not None:
        image, mask = np.asarray(image)[box], mask[box]
    where = np.flatnonzero(mask)
    if sample is not None:
        where = where[sample]
    image = np.asarray(image)
    fused = image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3 and _kernels.enabled(len(where))
    if fused and _blur_compiles(image, sigma):
        # the steps below in one kernel, the same values: on a small object their NumPy calls
        # cost more than the blur
        weights = _gaussian_weights(float(sigma))
        return linear_to_srgb8(_kernels.masked_blur(image, mask, srgb8_table(), weights, where))
    w = mask.astype(np.float64)
    lin = srgb8_to_linear(image) * w[..., None]
    norm = gaussian_blur(w, sigma)
    out = gaussian_blur(lin, sigma)
    out = out.reshape(-1, 3)[where] / np.maximum(norm.reshape(-1)[where], 1e-9)[:, None]
    return linear_to_srgb8(out)


# -- shading and the gloss test ---------------------------------------------------------------


def _noise_directions(lin: NDArray[np.float64]) -> list[NDArray[np.float64]]:
    """Directions of linear RGB that shading does not move a surface along: orthogonal to the grey
    axis and to the mean chroma (for a near-grey surface: the whole plane orthogonal to grey)."""
    w = np.full(3, 1 / np.sqrt(3.0))
    mean = lin.mean(axis=0)
    chroma = mean - (mean @ w) * w
    n = np.linalg.norm(chroma)
    if n > 1e-3 * max(float(mean.mean()), 1e-6) and n > 1e-6:
        return [_cross(chroma / n, w)]
    e1 = np.array([1.0, -1.0, 0.0]) / np.sqrt(2.0)
    return [e1, _cross(w, e1)]


def unclipped_shading(rgb8: NDArray[np.uint8]) -> bool | None:
    """:func:`has_shading` of the N×3 8-bit pixels (over :func:`fit_sample_of`) without a channel
    at the ceiling (:data:`CLIPPED`: a clipped channel stopped following the shading, and what it
    does instead looks like noise to the test); None with fewer than 10 of them."""
    px = fit_sample_of(np.asarray(rgb8))
    if _kernels.enabled(len(px)) and px.dtype == np.uint8 and px.ndim == 2 and px.shape[1] == 3:
        return _kernels.unclipped_shading(px, srgb8_table(), CLIPPED, SHADING_FACTOR)
    below = unclipped(px)
    return has_shading(srgb8_to_linear(below)) if len(below) >= 10 else None


def lightness_varies(rgb8: NDArray[np.uint8], *, lit_from: float = 0.85) -> bool:
    """Does an object's lightness vary beyond its pixel noise, so that its lit pixels can be told
    from the rest (N×3 8-bit pixels, at least 10)? :func:`unclipped_shading`, or — where that finds
    the unclipped pixels flat — flat bands of one colour (cel shading, flat paint), whose lit band
    may be the clipped one: :func:`has_shading` with ``bands`` over every pixel, and the lit band
    (the pixels from the ``lit_from`` quantile of luminance) within :data:`BAND_DELTA_E` of the
    median pixel brought to its luminance, that median pixel itself further than that from black.
    A print of another colour on a darker body widens the lightness range as bands do, and a lit
    window would take the print for the object."""
    px = fit_sample_of(np.asarray(rgb8))
    if unclipped_shading(px) is not False:
        return True
    lin = srgb8_to_linear(px)
    if not has_shading(lin, bands=True):
        return False
    lum = lin @ RGB_TO_XYZ[1]
    lit = column_medians(lin[lum >= stats.quantile(lum, lit_from)])
    mid = column_medians(lin)
    mid_lum = float(mid @ RGB_TO_XYZ[1])
    if not mid_lum > 0:
        return False
    lit_up = mid * (float(lit @ RGB_TO_XYZ[1]) / mid_lum)  # linear_to_srgb8 clips what exceeds 1
    lab = srgb_to_lab(linear_to_srgb8(np.stack([lit, lit_up, mid])))
    # a median pixel that is black has no colour to bring up: the body is black, and what is
    # lighter on it is something else (a print, a reflection)
    if float(delta_e(lab[2], np.zeros(3))) <= BAND_DELTA_E:
        return False
    return bool(delta_e(lab[0], lab[1]) <= BAND_DELTA_E)


def has_shading(lin: NDArray[np.float64], factor: float = SHADING_FACTOR, *, bands: bool = False) -> bool:
    """Does lightness vary across the surface (shading, highlights) well beyond the pixel noise?

    ``lin``: N×3 linear RGB. Compares the robust spread (1.4826 × MAD) along the grey axis with the
    spread along directions only noise and texture populate (orthogonal to grey and to the mean
    chroma); shading is there when the first exceeds ``factor`` × the second. Flat noisy patches say
    no: their "lit surface" is all of them.

    ``bands``: lightness that steps between flat bands counts too — cel shading, posterised and
    flat-painted images, where more than half the pixels share one lightness and the MAD is that of
    the noise alone. Every spread is then the larger of the MAD's and the 10-to-90 % range over a
    normal distribution's (``NORMAL_RANGE_10_90``, 2.563): the same on normal noise, and noise
    below one 8-bit level, whose MAD is 0 on either axis, is read by its range. Bands
    say nothing of their colours: a print of another colour on a fifth of a dark surface widens the
    range as much (:func:`lightness_varies` tells them apart).
    """
    if _kernels.enabled(len(lin)) and lin.dtype == np.float64 and lin.ndim == 2 and lin.shape[1] == 3:
        return _kernels.has_shading(lin, factor, bands)
    w = np.full(3, 1 / np.sqrt(3.0))
    noise = max(_spread(lin @ e, bands) for e in _noise_directions(lin))
    return _spread(lin @ w, bands) > factor * max(noise, 1e-9)


def looks_glossy(
    rgb8: NDArray[np.uint8],
    *,
    uniformity: float = GLOSS_UNIFORMITY,
    min_saturation: float = 0.15,
    radial: float | None = GLOSS_RADIAL,
) -> bool:
    """Does a chromatic surface show specular reflection?

    Under white light one albedo has one saturation (distance from the grey axis over the grey
    component, linear RGB) whatever the shading, so on a matte surface the lit half is uniformly
    saturated. Reflected white lowers the saturation where it lands: the surface looks glossy when
    the 10th percentile of the lit half's saturations is below ``uniformity`` × their 90th, and
    (``radial``) their chroma spreads along the body colour's direction, as white moves it, rather
    than every way, as JPEG's chroma, blur and prints move it.
    Achromatic and pale surfaces (90th percentile below ``min_saturation``) say no: there is no
    chroma to tell reflected white from the body colour; so do flat patches (:func:`has_shading`),
    whose saturations spread with pixel noise alone.

    Parameters
    ----------
    rgb8
        N×3 8-bit sRGB pixels of one surface.
    uniformity
        The gloss threshold on q10 / q90 of the lit half's saturations (:data:`GLOSS_UNIFORMITY`).
    min_saturation
        Surfaces less saturated than this (q90) are not tested.
    radial
        The anisotropy condition (:data:`GLOSS_RADIAL`): the chroma's spread (10th to 90th
        percentile) along the body colour must be at least this many times its spread across it;
        None: no such condition.
    """
    rgb8 = fit_sample_of(np.asarray(rgb8))
    if _kernels.enabled(len(rgb8)) and rgb8.dtype == np.uint8 and rgb8.ndim == 2 and rgb8.shape[1] == 3:
        # the steps below in one kernel: on a small object their NumPy calls cost more than the work
        return _kernels.looks_glossy(
            rgb8,
            srgb8_table(),
            clipped=CLIPPED,
            uniformity=uniformity,
            min_saturation=min_saturation,
            radial=radial,
            shading_factor=SHADING_FACTOR,
        )
    rgb8 = unclipped(rgb8)  # a clipped channel lowers saturation as white would
    lin = srgb8_to_linear(rgb8)
    grey = row_mean(lin)
    lit = grey >= stats.quantile(grey, 0.5) if len(grey) else np.zeros(0, dtype=bool)
    if lit.sum() < 20:
        return False
    scale = np.maximum(grey[lit], 1e-6)
    chroma = lin[lit] - grey[lit, None]
    sat = row_norm(chroma) / scale
    chroma /= scale[:, None]
    # near-grey pixels are backdrop a loose mask caught (offline segmentation), not reflections:
    # with them the test flagged 25 of 290 diffuse L2 renders under offline masks, without them 3
    body = sat >= 0.5 * stats.quantile(sat, 0.9)
    sat, chroma = sat[body], chroma[body]
    if len(sat) < 20:
        return False
    q10, q90 = stats.quantile(sat, [0.1, 0.9])
    # a flat noisy patch spreads its saturations too, but shows no shading beyond the noise
    if not (q90 >= min_saturation and q10 < uniformity * q90 and has_shading(lin)):
        return False
    return radial is None or _radial_spread(chroma, sat) >= radial


def _radial_spread(chroma: NDArray[np.float64], sat: NDArray[np.float64]) -> float:
    """How much further chroma vectors (N×3, orthogonal to grey) spread along the body colour —
    the mean direction of the more saturated half — than across it: the ratio of their 10th-to-90th
    percentile ranges (inf when nothing spreads across)."""
    along = chroma[sat >= stats.median(sat)].mean(axis=0)
    along /= max(float(np.linalg.norm(along)), 1e-12)
    across = _cross(np.full(3, 1 / np.sqrt(3.0)), along)
    r10, r90 = stats.quantile(chroma @ along, [0.1, 0.9])
    t10, t90 = stats.quantile(chroma @ across, [0.1, 0.9])
    return float((r90 - r10) / (t90 - t10)) if t90 > t10 else float("inf")


def surface_looks_glossy(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    *,
    uniformity: float = GLOSS_UNIFORMITY,
    interior: int = GLOSS_INTERIOR,
    smooth: float = GLOSS_SMOOTH,
    depth: NDArray[np.int32] | None = None,
    radial: float | None = GLOSS_RADIAL,
) -> bool:
    """:func:`looks_glossy` on an object in an image.

    The test reads the mask's interior (``interior`` pixels in: the edge mixes in the backdrop),
    after an in-mask blur of σ ``smooth`` (:func:`smooth_within`: noise and fine texture out,
    reflections in). ``depth``: :func:`mask_depth` of the mask, when the caller has it.
    """
    m = np.asarray(mask, dtype=bool)
    inner = ((mask_depth(m) if depth is None else depth) > interior) if interior > 0 else m
    n = int(np.count_nonzero(inner))
    if n < 20:
        return False
    # the test reads a fixed sample of the pixels (fit_sample): only those are smoothed
    if smooth > 0:
        px = smooth_within(np.asarray(image), inner, smooth, sample=None if n <= FIT_PIXELS else fit_sample(n))
    else:
        px = fit_sample_of(masked(image, inner))
    return looks_glossy(px, uniformity=uniformity, radial=radial)


def rim_saturation(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    *,
    band: tuple[int, int] = RIM_BAND,
    depth: NDArray[np.int32] | None = None,
) -> float | None:
    """How saturated an object's silhouette band is next to its interior (see :data:`RIM_RATIO`).

    The median saturation (linear RGB) of the band ``band[0]`` to ``band[1]`` pixels in, over the
    90th percentile of the interior's (deeper than ``band[1]``), on pixels that are neither clipped
    nor among the darkest quarter (noise). Well below 1: the surface reflects its surroundings, more
    at grazing angles (Fresnel). ``None`` when either part is too small to tell.
    """

    m = np.asarray(mask, dtype=bool)
    depth = mask_depth(m) if depth is None else depth
    img = np.asarray(image)
    if _kernels.enabled(m.size) and img.dtype == np.uint8 and img.shape == (*m.shape, 3) and depth.shape == m.shape:
        return _kernels.rim_saturation(img, m, depth, band, srgb8_table(), CLIPPED)  # the steps below
    d = masked(depth, m)  # the mask's pixels only
    e1, e3 = d > band[0], d > band[1]
    if not e3.any():
        return None
    px = masked(image, m)
    lin = srgb8_to_linear(px)
    grey = row_mean(lin)
    usable = ~row_any(px >= CLIPPED) & (grey > stats.quantile(grey, 0.25))
    sat = row_norm(lin - grey[:, None]) / np.maximum(grey, 1e-6)
    inner, rim = sat[e3 & usable], sat[e1 & ~e3 & usable]
    if len(inner) < 20 or len(rim) < 10:
        return None
    top = float(stats.quantile(inner, 0.9))
    return stats.median(rim) / top if top > 0 else None


# -- the Fresnel veil -------------------------------------------------------------------------


def surround_radiance(
    image: NDArray[np.uint8], mask: NDArray[np.bool_], *, gap: int = 2, per_channel: bool = False
) -> Any:
    """Mean linear-RGB radiance of what surrounds an object.

    The image outside the mask widened by ``gap`` pixels (its anti-aliased edge mixes object and
    background): one value, or one per channel with ``per_channel``. ``None`` when fewer than 50
    pixels are left.
    """
    outside = ~grow_mask(mask, gap) if gap > 0 else ~np.asarray(mask, dtype=bool)
    if outside.sum() < 50:
        return None
    lin = srgb8_to_linear(masked(image, outside))
    return lin.mean(axis=0) if per_channel else float(lin.mean())


def light_colour(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    *,
    depth: NDArray[np.int32] | None = None,
    planarity: float = LIGHT_PLANARITY,
    margin: float = LIGHT_MARGIN,
    min_tilt: float = LIGHT_MIN_TILT,
    max_duv: float | None = LIGHT_MAX_DUV,
) -> NDArray[np.float64] | None:
    """The colour of the light a glossy object reflects, when it is not white and the object
    itself shows it; None otherwise (white light, a matte object, too few pixels).

    Under one light a glossy surface's pixels are m_d·(albedo × light) + m_s·light (linear RGB):
    they fill the plane through the origin spanned by the body colour and the light's colour. Under
    white light that plane holds the grey axis. The surroundings, lit by the same light, have its
    colour unless they are coloured themselves; so their colour is taken as the light's only when
    the object's pixels fill a plane (:data:`LIGHT_PLANARITY`), grey leaves that plane by at least
    ``min_tilt`` degrees and the surroundings' colour lies in it ``margin`` times more closely.
    Coloured surroundings under white light fail the test: a glossy object under them keeps grey
    in its plane, and a matte one fills no plane. Nor is a colour no light has: with ``max_duv``, one
    farther than that Δuv from the Planckian locus or at a correlated colour temperature outside
    :data:`LIGHT_CCT` (:func:`plausible_light`). Returned scaled so that its weakest channel is 1:
    dividing by it (:func:`balance`) never brightens a channel, so no pixel is pushed into the clip.
    """
    m = np.asarray(mask, dtype=bool)
    where = ((mask_depth(m) if depth is None else depth) > 1) & m
    img = np.asarray(image)
    n = int(np.count_nonzero(where))
    # a channel at 0 is clipped as surely as one at 255: pixels that have one lie in a coordinate
    # plane of RGB whatever the light, and would pose as a dichromatic plane
    # the singular values and the plane's normal from the 3×3 Gram matrix: the same values (up to
    # rounding) as the N×3 SVD, at a fraction of its cost
    if _kernels.enabled(n) and n <= FIT_PIXELS and img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3:
        found, evals, evecs = _kernels.lit_plane(img, where, srgb8_table(), CLIPPED)  # the steps below
        if found < 30:
            return None
    else:
        px = unclipped(img.reshape(-1, 3)[fit_sample_of(np.flatnonzero(where))])
        lin = srgb8_to_linear(px[row_all(px > 0)])
        if len(lin) < 30:
            return None
        evals, evecs = np.linalg.eigh(lin.T @ lin)  # ascending
    s = np.sqrt(np.maximum(evals[::-1], 0.0))
    normal = evecs[:, 0]
    if not (s[1] >= planarity * s[2] and s[1] >= LIGHT_PLANE_FILL * s[0]):
        return None  # a line (a matte surface) or noise: no plane to read the light from
    tilt_grey = _tilt(normal, np.ones(3))
    if tilt_grey < min_tilt:
        return None  # grey is in the plane: white light
    surround = surround_radiance(image, m, per_channel=True)
    if surround is None or float(np.min(surround)) <= 1e-4:
        return None
    if tilt_grey < margin * _tilt(normal, surround):
        return None
    if max_duv is not None and not plausible_light(surround, max_duv):
        return None  # the surroundings' own colour: no light has it
    return surround / float(np.min(surround))


def plausible_light(linear: Any, max_duv: float = MAX_DUV, cct: tuple[float, float] = LIGHT_CCT) -> bool:
    """Whether a linear-sRGB colour can be a light's: within ``max_duv`` of the Planckian locus at a
    correlated colour temperature within ``cct`` (:func:`~huebench.color.temperature.cct_duv`)."""
    check_max_duv(max_duv)
    rgb = np.asarray(linear, dtype=np.float64).reshape(3)
    if not (np.all(np.isfinite(rgb)) and np.all(rgb >= 0) and rgb.sum() > 0):
        return False
    temperature, duv = linear_rgb_cct_duv(rgb)
    return bool(cct[0] <= temperature <= cct[1] and abs(duv) <= max_duv)


def check_max_duv(max_duv: Any, name: str = "max_duv", *, optional: bool = False) -> None:
    """Raise a one-line :class:`~huebench.errors.HuebenchError` naming the setting ``name`` unless
    ``max_duv`` is a finite distance Δuv > 0 (or None, where ``optional``)."""
    if optional and max_duv is None:
        return
    number = isinstance(max_duv, numbers.Real) and not isinstance(max_duv, bool)
    if not (number and math.isfinite(max_duv) and max_duv > 0):
        raise HuebenchError(f"{name} must be a distance Δuv > 0{' or None' if optional else ''}, got {max_duv!r}")


def _tilt(normal: NDArray[np.float64], direction: NDArray[np.float64]) -> float:
    """The angle (degrees) at which ``direction`` leaves the plane of unit ``normal``."""
    sine = abs(float(normal @ direction)) / float(np.linalg.norm(direction))
    return float(np.degrees(np.arcsin(min(1.0, sine))))


def balance(rgb8: NDArray[np.uint8], light: Any) -> NDArray[np.uint8]:
    """8-bit sRGB as it would look under white light: linear RGB over the light's colour
    (:func:`light_colour`; every channel ≥ 1, so none is brightened). A channel the image clipped
    stays at the ceiling: its true value is unknown, and the steps that read clipped pixels
    (:func:`unclipped`, :data:`CLIPPED`) must still see it."""
    rgb8 = np.asarray(rgb8)
    light = np.asarray(light, dtype=np.float64)
    if not (light.shape == (3,) and np.all(light >= 1.0)):
        raise HuebenchError(f"balance needs a light of three channels, each at least 1, got {light.tolist()}")
    out = linear_to_srgb8(srgb8_to_linear(rgb8) / light)
    return np.where(rgb8 >= CLIPPED, rgb8, out).astype(np.uint8)


def specular_veil(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    *,
    fresnel: float = F0_DIELECTRIC,
    uniformity: float = GLOSS_UNIFORMITY,
    interior: int = GLOSS_INTERIOR,
    smooth: float = GLOSS_SMOOTH,
    per_channel: bool = True,
    rim_ratio: float | None = RIM_RATIO,
    rim_band: tuple[int, int] = RIM_BAND,
    depth: NDArray[np.int32] | None = None,
    glossy: bool | None = None,
    radial: float | None = GLOSS_RADIAL,
) -> Any:
    """The veil a glossy object reflects everywhere, or ``None`` for a surface that shows none.

    A dielectric reflects at least ``fresnel`` (F0: 4 % for n ≈ 1.5) of the light arriving from the
    mirror direction, and that light is its surroundings: so even the least specular pixel carries
    about F0 × the surroundings' radiance (:func:`surround_radiance`). That veil biases the
    albedo's saturation low — dark colours most, on bright backdrops most — and a fitted floor
    cannot see it where shading gives no range to fit. It is reported when the surface looks glossy
    (:func:`surface_looks_glossy`) and, with ``rim_ratio``, shows the Fresnel rim of a reflection
    of its surroundings (:func:`rim_saturation`): a lamp's highlight alone does not carry a veil.

    Parameters
    ----------
    image, mask
        H×W×3 8-bit sRGB image and the object's H×W mask.
    fresnel
        F0 of the surface (:data:`F0_DIELECTRIC`).
    per_channel
        The veil has the surroundings' colour (one value per linear-RGB channel) rather than their
        mean as white. The GenColorBench scorer takes it white (``veil_color=False``, version 14):
        the face of a surface mirrors what lies behind the camera, not the backdrop the image shows
        behind the object, and a coloured wall gave the veil a colour the surface never reflected.
    uniformity, interior, smooth, radial
        The gloss test's settings (:func:`surface_looks_glossy`).
    rim_ratio, rim_band
        The rim condition (:data:`RIM_RATIO`, :data:`RIM_BAND`); ``rim_ratio=None`` drops it.
    depth
        :func:`mask_depth` of the mask, when the caller has it.
    glossy
        The gloss test's answer, when the caller has it (with these settings); None: test here.

    Returns
    -------
    float, ndarray or None
        The veil in linear RGB, to subtract with :func:`remove_veil`.
    """
    m = np.asarray(mask, dtype=bool)
    depth = mask_depth(m) if depth is None else depth
    if glossy is None:
        glossy = surface_looks_glossy(
            image, m, uniformity=uniformity, interior=interior, smooth=smooth, depth=depth, radial=radial
        )
    if not glossy:
        return None
    if rim_ratio is not None:
        rim = rim_saturation(image, m, band=rim_band, depth=depth)
        if rim is None or rim >= rim_ratio:
            return None  # glossy, but no sign that it reflects its surroundings
    around = surround_radiance(image, m, per_channel=per_channel)
    return None if around is None else fresnel * around


def darker_floor(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    *,
    share: float = VEIL_FLOOR_SHARE,
    interior: int = GLOSS_INTERIOR,
    depth: NDArray[np.int32] | None = None,
) -> tuple[float, float] | None:
    """The white floor the darker pixels of an object show, and its standard error: ``(floor, se)``.

    The pixels of the mask's interior (more than ``interior`` pixels in: the edge mixes in the
    backdrop) that are not clipped, from the 0.1 to the ``share`` quantile of their grey component
    (linear RGB; the darkest are noise, the brighter ones carry highlights): a pixel there is
    shading × albedo + veil, so its grey component against its distance from the grey axis is a
    line whose intercept is the veil. Ordinary least squares; the standard error is the intercept's.
    ``None`` with fewer than 20 such pixels, where their brightness spans less than 1.25× (no
    range to fit) or where their distance from grey does not spread at all (no line). ``share``: a
    quantile in (0.1, 1]. ``depth``: :func:`mask_depth` of the mask, when the caller has it.
    :func:`veil_within_floor` reads the result.
    """
    check_veil_floor(None, share)
    m = np.asarray(mask, dtype=bool)
    depth = mask_depth(m) if depth is None else depth
    img = np.asarray(image)
    if _kernels.enabled(m.size) and img.dtype == np.uint8 and img.shape == (*m.shape, 3) and depth.shape == m.shape:
        # the steps of _darker_floor_numpy in one kernel, the same values
        return _kernels.darker_floor(img, depth, interior, srgb8_table(), CLIPPED, share, FIT_PIXELS)
    return _darker_floor_numpy(img, depth, interior, share)


def _darker_floor_numpy(
    img: NDArray[np.uint8], depth: NDArray[np.int32], interior: int, share: float
) -> tuple[float, float] | None:
    """:func:`darker_floor`'s steps in NumPy (its reference, and its path without numba)."""
    px = interior_unclipped(img, depth, interior)
    if len(px) < 20:
        return None
    lin = srgb8_to_linear(px)
    grey = row_mean(lin)
    lo, hi = stats.quantile(grey, [0.1, share])
    use = (grey >= lo) & (grey <= hi)
    n = int(np.count_nonzero(use))
    if n < 20 or hi < 1.25 * lo:
        return None
    x, y = row_norm(lin[use] - grey[use, None]), grey[use]
    mean_x, mean_y = stats.mean(x), stats.mean(y)
    sxx = float(np.sum((x - mean_x) ** 2))
    if sxx <= 1e-18:  # no chroma spread: nothing to fit a line to
        return None
    slope = float(np.sum((x - mean_x) * (y - mean_y))) / sxx
    intercept = mean_y - slope * mean_x
    residual = float(np.sum((y - intercept - slope * x) ** 2)) / (n - 2)
    return float(intercept), float(np.sqrt(residual * (1.0 / n + mean_x * mean_x / sxx)))


def interior_unclipped(img: NDArray[np.uint8], depth: NDArray[np.int32], interior: int) -> NDArray[np.uint8]:
    """The pixels :func:`darker_floor` and :func:`interior_hue_turn` read: a fixed sample
    (:func:`fit_sample`) of the mask's interior (``depth``: :func:`mask_depth`, more than
    ``interior`` pixels in), without those with a channel at the 8-bit ceiling (N×3)."""
    px = fit_sample_of(masked(img, depth > interior))
    return px[~row_any(px >= CLIPPED)]


def interior_hue_turn(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    *,
    interior: int = GLOSS_INTERIOR,
    depth: NDArray[np.int32] | None = None,
) -> float | None:
    """How far the hue of an object's interior turns from its darker half to its brighter half
    (:func:`hue_turn`, degrees, on :func:`interior_unclipped`'s pixels in linear RGB): white
    reflected onto a surface, however unevenly, leaves every pixel's hue as the albedo's; a curve
    on each channel turns it. None with fewer than 20 such pixels. ``depth``: :func:`mask_depth`
    of the mask, when the caller has it."""
    m = np.asarray(mask, dtype=bool)
    depth = mask_depth(m) if depth is None else depth
    px = interior_unclipped(np.asarray(image), depth, interior)
    if len(px) < 20:
        return None
    lin = srgb8_to_linear(px)
    return hue_turn(lin, row_mean(lin))


def floor_below_zero(floor: tuple[float, float] | None, errors: float) -> bool:
    """Does the darker pixels' floor (:func:`darker_floor`: ``(floor, se)``) lie more than ``errors``
    standard errors below 0 — those pixels more saturated than one albedo under any veil leaves
    them (a tone curve's toe, light the object bounces onto itself, a face mirroring a darker floor
    than the lit face mirrors)? False without a floor (None)."""
    return floor is not None and floor[0] < -errors * floor[1]


def veil_within_floor(veil: Any, floor: tuple[float, float] | None, errors: float) -> Any:
    """The veil (linear RGB: one value, or one per channel) as the darker pixels' floor
    (:func:`darker_floor`: ``(floor, se)``, the veil's grey component) allows it: the same object
    where its mean over the channels lies within ``errors`` standard errors above the floor, where
    the floor is more than ``errors`` standard errors below 0 (the pixels do not follow one albedo
    under a veil, and say nothing of it) or where there is no floor (None); else scaled down to the
    floor (its colour kept), or ``None`` (no veil) where the floor is not positive.
    """
    check_veil_floor(errors)
    if floor is None or floor_below_zero(floor, errors):
        return veil
    level, se = floor
    mean = float(np.mean(veil))
    if mean <= level + errors * se:
        return veil
    return None if level <= 0 else np.asarray(veil, dtype=np.float64) * (level / mean)


def check_floor_errors(name: str, errors: float | None) -> None:
    """Raise a one-line :class:`~huebench.errors.HuebenchError` naming the setting ``name`` unless
    ``errors`` is a finite number of standard errors ≥ 0 (or None: no test)."""
    if errors is not None and not (np.isfinite(errors) and errors >= 0):
        raise HuebenchError(f"{name} must be a finite number of standard errors ≥ 0 or None, got {errors!r}")


def check_veil_floor(errors: float | None, share: float = VEIL_FLOOR_SHARE) -> None:
    """Raise a one-line :class:`~huebench.errors.HuebenchError` unless ``errors`` is a finite
    number of standard errors ≥ 0 (or None: no test) and ``share`` a quantile in (0.1, 1]."""
    check_floor_errors("veil_floor_errors", errors)
    if not 0.1 < share <= 1:
        raise HuebenchError(f"the darker pixels' share must be a quantile in (0.1, 1], got {share!r}")


def fit_veil(
    rgb8: NDArray[np.uint8],
    veil: Any,
    *,
    quantile: float = VEIL_QUANTILE,
    noise: float = VEIL_NOISE,
    tolerance: float = VEIL_TOLERANCE,
) -> Any:
    """The veil (linear RGB: one value, or one per channel) as the surface's pixels can carry it,
    or ``None`` where they show none.

    A veil reflected from the surroundings lies on every pixel, shadows included, so each channel of
    the pixels is at least the veil's, up to pixel noise: the pixels' floor in a channel is its
    ``quantile`` raised by ``noise`` 8-bit steps (a channel the veil alone fills spreads both ways).
    A veil within the floor is kept; one at most ``tolerance`` × the floor is cut down to it (the
    estimate F0 × surroundings is that uncertain); one further above is refused. That is the sign
    of a wrong gloss call — JPEG's blocky chroma, a blur or a print lower saturations as reflected
    light would — and taking 4 % of a bright backdrop off a dark surface would clip its small
    channels to zero, inventing saturation.
    """
    px = np.asarray(rgb8).reshape(-1, 3)
    px = fit_sample_of(px)
    if not len(px):
        return None
    codes = np.array([stats.quantile(px[:, c].astype(np.float64), quantile) for c in range(3)]) + noise
    floor = srgb_to_linear(np.clip(codes, 0.0, 255.0) / 255.0)
    v = np.broadcast_to(np.asarray(veil, dtype=np.float64), (3,))
    if np.all(v <= floor):
        return veil
    if np.any(v > tolerance * floor):
        return None
    return np.minimum(v, floor)


def remove_veil(rgb8: NDArray[np.uint8], veil: Any) -> NDArray[np.uint8]:
    """Subtract a veil (linear RGB: one value for white, or one per channel) from every pixel.

    The ``"fresnel-veil"`` method of :func:`remove_specular`: the specular floor is known from
    outside the pixels (:func:`specular_veil`), so it holds on flat and pale surfaces too.
    """

    veil = np.asarray(veil, dtype=np.float64)
    if veil.shape not in ((), (3,)) or not np.all(veil >= 0):
        raise HuebenchError(f"veil must be a non-negative linear radiance, got {veil!r}")
    lin = srgb8_to_linear(rgb8)
    return linear_to_srgb8(lin - veil)


# -- the dichromatic fit ----------------------------------------------------------------------


def _mean_saturation(lin: NDArray[np.float64]) -> float:
    """The saturation of the pixels' mean colour (distance from the grey axis over the grey
    component, linear RGB): per-pixel saturations of a dark noisy patch are large by chance, their
    mean colour's is not."""
    mean = lin.mean(axis=0)
    grey = float(mean.mean())
    return float(np.linalg.norm(mean - grey)) / max(grey, 1e-6)


def hue_turn(lin: NDArray[np.float64], grey: NDArray[np.float64]) -> float:
    """How far (degrees) the hue of pixels' chromatic part (linear RGB ``lin`` less its grey
    component ``grey``, N×3 and N) turns from their darker half to their brighter half (split at
    the median grey): the difference of the two halves' median hue angles in the plane
    perpendicular to grey, each angle taken from the pixels' mean chromatic direction (so hues on
    either side of ±180° are near, not a turn apart). 0 where a half is empty."""
    lin, grey = np.asarray(lin, dtype=np.float64), np.asarray(grey, dtype=np.float64)
    if len(grey) == 0:
        return 0.0
    c = lin - grey[:, None]
    u, v = _kernels.HUE_U, _kernels.HUE_V  # summed in the kernel's order: the same angles
    x = (c[:, 0] * u[0] + c[:, 1] * u[1]) + c[:, 2] * u[2]
    y = (c[:, 0] * v[0] + c[:, 1] * v[1]) + c[:, 2] * v[2]
    mid = float(np.degrees(np.arctan2(np.mean(y), np.mean(x))))
    angle = np.mod(np.degrees(np.arctan2(y, x)) - mid + 180.0, 360.0) - 180.0
    bright = grey >= stats.median(grey)
    if bright.all() or not bright.any():
        return 0.0
    return stats.median(angle[bright]) - stats.median(angle[~bright])


def rank_correlation(x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
    """Spearman's rank correlation of two 1-D arrays (ties share their mean rank); 0 where either
    is constant."""
    from scipy.stats import rankdata  # only here: most surfaces never need it

    rx, ry = rankdata(x), rankdata(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = float(np.sqrt((rx @ rx) * (ry @ ry)))
    return float(rx @ ry) / den if den > 0 else 0.0


def shows_channel_curve(
    lin: NDArray[np.float64],
    grey: NDArray[np.float64],
    sat: NDArray[np.float64],
    *,
    turn: float = CURVE_HUE_TURN,
    fall: float = CURVE_FALL,
) -> bool:
    """Do a surface's pixels (linear RGB ``lin``, their grey components ``grey`` and saturations
    ``sat``) show a curve on each channel rather than reflected white: their hue turns by more than
    ``turn`` degrees from the darker to the brighter half (:func:`hue_turn`) and their saturation
    falls with brightness (:func:`rank_correlation` below ``fall``)? False for fewer than 20."""
    if len(grey) < 20:
        return False
    return abs(hue_turn(lin, grey)) > turn and rank_correlation(sat, grey) < fall


def darker_half_falls(grey: NDArray[np.float64], sat: NDArray[np.float64], *, fall: float = CURVE_DARK_FALL) -> bool:
    """Does the saturation ``sat`` of a surface's darker half (grey components ``grey`` below their
    median) fall with brightness — a :func:`rank_correlation` below ``fall``, as a compressive curve
    makes it and neither reflected white nor one albedo does (:data:`CURVE_DARK_FALL`; over at most
    :data:`DARK_FALL_PIXELS` of the darker half, evenly strided)? False for fewer than 20 pixels or
    fewer than 10 below the median (ties at the bottom)."""
    grey, sat = np.asarray(grey, dtype=np.float64), np.asarray(sat, dtype=np.float64)
    if len(grey) < 20:
        return False
    dark = np.flatnonzero(grey < stats.median(grey))
    if len(dark) < 10:  # ties at the bottom can leave the darker half (nearly) empty
        return False
    dark = dark[:: -(-len(dark) // DARK_FALL_PIXELS)]  # every k-th: at most DARK_FALL_PIXELS
    return rank_correlation(sat[dark], grey[dark]) < fall


def line_shows_curve(
    lin: NDArray[np.float64],
    grey: NDArray[np.float64],
    sat: NDArray[np.float64],
    *,
    turn: float | None = CURVE_HUE_TURN,
    dark_fall: float | None = CURVE_DARK_FALL,
) -> bool:
    """Do a diffuse line's pixels show a curve on each channel, by either of the line's tests: their
    hue turns while their saturation falls (:func:`shows_channel_curve`, ``turn``; version 20) or
    the saturation of their darker half falls with brightness (:func:`darker_half_falls`,
    ``dark_fall``; version 21)? None skips a test."""
    return (turn is not None and shows_channel_curve(lin, grey, sat, turn=turn)) or (
        dark_fall is not None and darker_half_falls(grey, sat, fall=dark_fall)
    )


class DichromaticFit:
    """What both dichromatic corrections (:func:`remove_fitted_floor`, :func:`diffuse_line_reconstruction`)
    estimate from: every pixel of ``rgb8`` (N×3, 8-bit) in linear RGB, and for a fixed sample of them
    (:func:`fit_sample`) the grey component, the distance from the grey axis and the usable pixels
    (not clipped, above the darkest 10 %), and that sample's linear RGB (``lin``: the line's curve
    test reads its hue). Made once, it serves both corrections when the first leaves the pixels as
    they are; its shading test runs once."""

    def __init__(self, rgb8: NDArray[np.uint8]):
        self.source = rgb8  # the pixels it was made from: a correction given other pixels refuses it
        self.lin_all = srgb8_to_linear(rgb8)
        lin = fit_sample_of(self.lin_all)  # the fit needs a sample; the correction goes to every pixel
        self.lin = lin
        if _kernels.enabled(len(lin)) and np.asarray(rgb8).dtype == np.uint8:
            # the steps below in one kernel, the same values
            self.grey, self.perp, self.use = _kernels.dichromatic_sample(lin, fit_sample_of(np.asarray(rgb8)), CLIPPED)
        else:
            self.grey = row_mean(lin)
            self.perp = row_norm(lin - self.grey[:, None])
            clipped = row_any(fit_sample_of(np.asarray(rgb8)) >= CLIPPED)
            self.use = ~clipped & (self.grey > stats.quantile(self.grey, 0.1))
        self._usable = lin[self.use]
        self._shading: bool | None = None

    def of(self, rgb8: NDArray[np.uint8]) -> DichromaticFit:
        """This fit, checked to be of ``rgb8`` (the same array)."""
        if rgb8 is not self.source:
            raise HuebenchError("a DichromaticFit serves only the pixels it was made from (the same array)")
        return self

    def line_pixels(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """The sample pixels the diffuse line reads the albedo's saturation from — usable, and at
        least half as saturated as the usable pixels' median — as (saturations, grey components,
        linear RGB)."""
        sat = self.perp / np.maximum(self.grey, 1e-6)
        use = self.use & (sat >= 0.5 * stats.median(sat[self.use]))
        return sat[use], self.grey[use], self.lin[use]

    def fits(self, min_saturation: float) -> bool:
        """Is there something glossy to fit: at least 20 usable pixels of a chromatic surface
        (:func:`_mean_saturation` ≥ ``min_saturation``) with real shading (:func:`has_shading`)?"""
        if len(self._usable) < 20 or not _mean_saturation(self._usable) >= min_saturation:
            return False
        if self._shading is None:
            self._shading = has_shading(self._usable)
        return self._shading


def remove_fitted_floor(
    rgb8: NDArray[np.uint8],
    *,
    min_saturation: float = FLOOR_MIN_SATURATION,
    max_floor: float | None = MAX_FLOOR,
    fit: DichromaticFit | None = None,
) -> NDArray[np.uint8]:
    """Subtract the white floor a glossy surface reflects everywhere, fitted from its pixels.

    The ``"fitted-floor"`` method of :func:`remove_specular`. In linear RGB a pixel is
    m_d·A + m_s·W (albedo A, white W). Its component along the grey axis is m_d·A∥ + m_s·|W| and its
    distance from that axis m_d·|A⊥|: across the surface the two lie on a line whose intercept is
    the specular floor m_s (diffuse pixels: a line through the origin). A robust line fit (least
    squares, trimming residuals beyond 2.5 MAD, three rounds) gives the floor, which is removed from
    every pixel. Assumes white light, one albedo and a floor common to every pixel. Achromatic and
    pale surfaces (saturation below ``min_saturation``, :data:`FLOOR_MIN_SATURATION`) and flat
    patches (no shading range) leave nothing reliable to fit and are returned unchanged, as are
    fits with no positive floor and fits above ``max_floor`` (linear, per channel; :data:`MAX_FLOOR`):
    no reflection of surroundings an 8-bit image can show is that bright. ``fit``: the
    :class:`DichromaticFit` of ``rgb8``, when the caller has it.
    """

    fit = DichromaticFit(rgb8) if fit is None else fit.of(rgb8)
    if not fit.fits(min_saturation):
        return np.asarray(rgb8)
    lin_all, grey, perp, use = fit.lin_all, fit.grey, fit.perp, fit.use
    if _kernels.enabled(len(grey)):  # the steps below up to the floor in one kernel, the same values
        found = _kernels.floor_line(perp, grey, use)
        if found is None:
            return np.asarray(rgb8)
        return _without_floor(rgb8, lin_all, found / np.sqrt(3.0), max_floor)
    par = np.sqrt(3.0) * grey  # component along the unit grey axis
    sat = perp / np.maximum(par, 1e-6)
    # near-grey pixels (a mask that caught some background) would pose as pure specular and pull
    # the floor up: the fit uses pixels at least half as saturated as the typical one
    use = use & (sat >= 0.5 * stats.median(sat[use]))
    x, y = perp[use], par[use]
    lo, hi = stats.quantile(y, [0.1, 0.9])
    if hi < 1.25 * lo:  # a flat patch: no shading range to tell a floor from the albedo
        return np.asarray(rgb8)
    keep = np.ones(len(x), dtype=bool)
    for _ in range(3):  # least squares, trimming residuals beyond 2.5 MAD
        xk, yk = x[keep], y[keep]
        var = stats.variance(xk)
        if var < 1e-12:  # no spread in chroma: nothing to fit a line to
            return np.asarray(rgb8)
        mean_x, mean_y = stats.mean(xk), stats.mean(yk)
        slope = stats.mean((xk - mean_x) * (yk - mean_y)) / var
        intercept = mean_y - slope * mean_x
        r = y - (slope * x + intercept)
        mad = 1.4826 * stats.median(np.abs(r[keep] - stats.median(r[keep]))) + 1e-9
        keep = np.abs(r) <= 2.5 * mad
        if keep.sum() < 10:
            break
    return _without_floor(rgb8, lin_all, intercept / np.sqrt(3.0), max_floor)


def _without_floor(
    rgb8: NDArray[np.uint8], lin_all: NDArray[np.float64], floor: float, max_floor: float | None
) -> NDArray[np.uint8]:
    """The pixels with the fitted ``floor`` (per channel, linear) taken off, or as they are where
    there is no positive floor or it is above ``max_floor``."""
    if floor <= 0 or (max_floor is not None and floor > max_floor):
        return np.asarray(rgb8)
    return linear_to_srgb8(np.clip(lin_all - floor, 0.0, 1.0))


def _saturation_from_fit(
    fit: DichromaticFit,
    quantile: float,
    curve_turn: float | None = None,
    dark_fall: float | None = None,
    line_band: tuple[float, float] | None = None,
    flat_line: bool = False,
) -> float | None:
    grey, norm_fit, use = fit.grey, fit.perp, fit.use
    if _kernels.enabled(len(grey)) and 0.0 <= quantile <= 1.0:  # the steps below in one kernel, the same value
        return _kernels.fit_saturation(
            grey,
            norm_fit,
            use,
            quantile,
            fit.lin,
            curve_turn,
            CURVE_FALL,
            CURVE_LIT_FROM,
            dark_fall,
            DARK_FALL_PIXELS,
            line_band,
            flat_line,
        )
    lo, hi = stats.quantile(grey[use], [0.1, 0.9])
    if not flat_line and hi < 1.25 * lo:  # a flat patch: saturation spread is noise, and its upper quantile a bias
        return None
    sat, grey, lin = fit.line_pixels()
    read = sat
    if line_shows_curve(lin, grey, sat, turn=curve_turn, dark_fall=dark_fall):
        read = sat[grey >= stats.quantile(grey, CURVE_LIT_FROM)]
    estimate = float(stats.quantile(read, quantile))
    if line_band is None:
        return estimate
    band = line_band_saturation(sat, grey, quantile, line_band)
    return estimate if band is None else min(estimate, band)


def line_band_saturation(
    sat: NDArray[np.float64], grey: NDArray[np.float64], quantile: float, band: tuple[float, float]
) -> float | None:
    """The ``quantile`` of the saturations ``sat`` of a line's pixels whose grey components
    ``grey`` lie between the ``band`` quantiles of them (both ends in): the line's estimate away
    from its darkest pixels (whose saturation noise is the largest, and which a curve's toe makes
    more saturated) and its brightest (which carry the highlight). None for fewer than 10 there.
    ``band``: :func:`check_line_band`'s, e.g. :data:`LINE_BAND`."""
    check_line_band(band)
    lo, hi = stats.quantile(grey, [float(band[0]), float(band[1])])
    middle = (grey >= lo) & (grey <= hi)
    if np.count_nonzero(middle) < 10:
        return None
    return float(stats.quantile(sat[middle], quantile))


def check_line_band(line_band: tuple[float, float] | None) -> None:
    """Raise a one-line :class:`~huebench.errors.HuebenchError` unless ``line_band`` is None or two
    quantiles of brightness ``(low, high)`` with 0 ≤ low < high ≤ 1."""
    if line_band is None:
        return
    try:
        low, high = (float(v) for v in line_band)
    except (TypeError, ValueError):
        raise HuebenchError(f"line_band must be two quantiles (low, high) or None, got {line_band!r}") from None
    if not 0 <= low < high <= 1:
        raise HuebenchError(f"line_band must be two quantiles with 0 ≤ low < high ≤ 1, got {line_band!r}")


def albedo_saturation(
    rgb8: NDArray[np.uint8],
    *,
    quantile: float = 0.75,
    min_saturation: float = 0.15,
    curve_turn: float | None = None,
    dark_fall: float | None = None,
    line_band: tuple[float, float] | None = None,
    flat_line: bool = False,
) -> float | None:
    """The albedo's saturation as :func:`diffuse_line_reconstruction` estimates it (``curve_turn``,
    ``dark_fall``: its curve tests, ``line_band`` its cap, ``flat_line`` a line on a flat patch
    too, there).

    Saturation is the distance from the grey axis over the grey component (linear RGB); the
    estimate is its ``quantile`` over the pixels — the least specular ones — leaving out clipped
    pixels, the darkest 10 % and pixels less than half as saturated as the median. ``None`` for
    achromatic surfaces and flat patches, which are left as they are.
    """
    check_curve_turn(curve_turn)
    check_dark_fall(dark_fall)
    check_line_band(line_band)
    fit = DichromaticFit(rgb8)
    return (
        _saturation_from_fit(fit, quantile, curve_turn, dark_fall, line_band, flat_line)
        if fit.fits(min_saturation)
        else None
    )


def diffuse_line_reconstruction(
    rgb8: NDArray[np.uint8],
    *,
    quantile: float = 0.75,
    min_saturation: float = 0.15,
    saturation: float | None = None,
    keep_clipped: bool = False,
    fit: DichromaticFit | None = None,
    curve_turn: float | None = None,
    dark_fall: float | None = None,
    line_band: tuple[float, float] | None = None,
    flat_line: bool = False,
) -> NDArray[np.uint8]:
    """Put every pixel back on the diffuse line of the dichromatic model.

    The ``"diffuse-line"`` method of :func:`diffuse_reconstruction`. A diffuse pixel's saturation
    (distance from the grey axis over its grey component, linear RGB) is the albedo's whatever the
    shading; specular reflection only lowers it. The albedo's saturation is estimated as an upper
    quantile of the pixels' saturations (the least specular ones, :func:`albedo_saturation`), and
    each pixel keeps its chromatic part and gets the grey component that saturation implies —
    removing the white each pixel reflects, not just a common floor. Assumes white light and one
    albedo; achromatic surfaces and flat patches are returned unchanged. ``saturation`` replaces the
    estimate (a known material; ``perf/scorer_study.py --oracle`` gives the renders' true
    albedo to measure how much of the remaining error is the estimate's).

    ``keep_clipped``: pixels with one or two channels at the 8-bit ceiling (:data:`CLIPPED`) keep
    their colour. On a matte surface they are the body colour beyond the image's range (a bright colour
    under a warm light, a saturation boost): the line cannot know the clipped channel, and putting
    such a pixel at the unclipped pixels' saturation darkens it (a near-white under CIE A light:
    L* 74 against the 91 the image shows). On a glossy surface they may be highlights, so the
    default is off. ``fit``: the :class:`DichromaticFit` of ``rgb8``, when the caller has it.

    ``curve_turn`` (degrees; None: no test): where the pixels show a curve on each channel — their
    hue turns by more than this from the darker to the brighter half while their saturation falls
    with brightness (:func:`shows_channel_curve`) — the quantile is read from the pixels from the
    :data:`CURVE_LIT_FROM` quantile of brightness up: the curve made the darker ones more saturated.
    ``dark_fall`` (None: no test): so does it where the saturation of the darker half of the pixels
    falls with their brightness, a rank correlation below this (:func:`darker_half_falls`) — a
    curve that turns no hue. ``line_band`` (None: none): the estimate is at most the same quantile
    over the pixels between these two quantiles of brightness (:func:`line_band_saturation`,
    :data:`LINE_BAND`).

    ``flat_line``: the line is read on a surface whose usable pixels span less than 1.25× in
    brightness too (left as it is otherwise: on a flat matte patch the spread of saturations is
    noise and their upper quantile a bias). A glossy surface under soft light is that flat, and
    without its line the lit window reads its palest, most reflecting pixels.
    """
    check_curve_turn(curve_turn)
    check_dark_fall(dark_fall)
    check_line_band(line_band)
    if saturation is None:
        fit = DichromaticFit(rgb8) if fit is None else fit.of(rgb8)
        est = (
            _saturation_from_fit(fit, quantile, curve_turn, dark_fall, line_band, flat_line)
            if fit.fits(min_saturation)
            else None
        )
        if est is None:
            return np.asarray(rgb8)
        lin_all = fit.lin_all
        saturation = est
    else:
        if not saturation > 0:
            raise HuebenchError(f"saturation must be positive, got {saturation!r}")
        lin_all = srgb8_to_linear(rgb8)
    if _kernels.enabled(len(lin_all)) and np.asarray(rgb8).dtype == np.uint8 and lin_all.ndim == 2:
        # the steps below in one kernel, the same pixels
        return linear_to_srgb8(
            _kernels.diffuse_line(lin_all, rgb8, saturation, keep_clipped=keep_clipped, clipped=CLIPPED)
        )
    perp = lin_all - row_mean(lin_all)[:, None]
    norm = row_norm(perp)
    out = np.clip(perp + (norm / saturation)[:, None], 0.0, 1.0)
    if keep_clipped:
        ceiling = np.asarray(rgb8).reshape(-1, 3) >= CLIPPED
        clipped = row_any(ceiling) & ~row_all(ceiling)
        out[clipped] = lin_all[clipped]
    return linear_to_srgb8(out)


def check_curve_turn(curve_turn: float | None, name: str = "curve_turn") -> None:
    """Raise a one-line :class:`~huebench.errors.HuebenchError` naming the setting ``name`` unless
    ``curve_turn`` is a hue angle in degrees in [0, 180) or None."""
    if curve_turn is not None and not 0 <= curve_turn < 180:
        raise HuebenchError(f"{name} must be a hue angle in degrees in [0, 180) or None, got {curve_turn!r}")


def check_dark_fall(dark_fall: float | None) -> None:
    """Raise a one-line :class:`~huebench.errors.HuebenchError` unless ``dark_fall`` is a rank
    correlation in [−1, 1] or None."""
    if dark_fall is not None and not -1 <= dark_fall <= 1:
        raise HuebenchError(f"dark_fall must be a rank correlation in [-1, 1] or None, got {dark_fall!r}")


def check_white_bounds(
    max_removed_white: float | None = None, curve_spread: float | None = None, curve_rank: float = CURVE_RANK
) -> None:
    """Raise a one-line :class:`~huebench.errors.HuebenchError` unless the bounds on the white the
    dichromatic steps may take are usable: ``max_removed_white`` a linear radiance > 0 or None,
    ``curve_spread`` a share in (0, 1) or None, ``curve_rank`` a rank correlation in [−1, 1]."""
    if max_removed_white is not None and not max_removed_white > 0:
        raise HuebenchError(f"max_removed_white must be a linear radiance > 0 or None, got {max_removed_white!r}")
    if curve_spread is not None and not 0 < curve_spread < 1:
        raise HuebenchError(f"curve_spread must be a share in (0, 1) or None, got {curve_spread!r}")
    if not -1 <= curve_rank <= 1:
        raise HuebenchError(f"curve_rank must be a rank correlation in [-1, 1], got {curve_rank!r}")


def white_follows_brightness(
    brightness: NDArray[np.float64],
    removed: NDArray[np.float64],
    *,
    spread: float = CURVE_SPREAD,
    rank: float = CURVE_RANK,
) -> bool:
    """Is the white taken from a surface's pixels (``removed``, linear, one value per pixel) a
    compressive tone curve's rather than reflections? It is when it is spread over the surface —
    more than ``spread`` of the pixels give up more than half of what the 95th-percentile pixel
    gives (a lamp's highlight gives it up on a few) — and rises with the pixels' ``brightness``: a
    Spearman rank correlation above ``rank`` (a reflection of the surroundings is about even and
    does not). False for fewer than 20 pixels or where nothing was taken."""
    check_white_bounds(curve_spread=spread, curve_rank=rank)
    removed, brightness = np.asarray(removed, dtype=np.float64), np.asarray(brightness, dtype=np.float64)
    if removed.shape != brightness.shape or removed.ndim != 1:
        raise HuebenchError(
            f"brightness and removed white must be two 1-D arrays of one value per pixel, got shapes "
            f"{brightness.shape} and {removed.shape}"
        )
    if len(removed) < 20:
        return False
    top = stats.quantile(removed, 0.95)
    if not top > 1e-6 or float(np.mean(removed > 0.5 * top)) <= spread:
        return False
    if np.ptp(removed) == 0 or np.ptp(brightness) == 0:
        return False
    return rank_correlation(removed, brightness) > rank  # most surfaces stop at the spread


def dichromatic_steps(
    rgb8: NDArray[np.uint8],
    *,
    floor: bool = True,
    floor_min_saturation: float = FLOOR_MIN_SATURATION,
    max_floor: float | None = MAX_FLOOR,
    quantile: float = 0.75,
    min_saturation: float = 0.15,
    keep_clipped: bool = False,
    max_removed_white: float | None = MAX_REMOVED_WHITE,
    curve_spread: float | None = CURVE_SPREAD,
    curve_rank: float = CURVE_RANK,
    curve_turn: float | None = None,
    dark_fall: float | None = None,
    line_band: tuple[float, float] | None = None,
    flat_line: bool = False,
) -> NDArray[np.uint8]:
    """The dichromatic corrections in turn: with ``floor``, :func:`remove_fitted_floor`
    (``floor_min_saturation``, ``max_floor``), then :func:`diffuse_line_reconstruction`
    (``quantile``, ``min_saturation``, ``keep_clipped``, ``curve_turn``, ``dark_fall``, ``line_band``,
    ``flat_line``) on its result, the two sharing one
    :class:`DichromaticFit` when the floor leaves the pixels as they are. N×3 8-bit pixels of at
    most :data:`FIT_PIXELS` run as one kernel where numba is (the same pixels; its few 3-vector
    products are loops where NumPy calls BLAS).

    ``max_removed_white`` (:data:`MAX_REMOVED_WHITE`; None: no bound): where the median, over the
    pixels, of the white the two steps take from each (linear, the mean over channels) exceeds
    this, the pixels are not reflections of a dielectric but a compressive tone curve's or a
    saturation change's (which lower saturation as brightness rises, as reflected white does): the
    diffuse line is refused and the floor alone comes off (none where ``floor`` is False). So it
    is where that white follows brightness (:func:`white_follows_brightness` with ``curve_spread``
    and ``curve_rank``; ``curve_spread`` None: no such test)."""
    check_white_bounds(max_removed_white, curve_spread, curve_rank)
    check_curve_turn(curve_turn)
    check_dark_fall(dark_fall)
    check_line_band(line_band)
    steps = _dichromatic_steps(
        rgb8,
        floor=floor,
        floor_min_saturation=floor_min_saturation,
        max_floor=max_floor,
        quantile=quantile,
        min_saturation=min_saturation,
        keep_clipped=keep_clipped,
        curve_turn=curve_turn,
        dark_fall=dark_fall,
        line_band=line_band,
        flat_line=flat_line,
    )
    if (max_removed_white is None and curve_spread is None) or steps is rgb8:  # (NumPy returns unchanged pixels)
        return steps
    brightness = row_mean(srgb8_to_linear(rgb8).reshape(-1, 3))
    removed = brightness - row_mean(srgb8_to_linear(steps).reshape(-1, 3))
    too_much = max_removed_white is not None and stats.median(removed) > max_removed_white
    if not too_much and (
        curve_spread is None or not white_follows_brightness(brightness, removed, spread=curve_spread, rank=curve_rank)
    ):
        return steps
    if not floor:
        return np.asarray(rgb8)
    return remove_fitted_floor(rgb8, min_saturation=floor_min_saturation, max_floor=max_floor)


def _dichromatic_steps(
    rgb8: NDArray[np.uint8],
    *,
    floor: bool,
    floor_min_saturation: float,
    max_floor: float | None,
    quantile: float,
    min_saturation: float,
    keep_clipped: bool,
    curve_turn: float | None,
    dark_fall: float | None,
    line_band: tuple[float, float] | None,
    flat_line: bool = False,
) -> NDArray[np.uint8]:
    """:func:`dichromatic_steps` without its bounds on the white they take."""
    px = np.asarray(rgb8)
    if (
        _kernels.enabled(len(px))
        and len(px) <= FIT_PIXELS
        and px.dtype == np.uint8
        and px.ndim == 2
        and px.shape[1] == 3
        and 0.0 <= quantile <= 1.0
    ):
        return _kernels.dichromatic_steps(
            px,
            srgb8_table(),
            srgb8_encoding_tables(),
            clipped=CLIPPED,
            floor=floor,
            floor_min_saturation=floor_min_saturation,
            max_floor=max_floor,
            min_saturation=min_saturation,
            quantile=quantile,
            keep_clipped=keep_clipped,
            shading_factor=SHADING_FACTOR,
            curve_turn=curve_turn,
            curve_fall=CURVE_FALL,
            curve_lit_from=CURVE_LIT_FROM,
            dark_fall=dark_fall,
            dark_pixels=DARK_FALL_PIXELS,
            line_band=line_band,
            flat_line=flat_line,
        )
    fit = None
    if floor:
        fit = DichromaticFit(px)
        floored = remove_fitted_floor(px, min_saturation=floor_min_saturation, max_floor=max_floor, fit=fit)
        if floored is not px:  # a floor came off: the line is fitted to the new pixels
            px, fit = floored, None
    return diffuse_line_reconstruction(
        px,
        quantile=quantile,
        min_saturation=min_saturation,
        keep_clipped=keep_clipped,
        fit=fit,
        curve_turn=curve_turn,
        dark_fall=dark_fall,
        line_band=line_band,
        flat_line=flat_line,
    )


# -- method tables and their dispatchers ------------------------------------------------------

#: named ways to remove specular reflection from a surface's pixels (colour-science's
#: ``*_METHODS`` pattern): ``"fitted-floor"`` fits a floor common to every pixel from the pixels
#: alone; ``"fresnel-veil"`` subtracts a veil known from outside them (``veil=``, linear RGB)
SPECULAR_REMOVAL_METHODS: dict[str, Callable[..., NDArray[np.uint8]]] = {
    "fitted-floor": remove_fitted_floor,
    "fresnel-veil": remove_veil,
}

#: named ways to rebuild a surface's diffuse colour from pixels that carry specular reflection
DIFFUSE_RECONSTRUCTION_METHODS: dict[str, Callable[..., NDArray[np.uint8]]] = {
    "diffuse-line": diffuse_line_reconstruction,
}


def _method(table: dict[str, Callable[..., Any]], method: str, what: str) -> Callable[..., Any]:
    try:
        return table[method]
    except (KeyError, TypeError):
        raise UnknownNameError(
            f"{what} method {method!r} unknown: use {' or '.join(map(repr, table))}."
            + suggestion_text(str(method), table)
        ) from None


def remove_specular(rgb8: NDArray[np.uint8], method: str = "fitted-floor", **kwargs: Any) -> NDArray[np.uint8]:
    """Remove the specular reflection of a surface's pixels by one of :data:`SPECULAR_REMOVAL_METHODS`.

    Parameters
    ----------
    rgb8
        N×3 8-bit sRGB pixels of one surface.
    method
        ``"fitted-floor"`` (:func:`remove_fitted_floor`; the default, as it needs the pixels only)
        or ``"fresnel-veil"`` (:func:`remove_veil`; needs ``veil=``).
    **kwargs
        The method's own options (``min_saturation`` for the fitted floor, ``veil`` for the veil).

    Returns
    -------
    ndarray
        The pixels without the removed reflection, 8-bit sRGB.

    Raises
    ------
    UnknownNameError
        An unknown ``method``, with a did-you-mean suggestion.
    """
    return _method(SPECULAR_REMOVAL_METHODS, method, "specular removal")(rgb8, **kwargs)


def diffuse_reconstruction(rgb8: NDArray[np.uint8], method: str = "diffuse-line", **kwargs: Any) -> NDArray[np.uint8]:
    """Rebuild a surface's diffuse colour by one of :data:`DIFFUSE_RECONSTRUCTION_METHODS`.

    Parameters
    ----------
    rgb8
        N×3 8-bit sRGB pixels of one surface.
    method
        ``"diffuse-line"`` (:func:`diffuse_line_reconstruction`).
    **kwargs
        The method's own options (``quantile``, ``min_saturation``, ``saturation``).

    Raises
    ------
    UnknownNameError
        An unknown ``method``, with a did-you-mean suggestion.
    """
    return _method(DIFFUSE_RECONSTRUCTION_METHODS, method, "diffuse reconstruction")(rgb8, **kwargs)


# -- the main colour --------------------------------------------------------------------------


def main_color_pixels(
    rgb8: NDArray[np.uint8], *, keep: float = 0.7, from_quantile: float = MAIN_COLOR_FROM
) -> NDArray[np.bool_]:
    """The pixels of a surface's main colour: a boolean mask over ``rgb8`` (N×3, 8-bit sRGB).

    Chromaticity (linear RGB over its sum) does not change with shading, so one albedo is one
    point, spread by noise that grows as pixels darken. The main colour is the densest chromaticity
    of the pixels above the ``from_quantile`` of brightness (:data:`MAIN_COLOR_FROM`: the darkest
    are mostly noise); a pixel is kept when it lies within the radius that holds ``keep`` of those
    pixels — at least 3.5 × their median distance and 0.01 (a few degrees of hue for a saturated
    colour), so a uniform object loses nothing to noise or 8-bit steps — widened for darker pixels
    in proportion as their noise grows. For a chromatic main colour only a change of hue counts:
    reflected white moves pixels along the line to the white point and they are kept — but not
    past it, where the complementary hue lies. Pixels of a print, a second colour or a coloured
    reflection are left out. With fewer than 20 pixels to go on, every pixel is kept."""
    rgb8 = np.asarray(rgb8)
    quantiles_ok = 0.0 <= keep <= 1.0 and 0.0 <= from_quantile <= 1.0  # else NumPy's error below
    if (
        rgb8.dtype == np.uint8
        and rgb8.ndim == 2
        and rgb8.shape[1] == 3
        and _kernels.enabled(len(rgb8))
        and quantiles_ok
    ):
        # every step below in one kernel (its 3-vector products as loops: NumPy's go to BLAS)
        return _kernels.main_color(rgb8, srgb8_table(), keep, from_quantile, _gaussian_weights(1.0))
    lin = srgb8_to_linear(rgb8)
    total = row_sum(lin)
    chrom = lin / np.maximum(total, 1e-6)[:, None]
    bright = total >= stats.quantile(total, from_quantile)
    if int(np.count_nonzero(bright)) < 20:
        return np.ones(len(rgb8), dtype=bool)
    x, y, total_bright = chrom[bright, 0], chrom[bright, 1], total[bright]
    (lo_x, hi_x), (lo_y, hi_y) = stats.quantile(x, [0.01, 0.99]), stats.quantile(y, [0.01, 0.99])
    lo, hi = np.array([lo_x, lo_y]), np.array([hi_x, hi_y])
    width = (hi - lo + 1e-9) / 24  # a 24 × 24 histogram over the central 98 %, then smoothed
    cx, cy = np.floor((x - lo[0]) / width[0]).astype(np.int64), np.floor((y - lo[1]) / width[1]).astype(np.int64)
    inside = (cx >= 0) & (cx < 24) & (cy >= 0) & (cy < 24)
    counts = np.bincount(cx[inside] * 24 + cy[inside], minlength=24 * 24).reshape(24, 24)
    hist = gaussian_blur(counts.astype(np.float64), 1.0)
    peak = np.array(np.unravel_index(int(np.argmax(hist)), hist.shape))
    centre, reach_xy = lo + (peak + 0.5) * width, 1.5 * width
    close = (np.abs(x - centre[0]) <= reach_xy[0]) & (np.abs(y - centre[1]) <= reach_xy[1])
    near_x, near_y = x[close], y[close]
    if not len(near_x):
        near_x, near_y = x, y
    mode = np.array([stats.median(near_x), stats.median(near_y)])
    mode3 = np.array([mode[0], mode[1], 1.0 - mode.sum()])
    off = chrom - mode3
    axis = mode3 - 1.0 / 3.0
    if np.linalg.norm(axis) > 0.02:
        # a chromatic object: only a change of hue counts. Reflected white and the veil move pixels
        # along the line to the white point, and the saturated tail is the albedo's best evidence
        reach = float(np.linalg.norm(axis))
        axis /= reach
        along = off @ axis
        # … up to the white point: past it lies the complementary hue (a yellow print on a blue
        # object is on the same line through white), and that part of the offset counts
        past_white = np.clip(-along - reach, 0.0, None)
        off = off - along[:, None] * axis
        dist = np.hypot(row_norm(off), past_white)
    else:
        dist = row_norm(off)
    q_keep, q_mid = stats.quantile(dist[bright], [keep, 0.5])
    radius = max(float(q_keep), 3.5 * float(q_mid), 0.01)
    typical = stats.median(total_bright)
    kept = dist <= radius * np.maximum(typical / np.maximum(total, 1e-6), 1.0)
    return kept if int(np.count_nonzero(kept)) >= 20 else np.ones(len(rgb8), dtype=bool)


def lit_saturation(lin: NDArray[np.float64]) -> float:
    """The saturation of the mean colour of the brighter half (grey component at or above its
    median) of N×3 linear pixels: below :data:`NEUTRAL_SATURATION` the surface is neutral
    (:func:`neutral_highlights`, :func:`dark_neutral`). The mean colour, not the pixels'
    saturations: on a dark surface pixel noise alone gives single pixels a large saturation."""
    if _kernels.enabled(len(lin)):
        return _kernels.lit_mean_saturation(lin)  # the two steps below, one call
    grey = row_mean(lin)
    return _mean_saturation(lin[grey >= stats.quantile(grey, 0.5)])


def dark_neutral(
    rgb8: NDArray[np.uint8],
    *,
    max_lightness: float = DARK_NEUTRAL_LIGHTNESS,
    quantile: float = DARK_NEUTRAL_QUANTILE,
    min_saturation: float = NEUTRAL_SATURATION,
) -> bool:
    """Is a surface (N×3 8-bit sRGB pixels) black or near black — neutral (:func:`lit_saturation`
    below ``min_saturation``) with its ``quantile`` of L* (three quarters of its pixels, by
    default) below ``max_lightness``?

    On such a surface the light a dielectric reflects is as bright as its diffuse light: an albedo
    of 2–5 % against an F0 of 4 % of the surroundings, more at grazing angles and in highlights
    too broad for :func:`neutral_highlights`. So its brightest pixels show reflections, not its
    lit body colour, and with no chroma the dichromatic steps cannot take them out: the scorer
    judges such a surface on all its pixels rather than its lit window. Fewer than 20 pixels say
    no.
    """
    px = fit_sample_of(np.asarray(rgb8).reshape(-1, 3))
    if len(px) < 20:
        return False
    if lit_saturation(srgb8_to_linear(px)) >= min_saturation:
        return False
    return bool(stats.quantile(srgb_to_lab(px)[:, 0], quantile) < max_lightness)


def neutral_highlights(
    image: NDArray[np.uint8],
    inner: NDArray[np.bool_],
    *,
    excess: float = NEUTRAL_HIGHLIGHT,
    min_saturation: float = NEUTRAL_SATURATION,
) -> NDArray[np.bool_]:
    """The specular highlights of a neutral surface (white, grey, black), as a mask over
    ``image[inner]`` (True = highlight); all False for a chromatic surface.

    On a neutral surface a highlight is as grey as the body, so no chroma test finds it, yet it is
    what a lit window of lightness would pick (a glossy black egg read L* 65 against 17). Diffuse
    shading varies smoothly over an object, a highlight is a compact peak above it: the luminance
    (linear) is fitted with a quadratic in the pixel coordinates, dropping positive outliers
    (beyond 2.5 robust standard deviations, four rounds), and a pixel is a highlight when it is more
    than ``excess`` above the fit (plus 0.01 for the darkest surfaces' noise) and brighter than the
    surface's median. Surfaces whose lit half's mean colour has a saturation of at least
    ``min_saturation`` are left to the chroma tests (the dichromatic steps), as are surfaces with
    fewer than 20 pixels. The mean colour, not the pixels' saturations: on a dark surface pixel noise
    alone gives single pixels a large saturation (a black egg's 90th percentile reached 0.18), and
    averaging takes it out, as for the fitted floor's gate.
    """
    m = np.asarray(inner, dtype=bool)
    px = masked(image, m)
    none = np.zeros(len(px), dtype=bool)
    if len(px) < 20:
        return none
    lin = srgb8_to_linear(px)
    if lit_saturation(lin) >= min_saturation:
        return none
    rows, cols = np.nonzero(m)
    x = (cols - cols.mean()) / max(float(cols.std()), 1.0)
    y = (rows - rows.mean()) / max(float(rows.std()), 1.0)
    design = np.stack([np.ones_like(x), x, y, x * x, y * y, x * y], axis=1)
    lum = lin @ RGB_TO_XYZ[1]  # luminance Y
    keep = np.ones(len(lum), dtype=bool)
    fit = np.zeros_like(lum)
    for _ in range(4):  # least squares without the positive outliers (the highlights)
        if keep.sum() < design.shape[1] * 3:
            return none
        coef, *_ = np.linalg.lstsq(design[keep], lum[keep], rcond=None)
        fit = design @ coef
        r = lum - fit
        scale = 1.4826 * stats.median(np.abs(r[keep] - stats.median(r[keep]))) + 1e-6
        keep = r < 2.5 * scale
    # a highlight is bright: the fit's misses on the dark side (a terminator's kink) are not one
    found = (lum > fit * (1.0 + excess) + 0.01) & (lum > stats.median(lum))
    return found if (~found).sum() >= 20 else none
