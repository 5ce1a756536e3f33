"""Build CoDa's ground truth from raw crowd ratings; group objects; split; expand templates.

``build_dataset`` follows seed 001 §2.1 and the facts in ``../shared/data/README.md``:

1. every submitted rating row (0–5 per colour) is normalised to sum to 1;
2. per object, while the annotation with the lowest Kendall τ against the current mean has
   τ < 0, it is dropped and the mean recomputed (one at a time);
3. the ground truth is the mean of the remaining rows;
4. objects are grouped by k-means (k = 3) over their probabilities sorted in descending order,
   with the Jensen-Shannon distance (:func:`kmeans_js`): the cluster whose centre has the highest
   top probability is *Single*, the lowest *Any*, the other *Multi*;
5. within each group a seeded permutation gives 60 % train, 20 % val (floors), the rest test.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from huebench.benchmarks.coda.metrics import COLORS, js_distance, kendall
from huebench.errors import HuebenchError
from huebench.io import InputFileError, atomic_write_json, atomic_write_text, read_jsonl
from huebench.paths import resolve_under

__all__ = [
    "GROUPS",
    "CodaObject",
    "build_dataset",
    "expand_templates",
    "ground_truth",
    "kmeans_js",
    "load_dataset",
]

GROUPS = ("Single", "Multi", "Any")
_COLOR_KEYS = {c: c for c in COLORS} | {"grey": "gray"}


@dataclass
class CodaObject:
    class_id: str
    display_name: str
    object_s: str | None  # None for mass nouns with only a plural form ("jeans", "popcorn")
    object_pl: str
    areis_s: str | None
    areis_pl: str
    ngram: str
    distribution: list[float] = field(default_factory=list)
    group: str = ""
    split: str = ""
    n_annotations: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def record_base(self) -> dict[str, Any]:
        """The fields every per-object run record starts with."""
        return {
            "id": self.class_id,
            "status": "ok",
            "name": self.display_name,
            "group": self.group,
            "split": self.split,
            "truth": self.distribution,
        }


def read_objects(path: str | Path) -> list[CodaObject]:
    out = []
    for line, r in read_jsonl(
        path, required=("class_id", "display_name", "object_s", "object_pl", "areis_s", "areis_pl", "ngram")
    ):
        if not r["object_pl"]:
            raise InputFileError(f"{path}:{line}: object_pl (the plural form) must be given")
        out.append(
            CodaObject(
                r["class_id"],
                r["display_name"],
                r["object_s"] or None,
                r["object_pl"],
                r["areis_s"] or None,
                r["areis_pl"],
                r["ngram"],
            )
        )
    return out


def rating_vector(row: Mapping[str, Any], where: str) -> np.ndarray:
    vec = np.zeros(len(COLORS))
    seen = set()
    for key, value in row.items():
        color = _COLOR_KEYS.get(key)
        if color is None:
            continue
        if not isinstance(value, (int, float)) or not 0 <= value <= 5:
            raise InputFileError(f"{where}: rating for {key!r} must be a number 0-5, got {value!r}")
        vec[COLORS.index(color)] += float(value)
        seen.add(color)
    if len(seen) != len(COLORS):
        raise InputFileError(f"{where}: a submitted rating needs all 11 colours; missing {sorted(set(COLORS) - seen)}")
    return vec


def ground_truth(annotations: Iterable[tuple[str, np.ndarray]]) -> tuple[dict[str, np.ndarray], dict[str, int], int]:
    """Per object: mean of normalised ratings after iterative Kendall-τ filtering.

    Returns ``(distribution per object, annotations kept per object, number removed)``.
    Means are computed in exact rational arithmetic (ratings are integers), so colours that tie
    mathematically tie exactly: with floats, summation noise would break such ties at random and
    change ranks (ρ, τ) and the argmax (Acc@1) of flat, any-colour objects. A row of all zeros
    carries no distribution and is skipped; a row whose τ is undefined (constant ratings) is
    never the one removed.
    """
    rows: dict[str, list[list[Fraction]]] = defaultdict(list)
    for obj, vec in annotations:
        ints = [round(float(v)) for v in vec]
        total = sum(ints)
        if total > 0:
            rows[obj].append([Fraction(v, total) for v in ints])
    dists, kept, removed = {}, {}, 0
    for obj, rs in rows.items():
        current = list(rs)
        while True:
            mean = [sum(col, Fraction(0)) / len(current) for col in zip(*current, strict=True)]
            if len(current) == 1:
                break
            mean_f = np.array([float(x) for x in mean])
            taus = [kendall(np.array([float(x) for x in r]), mean_f) for r in current]
            finite = [(t, i) for i, t in enumerate(taus) if not math.isnan(t)]
            if not finite:
                break
            worst, idx = min(finite)
            if worst >= 0:
                break
            current.pop(idx)
            removed += 1
        dists[obj] = np.array([float(x) for x in mean])
        kept[obj] = len(current)
    return dists, kept, removed


def kmeans_js(
    points: np.ndarray, k: int = 3, *, n_init: int = 10, max_iter: int = 100, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """k-means with the Jensen-Shannon distance; centres are the members' mean distributions.

    k-means++ initialisation, ``n_init`` restarts, the run with the lowest sum of squared
    distances wins. Returns ``(labels, centres)``. Works for any set of distributions (rows
    summing to 1), e.g. to group your own objects.
    """
    x = np.asarray(points, dtype=np.float64)
    if x.ndim != 2 or len(x) < k:
        raise ValueError(f"need at least k={k} distributions as rows, got shape {x.shape}")
    rng = np.random.default_rng(seed)

    def dist_matrix(c: np.ndarray) -> np.ndarray:
        return np.array([[js_distance(p, q) for q in c] for p in x])

    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for _ in range(n_init):
        centres = [x[rng.integers(len(x))]]
        while len(centres) < k:
            d2 = np.min(dist_matrix(np.array(centres)) ** 2, axis=1)
            centres.append(x[rng.choice(len(x), p=d2 / d2.sum())] if d2.sum() > 0 else x[rng.integers(len(x))])
        c = np.array(centres)
        labels = np.full(len(x), -1)
        for _ in range(max_iter):
            d = dist_matrix(c)
            new = np.argmin(d, axis=1)
            if np.array_equal(new, labels):
                break
            labels = new
            c = np.array([x[labels == j].mean(axis=0) if np.any(labels == j) else c[j] for j in range(k)])
        inertia = float(np.sum(np.min(dist_matrix(c), axis=1) ** 2))
        if best is None or inertia < best[0] - 1e-12:
            best = (inertia, labels.copy(), c.copy())
    assert best is not None
    return best[1], best[2]


def group_objects(dists: Mapping[str, np.ndarray], *, seed: int = 0) -> dict[str, str]:
    ids = sorted(dists)
    sorted_probs = np.array([np.sort(dists[i])[::-1] for i in ids])
    labels, centres = kmeans_js(sorted_probs, 3, seed=seed)
    order = np.argsort(-centres[:, 0])  # highest top probability first
    names = {int(order[0]): "Single", int(order[1]): "Multi", int(order[2]): "Any"}
    return {i: names[int(label)] for i, label in zip(ids, labels, strict=True)}


def split_groups(groups: Mapping[str, str], *, seed: int = 0) -> dict[str, str]:
    out = {}
    for g_index, g in enumerate(GROUPS):
        members = sorted(i for i, gg in groups.items() if gg == g)
        perm = np.random.default_rng(seed + g_index).permutation(len(members))
        n_train, n_val = int(0.6 * len(members)), int(0.2 * len(members))
        for rank, j in enumerate(perm):
            out[members[j]] = "train" if rank < n_train else "val" if rank < n_train + n_val else "test"
    return out


def build_dataset(
    annotations_path: str | Path, objects_path: str | Path, out: str | Path | None = None, *, seed: int = 0
) -> dict[str, Any]:
    """Build CoDa from raw ratings and the object list; write ``out/objects.jsonl`` and ``out/meta.json``."""
    objects = read_objects(objects_path)
    wanted = {o.class_id for o in objects}
    pairs = []
    n_rows = n_submitted = 0
    for line, row in read_jsonl(annotations_path, required=("class_id", "action")):
        n_rows += 1
        if row["action"] != "submitted" or row["class_id"] not in wanted:
            continue  # skips, and objects outside the list (the "spinach" control, dropped objects)
        n_submitted += 1
        pairs.append((row["class_id"], rating_vector(row, f"{annotations_path}:{line}")))
    dists, kept, removed = ground_truth(pairs)
    missing = sorted(wanted - set(dists))
    if missing:
        raise HuebenchError(f"{annotations_path}: no usable ratings for {len(missing)} object(s), e.g. {missing[:5]}")
    by_name = {o.class_id: o for o in objects}
    groups = group_objects({n: dists[n] for n in wanted}, seed=seed)
    splits = split_groups(groups, seed=seed)
    for name, o in by_name.items():
        o.distribution = dists[name].tolist()
        o.group, o.split, o.n_annotations = groups[name], splits[name], kept[name]
    meta = {
        "colors": list(COLORS),
        "n_objects": len(objects),
        "annotation_rows": n_rows,
        "submitted_rows_used": n_submitted,
        "annotations_removed_by_kendall_filter": removed,
        "groups": {g: sum(1 for o in objects if o.group == g) for g in GROUPS},
        "splits": {
            g: {s: sum(1 for o in objects if o.group == g and o.split == s) for s in ("train", "val", "test")}
            for g in GROUPS
        },
        "seed": seed,
    }
    if out is not None:
        out = Path(out)
        atomic_write_text(out / "objects.jsonl", "".join(json.dumps(o.as_dict()) + "\n" for o in objects))
        prompts = [
            {"class_id": o.class_id, "kind": kind, "template": k, "text": text}
            for o in objects
            for kind in TEMPLATE_KINDS
            for k, text in object_prompts(o, kind)
        ]
        atomic_write_text(out / "templates.jsonl", "".join(json.dumps(p) + "\n" for p in prompts))
        meta["expanded_templates"] = {kind: sum(1 for p in prompts if p["kind"] == kind) for kind in TEMPLATE_KINDS}
        atomic_write_json(out / "meta.json", meta)
    return {"objects": objects, "meta": meta}


#: the fields of a line of a dataset's ``objects.jsonl`` (``n_annotations`` is optional)
DATASET_FIELDS = (
    "class_id",
    "display_name",
    "object_s",
    "object_pl",
    "areis_s",
    "areis_pl",
    "ngram",
    "distribution",
    "group",
    "split",
)
SPLITS = ("train", "val", "test")


def _check_distribution(value: Any, where: str) -> None:
    """An object's colour distribution: 11 probabilities in COLORS order that sum to 1."""
    if not isinstance(value, list) or len(value) != len(COLORS):
        raise InputFileError(
            f"{where}: distribution must be a list of {len(COLORS)} probabilities, one per colour in this order: "
            f"{', '.join(COLORS)}; got {value!r}"
        )
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in value):
        raise InputFileError(f"{where}: distribution values must be non-negative numbers, got {value!r}")
    total = float(sum(value))
    if not abs(total - 1.0) <= 1e-3:
        raise InputFileError(
            f"{where}: distribution must sum to 1 (it sums to {total:g}); give probabilities, not counts or percentages"
        )


def load_dataset(source: str | Path) -> list[CodaObject]:
    """A built CoDa folder (``objects.jsonl``) or ``hf:corypaik/coda`` (needs ``datasets``)."""
    s = str(source)
    if s.startswith("hf:"):
        return _load_hub(s[3:])
    path = Path(s)
    file = resolve_under(path, "objects.jsonl", what="objects file") if path.is_dir() else path
    out = []
    for line, r in read_jsonl(file):
        where = f"{file}:{line}"
        missing = [k for k in DATASET_FIELDS if k not in r]
        if missing:
            built = set(missing) == {"distribution", "group", "split"}
            raise InputFileError(
                f"{where}: missing field(s) {', '.join(missing)}; every line needs {', '.join(DATASET_FIELDS)}"
                + (
                    " (this is an object list, the input of `huebench coda build`: build the dataset with it "
                    "and give the folder that writes)"
                    if built
                    else ""
                )
            )
        for key in DATASET_FIELDS[:7]:
            optional = key in ("object_s", "areis_s")  # null for plural-only nouns (jeans, popcorn)
            if not (isinstance(r[key], str) and r[key].strip()) and not (optional and r[key] is None):
                raise InputFileError(
                    f"{where}: {key} must be a non-empty string{' or null' if optional else ''}, got {r[key]!r}"
                )
        _check_distribution(r["distribution"], where)
        if r["group"] not in GROUPS:
            raise InputFileError(f"{where}: group must be one of {', '.join(GROUPS)} (as written), got {r['group']!r}")
        if r["split"] not in SPLITS:
            raise InputFileError(f"{where}: split must be one of {', '.join(SPLITS)}, got {r['split']!r}")
        out.append(CodaObject(**{k: r[k] for k in CodaObject.__dataclass_fields__ if k in r}))
    if not out:
        raise InputFileError(f"{file}: no objects")
    return out


def _load_hub(dataset_id: str) -> list[CodaObject]:  # pragma: no cover - needs the Hub
    from huebench.models.hub import require_hub_dataset

    require_hub_dataset(dataset_id)  # seconds, not the library's retries, when the Hub is unreachable
    try:
        import datasets
    except ImportError as exc:
        raise HuebenchError("loading a Hub dataset needs the 'datasets' package: pip install datasets") from exc
    group_names = {0: "Single", 1: "Multi", 2: "Any"}
    seen: dict[str, CodaObject] = {}
    for split, name in (("train", "train"), ("validation", "val"), ("test", "test")):
        for row in datasets.load_dataset(dataset_id, split=split):
            key = row.get("class_id") or row["display_name"]
            if key in seen:
                continue
            seen[key] = CodaObject(
                class_id=row.get("class_id", key),
                display_name=row["display_name"],
                object_s=row.get("ngram", row["display_name"]).lower(),
                object_pl=row.get("ngram", row["display_name"]).lower(),
                areis_s="is",
                areis_pl="are",
                ngram=row.get("ngram", ""),
                distribution=list(row["label"]),
                group=group_names.get(row.get("object_group"), ""),
                split=name,
            )
    return list(seen.values())


_A_AN = ("a", "e", "i", "o", "u")


def expand_templates(template: str, o: CodaObject) -> str:
    """Fill CoDa's template fields: {object_s}, {object_pl}, {a:object_s}, {object_areis_s}, {object_areis_pl}."""
    if needs_singular(template) and not o.object_s:
        raise HuebenchError(f"{o.display_name!r} has no singular form; template {template!r} needs one")
    article = "an" if (o.object_s or "")[:1].lower() in _A_AN else "a"
    return (
        template.replace("{a:object_s}", f"{article} {o.object_s or ''}")
        .replace("{object_areis_pl}", f"{o.object_pl} {o.areis_pl}")
        .replace("{object_areis_s}", f"{o.object_s} {o.areis_s}" if o.object_s else "")
        .replace("{object_pl}", o.object_pl)
        .replace("{object_s}", o.object_s or "")
    )


TEMPLATE_KINDS = ("text-masked", "clip-imagenet")


def templates_for(kind: str) -> list[str]:
    """The 10 text-masked or 10 CLIP templates (``templates.json``, CoDa's own sets)."""
    from importlib import resources

    data = json.loads(
        resources.files("huebench.benchmarks.coda").joinpath("templates.json").read_text(encoding="utf-8")
    )
    if kind not in TEMPLATE_KINDS:
        raise HuebenchError(f"unknown template kind {kind!r}; available: {', '.join(TEMPLATE_KINDS)}")
    return list(data[kind])


def needs_singular(template: str) -> bool:
    return "{object_s}" in template or "{a:object_s}" in template or "{object_areis_s}" in template


def object_prompts(o: CodaObject, kind: str) -> list[tuple[int, str]]:
    """``(template index, text)`` for one object; singular templates are skipped for plural-only nouns."""
    return [
        (k, expand_templates(t, o)) for k, t in enumerate(templates_for(kind)) if o.object_s or not needs_singular(t)
    ]
