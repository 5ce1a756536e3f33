"""What the known-colour probes show a model: objects of exact albedo and flat patches, reproducibly.

Objects are GenColorBench's Mitsuba renders (:mod:`huebench.benchmarks.gencolor.render`: 15 shapes,
diffuse and glossy, grey-card exposure, exact masks), with two additions made there for this
benchmark: a coloured light (every emitter scaled by the light's linear-sRGB colour) and a coloured
floor and backdrop. Flat patches are a square of the albedo on a uniform surround.

**Lights.** D65 is sRGB's white, (1, 1, 1). A, 10,000 K and the green tint are the colours of
:data:`huebench.benchmarks.gencolor.families.ILLUMINANTS`: CIE xy chromaticities from colour-science
(A: the CIE standard illuminant; 10,000 K: the CIE daylight locus at that temperature; green: D65
moved to xy (0.31, 0.36)) taken to linear sRGB and scaled to luminance 1, so the grey-card exposure
stays right. In an RGB renderer a light of colour L multiplies every channel of the image by L.

**Camera white balance.** Grey world on the raw (linear, unclipped) image, as a camera balances its
raw data before encoding: gains ``Y(mean) / mean`` per channel. It is an estimate from the picture,
not the light's true colour: the object's own colour pulls it, as it pulls a real camera's.

**The colour an image shows** (``shown``): a flat, lit, diffuse patch of the albedo in that image —
albedo × light × white-balance gains — the truth of GenColorBench's illuminant family.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from huebench.benchmarks.gencolor.families import ILLUMINANTS
from huebench.benchmarks.gencolor.render import BACKGROUNDS, OBJECTS, RenderSpec, render_radiance
from huebench.color import (
    lab_to_srgb,
    lch_to_lab,
    linear_rgb_to_xyz,
    linear_to_srgb8,
    srgb8_to_linear,
    srgb_to_linear,
    xyz_to_lab,
)
from huebench.color.conversions import RGB_TO_XYZ
from huebench.errors import HuebenchError

__all__ = [
    "CHROMATIC_SURROUNDS",
    "LEVELS",
    "LIGHTS",
    "NOUNS",
    "REFERENCE_LIGHT",
    "REFERENCE_SURROUND",
    "SURROUNDS",
    "Picture",
    "camera_white_balance",
    "make_picture",
    "sweep_rgb",
]

#: linear-sRGB colour of each light, luminance 1
LIGHTS: dict[str, tuple[float, float, float]] = {
    "D65": (1.0, 1.0, 1.0),
    **{name: ILLUMINANTS[name] for name in ("A", "10000K", "green")},
}
REFERENCE_LIGHT = "D65"

_LUMA = RGB_TO_XYZ[1]
#: chromatic surrounds: CIELAB hue angle; lightness that of the neutral "gray" surround, chroma 40
CHROMATIC_SURROUNDS: dict[str, float] = {"red": 30.0, "yellow": 90.0, "green": 150.0, "blue": 270.0}
SURROUND_CHROMA = 40.0
REFERENCE_SURROUND = "gray"


def _chromatic(hue: float) -> tuple[float, float, float]:
    grey_l = float(xyz_to_lab(linear_rgb_to_xyz(np.full(3, BACKGROUNDS[REFERENCE_SURROUND])))[0])
    srgb = lab_to_srgb(lch_to_lab(np.array([grey_l, SURROUND_CHROMA, hue])))
    r, g, b = (float(v) for v in srgb_to_linear(srgb))
    return (r, g, b)


#: linear-sRGB albedo of every surround: the renderer's three neutral backgrounds and four hues
SURROUNDS: dict[str, tuple[float, float, float]] = {
    **{name: (v, v, v) for name, v in BACKGROUNDS.items()},
    **{name: _chromatic(h) for name, h in CHROMATIC_SURROUNDS.items()},
}

#: the hue sweep's (L*, C*) levels: each C* the largest whole number that keeps all 360 whole-degree
#: hues of its L* inside the sRGB gamut (tests check it), so that no swept colour is clipped
LEVELS: tuple[tuple[float, float], ...] = ((40.0, 25.0), (55.0, 31.0), (70.0, 38.0))

#: the noun of each shape in captions and questions; "patch" is the flat square
NOUNS: dict[str, str] = {
    "sphere": "ball",
    "cube": "cube",
    "glossy-sphere": "ball",
    "torus": "ring",
    "vase": "vase",
    "bottle": "bottle",
    "bowl": "bowl",
    "cylinder": "cylinder",
    "cone": "cone",
    "capsule": "capsule",
    "egg": "egg",
    "pear": "pear",
    "pawn": "chess pawn",
    "bell": "bell",
    "cup": "cup",
    "patch": "square",
}
MATERIALS = {"diffuse": "diffuse", "plastic": "glossy"}


def material(obj: str) -> str:
    return "flat" if obj == "patch" else MATERIALS[OBJECTS[obj].material]


def sweep_rgb(lightness: float, chroma: float, hue: float) -> tuple[int, int, int]:
    """The 8-bit sRGB colour of CIE LCh(ab) (lightness, chroma, hue); refuses one outside the gamut."""
    srgb = lab_to_srgb(lch_to_lab(np.array([lightness, chroma, hue], dtype=np.float64)))
    if np.any(srgb < -1e-9) or np.any(srgb > 1 + 1e-9):
        raise HuebenchError(f"LCh ({lightness}, {chroma}, {hue}) is outside the sRGB gamut")
    r, g, b = (int(v) for v in np.round(np.clip(srgb, 0.0, 1.0) * 255.0))
    return (r, g, b)


def camera_white_balance(radiance: NDArray[np.floating]) -> NDArray[np.float64]:
    """Grey-world gains of a raw (linear, unclipped) image: the mean becomes neutral, its luminance kept."""
    means = np.asarray(radiance, dtype=np.float64).reshape(-1, 3).mean(axis=0)
    return np.asarray(float(means @ _LUMA) / np.maximum(means, 1e-9), dtype=np.float64)


@dataclass(frozen=True)
class Picture:
    image: NDArray[np.uint8]  # H×W×3 sRGB, what the model sees
    mask: NDArray[np.bool_]  # the object (or patch), exactly
    shown: tuple[int, int, int]  # the colour a flat, lit patch of the albedo shows in this image
    gains: tuple[float, float, float]  # the camera's white-balance gains ((1, 1, 1) without)


def _entry(radiance: NDArray[np.floating], mask: NDArray[np.bool_]) -> dict[str, np.ndarray]:
    """Both encodings of one raw image — as recorded, and after the camera's white balance."""
    raw = np.asarray(radiance, dtype=np.float32).astype(np.float64)  # float32 always: a cached entry is the same
    gains = camera_white_balance(raw)
    return {
        "image": linear_to_srgb8(raw),
        "balanced": linear_to_srgb8(raw * gains),
        "mask": np.asarray(mask, dtype=bool),
        "gains": gains,
    }


def _flat(rgb: tuple[int, int, int], surround: str, light: tuple[float, float, float], size: int) -> dict[str, Any]:
    """A square of the albedo (half the side) on a uniform surround, under ``light``."""
    radiance = np.empty((size, size, 3), dtype=np.float64)
    radiance[:] = np.asarray(SURROUNDS[surround]) * light
    mask = np.zeros((size, size), dtype=bool)
    lo, hi = size // 4, size - size // 4
    mask[lo:hi, lo:hi] = True
    radiance[mask] = srgb8_to_linear(np.asarray(rgb, dtype=np.uint8)) * light
    return _entry(radiance, mask)


def render_params(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """What a render depends on: the key of its cache entry (the white balance is made from it)."""
    return {k: inputs[k] for k in ("object", "rgb", "lighting", "background", "light", "size", "spp", "render_seed")}


def _render(inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
    surround = inputs["background"]
    neutral = surround in BACKGROUNDS
    spec = RenderSpec(
        inputs["object"],
        tuple(inputs["rgb"]),
        inputs["lighting"],
        surround if neutral else REFERENCE_SURROUND,  # a chromatic backdrop keeps the grey's exposure
        int(inputs["size"]),
        int(inputs["spp"]),
        seed=int(inputs["render_seed"]),
    )
    radiance, mask = render_radiance(
        spec, light=LIGHTS[inputs["light"]], backdrop=None if neutral else SURROUNDS[surround]
    )
    return _entry(radiance, mask)


def make_picture(inputs: Mapping[str, Any], cache: Any) -> Picture:
    """The picture of a sample (its inputs: ``kind``, ``object``, ``rgb``, ``background``, ``light``,
    ``white_balance``, ``size`` and, for objects, ``lighting``, ``spp``, ``render_seed``); renders
    come from ``cache`` (a :class:`~huebench.benchmarks.known_colors.cache.RenderCache`)."""
    light = LIGHTS[inputs["light"]]
    rgb = (int(inputs["rgb"][0]), int(inputs["rgb"][1]), int(inputs["rgb"][2]))
    if inputs["kind"] == "flat":
        entry = _flat(rgb, inputs["background"], light, int(inputs["size"]))
    else:
        entry = cache.get(render_params(inputs), lambda: _render(inputs))
    balanced = bool(inputs["white_balance"])
    gains = np.asarray(entry["gains"], dtype=np.float64) if balanced else np.ones(3)
    shown = linear_to_srgb8(srgb8_to_linear(np.asarray(rgb, dtype=np.uint8)) * np.asarray(light) * gains)
    return Picture(
        image=entry["balanced"] if balanced else entry["image"],
        mask=entry["mask"],
        shown=(int(shown[0]), int(shown[1]), int(shown[2])),
        gains=(float(gains[0]), float(gains[1]), float(gains[2])),
    )
