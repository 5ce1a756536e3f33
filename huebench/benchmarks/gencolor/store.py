"""The generated-image folder: a layout any generator can fill, with hash-verified resume.

::

    IMAGES/
      <prompt id>/              e.g. cna-l2-00017 (letters, digits, '.', '_', '-' only)
        0.png 1.png … (n-1).png one image per index
        meta.json               the prompt record, the generator (spec, fingerprint, settings) and
                                per image: file, seed, sha256, size

An image counts as done when its file exists and its SHA-256 matches ``meta.json``; a file with no
entry, or a different hash (a torn or replaced file), is generated again. Other generators (an API,
a GAN, a hand-made set) can fill the folder without ``meta.json``: scoring then takes the images as
they are and records them as unverified. Seeds are a pure function of (seed, prompt id, index), so
an image does not depend on which other images shared its batch or on which worker made it (up to
floating-point rounding across batch shapes, which can move a rare pixel by one level).

Writes are atomic (temporary file + rename) and ``meta.json`` is updated under a file lock, so
several workers (``--executor ray``) may fill one folder. ``meta.json`` exists before a prompt's
first image does: an image a kill left without its entry is then an orphan (made again), not an
outside generator's file.

Every path is taken through :func:`huebench.paths.resolve_under`: a prompt folder, image or
``meta.json`` that is (or passes through) a symlink pointing outside ``IMAGES`` is refused, as in
every other data root. A ``meta.json`` that is not what this module writes (not an object, an
entry without its ``sha256``) is an error naming the file and the entry, never a crash.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from huebench.errors import HuebenchError
from huebench.io import InputFileError, atomic_write_json
from huebench.paths import resolve_under

__all__ = ["ImageStore", "check_prompt_id", "image_seed"]

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


def check_prompt_id(pid: str, where: str = "") -> str:
    """Prompt ids name folders: reject anything that could escape the image root (the whole id
    must match: a trailing newline is refused, not taken for the end of the string)."""
    if not isinstance(pid, str) or not _ID.fullmatch(pid) or ".." in pid:
        raise InputFileError(
            f"{where + ': ' if where else ''}prompt id {pid!r} cannot name a folder: use letters, digits, '.', '_' "
            "and '-' only (no '/', no '..', at most 128 characters)"
        )
    return pid


def image_seed(seed: int, prompt_id: str, index: int) -> int:
    digest = hashlib.sha256(f"{seed}\x00{prompt_id}\x00{index}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check_meta(path: Path, meta: Any) -> dict[str, Any]:
    """``meta.json`` as :meth:`ImageStore.write` makes it, or an error naming the file, the entry and the fix."""
    fix = (
        f"delete {path} to take the folder's images as they are (unverified), "
        "or delete the folder to generate them again"
    )
    if not isinstance(meta, dict):
        raise InputFileError(f"{path}: image metadata must be a JSON object, found a {type(meta).__name__}; {fix}")
    for key in ("prompt", "generator", "images"):
        if key in meta and not isinstance(meta[key], dict):
            raise InputFileError(f"{path}: {key!r} must be a JSON object, found a {type(meta[key]).__name__}; {fix}")
    for index, entry in meta.get("images", {}).items():
        where = f"{path}: images[{index!r}]"
        if not (index.isascii() and index.isdigit()):
            raise InputFileError(f"{where}: keys of 'images' must be image indices (0, 1, …); {fix}")
        if not isinstance(entry, dict):
            raise InputFileError(f"{where} must be a JSON object, found a {type(entry).__name__}; {fix}")
        if "sha256" not in entry:
            raise InputFileError(f"{where} has no 'sha256', so the image cannot be verified; {fix}")
        if not isinstance(entry["sha256"], str) or not _SHA256.fullmatch(entry["sha256"]):
            raise InputFileError(f"{where}: 'sha256' is not a SHA-256 hex digest (64 hex digits); {fix}")
    return meta


class ImageStore:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    def _path(self, relative: str, what: str) -> Path:
        # the one data-root rule: no symlink along the path may lead out of the image folder
        return resolve_under(self.root, relative, what=what)

    def folder(self, pid: str) -> Path:
        return self._path(check_prompt_id(pid), "prompt folder")

    def image_path(self, pid: str, index: int) -> Path:
        return self._path(f"{check_prompt_id(pid)}/{int(index)}.png", "image")

    def meta_path(self, pid: str) -> Path:
        return self._path(f"{check_prompt_id(pid)}/meta.json", "image metadata")

    def meta(self, pid: str) -> dict[str, Any] | None:
        path = self.meta_path(pid)
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputFileError(f"{path}: unreadable image metadata ({exc}); delete it to regenerate") from None
        except OSError as exc:
            raise InputFileError(f"{path}: cannot read image metadata ({exc.strerror or exc})") from None
        return _check_meta(path, data)

    def status(self, pid: str, index: int) -> str:
        """``verified`` (hash matches meta.json), ``unverified`` (a file in a folder without
        meta.json — an outside generator's), ``orphan`` (meta.json exists but has no entry for the
        file: a write cut short before its entry), ``mismatch`` (hash differs: torn or replaced) or
        ``missing``. Generation makes orphans, mismatches and missing images again."""
        path = self.image_path(pid, index)
        if not path.exists():
            return "missing"
        meta = self.meta(pid)
        if meta is None:
            return "unverified"
        entry = meta.get("images", {}).get(str(index))
        if entry is None:
            return "orphan"  # a kill between the image's rename and its meta.json entry
        return "verified" if _sha256(path.read_bytes()) == entry["sha256"].lower() else "mismatch"

    @contextlib.contextmanager
    def _locked(self, pid: str) -> Iterator[None]:
        folder = self.folder(pid)
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / ".meta.lock", "a+b") as fh:
            try:
                import fcntl

                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            except ImportError:  # pragma: no cover - Windows: one writer per folder assumed
                pass
            yield

    def write(
        self, pid: str, index: int, image: Any, *, seed: int, prompt: dict[str, Any], generator: dict[str, Any]
    ) -> dict[str, Any]:
        """Store one image (PNG) and its meta entry; returns the entry."""
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        data = buf.getvalue()
        path = self.image_path(pid, index)
        with self._locked(pid):
            # every write happens under this lock, so temporary files seen now are from a killed writer
            for stale in [*self.folder(pid).glob("*.png.tmp*"), *self.folder(pid).glob(".meta.json.*.tmp")]:
                stale.unlink(missing_ok=True)
            meta = self.meta(pid)
            if meta is None:
                # meta.json before the first image: an image left without meta.json by a kill would
                # pass for an outside generator's file and never get its entry
                meta = {"prompt": prompt, "generator": generator, "images": {}}
                atomic_write_json(self.meta_path(pid), meta)
            self._same_generator(pid, meta, generator)
            tmp = path.with_suffix(f".png.tmp{os.getpid()}")
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
            entry = {"file": path.name, "seed": int(seed), "sha256": _sha256(data), "size": list(image.size)}
            images = meta.setdefault("images", {})
            images[str(index)] = entry
            meta["images"] = dict(sorted(images.items(), key=lambda kv: int(kv[0])))  # write order must not show
            atomic_write_json(self.meta_path(pid), meta)
        return entry

    def check_generator(self, pid: str, generator: dict[str, Any]) -> None:
        meta = self.meta(pid)
        if meta:
            self._same_generator(pid, meta, generator)

    def _same_generator(self, pid: str, meta: dict[str, Any], generator: dict[str, Any]) -> None:
        if meta.get("generator", {}).get("fingerprint") != generator.get("fingerprint"):
            raise HuebenchError(
                f"{self.folder(pid)} holds images from {meta.get('generator', {}).get('spec')!r}, not "
                f"{generator.get('spec')!r}: use another --images folder per model"
            )
