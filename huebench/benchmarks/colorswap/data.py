"""ColorSwap and other Winoground-schema datasets: two captions × two images per example.

Sources:

- a local JSONL file, or a folder holding one (``examples.jsonl`` or the only ``*.jsonl``): one
  example per line with ``id``, ``caption_1``, ``caption_2``, ``image_1``, ``image_2`` (paths
  relative to the file's folder, never escaping it) and optional ``split``;
- ``hf:stanfordnlp/colorswap`` (gated: accept its terms on the Hub, then ``huggingface-cli login``
  or set ``HF_TOKEN``; needs ``pip install datasets``), and any Hub dataset with the Winoground
  fields (``caption_0/1`` + ``image_0/1``, e.g. ``hf:facebook/winoground``) or ColorSwap's.

Caption ``1`` belongs to image ``1`` (Winoground's ``0`` is mapped to ``1``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from huebench.errors import HuebenchError
from huebench.images import load_image
from huebench.io import InputFileError, read_jsonl
from huebench.paths import resolve_under

__all__ = ["WinoExample", "load_examples"]

REQUIRED = ("id", "caption_1", "caption_2", "image_1", "image_2")


@dataclass(frozen=True)
class WinoExample:
    id: str
    caption_1: str
    caption_2: str
    image_1: Any  # a path (str) or an in-memory PIL image
    image_2: Any
    split: str | None = None
    image_ids: tuple[str, str] = ("", "")

    def images(self) -> tuple[Any, Any]:
        return _open(self.image_1), _open(self.image_2)


def _open(img: Any) -> Any:
    return load_image(img) if isinstance(img, (str, Path)) else img


def _find_jsonl(path: Path) -> Path:
    if path.is_file():
        return path
    if not path.is_dir():
        raise InputFileError(
            f"{path}: no such file or folder (give a JSONL file, a folder holding one, or hf:<dataset id>)"
        )
    if (path / "examples.jsonl").is_file():
        return resolve_under(path, "examples.jsonl", what="examples file")
    found = sorted(path.glob("*.jsonl"))
    if len(found) != 1:
        raise InputFileError(
            f"{path}: expected examples.jsonl or exactly one *.jsonl file, found {[p.name for p in found] or 'none'}"
        )
    return resolve_under(path, found[0].name, what="examples file")


def _load_local(path: Path, split: str | None) -> list[WinoExample]:
    file = _find_jsonl(path)
    root = file.parent
    out: list[WinoExample] = []
    seen: dict[str, int] = {}
    for line, rec in read_jsonl(file):
        missing = [k for k in REQUIRED if k not in rec]
        if missing:
            winoground = "caption_0" in rec or "image_0" in rec
            raise InputFileError(
                f"{file}:{line}: missing field(s) {', '.join(missing)}; every line needs {', '.join(REQUIRED)}"
                + (
                    " (this line numbers the pair 0 and 1, as Winoground does; huebench's files number it 1 and 2: "
                    "caption_0 → caption_1, caption_1 → caption_2, and the same for the images)"
                    if winoground
                    else ""
                )
            )
        ex_id = str(rec["id"])
        if ex_id in seen:
            raise InputFileError(f"{file}:{line}: duplicate id {ex_id!r} (first on line {seen[ex_id]})")
        seen[ex_id] = line
        if split is not None and rec.get("split") not in (None, split):
            continue
        paths = []
        for key in ("image_1", "image_2"):
            try:
                p = resolve_under(root, str(rec[key]), what=key)
            except HuebenchError as exc:
                raise InputFileError(f"{file}:{line}: {exc}") from None
            if not p.is_file():
                raise InputFileError(f"{file}:{line}: {key} {rec[key]!r} not found under {root}")
            paths.append(str(p))
        for key in ("caption_1", "caption_2"):
            if not isinstance(rec[key], str) or not rec[key].strip():
                raise InputFileError(f"{file}:{line}: {key} must be a non-empty string")
        out.append(
            WinoExample(
                ex_id,
                rec["caption_1"],
                rec["caption_2"],
                paths[0],
                paths[1],
                rec.get("split"),
                (str(rec["image_1"]), str(rec["image_2"])),
            )
        )
    return out


def _load_hub(dataset_id: str, split: str | None) -> list[WinoExample]:
    from huebench.models.hub import require_hub_dataset

    require_hub_dataset(dataset_id)  # seconds, not the library's retries, when the Hub is unreachable
    try:
        import datasets
    except ImportError as exc:
        raise HuebenchError("loading a Hub dataset needs the 'datasets' package: pip install datasets") from exc
    token = os.environ.get("HF_TOKEN") or None
    try:
        ds = datasets.load_dataset(dataset_id, split=split or "test", token=token)
    except Exception as exc:  # the Hub client raises many types; all mean "could not load"
        hint = (
            " (stanfordnlp/colorswap is gated: accept its terms on the Hub and log in, or set HF_TOKEN)"
            if "colorswap" in dataset_id
            else ""
        )
        raise HuebenchError(f"hf:{dataset_id}: cannot load split {split or 'test'!r}{hint}: {exc}") from exc
    out = []
    for k, row in enumerate(ds):
        if "caption_0" in row:  # Winoground numbering
            c1, c2, i1, i2 = row["caption_0"], row["caption_1"], row["image_0"], row["image_1"]
        else:
            c1, c2, i1, i2 = row["caption_1"], row["caption_2"], row["image_1"], row["image_2"]
        ex_id = str(row.get("id", k))
        out.append(
            WinoExample(ex_id, c1, c2, i1, i2, split, (f"hf:{dataset_id}/{ex_id}/1", f"hf:{dataset_id}/{ex_id}/2"))
        )
    return out


def load_examples(source: str | Path, *, split: str | None = "test") -> list[WinoExample]:
    """Examples from a local JSONL/folder or ``hf:<dataset id>``; ``split=None`` keeps every split."""
    s = str(source)
    examples = _load_hub(s[3:], split) if s.startswith("hf:") else _load_local(Path(s), split)
    if not examples:
        raise InputFileError(f"{source}: no examples" + (f" in split {split!r}" if split else ""))
    return examples
