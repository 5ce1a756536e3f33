"""Caption loaders for the source datasets Rainbow used (seed 000 §4.1), and the generic format.

Generic: JSONL (or CSV) with ``id``, ``image``, ``caption`` and optional ``source``
(``rainbow build --captions``). Source-specific files (``rainbow import``): :data:`SOURCE_FILES`
names the file each source reads; docs/rainbow.md, The source files, shows each with an example and
the captions it gives. A file that is not the source's is refused in one line naming the file, the
line or item, and the file expected.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from huebench._suggest import suggestion_text
from huebench.benchmarks.rainbow.probes import Caption
from huebench.errors import UnknownNameError
from huebench.io import InputFileError, read_records

__all__ = ["SOURCES", "SOURCE_FILES", "load_captions", "load_source"]

#: each source of ``rainbow import`` and the file it reads (examples: docs/rainbow.md, The source files)
SOURCE_FILES = {
    "flickr30k": "Karpathy's split file dataset_flickr30k.json",
    "coco": "Karpathy's split file dataset_coco.json",
    "aro": "ARO's visual_genome_attribution.json",
    "vl-checklist": 'a VL-CheckList colour-attribute or object JSON ([[image, {"POS": [...], "NEG": [...]}], ...])',
    "eqben": "an EqBen annotation JSON (items with image/caption or image0/caption0/image1/caption1)",
}
SOURCES = tuple(SOURCE_FILES)
#: where every format is shown, for the errors
FORMATS_DOC = "docs/rainbow.md, The source files"


def load_captions(path: str | Path) -> list[Caption]:
    """Generic JSONL/CSV captions: ``id``, ``image``, ``caption``, optional ``source``."""
    out: list[Caption] = []
    seen: dict[str, int] = {}  # id → the line it was first on
    for line, r in read_records(path, required=("id", "image", "caption")):
        cid = str(r["id"])
        if cid in seen:
            raise InputFileError(f"{path}:{line}: duplicate id {cid!r} (first on line {seen[cid]})")
        seen[cid] = line
        if not isinstance(r["caption"], str) or not r["caption"].strip():
            raise InputFileError(f"{path}:{line}: caption must be a non-empty string")
        out.append(Caption(cid, str(r["image"]), r["caption"], str(r.get("source") or "")))
    if not out:
        raise InputFileError(f"{path}: no captions")
    return out


def _json(path: Path, source: str) -> Any:
    if not path.is_file():
        raise InputFileError(f"{path}: file not found")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        hint = (  # a second JSON value on line 2: JSON Lines, most likely captions already
            "; captions as JSON Lines (id, image, caption) need no import: give them to `rainbow build --captions`"
            if exc.msg == "Extra data" and exc.lineno == 2
            else ""
        )
        raise InputFileError(
            f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); `rainbow import {source}` reads "
            f"{SOURCE_FILES[source]} ({FORMATS_DOC}){hint}"
        ) from None
    except UnicodeDecodeError:
        raise InputFileError(
            f"{path}: not UTF-8 text; `rainbow import {source}` reads {SOURCE_FILES[source]}"
        ) from None


def _refused(path: Path, where: str, what: str, source: str) -> InputFileError:
    return InputFileError(
        f"{path}: {where} {what}; `rainbow import {source}` reads {SOURCE_FILES[source]} ({FORMATS_DOC})"
    )


def _karpathy(path: Path, source: str) -> Iterator[Caption]:
    data = _json(path, source)
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise _refused(path, "the file", "is not an object with an 'images' list", source)
    for k, img in enumerate(data["images"]):
        if not isinstance(img, dict):
            raise _refused(path, f"images[{k}]", "is not an object", source)
        if img.get("split") != "test":
            continue
        fname = f"{img['filepath']}/{img['filename']}" if img.get("filepath") else img.get("filename")
        if not fname or not isinstance(img.get("sentences"), list):
            raise _refused(path, f"images[{k}]", "lacks filename or its sentences list", source)
        for j, sent in enumerate(img["sentences"]):
            if not isinstance(sent, dict) or not isinstance(sent.get("raw"), str):
                raise _refused(path, f"images[{k}].sentences[{j}]", "has no 'raw' text", source)
            yield Caption(f"{source}-{img.get('imgid', k)}-{j}", fname, sent["raw"].strip(), source)


def load_source(source: str, path: str | Path) -> list[Caption]:
    """Captions from one of :data:`SOURCES`, in its own file format."""
    if source not in SOURCE_FILES:
        raise UnknownNameError(
            f"unknown source {source!r}; known: {', '.join(SOURCES)}.{suggestion_text(source, SOURCES)} "
            "Captions of your own (id, image, caption) need no import: give them to `rainbow build --captions`"
        )
    p = Path(path)
    if source in ("flickr30k", "coco"):
        return list(_karpathy(p, source))
    data = _json(p, source)
    out: list[Caption] = []
    if source == "aro":
        if not isinstance(data, list):
            raise _refused(p, "the file", "is not a list of items", source)
        for k, item in enumerate(data):
            if not isinstance(item, dict) or not isinstance(item.get("true_caption"), str) or "image_path" not in item:
                raise _refused(p, f"item {k}", "lacks true_caption or image_path", source)
            out.append(Caption(f"aro-{k}", str(item["image_path"]), item["true_caption"], "aro"))
    elif source == "vl-checklist":
        if not isinstance(data, list):
            raise _refused(p, "the file", "is not a list of [image, {POS, NEG}] pairs", source)
        for k, item in enumerate(data):
            if not (
                isinstance(item, list)
                and len(item) == 2
                and isinstance(item[1], dict)
                and isinstance(item[1].get("POS"), list)
                and all(isinstance(c, str) for c in item[1]["POS"])
            ):
                raise _refused(p, f"item {k}", 'is not [image, {"POS": [captions], "NEG": [...]}]', source)
            for j, cap in enumerate(item[1]["POS"]):
                kind = "checklist-short" if len(cap.split()) < 4 else "checklist-long"
                out.append(Caption(f"vlc-{k}-{j}", str(item[0]), cap, kind))
    else:  # eqben
        items = data if isinstance(data, list) else list(data.values()) if isinstance(data, dict) else None
        if items is None:
            raise _refused(p, "the file", "is not a list (or mapping) of items", source)
        for k, item in enumerate(items):
            if not isinstance(item, dict):
                raise _refused(p, f"item {k}", "is not an object", source)
            pairs = (
                [(item.get("image"), item.get("caption"))]
                if "caption" in item
                else [(item.get("image0"), item.get("caption0")), (item.get("image1"), item.get("caption1"))]
            )
            for j, (img, cap) in enumerate(pairs):
                if not img or not isinstance(cap, str) or not cap:
                    raise _refused(p, f"item {k}", "lacks image/caption (or image0/caption0/image1/caption1)", source)
                if "not in the scene" in cap.lower():
                    continue  # negative descriptions (EQ-GEBC)
                out.append(Caption(f"eqben-{k}-{j}", str(img), cap, "eqben"))
    return out
