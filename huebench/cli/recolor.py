"""``huebench recolor``: turn the hue of an image, or of a masked object in it."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def recolor_command(
    image: Path = typer.Argument(..., help="An image file (any format Pillow reads)."),
    hue_shift: float = typer.Option(..., "--hue-shift", help="Degrees to turn the hue by (e.g. 90, 180, 270)."),
    mask: Path | None = typer.Option(
        None, "--mask", help="Only recolour the object: a mask image of the same size, non-zero = object."
    ),
    space: str = typer.Option(
        "lch",
        "--space",
        help="lch: turn the CIELCh hue at constant L* and C* (chroma reduced where sRGB cannot show the colour); "
        "hsv: turn HSV's hue as ColorBench does (lightness changes with it).",
    ),
    out: Path = typer.Option(..., "--out", help="The recoloured image: a new PNG file."),
    as_json: bool = typer.Option(False, "--json", help="Print what the edit did as JSON."),
) -> None:
    """Recolour an image: its hue turned by --hue-shift degrees, in CIELCh (perceptual) or HSV; prints
    the edit's mean ΔE00, mean |ΔL*| and the share of pixels whose chroma was reduced to fit sRGB."""
    import numpy as np
    from PIL import Image

    from huebench.color.recolor import RECOLOR_METHODS, recolor
    from huebench.images import load_image

    if space not in RECOLOR_METHODS:
        from huebench._suggest import suggestion_text

        raise typer.BadParameter(
            f"--space {space!r} unknown.{suggestion_text(space, list(RECOLOR_METHODS))} Use {' or '.join(RECOLOR_METHODS)}"
        )
    if out.exists():
        raise typer.BadParameter(f"--out {out} exists; give a new file")
    if out.suffix.lower() != ".png":
        raise typer.BadParameter(f"--out {out}: write a .png file (a lossy format would change the colours again)")
    img = np.asarray(load_image(image))
    m = None if mask is None else np.asarray(load_image(mask).convert("L")) > 0
    if m is not None and m.shape != img.shape[:2]:
        raise typer.BadParameter(
            f"--mask {mask} is {m.shape[1]}×{m.shape[0]} pixels, the image {img.shape[1]}×{img.shape[0]}: give a mask of the image's size"
        )
    result = recolor(img, hue_shift, mask=m, method=space)
    out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(result.image).save(out, format="PNG")
    summary = {**result.summary(), "image": str(image), "out": str(out)}
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    typer.echo(
        f"recoloured {result.pixels:,} pixels of {image} by {hue_shift:g}° in {space}: ΔE00 mean {result.delta_e00_mean:.2f} "
        f"(max {result.delta_e00_max:.2f}), |ΔL*| mean {result.delta_l_mean:.2f}, chroma reduced to fit sRGB on "
        f"{100 * result.gamut_mapped:.1f} % of them; written to {out}"
    )
