"""huebench's colour-science core: parsing, conversions, differences, dominant colour, systems.

Public API (stable names used across huebench and by external checks)::

    parse(spec)                       -> Color
    srgb_to_lab(rgb), lab_to_srgb(lab)
    delta_e(lab1, lab2, method="ciede2000" | "cie76")
    delta_chroma(lab1, lab2), delta_hue(lab1, lab2)
    srgb_delta_e(rgb, lab)            -> delta_e(srgb_to_lab(rgb), lab), one kernel for 8-bit images
    three_differences(labs, lab)      -> (ΔE00, Δchroma, Δhue) of many colours against one, one call
    within_and_nearer(lab, a, b, t)   -> (ΔE00(a, b), which colours are within t of a and nearer a than b)
    dominant_color(lab_pixels)        -> DominantColor
    load_system(name)                 -> ColorSystem  ("basic", "iscc-nbs-l1/l2/l3", "css3")
    relation(a, b)                    -> "adjacent" | "complementary" | "other"
    looks_glossy(rgb8), specular_veil(image, mask), fit_veil(rgb8, veil)
    remove_specular(rgb8, method="fitted-floor" | "fresnel-veil")
    diffuse_reconstruction(rgb8, method="diffuse-line")
    recolor(image, hue_shift, mask=None, method="lch" | "hsv") -> Recoloring

Reflectance (gloss test, Fresnel veil, dichromatic fit, the colour of the light): :mod:`huebench.color.reflectance`.
"""

from huebench.color.conversions import (
    lab_to_lch,
    lab_to_srgb,
    lab_to_xyz,
    lch_to_lab,
    linear_rgb_to_xyz,
    linear_to_srgb,
    linear_to_srgb8,
    srgb8_to_linear,
    srgb_to_lab,
    srgb_to_linear,
    xyz_to_lab,
    xyz_to_linear_rgb,
)
from huebench.color.difference import (
    HUE_CHROMA_THRESHOLD,
    delta_chroma,
    delta_e,
    delta_hue,
    srgb_delta_e,
    three_differences,
    within_and_nearer,
)
from huebench.color.dominant import DominantColor, dominant_color
from huebench.color.parsing import Color, ColorLike, parse
from huebench.color.recolor import RECOLOR_METHODS, Recoloring, recolor
from huebench.color.reflectance import (
    DIFFUSE_RECONSTRUCTION_METHODS,
    SPECULAR_REMOVAL_METHODS,
    albedo_saturation,
    diffuse_reconstruction,
    fit_veil,
    light_colour,
    looks_glossy,
    remove_specular,
    remove_veil,
    specular_veil,
    surface_looks_glossy,
)
from huebench.color.systems import SYSTEM_NAMES, ColorSystem, NamedColor, load_system, normalize_name
from huebench.color.wheel import basic_terms, relation

__all__ = [
    "DIFFUSE_RECONSTRUCTION_METHODS",
    "HUE_CHROMA_THRESHOLD",
    "RECOLOR_METHODS",
    "SPECULAR_REMOVAL_METHODS",
    "SYSTEM_NAMES",
    "Color",
    "ColorLike",
    "ColorSystem",
    "DominantColor",
    "NamedColor",
    "Recoloring",
    "albedo_saturation",
    "basic_terms",
    "delta_chroma",
    "delta_e",
    "delta_hue",
    "diffuse_reconstruction",
    "dominant_color",
    "fit_veil",
    "lab_to_lch",
    "lab_to_srgb",
    "lab_to_xyz",
    "lch_to_lab",
    "light_colour",
    "linear_rgb_to_xyz",
    "linear_to_srgb",
    "linear_to_srgb8",
    "load_system",
    "looks_glossy",
    "normalize_name",
    "parse",
    "recolor",
    "relation",
    "remove_specular",
    "remove_veil",
    "specular_veil",
    "srgb8_to_linear",
    "srgb_delta_e",
    "srgb_to_lab",
    "srgb_to_linear",
    "surface_looks_glossy",
    "three_differences",
    "within_and_nearer",
    "xyz_to_lab",
    "xyz_to_linear_rgb",
]
