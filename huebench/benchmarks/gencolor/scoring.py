"""GenColorBench's perceptual colour scoring (seed 004 §3.4) and an offline segmentation path.

For an object's pixels and a target colour of a system:

1. pixels → CIELAB → dominant colour (:func:`huebench.color.dominant_color`);
2. candidate set = the target plus its ``k`` perceptually nearest members of the same system
   (CIEDE2000; aliases counted once) — a generated shade may be a neighbouring name of the target;
3. three metrics, each the minimum over the candidates: Δchroma (a*b* distance), CIEDE2000, and the
   hue-angle difference with chroma gating (no hue test when either colour is near-grey);
4. each against its threshold — ΔE00 ≤ 5 and Δchroma ≤ 5 (one JND, as in the paper) and Δhue ≤
   :data:`HUE_THRESHOLD` degrees — and the image is correct when all three pass.

Choices beyond the paper, each measured on the known-colour renders (``benchmarks/scorer_study.py``
compares them side by side; quick L2 / CSS renders, exact masks):

- the mask loses its 1-pixel border (anti-aliased edge pixels mix object and background);
- glossy surfaces reflect white (dichromatic reflection model). A surface whose lit half is not
  uniformly saturated looks glossy (:func:`looks_glossy`); a dielectric reflects about 4 % of its
  surroundings even where it reflects least, so F0 × the surroundings' radiance is removed from
  every pixel (:func:`specular_veil`). Other chromatic surfaces get a fitted white floor removed
  instead (:func:`remove_specular`; clearly chromatic surfaces only, :data:`FLOOR_MIN_SATURATION`).
  Then every pixel is put back on the albedo's diffuse line (:func:`diffuse_reconstruction`) —
  glossy objects 22 → 91 % (L2) and 52 → 88 % (CSS), diffuse objects ≈ 99 %;
- the dominant colour is taken over the lit surface — pixels between the 85th and 99th percentile
  of L* — because shadows darken and desaturate an object that people still call by its lit colour;
- both steps stand down when the surface shows no shading beyond pixel noise (:func:`has_shading`):
  a flat noisy patch is all "lit", and a window or a specular fit would only pick noise.

Overall 73.8 → 96.6 % (L2) and 83.2 → 95.1 % (CSS) with exact masks, 0 far-colour false accepts.
Defaults (k = 3, hue 5°, gate C* < 5) are not given in the paper and are all configurable.

:func:`segment_offline` finds the object without any network weights: it models the background
from the image border and keeps what differs from it. Good for renders and product-style images
(one object on a plain or smoothly lit backdrop); it fails on cluttered scenes, on objects whose
colour matches the backdrop, and on objects touching the border — use GroundingDINO/OWLv2 + SAM
masks or supplied masks there.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from huebench.color import (
    delta_chroma,
    delta_e,
    delta_hue,
    linear_to_srgb8,
    load_system,
    parse,
    srgb8_to_linear,
    srgb_to_lab,
)
from huebench.color.dominant import DOMINANT_COLOR_METHODS
from huebench.errors import HuebenchError

__all__ = [
    "CANDIDATE_RULES",
    "DEFAULT_K",
    "HUE_THRESHOLD",
    "JND",
    "SCORERS",
    "SCORER_VERSION",
    "ColorScore",
    "ColorScorer",
    "albedo_saturation",
    "diffuse_reconstruction",
    "has_shading",
    "looks_glossy",
    "remove_specular",
    "remove_veil",
    "segment_offline",
    "specular_veil",
    "surface_looks_glossy",
    "surround_radiance",
]

#: bumped whenever a default or a step of the scorer changes what it decides: it is part of the
#: scorer's config in config.json, so --resume never mixes records of two scorers
SCORER_VERSION = 3
JND = 5.0
#: how the three metrics meet the candidates: "per-metric" takes each metric's minimum over the
#: candidates (the paper), "same" needs one candidate to pass all three (a grey candidate then
#: cannot switch the hue test off for a chromatic target)
CANDIDATE_RULES = ("per-metric", "same")
HUE_THRESHOLD = 5.0
DEFAULT_K = 3
#: judge the object by its lit surface: pixels between these quantiles of L* (see dominant_color)
LIT_WINDOW: tuple[float, float] | None = (0.85, 0.99)
#: how specular reflection is handled: '+'-joined steps — "dichromatic" (remove the white floor),
#: "envelopeNN" (diffuse line at the NN-th percentile of saturation), "top" (the more saturated
#: half), "mode" (pixels near the modal saturation); None: none (see benchmarks/scorer_study.py)
SPECULAR: str | None = "dichromatic+envelope90"
#: Gaussian σ (pixels) of an in-mask smoothing before the pixel statistics (0: none; it blurs the
#: highlights of small objects into their neighbours, so it is off by default)
SMOOTH = 0.0
#: pixels of the mask border dropped before scoring: anti-aliased edges mix object and background
ERODE = 1
#: the white-floor fit needs a clearly chromatic surface (saturation, linear RGB): on pale colours
#: the chroma magnitude it regresses on is mostly pixel noise and 8-bit steps (the norm of a small
#: noisy vector is biased up), and the fit invents a floor — a diffuse lavender cone lost 24 L*.
#: 0.4: CSS quick renders 171 → 158 failures (diffuse 15 → 11, glossy 156 → 147), L2 unchanged
#: (benchmarks/scorer_study.py; 0.5–0.8 gain more on CSS but start losing L2 glossy renders)
FLOOR_MIN_SATURATION = 0.4
#: Fresnel reflectance at normal incidence of the dielectrics most objects are made of, coated or
#: painted with (plastics, paints, glazes, glass: n ≈ 1.5 gives ((n − 1)/(n + 1))² ≈ 0.04; the
#: renders' plastic has n = 1.49, 0.039). Even where a glossy surface reflects least it reflects
#: this much of its surroundings as white (:func:`specular_veil`); None: the veil is not used
F0_DIELECTRIC = 0.04
FRESNEL_F0: float | None = F0_DIELECTRIC
#: gloss test (:func:`looks_glossy`): one albedo under white light has one saturation whatever the
#: shading, so when a tenth of the lit half falls below this fraction of the top saturation, white
#: light is added somewhere — specular reflection. 0.955 flags 128 of 145 glossy and 2 of 290
#: diffuse quick L2 renders; 0.93–0.97 all give L2 96.1–96.6 %, CSS 94.8–95.1 %
#: (benchmarks/scorer_study.py)
GLOSS_UNIFORMITY = 0.955
#: no invented colour: the dominant colour's chroma may exceed the 99th percentile of the object's
#: own pixel chroma (after removing the veil, the one reflection modelled from outside the pixels)
#: by at most this much (C*ab); beyond it the chroma is cut back to that bound. None: no bound
MAX_CHROMA_EXCESS: float | None = 2.0
#: the gloss test reads saturations after an in-mask Gaussian blur of this σ (pixels): sensor noise,
#: JPEG blocks and fine texture spread saturations as a highlight does, a blur removes them and
#: keeps the reflections, which are smooth over the surface (0: no blur)
GLOSS_SMOOTH = 1.0
#: a surface that reflects its surroundings reflects far more of them at grazing angles (Fresnel),
#: so its silhouette band is less saturated than its lit interior; a highlight from a lamp alone
#: leaves the band as saturated as the interior. The veil is removed only when the band's median
#: saturation is below this fraction of the interior's 90th percentile (:func:`rim_saturation`);
#: None: no such condition
RIM_RATIO: float | None = 0.93
#: pixels of the silhouette band: from ``RIM_BAND[0]`` to ``RIM_BAND[1]`` pixels inside the mask
#: (the outermost pixels mix in the backdrop, more so after blur or JPEG's halved chroma)
RIM_BAND = (1, 3)
#: the veil has the surroundings' colour (per channel) rather than their mean as white: under a
#: coloured light, or among coloured surroundings, that is what a glossy surface reflects
VEIL_COLOR = True
#: the object's main colour: pixels whose chromaticity (linear RGB over its sum, which shading does
#: not move) is far from the most common one — a print, a second colour, a highlight — are left out;
#: the value is the share of the lit pixels always kept (None: all pixels are the object's colour)
MAIN_COLOR: float | None = 0.7

#: the named scorers: this project's default and the seed's method as written (PCA dominant colour
#: over all object pixels, no mask erosion, no lit window, no specular steps)
SCORERS: dict[str, dict[str, Any]] = {
    "huebench": {},
    "paper": {"lightness_window": None, "erode": 0, "specular": None, "fresnel": None, "dominant": "paper"},
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

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["pass"] = d.pop("passed")
        return d


class ColorScorer:
    """Score pixels against a target colour of a system (see the module doc)."""

    def __init__(
        self,
        system: str = "css3",
        *,
        k: int = DEFAULT_K,
        jnd: float = JND,
        hue_threshold: float = HUE_THRESHOLD,
        min_pixels: int = 20,
        lightness_window: tuple[float, float] | None = LIT_WINDOW,
        erode: int = ERODE,
        specular: str | None = SPECULAR,
        smooth: float = SMOOTH,
        floor_min_saturation: float = FLOOR_MIN_SATURATION,
        fresnel: float | None = FRESNEL_F0,
        gloss_uniformity: float = GLOSS_UNIFORMITY,
        dominant: str = "huebench",
        candidate_rule: str = "per-metric",
        max_chroma_excess: float | None = MAX_CHROMA_EXCESS,
        gloss_smooth: float = GLOSS_SMOOTH,
        main_color: float | None = MAIN_COLOR,
        rim_ratio: float | None = RIM_RATIO,
        rim_band: tuple[int, int] = RIM_BAND,
        veil_color: bool = VEIL_COLOR,
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
        if main_color is not None and not 0 < main_color <= 1:
            raise HuebenchError(f"main_color must be a share in (0, 1] or None, got {main_color!r}")
        self.main_color = None if main_color is None else float(main_color)
        self.k, self.jnd, self.hue_threshold, self.min_pixels = (
            int(k),
            float(jnd),
            float(hue_threshold),
            int(min_pixels),
        )
        self.lightness_window = lightness_window
        self.erode = int(erode)
        for step in (specular or "").split("+"):
            if step and step not in ("dichromatic", "top", "mode") and not re.fullmatch(r"envelope\d{1,2}", step):
                raise HuebenchError(
                    f"specular step {step!r} unknown: use dichromatic, envelopeNN (e.g. envelope90), top or mode, "
                    "joined with '+', or None"
                )
        self.specular = specular
        self.smooth = float(smooth)
        self.floor_min_saturation = float(floor_min_saturation)
        if fresnel is not None and not 0.0 <= fresnel < 1.0:
            raise HuebenchError(f"fresnel must be a reflectance in [0, 1) or None, got {fresnel!r}")
        self.fresnel = None if fresnel is None else float(fresnel)
        self.gloss_uniformity = float(gloss_uniformity)

    @classmethod
    def named(cls, scorer: str, system: str = "css3", **options: Any) -> ColorScorer:
        """One of :data:`SCORERS` ("huebench", "paper"), with ``options`` on top of its settings."""
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
            "erode": self.erode,
            "specular": self.specular,
            "smooth": self.smooth,
            "floor_min_saturation": self.floor_min_saturation,
            "fresnel": self.fresnel,
            "gloss_uniformity": self.gloss_uniformity,
            "dominant": self.dominant,
            "candidate_rule": self.candidate_rule,
            "max_chroma_excess": self.max_chroma_excess,
            "gloss_smooth": self.gloss_smooth,
            "main_color": self.main_color,
            "rim_ratio": self.rim_ratio,
            "rim_band": list(self.rim_band),
            "veil_color": self.veil_color,
        }

    def candidates(self, target: str) -> list[Any]:
        """The target member and its k nearest neighbours; a colour outside the system (hex, rgb())
        is its own single candidate plus the k system members nearest to it."""
        member = self.system.find(target)
        if member is not None:
            return self.system.candidate_set(member.name, self.k)
        c = parse(target)
        return [c, *[n.color for n in self.system.nearest(c, self.k)]]

    def score_pixels(self, rgb_pixels: ArrayLike, target: str, *, veil: Any = None) -> ColorScore:
        """Score 8-bit sRGB pixels (N×3 or H×W×3) of one object against ``target``.

        ``veil``: white light (linear RGB) the surface reflects everywhere, known from outside the
        pixels (:meth:`score_image` sets it for glossy surfaces, :func:`specular_veil`); it is
        removed first and replaces the fitted floor of the "dichromatic" step."""
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
        lab_raw = srgb_to_lab(px8[_fit_sample(len(px8))])
        chroma_p99 = float(np.quantile(np.hypot(lab_raw[:, 1], lab_raw[:, 2]), 0.99))
        # the main colour is chosen on the pixels as they are: a veil taken off pushes the darkest
        # channel of saturated pixels to the clip at 0, and their hue with it
        main = main_color_pixels(px8, keep=self.main_color) if self.main_color is not None else None
        if veil is not None:
            px8 = remove_veil(px8, veil)
            lab_veiled = srgb_to_lab(px8[_fit_sample(len(px8))])
            bound_p99 = float(np.quantile(np.hypot(lab_veiled[:, 1], lab_veiled[:, 2]), 0.99))
        else:
            bound_p99 = chroma_p99
        if main is not None:
            px8 = px8[main]
        for step in (self.specular or "").split("+"):
            if step == "dichromatic" and veil is not None:
                continue  # the veil is the floor this step would fit
            if step == "dichromatic":
                px8 = remove_specular(px8, min_saturation=self.floor_min_saturation)
            elif step.startswith("envelope"):
                px8 = diffuse_reconstruction(px8, quantile=float(step[len("envelope") :] or 75) / 100)
            elif step:
                px8 = px8[diffuse_pixels(px8, rule=step)]
        window = self.lightness_window
        if window is not None and len(px8) >= 10:
            sample = px8[_fit_sample(len(px8))]
            if not has_shading(srgb8_to_linear(sample)):
                window = None  # a flat (noisy) surface is all lit: a window would only pick noise
        if self.dominant == "paper":
            dom = DOMINANT_COLOR_METHODS["paper"](srgb_to_lab(px8))
        else:
            dom = DOMINANT_COLOR_METHODS["huebench"](srgb_to_lab(px8), lightness_window=window)
        dom_lab = np.asarray(dom.lab, dtype=np.float64).copy()
        excess = float(np.hypot(dom_lab[1], dom_lab[2])) - chroma_p99
        # the bound counts from the pixels with the modelled reflection (the veil) removed: what the
        # steps after it infer beyond those pixels is invention, and it is held to the bound
        over = float(np.hypot(dom_lab[1], dom_lab[2])) - bound_p99
        cut = self.max_chroma_excess is not None and over > self.max_chroma_excess
        if cut:  # keep the hue and lightness, bring the chroma back within the bound
            dom_lab[1:] *= (bound_p99 + self.max_chroma_excess) / float(np.hypot(dom_lab[1], dom_lab[2]))
            excess = float(np.hypot(dom_lab[1], dom_lab[2])) - chroma_p99
        labs = np.array([np.asarray(c.lab, dtype=np.float64) for c in cands])
        de = delta_e(labs, dom_lab[None, :])
        dc = delta_chroma(labs, dom_lab[None, :])
        dh_raw = delta_hue(labs, dom_lab[None, :], neutral=np.nan)
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
        glossy = "" if veil is None else f"glossy surface, veil {np.round(veil, 4).tolist()} removed; "
        if cut:
            glossy += f"chroma {over:.1f} above the pixels' 99th percentile, cut to +{self.max_chroma_excess:g}; "
        reason = glossy + (
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
            None if veil is None else [float(v) for v in np.broadcast_to(np.asarray(veil, dtype=np.float64), (3,))],
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
        depth = mask_depth(m)  # one transform serves the erosion, the gloss test and the rim
        inner = m
        if self.erode > 0:
            eroded = depth > self.erode
            inner = eroded if eroded.sum() >= self.min_pixels else m
        veil = None
        if self.fresnel is not None and inner.sum() >= self.min_pixels:
            veil = specular_veil(
                img,
                m,
                fresnel=self.fresnel,
                uniformity=self.gloss_uniformity,
                smooth=self.gloss_smooth,
                per_channel=self.veil_color,
                rim_ratio=self.rim_ratio,
                rim_band=self.rim_band,
                depth=depth,
            )
        if self.smooth > 0 and inner.any():
            return self.score_pixels(smooth_within(img, inner, self.smooth), target, veil=veil), m
        return self.score_pixels(img[inner], target, veil=veil), m


def mask_depth(mask: NDArray[np.bool_]) -> NDArray[np.int32]:
    """How many pixels in from the mask's edge each pixel lies: ``mask_depth(m) > k`` is ``m``
    eroded k times with the 4-neighbour cross (outside the image counts as outside the mask), as
    ``scipy.ndimage.binary_erosion(m, iterations=k)`` gives, for every k from one transform."""
    from scipy import ndimage

    padded = np.pad(np.asarray(mask, dtype=bool), 1)
    return ndimage.distance_transform_cdt(padded, metric="taxicab")[1:-1, 1:-1]


def looks_glossy(
    rgb8: NDArray[np.uint8], *, uniformity: float = GLOSS_UNIFORMITY, min_saturation: float = 0.15
) -> bool:
    """Does a chromatic surface show specular reflection?

    Under white light one albedo has one saturation (distance from the grey axis over the grey
    component, linear RGB) whatever the shading, so on a matte surface the lit half is uniformly
    saturated. Reflected white lowers the saturation where it lands: the surface looks glossy when
    the 10th percentile of the lit half's saturations is below ``uniformity`` × their 90th.
    Achromatic and pale surfaces (90th percentile below ``min_saturation``) say no: there is no
    chroma to tell reflected white from the body colour; so do flat patches (:func:`has_shading`),
    whose saturations spread with pixel noise alone.
    """
    rgb8 = np.asarray(rgb8)[_fit_sample(len(rgb8))]
    rgb8 = rgb8[(rgb8 < 254).all(axis=1)]  # a clipped channel lowers saturation as white would
    lin = srgb8_to_linear(rgb8)
    grey = lin.mean(axis=1)
    lit = grey >= np.quantile(grey, 0.5) if len(grey) else np.zeros(0, dtype=bool)
    if lit.sum() < 20:
        return False
    sat = np.linalg.norm(lin[lit] - grey[lit, None], axis=1) / np.maximum(grey[lit], 1e-6)
    # near-grey pixels are backdrop a loose mask caught (offline segmentation), not reflections:
    # with them the test flagged 25 of 290 diffuse L2 renders under offline masks, without them 3
    sat = sat[sat >= 0.5 * np.quantile(sat, 0.9)]
    if len(sat) < 20:
        return False
    q10, q90 = np.quantile(sat, [0.1, 0.9])
    # a flat noisy patch spreads its saturations too, but shows no shading beyond the noise
    return bool(q90 >= min_saturation and q10 < uniformity * q90 and has_shading(lin))


def rim_saturation(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    *,
    band: tuple[int, int] = RIM_BAND,
    depth: NDArray[np.int32] | None = None,
) -> float | None:
    """Median saturation (linear RGB) of the mask's silhouette band — 1 to 3 pixels in — over the
    90th percentile of the interior's, on pixels that are neither clipped nor among the darkest
    quarter (noise). ``None`` when either part is too small to tell (see :data:`RIM_RATIO`)."""

    m = np.asarray(mask, dtype=bool)
    d = (mask_depth(m) if depth is None else depth)[m]  # the mask's pixels only
    e1, e3 = d > band[0], d > band[1]
    if not e3.any():
        return None
    px = np.asarray(image)[m]
    lin = srgb8_to_linear(px)
    grey = lin.mean(axis=-1)
    usable = ~(px >= 254).any(axis=-1) & (grey > np.quantile(grey, 0.25))
    sat = np.linalg.norm(lin - grey[..., None], axis=-1) / np.maximum(grey, 1e-6)
    inner, band = sat[e3 & usable], sat[e1 & ~e3 & usable]
    if len(inner) < 20 or len(band) < 10:
        return None
    top = float(np.quantile(inner, 0.9))
    return _median(band) / top if top > 0 else None


def surround_radiance(
    image: NDArray[np.uint8], mask: NDArray[np.bool_], *, gap: int = 2, per_channel: bool = False
) -> Any:
    """Mean linear-RGB radiance of what surrounds the object: the image outside the mask widened
    by ``gap`` pixels (its anti-aliased edge mixes object and background). ``None`` when fewer
    than 50 pixels are left."""
    from scipy import ndimage

    outside = ~ndimage.binary_dilation(mask, iterations=gap) if gap > 0 else ~mask
    if outside.sum() < 50:
        return None
    lin = srgb8_to_linear(np.asarray(image)[outside])
    return lin.mean(axis=0) if per_channel else float(lin.mean())


def specular_veil(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    *,
    fresnel: float = F0_DIELECTRIC,
    uniformity: float = GLOSS_UNIFORMITY,
    interior: int = ERODE + 1,
    smooth: float = GLOSS_SMOOTH,
    per_channel: bool = VEIL_COLOR,
    rim_ratio: float | None = RIM_RATIO,
    rim_band: tuple[int, int] = RIM_BAND,
    depth: NDArray[np.int32] | None = None,
) -> Any:
    """The veil a glossy object reflects everywhere (linear RGB: one value, or one per channel
    with ``per_channel``), or ``None`` for a surface that does not show it.

    A dielectric reflects at least ``fresnel`` (F0: 4 % for n ≈ 1.5) of the light arriving from the
    mirror direction, and that light is its surroundings: so even the least specular pixel carries
    about F0 × the surroundings' radiance (:func:`surround_radiance`). That veil biases the
    albedo's saturation low — dark colours most, on bright backdrops most — and a fitted floor
    cannot see it where shading gives no range to fit. It is removed when the surface looks glossy
    (:func:`surface_looks_glossy`) and, with ``rim_ratio``, shows the Fresnel rim of a reflection
    of its surroundings (:func:`rim_saturation`): a lamp's highlight alone does not carry a veil.
    ``depth``: :func:`mask_depth` of the mask, when the caller has it.
    """
    m = np.asarray(mask, dtype=bool)
    depth = mask_depth(m) if depth is None else depth
    if not surface_looks_glossy(image, m, uniformity=uniformity, interior=interior, smooth=smooth, depth=depth):
        return None
    if rim_ratio is not None:
        rim = rim_saturation(image, m, band=rim_band, depth=depth)
        if rim is None or rim >= rim_ratio:
            return None  # glossy, but no sign that it reflects its surroundings
    around = surround_radiance(image, m, per_channel=per_channel)
    return None if around is None else fresnel * around


def surface_looks_glossy(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    *,
    uniformity: float = GLOSS_UNIFORMITY,
    interior: int = ERODE + 1,
    smooth: float = GLOSS_SMOOTH,
    depth: NDArray[np.int32] | None = None,
) -> bool:
    """:func:`looks_glossy` on the mask's interior (``interior`` pixels in: the edge mixes in the
    backdrop), after an in-mask blur of σ ``smooth`` (noise and fine texture out, reflections in).
    ``depth``: :func:`mask_depth` of the mask, when the caller has it."""
    m = np.asarray(mask, dtype=bool)
    inner = ((mask_depth(m) if depth is None else depth) > interior) if interior > 0 else m
    if inner.sum() < 20:
        return False
    px = smooth_within(np.asarray(image), inner, smooth) if smooth > 0 else np.asarray(image)[inner]
    return looks_glossy(px, uniformity=uniformity)


def remove_veil(rgb8: NDArray[np.uint8], veil: Any) -> NDArray[np.uint8]:
    """Subtract a veil (linear RGB: one value for white, or one per channel) from every pixel."""

    veil = np.asarray(veil, dtype=np.float64)
    if veil.shape not in ((), (3,)) or not np.all(veil >= 0):
        raise HuebenchError(f"veil must be a non-negative linear radiance, got {veil!r}")
    lin = srgb8_to_linear(rgb8)
    return linear_to_srgb8(lin - veil)


def main_color_pixels(rgb8: NDArray[np.uint8], *, keep: float = 0.7) -> NDArray[np.bool_]:
    """The pixels of the object's main colour (see :data:`MAIN_COLOR`).

    Chromaticity (linear RGB over its sum) does not change with shading, so one albedo is one
    point, spread by noise that grows as pixels darken. The main colour is the densest chromaticity
    of the brighter half; a pixel is kept when it lies within the radius that holds ``keep`` of the
    brighter half — at least 3.5 × their median distance and 0.01 (a few degrees of hue for a
    saturated colour), so a uniform object loses nothing to noise or 8-bit steps — widened for
    darker pixels in proportion as their noise grows."""
    from scipy import ndimage

    lin = srgb8_to_linear(rgb8)
    total = lin.sum(axis=1)
    chrom = lin / np.maximum(total, 1e-6)[:, None]
    mid_total = _median(total)
    bright = total >= mid_total
    if bright.sum() < 20:
        return np.ones(len(lin), dtype=bool)
    xy = chrom[bright][:, :2]
    lo, hi = np.quantile(xy, [0.01, 0.99], axis=0)
    width = (hi - lo + 1e-9) / 24  # a 24 × 24 histogram over the central 98 %, then smoothed
    cell = np.floor((xy - lo) / width).astype(np.int64)
    inside = np.all((cell >= 0) & (cell < 24), axis=1)
    hist = np.bincount(cell[inside, 0] * 24 + cell[inside, 1], minlength=24 * 24).reshape(24, 24)
    hist = ndimage.gaussian_filter(hist.astype(np.float64), 1.0)
    peak = np.array(np.unravel_index(int(np.argmax(hist)), hist.shape))
    near = xy[np.all(np.abs(xy - (lo + (peak + 0.5) * width)) <= 1.5 * width, axis=1)]
    mode = np.median(near if len(near) else xy, axis=0)
    mode3 = np.array([mode[0], mode[1], 1.0 - mode.sum()])
    off = chrom - mode3
    axis = mode3 - 1.0 / 3.0
    if np.linalg.norm(axis) > 0.02:
        # a chromatic object: only a change of hue counts. Reflected white and the veil move pixels
        # along the line to the white point, and the saturated tail is the albedo's best evidence
        axis /= np.linalg.norm(axis)
        off = off - (off @ axis)[:, None] * axis
    dist = np.linalg.norm(off, axis=1)
    q_keep, q_mid = np.quantile(dist[bright], [keep, 0.5])
    radius = max(float(q_keep), 3.5 * float(q_mid), 0.01)
    widen = np.maximum(_median(total[bright]) / np.maximum(total, 1e-6), 1.0)
    kept = dist <= radius * widen
    return kept if kept.sum() >= 20 else np.ones(len(lin), dtype=bool)


def smooth_within(image: NDArray[np.uint8], mask: NDArray[np.bool_], sigma: float) -> NDArray[np.uint8]:
    """The mask's pixels after a Gaussian blur (in linear light) that averages mask pixels only —
    normalised convolution, so the background never bleeds in. Pixel noise and fine texture
    shrink; shading, which the specular and lightness steps rely on, stays."""
    from scipy import ndimage

    mask = np.asarray(mask, dtype=bool)
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if len(rows):  # only the mask's box and the kernel's reach matter: outside it every weight is 0
        reach = int(4.0 * sigma + 0.5) + 1  # scipy's kernel radius (truncate 4) and one more
        r0, r1 = max(rows[0] - reach, 0), min(rows[-1] + reach + 1, mask.shape[0])
        c0, c1 = max(cols[0] - reach, 0), min(cols[-1] + reach + 1, mask.shape[1])
        image, mask = np.asarray(image)[r0:r1, c0:c1], mask[r0:r1, c0:c1]
    w = mask.astype(np.float64)
    lin = srgb8_to_linear(image) * w[..., None]
    norm = ndimage.gaussian_filter(w, sigma)
    out = ndimage.gaussian_filter(lin, (sigma, sigma, 0.0))  # the three channels in one call
    out = out[mask] / np.maximum(norm[mask], 1e-9)[:, None]
    return linear_to_srgb8(out)


#: pixels used to estimate the specular corrections (a deterministic, evenly strided sample)
FIT_PIXELS = 20000


def _fit_sample(n: int) -> NDArray[np.intp]:
    return np.arange(n) if n <= FIT_PIXELS else np.linspace(0, n - 1, FIT_PIXELS).astype(np.intp)


def _median(x: NDArray[np.float64]) -> float:
    """``np.median`` of a 1-D array, the same value, without its dispatch overhead: the scorer
    takes a few dozen medians of small arrays per image, and that overhead was most of their cost."""
    n = len(x)
    if n == 0:
        return float("nan")
    k = n // 2
    if n % 2:
        return float(np.partition(x, k)[k])
    part = np.partition(x, [k - 1, k])
    return float((part[k - 1] + part[k]) / 2)


def _spread(x: NDArray[np.float64]) -> float:
    return float(1.4826 * _median(np.abs(x - _median(x))))


def _cross(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """``np.cross`` of two 3-vectors, the same arithmetic without its general-shape overhead."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


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


def has_shading(lin: NDArray[np.float64], factor: float = 3.0) -> bool:
    """Does lightness vary across the surface (shading, highlights) well beyond the pixel noise?
    Compares the spread along the grey axis with the spread along directions only noise and
    texture populate. Flat noisy patches say no: their "lit surface" is all of them."""
    w = np.full(3, 1 / np.sqrt(3.0))
    noise = max(_spread(lin @ e) for e in _noise_directions(lin))
    return _spread(lin @ w) > factor * max(noise, 1e-9)


def _glossy_evidence(lin: NDArray[np.float64], min_saturation: float) -> bool:
    """A chromatic surface (the mean pixel's saturation ≥ ``min_saturation``: per-pixel
    saturations of a dark noisy patch are large by chance) with real shading to fit."""
    w = np.full(3, 1 / np.sqrt(3.0))
    mean = lin.mean(axis=0)
    chroma = mean - (mean @ w) * w
    if np.linalg.norm(chroma) < min_saturation * max(float(mean.mean()), 1e-6):
        return False
    return has_shading(lin)


def _fit_pixels(
    rgb8: NDArray[np.uint8], min_saturation: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]] | None:
    """What both specular corrections estimate from: every pixel in linear RGB, and for a fixed
    sample of them the grey component, the distance from the grey axis and the usable pixels (not
    clipped, above the darkest 10 %). ``None`` when there is nothing glossy to fit."""
    lin_all = srgb8_to_linear(rgb8)
    idx = _fit_sample(len(lin_all))  # the fit needs a sample; the correction goes to every pixel
    lin = lin_all[idx]
    grey = lin.mean(axis=1)
    perp = np.linalg.norm(lin - grey[:, None], axis=1)
    clipped = (np.asarray(rgb8)[idx] >= 254).any(axis=1)
    use = ~clipped & (grey > np.quantile(grey, 0.1))
    if use.sum() < 20 or not _glossy_evidence(lin[use], min_saturation):
        return None
    return lin_all, grey, perp, use


def remove_specular(rgb8: NDArray[np.uint8], *, min_saturation: float = FLOOR_MIN_SATURATION) -> NDArray[np.uint8]:
    """Subtract the white floor a glossy surface reflects everywhere (dichromatic model).

    In linear RGB a pixel is m_d·A + m_s·W (albedo A, white W). Its component along the grey axis is
    m_d·A∥ + m_s·|W| and its distance from that axis m_d·|A⊥|: across the surface the two lie on a
    line whose intercept is the specular floor m_s (diffuse pixels: a line through the origin). A
    robust line fit gives the floor, which is removed from every pixel. Achromatic and pale surfaces
    (saturation below ``min_saturation``) and flat patches (no shading range) leave nothing
    reliable to fit and are returned unchanged, as are fits with no positive floor.
    """

    fit = _fit_pixels(rgb8, min_saturation)
    if fit is None:
        return np.asarray(rgb8)
    lin_all, grey, perp, use = fit
    par = np.sqrt(3.0) * grey  # component along the unit grey axis
    sat = perp / np.maximum(par, 1e-6)
    # near-grey pixels (a mask that caught some background) would pose as pure specular and pull
    # the floor up: the fit uses pixels at least half as saturated as the typical one
    use &= sat >= 0.5 * _median(sat[use])
    x, y = perp[use], par[use]
    lo, hi = np.quantile(y, [0.1, 0.9])
    if hi < 1.25 * lo:  # a flat patch: no shading range to tell a floor from the albedo
        return np.asarray(rgb8)
    keep = np.ones(len(x), dtype=bool)
    for _ in range(3):  # least squares, trimming residuals beyond 2.5 MAD
        xk, yk = x[keep], y[keep]
        var = float(np.var(xk))
        if var < 1e-12:  # no spread in chroma: nothing to fit a line to
            return np.asarray(rgb8)
        slope = float(np.mean((xk - xk.mean()) * (yk - yk.mean()))) / var
        intercept = float(yk.mean() - slope * xk.mean())
        r = y - (slope * x + intercept)
        mad = 1.4826 * _median(np.abs(r[keep] - _median(r[keep]))) + 1e-9
        keep = np.abs(r) <= 2.5 * mad
        if keep.sum() < 10:
            break
    if intercept <= 0:
        return np.asarray(rgb8)
    out = np.clip(lin_all - intercept / np.sqrt(3.0), 0.0, 1.0)
    return linear_to_srgb8(out)


def _saturation_from_fit(fit: tuple[NDArray[np.float64], ...], quantile: float) -> float | None:
    _, grey, norm_fit, use = fit
    sat = norm_fit / np.maximum(grey, 1e-6)
    lo, hi = np.quantile(grey[use], [0.1, 0.9])
    if hi < 1.25 * lo:  # a flat patch: saturation spread is noise, and its upper quantile a bias
        return None
    use = use & (sat >= 0.5 * _median(sat[use]))
    return float(np.quantile(sat[use], quantile))


def albedo_saturation(rgb8: NDArray[np.uint8], *, quantile: float = 0.75, min_saturation: float = 0.15) -> float | None:
    """The albedo's saturation (distance from the grey axis over the grey component, linear RGB) as
    :func:`diffuse_reconstruction` estimates it: an upper quantile of the pixels' saturations.
    ``None`` for achromatic surfaces and flat patches, which are left as they are."""
    fit = _fit_pixels(rgb8, min_saturation)
    return None if fit is None else _saturation_from_fit(fit, quantile)


def diffuse_reconstruction(
    rgb8: NDArray[np.uint8],
    *,
    quantile: float = 0.75,
    min_saturation: float = 0.15,
    saturation: float | None = None,
) -> NDArray[np.uint8]:
    """Put every pixel back on the diffuse line of the dichromatic model.

    A diffuse pixel's saturation (distance from the grey axis over its grey component, linear RGB)
    is the albedo's whatever the shading; specular reflection only lowers it. The albedo's
    saturation is estimated as an upper quantile of the pixels' saturations (the least specular
    ones, :func:`albedo_saturation`), and each pixel keeps its chromatic part and gets the grey
    component that saturation implies — removing the white each pixel reflects, not just a common
    floor. Achromatic surfaces are returned unchanged. ``saturation`` replaces the estimate (a
    known material; ``benchmarks/scorer_study.py --oracle`` gives the renders' true albedo to
    measure how much of the remaining error is the estimate's).
    """

    if saturation is None:
        fit = _fit_pixels(rgb8, min_saturation)
        est = None if fit is None else _saturation_from_fit(fit, quantile)
        if fit is None or est is None:
            return np.asarray(rgb8)
        lin_all = fit[0]
        saturation = est
    else:
        if not saturation > 0:
            raise HuebenchError(f"saturation must be positive, got {saturation!r}")
        lin_all = srgb8_to_linear(rgb8)
    perp = lin_all - lin_all.mean(axis=1)[:, None]
    norm = np.linalg.norm(perp, axis=1)
    out = np.clip(perp + (norm / saturation)[:, None], 0.0, 1.0)
    return linear_to_srgb8(out)


def diffuse_pixels(rgb8: NDArray[np.uint8], *, rule: str = "mode", min_keep: int = 20) -> NDArray[np.bool_]:
    """Pixels least touched by specular reflection (dichromatic model, neutral light).

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


def segment_offline(image: ArrayLike, *, threshold: float = 12.0, border: int = 2) -> NDArray[np.bool_]:
    """Foreground mask without network weights: pixels far (CIEDE2000 > ``threshold``) from the
    background, modelled as the per-row/column median of the border; then opening/closing, the
    largest connected component and hole filling (scipy.ndimage)."""
    from scipy import ndimage

    img = np.asarray(image)
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
    fg = ndimage.binary_opening(fg, iterations=1)
    fg = ndimage.binary_closing(fg, iterations=2)
    labels, n = ndimage.label(fg)
    if n == 0:
        return np.zeros((h, w), dtype=bool)
    sizes = ndimage.sum(fg, labels, index=range(1, n + 1))
    keep = labels == (int(np.argmax(sizes)) + 1)
    return ndimage.binary_fill_holes(keep)
