"""Real photographs with hand-made object masks, to check that the GenColorBench scorer never invents colour.

``data/photo_objects.json`` lists objects in scikit-image's bundled sample photos (``skimage.data``:
astronaut, coffee, chelsea, stereo_motorcycle), each with its material, the plain colour name a person
would give it, and one or more polygons drawn a few pixels inside the object's edges (their union is
the mask; ``[x, y]`` = column, row). ``stereo_motorcycle`` returns (left, right, disparity): the masks
are drawn on the left view. Loading the images needs scikit-image (no download: the files ship with it).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

import numpy as np

from huebench.errors import HuebenchError

__all__ = ["load_photo_objects", "photo_object"]


@functools.cache
def _entries() -> tuple[dict[str, Any], ...]:
    text = resources.files("huebench.benchmarks.gencolor").joinpath("data").joinpath("photo_objects.json")
    return tuple(json.loads(text.read_text(encoding="utf-8")))


def load_photo_objects() -> list[dict]:
    """The entries of ``data/photo_objects.json`` (image, object, material, color, polygons); a fresh copy."""
    return json.loads(json.dumps(_entries()))


@functools.lru_cache(maxsize=8)
def _photo(name: str) -> np.ndarray:
    import skimage.data

    image = getattr(skimage.data, name)()
    if isinstance(image, tuple):  # stereo_motorcycle: (left, right, disparity)
        image = image[0]
    image = np.asarray(image)
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=-1)
    return np.ascontiguousarray(image[..., :3], dtype=np.uint8)


def photo_object(entry: dict) -> tuple[np.ndarray, np.ndarray]:
    """The entry's photograph (uint8, H×W×3, any alpha dropped) and its mask (bool, H×W, union of the polygons)."""
    try:
        import skimage.data
        from skimage.draw import polygon
    except ImportError as exc:
        raise HuebenchError("real-photo objects need scikit-image: pip install scikit-image") from exc
    name = entry["image"]
    if getattr(skimage.data, name, None) is None:
        raise HuebenchError(f"photo object {entry.get('object')!r}: skimage.data has no image {name!r}")
    image = _photo(name).copy()
    mask = np.zeros(image.shape[:2], dtype=bool)
    for points in entry["polygons"]:
        xy = np.asarray(points, dtype=float)
        rows, cols = polygon(xy[:, 1], xy[:, 0], shape=mask.shape)
        mask[rows, cols] = True
    return image, mask
