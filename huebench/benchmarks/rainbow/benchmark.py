"""``huebench run rainbow`` (image-text matching on Rainbow probes) and the language-only baseline.

A sample is one caption with all its probes: each distinct (image, text) — the matching caption
and every foil — is scored once, although the matching caption belongs to up to 10 replacement
probes and a swap; the saved forward passes are counted and reported.

Decisions (seed 000 §4.3, §5.3):

- ITM heads (BLIP, FLAVA): accept a description when P(match) > 0.5;
- VLMs: the paper's prompt "Does the following sentence match this image?\\n<description>\\nPlease
  answer with either 'yes' or 'no'." — accept when P(yes) > 0.5 (``-o vlm=prob``, default) or when
  the generated answer starts with yes (``-o vlm=parse``);
- contrastive models have no binary head: the *ranking* variant counts a probe as right when the
  matching description scores above the foil. It is reported as "ranking accuracy", a different
  metric from pair-wise accuracy, never mixed with it.

Pair-wise accuracy: accept the match AND reject the foil (chance 0.25). Also plain accuracy over
the two tuples, precision and recall (positive = "matches").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from huebench.benchmarks.base import Benchmark, Sample, register_benchmark
from huebench.benchmarks.rainbow.probes import COLORS
from huebench.errors import HuebenchError
from huebench.images import load_image
from huebench.io import InputFileError, read_jsonl
from huebench.models.base import Capability, Model
from huebench.models.requests import (
    Answers,
    Generation,
    ImageTextScores,
    MatchProbability,
    PseudoLogLikelihood,
    Request,
    YesProbability,
)
from huebench.paths import resolve_under

__all__ = ["VLM_PROMPT", "Rainbow", "RainbowBaseline", "load_probes", "read_rgb"]

#: at most this many captions with wrong probes are pictured in a report
GALLERY_CAPTIONS = 120
#: at most this many wrong probes are listed in the text report
EXAMPLE_PROBES = 50

VLM_PROMPT = "Does the following sentence match this image?\n{description}\nPlease answer with either 'yes' or 'no'."
RELATIONS = ("adjacent", "complementary", "other")
PROBE_FIELDS = ("id", "caption_id", "image", "kind", "text", "foil", "original_color", "foil_color", "relation")


def load_probes(folder: str | Path, kinds: Sequence[str] = ("replacement", "swap")) -> dict[str, list[dict[str, Any]]]:
    """Probes grouped by caption id, in file order."""
    folder = Path(folder)
    names = {"replacement": "replacements.jsonl", "swap": "swaps.jsonl"}
    groups: dict[str, list[dict[str, Any]]] = {}
    first: dict[str, tuple[str, int]] = {}  # caption id → where its first probe is
    for kind in kinds:
        if kind not in names:
            raise HuebenchError(f"unknown probe kind {kind!r}; use replacement and/or swap")
        file = resolve_under(folder, names[kind], what="probe file")
        if not file.exists():
            raise InputFileError(f"{folder / names[kind]}: not found; build probes with `huebench rainbow build`")
        for line, p in read_jsonl(file, required=PROBE_FIELDS):
            _check_probe(p, kind, f"{file}:{line}")
            cid = str(p["caption_id"])
            if cid in groups:
                same = groups[cid][0]
                for key in ("text", "image"):
                    if p[key] != same[key]:
                        where, at = first[cid]
                        raise InputFileError(
                            f"{file}:{line}: {key} {p[key]!r} differs from the {key} of caption {cid!r}'s first probe "
                            f"({where}:{at}: {same[key]!r}); all probes of a caption share its text and image"
                        )
            else:
                first[cid] = (file.name, line)
            groups.setdefault(cid, []).append(p)
    if not groups:
        raise InputFileError(f"{folder}: no probes")
    return groups


def read_rgb(path: str | Path) -> dict[tuple[str, int | None], Any]:
    """The ``rgb`` option's CSV (``caption_id, mention_index, hex``): the annotated colour of each
    colour mention, keyed by (caption id, mention index) as the replacement probes carry them."""
    from huebench.color import parse
    from huebench.io import read_table

    out: dict[tuple[str, int | None], Any] = {}  # looked up with a probe's mention_index, maybe None
    for line, row in read_table(path, required=("caption_id", "mention_index", "hex")):
        index = row["mention_index"].strip()
        if not index.isdigit():
            raise InputFileError(
                f"{path}:{line}: mention_index must be a whole number (0 = the caption's first colour word), "
                f"got {row['mention_index']!r}"
            )
        try:
            out[(row["caption_id"], int(index))] = parse(row["hex"])
        except ValueError as exc:  # ColorSpecError, UnknownNameError
            raise InputFileError(f"{path}:{line}: {exc}") from None
    return out


def _check_probe(p: dict[str, Any], kind: str, where: str) -> None:
    """One probe line as ``rainbow build`` writes it; a hand-made one gets one line saying what is wrong."""
    if p["kind"] != kind:
        raise InputFileError(f"{where}: kind must be {kind!r} in this file, got {p['kind']!r}")
    for key in ("text", "foil"):
        if not isinstance(p[key], str) or not p[key].strip():
            raise InputFileError(f"{where}: {key} must be a non-empty string, got {p[key]!r}")
    for key in ("original_color", "foil_color"):
        if p[key] not in COLORS:
            raise InputFileError(
                f"{where}: {key} must be one of the 11 basic colour terms ({', '.join(COLORS)}), got {p[key]!r}"
            )
    if p["relation"] not in RELATIONS:
        raise InputFileError(f"{where}: relation must be one of {', '.join(RELATIONS)}, got {p['relation']!r}")


def _rates(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    if n == 0:
        return {"n": 0}
    tp = sum(r["match_accepted"] for r in rows)
    fp = sum(not r["foil_rejected"] for r in rows)
    tn = n - fp
    return {
        "n": n,
        "pairwise_accuracy": float(np.mean([r["pair_correct"] for r in rows])),
        "accuracy": (tp + tn) / (2 * n),
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / n,
    }


def pair_heatmap(by_pair: dict[str, Any]) -> str:
    """The colour-pair matrix of :func:`_pair_table` as a heatmap with the colours on both axes."""
    from huebench.report.svg import heatmap_svg

    hexes = color_hexes(by_pair["labels"])
    labels = by_pair["labels"]
    return heatmap_svg(by_pair["matrix"], labels, labels, vmin=0.0, vmax=1.0, row_colors=hexes, col_colors=hexes)


def color_hexes(names: Sequence[str]) -> list[str | None]:
    """'#rrggbb' of Rainbow's basic colour terms (the colour core's "basic" system), None for others."""
    from huebench.color import load_system

    basic = load_system("basic")
    return [c.hex if (c := basic.find(n)) is not None else None for n in names]  # find knows grey = gray


def _probe_error(p: dict[str, Any]) -> str:
    change = f"{p['original_color']} → {p['foil_color']} ({p.get('relation')})"
    if "ranking_correct" in p:
        return f"{change}: foil ranked above"
    what = [
        w
        for w, ok in (("description rejected", p.get("match_accepted")), ("foil accepted", p.get("foil_rejected")))
        if not ok
    ]
    return f"{change}: {', '.join(what)}"


def _pair_table(rows: Sequence[dict[str, Any]], key: str) -> dict[str, Any]:
    """11×11 matrix (original colour → foil colour) of mean ``key``, and relation macro-averages."""
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    rel: dict[tuple[str, str], str] = {}
    for r in rows:
        cells[(r["original_color"], r["foil_color"])].append(float(r[key]))
        rel[(r["original_color"], r["foil_color"])] = r["relation"]
    matrix = [[float(np.mean(cells[(a, b)])) if cells.get((a, b)) else None for b in COLORS] for a in COLORS]
    macro = {}
    for name in ("adjacent", "complementary", "other", "all"):
        vals = [float(np.mean(v)) for pair, v in cells.items() if name == "all" or rel[pair] == name]
        macro[name] = float(np.mean(vals)) if vals else None
    return {
        "labels": list(COLORS),
        "matrix": matrix,
        "counts": [[len(cells.get((a, b), [])) for b in COLORS] for a in COLORS],
        "macro": macro,
    }


class _RainbowBase(Benchmark):
    option_help: ClassVar[dict[str, str]] = {
        "probes": "Folder from `rainbow build`: replacements.jsonl, swaps.jsonl (docs/rainbow.md, The probes folder).",
        "kinds": "replacement, swap or both, comma-separated.",
    }

    def __init__(self, seed: int = 0, probes: str | None = None, kinds: str = "replacement,swap", **options: Any):
        super().__init__(seed=seed, probes=probes, kinds=kinds, **options)
        if probes is None:
            raise HuebenchError(f"{self.name} needs probes: -o probes=DIR (from `huebench rainbow build`)")
        self.seed, self.probes_dir = seed, probes
        self.kinds = tuple(k.strip() for k in str(kinds).split(",") if k.strip())
        self._groups: dict[str, list[dict[str, Any]]] | None = None

    def groups(self) -> dict[str, list[dict[str, Any]]]:
        if self._groups is None:
            self._groups = load_probes(self.probes_dir, self.kinds)
        return self._groups

    def samples(self) -> list[Sample]:
        return [Sample(cid, {"n_probes": len(ps)}) for cid, ps in self.groups().items()]


@register_benchmark("rainbow")
class Rainbow(_RainbowBase):
    name = "rainbow"
    description = "Rainbow colour-naming probes: pair-wise accuracy of binary image-text matching"
    capabilities = (Capability.ITM, Capability.VLM, Capability.IMAGE_TEXT_SCORE)
    path_options = ("probes", "images", "rgb")
    option_help: ClassVar[dict[str, str]] = {
        "images": "Images root: each probe's image is a path inside it.",
        "vlm": "VLM decision: prob (P(yes) > 0.5) or parse (the answer starts with yes).",
        "rgb": "CSV caption_id,mention_index,hex (Figure 11; docs/rainbow.md, The colours file).",
    }

    def __init__(
        self,
        seed: int = 0,
        probes: str | None = None,
        images: str | None = None,
        kinds: str = "replacement,swap",
        vlm: str = "prob",
        rgb: str | None = None,
        **options: Any,
    ):
        super().__init__(seed=seed, probes=probes, kinds=kinds, images=images, vlm=vlm, rgb=rgb, **options)
        if images is None:
            raise HuebenchError("rainbow needs the images: -o images=ROOT (probe image paths are relative to it)")
        if vlm not in ("prob", "parse"):
            raise HuebenchError(f"vlm must be prob or parse, got {vlm!r}")
        self.images_root, self.vlm_mode, self.rgb = images, vlm, rgb
        if rgb:
            read_rgb(rgb)  # a mistake in it stops the run before it starts, not after its last sample

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        cap = self._first_capability(model)  # what check_model gives: Rainbow does not override it
        groups = self.groups()
        plans = []
        reqs: list[Request] = []
        for s in samples:
            ps = groups[s.id]
            image_path = resolve_under(self.images_root, str(ps[0]["image"]), what="image")
            img = np.asarray(load_image(image_path))
            texts = list(dict.fromkeys([ps[0]["text"], *(p["foil"] for p in ps)]))
            plans.append((s, ps, texts, len(reqs)))
            if cap is Capability.IMAGE_TEXT_SCORE:
                reqs.append(ImageTextScores((img,), tuple(texts)))
            elif cap is Capability.ITM:
                reqs.extend(MatchProbability(img, t) for t in texts)
            elif self.vlm_mode == "prob":
                reqs.extend(YesProbability((img, VLM_PROMPT.format(description=t))) for t in texts)
            else:
                reqs.extend(Generation((img, VLM_PROMPT.format(description=t)), 8) for t in texts)
        outs = ctx.answer(reqs)
        if cap is Capability.IMAGE_TEXT_SCORE:
            outs = [{"output": o["output"][0], "batch_size": o["batch_size"]} for o in outs]
        elif cap is Capability.VLM and self.vlm_mode != "prob":
            outs = [
                {
                    "output": 1.0 if str(o["output"]).strip().lower().startswith("yes") else 0.0,
                    "raw": o["output"],
                    "batch_size": o["batch_size"],
                }
                for o in outs
            ]
        for s, ps, texts, start in plans:
            if cap is Capability.IMAGE_TEXT_SCORE:
                scores = dict(zip(texts, [float(v) for v in outs[start]["output"]], strict=True))
                bs = outs[start]["batch_size"]
                raw = None
            else:
                scores = {t: float(outs[start + k]["output"]) for k, t in enumerate(texts)}
                bs = outs[start]["batch_size"]
                raw = (
                    {t: outs[start + k].get("raw") for k, t in enumerate(texts)}
                    if cap is Capability.VLM and self.vlm_mode == "parse"
                    else None
                )
            probe_recs = []
            for p in ps:
                sm, sf = scores[p["text"]], scores[p["foil"]]
                rec_p: dict[str, Any] = {
                    k: p.get(k) for k in ("id", "kind", "original_color", "foil_color", "relation", "mention_index")
                }
                if cap is Capability.IMAGE_TEXT_SCORE:
                    rec_p["ranking_correct"] = sm > sf
                else:
                    acc, rej = sm > 0.5, sf <= 0.5
                    rec_p.update(match_accepted=acc, foil_rejected=rej, pair_correct=acc and rej)
                probe_recs.append(rec_p)
            key = "ranking_correct" if cap is Capability.IMAGE_TEXT_SCORE else "pair_correct"
            n_right = sum(r[key] for r in probe_recs)
            rec = {
                "id": s.id,
                "status": "ok",
                "image": ps[0]["image"],
                "source": ps[0].get("source", ""),
                "text": ps[0]["text"],
                "decision_rule": {
                    Capability.ITM: "P(match) > 0.5",
                    Capability.VLM: f"VLM yes ({self.vlm_mode})",
                    Capability.IMAGE_TEXT_SCORE: "ranking: s(match) > s(foil)",
                }[cap],
                "scores": scores,
                "probes": probe_recs,
                "forward_passes": len(texts),
                "naive_passes": 2 * len(ps),
                "reason": f"{n_right}/{len(ps)} probes right; {len(texts)} distinct (image, text) scored instead of {2 * len(ps)}",
                "batch_size": bs,
            }
            if raw is not None:
                rec["raw_answers"] = raw
            yield rec

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        probes = [dict(p, source=r["source"], caption_id=r["id"]) for r in records for p in r["probes"]]
        ranking = bool(probes) and "ranking_correct" in probes[0]
        key = "ranking_correct" if ranking else "pair_correct"
        out: dict[str, Any] = {
            "metric": "ranking accuracy (contrastive: matching above foil; chance 0.5)"
            if ranking
            else "pair-wise accuracy (accept match and reject foil; chance 0.25)",
            "forward_passes": sum(r["forward_passes"] for r in records),
            "naive_passes": sum(r["naive_passes"] for r in records),
        }
        out["passes_saved"] = out["naive_passes"] - out["forward_passes"]
        sources = sorted({p["source"] for p in probes})
        for kind in ("replacement", "swap"):
            rows = [p for p in probes if p["kind"] == kind]
            if not rows:
                continue
            table: dict[str, Any] = {}
            for src in [*sources, "all"]:
                sub = [p for p in rows if src == "all" or p["source"] == src]
                if not sub:
                    continue
                entry: dict[str, Any] = (
                    {"n": len(sub), "score": float(np.mean([p[key] for p in sub]))} if ranking else _rates(sub)
                )
                entry["by_pair"] = _pair_table(sub, key)
                table[src] = entry
            out[kind] = table
        if self.rgb and not ranking:
            out["rgb_hues"] = self._rgb_analysis(probes, self.rgb)
        return out

    def _rgb_analysis(self, probes: Sequence[dict[str, Any]], rgb_table: str) -> dict[str, Any]:
        """Figure 11: average colour of mentions whose adjacent-colour foil was accepted vs rejected
        (the mentions' colours: ``rgb_table``, the ``rgb`` option)."""
        from huebench.color import lab_to_srgb, srgb_to_lab

        hexes = read_rgb(rgb_table)
        cells: dict[str, dict[str, list[np.ndarray]]] = defaultdict(lambda: {"accepted": [], "rejected": []})
        for p in probes:
            c = hexes.get((p["caption_id"], p.get("mention_index")))
            if c is None or p["kind"] != "replacement" or p["relation"] != "adjacent":
                continue
            cells[f"{p['original_color']}→{p['foil_color']}"]["rejected" if p["foil_rejected"] else "accepted"].append(
                srgb_to_lab(np.array(c.srgb))
            )
        out: dict[str, dict[str, Any]] = {}
        for pair, d in sorted(cells.items()):
            out[pair] = {}
            for k, labs in d.items():
                if labs:
                    rgb = np.clip(lab_to_srgb(np.mean(labs, axis=0)), 0, 1)
                    out[pair][k] = {"n": len(labs), "hex": "#{:02X}{:02X}{:02X}".format(*(round(v * 255) for v in rgb))}
        return out

    def _caption_gallery(self, records: Sequence[dict[str, Any]]) -> list[Any]:
        """Captions with a wrong probe (at most :data:`GALLERY_CAPTIONS`, most wrong first): the
        image, the caption, each wrong probe's colours as swatches and what went wrong."""
        from huebench.report.gallery import GalleryItem, file_thumbnail
        from huebench.report.html import Section

        def wrong(p: dict[str, Any]) -> bool:
            return not p.get("ranking_correct", p.get("pair_correct", True))

        cards = []
        hexes = dict(zip(COLORS, color_hexes(COLORS), strict=True))
        with_wrong = [r for r in records if any(wrong(p) for p in r["probes"])]
        for r in with_wrong[:GALLERY_CAPTIONS]:
            bad = [p for p in r["probes"] if wrong(p)]
            try:
                thumb = file_thumbnail(resolve_under(self.images_root, str(r["image"]), what="image"))
            except HuebenchError:
                thumb = None  # the image is no longer under the folder: the card without its picture
            swatches = [(f"{p['original_color']} → {p['foil_color']}", hexes.get(p["foil_color"])) for p in bad]
            cards.append(
                GalleryItem(
                    str(r["id"]),
                    False,
                    reason=str(r.get("reason", "")),
                    images=[thumb] if thumb else [],
                    swatches=[(label, h) for label, h in swatches if h],
                    tags={
                        "caption": str(r.get("text")),
                        "source": str(r.get("source")),
                        "wrong": "; ".join(_probe_error(p) for p in bad),
                    },
                    sort_key=float(len(bad)),
                )
            )
        if not cards:
            return []
        return [
            Section(
                "Captions with wrong probes (swatch: the foil's colour)",
                gallery=cards,
                note=f"{len(cards)} of {len(with_wrong)} captions with a wrong probe",
            )
        ]

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        from huebench.report.html import Section, fmt_percent
        from huebench.report.svg import swatches_svg

        m = results["metrics"]
        ranking = m["metric"].startswith("ranking")
        sections = [
            Section(
                "Metric",
                note=f"{m['metric']}. Distinct (image, text) pairs scored: {m['forward_passes']} instead of {m['naive_passes']} ({m['passes_saved']} forward passes saved).",
            )
        ]
        for kind, title in (
            ("replacement", "Colour replacements (Table 3 shape)"),
            ("swap", "Colour swaps (Table 4 shape)"),
        ):
            if kind not in m:
                continue
            rows = []
            for src, e in m[kind].items():
                macro = e["by_pair"]["macro"]
                if ranking:
                    rows.append(
                        [
                            src,
                            e["n"],
                            fmt_percent(e["score"], 1, unit=False),
                            fmt_percent(macro["complementary"], 1, unit=False),
                            fmt_percent(macro["adjacent"], 1, unit=False),
                            fmt_percent(macro["all"], 1, unit=False),
                        ]
                    )
                else:
                    rows.append(
                        [
                            src,
                            e["n"],
                            fmt_percent(e["pairwise_accuracy"], 1, unit=False),
                            fmt_percent(macro["complementary"], 1, unit=False),
                            fmt_percent(macro["adjacent"], 1, unit=False),
                            fmt_percent(macro["all"], 1, unit=False),
                            fmt_percent(e["accuracy"], 1, unit=False),
                            fmt_percent(e["precision"], 1, unit=False),
                            fmt_percent(e["recall"], 1, unit=False),
                        ]
                    )
            cols = [
                "source",
                "probes",
                "ranking acc. (%)" if ranking else "pair-wise acc. (%)",
                "⚡ complementary (macro, %)",
                "~ adjacent (macro, %)",
                "all pairs (macro, %)",
            ]
            if not ranking:
                cols += ["accuracy (%)", "precision (%)", "recall (%)"]
            sections.append(Section(title, table={"columns": cols, "rows": rows}))
        for src, e in m.get("replacement", {}).items():
            bp = e["by_pair"]
            sections.append(
                Section(
                    f"Figure 6 shape — {src}: {'ranking' if ranking else 'pair-wise'} accuracy per colour pair (rows: original, columns: replacement)",
                    svg=pair_heatmap(bp),
                )
            )
        sections += self._caption_gallery(records)
        if m.get("rgb_hues"):
            sw = []
            for pair, d in m["rgb_hues"].items():
                for k in ("accepted", "rejected"):
                    if k in d:
                        sw.append((f"{pair} {k} (n={d[k]['n']})", d[k]["hex"]))
            sections.append(
                Section(
                    "Figure 11 shape: average annotated colour when the adjacent foil was accepted vs rejected",
                    svg=swatches_svg(sw),
                )
            )
        return sections


@register_benchmark("rainbow-baseline")
class RainbowBaseline(_RainbowBase):
    """Language-only baseline (§5.2, Table 2, Figure 8): is the matching description more likely?"""

    name = "rainbow-baseline"
    description = "Rainbow language-only baseline: pseudo-log-likelihood of description vs foil"
    capabilities = (Capability.MASKED_LM,)
    path_options = ("probes",)

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        self.check_model(model)
        groups = self.groups()
        plans: list[tuple[Sample, list[dict[str, Any]], list[str], int]] = []
        reqs: list[Request] = []
        for s in samples:
            ps = groups[s.id]
            texts = list(dict.fromkeys([ps[0]["text"], *(p["foil"] for p in ps)]))
            plans.append((s, ps, texts, len(reqs)))
            reqs.extend(PseudoLogLikelihood(t) for t in texts)
        outs = ctx.answer(reqs)
        for s, ps, texts, start in plans:
            pll = {t: float(outs[start + k]["output"]) for k, t in enumerate(texts)}
            probe_recs = [
                {
                    "id": p["id"],
                    "kind": p["kind"],
                    "original_color": p["original_color"],
                    "foil_color": p["foil_color"],
                    "relation": p["relation"],
                    "match_more_likely": pll[p["text"]] > pll[p["foil"]],
                }
                for p in ps
            ]
            yield {
                "id": s.id,
                "status": "ok",
                "source": ps[0].get("source", ""),
                "text": ps[0]["text"],
                "pll": pll,
                "probes": probe_recs,
                "reason": f"matching description more likely in {sum(r['match_more_likely'] for r in probe_recs)}/{len(ps)} probes",
                "batch_size": outs[start]["batch_size"],
            }

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        probes = [dict(p, source=r["source"]) for r in records for p in r["probes"]]
        out: dict[str, Any] = {
            "metric": "share of probes whose matching description has the higher pseudo-log-likelihood (chance 0.5)"
        }
        sources = sorted({p["source"] for p in probes})
        for kind in ("replacement", "swap"):
            rows = [p for p in probes if p["kind"] == kind]
            if rows:
                out[kind] = {
                    src: {
                        "n": len(sub),
                        "share": float(np.mean([p["match_more_likely"] for p in sub])),
                        "by_pair": _pair_table(sub, "match_more_likely"),
                    }
                    for src in [*sources, "all"]
                    if (sub := [p for p in rows if src == "all" or p["source"] == src])
                }
        return out

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        from huebench.report.html import Section, fmt_percent

        m = results["metrics"]
        rows = [
            [kind, src, e["n"], fmt_percent(e["share"], 1)]
            for kind in ("replacement", "swap")
            for src, e in m.get(kind, {}).items()
        ]
        sections = [
            Section(
                "Table 2 shape: matching description more likely than the foil",
                table={"columns": ["kind", "source", "probes", "share"], "rows": rows},
                note="random baseline 50 %",
            )
        ]
        wrong = [(r, p) for r in records for p in r["probes"] if not p["match_more_likely"]]
        if wrong:
            sections.append(
                Section(
                    "Example probes the model got wrong (the foil more likely than the description)",
                    table={
                        "columns": ["description", "colour", "foil colour", "relation"],
                        "rows": [
                            [r["text"], p["original_color"], p["foil_color"], p["relation"]]
                            for r, p in wrong[:EXAMPLE_PROBES]
                        ],
                    },
                    note=f"{min(len(wrong), EXAMPLE_PROBES)} of {len(wrong)} wrong probes",
                )
            )
        if "replacement" in m and "all" in m["replacement"]:
            bp = m["replacement"]["all"]["by_pair"]
            sections.append(
                Section(
                    "Figure 8 shape: share per colour pair (rows: original, columns: replacement)",
                    svg=pair_heatmap(bp),
                )
            )
        return sections
