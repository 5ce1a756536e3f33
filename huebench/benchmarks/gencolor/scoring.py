"""GenColorBench's perceptual colour scoring (seed 004 §3.4) and an offline segmentation path.

For an object's pixels and a target colour of a system:

1. pixels → CIELAB → dominant colour (:func:`huebench.color.dominant_color`);
2. candidate set = the target plus its ``k`` perceptually nearest members of the same system
   (CIEDE2000; aliases counted once) — a generated shade may be a neighbouring name of the target;
3. three metrics, each the minimum over the candidates: Δchroma (a*b* distance), CIEDE2000, and the
   hue-angle difference with chroma gating (no hue test when either colour is near-grey);
4. each against its threshold — ΔE00 ≤ 5 and Δchroma ≤ 5 (one JND, as in the paper) and Δhue ≤
   :data:`HUE_THRESHOLD` degrees — and the image is correct when all three pass.

Choices beyond the paper, each measured on the known-colour renders (``perf/scorer_study.py``
compares them side by side; quick L2 / CSS renders, exact masks):

- the mask loses its 1-pixel border (anti-aliased edge pixels mix object and background), except
  where the image's frame cuts the object (``frame_cuts``), and the pixels at its edge that look
  like what lies around it: the background a loose mask caught (``peel``, :func:`peel_background`);
- glossy surfaces reflect white (dichromatic reflection model; the physics is the colour core's,
  :mod:`huebench.color.reflectance`). A surface whose lit half is not uniformly saturated looks
  glossy (``looks_glossy``); a dielectric reflects about 4 % of its surroundings even where it
  reflects least, so F0 × the surroundings' radiance is removed from every pixel
  (``specular_veil``, ``remove_specular(method="fresnel-veil")``) — unless the pixels cannot carry
  it (``fit_veil``: a wrong gloss call, from JPEG chroma, a blur or a print), and no more than the
  darker pixels show, where no highlight reaches (``veil_floor_errors``, version 22). Other chromatic
  surfaces get a fitted white floor removed instead (``remove_specular(method="fitted-floor")``; clearly chromatic
  surfaces only, ``FLOOR_MIN_SATURATION``). Then every pixel is put back on the albedo's diffuse
  line (``diffuse_reconstruction(method="diffuse-line")``) — glossy objects 22 → 91 % (L2) and
  52 → 88 % (CSS), diffuse objects ≈ 99 % — unless the two steps would take more white off the
  pixels (their median) than a dielectric reflects from white surroundings, or white that follows
  brightness over much of the surface — a tone curve's compression, not reflections
  (``max_removed_white``, version 18; ``curve_spread``, ``curve_rank``, version 19: the floor alone).
  Where a glossy surface's hue turns with brightness while its saturation falls — a curve on each
  channel, which reflected white cannot do — the line reads its saturation near the lit face
  (``curve_turn``, version 20), and so it does where the saturation of the darker half of its pixels
  falls with brightness — a curve that turns no hue, which neither one albedo nor a reflected veil
  does (``dark_fall``, version 21). A glossy line's saturation is at most the same quantile over
  its pixels between the 0.3 and 0.8 quantiles of brightness — noise and a curve's toe inflate the
  darkest — except where the darker pixels are more saturated than a veil leaves them
  (``line_band``, ``band_floor_errors``, version 23). Where they are and the surface's hue turns with
  brightness too, a curve on each channel made them so, not a reflection: no veil comes off and the
  band cap stays (``floor_curve_turn``, version 24). A surface called glossy gets its line even
  where its usable pixels span less than 1.25× in brightness — soft light, bright surroundings
  mirrored across the whole face — which the line's flatness guard left as they were, for the
  window to read its palest pixels (``glossy_flat_line``, version 28; the guard stays on matte
  surfaces, whose flat saturations spread only with noise);
- the dominant colour is taken over the lit surface — pixels between the 85th and 99th percentile
  of L* — because shadows darken and desaturate an object that people still call by its lit colour;
  except on a black or near-black surface (neutral, three quarters of its pixels below L* 31:
  ``dark_neutral``, version 27), whose brightest pixels are the surroundings it reflects — as
  bright as its lit body on an albedo of a few per cent, and without chroma for any step to take
  them off — and which is judged on all its pixels, without the calibration (it learnt the window);
- under a coloured light a glossy surface reflects that light's colour, not white: when the object's
  own pixels fill the plane of body colour and light, grey leaves that plane and the surroundings'
  colour lies in it (``light_colour``), the object is judged white-balanced by that colour and its
  dominant colour is put back under the light before the comparison (options ``light_planarity``,
  ``light_margin``; the record's ``light``) — if that colour can be a light's: near the Planckian
  locus (``light_max_duv``, version 26), not a red wall or a blue backdrop;
- both steps stand down when the surface shows no shading beyond pixel noise (``has_shading``,
  on the pixels below the 8-bit ceiling): a flat noisy patch is all "lit", and a window or a
  specular fit would only pick noise. The window stays on flat bands of one colour (cel shading,
  flat paint: ``lightness_varies``, version 17), whose shadow band would otherwise be averaged in.

Overall 73.8 → 96.6 % (L2) and 83.2 → 95.1 % (CSS) with exact masks, 0 far-colour false accepts.
Defaults (k = 3, hue 5°, gate C* < 5) are not given in the paper and are all configurable.

:func:`segment_offline` finds the object without any network weights: it models the background
from the image border and keeps what differs from it, grown into the connected pixels that differ
less (version 2: a grey body whose shading passes the backdrop's lightness stays whole), less the
shadow it casts on the backdrop (version 3). Good for renders and product-style images
(one object on a plain or smoothly lit backdrop); it fails on cluttered scenes, on objects whose
colour matches the backdrop, and on objects touching the border — use GroundingDINO/OWLv2 + SAM
masks or supplied masks there.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from huebench._suggest import suggestion_text
from huebench.benchmarks.gencolor.calibration import (
    CALIBRATION,
    MIN_CHROMA,
    Calibration,
    calibration_features,
    load_calibration,
    pixel_statistics,
)
from huebench.color import (
    delta_e,
    lab_to_xyz,
    linear_rgb_to_xyz,
    linear_to_srgb8,
    load_system,
    parse,
    srgb8_to_linear,
    srgb_to_lab,
    srgb_to_linear,
    three_differences,
    xyz_to_lab,
    xyz_to_linear_rgb,
)
from huebench.color._rows import masked
from huebench.color.dominant import DOMINANT_COLOR_METHODS
from huebench.color.reflectance import (
    CURVE_DARK_FALL,
    CURVE_HUE_TURN,
    CURVE_RANK,
    CURVE_SPREAD,
    DARK_NEUTRAL_LIGHTNESS,
    F0_DIELECTRIC,
    FLOOR_MIN_SATURATION,
    GLOSS_RADIAL,
    GLOSS_SMOOTH,
    GLOSS_UNIFORMITY,
    LIGHT_MARGIN,
    LIGHT_MAX_DUV,
    LIGHT_PLANARITY,
    LINE_BAND,
    MAIN_COLOR_FROM,
    MAX_FLOOR,
    MAX_REMOVED_WHITE,
    NEUTRAL_HIGHLIGHT,
    RIM_BAND,
    RIM_RATIO,
    VEIL_FLOOR_ERRORS,
    VEIL_QUANTILE,
    balance,
    check_curve_turn,
    check_dark_fall,
    check_floor_errors,
    check_line_band,
    check_max_duv,
    check_veil_floor,
    check_white_bounds,
    chroma_quantile,
    dark_neutral,
    darker_floor,
    dichromatic_steps,
    edge_near_surroundings,
    fit_sample_of,
    fit_veil,
    floor_below_zero,
    grow_mask,
    interior_hue_turn,
    light_colour,
    lightness_varies,
    main_color_pixels,
    mask_box,
    mask_depth,
    neutral_highlights,
    remove_specular,
    specular_veil,
    surface_looks_glossy,
    veil_within_floor,
)
from huebench.errors import HuebenchError, UnknownNameError

__all__ = [
    "CANDIDATE_RULES",
    "DEFAULT_K",
    "HUE_THRESHOLD",
    "JND",
    "MATTE_QUANTILE",
    "OFFLINE_SEGMENTATION",
    "SCORERS",
    "SCORER_VERSION",
    "ColorScore",
    "ColorScorer",
    "canonical_scorer_options",
    "parse_scorer_options",
    "peel_background",
    "segment_offline",
]

#: bumped whenever a default or a step of the scorer changes what it decides: it is part of the
#: scorer's config in config.json, so --resume never mixes records of two scorers
SCORER_VERSION = 28
JND = 5.0
#: how the three metrics meet the candidates: "per-metric" takes each metric's minimum over the
#: candidates (the paper), "same" needs one candidate to pass all three (a grey candidate then
#: cannot switch the hue test off for a chromatic target)
CANDIDATE_RULES = ("per-metric", "same")
HUE_THRESHOLD = 5.0
DEFAULT_K = 3
#: judge the object by its lit surface: pixels between these quantiles of L* (see dominant_color)
LIT_WINDOW: tuple[float, float] | None = (0.85, 0.99)
#: a black or near-black surface — neutral, three quarters of its pixels below this L* — is judged on all its pixels,
#: not the lit window (:func:`~huebench.color.reflectance.dark_neutral`): on an albedo of a few per
#: cent the reflected surroundings are as bright as the lit body, so its brightest pixels are
#: reflections, and without chroma no specular step can take them off. Version 27
#: (docs/gencolor.md); None: the lit window on every surface
DARK_NEUTRAL: float | None = DARK_NEUTRAL_LIGHTNESS
#: the specular steps (huebench.color.reflectance): "dichromatic+envelope90" removes the floor of
#: the dichromatic model — the Fresnel veil where the surface shows one, else a fitted floor
#: ("fitted-floor", clearly chromatic surfaces only: :data:`FLOOR_MIN_SATURATION`) — and then puts
#: every pixel back on the albedo's diffuse line ("diffuse-line" at the :data:`DIFFUSE_QUANTILE`
#: of saturation); None: no specular step (the paper). The name is the one config.json records.
#: Other steps (other quantiles, the floor alone, the "top" and "mode" pixel selections) and the
#: in-mask smoothing are study variants: ``perf/scorer_study.py`` (``StudyScorer``)
SPECULAR: str = "dichromatic+envelope90"
#: the diffuse line's saturation: this quantile of the pixels' saturations (the least specular
#: ones); 0.75 / 0.95 are in docs/gencolor.md's tables
DIFFUSE_QUANTILE = 0.9
#: the diffuse line's saturation on a surface the gloss test calls matte: this quantile (the
#: median). Every pixel of a matte surface is on the diffuse line, so its saturations spread only
#: with pixel noise (sensor noise, JPEG's chroma) — both ways, and an upper quantile reads high,
#: which darkens and over-saturates the colour. None: :data:`DIFFUSE_QUANTILE` everywhere
MATTE_QUANTILE: float | None = 0.5
#: the glossy line is capped by its middle band of brightness (``line_band``,
#: :data:`~huebench.color.reflectance.LINE_BAND`) except where the object's darker pixels lie more
#: than this many standard errors of their floor below 0
#: (:func:`~huebench.color.reflectance.darker_floor`): there the darker pixels are more saturated
#: than one albedo under a veil leaves them — a face that mirrors a darker floor than the lit face
#: mirrors, as path-traced plastic in soft light does — and they, not noise, carry the albedo.
#: Version 23 (docs/gencolor.md). None: the cap everywhere
BAND_FLOOR_ERRORS: float | None = 2.0
#: a glossy-called surface whose darker pixels lie more than ``veil_floor_errors`` standard errors of
#: their floor below 0 (:func:`~huebench.color.reflectance.darker_floor`: more saturated than one
#: albedo under any veil leaves them) and whose hue turns with brightness by more than this many
#: degrees (:func:`~huebench.color.reflectance.interior_hue_turn`) shows a curve on each channel:
#: white reflected onto a surface, however unevenly, turns no hue. Its lit face, not its darker
#: pixels, shows the colour: no veil is taken off and the glossy line stays capped by its middle
#: band (a fitted white floor may still come off, as from any surface without a veil: a curve's
#: darker pixels put it below 0, so it takes nothing). The line's own hue-turn threshold
#: (:data:`~huebench.color.reflectance.CURVE_HUE_TURN`), swept from 0.25 to 2° and kept; version 24
#: (docs/gencolor.md). The test reads ``veil_floor_errors``' threshold, and stands down with it.
#: None: no such test
FLOOR_CURVE_TURN: float | None = CURVE_HUE_TURN
#: on a surface the gloss test calls matte, pixels with one or two channels at the 8-bit ceiling keep
#: their colour through the diffuse line: they show the body colour beyond the image's range (a
#: bright colour under a warm light), which the line, fitted to the unclipped pixels, would darken
#: (``diffuse_line_reconstruction(keep_clipped=True)``; docs/gencolor.md, version 10)
MATTE_KEEPS_CLIPPED = True
#: a surface the gloss test calls glossy gets its diffuse line even where its usable pixels span
#: less than 1.25× in brightness — soft light, which lights it evenly and mirrors bright
#: surroundings across all of it — rather than being left as it is, when the lit window reads its
#: palest, most reflecting pixels. The flatness guard stays on surfaces called matte and pixels
#: scored without their image (a flat matte patch's saturations spread only with noise). Version 28
#: (docs/gencolor.md); False: the guard everywhere
GLOSSY_FLAT_LINE = True
#: pixels of the mask border dropped before scoring: anti-aliased edges mix object and background
ERODE = 1
#: Fresnel reflectance at normal incidence of the veil removed from glossy surfaces
#: (:func:`~huebench.color.reflectance.specular_veil`); None: the veil is not used. The physical
#: value: 0.03 helped the worst ISCC-NBS L2 family and hurt the worst CSS one, each beyond its paired
#: interval (docs/gencolor.md, version 7). The gloss test's and the veil's other defaults —
#: GLOSS_UNIFORMITY, GLOSS_RADIAL, GLOSS_SMOOTH, RIM_RATIO, RIM_BAND, VEIL_QUANTILE, VEIL_FLOOR_ERRORS and the
#: fitted floor's FLOOR_MIN_SATURATION, MAX_FLOOR and MAX_REMOVED_WHITE — are the colour core's, documented and
#: measured there
FRESNEL_F0: float | None = F0_DIELECTRIC
#: no invented colour: the dominant colour's chroma may exceed the 99th percentile of the object's
#: own pixel chroma (after removing the veil, the one reflection modelled from outside the pixels)
#: by at most this much (C*ab); beyond it the chroma is cut back to that bound. None: no bound
MAX_CHROMA_EXCESS: float | None = 2.0
#: the veil has the surroundings' colour (per channel) rather than their mean as white. Off since
#: version 14: the part of a surface facing the camera mirrors what lies behind the camera, not the
#: backdrop the image shows behind the object, so a coloured table or wall gave the veil a colour
#: the surface does not reflect (objects painted on coloured surroundings: docs/gencolor.md,
#: version 14). A coloured light is read from the object itself (LIGHT_PLANARITY), and the image
#: balanced before the veil
VEIL_COLOR = False
#: a mask that reaches the image's border is cut there by the frame, not bounded by its silhouette:
#: the erosion, the gloss test's interior and the rim band do not treat its pixels at the border as
#: an edge (:func:`~huebench.color.reflectance.mask_depth`). Since version 15: close-ups and crowded
#: generated scenes cut objects, and the frame's side read as a desaturated Fresnel rim or lost
#: good pixels to the erosion (objects cut by the frame: docs/gencolor.md, version 15). False: the
#: border is an edge, as before. (On a large object read on a strided grid, max_object_pixels, an
#: object within stride / 2 pixels of the frame reaches the grid's border and is taken as cut.)
FRAME_CUTS = True
#: masks from a detector and a segmenter are often a pixel or two too large, and the ring they add
#: is background: pixels of the mask's outer band (:data:`PEEL_BAND` pixels in) whose colour is
#: within this CIEDE2000 of what lies just outside the mask, and nearer to it than to the mask's
#: deep interior, are left out (:func:`peel_background`). Since version 16 (masks grown by 1–4 px:
#: docs/gencolor.md, version 16). None: every mask pixel is the object's
PEEL_DELTA_E: float | None = 6.0
#: how deep into the mask :func:`peel_background` looks for background (pixels)
PEEL_BAND = 4
#: the object's main colour: pixels whose chromaticity (linear RGB over its sum, which shading does
#: not move) is far from the most common one — a print, a second colour, a highlight — are left out
#: (:func:`~huebench.color.reflectance.main_color_pixels`); the value is the share of the lit
#: pixels always kept (None: all pixels are the object's colour)
MAIN_COLOR: float | None = 0.7

#: the object is judged on at most about this many mask pixels: a larger image is judged at every
#: f-th pixel in each direction (f from ⌈√(pixels / bound)⌉ up, until the mask is under it), the
#: whole image alike so that the gloss, rim and surround tests see the same scene. The scorer's
#: pixel-scale settings were chosen on 48–64 px renders (masks of 300–2,000 pixels), so a bound far
#: above that changes no decision the tables measured; docs/performance.md has the time and the
#: ΔE00 against full resolution on large images. None: every pixel
MAX_OBJECT_PIXELS: int | None = 65_536
#: :func:`segment_offline`: a pixel this far (CIEDE2000) from the modelled background is the object's
SEGMENT_THRESHOLD = 12.0
#: :func:`segment_offline` grows the object into connected pixels this far from the background (or
#: :data:`SEGMENT_GROW_NOISE` × the border's own 95th percentile, where that is more). Version 2:
#: 3 and 1.5 chosen by the leave-one-family-out table over 3–6 and 1.5–2 on the tuning families'
#: offline accuracy (docs/gencolor.md, *The offline segmentation, version 2*). None: no growth
SEGMENT_GROW: float | None = 3.0
SEGMENT_GROW_NOISE = 1.5
#: how many pixels in from the image's edge the border's own noise is read
_NOISE_RING = 3
#: :func:`segment_offline` leaves out the shadow the object casts on its backdrop: mask pixels
#: darker than the backdrop whose chromaticity is nearer the backdrop's than this share of the
#: body's own distance from it. Version 3: chosen by the leave-one-family-out table over 0.2–1.0
#: on the tuning families' offline accuracy (docs/gencolor.md). The step opens the mask of such a
#: body once more whether or not it finds a shadow (a corner or a one-pixel spur goes), as it was
#: measured. None: no step, the shadow stays
SEGMENT_SHADOW: float | None = 0.5
#: a shadow pixel is this much darker than the backdrop model (L*)
_SHADOW_DARKER = 3.0
#: a body nearer the backdrop's chromaticity than this (median, L1 on linear RGB over its sum)
#: cannot be told from its shadow
_SHADOW_MIN_BODY = 0.04
#: below this linear level a pixel's chromaticity is noise
_SHADOW_MIN_LEVEL = 0.005
#: the offline segmentation's version and settings: config.json records them beside the scorer's
#: wherever masks may come from it, so --resume refuses records whose masks another one made
OFFLINE_SEGMENTATION: dict[str, Any] = {
    "version": 3,
    "threshold": SEGMENT_THRESHOLD,
    "grow": SEGMENT_GROW,
    "grow_noise": SEGMENT_GROW_NOISE,
    "shadow": SEGMENT_SHADOW,
}
#: the named scorers: this project's default, its rules alone (no calibration) and the seed's method as written (PCA dominant colour
#: over all object pixels: no mask erosion, no lit window, no specular steps, no main-colour step
#: and no bound on the chroma — every pixel of the mask, or of its working grid on a mask above
#: max_object_pixels as for ours, and what PCA gives)
SCORERS: dict[str, dict[str, Any]] = {
    "huebench": {},
    # the rules without the calibration (version 28: version 24's rules, the light's plausibility of
    # version 26, the black surfaces of version 27 and the flat glossy line of version 28)
    "huebench-rules": {"calibration": None},
    "paper": {
        "calibration": None,
        "lightness_window": None,
        "dark_neutral": None,
        "erode": 0,
        "specular": None,
        "fresnel": None,
        "dominant": "paper",
        "neutral_highlight": None,
        "light_planarity": None,
        "peel": None,
        "main_color": None,
        "max_chroma_excess": None,
    },
}


@dataclass
class ColorScore:
    passed: bool
    target: str
    target_hex: str
    candidates: list[str]
    dominant_lab: list[float]
    delta_e00: float
    delta_chroma: float
    delta_hue: float
    hue_gated: bool
    passes: dict[str, bool]
    pixels: int
    method: str
    reason: str
    best: dict[str, str] = field(default_factory=dict)  # which candidate gave each minimum
    #: the white veil (linear RGB) removed from a surface that looks glossy; None: no veil removed
    veil: float | None = None
    #: chroma of the dominant colour minus the 99th percentile of the object's pixel chroma (before
    #: any correction): > 0 when the scorer inferred a colour more saturated than the pixels show
    chroma_excess: float | None = None
    #: the veil per channel (linear RGB); ``veil`` is its mean
    veil_rgb: list[float] | None = None
    #: the image was judged at every ``stride``-th pixel in each direction (1: every pixel), to
    #: bound the work on large objects (:data:`MAX_OBJECT_PIXELS`)
    stride: int = 1
    #: the gloss test's answer on the object in its image (None: not tested — pixels without their
    #: image, or a scorer without specular steps); a matte surface's diffuse line reads the median
    #: saturation (:data:`MATTE_QUANTILE`)
    glossy: bool | None = None
    #: a veil the gloss test called for but the pixels cannot carry (linear RGB per channel,
    #: :func:`~huebench.color.reflectance.fit_veil`): refused, not removed; None: none refused
    veil_refused: list[float] | None = None
    #: F0 × the surroundings where it was more veil than the object's darker pixels show (linear RGB
    #: per channel, :func:`~huebench.color.reflectance.veil_within_floor`): cut to their floor (none
    #: where the floor is not positive), then fitted to the pixels as any veil (``veil``,
    #: ``veil_refused``); None: not cut
    veil_surroundings: list[float] | None = None
    #: mask pixels at the mask's edge left out because they look like the background around it
    #: (:func:`peel_background`; on the working grid when ``stride`` > 1)
    peeled: int = 0
    #: the colour of the light the object was judged white-balanced by (linear RGB, its weakest
    #: channel 1, :func:`~huebench.color.reflectance.light_colour`); None: white light
    light: list[float] | None = None
    #: the hue turn (degrees, from the darker to the brighter half of the interior) that called the
    #: object's darker pixels, below their floor, a curve on each channel rather than a reflection
    #: (``floor_curve_turn``, version 24): no Fresnel veil taken off, the glossy line capped by its
    #: middle band; None: no such call
    floor_hue_turn: float | None = None
    #: the calibration's correction of the rules' dominant colour (version 25,
    #: :mod:`~huebench.benchmarks.gencolor.calibration`): its name, ΔL* and ΔC*ab, and the colour
    #: before it (CIELAB, as the image shows it: before the bound on invented colour); None: not
    #: calibrated (the rules alone, or too few pixels)
    calibration: dict[str, Any] | None = None
    #: a black or near-black surface judged on all its pixels rather than its lit window
    #: (``dark_neutral``, version 27)
    dark_neutral: bool = False

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["pass"] = d.pop("passed")
        return d


class ColorScorer:
    """Score pixels against a target colour of a system (see the module doc).

    Four steps are methods so that a study can vary them (``perf/scorer_study.py``'s
    ``StudyScorer``): :meth:`object_pixels` (the pixels judged), :meth:`looks_glossy` (the gloss
    test), :meth:`specular_steps` and :meth:`lit_surface_varies` (the lit window's flat test).
    """

    def __init__(
        self,
        system: str = "css3",
        *,
        k: int = DEFAULT_K,
        jnd: float = JND,
        hue_threshold: float = HUE_THRESHOLD,
        min_pixels: int = 20,
        lightness_window: tuple[float, float] | None = LIT_WINDOW,
        dark_neutral: float | None = DARK_NEUTRAL,
        erode: int = ERODE,
        specular: str | None = SPECULAR,
        floor_min_saturation: float = FLOOR_MIN_SATURATION,
        max_floor: float | None = MAX_FLOOR,
        max_removed_white: float | None = MAX_REMOVED_WHITE,
        curve_spread: float | None = CURVE_SPREAD,
        curve_rank: float = CURVE_RANK,
        curve_turn: float | None = CURVE_HUE_TURN,
        dark_fall: float | None = CURVE_DARK_FALL,
        fresnel: float | None = FRESNEL_F0,
        gloss_uniformity: float = GLOSS_UNIFORMITY,
        gloss_radial: float | None = GLOSS_RADIAL,
        dominant: str = "huebench",
        candidate_rule: str = "per-metric",
        max_chroma_excess: float | None = MAX_CHROMA_EXCESS,
        gloss_smooth: float = GLOSS_SMOOTH,
        main_color: float | None = MAIN_COLOR,
        main_color_from: float = MAIN_COLOR_FROM,
        neutral_highlight: float | None = NEUTRAL_HIGHLIGHT,
        rim_ratio: float | None = RIM_RATIO,
        rim_band: tuple[int, int] = RIM_BAND,
        veil_color: bool = VEIL_COLOR,
        max_object_pixels: int | None = MAX_OBJECT_PIXELS,
        matte_quantile: float | None = MATTE_QUANTILE,
        veil_quantile: float | None = VEIL_QUANTILE,
        veil_floor_errors: float | None = VEIL_FLOOR_ERRORS,
        line_band: tuple[float, float] | None = LINE_BAND,
        band_floor_errors: float | None = BAND_FLOOR_ERRORS,
        floor_curve_turn: float | None = FLOOR_CURVE_TURN,
        matte_keeps_clipped: bool = MATTE_KEEPS_CLIPPED,
        glossy_flat_line: bool = GLOSSY_FLAT_LINE,
        light_planarity: float | None = LIGHT_PLANARITY,
        light_margin: float = LIGHT_MARGIN,
        light_max_duv: float | None = LIGHT_MAX_DUV,
        frame_cuts: bool = FRAME_CUTS,
        peel: float | None = PEEL_DELTA_E,
        calibration: str | Calibration | None = CALIBRATION,
        name: str = "huebench",
    ):
        self.system = load_system(system)
        if dominant not in DOMINANT_COLOR_METHODS:
            raise HuebenchError(
                f"dominant colour method {dominant!r} unknown: use {' or '.join(DOMINANT_COLOR_METHODS)}"
            )
        if candidate_rule not in CANDIDATE_RULES:
            raise HuebenchError(f"candidate rule {candidate_rule!r} unknown: use {' or '.join(CANDIDATE_RULES)}")
        self.dominant, self.candidate_rule, self.name = dominant, candidate_rule, name
        if max_chroma_excess is not None and not max_chroma_excess >= 0:
            raise HuebenchError(f"max_chroma_excess must be a chroma ≥ 0 or None, got {max_chroma_excess!r}")
        self.max_chroma_excess = None if max_chroma_excess is None else float(max_chroma_excess)
        self.gloss_smooth = float(gloss_smooth)
        self.rim_ratio = None if rim_ratio is None else float(rim_ratio)
        self.rim_band = (int(rim_band[0]), int(rim_band[1]))
        self.veil_color = bool(veil_color)
        self.frame_cuts = bool(frame_cuts)
        if peel is not None and not peel > 0:
            raise HuebenchError(f"peel must be a CIEDE2000 distance > 0 or None, got {peel!r}")
        self.peel = None if peel is None else float(peel)
        if max_object_pixels is not None and not int(max_object_pixels) >= 1000:
            raise HuebenchError(f"max_object_pixels must be at least 1000 or None, got {max_object_pixels!r}")
        self.max_object_pixels = None if max_object_pixels is None else int(max_object_pixels)
        if matte_quantile is not None and not 0 < matte_quantile < 1:
            raise HuebenchError(f"matte_quantile must be a quantile in (0, 1) or None, got {matte_quantile!r}")
        self.matte_quantile = None if matte_quantile is None else float(matte_quantile)
        if veil_quantile is not None and not 0 < veil_quantile < 1:
            raise HuebenchError(f"veil_quantile must be a quantile in (0, 1) or None, got {veil_quantile!r}")
        self.veil_quantile = None if veil_quantile is None else float(veil_quantile)
        check_veil_floor(veil_floor_errors)
        self.veil_floor_errors = None if veil_floor_errors is None else float(veil_floor_errors)
        check_line_band(line_band)
        self.line_band = None if line_band is None else (float(line_band[0]), float(line_band[1]))
        check_floor_errors("band_floor_errors", band_floor_errors)
        self.band_floor_errors = None if band_floor_errors is None else float(band_floor_errors)
        check_curve_turn(floor_curve_turn, "floor_curve_turn")
        self.floor_curve_turn = None if floor_curve_turn is None else float(floor_curve_turn)
        self.matte_keeps_clipped = bool(matte_keeps_clipped)
        if not isinstance(glossy_flat_line, (bool, np.bool_)):
            raise HuebenchError(f"glossy_flat_line must be true or false, got {glossy_flat_line!r}")
        self.glossy_flat_line = bool(glossy_flat_line)
        if main_color is not None and not 0 < main_color <= 1:
            raise HuebenchError(f"main_color must be a share in (0, 1] or None, got {main_color!r}")
        self.main_color = None if main_color is None else float(main_color)
        if not 0 <= main_color_from < 1:
            raise HuebenchError(f"main_color_from must be a quantile in [0, 1), got {main_color_from!r}")
        self.main_color_from = float(main_color_from)
        if neutral_highlight is not None and not neutral_highlight > 0:
            raise HuebenchError(f"neutral_highlight must be a fraction > 0 or None, got {neutral_highlight!r}")
        self.neutral_highlight = None if neutral_highlight is None else float(neutral_highlight)
        if not int(k) >= 0 or not float(jnd) > 0 or not float(hue_threshold) > 0:
            raise HuebenchError(
                f"scorer thresholds must be positive and k ≥ 0: k {k!r}, jnd {jnd!r}, hue_threshold {hue_threshold!r}"
            )
        self.k, self.jnd, self.hue_threshold, self.min_pixels = (
            int(k),
            float(jnd),
            float(hue_threshold),
            int(min_pixels),
        )
        if lightness_window is not None and not (
            len(lightness_window) == 2 and 0.0 <= float(lightness_window[0]) < float(lightness_window[1]) <= 1.0
        ):
            raise HuebenchError(
                f"lightness_window must be two quantiles of L* (low, high) with 0 <= low < high <= 1, or None; "
                f"got {lightness_window!r}"
            )
        self.lightness_window = (
            None if lightness_window is None else (float(lightness_window[0]), float(lightness_window[1]))
        )
        if dark_neutral is not None and not (math.isfinite(dark_neutral) and 0 < dark_neutral <= 100):
            raise HuebenchError(f"dark_neutral must be an L* in (0, 100] or None, got {dark_neutral!r}")
        self.dark_neutral = None if dark_neutral is None else float(dark_neutral)
        self.erode = int(erode)
        if specular is not None and specular != SPECULAR:
            raise UnknownNameError(
                f"specular steps {specular!r} unknown: use {SPECULAR!r} or None (other steps are study variants: "
                "perf/scorer_study.py)." + suggestion_text(str(specular), [SPECULAR])
            )
        self.specular = specular
        self.floor_min_saturation = float(floor_min_saturation)
        if max_floor is not None and not max_floor > 0:
            raise HuebenchError(f"max_floor must be a linear radiance > 0 or None, got {max_floor!r}")
        self.max_floor = None if max_floor is None else float(max_floor)
        check_white_bounds(max_removed_white, curve_spread, curve_rank)
        self.max_removed_white = None if max_removed_white is None else float(max_removed_white)
        self.curve_spread = None if curve_spread is None else float(curve_spread)
        self.curve_rank = float(curve_rank)
        check_curve_turn(curve_turn)
        self.curve_turn = None if curve_turn is None else float(curve_turn)
        check_dark_fall(dark_fall)
        self.dark_fall = None if dark_fall is None else float(dark_fall)
        if fresnel is not None and not 0.0 <= fresnel < 1.0:
            raise HuebenchError(f"fresnel must be a reflectance in [0, 1) or None, got {fresnel!r}")
        self.fresnel = None if fresnel is None else float(fresnel)
        self.gloss_uniformity = float(gloss_uniformity)
        if gloss_radial is not None and not gloss_radial > 0:
            raise HuebenchError(f"gloss_radial must be a ratio > 0 or None, got {gloss_radial!r}")
        self.gloss_radial = None if gloss_radial is None else float(gloss_radial)
        if light_planarity is not None and not light_planarity > 1:
            raise HuebenchError(f"light_planarity must be a ratio > 1 or None, got {light_planarity!r}")
        if not light_margin >= 1:
            raise HuebenchError(f"light_margin must be a ratio ≥ 1, got {light_margin!r}")
        self.light_planarity = None if light_planarity is None else float(light_planarity)
        self.light_margin = float(light_margin)
        check_max_duv(light_max_duv, "light_max_duv", optional=True)
        self.light_max_duv = None if light_max_duv is None else float(light_max_duv)
        if calibration is None or isinstance(calibration, Calibration):  # an instance: studies' own
            self.calibration = calibration
        else:
            self.calibration = load_calibration(calibration)
        #: keep the calibration's input on every score (``calibration["features"]``), calibrated or
        #: not: what ``perf/scorer_calibration.py`` trains on. Not a setting: it decides nothing
        self.keep_features = False
        self._candidates: dict[str, tuple[Any, ...]] = {}  # target → candidate set: the same every image

    @classmethod
    def named(cls, scorer: str, system: str = "css3", **options: Any) -> ColorScorer:
        """One of :data:`SCORERS` ("huebench", "huebench-rules", "paper"), with ``options`` on top of its
        settings."""
        if scorer not in SCORERS:
            raise HuebenchError(f"scorer {scorer!r} unknown: use {' or '.join(SCORERS)}")
        return cls(system, **{**SCORERS[scorer], **options, "name": scorer})

    def config(self) -> dict[str, Any]:
        """Every setting that decides a score, and the scorer's version (stored in config.json)."""
        return {
            "name": self.name,
            "version": SCORER_VERSION,
            "system": self.system.name,
            "k": self.k,
            "jnd": self.jnd,
            "hue_threshold": self.hue_threshold,
            "min_pixels": self.min_pixels,
            "lightness_window": None if self.lightness_window is None else list(self.lightness_window),
            "dark_neutral": self.dark_neutral,
            "erode": self.erode,
            "specular": self.specular,
            "smooth": 0.0,  # no in-mask smoothing (a study variant); the key keeps earlier runs resumable
            "floor_min_saturation": self.floor_min_saturation,
            "max_floor": self.max_floor,
            "max_removed_white": self.max_removed_white,
            "curve_spread": self.curve_spread,
            "curve_rank": self.curve_rank,
            "curve_turn": self.curve_turn,
            "dark_fall": self.dark_fall,
            "fresnel": self.fresnel,
            "gloss_uniformity": self.gloss_uniformity,
            "gloss_radial": self.gloss_radial,
            "dominant": self.dominant,
            "candidate_rule": self.candidate_rule,
            "max_chroma_excess": self.max_chroma_excess,
            "gloss_smooth": self.gloss_smooth,
            "main_color": self.main_color,
            "main_color_from": self.main_color_from,
            "neutral_highlight": self.neutral_highlight,
            "rim_ratio": self.rim_ratio,
            "rim_band": list(self.rim_band),
            "veil_color": self.veil_color,
            "frame_cuts": self.frame_cuts,
            "peel": self.peel,
            "max_object_pixels": self.max_object_pixels,
            "matte_quantile": self.matte_quantile,
            "veil_quantile": self.veil_quantile,
            "veil_floor_errors": self.veil_floor_errors,
            "line_band": None if self.line_band is None else list(self.line_band),
            "band_floor_errors": self.band_floor_errors,
            "floor_curve_turn": self.floor_curve_turn,
            "matte_keeps_clipped": self.matte_keeps_clipped,
            "glossy_flat_line": self.glossy_flat_line,
            "light_planarity": self.light_planarity,
            "light_margin": self.light_margin,
            "light_max_duv": self.light_max_duv,
            "calibration": None if self.calibration is None else self.calibration.name,
            "calibration_sha256": None if self.calibration is None else self.calibration.sha256,
        }

    def candidates(self, target: str) -> list[Any]:
        """The target member and its k nearest neighbours; a colour given by value ('#rrggbb',
        'rgb(…)') is its own single candidate plus the k system members nearest to it. A name that
        is not the system's is an error (with a did-you-mean): read in another system it would be
        another colour — ISCC-NBS L3 has no "Red", CSS has."""
        cached = self._candidates.get(target)
        if cached is not None:
            return list(cached)
        member = self.system.find(target)
        if member is not None:
            found: list[Any] = self.system.candidate_set(member.name, self.k)
        else:
            c = parse(target)
            if c.name is not None:  # a name of another system
                self.system.get(target)  # raises, with the nearest names of this one
            found = [c, *[n.color for n in self.system.nearest(c, self.k)]]
        if len(self._candidates) >= 4096:  # a run's targets are a few thousand at most: stay bounded
            self._candidates.clear()
        self._candidates[target] = tuple(found)
        return found

    def score_pixels(
        self,
        rgb_pixels: ArrayLike,
        target: str,
        *,
        veil: Any = None,
        glossy: bool | None = None,
        light: NDArray[np.float64] | None = None,
        cap_by_band: bool = True,
    ) -> ColorScore:
        """Score 8-bit sRGB pixels (N×3 or H×W×3) of one object against ``target``.

        ``veil``: white light (linear RGB) the surface reflects everywhere, known from outside the
        pixels (:meth:`score_image` sets it for glossy surfaces,
        :func:`~huebench.color.reflectance.specular_veil`); it is removed first and replaces the
        fitted floor of the specular steps. ``glossy``: the gloss test's answer on the object in its
        image (:meth:`score_image` gives it; False: the diffuse line reads the median saturation,
        :data:`MATTE_QUANTILE`); None, as for pixels without their image: not known, and the
        diffuse line reads the upper quantile that glossy surfaces need. ``light``: the pixels were
        white-balanced by this light (linear RGB, :func:`~huebench.color.reflectance.balance`); the
        dominant colour goes back under it before the comparison. ``cap_by_band``: the glossy line is
        capped by its middle band (``line_band``); :meth:`score_image` sets False where the object's
        darker pixels say they carry the albedo (:data:`BAND_FLOOR_ERRORS`)."""
        px = np.asarray(rgb_pixels).reshape(-1, 3)
        cands = self.candidates(target)
        t = cands[0]
        t_hex = t.hex
        if len(px) < self.min_pixels:
            return ColorScore(
                False,
                str(target),
                t_hex,
                [c.name or c.hex for c in cands],
                [],
                float("nan"),
                float("nan"),
                float("nan"),
                False,
                {},
                len(px),
                "none",
                f"only {len(px)} object pixels (< {self.min_pixels}): no colour to judge",
            )
        px8 = px.astype(np.uint8) if px.dtype != np.uint8 else px
        # the calibration reads the pixels as the image shows them, before any step changes them;
        # it learnt from objects in their images (the gloss test answered): pixels without their
        # image keep the rules' colour
        calibrating = (self.calibration is not None or self.keep_features) and glossy is not None
        statistics = pixel_statistics(px8, light) if calibrating else None
        refused = None
        if veil is not None and self.veil_quantile is not None:
            fitted = fit_veil(px8, veil, quantile=self.veil_quantile)
            if fitted is None:
                refused, veil = veil, None
            else:
                veil = fitted
        # the calibration's statistics hold this quantile already (the same pixels, the same value)
        read = float("nan") if statistics is None else float(statistics[-1])
        chroma_p99 = read if math.isfinite(read) else _chroma_p99(px8, light)
        # the main colour is chosen on the pixels as they are: a veil taken off pushes the darkest
        # channel of saturated pixels to the clip at 0, and their hue with it
        main = (
            main_color_pixels(px8, keep=self.main_color, from_quantile=self.main_color_from)
            if self.main_color is not None
            else None
        )
        if veil is not None:
            px8 = remove_specular(px8, method="fresnel-veil", veil=veil)
            bound_p99 = _chroma_p99(px8, light)
        else:
            bound_p99 = chroma_p99
        if main is not None:
            px8 = px8[main]
        # a refused veil refuses the fitted floor too: that floor is the same reflection, which the
        # pixels have just shown is not there
        px8 = self.specular_steps(px8, veil if refused is None else refused, glossy, cap_by_band=cap_by_band)
        window = self.lightness_window
        # a flat (noisy) surface is all lit: a window would only pick noise. Clipped pixels are left
        # out of the test: the lit half of a bright surface under a warm light would make the
        # surface "flat" and its shadows part of its colour. Flat bands of lightness (cel shading,
        # flat paint) are shading: without the window their shadow band is averaged into the colour
        if window is not None and len(px8) >= 10 and not self.lit_surface_varies(px8, window[0]):
            window = None
        # a black surface's brightest pixels are its reflections: it is judged on all of them
        darkest = (
            window is not None and self.dark_neutral is not None and dark_neutral(px8, max_lightness=self.dark_neutral)
        )
        if darkest:
            window = None
        if self.dominant == "paper":
            dom = DOMINANT_COLOR_METHODS["paper"](srgb_to_lab(px8))
        else:
            dom = DOMINANT_COLOR_METHODS["huebench"](srgb_to_lab(px8), lightness_window=window)
        dom_lab = np.asarray(dom.lab, dtype=np.float64).copy()
        if light is not None:  # back under the image's light, where the target and the pixels are seen
            dom_lab = xyz_to_lab(linear_rgb_to_xyz(xyz_to_linear_rgb(lab_to_xyz(dom_lab)) * light))
        calibrated = None
        if statistics is not None:
            # the calibration learnt the lit window's readings: a black surface read on all its
            # pixels is not what it learnt (version 27), and keeps the rules' colour
            dom_lab, calibrated = self.calibrate(dom_lab, glossy, statistics, correct=not darkest)
        excess = float(np.hypot(dom_lab[1], dom_lab[2])) - chroma_p99
        # the bound counts from the pixels with the modelled reflection (the veil) removed: what the
        # steps after it infer beyond those pixels is invention, and it is held to the bound
        over = float(np.hypot(dom_lab[1], dom_lab[2])) - bound_p99
        limit = self.max_chroma_excess
        cut = limit is not None and over > limit
        if limit is not None and cut:  # keep the hue and lightness, bring the chroma back within the bound
            dom_lab[1:] *= (bound_p99 + limit) / float(np.hypot(dom_lab[1], dom_lab[2]))
            excess = float(np.hypot(dom_lab[1], dom_lab[2])) - chroma_p99
        labs = np.array([np.asarray(c.lab, dtype=np.float64) for c in cands])
        de, dc, dh_raw = three_differences(labs, dom_lab)
        dh = np.where(np.isnan(dh_raw), 0.0, dh_raw)
        names = [c.name or c.hex for c in cands]
        if self.candidate_rule == "same":  # the candidate that passes most, then the nearest by ΔE00
            n_pass = (de <= self.jnd).astype(int) + (dc <= self.jnd) + (dh <= self.hue_threshold)
            i = int(np.lexsort((de, -n_pass))[0])
            mins = {"delta_e00": float(de[i]), "delta_chroma": float(dc[i]), "delta_hue": float(dh[i])}
            best = dict.fromkeys(mins, names[i])
            gated = bool(np.isnan(dh_raw[i]))
        else:
            mins = {"delta_e00": float(de.min()), "delta_chroma": float(dc.min()), "delta_hue": float(dh.min())}
            best = {
                "delta_e00": names[int(de.argmin())],
                "delta_chroma": names[int(dc.argmin())],
                "delta_hue": names[int(dh.argmin())],
            }
            gated = bool(np.all(np.isnan(dh_raw)))
        passes = {
            "delta_e00": mins["delta_e00"] <= self.jnd,
            "delta_chroma": mins["delta_chroma"] <= self.jnd,
            "delta_hue": mins["delta_hue"] <= self.hue_threshold,
        }
        ok = all(passes.values())
        failed = [
            f"{k} {mins[k]:.2f} > {self.jnd if k != 'delta_hue' else self.hue_threshold:g}"
            for k, v in passes.items()
            if not v
        ]
        lab = [round(float(v), 3) for v in dom_lab]
        if light is not None:  # the veils as the image shows them, under its light
            veil = None if veil is None else np.asarray(veil, dtype=np.float64) * light
            refused = None if refused is None else np.asarray(refused, dtype=np.float64) * light
        prefix = (
            ""
            if light is None
            else f"coloured light {np.round(light, 3).tolist()} read from the surface (judged white-balanced, the colour put back under it); "
        )
        if veil is not None:
            prefix += f"glossy surface, veil {np.round(veil, 4).tolist()} removed; "
        if refused is not None:
            prefix += f"veil {np.round(refused, 4).tolist()} refused: the pixels show none so large; "
        if calibrated is not None and "lightness" in calibrated:
            prefix += (
                f"calibrated ({calibrated['model']}): L* {calibrated['lightness']:+.2f}, "
                f"C* {calibrated['chroma']:+.2f} from {calibrated['before']}; "
            )
        if darkest:
            prefix += (
                f"a black or near-black surface (neutral, three quarters of its pixels below L* {self.dark_neutral:g}): "
                "judged on all its pixels, not the lit window"
                + (", and not calibrated; " if self.calibration is not None else "; ")
            )
        if cut:
            prefix += f"chroma {over:.1f} above the pixels' 99th percentile, cut to +{self.max_chroma_excess:g}; "
        reason = prefix + (
            f"dominant Lab {lab} matches {best['delta_e00']} (ΔE00 {mins['delta_e00']:.2f}, Δchroma {mins['delta_chroma']:.2f}, Δhue {mins['delta_hue']:.1f}°{' gated' if gated else ''})"
            if ok
            else f"dominant Lab {lab}: " + "; ".join(failed) + f" (nearest candidate {best['delta_e00']})"
        )
        return ColorScore(
            ok,
            str(target),
            t_hex,
            names,
            lab,
            mins["delta_e00"],
            mins["delta_chroma"],
            mins["delta_hue"],
            gated,
            passes,
            len(px),
            dom.method,
            reason,
            best,
            None if veil is None else float(np.mean(veil)),
            round(excess, 3),
            _per_channel(veil),
            veil_refused=_per_channel(refused),
            light=_per_channel(light),
            calibration=calibrated,
            dark_neutral=darkest,
        )

    def score_image(
        self, image: ArrayLike, target: str, mask: ArrayLike | None = None
    ) -> tuple[ColorScore, NDArray[np.bool_]]:
        """Score an H×W×3 uint8 image; without a mask, :func:`segment_offline` finds the object."""
        img = np.asarray(image)
        if img.ndim != 3 or img.shape[2] != 3:
            raise HuebenchError(f"expected an H×W×3 RGB image, got shape {img.shape}")
        m = segment_offline(img) if mask is None else np.asarray(mask).astype(bool)
        if m.shape != img.shape[:2]:
            raise HuebenchError(f"mask shape {m.shape} does not match image {img.shape[:2]}")
        stride = 1
        if self.max_object_pixels is not None:
            n = int(np.count_nonzero(m))
            if n > self.max_object_pixels:
                stride = math.ceil(math.sqrt(n / self.max_object_pixels))
                while np.count_nonzero(m[_grid(stride)]) > self.max_object_pixels:
                    stride += 1  # a thin or ragged mask can keep more than 1/stride² of its pixels
        full_mask = m
        if stride > 1:
            # one contiguous copy at the working resolution: the steps gather masked pixels from it
            img, m = np.ascontiguousarray(img[_grid(stride)]), m[_grid(stride)]
        depth = mask_depth(m, frame_cuts=self.frame_cuts)  # one transform: the erosion, the gloss test, the rim
        m, peeled = peel_background(img, m, max_delta_e=self.peel, frame_cuts=self.frame_cuts, depth=depth)
        if peeled:
            depth = mask_depth(m, frame_cuts=self.frame_cuts)
        inner = m
        if self.erode > 0:
            eroded = depth > self.erode
            inner = eroded if eroded.sum() >= self.min_pixels else m
        light = None
        if self.light_planarity is not None and inner.sum() >= self.min_pixels:
            light = light_colour(
                img,
                m,
                depth=depth,
                planarity=self.light_planarity,
                margin=self.light_margin,
                max_duv=self.light_max_duv,
            )
            if light is not None:
                img = balance(img, light)
        veil = glossy = None
        if (self.fresnel is not None or self.specular is not None) and inner.sum() >= self.min_pixels:
            glossy = self.looks_glossy(img, m, depth)
        cap_by_band, turn = True, None
        floor: tuple[float, float] | Literal["unread"] | None = "unread"
        if glossy and self.specular is not None and self.line_band is not None and self.band_floor_errors is not None:
            floor = darker_floor(img, m, depth=depth)
            cap_by_band = not floor_below_zero(floor, self.band_floor_errors)
        if glossy and self.floor_curve_turn is not None and self.veil_floor_errors is not None:
            if floor == "unread":
                floor = darker_floor(img, m, depth=depth)
            turn = self.curve_turn_below_floor(img, m, depth, floor)
            if turn is not None:  # a curve on each channel: the lit face, not the darker pixels, shows the colour
                cap_by_band = True
        surroundings = None
        if glossy is not None and turn is None:
            veil, surroundings = self.fresnel_veil(img, m, depth, glossy, floor=floor)
        px = self.object_pixels(img, inner)
        if self.neutral_highlight is not None:  # highlights of a white, grey or black surface
            px = px[~neutral_highlights(img, inner, excess=self.neutral_highlight)]
        score = self.score_pixels(px, target, veil=veil, glossy=glossy, light=light, cap_by_band=cap_by_band)
        score.stride, score.glossy, score.peeled = stride, glossy, peeled
        if turn is not None:
            score.floor_hue_turn = round(float(turn), 3)
            took = [
                *(["no Fresnel veil taken off"] if self.fresnel is not None else []),
                *(["the line capped by its middle band"] if self.specular is not None and self.line_band else []),
            ]
            score.reason = (
                f"the darker pixels are more saturated than under any veil and the hue turns {turn:+.2f}° with "
                "brightness: a curve on each channel, not a reflection"
                + (f" ({'; '.join(took)})" if took else "")
                + "; "
                + score.reason
            )
        if surroundings is not None:  # as the record's veils: under the image's light
            shown = np.asarray(surroundings, dtype=np.float64) * (1.0 if light is None else light)
            score.veil_surroundings = _per_channel(shown)
            score.reason = (
                f"F0 × the surroundings, {np.round(shown, 4).tolist()}, is more veil than the darker pixels show"
                + ("" if veil is not None else ": no veil taken off")
                + "; "
                + score.reason
            )
        if peeled:
            score.reason = (
                f"{peeled} pixels at the mask's edge look like the background and were left out; " + score.reason
            )
        return score, full_mask

    def calibrate(
        self,
        dom_lab: NDArray[np.float64],
        glossy: bool | None,
        statistics: NDArray[np.float64],
        *,
        correct: bool = True,
    ) -> tuple[NDArray[np.float64], dict[str, Any] | None]:
        """The rules' dominant colour (CIELAB, as the image shows it) with the calibration's
        correction (:mod:`~huebench.benchmarks.gencolor.calibration`): L* moved by ΔL* (within
        0–100), C*ab by ΔC*ab along its hue (not below 0; not raised where the metrics gate the hue,
        C*ab < ``MIN_CHROMA``), and the record of it — None where nothing was corrected and no
        features are kept. ``correct`` False: no correction (the features are still kept)."""
        features = calibration_features(dom_lab, glossy, statistics)
        found = None if self.calibration is None or not correct else self.calibration.correction(features)
        record: dict[str, Any] = {}
        if found is not None and self.calibration is not None:
            d_l, d_c = found
            chroma = float(math.hypot(dom_lab[1], dom_lab[2]))
            out = np.array(dom_lab, dtype=np.float64, copy=True)
            out[0] = min(max(out[0] + d_l, 0.0), 100.0)
            if chroma >= MIN_CHROMA or d_c < 0:
                out[1:] *= max(chroma + d_c, 0.0) / chroma if chroma > 0 else 0.0
            record = {
                "model": self.calibration.name,
                "lightness": round(float(out[0] - dom_lab[0]), 3),
                "chroma": round(float(math.hypot(out[1], out[2])) - chroma, 3),
                "before": [round(float(v), 3) for v in dom_lab],
            }
            dom_lab = out
        if self.keep_features:
            record["features"] = [float(v) if math.isfinite(v) else None for v in features]  # JSON has no NaN
            record.setdefault("before", [float(v) for v in dom_lab])
        return dom_lab, record or None

    def fresnel_veil(
        self,
        image: NDArray[np.uint8],
        mask: NDArray[np.bool_],
        depth: NDArray[np.int32],
        glossy: bool,
        *,
        floor: tuple[float, float] | Literal["unread"] | None = "unread",
    ) -> tuple[Any, Any]:
        """The Fresnel veil taken off the object (:func:`~huebench.color.reflectance.specular_veil`
        with this scorer's settings), no more than its darker pixels show
        (:func:`~huebench.color.reflectance.veil_within_floor`, ``veil_floor_errors``; version 22),
        and F0 × the surroundings where that cut it (else None): ``(veil, surroundings)``; no veil
        without ``fresnel``. ``floor``: :func:`~huebench.color.reflectance.darker_floor` of the
        object, when the caller has read it (None: it has none; "unread": read here if needed)."""
        if self.fresnel is None:
            return None, None
        veil = specular_veil(
            image,
            mask,
            glossy=glossy,
            fresnel=self.fresnel,
            uniformity=self.gloss_uniformity,
            smooth=self.gloss_smooth,
            per_channel=self.veil_color,
            rim_ratio=self.rim_ratio,
            rim_band=self.rim_band,
            depth=depth,
        )
        if veil is None or self.veil_floor_errors is None:
            return veil, None
        if floor == "unread":
            floor = darker_floor(image, mask, depth=depth)
        allowed = veil_within_floor(veil, floor, self.veil_floor_errors)
        return (veil, None) if allowed is veil else (allowed, veil)

    def curve_turn_below_floor(
        self,
        image: NDArray[np.uint8],
        mask: NDArray[np.bool_],
        depth: NDArray[np.int32],
        floor: tuple[float, float] | None,
    ) -> float | None:
        """The hue turn (degrees, :func:`~huebench.color.reflectance.interior_hue_turn`) of an object
        whose darker pixels are more saturated than one albedo under any veil leaves them (``floor``:
        its :func:`~huebench.color.reflectance.darker_floor`, more than ``veil_floor_errors``
        standard errors below 0) and whose hue turns with brightness by more than
        ``floor_curve_turn``: a curve on each channel, not a reflection (version 24); else None."""
        if self.floor_curve_turn is None or self.veil_floor_errors is None:
            return None
        if not floor_below_zero(floor, self.veil_floor_errors):
            return None
        turn = interior_hue_turn(image, mask, depth=depth)
        return turn if turn is not None and abs(turn) > self.floor_curve_turn else None

    def looks_glossy(self, image: NDArray[np.uint8], mask: NDArray[np.bool_], depth: NDArray[np.int32]) -> bool:
        """The gloss test on the object in its image (:func:`surface_looks_glossy` with this scorer's
        settings; ``depth``: :func:`mask_depth` of ``mask``)."""
        return surface_looks_glossy(
            image,
            mask,
            uniformity=self.gloss_uniformity,
            smooth=self.gloss_smooth,
            depth=depth,
            radial=self.gloss_radial,
        )

    def lit_surface_varies(self, px8: NDArray[np.uint8], lit_from: float) -> bool:
        """Can the object's lit pixels (from the ``lit_from`` quantile of lightness) be told from the
        rest? Else the lit window stands down (:func:`~huebench.color.reflectance.lightness_varies`)."""
        return lightness_varies(px8, lit_from=lit_from)

    def object_pixels(self, image: NDArray[np.uint8], inner: NDArray[np.bool_]) -> NDArray[np.uint8]:
        """The pixels judged: the image's pixels inside the (eroded) mask ``inner``, N×3."""
        return masked(image, inner)

    def reads_flat_line(self, glossy: bool | None) -> bool:
        """Does the diffuse line read a flat surface too (``glossy_flat_line``, version 28)? Only
        one the gloss test calls glossy: a matte one, or pixels scored without their image, keep
        the flatness guard."""
        return glossy is True and self.glossy_flat_line

    def specular_steps(
        self, px8: NDArray[np.uint8], veil: Any, glossy: bool | None = None, *, cap_by_band: bool = True
    ) -> NDArray[np.uint8]:
        """The :data:`SPECULAR` steps on the object's main-colour pixels (``veil``: the Fresnel veil
        already removed from them or refused as more than they show — either way the floor is
        settled — or None; ``glossy``: the gloss test's answer, None if unknown; ``cap_by_band``: the
        glossy line may be capped by its middle band, ``line_band``)."""
        if self.specular is None:
            return px8
        matte = glossy is False
        return dichromatic_steps(
            px8,
            floor=veil is None,  # a removed veil is the floor this step would fit
            floor_min_saturation=self.floor_min_saturation,
            max_floor=self.max_floor,
            max_removed_white=self.max_removed_white,
            curve_spread=self.curve_spread,
            curve_rank=self.curve_rank,
            # the curve test was chosen and measured on the line of surfaces not called matte
            # (the gloss test's glossy ones, and pixels scored without their image); a matte
            # line reads the median by default, which a curve moves less
            curve_turn=None if matte else self.curve_turn,
            dark_fall=None if matte else self.dark_fall,
            line_band=None if matte or not cap_by_band else self.line_band,
            quantile=self.matte_quantile if matte and self.matte_quantile is not None else DIFFUSE_QUANTILE,
            keep_clipped=matte and self.matte_keeps_clipped,
            flat_line=self.reads_flat_line(glossy),
        )


#: the scorer settings ``gencolor score`` (and ``run gencolorbench``) sets by flags of their own:
#: ``--scorer-options`` refuses them there (setting → flag)
SCORE_FLAGS = {"k": "--k", "hue_threshold": "--hue-threshold", "candidate_rule": "--candidates"}


def scorer_option_names(own_flags: Mapping[str, str] = SCORE_FLAGS) -> list[str]:
    """The settings ``--scorer-options`` may set: every keyword of :class:`ColorScorer` but its
    name and those with a flag of their own on the command (``own_flags``)."""
    params = inspect.signature(ColorScorer.__init__).parameters
    return [n for n, p in params.items() if p.kind is p.KEYWORD_ONLY and n not in own_flags and n != "name"]


def parse_scorer_options(
    text: str | None, own_flags: Mapping[str, str] = SCORE_FLAGS, flag: str = "--scorer-options"
) -> dict[str, Any]:
    """The scorer settings a ``--scorer-options`` JSON object gives (``{}`` for None or empty), each
    value of its setting's type — a number as a float or an int, a list as a tuple (a window, a
    band); a one-line :class:`HuebenchError` naming the flag for text that is not a JSON object, a
    key given twice, that is not a setting or that the command sets by a flag of its own
    (``own_flags``: setting → flag), and for a value not of its setting's type (a finite number, true
    or false, a string, a list of two numbers; null where the setting allows None). What a value
    must be beyond its type, its setting's own one-line error says where the scorer is made.
    :func:`canonical_scorer_options` is what a run records of it."""
    if text is None or not str(text).strip():
        return {}
    example = '\'{"glossy_flat_line": false, "dark_neutral": null}\''

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        twice = sorted({k for k in keys if keys.count(k) > 1})
        if twice:
            raise HuebenchError(f"{flag}: {', '.join(map(repr, twice))} given twice; give each setting once")
        return dict(pairs)

    try:
        found = json.loads(text, object_pairs_hook=unique)
    except json.JSONDecodeError as exc:
        raise HuebenchError(
            f"{flag} {text!r}: not JSON ({exc.msg} at character {exc.pos}); give an object, e.g. {example}"
        ) from None
    if not isinstance(found, dict):
        raise HuebenchError(f"{flag} {text!r}: give a JSON object of scorer settings, e.g. {example}")
    known = scorer_option_names(own_flags)
    params = inspect.signature(ColorScorer.__init__).parameters
    out = {}
    for key, value in found.items():
        if key in own_flags:
            raise HuebenchError(f"{flag}: {key!r} has its own flag: use {own_flags[key]}")
        if key not in known:
            raise HuebenchError(
                f"{flag}: {key!r} is not a scorer setting.{suggestion_text(str(key), known)} "
                f"Settings: {', '.join(known)} (docs/gencolor.md, Scorer)"
            )
        out[key] = _option_value(key, value, str(params[key].annotation), flag)
    return out


def _option_value(key: str, value: Any, annotation: str, flag: str) -> Any:
    """``value`` as the setting ``key`` (annotated ``annotation``) takes it, or a one-line error."""

    def number(v: Any, integral: bool) -> bool:
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        return ok and (not integral or float(v).is_integer())

    integral = annotation.startswith(("int", "tuple[int"))
    taken: Any
    if annotation.startswith("bool"):
        want, taken = "true or false", value if isinstance(value, bool) else None
    elif annotation.startswith("tuple"):
        pair = isinstance(value, list) and len(value) == 2 and all(number(v, integral) for v in value)
        want = f"a list of two {'whole ' if integral else ''}numbers"
        taken = tuple(int(v) if integral else float(v) for v in value) if pair else None
    elif annotation.startswith("str"):
        want, taken = "a string", value if isinstance(value, str) else None
    elif annotation.startswith(("int", "float")):
        want = "a whole number" if integral else "a finite number"
        taken = (int(value) if integral else float(value)) if number(value, integral) else None
    else:  # pragma: no cover - every setting has one of the types above
        raise HuebenchError(f"{flag}: {key!r} cannot be set here")
    if taken is not None or (value is None and "None" in annotation):
        return taken
    null = " or null" if "None" in annotation else ""
    raise HuebenchError(f"{flag}: {key!r} must be {want}{null}, got {json.dumps(value)}")


def canonical_scorer_options(text: str | None, own_flags: Mapping[str, str] = SCORE_FLAGS) -> str | None:
    """``--scorer-options`` as config.json records it: the same object, keys sorted, compact (None
    when it sets nothing), so that spacing or key order does not make --resume refuse a run."""
    found = parse_scorer_options(text, own_flags)
    return json.dumps(found, sort_keys=True, separators=(",", ":")) if found else None


def _chroma_p99(px8: NDArray[np.uint8], light: NDArray[np.float64] | None) -> float:
    """The 99th percentile of the pixels' chroma (C*ab, over :func:`fit_sample`); pixels judged
    white-balanced (``light``) are put back under the light first: the bound on invented colour is
    on what the image shows."""
    if light is not None:
        return chroma_quantile(linear_to_srgb8(srgb8_to_linear(fit_sample_of(px8)) * light), 0.99)
    return chroma_quantile(px8, 0.99)


def _per_channel(veil: Any) -> list[float] | None:
    """A veil (one value or one per channel) as three floats for the record; None stays None."""
    return None if veil is None else [float(v) for v in np.broadcast_to(np.asarray(veil, dtype=np.float64), (3,))]


def _grid(stride: int) -> tuple[slice, slice]:
    """Every ``stride``-th pixel in each direction, starting half a step in: the working resolution."""
    return slice(stride // 2, None, stride), slice(stride // 2, None, stride)


def peel_background(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    *,
    max_delta_e: float | None = PEEL_DELTA_E,
    band: int = PEEL_BAND,
    frame_cuts: bool = FRAME_CUTS,
    depth: NDArray[np.int32] | None = None,
) -> tuple[NDArray[np.bool_], int]:
    """The mask without the background it caught at its edge, and how many pixels that was.

    A pixel of the mask's outer band (``band`` pixels in, :func:`~huebench.color.reflectance.mask_depth`;
    ``depth``: that transform, when the caller has it) goes when its colour is within
    ``max_delta_e`` (CIEDE2000) of the median colour just outside the mask (a ring two pixels wide)
    and nearer to it than to the median of the mask's deep interior. The object's own edge stays:
    shading, a rim or a reflection darkens or lightens it but does not make it the backdrop's
    colour. Nothing is peeled where the ring looks like the interior (within 2 × ``max_delta_e``):
    the mask lies inside the object (a hand-drawn interior, a tight segmentation), or the object
    stands on its own colour. Masks too small to have a deep interior, or without a ring around
    them (an object that fills the frame), come back as they are, as does a mask that would keep
    fewer than 20 pixels; so does every mask with ``max_delta_e`` None. The two medians read a fixed sample of at most
    :data:`~huebench.color.reflectance.FIT_PIXELS` pixels (:func:`~huebench.color.reflectance.fit_sample`).
    """
    m = np.asarray(mask, dtype=bool)
    if max_delta_e is None:
        return m, 0
    img = np.asarray(image)
    depth = mask_depth(m, frame_cuts=frame_cuts) if depth is None else depth
    edge, deep = m & (depth <= band), m & (depth > band)
    n_deep = int(np.count_nonzero(deep))
    if n_deep < 20 or not edge.any():
        return m, 0
    ring = grow_mask(m, 2) & ~m
    n_ring = int(np.count_nonzero(ring))
    if n_ring < 20:
        return m, 0
    between, drop = edge_near_surroundings(img, ring, deep, edge, max_delta_e)
    if between < 2 * max_delta_e:
        return m, 0  # what lies around the mask looks like the object: a mask inside it, nothing to peel
    k = int(np.count_nonzero(drop))
    if k == 0 or int(np.count_nonzero(m)) - k < 20:
        return m, 0
    out = m.copy()
    rows, cols = np.nonzero(edge)
    out[rows[drop], cols[drop]] = False
    return out, k


def segment_offline(
    image: ArrayLike,
    *,
    threshold: float = SEGMENT_THRESHOLD,
    border: int = 2,
    grow: float | None = SEGMENT_GROW,
    grow_noise: float = SEGMENT_GROW_NOISE,
    shadow: float | None = SEGMENT_SHADOW,
) -> NDArray[np.bool_]:
    """Foreground mask without network weights: pixels far (CIEDE2000 > ``threshold``) from the
    background, modelled from the image's ``border`` pixels (their top and bottom medians blended
    down the rows, or their overall median, whichever is nearer), grown into the connected pixels
    more than ``grow`` from it — or ``grow_noise`` × the 95th percentile of the border's own
    distance from the model, where the border is noisier; never more than ``threshold``
    (hysteresis thresholding; ``grow=None``: none); then opening/closing, the largest connected component and hole filling
    (scipy.ndimage); then, with ``shadow`` (a share; None: none), the shadow the object casts on
    its backdrop left out (:func:`_without_cast_shadow`). The growth (version 2,
    :data:`OFFLINE_SEGMENTATION`) finds the part of a grey, white or black body whose shading passes
    through the backdrop's lightness, which the threshold alone cut out of the mask; the growth
    reaches a cast shadow's penumbra too, and version 3 leaves the shadow out (docs/gencolor.md)."""
    from scipy import ndimage

    if (
        not threshold > 0
        or (grow is not None and not grow > 0)
        or not grow_noise >= 0
        or (shadow is not None and not 0 < shadow < 1)
    ):
        raise HuebenchError(
            "segment_offline: threshold must be > 0, grow > 0 or None, grow_noise ≥ 0 and shadow in (0, 1) or "
            f"None; got threshold {threshold!r}, grow {grow!r}, grow_noise {grow_noise!r}, shadow {shadow!r}"
        )
    img = np.asarray(image)
    if img.ndim == 3 and 0 in img.shape[:2]:
        return np.zeros(img.shape[:2], dtype=bool)  # no pixels: no object
    lab = srgb_to_lab(img)
    h, w = lab.shape[:2]
    ring = np.concatenate(
        [
            lab[:border].reshape(-1, 3),
            lab[-border:].reshape(-1, 3),
            lab[:, :border].reshape(-1, 3),
            lab[:, -border:].reshape(-1, 3),
        ]
    )
    # a smooth background: blend of the border's per-side medians, so vignettes and floors with a
    # lightness gradient are not mistaken for the object
    top, bottom = np.median(lab[:border], axis=(0, 1)), np.median(lab[-border:], axis=(0, 1))
    rows = np.linspace(0.0, 1.0, h)[:, None, None]
    background = (1 - rows) * top + rows * bottom
    d = np.minimum(delta_e(lab, background), delta_e(lab, np.median(ring, axis=0)))
    fg = d > threshold
    if grow is not None:
        edge = np.ones((h, w), dtype=bool)
        edge[_NOISE_RING:-_NOISE_RING, _NOISE_RING:-_NOISE_RING] = False
        low = min(threshold, max(grow, grow_noise * float(np.quantile(d[edge], 0.95))))
        # hysteresis: the pixels above the low level that touch one above the threshold
        near, n_near = ndimage.label(d > low)
        reached = np.zeros(n_near + 1, dtype=bool)
        reached[near[fg]] = True
        reached[0] = False
        fg = reached[near]
    box = mask_box(fg, _MORPHOLOGY_MARGIN)
    keep = np.zeros((h, w), dtype=bool)
    if box is None:
        return keep
    found = _largest_filled(ndimage.binary_closing(ndimage.binary_opening(fg[box], iterations=1), iterations=2))
    if found is None:
        return keep
    keep[box] = found
    if shadow is None:
        return keep
    return _without_cast_shadow(img, lab, background, keep, shadow)


#: the morphology (an opening of 1 and a closing of 2 iterations) reaches at most this many pixels
#: past what it starts from: run on the candidates' bounding box grown by it, it gives the masks the
#: whole image gives, at the cost of the box (a small object in a large image)
_MORPHOLOGY_MARGIN = 4


def _largest_filled(fg: NDArray[np.bool_]) -> NDArray[np.bool_] | None:
    """The largest 4-connected component of ``fg``, its holes filled; None where ``fg`` is empty."""
    from scipy import ndimage

    labels, n = ndimage.label(fg)
    if n == 0:
        return None
    largest = labels == int(np.argmax(np.bincount(labels.ravel())[1:])) + 1
    # its holes: the 4-connected parts of the rest that do not reach the border (what
    # binary_fill_holes fills, found by one labelling instead of dilations repeated until stable)
    rest, n_rest = ndimage.label(~largest)
    edge = np.unique(np.concatenate([rest[0], rest[-1], rest[:, 0], rest[:, -1]]))
    hole = np.ones(n_rest + 1, dtype=bool)
    hole[edge] = False
    hole[0] = False
    return largest | hole[rest]


def _without_cast_shadow(
    img: NDArray[np.uint8],
    lab: NDArray[np.float64],
    background: NDArray[np.float64],
    mask: NDArray[np.bool_],
    share: float,
) -> NDArray[np.bool_]:
    """``mask`` less the shadow the object casts on its backdrop (:func:`segment_offline`'s
    ``shadow``): pixels darker than the backdrop model (CIELAB ``background``) by
    :data:`_SHADOW_DARKER` L* whose chromaticity (linear RGB over its sum: shading does not move it)
    is nearer the backdrop's than ``share`` × the body's median distance from it, less bands too thin
    to survive one opening; the rest opened once, the largest component kept and filled. A body of nearly the backdrop's chromaticity (a grey body
    on a grey floor: median distance below :data:`_SHADOW_MIN_BODY`) cannot be told from its shadow,
    and keeps its mask; pixels below :data:`_SHADOW_MIN_LEVEL` (linear) have no chromaticity to read."""
    from scipy import ndimage

    # the backdrop model is a blend down the rows: one colour per row, converted once, then read
    # at each mask pixel's row (N×3)
    rows = np.nonzero(mask)[0]
    model_rows = np.broadcast_to(background, (lab.shape[0], 1, 3))[:, 0]
    model = model_rows[rows]
    # decoded as srgb_to_lab decoded the image: 8-bit codes, else floats in [0, 1]
    px = srgb8_to_linear(img[mask]) if img.dtype == np.uint8 else srgb_to_linear(img[mask])
    backdrop = np.clip(xyz_to_linear_rgb(lab_to_xyz(model_rows)), 1e-4, None)[rows]

    def chromaticity(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return x / np.maximum(x.sum(axis=-1, keepdims=True), 1e-4)

    distance = np.abs(chromaticity(px) - chromaticity(backdrop)).sum(axis=-1)
    body = float(np.median(distance))
    if body < _SHADOW_MIN_BODY:
        return mask
    darker = lab[mask][:, 0] < model[:, 0] - _SHADOW_DARKER
    cast = np.zeros_like(mask)
    cast[mask] = darker & (distance < share * body) & (px.mean(axis=-1) > _SHADOW_MIN_LEVEL)
    # a cast shadow is a region; a band one or two pixels wide is the rim of a body that mirrors its
    # floor (under a coloured light, a fifth of the CSS3/X11 illuminant images lost it otherwise)
    box = mask_box(mask, _MORPHOLOGY_MARGIN)
    assert box is not None  # the mask has pixels: their median was read above
    cast_box = ndimage.binary_opening(cast[box], iterations=1)
    kept = _largest_filled(ndimage.binary_opening(mask[box] & ~cast_box, iterations=1))
    if kept is None:
        return mask
    out = np.zeros_like(mask)
    out[box] = kept
    return out
