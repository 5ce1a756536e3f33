"""Perceptual (CIELCh) recolouring against HSV's on real photographs (scikit-image's samples).

    python perf/recolor_study.py

For each photograph and hue turn of 90°, 180° and 270° over the whole image: the mean |ΔL*| and the
mean ΔE00 of the edit per pixel for both methods, and the share of pixels whose chroma the CIELCh
method reduced to fit sRGB. docs/color.md ("Recolouring") shows the table.
"""

from __future__ import annotations

import numpy as np

from huebench.color import recolor

PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "stereo_motorcycle", "immunohistochemistry", "retina")


def main() -> None:
    from skimage import data

    rows = []
    print(
        "| photo | turn | mean abs ΔL*, HSV | mean abs ΔL*, CIELCh | ΔE00, HSV | ΔE00, CIELCh | chroma reduced (CIELCh) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in PHOTOS:
        img = getattr(data, name)()
        img = (img[0] if isinstance(img, tuple) else img)[..., :3].astype(np.uint8)
        for shift in (90, 180, 270):
            hsv, lch = recolor(img, shift, method="hsv"), recolor(img, shift, method="lch")
            rows.append((hsv.delta_l_mean, lch.delta_l_mean, hsv.delta_e00_mean, lch.delta_e00_mean, lch.gamut_mapped))
            print(
                f"| {name} | {shift}° | {hsv.delta_l_mean:.2f} | {lch.delta_l_mean:.2f} | {hsv.delta_e00_mean:.2f} | "
                f"{lch.delta_e00_mean:.2f} | {100 * lch.gamut_mapped:.1f} % |"
            )
    r = np.array(rows)
    print(
        f"| **mean** | | **{r[:, 0].mean():.2f}** | **{r[:, 1].mean():.2f}** | {r[:, 2].mean():.2f} | "
        f"{r[:, 3].mean():.2f} | {100 * r[:, 4].mean():.1f} % |"
    )


if __name__ == "__main__":
    main()
