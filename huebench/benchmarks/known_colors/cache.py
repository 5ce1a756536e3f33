"""Renders cached on disk by their render parameters, so that a second model's run renders nothing.

A Mitsuba render is a pure function of its parameters (object, albedo, lighting set-up, background or
backdrop, light, size, samples per pixel, seed) and of the renderer's code. The key of an entry is
the SHA-256 of those parameters, the sources of the modules that turn them into pixels
(``gencolor/render.py`` and ``known_colors/stimuli.py``) and Mitsuba's version: editing either module
or upgrading Mitsuba starts afresh instead of serving stale pictures.

Where: ``$HUEBENCH_RENDER_CACHE``, else ``$XDG_CACHE_HOME/huebench/renders`` (``~/.cache/…``);
``HUEBENCH_RENDER_CACHE=off`` renders every time. One ``.npz`` file per render (8-bit images, mask,
white-balance gains), written atomically, so runs in parallel may share the folder. A file that no
longer reads is rendered again and replaced.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from huebench.errors import HuebenchError

__all__ = ["ENV", "RenderCache", "default_render_cache"]

log = logging.getLogger(__name__)

ENV = "HUEBENCH_RENDER_CACHE"
#: the arrays an entry holds
FIELDS = ("image", "balanced", "mask", "gains")


def default_render_cache() -> RenderCache:
    """The cache ``$HUEBENCH_RENDER_CACHE`` names (``off``: none), else the per-user one."""
    env = os.environ.get(ENV, "").strip()
    if env.lower() == "off":
        return RenderCache(None)
    if env:
        return RenderCache(Path(env))
    return RenderCache(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "huebench" / "renders")


@functools.cache
def _code_version() -> str:
    """The renderer's identity: the sources that turn parameters into pixels, and Mitsuba's version."""
    from importlib import metadata

    from huebench.benchmarks.gencolor import render
    from huebench.benchmarks.known_colors import stimuli

    h = hashlib.sha256()
    for module in (render, stimuli):
        h.update(Path(str(module.__file__)).read_bytes())
    try:
        h.update(metadata.version("mitsuba").encode())
    except metadata.PackageNotFoundError:
        h.update(b"no mitsuba")
    return h.hexdigest()[:16]


class RenderCache:
    """``get(params, make)``: the stored entry for ``params``, or ``make()``'s, stored. ``RenderCache(None)``
    stores nothing. ``renders`` counts the entries made (not found) in this process."""

    def __init__(self, root: Path | None):
        self.root = root
        self.renders = 0
        self.hits = 0
        if root is not None:
            try:
                root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise HuebenchError(
                    f"render cache {root}: cannot create it ({exc.strerror or exc}); set {ENV} to a writable "
                    f"folder, or {ENV}=off to render every time"
                ) from exc

    def key(self, params: dict[str, Any]) -> str:
        blob = json.dumps({"params": params, "code": _code_version()}, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    def path(self, params: dict[str, Any]) -> Path | None:
        if self.root is None:
            return None
        k = self.key(params)
        return self.root / k[:2] / f"{k}.npz"

    def get(self, params: dict[str, Any], make: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
        path = self.path(params)
        if path is not None and path.exists():
            entry = self._read(path)
            if entry is not None:
                self.hits += 1
                return entry
        entry = make()
        self.renders += 1
        if path is not None:
            self._write(path, entry)
        return entry

    @staticmethod
    def _read(path: Path) -> dict[str, np.ndarray] | None:
        try:
            with np.load(path, allow_pickle=False) as z:
                entry = {f: z[f] for f in FIELDS}
        except (OSError, ValueError, KeyError, EOFError) as exc:  # damaged or from an older layout
            log.warning("render cache entry %s does not read (%s); rendering it again", path, exc)
            return None
        return entry

    @staticmethod
    def _write(path: Path, entry: dict[str, np.ndarray]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp.npz", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez_compressed(
                    fh, image=entry["image"], balanced=entry["balanced"], mask=entry["mask"], gains=entry["gains"]
                )
            os.replace(tmp, path)  # atomic: a reader sees the whole entry or none
        except OSError as exc:  # a full or read-only disk costs the re-use, not the run
            log.warning("render cache entry %s not written: %s", path, exc)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
