"""Train the scorer's calibration (version 25) and print its held-out evidence.

    python perf/scorer_calibration.py                # the evidence, then train on every family and write it
    python perf/scorer_calibration.py --no-write     # the evidence only
    python perf/scorer_calibration.py --refit        # train on every family and write it, no evidence
    python perf/scorer_calibration.py --renders quick --tables families   # one render setting, one table

1. **What it learns from.** For both colour systems (ISCC-NBS L2 and CSS3/X11) and both of the
   diagnostic's render settings (:data:`RENDERS`), every image of the study's families (``scorer_study.study_families``: the tuning families and the held-out
   ones, not those kept unseen; ``scorer_study.build``'s cached renders) is scored by the rules —
   the scorer without a calibration — keeping the calibration's input
   (``calibration.FEATURES``) and the rules' dominant colour. Each ensemble's target is the truth
   less that colour: ΔL* (and ΔC*ab, where :data:`TARGETS` has it). Images too small to score are left out, and so are the black surfaces the scorer never calibrates
   (``dark_neutral``, version 27).
2. **Leave one family out.** For each family, the ensembles are trained on every other family
   (both systems) and the scorer with them scores the held-out family's images — the whole scorer,
   its bound on invented colour included, against the target and the far colour — beside the rules
   alone: accuracy, the paired difference with its 95 % bootstrap interval, images gained and lost,
   far-colour false accepts.
3. **Across palettes** and **across render settings.** The same, trained on one system's (one
   render setting's) other families only and scored on the other's images of the held-out family:
   other colours, or another size and noise, as well as another family.
4. **Trained on everything**, with the same settings (:data:`PARAMS`, fixed before any of these
   tables was made), and written to ``huebench/benchmarks/gencolor/data/calibration-<name>.json``
   with how it was made. The scorer's figures on these families are then in-sample; the tables
   above are the evidence (docs/gencolor.md).

The ensembles are scikit-learn's ``HistGradientBoostingRegressor`` (a dev dependency: the package
itself reads the shipped trees with NumPy, ``calibration.TreeEnsemble``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scorer_study

from huebench.benchmarks.gencolor.calibration import (
    CALIBRATION,
    FEATURES,
    FORMAT,
    calibration_from_json,
)
from huebench.benchmarks.gencolor.scoring import SCORER_VERSION, ColorScorer
from huebench.color import srgb_to_lab

#: the systems a calibration learns from and is judged on
SYSTEMS = ("iscc-nbs-l2", "css3")
#: the diagnostic's two render settings it learns from: ``quick`` (48 px, 16 spp: noisier, fewer
#: pixels) and ``full`` (64 px, 32 spp) — a calibration learnt at one size only moved the other's
#: figures (docs/gencolor.md, version 25)
RENDERS: dict[str, dict[str, Any]] = {"quick": {"quick": True}, "full": {"quick": False}}
#: the ensembles' settings: shallow trees, few of them, an absolute-error loss (a few images far
#: off must not pull every correction), no early stopping (which would hold out a random tenth and
#: make the trees depend on the data's size) — these fixed before the first table — and leaves of at
#: least 500 images, the one setting chosen on the tables (the across-palettes one): with leaves of
#: 40 a calibration trained on the 29 ISCC-NBS L2 colours learned their colours, and lost 2 points
#: on the CSS3/X11 Mitsuba renders (docs/gencolor.md, version 25). The tables are evidence for the
#: rest; the families it was judged on, for all of it
PARAMS: dict[str, Any] = {
    "max_depth": 3,
    "max_iter": 100,
    "learning_rate": 0.1,
    "min_samples_leaf": 500,
    "loss": "absolute_error",
    "early_stopping": False,
    "random_state": 0,
}
#: the corrections it learns: lightness alone. With a chroma ensemble too (ΔC*ab's target, the same
#: trees), or one halved, the leave-one-family-out table lost beyond its interval on the 64 px L2
#: Mitsuba renders — the rules under-saturate those glossy bodies where most families' are over —
#: and lightness alone lost beyond its interval nowhere (docs/gencolor.md, version 25)
TARGETS = ("lightness",)
DATA = Path(__file__).resolve().parents[1] / "huebench" / "benchmarks" / "gencolor" / "data"

_DATA: dict[str, Any] = {}


def _features_chunk(args: tuple[str, list[int]]) -> list[tuple[list[float], list[float], bool, bool]]:
    """The rules' scores of images ``idx``: (features, dominant colour before any correction, target
    passed, far colour accepted); NaN features where the image has too few pixels, and where the
    scorer does not calibrate it (a black surface read on all its pixels, ``dark_neutral``: version 27)."""
    system, idx = args
    meta, imgs, masks = _DATA["data"]
    rules = ColorScorer(system, calibration=None)
    rules.keep_features = True
    out = []
    for i in idx:
        score = rules.score_image(imgs[i], meta[i]["target"], mask=masks[i])[0]
        far = rules.score_image(imgs[i], meta[i]["far"], mask=masks[i])[0].passed
        record = {} if score.dark_neutral else score.calibration or {}  # never corrected: not a row
        features = [float("nan") if v is None else v for v in record.get("features", [None] * len(FEATURES))]
        before = record.get("before", [float("nan")] * 3)
        out.append((features, before, bool(score.passed), bool(far)))
    return out


def _score_chunk(args: tuple[str, bytes | None, list[int]]) -> list[tuple[bool, bool]]:
    """Images ``idx`` scored by the scorer with the calibration ``raw`` (its file's bytes; None:
    the rules alone): (target passed, far colour accepted)."""
    system, raw, idx = args
    meta, imgs, masks = _DATA["data"]
    calibration = None if raw is None else calibration_from_json(raw, "held-out", "a study's calibration")
    scorer = ColorScorer(system, calibration=calibration)
    out = []
    for i in idx:
        ok = scorer.score_image(imgs[i], meta[i]["target"], mask=masks[i])[0].passed
        far = scorer.score_image(imgs[i], meta[i]["far"], mask=masks[i])[0].passed
        out.append((bool(ok), bool(far)))
    return out


def rules_key(system: str) -> str:
    """What the cached features depend on: the rules' settings (the scorer without a calibration)."""
    config = ColorScorer(system, calibration=None).config()
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


def system_table(args: argparse.Namespace, system: str, render: str = "quick") -> dict[str, Any]:
    """Every study image of ``system``: its images (scorer_study's triple) and the rules' features,
    dominant colours, passes and far accepts, the truth (CIELAB) and family; the features cached
    beside the images (another rules' setting or another set of images, another file)."""
    ns = argparse.Namespace(**{**vars(args), "system": system, "size": None, "spp": None, **RENDERS[render]})
    data = scorer_study.every_family_images(ns)
    meta = data[0]
    # what the features depend on besides the rules: the images themselves (in order) and the features'
    # definition; another of either, another file
    digest = hashlib.sha256("\n".join(FEATURES).encode())
    for image, mask in zip(data[1], data[2], strict=True):
        digest.update(np.ascontiguousarray(image).tobytes())
        digest.update(np.packbits(mask).tobytes())
    cache = Path(f"{args.cache}.{system}.{render}.calibration-{rules_key(system)}-{digest.hexdigest()[:12]}.npz")
    if cache.exists():
        z = np.load(cache, allow_pickle=False)
        features, before, passed, far = z["features"], z["before"], z["passed"], z["far"]
    else:
        _DATA["data"] = data
        with ProcessPoolExecutor(
            max_workers=os.cpu_count() or 2, initializer=_DATA.update, initargs=({"data": data},)
        ) as pool:
            tasks = [(system, c) for c in scorer_study.chunks(len(meta))]
            rows = [r for part in pool.map(_features_chunk, tasks) for r in part]
        features = np.array([r[0] for r in rows], dtype=np.float64)
        before = np.array([r[1] for r in rows], dtype=np.float64)
        passed = np.array([r[2] for r in rows], dtype=bool)
        far = np.array([r[3] for r in rows], dtype=bool)
        np.savez_compressed(cache, features=features, before=before, passed=passed, far=far)
    truth = srgb_to_lab(np.array([scorer_study.truth_of(m) for m in meta], dtype=np.uint8))
    return {
        "system": system,
        "render": render,
        "data": data,
        "families": np.array([m["family"] for m in meta]),
        "features": features,
        "before": before,
        "passed": passed,
        "far": far,
        "truth": truth,
    }


def targets(table: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(usable rows, ΔL* target, ΔC*ab target): the truth less the rules' dominant colour."""
    before, truth = table["before"], table["truth"]
    usable = np.isfinite(table["features"]).all(axis=1) & np.isfinite(before).all(axis=1)
    d_l = truth[:, 0] - before[:, 0]
    d_c = np.hypot(truth[:, 1], truth[:, 2]) - np.hypot(before[:, 1], before[:, 2])
    return usable, d_l, d_c


def ensemble_json(estimator: Any) -> dict[str, Any]:
    """A fitted HistGradientBoostingRegressor as :class:`calibration.TreeEnsemble` reads it: its
    baseline and, per tree, each node's feature, threshold, children, leaf value and leaf flag."""
    trees = []
    for predictors in estimator._predictors:  # one tree per boosting iteration (a regressor)
        nodes = predictors[0].nodes
        leaf = nodes["is_leaf"].astype(bool)
        trees.append(
            {
                "feature": np.where(leaf, 0, nodes["feature_idx"]).astype(int).tolist(),
                "threshold": np.where(leaf, 0.0, nodes["num_threshold"]).astype(float).tolist(),
                "left": np.where(leaf, 0, nodes["left"]).astype(int).tolist(),
                "right": np.where(leaf, 0, nodes["right"]).astype(int).tolist(),
                "value": np.where(leaf, nodes["value"], 0.0).astype(float).tolist(),
                "leaf": leaf.tolist(),
            }
        )
    return {"baseline": float(np.ravel(estimator._baseline_prediction)[0]), "trees": trees}


def train(x: np.ndarray, d_l: np.ndarray, d_c: np.ndarray, name: str, training: dict[str, Any]) -> bytes:
    """The ensembles of :data:`TARGETS` fitted on ``x`` and written as a calibration file (its bytes)."""
    import sklearn
    from sklearn.ensemble import HistGradientBoostingRegressor

    fitted = {
        target: ensemble_json(HistGradientBoostingRegressor(**PARAMS).fit(x, y))
        for target, y in (("lightness", d_l), ("chroma", d_c))
        if target in TARGETS
    }
    doc = {
        "format": FORMAT,
        "name": name,
        "features": list(FEATURES),
        "targets": fitted,
        "training": {
            **training,
            "estimator": "sklearn.ensemble.HistGradientBoostingRegressor",
            "sklearn": sklearn.__version__,
            "params": PARAMS,
            "rows": len(x),
        },
    }
    return (json.dumps(doc, separators=(",", ":")) + "\n").encode()


def score_with(table: dict[str, Any], raw: bytes | None, rows: np.ndarray) -> np.ndarray:
    """The images ``rows`` of ``table`` scored by the scorer with calibration ``raw`` (None: rules):
    an (n, 2) bool array of (passed, far accepted)."""
    data = table["data"]
    with ProcessPoolExecutor(
        max_workers=os.cpu_count() or 2, initializer=_DATA.update, initargs=({"data": data},)
    ) as pool:
        idx = [int(i) for i in rows]
        tasks = [(table["system"], raw, idx[i : i + 200]) for i in range(0, len(idx), 200)]
        out = [r for part in pool.map(_score_chunk, tasks) for r in part]
    return np.array(out, dtype=bool).reshape(-1, 2)


def print_table(
    title: str, rows: list[tuple[str, str, int, float, float, tuple[float, float, float], int, int, int, int]]
) -> None:
    print(f"\n{title}")
    print(
        "| system, renders | held-out family | images | rules | calibrated | paired Δ [95 %] | gained / lost | far accepts |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for system, fam, n, base, cal, (d, lo, hi), gained, lost, far0, far1 in rows:
        star = "\\*" if lo > 0 or hi < 0 else ""
        print(
            f"| {system} | {fam} | {n} | {base:.2f} % | {cal:.2f} % | {d:+.2f} [{lo:+.2f}, {hi:+.2f}]{star} | "
            f"{gained} / {lost} | {far0} → {far1} |"
        )


#: the held-out tables: what each trains on besides the other families — every image, another
#: system's only (other colours and names), another render setting's only (another size and noise)
MODES = {
    "families": "Leave one family out (trained on every other family: both systems, both render settings)",
    "palettes": "Across palettes (trained on the other system's other families)",
    "renders": "Across render settings (trained on the other setting's other families)",
}


def held_out(
    tables: dict[tuple[str, str], dict[str, Any]], mode: str, outcomes: dict[str, np.ndarray] | None = None
) -> list[tuple[Any, ...]]:
    """Leave one family out for each (system, render setting) table, trained as :data:`MODES`
    says; ``outcomes`` gets every image's held-out (passed, far accepted), per table, in the
    images' order."""
    prepared = {k: targets(t) for k, t in tables.items()}
    families = sorted(set().union(*(set(t["families"].tolist()) for t in tables.values())))
    rows = []
    trained: dict[tuple[tuple[tuple[str, str], ...], str], bytes] = {}  # one ensemble pair per training set
    for key, table in tables.items():
        system, render = key
        sources = tuple(
            k
            for k in tables
            if mode == "families" or (mode == "palettes" and k[0] != system) or (mode == "renders" and k[1] != render)
        )
        for fam in families:
            test = np.flatnonzero(table["families"] == fam)
            if not len(test):
                continue
            if (sources, fam) not in trained:
                xs, ls, cs = [], [], []
                for k in sources:
                    usable, d_l, d_c = prepared[k]
                    keep = usable & (tables[k]["families"] != fam)
                    xs.append(tables[k]["features"][keep])
                    ls.append(d_l[keep])
                    cs.append(d_c[keep])
                trained[sources, fam] = train(
                    np.concatenate(xs), np.concatenate(ls), np.concatenate(cs), "held-out", {"without": fam}
                )
            calibrated = score_with(table, trained[sources, fam], test)
            if outcomes is not None:
                name = f"{system}.{render}"
                outcomes.setdefault(name, np.zeros((len(table["families"]), 2), dtype=bool))[test] = calibrated
            base = np.stack([table["passed"][test], table["far"][test]], axis=1)
            rows.append(
                (
                    f"{system}, {render}",
                    fam,
                    len(test),
                    100 * float(base[:, 0].mean()),
                    100 * float(calibrated[:, 0].mean()),
                    scorer_study.paired_difference(calibrated[:, 0], base[:, 0]),
                    int((calibrated[:, 0] & ~base[:, 0]).sum()),
                    int((base[:, 0] & ~calibrated[:, 0]).sum()),
                    int(base[:, 1].sum()),
                    int(calibrated[:, 1].sum()),
                )
            )
            print(
                f"  {mode}: {system} {render} {fam}: {rows[-1][3]:.2f} % → {rows[-1][4]:.2f} %",
                file=sys.stderr,
                flush=True,
            )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--renders",
        default=",".join(RENDERS),
        help=f"comma-separated render settings to learn from and judge on (default {','.join(RENDERS)}: "
        "48 px / 16 spp and 64 px / 32 spp)",
    )
    ap.add_argument("--cache", default=scorer_study.CACHE, help="where scorer_study caches the images")
    ap.add_argument("--name", default=CALIBRATION, help=f"the calibration's name (default {CALIBRATION})")
    ap.add_argument("--no-write", action="store_true", help="print the evidence, write no calibration")
    ap.add_argument("--refit", action="store_true", help="train on every family and write it, no evidence")
    ap.add_argument(
        "--tables", default=",".join(MODES), help=f"the held-out tables to print (default {','.join(MODES)})"
    )
    ap.add_argument("--dump", help="every image's held-out (passed, far accepted) to this .npz, per system")
    args = ap.parse_args()
    if args.no_write and args.refit:
        ap.error("--no-write and --refit together do nothing")
    renders = [r for r in args.renders.split(",") if r]
    modes = [m for m in args.tables.split(",") if m]
    bad = sorted(set(renders) - set(RENDERS)) + sorted(set(modes) - set(MODES))
    if bad or not renders:
        ap.error(
            f"unknown --renders or --tables {', '.join(bad) or '(none given)'}: "
            f"use {', '.join(RENDERS)}; {', '.join(MODES)}"
        )
    if "renders" in modes and len(renders) < 2:
        modes.remove("renders")  # one setting: nothing to hold out
    start = time.perf_counter()
    tables = {(s, r): system_table(args, s, r) for s in SYSTEMS for r in renders}
    print(
        f"features of {sum(len(t['families']) for t in tables.values())} images "
        f"({time.perf_counter() - start:.0f} s); the rules: scorer version {SCORER_VERSION} without a calibration",
        file=sys.stderr,
    )
    if not args.refit:
        for mode in modes:
            outcomes: dict[str, np.ndarray] = {}
            print_table(MODES[mode], held_out(tables, mode, outcomes))
            if args.dump:
                np.savez(f"{args.dump}.{mode}.npz", **outcomes)
    if args.no_write:
        return
    xs, ls, cs = [], [], []
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for (s, r), table in tables.items():
        usable, d_l, d_c = targets(table)
        xs.append(table["features"][usable])
        ls.append(d_l[usable])
        cs.append(d_c[usable])
        counts.setdefault(s, {})[r] = {
            f: int(((table["families"] == f) & usable).sum()) for f in sorted(set(table["families"].tolist()))
        }
    training = {
        "systems": list(SYSTEMS),
        "families": sorted({f for per in counts.values() for c in per.values() for f in c}),
        "images": counts,
        "renders": renders,
        "rules": {"scorer_version": SCORER_VERSION, "config_sha256": {s: rules_key(s) for s in SYSTEMS}},
    }
    raw = train(np.concatenate(xs), np.concatenate(ls), np.concatenate(cs), args.name, training)
    calibration = calibration_from_json(raw, args.name, "the new calibration")
    path = DATA / f"calibration-{args.name}.json"
    path.write_bytes(raw)
    bound = calibration.bound()
    print(
        f"\nwrote {path} ({len(raw) / 1024:.0f} KiB, sha256 {calibration.sha256[:16]}…): "
        f"corrections at most ±{bound[0]:.2f} L*, ±{bound[1]:.2f} C*ab"
    )


if __name__ == "__main__":
    main()
