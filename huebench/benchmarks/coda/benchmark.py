"""``huebench run coda``: zero-shot colour distributions from language models (seed 001 §4.1, Tables 6/7/9).

For every object and each of its text-masked templates the model gives a distribution over the
11 colours:

- masked LMs: log P(colour word | template) at the slot for the 11 words *and* "grey" (multi-piece
  words scored by the chain rule, never dropped), softmax over the 12, grey's mass added to gray;
- causal LMs: the log-probability of each of the 12 filled sentences (sum over tokens), softmax
  over the 12, grey added to gray. Upstream ranked sentences by *mean* token loss, which is not a
  distribution over sentences (longer colour words are not penalised for their extra tokens, and
  the normaliser differs per sentence), so its D_JS values are not comparable; we normalise the
  summed log-probabilities into a proper distribution.

Per object and template: ρ, τ (×100), Acc@1, D_JS against the human distribution. Aggregations:
``best`` (the paper's: per object the template with the highest τ) and ``avg`` (the honest one:
each metric averaged over the object's templates, no oracle choice). With ``-o counts=FILE``
(e.g. Google Books n-grams) also Δρ/Δτ against the n-gram distribution and the Table 7
comparison (Avg. correlation of the model with humans vs with n-grams).

Options: ``dataset`` (a folder from ``huebench coda build``, or ``hf:corypaik/coda``; required),
``split`` (``all``, ``train``, ``val``, ``test``), ``counts`` (n-gram counts CSV).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from huebench.benchmarks.base import Benchmark, Sample, register_benchmark
from huebench.benchmarks.coda.dataset import GROUPS, CodaObject, load_dataset, object_prompts
from huebench.benchmarks.coda.metrics import COLORS, mean_std
from huebench.benchmarks.coda.reporting_bias import object_metrics, read_counts
from huebench.errors import HuebenchError
from huebench.models.base import Capability, Model
from huebench.models.requests import Answers, MaskCandidates, SentenceLogprob, group_outputs

__all__ = ["CANDIDATES", "Coda", "to_color_distribution"]


def _num(v: Any) -> float:
    """Stored records hold ``null`` where a metric is undefined; compute with NaN."""
    return math.nan if v is None else float(v)


#: the 11 colours plus the British spelling, whose probability is added to gray's
CANDIDATES = (*COLORS, "grey")
#: objects whose distributions a report draws (the largest D_JS first)
DISTRIBUTION_OBJECTS = 30


def to_color_distribution(logprobs: Sequence[float]) -> list[float]:
    """Softmax over the 12 candidates, grey folded into gray: an 11-colour distribution."""
    x = np.asarray(logprobs, dtype=np.float64)
    p = np.exp(x - x.max())
    p /= p.sum()
    out = p[: len(COLORS)].copy()
    out[COLORS.index("gray")] += p[len(COLORS)]
    return out.tolist()


@register_benchmark("coda")
class Coda(Benchmark):
    name = "coda"
    description = "CoDa zero-shot probes: colour distributions of 521 objects from masked/causal LMs"
    capabilities = (Capability.MASKED_LM, Capability.CAUSAL_LM)
    path_options = ("dataset", "counts")
    option_help: ClassVar[dict[str, str]] = {
        "dataset": "Folder from `coda build` (objects.jsonl; docs/coda.md, The dataset folder) or hf:corypaik/coda.",
        "split": "all, train, val or test.",
        "counts": "n-gram counts CSV: class_id, object_count, 11 colours (docs/coda.md, Corpus and counts files).",
    }

    def __init__(
        self, seed: int = 0, dataset: str | None = None, split: str = "all", counts: str | None = None, **options: Any
    ):
        super().__init__(seed=seed, dataset=dataset, split=split, counts=counts, **options)
        if dataset is None:
            raise HuebenchError(
                "coda needs its dataset: -o dataset=DIR (from `huebench coda build`) or -o dataset=hf:corypaik/coda"
            )
        if split not in ("all", "train", "val", "test"):
            raise HuebenchError(f"split must be all, train, val or test, got {split!r}")
        self.seed, self.dataset, self.split, self.counts = seed, dataset, split, counts
        self._objects: dict[str, CodaObject] | None = None
        self._counts: dict[str, Any] | None = None

    def objects(self) -> dict[str, CodaObject]:
        if self._objects is None:
            objs = load_dataset(self.dataset)
            self._objects = {o.class_id: o for o in objs if self.split == "all" or o.split == self.split}
        return self._objects

    def ngram_counts(self) -> dict[str, Any] | None:
        if self.counts and self._counts is None:
            self._counts = read_counts(self.counts)
        return self._counts

    def samples(self) -> list[Sample]:
        return [Sample(o.class_id, {"name": o.display_name}) for o in self.objects().values()]

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        cap = self.check_model(model)
        objs = [self.objects()[s.id] for s in samples]
        prompts = [object_prompts(o, "text-masked") for o in objs]
        if cap is Capability.MASKED_LM:
            outs = ctx.answer([MaskCandidates(t, tuple(CANDIDATES)) for ps in prompts for _, t in ps])
        else:
            sentences = [SentenceLogprob(t.replace("[MASK]", c)) for ps in prompts for _, t in ps for c in CANDIDATES]
            outs = group_outputs(ctx.answer(sentences), len(CANDIDATES))
        counts = self.ngram_counts()
        k = 0
        for o, ps in zip(objs, prompts, strict=True):
            per_template = []
            for idx, text in ps:
                dist = to_color_distribution(outs[k]["output"])
                per_template.append(
                    {
                        "template": idx,
                        "text": text,
                        "distribution": dist,
                        **object_metrics(np.array(dist), o.distribution),
                    }
                )
                k += 1
            best = max(
                per_template,
                key=lambda t: (t["kendall"] if not math.isnan(t["kendall"]) else -math.inf, -t["template"]),
            )
            avg = {
                m: mean_std([t[m] for t in per_template])[0] for m in ("spearman", "kendall", "js", "avg_correlation")
            }
            avg["acc1"] = float(np.mean([t["acc1"] for t in per_template]))
            rec: dict[str, Any] = {
                **o.record_base(),
                "templates": per_template,
                "best": {
                    key: best[key]
                    for key in ("template", "spearman", "kendall", "acc1", "js", "avg_correlation", "distribution")
                },
                "avg": avg,
                "reason": f"best template {best['template']} (τ={best['kendall']:.1f}); predicted {COLORS[int(np.argmax(best['distribution']))]}, humans say {COLORS[int(np.argmax(o.distribution))]}",
                "batch_size": outs[k - 1]["batch_size"],
            }
            if counts is not None:
                _, vec = counts.get(o.class_id, (0.0, np.zeros(len(COLORS))))
                ng = object_metrics(vec, o.distribution)
                rec["ngram"] = {"spearman": ng["spearman"], "kendall": ng["kendall"]}
                vs = object_metrics(vec, best["distribution"]) if vec.sum() > 0 else {"avg_correlation": math.nan}
                rec["best"]["avg_correlation_vs_ngrams"] = vs["avg_correlation"]
            yield rec

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for agg in ("best", "avg"):
            table: dict[str, Any] = {}
            for g in GROUPS:
                rows = [r[agg] for r in records if r["group"] == g]
                if not rows:
                    continue
                s: dict[str, Any] = {"n": len(rows)}
                for key in ("spearman", "kendall", "js", "avg_correlation"):
                    s[f"{key}_mean"], s[f"{key}_std"] = mean_std([r[key] for r in rows])
                s["acc1"] = 100.0 * float(np.mean([_num(r["acc1"]) for r in rows]))
                if agg == "best" and all("ngram" in r for r in records):
                    grp = [r for r in records if r["group"] == g]
                    s["delta_spearman"] = mean_std(
                        [_num(r["best"]["spearman"]) - _num(r["ngram"]["spearman"]) for r in grp]
                    )[0]
                    s["delta_kendall"] = mean_std(
                        [_num(r["best"]["kendall"]) - _num(r["ngram"]["kendall"]) for r in grp]
                    )[0]
                    s["avg_correlation_vs_ngrams_mean"], s["avg_correlation_vs_ngrams_std"] = mean_std(
                        [r["best"]["avg_correlation_vs_ngrams"] for r in grp]
                    )
                table[g] = s
            out[agg] = table
        return out

    def _distribution_sections(self, m: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        """The model's colour distribution against the humans' for the objects it gets most wrong
        (largest D_JS, best template), drawn in the colours; Kendall τ per group with its spread."""
        from huebench.color import load_system
        from huebench.report.html import Section
        from huebench.report.svg import bar_chart_svg, distribution_pairs_svg

        out = []

        def by_divergence(r: dict[str, Any]) -> float:
            js = _num(r["best"]["js"])
            return -js if math.isfinite(js) else math.inf  # largest first, undefined last

        ranked = sorted(records, key=by_divergence)
        shown = ranked[:DISTRIBUTION_OBJECTS]
        if shown:
            hexes = {c.name: c.hex for c in load_system("basic")}
            out.append(
                Section(
                    f"Colour distributions, humans (upper bar) vs the model (lower bar): the {len(shown)} objects with the largest D_JS",
                    svg=distribution_pairs_svg(
                        [f"{r['name']} ({r['group']})" for r in shown],
                        [r["truth"] for r in shown],
                        [r["best"]["distribution"] for r in shown],
                        list(COLORS),
                        [hexes.get(c, "#dddddd") for c in COLORS],
                    ),
                    note="best template per object; hover a segment for its share",
                )
            )
        best = m.get("best", {})
        if best:
            groups = list(best)
            means = [best[g]["kendall_mean"] for g in groups]
            stds = [best[g]["kendall_std"] for g in groups]
            out.append(
                Section(
                    "Kendall τ with humans per group (mean ± one standard deviation over objects)",
                    svg=bar_chart_svg(
                        groups,
                        means,
                        [v - s for v, s in zip(means, stds, strict=True)],
                        [v + s for v, s in zip(means, stds, strict=True)],
                        ylabel="τ (×100)",
                    ),
                )
            )
        return out

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        from huebench.report.html import Section, fmt_num
        from huebench.report.svg import scatter_svg

        m = results["metrics"]
        sections = []
        for agg, title in (
            ("best", "Table 6 shape: best template per object (by τ)"),
            ("avg", "Template-averaged (no oracle template choice)"),
        ):
            rows = []
            for g, s in m.get(agg, {}).items():
                row = [
                    g,
                    s["n"],
                    f"{fmt_num(s['spearman_mean'], 1)} ± {fmt_num(s['spearman_std'], 1)}",
                    f"{fmt_num(s['kendall_mean'], 1)} ± {fmt_num(s['kendall_std'], 1)}",
                    fmt_num(s["acc1"], 1),
                    f"{fmt_num(s['js_mean'], 2)} ± {fmt_num(s['js_std'], 2)}",
                ]
                if "delta_spearman" in s:
                    row += [fmt_num(s["delta_spearman"], 2), fmt_num(s["delta_kendall"], 2)]
                rows.append(row)
            cols = ["group", "n", "Spearman ρ", "Kendall τ", "Acc@1", "D_JS"]
            if rows and len(rows[0]) > 6:
                cols += ["Δρ", "Δτ"]
            sections.append(Section(title, table={"columns": cols, "rows": rows}))
        sections += self._distribution_sections(m, records)
        if records and "ngram" in records[0]:
            t7 = [
                [
                    g,
                    fmt_num(s["avg_correlation_mean"], 1) + " ± " + fmt_num(s["avg_correlation_std"], 1),
                    fmt_num(s["avg_correlation_vs_ngrams_mean"], 1)
                    + " ± "
                    + fmt_num(s["avg_correlation_vs_ngrams_std"], 1),
                ]
                for g, s in m["best"].items()
            ]
            sections.append(
                Section(
                    "Table 7 shape: Avg. correlation with humans vs with n-grams",
                    table={"columns": ["group", "humans", "n-grams"], "rows": t7},
                )
            )
            pts = [(_num(r["ngram"]["kendall"]), _num(r["best"]["kendall"]), r["group"]) for r in records]
            sections.append(
                Section(
                    "Figure 3 shape: n-gram τ vs model τ per object (above the line: the model mitigates reporting bias)",
                    svg=scatter_svg(pts, xlabel="n-gram τ (×100)", ylabel="model τ (×100)", identity=True),
                )
            )
        return sections
