"""``huebench rainbow``: import captions, build probes, run the language-only baseline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from huebench.report.html import fmt_percent

app = typer.Typer(no_args_is_help=True, help="Rainbow: import captions, build probes, language-only baseline.")
console = Console(soft_wrap=True)  # long lines stay whole in logs and pipes


#: one small file per source of `rainbow import`, shown in its --help (each is imported by the tests;
#: docs/rainbow.md, The source files, shows them with the captions they give)
IMPORT_EXAMPLES: dict[str, Any] = {
    "flickr30k": {
        "images": [
            {"split": "test", "filename": "1000092795.jpg", "imgid": 0, "sentences": [{"raw": "A man in a red shirt."}]}
        ]
    },
    "coco": {
        "images": [
            {
                "split": "test",
                "filepath": "val2014",
                "filename": "COCO_val2014_000000391895.jpg",
                "imgid": 7,
                "sentences": [{"raw": "A man on a red moped."}],
            }
        ]
    },
    "aro": [{"image_path": "2337253.jpg", "true_caption": "the white plate", "false_caption": "the plate white"}],
    "vl-checklist": [["vg/2377957.jpg", {"POS": ["white plate"], "NEG": ["black plate"]}]],
    "eqben": [
        {"image": "eqbensd/1.png", "caption": "a red ball"},
        {"image0": "kubric/0.png", "caption0": "a blue cube", "image1": "kubric/1.png", "caption1": "a yellow cube"},
    ],
}


@app.command(
    "import",
    epilog=(
        "The file of each source, e.g. (other fields are ignored; Karpathy's files give their test-split images "
        "only): "
        + "; ".join(f"{name}: {json.dumps(example)}" for name, example in IMPORT_EXAMPLES.items())
        + ". Every format and the captions it gives: docs/rainbow.md, The source files. Captions of your own "
        "(id, image, caption) need no import: give them to rainbow build --captions."
    ),
)
def import_cmd(
    source: str = typer.Argument(..., help="flickr30k, coco, aro, vl-checklist or eqben."),
    file: Path = typer.Argument(..., help="The source's own annotation file (examples below)."),
    out: Path = typer.Option(..., "--out", help="Captions JSONL (id, image, caption, source) for `rainbow build`."),
) -> None:
    """Convert a source dataset's captions into the captions JSONL that `rainbow build` reads."""
    from huebench.benchmarks.rainbow.sources import load_source
    from huebench.io import atomic_write_text

    caps = load_source(source, file)
    atomic_write_text(
        out,
        "".join(
            json.dumps({"id": c.id, "image": c.image, "caption": c.caption, "source": c.source}) + "\n" for c in caps
        ),
    )
    console.print(f"{len(caps)} captions → {out}")


@app.command(
    "build",
    epilog=(
        'Captions line (JSONL): {"id": "my-7", "image": "mine/beach.png", "caption": "A yellow umbrella on the beach.", '
        '"source": "mine"}; or CSV with the header id,image,caption,source. image is relative to the images root of '
        "the run; every field: docs/rainbow.md, The captions file."
    ),
)
def build_cmd(
    captions: Path = typer.Option(..., "--captions", help="JSONL or CSV with id, image, caption, optional source."),
    out: Path = typer.Option(..., "--out", help="Folder for replacements.jsonl, swaps.jsonl, stats.json."),
) -> None:
    """Derive colour-replacement and colour-swap probes (rules: docs/rainbow.md)."""
    from huebench.benchmarks.rainbow.probes import ProbeBuilder
    from huebench.benchmarks.rainbow.sources import load_captions
    from huebench.io import atomic_write_json, atomic_write_text

    caps = load_captions(captions)
    builder = ProbeBuilder()
    reps, swaps = builder.build(caps)
    atomic_write_text(out / "replacements.jsonl", "".join(json.dumps(p) + "\n" for p in reps))
    atomic_write_text(out / "swaps.jsonl", "".join(json.dumps(p) + "\n" for p in swaps))
    stats = builder.stats_json(reps, swaps, caps)
    atomic_write_json(out / "stats.json", stats)
    console.print(
        f"{stats['captions_kept']}/{stats['captions_read']} captions kept → {len(reps)} replacements, {len(swaps)} swaps "
        f"({stats['two_color_excluded']} two-colour descriptions excluded, {stats['fruit_oranges']} fruit oranges, {stats['article_fixes']} article fixes)"
    )


@app.command(
    "baseline",
    epilog=(
        "--probes: the folder rainbow build writes (replacements.jsonl, swaps.jsonl); a probe line and every "
        "field: docs/rainbow.md, The probes folder."
    ),
)
def baseline_cmd(
    probes: Path = typer.Option(..., "--probes", help="Folder from `rainbow build`."),
    model: str = typer.Option("bert-base-uncased", "--model", "-m", help="A masked LM."),
    out: Path | None = typer.Option(None, "--out", help="Run folder."),
    batch_size: int = typer.Option(64, help="Batch size (masked copies of sentences)."),
    device: str = typer.Option("cpu", help="torch device."),
) -> None:
    """Language-only baseline: is the matching description more likely than its foil (PLL)?"""
    from huebench.cli.runs import end_run  # late: huebench.cli imports this module
    from huebench.runs.runner import RunOptions, run

    res = run(
        RunOptions(
            benchmark="rainbow-baseline",
            model=model,
            out=out,
            batch_size=batch_size,
            device=device,
            benchmark_options={"probes": str(probes)},
        )
    )
    for kind in ("replacement", "swap"):
        for src, e in res.metrics.get(kind, {}).items():
            console.print(f"{kind:12s} {src:16s} {fmt_percent(e['share'], 1)}  (n={e['n']})")
    end_run(res)
