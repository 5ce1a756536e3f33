"""One rule for files read from a data root (a dataset folder, an image store, a masks folder).

A path taken from a data root — a manifest entry, a prompt id's folder, a fixed file name — must
stay inside that root: it may not be absolute, a ``..`` may not climb out of it, and no symlink
along it may point outside it (a symlink to elsewhere inside the root is fine). The root itself
may be a symlink: it is resolved once, and "inside" means inside what it resolves to.

Every loader uses :func:`resolve_under`, so the GenColorBench image store, the ColorSwap loader,
Rainbow, CoDa and the GenColorBench masks accept and refuse the same paths with the same message.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePath

from huebench.io import InputFileError

__all__ = ["DataRootError", "resolve_under"]


class DataRootError(InputFileError):
    """A path taken from a data root leads outside it; the message names the path, the root and the fix."""


def _inside(path: Path, base: Path) -> bool:
    return path == base or base in path.parents


def _is_symlink(path: Path) -> bool:
    try:
        return path.is_symlink()
    except OSError:  # unreadable: opening it later says why
        return False


def resolve_under(root: str | os.PathLike[str], relative: str | os.PathLike[str], *, what: str = "path") -> Path:
    """``root / relative`` fully resolved, refused (:class:`DataRootError`) unless it stays inside ``root``.

    The path is walked one component at a time: each symlink met on the way is resolved and must
    land inside the root, and each ``..`` must too. The path need not exist (a store may be about
    to create it); whatever part exists is checked. Returns the resolved path.
    """
    rel_text = os.fspath(relative)
    base = Path(root).resolve()
    fix = f"keep the file inside {base} (copy it there rather than linking to it) or choose a data root that holds it"
    if "\x00" in rel_text:
        raise DataRootError(f"{what} {rel_text!r} contains a NUL character; give a plain relative path under {base}")
    rel = PurePath(rel_text)
    if rel.is_absolute() or rel.drive:
        raise DataRootError(
            f"{what} {rel_text!r} is absolute; paths in a data root must be relative to it ({base}): "
            "write it relative to that folder"
        )
    cur = base
    for part in rel.parts:
        if part in ("", "."):
            continue
        if part == "..":
            cur = cur.parent
            if not _inside(cur, base):
                raise DataRootError(f"{what} {rel_text!r} escapes the data root {base} ('..' climbs out of it); {fix}")
            continue
        cur = cur / part
        if _is_symlink(cur):
            link = cur
            try:
                cur = link.resolve(strict=False)
            except (OSError, RuntimeError) as exc:  # a symlink loop
                raise DataRootError(
                    f"{what} {rel_text!r}: the symlink {link} cannot be resolved ({exc}); fix or remove it"
                ) from None
            if not _inside(cur, base):
                raise DataRootError(
                    f"{what} {rel_text!r} escapes the data root {base}: {link} is a symlink to {cur}, outside it; {fix}"
                )
    return cur
