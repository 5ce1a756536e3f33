"""Caption loaders for the source datasets Rainbow used (seed 000 §4.1), and the generic format.

Generic: JSONL (or CSV) with ``id``, ``image``, ``caption`` and optional ``source``.

Source-specific files (each loader names the file it expects and fails with file and line):

| source | file | what is taken |
| --- | --- | --- |
| ``flickr30k`` | Karpathy's ``dataset_flickr30k.json`` | test split: every sentence's ``raw`` with the image's ``filename`` |
| ``coco`` | Karpathy's ``dataset_coco.json`` | test split: ``filepath/filename`` |
| ``aro`` | ARO's ``visual_genome_attribution.json`` | each item's ``true_caption`` with ``image_path`` |
| ``vl-checklist`` | a VL-CheckList color-attribute or object JSON (``[[image, {"POS": [...], "NEG": [...]}], ...]``) | POS captions, split into ``checklist-short`` (< 4 tokens) and ``checklist-long`` |
| ``eqben`` | EqBen annotation JSON (items with ``image``/``caption`` or ``image0/caption0/image1/caption1``) | every caption except those saying something is "not in the scene" |
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from huebench.benchmarks.rainbow.probes import Caption
from huebench.io import InputFileError, read_records

__all__ = ["SOURCES", "load_captions", "load_source"]

SOURCES = ("flickr30k", "coco", "aro", "vl-checklist", "eqben")


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


def _json(path: Path) -> Any:
    if not path.is_file():
        raise InputFileError(f"{path}: file not found")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None


def _karpathy(path: Path, source: str) -> Iterator[Caption]:
    data = _json(path)
    if not isinstance(data, dict) or "images" not in data:
        raise InputFileError(f"{path}: expected Karpathy's split file with an 'images' list (dataset_{source}.json)")
    for k, img in enumerate(data["images"]):
        if img.get("split") != "test":
            continue
        fname = f"{img['filepath']}/{img['filename']}" if img.get("filepath") else img.get("filename")
        if not fname or "sentences" not in img:
            raise InputFileError(f"{path}: images[{k}] lacks filename or sentences")
        for j, sent in enumerate(img["sentences"]):
            yield Caption(f"{source}-{img.get('imgid', k)}-{j}", fname, sent["raw"].strip(), source)


def load_source(source: str, path: str | Path) -> list[Caption]:
    """Captions from one of :data:`SOURCES`, in its own file format."""
    p = Path(path)
    if source in ("flickr30k", "coco"):
        return list(_karpathy(p, source))
    data = _json(p)
    out: list[Caption] = []
    if source == "aro":
        if not isinstance(data, list):
            raise InputFileError(f"{p}: expected ARO's list of items (visual_genome_attribution.json)")
        for k, item in enumerate(data):
            if "true_caption" not in item or "image_path" not in item:
                raise InputFileError(f"{p}: item {k} lacks true_caption or image_path")
            out.append(Caption(f"aro-{k}", item["image_path"], item["true_caption"], "aro"))
    elif source == "vl-checklist":
        if not isinstance(data, list):
            raise InputFileError(f"{p}: expected VL-CheckList's list of [image, {{POS, NEG}}] pairs")
        for k, item in enumerate(data):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], dict) and "POS" in item[1]):
                raise InputFileError(f'{p}: item {k} is not [image, {{"POS": [...], "NEG": [...]}}]')
            for j, cap in enumerate(item[1]["POS"]):
                kind = "checklist-short" if len(cap.split()) < 4 else "checklist-long"
                out.append(Caption(f"vlc-{k}-{j}", item[0], cap, kind))
    elif source == "eqben":
        items = data if isinstance(data, list) else list(data.values()) if isinstance(data, dict) else None
        if items is None:
            raise InputFileError(f"{p}: expected a list (or mapping) of EqBen items")
        for k, item in enumerate(items):
            pairs = (
                [(item.get("image"), item.get("caption"))]
                if "caption" in item
                else [(item.get("image0"), item.get("caption0")), (item.get("image1"), item.get("caption1"))]
            )
            for j, (img, cap) in enumerate(pairs):
                if not img or not cap:
                    raise InputFileError(f"{p}: item {k} lacks image/caption fields")
                if "not in the scene" in cap.lower():
                    continue  # negative descriptions (EQ-GEBC)
                out.append(Caption(f"eqben-{k}-{j}", img, cap, "eqben"))
    else:
        raise InputFileError(f"unknown source {source!r}; known: {', '.join(SOURCES)}")
    return out
