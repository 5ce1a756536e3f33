"""``huebench coda``: build the dataset, measure reporting bias, count a corpus, probe representations."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from huebench.errors import HuebenchError
from huebench.report.html import fmt_num

app = typer.Typer(
    no_args_is_help=True, help="CoDa: build the dataset, reporting bias, corpus counts, representation probes."
)
console = Console(soft_wrap=True)  # long lines stay whole in logs and pipes


@app.command(
    "build",
    epilog=(
        'Objects line: {"class_id": "/m/0cmf2", "display_name": "Airplane", "object_s": "airplane", "areis_s": "is", '
        '"object_pl": "airplanes", "areis_pl": "are", "ngram": "airplane"}. Annotations line: {"class_id": "/m/0cmf2", '
        '"action": "submitted", "black": 0, …, "yellow": 0} (all 11 colours, 0-5). Both formats: docs/coda.md, '
        "Input files of coda build."
    ),
)
def build(
    annotations: Path = typer.Option(
        ..., "--annotations", help="Raw crowd ratings (JSONL: class_id, action, 11 colour ratings 0-5)."
    ),
    objects: Path = typer.Option(
        ..., "--objects", help="Object list (JSONL: class_id, display_name, object_s/pl, areis_s/pl, ngram)."
    ),
    out: Path = typer.Option(..., "--out", help="Output folder: objects.jsonl, templates.jsonl, meta.json."),
    seed: int = typer.Option(0, "--seed", help="Seed for k-means restarts and the splits."),
) -> None:
    """Ground truth (normalise, Kendall-τ filter, mean), groups (k-means, JS), splits, templates."""
    from huebench.benchmarks.coda.dataset import build_dataset

    meta = build_dataset(annotations, objects, out, seed=seed)["meta"]
    table = Table("group", "objects", "train", "val", "test")
    for g, n in meta["groups"].items():
        sp = meta["splits"][g]
        table.add_row(g, str(n), str(sp["train"]), str(sp["val"]), str(sp["test"]))
    console.print(table)
    console.print(
        f"{meta['n_objects']} objects; {meta['annotations_removed_by_kendall_filter']} annotations removed by the Kendall filter → {out}"
    )


@app.command(
    "reporting-bias",
    epilog=(
        "Counts CSV: header class_id,object_count,black,blue,brown,gray,green,orange,pink,purple,red,white,yellow "
        "(any order), rows like /m/09qck,3,0,0,0,0,1,0,0,0,0,0,1 (docs/coda.md, Corpus and counts files). "
        "--dataset: the folder coda build writes (docs/coda.md, The dataset folder)."
    ),
)
def reporting_bias_cmd(
    dataset: str = typer.Option(..., "--dataset", help="A built CoDa folder or hf:corypaik/coda."),
    counts: list[Path] = typer.Option(
        ..., "--counts", help="n-gram counts CSV (class_id, object_count, 11 colours); repeatable."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print {stem: {group: {freq, spearman_mean, …}}}."),
) -> None:
    """Table 4: how well colour n-gram frequencies match the human distributions, per group."""
    from huebench.benchmarks.coda.dataset import load_dataset
    from huebench.benchmarks.coda.reporting_bias import read_counts, reporting_bias, table4_json
    from huebench.runs.runner import json_safe

    objs = load_dataset(dataset)
    results = {Path(c).stem: table4_json(reporting_bias(objs, read_counts(c))) for c in counts}
    if as_json:
        typer.echo(json.dumps(json_safe(results), indent=2))
        return
    table = Table("counts", "group", "Freq", "Spearman ρ", "Kendall τ", "Acc@1", "D_JS")
    for stem, groups in results.items():
        for g, s in groups.items():
            table.add_row(
                stem,
                g,
                f"{s['freq']:.2f}",
                f"{s['spearman_mean']:.1f} ± {s['spearman_std']:.1f}",
                f"{s['kendall_mean']:.1f} ± {s['kendall_std']:.1f}",
                f"{s['acc1']:.1f}",
                f"{s['js_mean']:.2f} ± {s['js_std']:.2f}",
            )
    console.print(table)


def not_utf8(path: Path) -> HuebenchError:
    """The error for a corpus file that is not UTF-8, naming its first bad line."""
    from huebench.io import InputFileError

    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return InputFileError(
                    f"{path}:{number}: not valid UTF-8 (byte 0x{raw[exc.start]:02x}); "
                    "re-save the corpus as UTF-8 (e.g. iconv -f latin1 -t utf-8)"
                )
    return InputFileError(f"{path}: not valid UTF-8; re-save the corpus as UTF-8")


@app.command(
    "count",
    epilog=(
        "Corpus: plain UTF-8 text, one sentence or document per line (e.g. 'A man eats a yellow banana.'). "
        "Writes the counts CSV that coda reporting-bias and -o counts= read: docs/coda.md, Corpus and counts files."
    ),
)
def count_cmd(
    corpus: list[Path] = typer.Option(
        ..., "--corpus", help="Plain-text corpus files (one document or sentence per line); repeatable."
    ),
    dataset: str = typer.Option(..., "--dataset", help="A built CoDa folder (or hf:corypaik/coda) giving the objects."),
    out: Path = typer.Option(..., "--out", help="Counts CSV to write."),
    method: str = typer.Option("ngram", "--method", help="ngram (fast) or dependency (spaCy parse)."),
) -> None:
    """Build a counts file from your own corpus (colour–object n-grams or dependency arcs)."""
    from huebench import progress
    from huebench.benchmarks.coda.dataset import load_dataset
    from huebench.benchmarks.coda.ngrams import count_dependency, count_ngrams, write_counts

    objs = load_dataset(dataset)
    if method not in ("ngram", "dependency"):
        raise HuebenchError(f"--method must be ngram or dependency, got {method!r}")
    size = sum(p.stat().st_size for p in corpus if p.is_file())

    def lines(bar: progress.Task):
        for path in corpus:
            with open(path, encoding="utf-8", errors="strict") as fh:
                try:
                    for line in fh:
                        bar.advance(len(line.encode("utf-8")))
                        if line.strip():
                            yield line
                except UnicodeDecodeError:
                    raise not_utf8(path) from None

    with progress.task(
        f"coda count ({method}): {len(corpus)} corpus file{'s' if len(corpus) != 1 else ''}", total=size, unit="bytes"
    ) as bar:
        counts = (count_ngrams if method == "ngram" else count_dependency)(lines(bar), objs)
    write_counts(out, counts)
    n_obj = sum(1 for n, _ in counts.values() if n > 0)
    n_col = int(sum(v.sum() for _, v in counts.values()))
    console.print(f"{n_obj} objects mentioned, {n_col} colour–object pairs → {out}")


@app.command(
    "probe",
    epilog=(
        "--dataset: the folder coda build writes, or your own objects.jsonl with lines like "
        '{"class_id": "/m/09qck", "display_name": "Banana", "object_s": "banana", "areis_s": "is", '
        '"object_pl": "bananas", "areis_pl": "are", "ngram": "banana", "distribution": [11 probabilities, black … '
        'yellow], "group": "Single", "split": "test"}; every field: docs/coda.md, The dataset folder.'
    ),
)
def probe_cmd(
    model: str = typer.Option(
        ..., "--model", "-m", help="Any model with text features (MLM, causal LM, CLIP, sentence encoder)."
    ),
    dataset: str = typer.Option(..., "--dataset", help="A built CoDa folder or hf:corypaik/coda."),
    out: Path | None = typer.Option(None, "--out", help="Run folder."),
    steps: int = typer.Option(4000, help="Adam steps per probe, each a full-batch epoch (paper: 4000)."),
    seeds: int = typer.Option(5, help="Seeds (paper: 5)."),
    points: int = typer.Option(10, help="Log-spaced training sizes (paper: 10)."),
    epsilon: float = typer.Option(0.1, help="ε for SDL and sample complexity (D_JS units)."),
    random_init: bool = typer.Option(
        False, "--random-init", help="Same architecture, random weights: the 'Random' control."
    ),
    batch_size: int = typer.Option(32, help="Feature-extraction batch size."),
    device: str = typer.Option("cpu", help="torch device."),
    seed: int = typer.Option(0, help="Base seed."),
    resume: bool = typer.Option(False, "--resume", help="Continue a run folder."),
    progress: bool = typer.Option(
        True, "--progress/--no-progress", help="Show progress: feature extraction, then each probe's training."
    ),
) -> None:
    """Representation probes: MLP on frozen features, loss-data curve, MDL / SDL / εSC (Table 8)."""
    from huebench.cli.runs import end_run  # late: huebench.cli imports this module
    from huebench.models.registry import load_model
    from huebench.runs.runner import RunOptions, run

    m = load_model(
        model, batch_size=batch_size, device=device, seed=seed, **({"random_init": True} if random_init else {})
    )
    opts = RunOptions(
        benchmark="coda-probe",
        model=model + (" (random init)" if random_init else ""),
        out=out,
        batch_size=batch_size,
        device=device,
        seed=seed,
        resume=resume,
        progress=progress,
        benchmark_options={"dataset": dataset, "steps": steps, "seeds": seeds, "points": points, "epsilon": epsilon},
    )
    res = run(opts, model=m)
    s = res.metrics.get("summary") or {}
    if s:
        console.print(
            f"MDL {fmt_num(s['mdl'], 2)}  SDL {fmt_num(s['sdl'], 2)}  εSC {s['sample_complexity']}  "
            f"final D_JS {fmt_num(s['final_js'])}  Avg. corr. {fmt_num(s['final_avg_correlation'], 1)} → {res.run_dir}"
        )
    end_run(res)
