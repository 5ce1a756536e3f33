"""GenColorBench's analyses (seed 004 §4, Appendix F) as pure functions of per-image records.

- **Table 4** row: accuracy per task, averaged over the ISCC-NBS L2, L3 and CSS3/X11 prompts
  (the mean of the three systems' accuracies), and the average over tasks;
- **Table 11 / Figure 2**: colour-name accuracy (CNA) per object category and system;
- **Figure 5 (left)**: basic vs intermediate L2 colours (CNA). The paper's rule is Berlin & Kay's —
  a basic colour is named with a single word — so basic = the single-word L2 names (Pink, Red,
  Orange, Brown, Yellow, Olive, Green, Blue, Purple, White, Gray, Black); its printed list omits
  Pink although its finding names pink among the basic colours;
- **Figure 5 (right)**: L3 modifiers (CNA): "light" (names with light, incl. very light / light
  grayish), "dark" (dark, incl. very dark / dark grayish), "-ish" (a word ending in -ish: reddish,
  grayish, …); a name can fall in two groups;
- **Figure 3**: the colour-bias histogram — the dominant colour of every judged target object,
  named by its nearest ISCC-NBS L1 colour (CIEDE2000), per object category;
- **per-colour accuracy** (CNA): colour × category, for the heatmaps.

Accuracy is over judged images (``correct`` is true/false); images the pipeline could not judge
(``correct`` null, e.g. several objects without a detector) are counted and listed by reason.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from huebench.stats import bootstrap_ci

__all__ = ["TABLE4_SYSTEMS", "analyses", "modifier_groups", "report_sections"]

TABLE4_SYSTEMS = ("iscc-nbs-l2", "iscc-nbs-l3", "css3")
TASK_ORDER = ("cna", "coa", "moc", "ica", "ncu")
TASK_TITLES = {
    "cna": "Color Name Accuracy",
    "coa": "Color-Object Association",
    "moc": "Multi-Object Color Composition",
    "ica": "Implicit Color Association",
    "ncu": "Numerical Color Understanding",
}


def _pct(values: Sequence[bool]) -> float | None:
    return 100.0 * float(np.mean(values)) if values else None


def modifier_groups(name: str) -> list[str]:
    words = name.lower().split()
    groups = []
    if "light" in words:
        groups.append("light")
    if "dark" in words:
        groups.append("dark")
    if any(w.endswith("ish") for w in words):
        groups.append("-ish")
    return groups


def _nearest_l1(labs: np.ndarray) -> list[str]:
    from huebench.color import delta_e, load_system

    l1 = load_system("iscc-nbs-l1")
    ref = np.array([np.asarray(c.lab, dtype=float) for c in l1])
    d = delta_e(labs[:, None, :], ref[None, :, :])
    return [l1.colors[int(j)].name for j in np.argmin(d, axis=1)]


def analyses(records: Sequence[dict[str, Any]], *, seed: int = 0) -> dict[str, Any]:
    judged = [r for r in records if r.get("correct") is not None]
    unjudged = [r for r in records if r.get("correct") is None]
    out: dict[str, Any] = {
        "images": len(records),
        "judged": len(judged),
        "unjudged": len(unjudged),
        "unjudged_reasons": dict(Counter(r["reason"] for r in unjudged).most_common(10)),
        "accuracy": bootstrap_ci([100.0 * bool(r["correct"]) for r in judged], seed=seed) if judged else None,
    }
    by_task: dict[str, list[bool]] = defaultdict(list)
    by_ts: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for r in judged:
        by_task[r["task"]].append(bool(r["correct"]))
        by_ts[(r["task"], r["system"])].append(bool(r["correct"]))
    out["by_task"] = {t: bootstrap_ci([100.0 * v for v in by_task[t]], seed=seed) for t in TASK_ORDER if t in by_task}
    out["by_task_system"] = {
        t: {s: _pct(v) for (t2, s), v in sorted(by_ts.items()) if t2 == t} for t in TASK_ORDER if t in by_task
    }
    table4 = {}
    for t in TASK_ORDER:
        vals = [v for s in TABLE4_SYSTEMS if (v := _pct(by_ts.get((t, s), []))) is not None]
        table4[t] = float(np.mean(vals)) if vals else None
    present = [v for v in table4.values() if v is not None]
    out["table4"] = {**table4, "avg": float(np.mean(present)) if present else None}

    cna = [r for r in judged if r["task"] == "cna"]
    cat: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for r in cna:
        cat[r["system"]][r["category"] or "other"].append(bool(r["correct"]))
    out["by_category"] = {s: {c: _pct(v) for c, v in sorted(d.items())} for s, d in sorted(cat.items())}
    avg_cat: dict[str, list[float]] = defaultdict(list)
    for s in TABLE4_SYSTEMS:
        for c, v in out["by_category"].get(s, {}).items():
            avg_cat[c].append(v)
    out["by_category_avg"] = {c: float(np.mean(v)) for c, v in sorted(avg_cat.items())}

    l2 = [r for r in cna if r["system"] == "iscc-nbs-l2"]
    basic = [bool(r["correct"]) for r in l2 if len(r["colors"][0].split()) == 1]
    inter = [bool(r["correct"]) for r in l2 if len(r["colors"][0].split()) > 1]
    out["basic_vs_intermediate"] = {"basic": _pct(basic), "intermediate": _pct(inter), "n": [len(basic), len(inter)]}
    mods: dict[str, list[bool]] = defaultdict(list)
    for r in cna:
        if r["system"] == "iscc-nbs-l3":
            for g in modifier_groups(r["colors"][0]):
                mods[g].append(bool(r["correct"]))
    out["modifiers"] = {g: _pct(mods[g]) for g in ("light", "dark", "-ish") if mods.get(g)}

    per_color: dict[str, dict[str, dict[str, list[bool]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in cna:
        per_color[r["system"]][r["colors"][0]][r["category"] or "other"].append(bool(r["correct"]))
    out["per_color"] = {
        s: {c: {k: _pct(v) for k, v in sorted(cats.items())} for c, cats in colors.items()}
        for s, colors in sorted(per_color.items())
    }

    targets = [
        (r["category"] or "other", o["score"]["dominant_lab"])
        for r in records
        if r.get("status", "ok") == "ok"
        for o in r.get("objects", [])
        if o.get("role") == "target" and o.get("score") and o["score"].get("dominant_lab")
    ]
    bias: dict[str, Counter[str]] = defaultdict(Counter)
    if targets:
        names = _nearest_l1(np.array([lab for _, lab in targets], dtype=float))
        for (c, _), n in zip(targets, names, strict=True):
            bias[c][n] += 1
    out["color_bias"] = {
        c: {n: 100.0 * k / sum(cnt.values()) for n, k in cnt.most_common()} for c, cnt in sorted(bias.items())
    }
    out["images_by_status"] = dict(Counter(r.get("image_status", "?") for r in records))
    return out


def report_sections(results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
    from huebench.color import load_system
    from huebench.report.html import Section, fmt_num
    from huebench.report.svg import bar_chart_svg, heatmap_svg

    m = results["metrics"]
    t4 = m["table4"]
    sections = [
        Section(
            "Table 4 shape: accuracy per task (mean over ISCC-NBS L2, L3 and CSS3/X11)",
            table={
                "columns": ["model", *[TASK_TITLES[t] for t in TASK_ORDER], "Avg."],
                "rows": [[results["model"], *[fmt_num(t4.get(t), 2) for t in TASK_ORDER], fmt_num(t4.get("avg"), 2)]],
            },
            note=f"{m['judged']} images judged, {m['unjudged']} not judged"
            + (f" (reasons: {m['unjudged_reasons']})" if m["unjudged"] else ""),
        ),
        Section(
            "Accuracy per task and system",
            table={
                "columns": ["task", "system", "% correct"],
                "rows": [[t, s, fmt_num(v, 2)] for t, d in m["by_task_system"].items() for s, v in d.items()],
            },
        ),
    ]
    if m["by_category_avg"]:
        cats = list(m["by_category_avg"])
        sections.append(
            Section(
                "Colour name accuracy per object category (Table 11 / Figure 2)",
                svg=bar_chart_svg(cats, [m["by_category_avg"][c] for c in cats], ymax=100.0, ylabel="% correct"),
                table={
                    "columns": ["system", *cats],
                    "rows": [[s, *[fmt_num(d.get(c), 1) for c in cats]] for s, d in m["by_category"].items()],
                },
            )
        )
    bi, mods = m["basic_vs_intermediate"], m["modifiers"]
    if bi["basic"] is not None or mods:
        labels = [x for x in ("basic", "intermediate") if bi[x] is not None] + list(mods)
        values = [bi[x] for x in ("basic", "intermediate") if bi[x] is not None] + list(mods.values())
        sections.append(
            Section(
                "Basic vs intermediate L2 colours; L3 modifiers (Figure 5)",
                svg=bar_chart_svg(labels, values, ymax=100.0, ylabel="% correct"),
            )
        )
    if m["color_bias"]:
        l1 = [c.name for c in load_system("iscc-nbs-l1")]
        cats = list(m["color_bias"])
        sections.append(
            Section(
                "Dominant colours of the generated objects, per category (Figure 3: colour bias)",
                svg=heatmap_svg(
                    [[m["color_bias"][c].get(n, 0.0) for n in l1] for c in cats],
                    cats,
                    l1,
                    vmin=0.0,
                    fmt="{:.0f}",
                    title="% of objects whose dominant colour is nearest each ISCC-NBS L1 colour",
                ),
            )
        )
    for system, colors in m["per_color"].items():
        cats = sorted({k for d in colors.values() for k in d})
        names = [c.name for c in load_system(system) if c.name in colors]
        if len(names) > 60:  # L3 / CSS: the 60 most frequent colours keep the figure readable
            names = names[:60]
        sections.append(
            Section(
                f"Colour name accuracy per colour and category — {system}",
                svg=heatmap_svg(
                    [[colors[n].get(k) for k in cats] for n in names], names, cats, vmin=0.0, vmax=100.0, fmt="{:.0f}"
                ),
            )
        )
    return sections
