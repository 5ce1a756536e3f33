"""Image helpers shared by benchmarks and adapters: safe loading, RGB conversion, concatenation."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from huebench.errors import HuebenchError
from huebench.paths import resolve_under

__all__ = [
    "DEFAULT_MAX_PIXELS",
    "ImageLoadError",
    "check_pixels",
    "concat_horizontal",
    "load_image",
    "max_pixels",
    "resolve_under",
    "rle_decode",
    "rle_encode",
    "to_rgb",
]

#: The pixel budget of any image huebench decodes: 40 megapixels (e.g. 7746×5164), far above what
#: any benchmark needs and small enough that one image costs at most a few hundred MB once decoded.
#: Set ``HUEBENCH_MAX_PIXELS`` (a positive whole number of pixels) to change it; it is read each
#: time an image is checked, so it may be set after huebench is imported.
DEFAULT_MAX_PIXELS = 40_000_000
ENV_MAX_PIXELS = "HUEBENCH_MAX_PIXELS"


class ImageLoadError(HuebenchError, ValueError):
    """An image could not be read; the message says which file and why."""


def max_pixels() -> int:
    """The pixel budget now: ``HUEBENCH_MAX_PIXELS`` if set (and not empty), else :data:`DEFAULT_MAX_PIXELS`."""
    raw = os.environ.get(ENV_MAX_PIXELS)
    if raw is None or not raw.strip():
        return DEFAULT_MAX_PIXELS
    try:
        value = int(raw.strip())
    except ValueError:
        value = 0
    if value <= 0:
        raise HuebenchError(
            f"{ENV_MAX_PIXELS}={raw!r} is not a pixel budget: give a positive whole number of pixels "
            f"(e.g. 40000000), or unset it for the default of {DEFAULT_MAX_PIXELS}"
        )
    return value


def check_pixels(width: int, height: int, where: str, *, limit: int | None = None) -> None:
    """Refuse a ``width``×``height`` image above the pixel budget (call it before decoding)."""
    limit = max_pixels() if limit is None else limit
    if width * height > limit:
        raise ImageLoadError(
            f"{where}: {width}×{height} image ({width * height} pixels) exceeds the {limit}-pixel limit; "
            f"downscale it, or raise {ENV_MAX_PIXELS} if you trust the file"
        )


def _allow_in_pil(limit: int) -> None:
    """PIL refuses (DecompressionBombError) images above twice ``Image.MAX_IMAGE_PIXELS`` when it
    opens them; raise its threshold to ours so our budget, with its message, is what decides."""
    current = Image.MAX_IMAGE_PIXELS
    if current is not None and current < limit:
        Image.MAX_IMAGE_PIXELS = limit


def _rawmodes(img: Image.Image) -> list[str]:
    out = []
    for tile in getattr(img, "tile", None) or []:
        args = tile[3] if len(tile) > 3 else None
        if isinstance(args, tuple) and args and isinstance(args[0], str):
            args = args[0]
        if isinstance(args, str):
            out.append(args)
    return out


def _integer_white(img: Image.Image) -> int | str:
    """The value that means white in an integer (``I``/``I;16*``) image, from its declared bit
    depth; a string says why it cannot be known. Read it before ``load()``: the tile then still
    names the file's raw layout."""
    if img.mode.startswith("I;16"):
        return 65535
    for raw in _rawmodes(img):
        m = re.fullmatch(r"I;(\d+)([A-Z]*)", raw)
        if m:
            if "S" in m.group(2):
                return f"signed {m.group(1)}-bit integer samples have no nominal white"
            return 2 ** int(m.group(1)) - 1
    fmt = getattr(img, "format", None)
    if fmt in ("PNG", "PPM"):
        return 65535  # PNG integers are at most 16-bit; Pillow scales deeper PGM/PPM to 16 bits
    if fmt == "TIFF":
        tags = getattr(img, "tag_v2", {})
        bits, sample_format = tags.get(258), tags.get(339, 1)
        bits = bits[0] if isinstance(bits, tuple) else bits
        sample_format = sample_format[0] if isinstance(sample_format, tuple) else sample_format
        if sample_format == 2:
            return f"signed {bits}-bit integer samples have no nominal white"
        if isinstance(bits, int) and 0 < bits <= 32:
            return 2**bits - 1
    return f"a 32-bit integer image{f' ({fmt})' if fmt else ''} without a declared bit depth"


def _integer_to_8bit(arr: np.ndarray, white: int) -> np.ndarray:
    # the top 8 bits of each value: v >> 8 for 16-bit samples, as Pillow decodes 16-bit colour
    v = np.clip(arr.astype(np.int64), 0, white)
    return np.minimum(v * 256 // (white + 1), 255).astype(np.uint8)


def _on_white(rgba: Image.Image) -> Image.Image:
    background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(background, rgba).convert("RGB")


def to_rgb(img: Image.Image, *, white: int | str | None = None) -> Image.Image:
    """8-bit RGB from any mode, the same input value always giving the same output:

    - transparency (an alpha channel, or a ``transparency`` colour of a P, L, RGB or 16-bit grey
      image) is composited on white; palettes are expanded; CMYK and the like go through Pillow;
    - 16-bit samples (``I;16*`` grey, and ``I`` images whose file declares 16 bits, e.g. a 16-bit
      PNG or PGM) keep their top 8 bits, ``v >> 8``: Pillow decodes 16-bit colour PNGs/TIFFs that
      way, so a grey file and a colour file of the same values agree (within one level of
      ``round(v·255/65535)``). Other declared depths ``b`` likewise: ``v·256 // 2**b``;
    - 32-bit integer (``I``) images are converted by their declared bit depth (``white``, else
      read from the image's format: PNG/PPM → 16 bits, TIFF → BitsPerSample); signed samples or
      an unknown depth are refused (:class:`ImageLoadError`) rather than guessed;
    - float (``F``) images are taken as nominal 0–1 (0 black, 1 white): values are clipped to
      that range and rounded to ``round(v·255)``; NaN pixels are refused.

    ``white`` is the value of white for integer images when the caller knows it (``load_image``
    reads it from the file's header before decoding), or a string saying why it is unknown.
    """
    if img.mode == "RGB" and "transparency" not in img.info:
        return img
    if img.mode in ("I", "I;16", "I;16B", "I;16L", "I;16N"):
        white = _integer_white(img) if white is None else white
        if isinstance(white, str):
            raise ImageLoadError(
                f"cannot convert this {img.mode}-mode image to 8-bit: {white}; save it as an 8- or 16-bit PNG"
            )
        arr = np.asarray(img)
        grey = Image.fromarray(_integer_to_8bit(arr, white), "L")
        t = img.info.get("transparency")
        if isinstance(t, int) and not isinstance(t, bool):
            alpha = np.where(arr == t, 0, 255).astype(np.uint8)
            return _on_white(Image.merge("RGBA", (grey, grey, grey, Image.fromarray(alpha, "L"))))
        return grey.convert("RGB")
    if img.mode == "F":
        arr = np.asarray(img, dtype=np.float64)
        if np.isnan(arr).any():
            raise ImageLoadError("cannot convert a float (F-mode) image to 8-bit: it has NaN pixels")
        return Image.fromarray(np.floor(np.clip(arr, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8), "L").convert("RGB")
    if img.mode in ("RGBA", "RGBa", "LA", "PA") or (
        img.mode in ("P", "L", "RGB") and img.info.get("transparency") is not None
    ):
        return _on_white(img.convert("RGBA"))
    return img.convert("RGB")


def _bomb_pixels(exc: Exception) -> str:
    m = re.search(r"\((\d+) pixels\)", str(exc))
    return f"{m.group(1)} pixels" if m else "its size"


def load_image(path: str | os.PathLike[str]) -> Image.Image:
    """Open an image, refuse it above the pixel budget (:func:`max_pixels`) from its header —
    before anything is decoded — then decode it fully (so truncation is caught here), apply EXIF
    orientation and return 8-bit RGB (:func:`to_rgb`: 16-bit and float images by their bit depth)."""
    p = Path(path)
    limit = max_pixels()
    if not p.is_file():
        raise ImageLoadError(f"{p}: image file not found")
    if p.stat().st_size == 0:
        raise ImageLoadError(f"{p}: image file is empty (0 bytes)")
    _allow_in_pil(limit)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im = Image.open(p)  # reads the header only
    except Image.DecompressionBombError as exc:
        raise ImageLoadError(
            f"{p}: image ({_bomb_pixels(exc)}) exceeds the {limit}-pixel limit; "
            f"downscale it, or raise {ENV_MAX_PIXELS} if you trust the file"
        ) from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise ImageLoadError(f"{p}: cannot decode image ({type(exc).__name__}: {exc})") from None
    with im:
        check_pixels(im.width, im.height, str(p), limit=limit)
        white: Any = _integer_white(im) if im.mode.startswith("I") else None
        try:
            im.load()
            return to_rgb(ImageOps.exif_transpose(im), white=white)
        except ImageLoadError as exc:
            raise ImageLoadError(f"{p}: {exc}") from None
        except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
            raise ImageLoadError(f"{p}: cannot decode image ({type(exc).__name__}: {exc})") from None


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
    scaled = [
        im if im.height == h else im.resize((round(im.width * h / im.height), h), Image.Resampling.BICUBIC)
        for im in images
    ]
    w = sum(im.width for im in scaled) + gap * (len(scaled) - 1)
    canvas = Image.new("RGB", (w, h), background)
    x = 0
    for im in scaled:
        canvas.paste(to_rgb(im), (x, 0))
        x += im.width + gap
    return canvas


def rle_encode(mask: np.ndarray) -> dict[str, Any]:
    """Run lengths of a boolean mask in C order, starting with a (possibly empty) run of False."""
    flat = np.asarray(mask, dtype=bool).ravel()
    if flat.size == 0:
        return {"shape": list(np.shape(mask)), "runs": []}
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    runs = np.diff(np.concatenate([[0], change, [flat.size]])).tolist()
    if flat[0]:
        runs = [0, *runs]
    return {"shape": list(np.shape(mask)), "runs": runs}


def rle_decode(rle: dict[str, Any]) -> np.ndarray:
    runs = np.asarray(rle["runs"], dtype=np.int64)
    values = (np.arange(len(runs)) % 2).astype(bool)
    return np.repeat(values, runs).reshape(rle["shape"])
