"""The known-colour probes' metrics: pure functions of the per-sample records and the colour system.

Every metric is computed per answer method: ``choice`` (the name the model scores highest among the
system's names) and, for VLMs, ``open`` (its generated answer, parsed). A record holds, per method,
``named`` (a system name or None), ``named_lab`` and ``delta_e`` (CIEDE2000 to the true albedo).

The model's *choice distribution* over the names (used for P(name | hue) and for the score shift of
the contrast probe): the softmax of contrastive scores (they are logits), the match or yes
probabilities normalised over the names (Luce's choice rule) for ITM heads and VLMs, and a one-hot
vector of the parsed name for open answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from huebench.color import ColorSystem, delta_e, lch_to_lab, linear_rgb_to_xyz, xyz_to_lab
from huebench.stats import bootstrap_ci

__all__ = [
    "boundaries_metrics",
    "choice_distribution",
    "constancy_metrics",
    "contrast_metrics",
    "naming_metrics",
    "system_boundaries",
]

Record = dict[str, Any]
#: the system's boundaries are found on a hue grid this fine (degrees)
SYSTEM_GRID = 0.1


def choice_distribution(record: Record, method: str, names: Sequence[str]) -> NDArray[np.float64]:
    """The model's distribution over ``names`` for one record (see the module's docstring)."""
    k = len(names)
    if method == "open":
        out = np.zeros(k)
        named = record["open"]["named"]
        if named is not None:
            out[list(names).index(named)] = 1.0
        return out
    s = np.asarray(record["choice"]["scores"], dtype=np.float64)
    if record["capability"] == "image-text-score":
        e = np.exp(s - s.max())
        return np.asarray(e / e.sum(), dtype=np.float64)
    p = np.clip(s, 0.0, None)
    total = float(p.sum())
    return np.asarray(p / total if total > 0 else np.full(k, 1.0 / k), dtype=np.float64)


def _ci(values: Sequence[float], seed: int) -> dict[str, Any]:
    return bootstrap_ci([float(v) for v in values], seed=seed)


def _grouped(records: Sequence[Record], key: Callable[[Record], Any]) -> dict[Any, list[Record]]:
    out: dict[Any, list[Record]] = {}
    for r in records:
        out.setdefault(key(r), []).append(r)
    return out


def _lab(values: Any) -> NDArray[np.float64]:
    return np.asarray(values, dtype=np.float64)


def naming_metrics(
    records: Sequence[Record], method: str, system: ColorSystem, names: Sequence[str], seed: int
) -> Record:
    """Accuracy, CIEDE2000 between the named colour and the albedo, and the confusion matrix."""
    rs = [r for r in records if r["probe"] == "naming"]
    if not rs:
        return {}
    lab = np.stack([system.get(n).lab for n in names])
    correct = [bool(r[method]["correct"]) for r in rs]
    named = [r for r in rs if r[method]["named"] is not None]
    truths = np.stack([_lab(r["lab"]) for r in rs])
    # the mean ΔE00 of a namer that picks uniformly among the names: the error's chance level
    chance_de = float(np.mean(delta_e(lab[None, :, :], truths[:, None, :])))
    index = {n: i for i, n in enumerate(names)}
    matrix = [[0] * len(names) for _ in names]
    unnamed = [0] * len(names)
    for r in rs:
        row = index[r["color"]]
        if r[method]["named"] is None:
            unnamed[row] += 1
        else:
            matrix[row][index[r[method]["named"]]] += 1
    return {
        "accuracy": _ci(correct, seed),
        "chance": 1.0 / len(names),
        "delta_e": _ci([r[method]["delta_e"] for r in named], seed),
        "chance_delta_e": chance_de,
        "unnamed": len(rs) - len(named),
        "by_material": {
            m: _ci([bool(r[method]["correct"]) for r in of], seed)
            for m, of in sorted(_grouped(rs, lambda r: r["material"]).items())
        },
        "per_color": {
            n: float(np.mean([bool(r[method]["correct"]) for r in of]))
            for n, of in _grouped(rs, lambda r: r["color"]).items()
        },
        "confusion": {"labels": list(names), "matrix": matrix, "unnamed": unnamed},
    }


def constancy_metrics(
    records: Sequence[Record], method: str, names: Sequence[str], reference: str, seed: int
) -> Record:
    """Agreement of the named colour across lights (the constancy index), with and without the
    camera's white balance, and how often the model names the light's colour instead."""
    rs = [r for r in records if r["probe"] == "constancy"]
    if not rs:
        return {}
    out: Record = {
        "chance": 1.0 / len(names),
        "index": {},
        "index_when_right": {},
        "by_light": {},
        "accuracy": {},
        "light_color_rate": {},
        "image_color_rate": {},
    }
    for wb, of in sorted(_grouped(rs, lambda r: "balanced" if r["white_balance"] else "unbalanced").items()):
        groups = _grouped(of, lambda r: (r["color"], r["object"]))
        per_group: list[float] = []
        when_right: list[float] = []  # a namer that says one name for everything is constant too
        per_light: dict[str, list[float]] = {}
        for (color, _), group in groups.items():
            by_light = {r["light"]: r[method]["named"] for r in group}
            if reference not in by_light:
                continue  # the reference render was not run (--limit): no agreement to measure
            ref = by_light[reference]
            agree = {light: float(ref is not None and n == ref) for light, n in by_light.items() if light != reference}
            if agree:
                per_group.append(float(np.mean(list(agree.values()))))
                if ref == color:
                    when_right.append(per_group[-1])
            for light, v in agree.items():
                per_light.setdefault(light, []).append(v)
        out["index"][wb] = _ci(per_group, seed)
        out["index_when_right"][wb] = _ci(when_right, seed)
        out["by_light"][wb] = {light: float(np.mean(v)) for light, v in per_light.items()}
        out["accuracy"][wb] = {
            light: float(np.mean([bool(r[method]["correct"]) for r in lr]))
            for light, lr in _grouped(of, lambda r: r["light"]).items()
        }
        coloured = [r for r in of if r["light"] != reference]
        out["light_color_rate"][wb] = _ci(
            [r[method]["named"] == r["light_name"] for r in coloured if r["light_name"] != r["color"]], seed
        )
        out["image_color_rate"][wb] = _ci(
            [r[method]["named"] == r["shown_name"] for r in coloured if r["shown_name"] != r["color"]], seed
        )
    return out


def surround_lab(linear: Sequence[float]) -> NDArray[np.float64]:
    return np.asarray(xyz_to_lab(linear_rgb_to_xyz(np.asarray(linear, dtype=np.float64))), dtype=np.float64)


def contrast_metrics(
    records: Sequence[Record],
    method: str,
    system: ColorSystem,
    names: Sequence[str],
    surrounds: Mapping[str, Sequence[float]],
    reference: str,
    seed: int,
) -> Record:
    """The shift of the named colour, and of the colour the model's distribution expects, from the
    reference surround to each other surround, for the same albedo and object."""
    rs = [r for r in records if r["probe"] == "contrast"]
    if not rs:
        return {}
    lab = np.stack([system.get(n).lab for n in names])

    def expected(r: Record) -> NDArray[np.float64] | None:
        p = choice_distribution(r, method, names)
        return None if p.sum() <= 0 else np.asarray(p @ lab / p.sum(), dtype=np.float64)

    shifts: dict[str, dict[str, list[float]]] = {}
    for group in _grouped(rs, lambda r: (r["color"], r["object"])).values():
        by_bg = {r["background"]: r for r in group}
        ref = by_bg.get(reference)
        if ref is None:
            continue
        ref_soft = expected(ref)
        for bg, r in by_bg.items():
            if bg == reference:
                continue
            s = shifts.setdefault(
                bg, {k: [] for k in ("changed", "de", "dl", "push", "soft_de", "soft_dl", "soft_push")}
            )
            ab = surround_lab(surrounds[bg])[1:]
            unit = ab / np.linalg.norm(ab) if np.linalg.norm(ab) > 1.0 else None  # hue of a chromatic surround
            a, b = r[method]["named_lab"], ref[method]["named_lab"]
            if a is not None and b is not None:
                la, lb = _lab(a), _lab(b)
                s["changed"].append(float(r[method]["named"] != ref[method]["named"]))
                s["de"].append(float(delta_e(la, lb)))
                s["dl"].append(float(la[0] - lb[0]))
                if unit is not None:
                    s["push"].append(float((la[1:] - lb[1:]) @ unit))
            soft = expected(r)
            if soft is not None and ref_soft is not None:
                s["soft_de"].append(float(delta_e(soft, ref_soft)))
                s["soft_dl"].append(float(soft[0] - ref_soft[0]))
                if unit is not None:
                    s["soft_push"].append(float((soft[1:] - ref_soft[1:]) @ unit))
    by_bg_out = {
        bg: {
            "shift_rate": _ci(s["changed"], seed),
            "delta_e": _ci(s["de"], seed),
            "delta_l": _ci(s["dl"], seed),
            "soft_delta_e": _ci(s["soft_de"], seed),
            "soft_delta_l": _ci(s["soft_dl"], seed),
            **({"toward_surround": _ci(s["push"], seed)} if s["push"] else {}),
            **({"soft_toward_surround": _ci(s["soft_push"], seed)} if s["soft_push"] else {}),
        }
        for bg, s in shifts.items()
    }
    return {
        "reference": reference,
        "shift_rate": _ci([v for s in shifts.values() for v in s["changed"]], seed),
        "by_background": by_bg_out,
    }


def _transitions(hues: Sequence[float], top: Sequence[str | None]) -> list[Record]:
    """Where the top name changes between consecutive hues of a circular sweep: the midpoint."""
    out = []
    n = len(hues)
    for i in range(n):
        j = (i + 1) % n
        a, b = top[i], top[j]
        if a is None or b is None or a == b or n < 2:
            continue
        h0, h1 = hues[i], hues[j] + (360.0 if j == 0 else 0.0)
        out.append({"hue": round(((h0 + h1) / 2) % 360.0, 4), "from": a, "to": b})
    return out


def system_boundaries(system: ColorSystem, names: Sequence[str], lightness: float, chroma: float) -> list[Record]:
    """The hues at which the system's nearest-centroid name (CIEDE2000) of LCh(lightness, chroma, h) changes."""
    grid = np.arange(0.0, 360.0, SYSTEM_GRID)
    lab = lch_to_lab(np.stack([np.full_like(grid, lightness), np.full_like(grid, chroma), grid], axis=-1))
    member = np.stack([system.get(n).lab for n in names])
    idx = np.argmin(delta_e(member[None, :, :], lab[:, None, :]), axis=1)
    return _transitions(grid.tolist(), [names[i] for i in idx])


def _circular(a: float, b: float) -> float:
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


def boundaries_metrics(
    records: Sequence[Record], method: str, system: ColorSystem, names: Sequence[str], seed: int
) -> Record:
    """P(name | hue) per lightness level, the model's boundaries (where its top name changes) and
    their distance in hue from the system's nearest-centroid boundaries between the same two names."""
    rs = [r for r in records if r["probe"] == "boundaries"]
    if not rs:
        return {}
    levels = []
    distances: list[float] = []
    n_system = n_model = 0
    for (lightness, chroma), of in sorted(_grouped(rs, lambda r: (r["lightness"], r["chroma"])).items()):
        by_hue = _grouped(of, lambda r: r["hue"])
        hues = sorted(by_hue)
        probs = np.stack([np.mean([choice_distribution(r, method, names) for r in by_hue[h]], axis=0) for h in hues])
        top = [names[int(np.argmax(p))] if p.max() > 0 else None for p in probs]
        model = _transitions(hues, top)
        sysb = system_boundaries(system, names, lightness, chroma)
        matched = []
        for b in sysb:
            pair = {b["from"], b["to"]}
            same = [m for m in model if {m["from"], m["to"]} == pair]
            near = min(same, key=lambda m: _circular(m["hue"], b["hue"]), default=None)
            dist = None if near is None else _circular(near["hue"], b["hue"])
            matched.append(
                {
                    "pair": f"{b['from']} | {b['to']}",
                    "system_hue": b["hue"],
                    "model_hue": near and near["hue"],
                    "distance": dist,
                }
            )
            if dist is not None:
                distances.append(dist)
        n_system += len(sysb)
        n_model += len(model)
        keep = [i for i in range(len(names)) if probs[:, i].max() >= 0.05 or names[i] in top]
        levels.append(
            {
                "lightness": lightness,
                "chroma": chroma,
                "hues": hues,
                "curves": {names[i]: [round(float(v), 5) for v in probs[:, i]] for i in keep},
                "top": top,
                "model": model,
                "system": sysb,
                "matched": matched,
            }
        )
    agree = [r[method]["named"] == r["system_name"] for r in rs]
    return {
        "agreement": _ci(agree, seed),
        "chance": 1.0 / len(names),
        "distance": _ci(distances, seed),
        "matched": len(distances),
        "system_boundaries": n_system,
        "model_boundaries": n_model,
        "levels": levels,
    }


def recolored_metrics(records: Sequence[Record], method: str, seed: int) -> Record:
    """Naming after the object's hue was turned in CIELCh: accuracy against the turned albedo's
    nearest name, per turn and over all; the same objects' naming accuracy as rendered; the share of
    object–colour pairs named right as rendered *and* after every turn (robust, as ColorBench counts
    an instance); and the edit's mean ΔE00 per turn."""
    rs = [r for r in records if r["probe"] == "recolored"]
    if not rs:
        return {}
    named_as_rendered = {
        (r["object"], r["color"]): bool(r[method]["correct"]) for r in records if r["probe"] == "naming"
    }
    pairs = _grouped(rs, lambda r: (r["object"], r["source_color"]))
    robust = [
        named_as_rendered[pair] and all(bool(r[method]["correct"]) for r in of)
        for pair, of in pairs.items()
        if pair in named_as_rendered
    ]
    return {
        "accuracy": _ci([bool(r[method]["correct"]) for r in rs], seed),
        "as_rendered": _ci([named_as_rendered[p] for p in pairs if p in named_as_rendered], seed),
        "robust": _ci(robust, seed),
        "by_shift": {
            f"{shift:g}": {
                "accuracy": _ci([bool(r[method]["correct"]) for r in of], seed),
                "edit_delta_e": float(np.mean([r["edit"]["delta_e00_mean"] for r in of])),
                "edit_delta_l": float(np.mean([r["edit"]["delta_l_mean"] for r in of])),
                "gamut_mapped": float(np.mean([r["edit"]["gamut_mapped"] for r in of])),
            }
            for shift, of in sorted(_grouped(rs, lambda r: float(r["hue_shift"])).items())
        },
    }
