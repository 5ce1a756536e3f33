"""Image helpers shared by benchmarks and adapters: safe loading, RGB conversion, concatenation."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from huebench.errors import HuebenchError

__all__ = ["MAX_PIXELS", "ImageLoadError", "concat_horizontal", "load_image", "resolve_under", "to_rgb"]

#: Refuse images above this many pixels (decompression bombs); override with HUEBENCH_MAX_PIXELS.
MAX_PIXELS = int(os.environ.get("HUEBENCH_MAX_PIXELS", 16384 * 16384))


class ImageLoadError(HuebenchError, ValueError):
    """An image could not be read; the message says which file and why."""


def to_rgb(img: Image.Image) -> Image.Image:
    """8-bit RGB from any mode: alpha composited on white, palette expanded, CMYK/16-bit converted."""
    if img.mode == "RGB":
        return img
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(background, rgba).convert("RGB")
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        arr = np.asarray(img, dtype=np.float64)
        scale = 65535.0 if arr.max() > 255 else 255.0
        return Image.fromarray(np.clip(arr / scale * 255.0 + 0.5, 0, 255).astype(np.uint8)).convert("RGB")
    return img.convert("RGB")


def load_image(path: str | os.PathLike[str]) -> Image.Image:
    """Open an image fully (so truncation is caught here), apply EXIF orientation, return RGB."""
    p = Path(path)
    if not p.is_file():
        raise ImageLoadError(f"{p}: image file not found")
    if p.stat().st_size == 0:
        raise ImageLoadError(f"{p}: image file is empty (0 bytes)")
    try:
        with Image.open(p) as im:
            if im.width * im.height > MAX_PIXELS:
                raise ImageLoadError(
                    f"{p}: {im.width}×{im.height} exceeds the {MAX_PIXELS}-pixel limit (HUEBENCH_MAX_PIXELS)"
                )
            im.load()
            im = ImageOps.exif_transpose(im)
            return to_rgb(im)
    except ImageLoadError:
        raise
    except (OSError, ValueError, Image.DecompressionBombError, SyntaxError) as exc:
        raise ImageLoadError(f"{p}: cannot decode image ({type(exc).__name__}: {exc})") from None


def resolve_under(root: str | os.PathLike[str], relative: str, *, what: str = "path") -> Path:
    """Join ``relative`` to ``root`` and refuse results outside ``root`` (``../``, absolute paths)."""
    base = Path(root).resolve()
    rel = Path(relative)
    if rel.is_absolute():
        raise HuebenchError(f"{what} {relative!r} is absolute; manifest paths must be relative to {base}")
    target = (base / rel).resolve()
    if target != base and base not in target.parents:
        raise HuebenchError(f"{what} {relative!r} escapes the data root {base}")
    return target


def concat_horizontal(
    images: Sequence[Image.Image], *, gap: int = 16, background: tuple[int, int, int] = (255, 255, 255)
) -> Image.Image:
    """Images side by side (heights matched to the tallest, aspect kept) with a white gap.

    Used for VLMs that take one image per prompt (ColorSwap App. C: "the first/second image"
    become the left/right halves).
    """
    if not images:
        raise ValueError("no images to concatenate")
    h = max(im.height for im in images)
    scaled = [im if im.height == h else im.resize((round(im.width * h / im.height), h), Image.BICUBIC) for im in images]
    w = sum(im.width for im in scaled) + gap * (len(scaled) - 1)
    canvas = Image.new("RGB", (w, h), background)
    x = 0
    for im in scaled:
        canvas.paste(to_rgb(im), (x, 0))
        x += im.width + gap
    return canvas
