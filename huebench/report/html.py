"""HTML reports rendered with Jinja2 (autoescaping on): one per run, and one across runs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from huebench.io import atomic_write_text
from huebench.report.gallery import GalleryItem, order_failures_first
from huebench.report.svg import bar_chart_svg, heatmap_svg, swatches_svg

__all__ = [
    "PROPORTIONS",
    "GalleryItem",
    "Section",
    "bar_chart_svg",
    "fmt_estimate",
    "fmt_percent",
    "heatmap_svg",
    "proportion_scale",
    "render_report",
    "run_labels",
    "swatches_svg",
    "write_multi_report",
    "write_run_report",
]


@dataclass
class Section:
    """A report block: a title, optionally a table (columns + rows of cells), an SVG figure and a
    gallery of items (:mod:`huebench.report.gallery`, shown failures first).

    Table cells and gallery fields are data and are escaped by the template. ``svg`` must come from
    :mod:`huebench.report.svg`, which escapes the data it embeds.
    """

    title: str
    table: dict[str, Any] | None = None
    svg: str | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    gallery: list[GalleryItem] | None = None

    def __post_init__(self) -> None:
        if self.gallery is not None:
            self.gallery = order_failures_first(self.gallery)


def fmt_num(v: Any, digits: int = 3) -> str:
    """A number for a table cell; ``None``/NaN become "n/a"."""
    if v is None or (isinstance(v, float) and v != v):
        return "n/a"
    return f"{v:.{digits}f}"


#: the metrics of the built-in benchmarks that are proportions (accuracies, rates, shares), by metric
#: path ("*" stands for any one key), with the scale results.json keeps them in: 1 for fractions
#: (0–1), 100 for percentages. results.json keeps each benchmark's own scale; every summary and report
#: huebench writes shows a proportion as a percentage with one decimal (:func:`fmt_percent`).
PROPORTIONS: dict[str, dict[str, float]] = {
    "colornames": {"accuracy": 1, "per_color/*": 1},
    "known-colors": dict.fromkeys(
        (
            "*/naming/accuracy",
            "*/constancy/index/*",
            "*/contrast/shift_rate",
            "*/boundaries/agreement",
            "*/recolored/accuracy",
            "*/recolored/robust",
        ),
        1,
    ),
    "colorbench": dict.fromkeys(
        (
            "overall",
            "perception",
            "reasoning",
            "robustness",
            "unparsed",
            "by_task/*",
            "recolored/accuracy",
            "recolored/robustness",
            "recolored/by_shift/*/accuracy",
        ),
        1,
    ),
    "rainbow": dict.fromkeys(("*/*/pairwise_accuracy", "*/*/accuracy", "*/*/precision", "*/*/recall", "*/*/score"), 1),
    "rainbow-baseline": {"*/*/share": 1},
    "colorswap": dict.fromkeys(("text", "image", "group", "unparseable_percent"), 100),
    "coda": {"*/*/acc1": 100},
    "gencolorbench": dict.fromkeys(
        (
            "accuracy",
            "by_task/*",
            "by_task_system/*/*",
            "table4/*",
            "by_category/*/*",
            "by_category_avg/*",
            "basic_vs_intermediate/basic",
            "basic_vs_intermediate/intermediate",
            "color_bias/*/*",
        ),
        100,
    ),
    "gencolor-diagnostic": dict.fromkeys(
        (
            "accuracy_exact_mask",
            "accuracy_offline_mask",
            "false_accept_far_color",
            "worst_family",
            "by_family/*/*/*",
            "by_material/*/*",
            "by_object/*",
        ),
        100,
    ),
}


def proportion_scale(benchmark: str, path: str) -> float | None:
    """The scale results.json keeps the metric at ``path`` (``"by_task/cna"``) of ``benchmark`` in, when
    it is a proportion (1: a fraction, 100: a percentage); None for any other metric."""
    parts = path.split("/")
    for pattern, scale in PROPORTIONS.get(benchmark, {}).items():
        want = pattern.split("/")
        if len(want) == len(parts) and all(w in ("*", p) for w, p in zip(want, parts, strict=True)):
            return scale
    return None


def fmt_percent(v: Any, scale: float = 100, digits: int = 1, *, unit: bool = True) -> str:
    """A proportion as a percentage with one decimal ("9.1 %"; without the sign for an interval's
    bounds); ``scale``: 1 for a fraction, 100 for a percentage; ``None``/NaN become "n/a"."""
    if v is None or (isinstance(v, float) and v != v):
        return "n/a"
    return f"{100 * v / scale:.{digits}f}" + (" %" if unit else "")


def fmt_estimate(v: Any, low: Any, high: Any, scale: float | None, *, digits: int = 3) -> str:
    """A value with its interval: a proportion (``scale`` not None) as "9.1 % [0.0, 21.2]", any other
    number as "0.091 [0.000, 0.212]"; without bounds, the value alone."""
    if scale is None:
        text, bounds = fmt_num(v, digits), (fmt_num(low, digits), fmt_num(high, digits))
    else:
        text, bounds = (
            fmt_percent(v, scale),
            (fmt_percent(low, scale, unit=False), fmt_percent(high, scale, unit=False)),
        )
    return text if low is None and high is None else f"{text} [{bounds[0]}, {bounds[1]}]"


_TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{ title }}</title>
<style>
 body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1200px; }
 h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
 table { border-collapse: collapse; margin: .5em 0; font-size: .9em; }
 th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
 td.short { white-space: nowrap; } /* a value, an interval, a short label: one line */
 th { background: #f3f3f3; }
 .meta td:first-child { font-weight: bold; }
 .note { color: #555; font-size: .9em; }
 figure { margin: .5em 0; }
 pre { background: #f7f7f7; padding: .5em; overflow-x: auto; font-size: .8em; }
 .gallery-controls { display: flex; gap: .6em; align-items: center; margin: .4em 0; font-size: .9em; }
 .gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: .6em; }
 .card { border: 1px solid #ccc; border-left: 5px solid #999; padding: .4em; font-size: .8em; background: #fff; }
 .card.fail { border-left-color: #c62828; } .card.pass { border-left-color: #2e7d32; }
 .card[hidden] { display: none; }
 .card img { width: 128px; height: auto; image-rendering: pixelated; float: left; margin: 0 .5em .3em 0; }
 .card img + img { margin-left: -.2em; }
 .card .title { font-weight: bold; word-break: break-all; }
 .card .status { font-weight: bold; } .card.fail .status { color: #c62828; } .card.pass .status { color: #2e7d32; }
 .swatch { display: inline-block; text-align: center; margin: 2px 4px 2px 0; font-size: .85em; }
 .swatch span { display: block; width: 44px; height: 22px; border: 1px solid #888; }
 .metric { display: block; } .metric.bad { color: #c62828; }
 .tags { color: #555; clear: both; } .reason { clear: both; color: #333; margin-top: .2em; }
</style>
</head>
<body>
<h1>{{ title }}</h1>
{% if meta %}<table class="meta">{% for k, v in meta %}<tr><td>{{ k }}</td><td>{{ v }}</td></tr>{% endfor %}</table>{% endif %}
{% for s in sections %}
<section>
<h2>{{ s.title }}</h2>
{% if s.note %}<p class="note">{{ s.note }}</p>{% endif %}
{% if s.table %}
<table class="results">
<thead><tr>{% for c in s.table.columns %}<th>{{ c }}</th>{% endfor %}</tr></thead>
<tbody>{% for row in s.table.rows %}<tr>{% for cell in row %}<td{% if (cell | string | length) <= 24 %} class="short"{% endif %}>{{ cell }}</td>{% endfor %}</tr>{% endfor %}</tbody>
</table>
{% endif %}
{% if s.svg %}<figure>{{ s.svg | safe }}</figure>{% endif %}
{% if s.gallery %}
<div class="gallery-controls">
<label>filter <input type="search" class="g-filter" placeholder="text, family, colour…"></label>
<label>show <select class="g-status"><option value="all">all</option><option value="fail">failures</option><option value="pass">passes</option></select></label>
<label>sort <select class="g-sort"><option value="failures">failures first</option><option value="worst">worst first</option><option value="title">by name</option></select></label>
<span class="g-count"></span>
</div>
<div class="gallery">{% for it in s.gallery %}
<div class="card {{ it.status if it.status != 'n/a' else 'na' }}" data-status="{{ it.status }}" data-order="{{ loop.index0 }}" data-sort="{{ it.sort_key }}" data-title="{{ it.title }}" data-text="{{ it.search_text }}">
{% for uri in it.images %}<img src="{{ uri }}" alt="{{ it.title }}">{% endfor %}
<div class="title">{{ it.title }}</div>
<div class="status">{{ it.status }}</div>
{% for label, hex in it.swatches %}<div class="swatch" title="{{ label }} {{ hex }}"><span style="background: {{ hex }}"></span>{{ label }}</div>{% endfor %}
{% for m in it.metrics %}<span class="metric{{ '' if m.passed else ' bad' }}">{{ m.text() }}</span>{% endfor %}
{% if it.tags %}<div class="tags">{% for k, v in it.tags.items() %}{{ k }}: {{ v }}{{ "; " if not loop.last }}{% endfor %}</div>{% endif %}
{% if it.reason %}<div class="reason">{{ it.reason }}</div>{% endif %}
</div>{% endfor %}
</div>
{% endif %}
</section>
{% endfor %}
{% if samples %}
<section>
<h2>Sample records (first {{ samples | length }}, failures first)</h2>
<table class="records"><thead><tr><th>id</th><th>status</th><th>input</th><th>decision</th><th>reason</th></tr></thead>
<tbody>{% for r in samples %}<tr><td>{{ r.id }}</td><td>{{ r.status }}</td><td>{{ r.input }}</td><td>{{ r.decision }}</td><td>{{ r.reason }}</td></tr>{% endfor %}</tbody></table>
</section>
{% endif %}
<script>
// galleries: filter by text and status, sort; no network, no data outside this page
document.querySelectorAll(".gallery").forEach(function (g) {
  var c = g.previousElementSibling;
  var cards = Array.prototype.slice.call(g.querySelectorAll(".card"));
  var f = c.querySelector(".g-filter"), st = c.querySelector(".g-status"), so = c.querySelector(".g-sort"), n = c.querySelector(".g-count");
  function update() {
    var q = f.value.toLowerCase(), s = st.value, shown = 0;
    cards.forEach(function (el) {
      var ok = (s === "all" || el.dataset.status === s) && el.dataset.text.indexOf(q) !== -1;
      el.hidden = !ok; if (ok) shown++;
    });
    var key = so.value, sorted = cards.slice();
    sorted.sort(function (a, b) {
      if (key === "title") return a.dataset.title.localeCompare(b.dataset.title);
      if (key === "worst") return parseFloat(b.dataset.sort) - parseFloat(a.dataset.sort);
      return parseInt(a.dataset.order, 10) - parseInt(b.dataset.order, 10);
    });
    sorted.forEach(function (el) { g.appendChild(el); });
    n.textContent = shown + " of " + cards.length + " shown";
  }
  [f, st, so].forEach(function (el) { el.addEventListener("input", update); el.addEventListener("change", update); });
  update();
});
</script>
</body>
</html>
"""


def render_report(
    title: str, meta: Sequence[tuple[str, Any]], sections: Sequence[Section], samples: Sequence[dict[str, Any]] = ()
) -> str:
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return env.from_string(_TEMPLATE).render(
        title=title, meta=list(meta), sections=list(sections), samples=list(samples)
    )


def _record_failed(r: dict[str, Any]) -> bool:
    """A record that failed to run, or whose answer was judged wrong (``correct``, a score's ``pass``)."""
    exact = r.get("exact")
    return (
        r.get("status") != "ok"
        or r.get("correct") is False
        or r.get("pass") is False
        or (isinstance(exact, dict) and exact.get("pass") is False)
    )


def _sample_rows(records: Sequence[dict[str, Any]], n: int = 50) -> list[dict[str, Any]]:
    """The first ``n`` records for the page, failures first."""
    rows = []
    ordered = sorted(records, key=lambda r: not _record_failed(r))  # stable: file order within each part
    for r in ordered[:n]:
        decision = r.get("prediction", r.get("decision", ""))
        if decision == "" and isinstance(r.get("exact"), dict):
            decision = "pass" if r["exact"].get("pass") else "fail"
        elif decision == "" and "correct" in r:
            decision = "correct" if r["correct"] else "wrong"
        if "caption_1" in r:
            shown = f"{r['caption_1']} | {r['caption_2']}"
        else:
            shown = (
                r.get("text")
                or r.get("name")
                or r.get("prompt")
                or (f"{r['object']} in {r['color']}" if "object" in r and "color" in r else "")
            )
        rows.append(
            {
                "id": r.get("id"),
                "status": r.get("status"),
                "input": shown,
                "decision": decision if not isinstance(decision, (dict, list)) else json.dumps(decision),
                "reason": r.get("reason", ""),
            }
        )
    return rows


def write_run_report(
    path: Path,
    bench: Any,
    config: dict[str, Any],
    results: dict[str, Any],
    records: Sequence[dict[str, Any]],
    *,
    status: str | None = None,
) -> Path:
    """The run's report, written to ``path`` (``status`` says when it covers a partial run)."""
    meta = [
        ("benchmark", config["benchmark"]),
        ("model", config["model"]["spec"]),
        ("capability", config.get("capability") or "none (scoring only)"),
        ("fingerprint", config["model"]["fingerprint"]),
        ("samples", f"{results['n']} scored, {results['n_failed']} failed"),
        ("seed", config["seed"]),
        ("huebench", (config.get("versions") or {}).get("huebench", "")),
    ]
    if status is not None:
        meta.insert(0, ("run", status))
    sections = list(bench.report_sections(results, [r for r in records if r.get("status") == "ok"]))
    failed = [r for r in records if r.get("status") != "ok"]
    if failed:
        sections.append(
            Section(
                "Failed samples",
                table={"columns": ["id", "reason"], "rows": [[r["id"], r.get("reason", "")] for r in failed[:200]]},
                note="retried on --resume",
            )
        )
    title = f"{config['benchmark']} — {config['model']['spec']}" + (
        " (partial)" if status and status.startswith("partial") else ""
    )
    html = render_report(title, meta, sections, _sample_rows(records))
    atomic_write_text(path, html)
    return Path(path)


def _flatten_scalars(metrics: dict[str, Any], prefix: str = "", depth: int = 0) -> dict[str, Any]:
    """Scalars and intervals of nested metrics, keyed by path: ``{"best/Single/kendall_mean": (v, None, None),
    "accuracy": (v, low, high)}``. Matrices and per-item lists are left to the single-run reports, and
    settings recorded beside the metrics (``*config*`` keys, the paper's published figure) are not
    metrics of the run."""
    out: dict[str, Any] = {}
    for k, v in metrics.items():
        key = f"{prefix}{k}"
        if "config" in k or k in _NOT_MEASURED:
            continue
        if isinstance(v, dict) and "value" in v and "low" in v:
            out[key] = (v["value"], v["low"], v["high"])
        elif isinstance(v, dict) and depth < 3 and k not in ("by_pair", "confusion", "per_color", "chance"):
            out.update(_flatten_scalars(v, f"{key}/", depth + 1))
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and v is not None:
            out[key] = (v, None, None)
    return out


#: metric keys that are not measured by the run: reference figures and counts of work done
_NOT_MEASURED = frozenset({"paper_accuracy", "chance", "forward_passes", "naive_passes", "passes_saved"})


def run_labels(run_dirs: Sequence[Path]) -> list[str]:
    """A short, distinct label per run: its folder's name, with as many parent folders as it takes
    to tell runs apart (two runs of one model are two labels)."""
    parts = [Path(d).resolve().parts for d in run_dirs]
    for depth in range(1, max((len(p) for p in parts), default=1) + 1):
        labels = ["/".join(p[-depth:]) for p in parts]
        if len(set(labels)) == len(labels):
            return labels
    return [str(d) for d in run_dirs]  # the same folder given twice


def _chance(metrics: dict[str, Any], key: str) -> float | None:
    """The chance level a run's metrics give for the metric ``key``: a ``chance`` number stands for
    ``accuracy`` (colornames), a ``chance`` table for the metrics it names (ColorSwap's text, image,
    group); None where the benchmark gives none."""
    chance = metrics.get("chance")
    value = chance.get(key) if isinstance(chance, dict) else chance if key == "accuracy" else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def write_multi_report(runs: Sequence[Any], out: Path) -> Path:
    """One page comparing runs (:class:`~huebench.runs.runner.LoadedRun`), each labelled by its run
    folder: a table of every metric, and a bar chart per metric that has an interval or differs
    between the runs (a value every run shares says nothing about them), with the chance level drawn
    where the benchmark gives one. Proportions (accuracies, rates) read as percentages whatever scale
    results.json keeps them in. A run still going or stopped early is marked partial."""
    loaded = []
    for run in runs:
        res = run.results  # what the records give (results.json is only compared, by `report`)
        loaded.append((run, res, _flatten_scalars(res.get("metrics", {}))))
    labels = run_labels([run.run_dir for run in runs])
    names = sorted({k for _, _, flat in loaded for k in flat})
    rows = []
    for label, (run, res, flat) in zip(labels, loaded, strict=True):
        cells = [label, res["benchmark"], res["model"], run.state.describe()]
        for k in names:
            v = flat.get(k)
            cells.append("" if v is None else fmt_estimate(v[0], v[1], v[2], proportion_scale(res["benchmark"], k)))
        rows.append(cells)
    sections = [Section("All runs", table={"columns": ["run", "benchmark", "model", "state", *names], "rows": rows})]
    for k in names:
        bars = []  # (label, value, low, high, chance), proportions in percent
        scales = []
        for label, (_, res, flat) in zip(labels, loaded, strict=True):
            if k not in flat or flat[k][0] is None:
                continue
            scale = proportion_scale(res["benchmark"], k)
            scales.append(scale)
            factor = 1.0 if scale is None else 100.0 / scale
            value, low, high = (float("nan") if x is None else x * factor for x in flat[k])
            chance = _chance(res.get("metrics", {}), k)
            bars.append((label, value, low, high, None if chance is None else chance * factor))
        has_interval = any(b[2] == b[2] for b in bars)  # a low bound that is not NaN
        if not bars or (not has_interval and len({b[1] for b in bars}) < 2):
            continue
        percent = all(s is not None for s in scales)
        chances = [b[4] for b in bars]
        known = {c for c in chances if c is not None}
        reference: float | list[float | None] | None = None
        label = "chance"
        if len(known) == 1 and None not in chances:  # one level for every run: a line across, with its value
            reference = known.pop()
            label = f"chance {fmt_percent(reference) if percent else fmt_num(reference)}"
        elif known:  # runs of another kind or head: a mark over each bar that has one
            reference = chances
        sections.append(
            Section(
                k,
                svg=bar_chart_svg(
                    [b[0] for b in bars],
                    [b[1] for b in bars],
                    [b[2] for b in bars],
                    [b[3] for b in bars],
                    ylabel=f"{k} (%)" if percent else k,
                    ymax=100.0 if percent else None,
                    reference=reference,
                    reference_label=label,
                ),
                note="" if reference is None or isinstance(reference, float) else "dashed: each run's own chance",
            )
        )
    html = render_report("huebench — runs compared", [("runs", len(loaded))], sections)
    atomic_write_text(out, html)
    return out
