"""Small synthetic datasets for tests and smoke runs (made on the fly, deterministic)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
from PIL import Image

from huebench.color import load_system

__all__ = ["make_coda_dataset", "make_colorswap_dataset", "make_gencolor_images", "make_rainbow_captions"]


def _scene(fg: tuple[int, int, int], bg: tuple[int, int, int], size: int, rng: np.random.Generator) -> Image.Image:
    arr = np.empty((size, size, 3), dtype=np.float64)
    arr[:] = bg
    lo, hi = size // 4, 3 * size // 4
    arr[lo:hi, lo:hi] = fg
    arr += rng.normal(0, 3, arr.shape)
    return Image.fromarray(np.clip(arr, 0, 255).round().astype(np.uint8))


def make_colorswap_dataset(
    out: str | Path, *, n_train: int = 8, n_test: int = 6, size: int = 48, seed: int = 0
) -> Path:
    """A Winoground-schema folder: "a {c1} square on a {c2} background" and its colour swap.

    Writes ``out/examples.jsonl`` (id, caption_1, caption_2, image_1, image_2, split) and the PNGs.
    """
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    basic = load_system("basic")
    colors = ["red", "blue", "green", "yellow", "purple", "orange", "black", "white"]
    pairs = list(itertools.combinations(colors, 2))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(pairs))
    lines = []
    for k in range(n_train + n_test):
        a, b = pairs[order[k % len(pairs)]]
        ca, cb = basic.get(a).rgb, basic.get(b).rgb
        _scene(ca, cb, size, rng).save(out / "images" / f"{k}_1.png")
        _scene(cb, ca, size, rng).save(out / "images" / f"{k}_2.png")
        lines.append(
            {
                "id": f"ex{k}",
                "caption_1": f"a {a} square on a {b} background",
                "caption_2": f"a {b} square on a {a} background",
                "image_1": f"images/{k}_1.png",
                "image_2": f"images/{k}_2.png",
                "split": "train" if k < n_train else "test",
            }
        )
    (out / "examples.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return out


def make_coda_dataset(out: str | Path, *, n_per_split: tuple[int, int, int] = (12, 6, 6), seed: int = 0) -> Path:
    """A small CoDa-format folder (``objects.jsonl``) with made-up objects and distributions."""
    from huebench.benchmarks.coda.metrics import COLORS

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    nouns = ["apple", "banana", "car", "shirt", "dog", "cat", "ball", "flower", "tree", "house", "sky", "grass"]
    rows = []
    k = 0
    for split, n in zip(("train", "val", "test"), n_per_split, strict=True):
        for _ in range(n):
            noun = nouns[k % len(nouns)]
            group = ("Single", "Multi", "Any")[k % 3]
            conc = {"Single": 0.2, "Multi": 1.0, "Any": 5.0}[group]
            dist = rng.dirichlet(np.full(len(COLORS), conc))
            rows.append(
                {
                    "class_id": f"/m/test{k}",
                    "display_name": f"{noun.title()} {k}",
                    "object_s": noun,
                    "object_pl": noun + "s",
                    "areis_s": "is",
                    "areis_pl": "are",
                    "ngram": noun,
                    "distribution": dist.tolist(),
                    "group": group,
                    "split": split,
                    "n_annotations": 5,
                }
            )
            k += 1
    (out / "objects.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return out


def make_rainbow_captions(out: str | Path) -> Path:
    """Three captioned flat-colour images for Rainbow (``rainbow build --captions out/caps.jsonl``):
    ``out/img/{1,2,3}.png`` and ``out/caps.jsonl`` (id, image, caption, source). Returns the caption file."""
    out = Path(out)
    (out / "img").mkdir(parents=True, exist_ok=True)
    caps = [
        ("c1", "img/1.png", "A man in a red shirt next to a blue car.", (200, 30, 30)),
        ("c2", "img/2.png", "A yellow banana.", (220, 200, 40)),
        ("c3", "img/3.png", "A green apple on a white plate.", (40, 180, 40)),
    ]
    lines = []
    for cid, img, cap, col in caps:
        Image.new("RGB", (32, 32), col).save(out / img)
        lines.append(json.dumps({"id": cid, "image": img, "caption": cap, "source": "toy"}))
    (out / "caps.jsonl").write_text("\n".join(lines) + "\n")
    return out / "caps.jsonl"


def make_gencolor_images(out: str | Path, *, n: int = 2, seed: int = 0) -> dict[str, str]:
    """A GenColorBench image folder as an outside generator would leave it (no ``meta.json``), with
    user masks: two prompts per task of the mini suite (ISCC-NBS L2 and CSS3), ``n`` images each.
    Each object is a shaded square of its own, in the prompt's colour in image 0 and in the
    opposite colour after it; a COA context object is grey in image 0 and takes the target's colour
    (leakage) after it. Returns the benchmark options ``prompts``, ``images`` and ``masks``."""
    from huebench.benchmarks.gencolor.pipeline import user_mask_path
    from huebench.benchmarks.gencolor.prompts import build_suite

    out = Path(out)
    suite = build_suite("mini", seed=seed)
    prompts = [
        next(r for r in suite if r["task"] == task and r["system"] == system)
        for task in ("cna", "ncu", "coa", "moc", "ica")
        for system in ("iscc-nbs-l2", "css3")
    ]
    rng = np.random.default_rng(seed)
    size = 40
    shade = np.linspace(0.7, 1.05, size)[:, None, None]  # a lit top, a darker bottom
    for prompt in prompts:
        (out / "images" / prompt["id"]).mkdir(parents=True, exist_ok=True)
        objects = prompt["objects"]
        for i in range(n):
            img = np.full((size + 16, (size + 8) * len(objects) + 8, 3), 235.0)
            for k, obj in enumerate(objects):
                target = np.array(prompt["colors"][obj["color"] if obj["color"] is not None else 0]["srgb"], float)
                if obj["role"] == "context":
                    rgb = np.array([128.0, 128.0, 128.0]) if i == 0 else target
                else:
                    rgb = target if i == 0 else 255.0 - target
                x0 = 8 + k * (size + 8)
                img[8 : 8 + size, x0 : x0 + size] = rgb * shade
                mask = np.zeros(img.shape[:2], bool)
                mask[8 : 8 + size, x0 : x0 + size] = True
                path = user_mask_path(out / "masks", prompt["id"], i, obj["name"])
                path.parent.mkdir(parents=True, exist_ok=True)
                Image.fromarray(mask.astype(np.uint8) * 255).save(path)
            img += rng.normal(0, 2, img.shape)
            Image.fromarray(np.clip(img, 0, 255).round().astype(np.uint8)).save(
                out / "images" / prompt["id"] / f"{i}.png"
            )
    (out / "prompts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in prompts), encoding="utf-8")
    return {"prompts": str(out / "prompts.jsonl"), "images": str(out / "images"), "masks": str(out / "masks")}
