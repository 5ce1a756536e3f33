"""The known-colours report: the headline table, then pictures of each probe — the confusion matrix with
swatches, the constancy and contrast shifts as colour grids and image cards, and P(name | hue) drawn
in each name's own colour with the model's and the system's boundaries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from huebench.benchmarks.known_colors.stimuli import LIGHTS, REFERENCE_LIGHT, REFERENCE_SURROUND, SURROUNDS
from huebench.color import Color, lch_to_lab, linear_to_srgb8
from huebench.report.gallery import GalleryItem, Metric, lab_hex
from huebench.report.html import Section, bar_chart_svg, fmt_num, fmt_percent, heatmap_svg
from huebench.report.svg import curves_svg, swatch_grid_svg

if TYPE_CHECKING:
    from huebench.benchmarks.known_colors.benchmark import KnownColors

__all__ = ["sections"]

#: the confusion matrix shows at most this many names (the most frequent, true or named)
MAX_CONFUSION = 30
METHOD_TITLES = {"choice": "forced choice", "open": "open answer"}

Record = dict[str, Any]


def _hex_rgb(rgb: Sequence[int]) -> str:
    r, g, b = (int(v) / 255.0 for v in rgb)
    return Color((r, g, b)).hex


def _ci_cells(v: dict[str, Any] | None, digits: int | None = None) -> list[str]:
    """Value, interval and n; a share (``digits`` None) as a percentage with one decimal, as every
    report shows accuracies, any other measure with ``digits`` decimals."""
    if not v:
        return ["n/a", "", "0"]
    if digits is None:
        lo, hi = fmt_percent(v["low"], 1, unit=False), fmt_percent(v["high"], 1, unit=False)
        return [fmt_percent(v["value"], 1), f"[{lo}, {hi}]", str(v["n"])]
    return [fmt_num(v["value"], digits), f"[{fmt_num(v['low'], digits)}, {fmt_num(v['high'], digits)}]", str(v["n"])]


def _summary(m: dict[str, Any], methods: Sequence[str]) -> Section:
    rows = []
    for method in methods:
        mm = m[method]
        title = METHOD_TITLES[method]
        nm, cm, ct, bd = mm["naming"], mm["constancy"], mm["contrast"], mm["boundaries"]
        rc = mm.get("recolored") or {}
        if nm:
            rows.append(
                [title, "naming accuracy", *_ci_cells(nm["accuracy"]), f"chance {fmt_percent(nm['chance'], 1)}"]
            )
            rows.append(
                [
                    title,
                    "ΔE00, named colour to albedo",
                    *_ci_cells(nm["delta_e"], 2),
                    f"chance {fmt_num(nm['chance_delta_e'], 2)}",
                ]
            )
        if cm:
            for wb in ("unbalanced", "balanced"):
                if wb in cm["index"]:
                    rows.append(
                        [
                            title,
                            f"constancy index, {wb}",
                            *_ci_cells(cm["index"][wb]),
                            "100 % = constant; chance ≈ " + fmt_percent(cm["chance"], 1),
                        ]
                    )
                    rows.append(
                        [
                            title,
                            f"constancy index, {wb}, albedos named right under {REFERENCE_LIGHT}",
                            *_ci_cells(cm["index_when_right"][wb]),
                            "a namer with one name for everything is constant too",
                        ]
                    )
            if "unbalanced" in cm["light_color_rate"]:
                rows.append(
                    [
                        title,
                        "names the light's colour (unbalanced)",
                        *_ci_cells(cm["light_color_rate"]["unbalanced"]),
                        "",
                    ]
                )
                rows.append(
                    [
                        title,
                        "names the colour the image shows (unbalanced)",
                        *_ci_cells(cm["image_color_rate"]["unbalanced"]),
                        "",
                    ]
                )
        if ct:
            rows.append(
                [
                    title,
                    f"named colour changes with the surround (vs {ct['reference']})",
                    *_ci_cells(ct["shift_rate"]),
                    "",
                ]
            )
        if bd:
            rows.append(
                [
                    title,
                    "sweep: agrees with nearest-centroid name",
                    *_ci_cells(bd["agreement"]),
                    f"chance {fmt_percent(bd['chance'], 1)}",
                ]
            )
            rows.append(
                [
                    title,
                    "boundary distance from the system's (° hue)",
                    *_ci_cells(bd["distance"], 1),
                    f"{bd['matched']} of {bd['system_boundaries']} system boundaries found; model has {bd['model_boundaries']}",
                ]
            )
        if rc:
            rows.append(
                [
                    title,
                    "recolored: named after a CIELCh hue turn",
                    *_ci_cells(rc["accuracy"]),
                    "the same objects as rendered: " + fmt_percent(rc["as_rendered"]["value"], 1),
                ]
            )
            rows.append(
                [title, "recolored: robust (right as rendered and after every turn)", *_ci_cells(rc["robust"]), ""]
            )
    columns = ["method", "measure", "value", "95% CI", "n", "reference"]
    heading = f"Known colours ({m['system']}, {m['names']} names)"
    if len(methods) == 1:  # the one method goes in the heading, not in every row
        columns, rows = columns[1:], [row[1:] for row in rows]
        heading = f"Known colours ({m['system']}, {m['names']} names, {METHOD_TITLES[methods[0]]})"
    return Section(
        heading,
        table={"columns": columns, "rows": rows},
        note="docs/known-colors.md says what each measure is and what people do",
    )


def _confusion(bench: KnownColors, nm: dict[str, Any], method: str) -> list[Section]:
    conf = nm["confusion"]
    labels, matrix = conf["labels"], np.asarray(conf["matrix"], dtype=float)
    keep = list(range(len(labels)))
    if len(labels) > MAX_CONFUSION:  # the names that carry most of the matrix
        mass = matrix.sum(axis=0) + matrix.sum(axis=1)
        keep = sorted(np.argsort(-mass, kind="stable")[:MAX_CONFUSION].tolist())
    rows = matrix / np.maximum(matrix.sum(axis=1, keepdims=True), 1)
    swatch = [bench.system.get(labels[i]).hex for i in keep]
    out = [
        Section(
            f"Naming, {METHOD_TITLES[method]}: confusion (rows: true albedo, columns: named; share of the row)",
            svg=heatmap_svg(
                [[float(rows[i][j]) for j in keep] for i in keep],
                [labels[i] for i in keep],
                [labels[j] for j in keep],
                vmin=0.0,
                vmax=1.0,
                fmt="{:.2f}",
                row_colors=swatch,
                col_colors=swatch,
            ),
            note=(f"the {len(keep)} names with most samples, of {len(labels)}; " if len(keep) < len(labels) else "")
            + (f"{nm['unnamed']} answers named no colour" if nm["unnamed"] else ""),
        )
    ]
    pc = nm["per_color"]
    if len(pc) <= 40:
        names = list(pc)
        out.append(
            Section(
                f"Naming, {METHOD_TITLES[method]}: accuracy per colour",
                svg=bar_chart_svg(
                    names,
                    [pc[n] for n in names],
                    colors=[bench.system.get(n).hex for n in names],
                    ylabel="accuracy",
                    ymax=1.0,
                    reference=nm["chance"],
                ),
            )
        )
    return out


def _naming_gallery(records: Sequence[Record]) -> Section | None:
    cards = []
    for r in records:
        if r["probe"] != "naming" or "thumbnail" not in r:
            continue
        c = r["choice"]
        swatches = [("albedo", _hex_rgb(r["rgb"])), (f"named: {c['named']}", lab_hex(c["named_lab"]) or "#dddddd")]
        if "open" in r and r["open"]["named"] is not None:
            swatches.append((f"open: {r['open']['named']}", lab_hex(r["open"]["named_lab"]) or "#dddddd"))
        cards.append(
            GalleryItem(
                title=r["id"],
                passed=bool(c["correct"]),
                reason=r["reason"],
                images=[r["thumbnail"]],
                swatches=swatches,
                metrics=[Metric("ΔE00", c["delta_e"], None, bool(c["correct"]))],
                tags={
                    "colour": str(r["color"]),
                    "object": r["object"],
                    "material": r["material"],
                    "lighting": r["lighting"],
                },
                sort_key=float(c["delta_e"] or 0.0),
            )
        )
    if not cards:
        return None
    return Section(
        "Naming: images, failures first", gallery=cards, note="swatches: the albedo, and the colour of the name chosen"
    )


def _majority(names: Sequence[str | None]) -> str | None:
    counts = Counter(n for n in names if n is not None)
    return counts.most_common(1)[0][0] if counts else None


def _constancy(
    bench: KnownColors, records: Sequence[Record], cm: dict[str, Any]
) -> tuple[list[Section], list[Section]]:
    """The constancy table and colour grid, and (apart) the gallery of one shape under every light."""
    rs = [r for r in records if r["probe"] == "constancy"]
    if not rs:
        return [], []
    lights = list(LIGHTS)
    cols = [(wb, light) for wb in (False, True) for light in lights]
    colors = list(dict.fromkeys(r["color"] for r in rs))
    groups: dict[tuple[str, bool, str], list[Record]] = {}
    for r in rs:
        groups.setdefault((r["color"], r["white_balance"], r["light"]), []).append(r)
    cells = []
    for c in colors:
        row: list[dict[str, object] | None] = []
        for wb, light in cols:
            g = groups.get((c, wb, light))
            if not g:
                row.append(None)
                continue
            named = _majority([r["choice"]["named"] for r in g])
            ref = _majority([r["choice"]["named"] for r in groups.get((c, wb, REFERENCE_LIGHT), [])])
            row.append(
                {
                    "inner": _hex_rgb(g[0]["shown_rgb"]),
                    "named": bench.system.get(named).hex if named else None,
                    "flag": named != ref,
                    "title": f"{c} under {light}{', white-balanced' if wb else ''}: the image shows {_hex_rgb(g[0]['shown_rgb'])}; named {named} (under {REFERENCE_LIGHT}: {ref})",
                }
            )
        cells.append(row)
    table_rows = []
    for camera in ("unbalanced", "balanced"):
        if camera not in cm.get("index", {}):
            continue
        table_rows.append(
            [
                camera,
                *_ci_cells(cm["index"][camera]),
                f"{fmt_percent(cm['index_when_right'][camera]['value'], 1)} (n {cm['index_when_right'][camera]['n']})",
                ", ".join(f"{k} {fmt_percent(v, 1)}" for k, v in cm["by_light"][camera].items()),
                ", ".join(f"{k} {fmt_percent(v, 1)}" for k, v in cm["accuracy"][camera].items()),
                fmt_percent(cm["light_color_rate"][camera]["value"], 1),
                fmt_percent(cm["image_color_rate"][camera]["value"], 1),
            ]
        )
    out = [
        Section(
            "Constancy (forced choice)",
            table={
                "columns": [
                    "camera",
                    "constancy index",
                    "95% CI",
                    "groups",
                    f"index, named right under {REFERENCE_LIGHT}",
                    f"agreement with {REFERENCE_LIGHT}, per light",
                    "accuracy per light",
                    "names the light's colour",
                    "names the image's colour",
                ],
                "rows": table_rows,
            },
            note=f"index: the share of lights under which the name is the one given under {REFERENCE_LIGHT}, per albedo and shape",
        ),
        Section(
            "Constancy: what the image shows (square) and what the model named (strip)",
            svg=swatch_grid_svg(colors, [f"{light}{' + WB' if wb else ''}" for wb, light in cols], cells),
            note=f"outlined in red: a name that differs from the one under {REFERENCE_LIGHT} (most common over shapes)",
        ),
    ]
    cards = []
    for c in colors:
        for wb in (False, True):
            shown = [r for light in lights for r in groups.get((c, wb, light), []) if "thumbnail" in r]
            if not shown:
                continue
            ref = next((r["choice"]["named"] for r in shown if r["light"] == REFERENCE_LIGHT), None)
            cards.append(
                GalleryItem(
                    title=f"{c}, {shown[0]['object']}, {'white-balanced' if wb else 'unbalanced'}",
                    passed=all(r["choice"]["named"] == ref for r in shown),
                    reason="; ".join(f"{r['light']}: {r['choice']['named']}" for r in shown),
                    images=[r["thumbnail"] for r in shown],
                    swatches=[("albedo", _hex_rgb(shown[0]["rgb"]))]
                    + [
                        (f"{r['light']}: {r['choice']['named']}", lab_hex(r["choice"]["named_lab"]) or "#dddddd")
                        for r in shown
                    ],
                    tags={"colour": c, "camera": "white-balanced" if wb else "unbalanced"},
                )
            )
    gallery = [Section(f"Constancy: one shape under {', '.join(lights)}", gallery=cards)] if cards else []
    return out, gallery


def _contrast(bench: KnownColors, records: Sequence[Record], ct: dict[str, Any]) -> list[Section]:
    rs = [r for r in records if r["probe"] == "contrast"]
    if not rs:
        return []
    surrounds = list(SURROUNDS)
    surround_hex = {s: _hex_rgb(linear_to_srgb8(np.asarray(v)).tolist()) for s, v in SURROUNDS.items()}
    rows = []
    for bg, v in ct["by_background"].items():
        rows.append(
            [
                bg,
                fmt_num(v["shift_rate"]["value"]),
                fmt_num(v["delta_e"]["value"], 2),
                fmt_num(v["delta_l"]["value"], 2),
                fmt_num((v.get("toward_surround") or {}).get("value"), 2),
                fmt_num(v["soft_delta_e"]["value"], 2),
                fmt_num(v["soft_delta_l"]["value"], 2),
                fmt_num((v.get("soft_toward_surround") or {}).get("value"), 2),
            ]
        )
    out = [
        Section(
            f"Contrast (forced choice): shifts from the {REFERENCE_SURROUND} surround",
            table={
                "columns": [
                    "surround",
                    "name changes",
                    "ΔE00 of the name",
                    "ΔL* of the name",
                    "a*b* toward the surround",
                    "ΔE00, scores",
                    "ΔL*, scores",
                    "a*b* toward, scores",
                ],
                "rows": rows,
            },
            note=(
                "people see a patch lighter on a dark surround (ΔL* > 0) and pushed away from a coloured "
                "surround's hue (toward < 0); 'scores': the colour the model's choice distribution expects"
            ),
        )
    ]
    for kind in ("flat", "object"):
        of = [r for r in rs if r["kind"] == kind]
        if not of:
            continue
        colors = list(dict.fromkeys(r["color"] for r in of))
        named: dict[tuple[str, str], str | None] = {}
        for c in colors:
            for bg in surrounds:
                named[(c, bg)] = _majority(
                    [r["choice"]["named"] for r in of if r["color"] == c and r["background"] == bg]
                )
        rgb = {r["color"]: r["rgb"] for r in of}
        cells = [
            [
                {
                    "outer": surround_hex[bg],
                    "inner": _hex_rgb(rgb[c]),
                    "named": bench.system.get(n).hex if (n := named[(c, bg)]) else None,
                    "flag": named[(c, bg)] != named[(c, REFERENCE_SURROUND)],
                    "title": f"{c} on {bg}: named {named[(c, bg)]} (on {REFERENCE_SURROUND}: {named[(c, REFERENCE_SURROUND)]})",
                }
                for bg in surrounds
            ]
            for c in colors
        ]
        out.append(
            Section(
                f"Contrast, {'flat patches' if kind == 'flat' else 'rendered objects'}: the albedo on each surround, and its name (strip)",
                svg=swatch_grid_svg(colors, surrounds, cells),
                note=f"outlined in red: a name that differs from the one on the {REFERENCE_SURROUND} surround",
            )
        )
    return out


def _recolored(bench: KnownColors, records: Sequence[Record], rc: dict[str, Any]) -> list[Section]:
    """The turned albedos (squares) and the names given (strips), per albedo and turn, on the first
    rendered shape; the accuracy and the edit's size per turn."""
    turned = [r for r in records if r["probe"] == "recolored" and r["object"] != "patch"]
    if not rc or not turned:
        return []
    shape = turned[0]["object"]
    named = {(r["color"], r["object"]): r for r in records if r["probe"] == "naming"}
    by = {(r["source_color"], float(r["hue_shift"])): r for r in turned if r["object"] == shape}
    colors = list(dict.fromkeys(r["source_color"] for r in turned if r["object"] == shape))
    shifts = sorted({k[1] for k in by})

    def cell(r: Record | None, truth_rgb: Sequence[int]) -> dict[str, object] | None:
        if r is None:
            return None
        return {
            "inner": _hex_rgb(truth_rgb),
            "named": lab_hex(r["choice"]["named_lab"]) or "#dddddd",
            "flag": not r["choice"]["correct"],
            "title": f"truth {r['color']}, named {r['choice']['named']}",
        }

    cells = [
        [cell(named.get((c, shape)), bench.system.get(c).rgb)]
        + [cell(by.get((c, sh)), by[(c, sh)]["turned_rgb"]) if (c, sh) in by else None for sh in shifts]
        for c in colors
    ]
    rows = [
        [
            f"{shift}°",
            *_ci_cells(v["accuracy"]),
            fmt_num(v["edit_delta_e"], 1),
            fmt_num(v["edit_delta_l"], 2),
            fmt_num(100 * v["gamut_mapped"], 1) + " %",
        ]
        for shift, v in rc["by_shift"].items()
    ]
    return [
        Section(
            f"Recoloured {shape}s: the albedo turned in CIELCh (square) and the name given (strip)",
            svg=swatch_grid_svg(colors, ["as rendered", *(f"turned {sh:g}°" for sh in shifts)], cells),
            note="outlined in red: not the turned albedo's nearest name",
        ),
        Section(
            "Recoloured objects: naming accuracy and the size of the edit per hue turn",
            table={
                "columns": ["turn", "accuracy", "95% CI", "n", "edit ΔE00", "edit |ΔL*|", "chroma reduced"],
                "rows": rows,
            },
            note="the edit: ΔE00 and |ΔL*| between each recoloured pixel before and after, averaged per image",
        ),
    ]


def _boundaries(bench: KnownColors, bd: dict[str, Any], method: str) -> list[Section]:
    out = []
    hexes = {n: bench.system.get(n).hex for n in bench.names}
    rows = []
    for level in bd["levels"]:
        lightness, chroma = level["lightness"], level["chroma"]
        strip = [lab_hex(lch_to_lab(np.array([lightness, chroma, h]))) or "#dddddd" for h in level["hues"]]
        marks = [(b["hue"], f"model: {b['from']} | {b['to']} at {b['hue']:.1f}°", True) for b in level["model"]]
        marks += [(b["hue"], f"system: {b['from']} | {b['to']} at {b['hue']:.1f}°", False) for b in level["system"]]
        out.append(
            Section(
                f"P(name | hue), {METHOD_TITLES[method]}: L* {lightness:g}, C* {chroma:g}",
                svg=curves_svg(
                    level["hues"],
                    level["curves"],
                    hexes,
                    ylabel="P(name | hue)",
                    xlabel="CIELAB hue angle (°); strip: the swept colours",
                    strip=strip,
                    marks=marks,
                ),
                note="solid lines: where the model's top name changes; dashed: the system's nearest-centroid boundaries",
            )
        )
        for mt in level["matched"]:
            rows.append(
                [
                    f"{lightness:g} / {chroma:g}",
                    mt["pair"],
                    fmt_num(mt["system_hue"], 1),
                    fmt_num(mt["model_hue"], 1),
                    fmt_num(mt["distance"], 1),
                ]
            )
    out.append(
        Section(
            f"Category boundaries, {METHOD_TITLES[method]}: the system's and the model's",
            table={"columns": ["L* / C*", "names", "system hue (°)", "model hue (°)", "distance (°)"], "rows": rows},
            note="the model's boundary between the same two names nearest to the system's; n/a: the model has none",
        )
    )
    return out


def sections(bench: KnownColors, results: dict[str, Any], records: Sequence[Record]) -> list[Section]:
    m = results["metrics"]
    methods = m.get("methods", ["choice"])
    out = [_summary(m, methods)]
    for method in methods:
        if m[method]["naming"]:
            out += _confusion(bench, m[method]["naming"], method)
    constancy, constancy_cards = _constancy(bench, records, m["choice"]["constancy"])
    out += constancy
    out += _contrast(bench, records, m["choice"]["contrast"])
    for method in methods:
        if m[method]["boundaries"]:
            out += _boundaries(bench, m[method]["boundaries"], method)
    out += _recolored(bench, records, m["choice"].get("recolored") or {})
    # the galleries last: long, and the figures above say more at a glance
    gallery = _naming_gallery(records)
    return out + ([gallery] if gallery else []) + constancy_cards
