"""Small dependency-free SVG charts. Every text that comes from data is XML-escaped here."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from xml.sax.saxutils import escape as _xml_escape

__all__ = [
    "bar_chart_svg",
    "curves_svg",
    "distribution_pairs_svg",
    "esc",
    "heatmap_svg",
    "line_chart_svg",
    "safe_hex",
    "scatter_svg",
    "swatch_grid_svg",
    "swatches_svg",
]


def esc(text: object) -> str:
    return _xml_escape(str(text), {'"': "&quot;", "'": "&#x27;"})


_HEX = re.compile(r"#[0-9a-fA-F]{6}")


def safe_hex(color: object) -> str | None:
    """``color`` when it is a '#rrggbb' code, else None: colours from data go into style and fill
    attributes, where anything else (``url(…)``) could fetch from the network."""
    return color if isinstance(color, str) and _HEX.fullmatch(color) else None


#: ColorBrewer's 9-class "Blues" (Brewer, colorbrewer2.org), light to dark: a sequential ramp whose
#: middle is still clearly blue, where a straight white-to-blue blend is pale grey-blue
_BLUES = ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b")


def _lerp_color(t: float) -> str:
    """The heatmap ramp at ``t`` in [0, 1] (the Blues stops, blended linearly between them); NaN is grey."""
    if t != t:  # NaN
        return "#dddddd"
    pos = min(max(t, 0.0), 1.0) * (len(_BLUES) - 1)
    i = min(int(pos), len(_BLUES) - 2)
    f = pos - i
    lo, hi = (tuple(int(c[k : k + 2], 16) for k in (1, 3, 5)) for c in _BLUES[i : i + 2])
    return "#" + "".join(f"{round(a + (b - a) * f):02x}" for a, b in zip(lo, hi, strict=True))


def _relative_luminance(color: str) -> float:
    """Relative luminance (CIE Y, white 1) of a '#rrggbb' colour: WCAG 2's, from the colour core's
    sRGB decoding and matrix (imported here: drawing a heatmap needs it, importing this module not)."""
    import numpy as np

    from huebench.color.conversions import RGB_TO_XYZ, srgb8_to_linear

    rgb8 = np.array([int(color[k : k + 2], 16) for k in (1, 3, 5)], dtype=np.uint8)
    return float(srgb8_to_linear(rgb8) @ RGB_TO_XYZ[1])


def _contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two '#rrggbb' colours (1 to 21)."""
    la, lb = sorted((_relative_luminance(a), _relative_luminance(b)))
    return (lb + 0.05) / (la + 0.05)


def _ink_on(fill: str) -> str:
    """Black or white text, whichever contrasts more with ``fill``: one of them always reaches WCAG
    AA's 4.5:1."""
    return "#fff" if _contrast(fill, "#ffffff") > _contrast(fill, "#000000") else "#000"


def heatmap_svg(
    matrix: Sequence[Sequence[float | None]],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    vmin: float | None = None,
    vmax: float | None = None,
    fmt: str = "{:.2g}",
    cell: int = 36,
    title: str = "",
    row_colors: Sequence[str | None] | None = None,
    col_colors: Sequence[str | None] | None = None,
) -> str:
    """A labelled heatmap; ``None``/NaN cells are grey and empty. ``row_colors``/``col_colors``:
    a swatch ("#rrggbb") beside each row / above each column label (colours on the axes)."""
    vals = [float("nan") if v is None else float(v) for row in matrix for v in row]
    finite = [v for v in vals if math.isfinite(v)]
    lo = vmin if vmin is not None else (min(finite) if finite else 0.0)
    hi = vmax if vmax is not None else (max(finite) if finite else 1.0)
    span = (hi - lo) or 1.0
    sw = 14  # swatch side
    # room for the labels: about 6.5 px a character at 11 px, the column labels turned 45°
    row_room = max(90, int(6.5 * max((len(str(x)) for x in row_labels), default=0)) + 12)
    col_room = max(70, int(4.7 * max((len(str(x)) for x in col_labels), default=0)) + 20)
    left = row_room + (sw + 4 if row_colors else 0)
    top = col_room + (20 if title else 0) + (sw + 4 if col_colors else 0)
    w = left + cell * len(col_labels) + 10
    h = top + cell * len(row_labels) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" width="{w}" height="{h}" role="img" aria-label="{esc(title or "heatmap")}">'
    ]
    if title:
        parts.append(f'<text x="{left}" y="16" font-size="13" font-weight="bold">{esc(title)}</text>')
    label_top = top - (sw + 4 if col_colors else 0)
    for j, lab in enumerate(col_labels):
        x = left + j * cell + cell / 2
        parts.append(
            f'<text x="{x}" y="{label_top - 6}" font-size="11" transform="rotate(-45 {x} {label_top - 6})">{esc(lab)}</text>'
        )
        if col_colors and safe_hex(col_colors[j]):
            parts.append(
                f'<rect class="swatch" x="{x - sw / 2}" y="{top - sw - 2}" width="{sw}" height="{sw}" fill="{col_colors[j]}" stroke="#888"/>'
            )
    label_right = left - (sw + 4 if row_colors else 0)
    for i, lab in enumerate(row_labels):
        parts.append(
            f'<text x="{label_right - 6}" y="{top + i * cell + cell / 2 + 4}" font-size="11" text-anchor="end">{esc(lab)}</text>'
        )
        if row_colors and safe_hex(row_colors[i]):
            parts.append(
                f'<rect class="swatch" x="{left - sw - 2}" y="{top + i * cell + (cell - sw) / 2}" width="{sw}" height="{sw}" fill="{row_colors[i]}" stroke="#888"/>'
            )
        for j in range(len(col_labels)):
            v = matrix[i][j]
            fv = float("nan") if v is None else float(v)
            t = (fv - lo) / span if math.isfinite(fv) else float("nan")
            fill = _lerp_color(t)
            parts.append(
                f'<rect x="{left + j * cell}" y="{top + i * cell}" width="{cell}" height="{cell}" fill="{fill}" stroke="#fff"><title>{esc(lab)} → {esc(col_labels[j])}: {esc("n/a" if not math.isfinite(fv) else fmt.format(fv))}</title></rect>'
            )
            if math.isfinite(fv):
                ink = _ink_on(fill)
                parts.append(
                    f'<text x="{left + j * cell + cell / 2}" y="{top + i * cell + cell / 2 + 4}" font-size="10" text-anchor="middle" fill="{ink}">{esc(fmt.format(fv))}</text>'
                )
    parts.append("</svg>")
    return "".join(parts)


def bar_chart_svg(
    labels: Sequence[str],
    values: Sequence[float],
    lows: Sequence[float] | None = None,
    highs: Sequence[float] | None = None,
    *,
    colors: Sequence[str] | None = None,
    ylabel: str = "",
    ymax: float | None = None,
    reference: float | Sequence[float | None] | None = None,
    reference_label: str = "chance",
    bar: int = 34,
    height: int = 200,
) -> str:
    """Vertical bars with optional confidence-interval whiskers and a dashed, labelled reference line
    (chance): one ``reference`` across the chart, or one per bar (runs whose chance differs), drawn
    over its bar; ``None`` where a bar has none."""

    def num(v: float | None) -> float:
        return float(v) if v is not None and math.isfinite(float(v)) else float("nan")

    values = [num(v) for v in values]
    lows = [num(v) for v in lows] if lows is not None else None
    highs = [num(v) for v in highs] if highs is not None else None
    if isinstance(reference, Sequence):
        per_bar: list[float] | None = [num(r) for r in reference]
        across = float("nan")
    else:
        per_bar, across = None, num(reference)
    finite = [v for v in [*(highs or []), *values, across, *(per_bar or [])] if math.isfinite(v)]
    top_val = ymax if ymax is not None else max([*finite, 1e-9])
    left, top, bottom = 50, 10, 70
    w = left + bar * len(labels) * 1.4 + 10
    h = top + height + bottom

    def y(v: float) -> float:
        return top + height - height * (max(v, 0.0) / top_val)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="barchart" width="{w:.0f}" height="{h}" role="img" aria-label="{esc(ylabel or "bar chart")}">'
    ]
    parts.append(
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + height}" stroke="#444"/><line x1="{left}" y1="{top + height}" x2="{w}" y2="{top + height}" stroke="#444"/>'
    )
    for k in range(5):
        v = top_val * k / 4
        parts.append(f'<text x="{left - 4}" y="{y(v) + 4}" font-size="10" text-anchor="end">{v:.3g}</text>')
    if ylabel:
        parts.append(
            f'<text x="12" y="{top + height / 2}" font-size="11" transform="rotate(-90 12 {top + height / 2})" text-anchor="middle">{esc(ylabel)}</text>'
        )
    for i, (lab, v) in enumerate(zip(labels, values, strict=True)):
        x = left + 8 + i * bar * 1.4
        fill = (safe_hex(colors[i]) or "#dddddd") if colors else "#2166ac"
        fv = v if math.isfinite(v) else 0.0
        parts.append(
            f'<rect x="{x:.1f}" y="{y(fv):.1f}" width="{bar}" height="{top + height - y(fv):.1f}" fill="{fill}" stroke="#333"><title>{esc(lab)}: {fv:.3f}</title></rect>'
        )
        if lows is not None and highs is not None and math.isfinite(lows[i]) and math.isfinite(highs[i]):
            cx = x + bar / 2
            parts.append(
                f'<line class="ci" x1="{cx:.1f}" y1="{y(lows[i]):.1f}" x2="{cx:.1f}" y2="{y(highs[i]):.1f}" stroke="#000" stroke-width="1.5"/>'
            )
            for yy in (y(lows[i]), y(highs[i])):
                parts.append(f'<line x1="{cx - 5:.1f}" y1="{yy:.1f}" x2="{cx + 5:.1f}" y2="{yy:.1f}" stroke="#000"/>')
        lx = x + bar / 2
        parts.append(
            f'<text x="{lx:.1f}" y="{top + height + 14}" font-size="10" transform="rotate(35 {lx:.1f} {top + height + 14})">{esc(lab)}</text>'
        )
    ref = 'class="reference" stroke="#b2182b" stroke-width="1.5" stroke-dasharray="4 3"'
    label = '<text class="reference-label" font-size="10" fill="#b2182b" text-anchor="end"'
    if math.isfinite(across):
        parts.append(
            f'<line {ref} x1="{left}" y1="{y(across):.1f}" x2="{w}" y2="{y(across):.1f}"><title>{esc(reference_label)}</title></line>'
            f'{label} x="{w - 2:.1f}" y="{y(across) - 3:.1f}">{esc(reference_label)}</text>'
        )
    elif per_bar is not None and any(math.isfinite(r) for r in per_bar):
        for i, r in enumerate(per_bar):
            if math.isfinite(r):
                x = left + 8 + i * bar * 1.4
                parts.append(
                    f'<line {ref} x1="{x - 3:.1f}" y1="{y(r):.1f}" x2="{x + bar + 3:.1f}" y2="{y(r):.1f}"><title>{esc(labels[i])}: {esc(reference_label)} {r:.3g}</title></line>'
                )
        parts.append(f'{label} x="{w - 2:.1f}" y="{top + 8}">dashed: {esc(reference_label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def swatches_svg(colors: Sequence[tuple[str, str]], *, size: int = 40) -> str:
    """A row of labelled colour swatches: ``[(label, "#rrggbb"), …]``."""
    w = (size + 60) * len(colors)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="swatches" width="{w}" height="{size + 20}">']
    for i, (label, hexcode) in enumerate(colors):
        x = i * (size + 60)
        parts.append(
            f'<rect x="{x}" y="0" width="{size}" height="{size}" fill="{safe_hex(hexcode) or "#dddddd"}" stroke="#333"/>'
        )
        parts.append(f'<text x="{x}" y="{size + 14}" font-size="10">{esc(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


_GROUP_COLORS = ("#2166ac", "#b2182b", "#4d9221", "#8c510a", "#762a83")


def scatter_svg(
    points: Sequence[tuple[float, float, str]],
    *,
    xlabel: str = "",
    ylabel: str = "",
    identity: bool = False,
    size: int = 360,
) -> str:
    """Scatter plot of ``(x, y, series)`` points with a legend; optional dashed y = x line."""
    pts = [
        (float(x), float(y), str(s))
        for x, y, s in points
        if x is not None and y is not None and math.isfinite(float(x)) and math.isfinite(float(y))
    ]
    lo = min([p[0] for p in pts] + [p[1] for p in pts] + [0.0])
    hi = max([p[0] for p in pts] + [p[1] for p in pts] + [1.0])
    span = (hi - lo) or 1.0
    pad = 45

    def sx(v: float) -> float:
        return pad + (v - lo) / span * (size - 2 * pad)

    def sy(v: float) -> float:
        return size - pad - (v - lo) / span * (size - 2 * pad)

    series = sorted({p[2] for p in pts})
    color = {s: _GROUP_COLORS[i % len(_GROUP_COLORS)] for i, s in enumerate(series)}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="scatter" width="{size + 120}" height="{size}" role="img" aria-label="{esc(ylabel)} vs {esc(xlabel)}">'
    ]
    parts.append(
        f'<rect x="{pad}" y="{pad}" width="{size - 2 * pad}" height="{size - 2 * pad}" fill="none" stroke="#444"/>'
    )
    if identity:
        parts.append(
            f'<line x1="{sx(lo):.1f}" y1="{sy(lo):.1f}" x2="{sx(hi):.1f}" y2="{sy(hi):.1f}" stroke="#666" stroke-dasharray="4 3"/>'
        )
    for x, y, s in pts:
        parts.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{color[s]}" fill-opacity="0.7"/>')
    for v in (lo, (lo + hi) / 2, hi):
        parts.append(f'<text x="{sx(v):.1f}" y="{size - pad + 14}" font-size="10" text-anchor="middle">{v:.3g}</text>')
        parts.append(f'<text x="{pad - 4}" y="{sy(v) + 3:.1f}" font-size="10" text-anchor="end">{v:.3g}</text>')
    parts.append(f'<text x="{size / 2}" y="{size - 8}" font-size="11" text-anchor="middle">{esc(xlabel)}</text>')
    parts.append(
        f'<text x="12" y="{size / 2}" font-size="11" transform="rotate(-90 12 {size / 2})" text-anchor="middle">{esc(ylabel)}</text>'
    )
    for i, s in enumerate(series):
        parts.append(
            f'<circle cx="{size + 10}" cy="{pad + 14 * i}" r="4" fill="{color[s]}"/><text x="{size + 18}" y="{pad + 14 * i + 4}" font-size="11">{esc(s)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def line_chart_svg(
    series: dict[str, Sequence[tuple[float, float]]],
    *,
    xlabel: str = "",
    ylabel: str = "",
    log_x: bool = False,
    width: int = 460,
    height: int = 300,
) -> str:
    """Lines (one per series) of ``(x, y)`` points, optional log-x axis; used for loss-data curves."""
    all_pts = [(x, y) for pts in series.values() for x, y in pts if y is not None and math.isfinite(y)]
    if not all_pts:
        return ""

    def tx(v: float) -> float:
        return math.log10(v) if log_x else v

    xs = [tx(x) for x, _ in all_pts]
    ys = [y for _, y in all_pts]
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
    y0 = min(*ys, 0.0)
    y1 = max(ys) if max(ys) > y0 else y0 + 1
    pad = 50

    def sx(v: float) -> float:
        return pad + (tx(v) - x0) / (x1 - x0) * (width - 2 * pad)

    def sy(v: float) -> float:
        return height - pad - (v - y0) / (y1 - y0) * (height - 2 * pad)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="linechart" width="{width + 130}" height="{height}" role="img" aria-label="{esc(ylabel)}">'
    ]
    parts.append(
        f'<rect x="{pad}" y="{pad}" width="{width - 2 * pad}" height="{height - 2 * pad}" fill="none" stroke="#444"/>'
    )
    for i, (name, pts) in enumerate(series.items()):
        c = _GROUP_COLORS[i % len(_GROUP_COLORS)]
        good = [(x, y) for x, y in pts if y is not None and math.isfinite(y)]
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in good)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        for x, y in good:
            parts.append(
                f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{c}"><title>{esc(name)}: n={x:g}, {y:.4g}</title></circle>'
            )
        parts.append(
            f'<line x1="{width + 5}" y1="{pad + 14 * i}" x2="{width + 20}" y2="{pad + 14 * i}" stroke="{c}" stroke-width="2"/><text x="{width + 24}" y="{pad + 14 * i + 4}" font-size="11">{esc(name)}</text>'
        )
    for v in (y0, (y0 + y1) / 2, y1):
        parts.append(f'<text x="{pad - 4}" y="{sy(v) + 3:.1f}" font-size="10" text-anchor="end">{v:.3g}</text>')
    xticks = sorted({x for pts in series.values() for x, _ in pts})
    for v in xticks:
        parts.append(f'<text x="{sx(v):.1f}" y="{height - pad + 14}" font-size="9" text-anchor="middle">{v:g}</text>')
    parts.append(f'<text x="{width / 2}" y="{height - 10}" font-size="11" text-anchor="middle">{esc(xlabel)}</text>')
    parts.append(
        f'<text x="12" y="{height / 2}" font-size="11" transform="rotate(-90 12 {height / 2})" text-anchor="middle">{esc(ylabel)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def distribution_pairs_svg(
    labels: Sequence[str],
    first: Sequence[Sequence[float]],
    second: Sequence[Sequence[float]],
    names: Sequence[str],
    colors: Sequence[str],
    *,
    first_label: str = "humans",
    second_label: str = "model",
    width: int = 420,
    bar: int = 9,
) -> str:
    """Two stacked bars per row — e.g. the human and the model colour distribution of an object —
    each segment drawn in its own colour (``colors``, '#rrggbb', one per name in ``names``)."""
    left = 170
    row_h = 2 * bar + 8
    legend_h = 22
    h = legend_h + row_h * len(labels) + 6
    legend_w = sum(15 + 7 * len(str(name)) + 8 for name in names)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="distpairs" width="{max(left + width, 10 + legend_w) + 10}" height="{h}" role="img" aria-label="{esc(first_label)} vs {esc(second_label)}">'
    ]
    key_x = 10  # the legend: one key per colour
    for name, c in zip(names, colors, strict=True):
        parts.append(
            f'<rect x="{key_x}" y="4" width="12" height="12" fill="{safe_hex(c) or "#dddddd"}" stroke="#888"/><text x="{key_x + 15}" y="14" font-size="10">{esc(name)}</text>'
        )
        key_x += 15 + 7 * len(str(name)) + 8
    for i, lab in enumerate(labels):
        y0 = legend_h + i * row_h
        parts.append(f'<text x="{left - 6}" y="{y0 + bar + 3}" font-size="11" text-anchor="end">{esc(lab)}</text>')
        for k, (dist, who) in enumerate(((first[i], first_label), (second[i], second_label))):
            total = float(sum(v for v in dist if math.isfinite(v))) or 1.0
            x = float(left)
            y = y0 + k * (bar + 1)
            for name, c, v in zip(names, colors, dist, strict=True):
                share = v / total if math.isfinite(v) else 0.0
                w = share * width
                if w > 0:
                    parts.append(
                        f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar}" fill="{safe_hex(c) or "#dddddd"}"><title>{esc(lab)} — {esc(who)}: {esc(name)} {100 * share:.1f} %</title></rect>'
                    )
                x += w
    parts.append("</svg>")
    return "".join(parts)


def curves_svg(
    xs: Sequence[float],
    series: dict[str, Sequence[float]],
    colors: dict[str, str],
    *,
    xmax: float = 360.0,
    ylabel: str = "",
    xlabel: str = "",
    strip: Sequence[str] | None = None,
    marks: Sequence[tuple[float, str, bool]] = (),
    width: int = 720,
    height: int = 230,
) -> str:
    """Curves of ``series`` (name → one y in [0, 1] per x) over 0 ≤ x < ``xmax``, each drawn in its
    own colour (``colors``: name → '#rrggbb'), as psychometric curves; ``strip``: a colour under each
    x (the stimuli); ``marks``: vertical lines ``(x, label, solid)`` (solid: the model's, dashed: a
    reference's)."""
    left, top, right = 44, 10, 150
    plot_h = height - top - 46
    strip_h = 12 if strip else 0
    w = left + width + right
    h = max(top + plot_h + strip_h + 44, top + 14 * len(series) + 16)  # room for every legend entry

    def sx(v: float) -> float:
        return left + width * (float(v) / xmax)

    def sy(v: float) -> float:
        return top + plot_h * (1.0 - min(max(float(v), 0.0), 1.0))

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="curves" width="{w}" height="{h}" role="img" aria-label="{esc(ylabel or "curves")}">',
        f'<rect x="{left}" y="{top}" width="{width}" height="{plot_h}" fill="#fafafa" stroke="#444"/>',
    ]
    for k in range(5):
        v = k / 4
        parts.append(f'<text x="{left - 4}" y="{sy(v) + 4:.1f}" font-size="10" text-anchor="end">{v:.2g}</text>')
    if strip:
        step = width / max(len(strip), 1)
        for x, c in zip(xs, strip, strict=True):
            parts.append(
                f'<rect x="{sx(x):.1f}" y="{top + plot_h + 2}" width="{step + 0.5:.1f}" height="{strip_h}" fill="{safe_hex(c) or "#dddddd"}"/>'
            )
    for v in range(0, int(xmax) + 1, 45 if xmax >= 180 else max(1, int(xmax) // 8)):
        parts.append(
            f'<text x="{sx(v):.1f}" y="{top + plot_h + strip_h + 14}" font-size="10" text-anchor="middle">{v}</text>'
        )
    for x, label, solid in marks:
        dash = "" if solid else ' stroke-dasharray="4 3"'
        parts.append(
            f'<line class="mark" x1="{sx(x):.1f}" y1="{top}" x2="{sx(x):.1f}" y2="{top + plot_h}" stroke="{"#222" if solid else "#888"}"{dash}><title>{esc(label)}</title></line>'
        )
    for i, (name, ys) in enumerate(series.items()):
        c = safe_hex(colors.get(name)) or "#777777"
        pts = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(xs, ys, strict=True) if math.isfinite(float(y)))
        # a grey edge under each curve: light colours (white, pale yellow) stay visible on the page
        parts.append(
            f'<polyline points="{pts}" fill="none" stroke="#9e9e9e" stroke-width="3.6"/>'
            f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="2.2"><title>{esc(name)}</title></polyline>'
        )
        ly = top + 12 + 14 * i
        parts.append(
            f'<rect x="{left + width + 8}" y="{ly - 7}" width="18" height="6" fill="{c}" stroke="#9e9e9e"/><text x="{left + width + 30}" y="{ly}" font-size="11">{esc(name)}</text>'
        )
    parts.append(f'<text x="{left + width / 2}" y="{h - 6}" font-size="11" text-anchor="middle">{esc(xlabel)}</text>')
    parts.append(
        f'<text x="11" y="{top + plot_h / 2}" font-size="11" transform="rotate(-90 11 {top + plot_h / 2})" text-anchor="middle">{esc(ylabel)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def swatch_grid_svg(
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    cells: Sequence[Sequence[Mapping[str, object] | None]],
    *,
    cell: int = 46,
) -> str:
    """A grid of colour cells, one per row × column: each cell a square of ``outer`` (a surround; the
    ``inner`` colour fills the cell when absent) around a square of ``inner``, and under it a strip of
    ``named`` (what a model called it); ``flag`` outlines the cell in red; ``title`` is its tooltip.
    Colours are '#rrggbb' codes; a missing cell is left empty."""
    label_w = max(90, int(6.5 * max((len(str(x)) for x in row_labels), default=0)) + 12)
    top = max(70, int(4.7 * max((len(str(x)) for x in col_labels), default=0)) + 20)
    strip = cell // 4
    # the last column's label leans right of the grid
    w = label_w + (cell + 6) * len(col_labels) + 10 + int(4.7 * max((len(str(x)) for x in col_labels), default=0))
    h = top + (cell + strip + 8) * len(row_labels) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="swatchgrid" width="{w}" height="{h}" role="img">']
    for j, lab in enumerate(col_labels):
        x = label_w + j * (cell + 6) + cell / 2
        parts.append(
            f'<text x="{x}" y="{top - 8}" font-size="11" transform="rotate(-45 {x} {top - 8})">{esc(lab)}</text>'
        )
    for i, lab in enumerate(row_labels):
        y = top + i * (cell + strip + 8)
        parts.append(
            f'<text x="{label_w - 6}" y="{y + cell / 2 + 4}" font-size="11" text-anchor="end">{esc(lab)}</text>'
        )
        for j in range(len(col_labels)):
            c = cells[i][j] if j < len(cells[i]) else None
            if not c:
                continue
            x = label_w + j * (cell + 6)
            inner = safe_hex(c.get("inner")) or "#dddddd"
            outer = safe_hex(c.get("outer")) or inner
            named = safe_hex(c.get("named"))
            stroke = "#c62828" if c.get("flag") else "#888"
            sw = 3 if c.get("flag") else 1
            parts.append(f'<g class="cell"><title>{esc(c.get("title", ""))}</title>')
            parts.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{outer}"/>')
            q = cell / 4
            parts.append(f'<rect x="{x + q}" y="{y + q}" width="{cell / 2}" height="{cell / 2}" fill="{inner}"/>')
            parts.append(
                f'<rect x="{x}" y="{y + cell}" width="{cell}" height="{strip}" fill="{named or "#ffffff"}"/>'
                + (
                    ""
                    if named
                    else f'<text x="{x + cell / 2}" y="{y + cell + strip - 2}" font-size="9" text-anchor="middle">none</text>'
                )
            )
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell + strip}" fill="none" stroke="{stroke}" stroke-width="{sw}"/></g>'
            )
    parts.append("</svg>")
    return "".join(parts)
