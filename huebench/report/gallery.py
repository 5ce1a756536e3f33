"""Galleries for reports: one card per item (an image with its mask outline, colour swatches, the
metrics against their thresholds, the reason), filterable and sortable in the browser, failures
first. :class:`~huebench.report.html.Section` carries them (``gallery=``); the page template
escapes every field.

Thumbnails are PNG ``data:`` URIs (:func:`thumbnail_uri`), so a report stays one self-contained
file that opens offline."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from huebench.errors import HuebenchError
from huebench.report.svg import safe_hex

__all__ = ["GalleryItem", "Metric", "file_thumbnail", "lab_hex", "order_failures_first", "thumbnail_uri"]

#: the largest side of a thumbnail; the page shows every thumbnail 128 px wide
THUMB_SIDE = 128
#: outline colours tried for a mask; the one farthest from the object's median colour is drawn
_OUTLINES = ((255, 0, 255), (0, 255, 255), (255, 255, 0), (0, 0, 0))


@dataclass(frozen=True)
class Metric:
    """One measured value against its threshold (``passed`` says which side it is on)."""

    name: str
    value: float | None
    threshold: float | None
    passed: bool

    def text(self) -> str:
        v = "n/a" if self.value is None or self.value != self.value else f"{self.value:.2f}"
        if self.threshold is None:
            return f"{self.name} {v}"
        return f"{self.name} {v} {'≤' if self.passed else '>'} {self.threshold:g}"


@dataclass
class GalleryItem:
    """One card of a gallery.

    ``passed``: None for items that are neither (shown as "n/a"); ``images``: PNG data URIs
    (:func:`thumbnail_uri`), side by side (a pair's two images); ``swatches``: (label, "#rrggbb");
    ``tags``: short facts shown on the card and searched by the filter (family, object, step …);
    ``sort_key``: how bad the item is, larger first when sorting by it (e.g. the worst metric over
    its threshold)."""

    title: str
    passed: bool | None
    reason: str = ""
    images: list[str] = field(default_factory=list)
    swatches: list[tuple[str, str]] = field(default_factory=list)
    metrics: list[Metric] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    sort_key: float = 0.0

    def __post_init__(self) -> None:
        # colours go into style attributes: only '#rrggbb' codes (anything else could fetch a URL)
        self.swatches = [(label, safe_hex(c) or "#dddddd") for label, c in self.swatches]
        if any(not uri.startswith("data:image/png;base64,") for uri in self.images):
            raise ValueError("gallery images are PNG data: URIs (thumbnail_uri): a report fetches nothing")

    @property
    def status(self) -> str:
        return "n/a" if self.passed is None else ("pass" if self.passed else "fail")

    @property
    def search_text(self) -> str:
        return " ".join([self.title, self.status, self.reason, *self.tags.values()]).lower()


def order_failures_first(items: Sequence[GalleryItem]) -> list[GalleryItem]:
    """Failures first (worst first), then the rest in their order."""
    ranked = sorted(enumerate(items), key=lambda t: (t[1].passed is not False, -t[1].sort_key, t[0]))
    return [it for _, it in ranked]


def _outline(mask: np.ndarray) -> np.ndarray:
    from scipy import ndimage

    return mask & ~ndimage.binary_erosion(mask, iterations=1, border_value=0)


def thumbnail_uri(image: ArrayLike, mask: ArrayLike | None = None, *, side: int = THUMB_SIDE) -> str:
    """A PNG ``data:`` URI of an H×W×3 8-bit image, shrunk to at most ``side`` pixels (smaller images
    stay as they are: the page enlarges them with whole pixels), with the mask's outline drawn in a
    colour that stands out from the object."""
    from PIL import Image

    img = np.asarray(image)
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"expected an H×W×3 image, got shape {img.shape}")
    img = img.astype(np.uint8, copy=False)
    m = None if mask is None else np.asarray(mask).astype(bool)
    if m is not None and m.shape != img.shape[:2]:
        raise ValueError(f"mask shape {m.shape} does not match image {img.shape[:2]}")
    h, w = img.shape[:2]
    if max(h, w) > side:  # shrink the image smoothly and the mask by nearest pixels
        scale = side / max(h, w)
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        img = np.asarray(Image.fromarray(img).resize(size, Image.Resampling.BOX))
        if m is not None:
            m = np.asarray(Image.fromarray(m.astype(np.uint8) * 255).resize(size, Image.Resampling.NEAREST)) > 127
    if m is not None and m.any():
        img = img.copy()
        body = np.median(img[m].reshape(-1, 3), axis=0)
        ink = max(_OUTLINES, key=lambda c: float(np.abs(np.asarray(c) - body).sum()))
        img[_outline(m)] = ink
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def file_thumbnail(path: str | Path) -> str | None:
    """:func:`thumbnail_uri` of an image file, or None when it cannot be read (moved or damaged
    since the run: a card still says what was decided)."""
    from huebench.images import load_image

    try:
        return thumbnail_uri(np.asarray(load_image(path).convert("RGB")))
    except (OSError, ValueError, HuebenchError):
        return None


def lab_hex(lab: Sequence[float] | Any) -> str | None:
    """'#RRGGBB' of a CIELAB colour (clipped to sRGB), or None when there is none."""
    from huebench.color import Color, lab_to_srgb

    if lab is None or len(lab) != 3:
        return None
    r, g, b = (float(v) for v in lab_to_srgb(np.asarray(lab, dtype=np.float64), clip=True))
    return Color((r, g, b)).hex
