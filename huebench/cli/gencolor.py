"""``huebench gencolor``: GenColorBench scoring tools (score one image; known-colour diagnostic)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import typer
from rich.console import Console

app = typer.Typer(no_args_is_help=True)
console = Console()


@app.command("score-image")
def score_image(
    image: Path = typer.Argument(..., help="An image file."),
    target: str = typer.Option(
        ..., "--target", help="Target colour: a name of the system, '#rrggbb' or 'rgb(r, g, b)'."
    ),
    system: str = typer.Option(
        "css3", "--system", help="basic, iscc-nbs-l2, iscc-nbs-l3 or css3 (candidate sets come from it)."
    ),
    mask: Path | None = typer.Option(
        None, "--mask", help="Object mask (PNG, non-zero = object); default: offline segmentation."
    ),
    k: int = typer.Option(3, "--k", help="Nearest neighbours of the target in the candidate set."),
    as_json: bool = typer.Option(
        False, "--json", help="Print JSON: pass, dominant_lab, delta_e00, delta_chroma, delta_hue, …"
    ),
) -> None:
    """Score one image's object colour against a target (GenColorBench's perceptual metrics)."""
    from huebench.benchmarks.gencolor.scoring import ColorScorer
    from huebench.images import load_image

    img = np.asarray(load_image(image))
    m = None
    if mask is not None:
        m = np.asarray(load_image(mask).convert("L")) > 0
    score, used = ColorScorer(system, k=k).score_image(img, target, mask=m)
    out = {**score.as_dict(), "mask_pixels": int(used.sum()), "mask_source": "file" if mask else "offline segmentation"}
    if as_json:
        typer.echo(json.dumps(out, indent=2))
        return
    console.print(("[green]PASS[/] " if score.passed else "[red]FAIL[/] ") + score.reason)


@app.command("diagnose")
def diagnose(
    system: str = typer.Option("iscc-nbs-l2", "--system", help="iscc-nbs-l2 or css3."),
    quick: bool = typer.Option(
        False, "--quick", help="Smaller, noisier renders (48 px, 16 spp): a few minutes on a laptop CPU."
    ),
    out: Path | None = typer.Option(None, "--out", help="Run folder (default runs/gencolor-diagnostic/SYSTEM)."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N renders."),
    seed: int = typer.Option(0, "--seed", help="Seed for set-up choices and render noise."),
    resume: bool = typer.Option(False, "--resume", help="Continue a run folder."),
    executor: str = typer.Option("local", "--executor", help="local or ray."),
    vlm: str | None = typer.Option(
        None, "--vlm", help="Also ask this VLM the Appendix E questions (Q1–Q6 CSS, Q1–Q4 L2)."
    ),
    batch_size: int = typer.Option(8, "--batch-size", help="VLM batch size."),
    device: str = typer.Option("cpu", "--device", help="torch device for the VLM."),
) -> None:
    """Render objects in every colour of a system (Mitsuba 3), score them, report accuracy and false accepts."""
    from huebench.runs.runner import RunOptions, run

    opts = RunOptions(
        benchmark="gencolor-diagnostic",
        model="reference:none",
        out=out or Path("runs") / "gencolor-diagnostic" / system,
        limit=limit,
        seed=seed,
        resume=resume,
        no_cache=True,
        executor=executor,
        benchmark_options={"system": system, "quick": quick},
    )
    res = run(opts)
    m = res.metrics
    console.print(
        f"{m['system']}: accuracy {m['accuracy_exact_mask']['value']:.2f} % with exact masks, {m['accuracy_offline_mask']['value']:.2f} % with offline "
        f"segmentation (paper: {m['paper_accuracy']:.2f} %); far-colour false accepts {m['false_accept_far_color']['value']:.2f} % — n = {res.results['n']}"
    )
    if "vlm" in m:
        v = m["vlm"]
        console.print(
            f"VLM as judge: overall {v['overall']:.2f} % — "
            + ", ".join(f"{q} {x:.1f}" for q, x in v["per_question"].items())
        )
    console.print(f"report: {res.run_dir / 'report.html'}")
