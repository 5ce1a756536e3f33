"""``huebench gencolor``: GenColorBench scoring tools (score one image; known-colour diagnostic)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from huebench.benchmarks.gencolor.help_texts import CANDIDATE_RULE_HELP, SCORER_HELP, SCORER_OPTIONS_HELP
from huebench.benchmarks.option_flags import benchmark_options, benchmark_options_command
from huebench.report.html import fmt_num

if TYPE_CHECKING:
    from huebench.runs.runner import RunResult

#: the scorer's default ``k`` (``scoring.DEFAULT_K``) for ``score-image``, written out so that
#: ``huebench --help`` need not load the colour core; tests/test_benchmark_plugin.py checks they agree
DEFAULT_K = 3
app = typer.Typer(no_args_is_help=True, help="GenColorBench: score an image's colour; known-colour scorer diagnostic.")
console = Console(soft_wrap=True)  # long lines stay whole in logs and pipes

# score, generate and diagnose take their benchmark's options as flags made from the options it
# declares (huebench/benchmarks/option_flags.py): an option added to the benchmark is a flag here
# with no edit. Each command names the options it leaves out, and why.
#: left out by every command: config.json's record of the scorer's settings, rebuilt from the options
SCORER_RECORD = {"scorer_config": "a record of the scorer's settings, not a setting"}
#: the share of the image past which score-image warns about the offline mask: it models the
#: background from the image border and keeps the largest foreground part, so on a cluttered photo
#: it takes much of the scene; one object on a plain backdrop rarely fills half the frame
OFFLINE_MASK_WARN_SHARE = 0.5


def _check_names(flag: str, given: str, known: Sequence[str], *, what: str, use: str, many: bool = False) -> None:
    """Refuse a name not in ``known`` (each name of a comma-separated list with ``many``) in one line
    with a did-you-mean, before any work: the benchmark's own check suggests no near miss."""
    from huebench._suggest import suggestion_text

    for name in [n.strip() for n in given.split(",")] if many else [given]:
        if name not in known:
            raise typer.BadParameter(f"{flag} {given}: {name!r} is not {what}.{suggestion_text(name, known)} Use {use}")


def _check_scorer(given: str) -> None:
    from huebench.benchmarks.gencolor.scoring import SCORERS

    _check_names("--scorer", given, list(SCORERS), what="a scorer", use=" or ".join(SCORERS))


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
        None,
        "--mask",
        help="Object mask (PNG, non-zero = object); default: offline segmentation, which suits one object "
        f"on a plain backdrop (a warning says when it takes more than {100 * OFFLINE_MASK_WARN_SHARE:.0f} % of the image).",
    ),
    k: int = typer.Option(DEFAULT_K, "--k", help="Nearest neighbours of the target in the candidate set."),
    scorer: str = typer.Option("huebench", "--scorer", help=SCORER_HELP),
    candidates: str = typer.Option("per-metric", "--candidates", help=CANDIDATE_RULE_HELP),
    scorer_options: str | None = typer.Option(
        None, "--scorer-options", help=SCORER_OPTIONS_HELP.replace("; recorded in config.json with every setting", "")
    ),
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print JSON: pass, dominant_lab, dominant_name, delta_e00, delta_chroma, delta_hue, …, mask_share, "
        "mask_warning",
    ),
    save_mask: Path | None = typer.Option(
        None, "--save-mask", help="Write the mask the score used (PNG, white = object) to this new file."
    ),
) -> None:
    """Score one image's object colour against a target (GenColorBench's perceptual metrics), and name
    the colour found: the nearest colour of --system to the object's dominant colour."""
    import numpy as np
    from PIL import Image

    from huebench.benchmarks.gencolor.scoring import ColorScorer, parse_scorer_options
    from huebench.images import load_image
    from huebench.report.gallery import lab_hex

    _check_scorer(scorer)
    overrides = parse_scorer_options(scorer_options, {"k": "--k", "candidate_rule": "--candidates"})
    if save_mask is not None and save_mask.exists():
        raise typer.BadParameter(f"--save-mask {save_mask} exists; give a new file")
    img = np.asarray(load_image(image))
    m = None
    if mask is not None:
        m = np.asarray(load_image(mask).convert("L")) > 0
    color_scorer = ColorScorer.named(scorer, system, k=k, candidate_rule=candidates, **overrides)
    score, used = color_scorer.score_image(img, target, mask=m)
    share = float(used.mean())
    found = np.asarray(score.dominant_lab, dtype=np.float64)
    nearest = color_scorer.system.nearest_lab(found)[0] if np.isfinite(found).all() else None
    warning = (
        f"the offline mask took {100 * share:.0f} % of the image (more than {100 * OFFLINE_MASK_WARN_SHARE:.0f} %), "
        "so it likely "
        "holds background or other objects; give the object's mask with --mask FILE, or score with a detector "
        "and segmenter (`huebench gencolor score --detector … --segmenter …`)"
        if mask is None and share > OFFLINE_MASK_WARN_SHARE
        else None
    )
    out = {
        **score.as_dict(),
        "dominant_hex": lab_hex(found) if nearest is not None else None,
        "dominant_name": nearest.color.name if nearest is not None else None,
        "dominant_name_delta_e00": round(nearest.distance, 2) if nearest is not None else None,
        "mask_pixels": int(used.sum()),
        "mask_share": round(share, 4),
        "mask_source": "file" if mask else "offline segmentation",
        "mask_warning": warning,
    }
    if save_mask is not None:
        Image.fromarray(used.astype(np.uint8) * 255).save(save_mask, format="PNG")
    if warning is not None:  # stderr: --json output stays JSON
        Console(stderr=True, soft_wrap=True).print(f"[yellow]warning:[/] {warning}", highlight=False)
    if as_json:
        typer.echo(json.dumps(out, indent=2))
        return
    console.print(("[green]PASS[/] " if score.passed else "[red]FAIL[/] ") + score.reason, highlight=False)
    if nearest is not None:
        console.print(
            f"found: {out['dominant_hex']}, nearest {color_scorer.system.name} colour {nearest.color.name} "
            f"(ΔE00 {nearest.distance:.1f})",
            highlight=False,
        )
    console.print(
        f"mask: {out['mask_source']}, {int(used.sum()):,} pixels ({100 * share:.0f} % of the image)"
        + (f", saved to {save_mask}" if save_mask is not None else "")
        + (
            "; check it with --save-mask: the offline mask suits one object on a plain backdrop"
            if mask is None and save_mask is None and warning is None
            else ""
        ),
        highlight=False,
    )


@app.command(
    "diagnose",
    cls=benchmark_options_command(
        "gencolor-diagnostic",
        flags={"candidate_rule": "--candidates"},
        not_flags=SCORER_RECORD,
        help={"scorer": SCORER_HELP + " Both are reported."},
    ),
)
def diagnose(
    ctx: typer.Context,
    out: Path | None = typer.Option(None, "--out", help="Run folder (default runs/gencolor-diagnostic/SYSTEM)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N renders."),
    seed: int = typer.Option(0, "--seed", help="Seed for set-up choices and render noise."),
    resume: bool = typer.Option(False, "--resume", help="Continue a run folder."),
    executor: str = typer.Option("local", "--executor", help="local or ray."),
    vlm: str | None = typer.Option(
        None, "--vlm", help="Also ask this VLM the Appendix E questions (Q1–Q6 CSS, Q1–Q4 L2)."
    ),
    batch_size: int = typer.Option(8, "--batch-size", help="VLM batch size."),
    device: str = typer.Option("cpu", "--device", help="torch device for the VLM."),
    progress: bool = typer.Option(
        True, "--progress/--no-progress", help="Show progress (a plain line per step when not on a terminal)."
    ),
) -> None:
    """Images of known colour (five families in all, more held out of it), scored by both scorers:
    accuracy per family, false accepts."""
    from huebench.benchmarks.gencolor.diagnostic import PAPER_ACCURACY
    from huebench.benchmarks.gencolor.families import FAMILIES, HELD_OUT_FAMILIES, PLAIN
    from huebench.runs.runner import RunOptions, run

    options = benchmark_options(ctx)
    if options["family"] != "all":
        known = [*FAMILIES, *HELD_OUT_FAMILIES]
        _check_names(
            "--family",
            options["family"],
            [*known, "all"],
            what="an image family",
            use=f"all, or any of {', '.join(known)} (comma-separated; held out of all: {', '.join(HELD_OUT_FAMILIES)})",
            many=True,
        )
    _check_names(
        "--system",
        options["system"],
        list(PAPER_ACCURACY),
        what="a system the diagnostic covers",
        use=" or ".join(PAPER_ACCURACY),
    )
    _check_scorer(options["scorer"])
    opts = RunOptions(
        benchmark="gencolor-diagnostic",
        model=vlm or "reference:none",  # a VLM also answers the Appendix E questions
        out=out or Path("runs") / "gencolor-diagnostic" / options["system"],
        limit=limit,
        seed=seed,
        resume=resume,
        no_cache=vlm is None,  # the VLM's answers are worth caching; the scorer needs no cache
        executor=executor,
        batch_size=batch_size,
        device=device,
        benchmark_options=options,
        progress=progress,
    )
    res = run(opts)
    m = res.metrics

    # "n/a" where no sample was scored (every one failed: the summary's last lines say why)
    def ci(v: dict) -> str:
        if v["value"] is None:
            return "n/a"
        return f"{fmt_num(v['value'], 2)} % [{fmt_num(v['low'], 1)}, {fmt_num(v['high'], 1)}]"

    def pct(v: dict) -> str:
        return "n/a" if v["value"] is None else f"{fmt_num(v['value'], 2)} %"

    for fam, per in m["by_family"].items():
        console.print(
            f"  {fam:<11} "
            + "   ".join(
                f"{n}: exact {ci(v['exact_mask'])}, offline {pct(v['offline_mask'])}, far accepts {pct(v['false_accepts'])}"
                for n, v in per.items()
            )
        )
    for fam, split in m.get("truth_clipped", {}).items():
        console.print(
            f"  {fam:<11} {split['clipped']['n']} images whose truth was clipped before a later colour transform "
            f"(docs/gencolor.md): exact {ci(split['clipped'])}; the other {split['rest']['n']}: {ci(split['rest'])}"
        )
    for fam, steps in m.get("step_costs", {}).items():
        every = steps["all"]
        costly = sorted((k for k in steps if k != "all" and steps[k]["caused"]), key=lambda k: -steps[k]["caused"])
        console.print(
            f"  {fam:<11} the same {every['as_made']['n']} objects {PLAIN[fam]}: {ci(every['plain'])}, as made "
            f"{ci(every['as_made'])}; the steps caused {every['caused']} failures and mended {every['mended']}"
            + (" (most: " + ", ".join(f"{k} {steps[k]['caused']}" for k in costly[:3]) + ")" if costly else "")
        )
    worst = m["worst_family"]
    # the worst of one family is that family: said only where there are families to compare
    worst_text = f"worst family {worst['family']} {worst['value']:.2f} %; " if worst and len(m["by_family"]) > 1 else ""
    console.print(
        f"{m['system']}, {m['scorer']} scorer: accuracy {ci(m['accuracy_exact_mask'])} with exact masks, {pct(m['accuracy_offline_mask'])} with offline "
        f"segmentation (the paper reports {m['paper_accuracy']:.2f} % for its scorer on its own renders, not these); {worst_text}"
        f"far-colour false accepts {pct(m['false_accept_far_color'])} — n = {res.results['n']}"
    )
    if "vlm" in m:
        v = m["vlm"]
        console.print(
            f"VLM as judge: overall {v['overall']:.2f} % — "
            + ", ".join(f"{q} {x:.1f}" for q, x in v["per_question"].items())
        )
    from huebench.cli.runs import end_run  # late: huebench.cli imports this module

    end_run(res)


@app.command("prompts")
def prompts_command(
    suite: str = typer.Option("mini", "--suite", help="full (≈44.8K prompts) or mini (< 10K, stratified)."),
    seed: int = typer.Option(0, "--seed", help="The suite is a pure function of the seed."),
    out: Path = typer.Option(..., "--out", help="Output JSONL: one prompt record per line."),
) -> None:
    """Write GenColorBench's prompt suite (five tasks × ISCC-NBS L1/L2/L3 and CSS3/X11)."""
    from huebench.benchmarks.gencolor.prompts import build_suite, suite_counts
    from huebench.io import atomic_write_text

    recs = build_suite(suite, seed=seed)
    atomic_write_text(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs))
    c = suite_counts(recs)
    console.print(f"{c['total']} prompts → {out}")
    console.print("  by task: " + ", ".join(f"{k} {v}" for k, v in c["by_task"].items()))
    console.print("  by level: " + ", ".join(f"{k} {v}" for k, v in c["by_level"].items()))


def _run_gencolor(benchmark: str, model: str, out: Path, options: dict, common: dict) -> RunResult:
    from huebench.runs.runner import RunOptions, run

    opts = RunOptions(benchmark=benchmark, model=model, out=out, benchmark_options=options, **common)
    return run(opts)


@app.command(
    "generate",
    cls=benchmark_options_command("gencolor-generate", required=("images",)),
    epilog=(
        'Prompts line: {"id": "my-coa-1", "task": "coa", "system": "css3", "prompt": "A crimson mug on a white desk", '
        '"colors": [{"name": "Crimson"}], "objects": [{"name": "mug", "role": "target", "color": 0}, '
        '{"name": "white desk", "role": "context"}]} (docs/gencolor.md, The prompts file). '
        "Images are written to IMAGES/<prompt id>/<index>.png with meta.json (docs/gencolor.md, Image folder)."
    ),
)
def generate_command(
    ctx: typer.Context,
    model: str = typer.Option(
        ..., "--model", "-m", help="Text-to-image model: diffusers:<hub id or folder>, or an alias."
    ),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N prompts."),
    batch_size: int = typer.Option(
        4, "--batch-size", min=1, help="Images per pipeline call (halved on out-of-memory)."
    ),
    device: str = typer.Option("cpu", "--device", help="torch device."),
    dtype: str = typer.Option("float32", "--dtype", help="float32, float16 or bfloat16."),
    seed: int = typer.Option(0, "--seed", help="Seed of every image: hash(seed, prompt id, index)."),
    executor: str = typer.Option("local", "--executor", help="local or ray."),
    ray_address: str | None = typer.Option(None, "--ray-address", help="Address of a running Ray cluster."),
    workers: int | None = typer.Option(None, "--workers", help="Ray actors."),
    progress: bool = typer.Option(
        True, "--progress/--no-progress", help="Show progress (a plain line per step when not on a terminal)."
    ),
) -> None:
    """Generate n images per prompt into --images; existing images are verified by hash and skipped."""
    import shutil

    options = benchmark_options(ctx)
    images = Path(options["images"])
    # the image folder is the state (hash-verified); the run folder only logs this invocation, so
    # a deleted or torn image is made again instead of being skipped by an old record
    log_dir = images / ".runs" / "generate"
    shutil.rmtree(log_dir, ignore_errors=True)
    res = _run_gencolor(
        "gencolor-generate",
        model,
        log_dir,
        options,
        {
            "limit": limit,
            "batch_size": batch_size,
            "device": device,
            "dtype": dtype,
            "seed": seed,
            "no_cache": True,
            "executor": executor,
            "ray_address": ray_address,
            "workers": workers,
            "progress": progress,
        },
    )
    m = res.metrics
    console.print(
        f"{m['prompts']} prompts, {m['images']} images: "
        + ", ".join(f"{k} {v}" for k, v in m["images_by_status"].items())
        + f" → {images}"
    )
    from huebench.cli.runs import end_run  # late: huebench.cli imports this module

    end_run(res)


@app.command(
    "score",
    cls=benchmark_options_command(
        "gencolorbench",
        flags={"candidate_rule": "--candidates"},
        required=("images",),
        not_flags={
            **SCORER_RECORD,
            "device": "set by --device, with the run's device",
            **dict.fromkeys(("steps", "height", "width"), "generation settings: score never generates"),
        },
    ),
    epilog=(
        'Prompts line: {"id": "my-coa-1", "task": "coa", "system": "css3", "prompt": "A crimson mug on a white desk", '
        '"colors": [{"name": "Crimson"}], "objects": [{"name": "mug", "role": "target", "color": 0}, '
        '{"name": "white desk", "role": "context"}]} (docs/gencolor.md, The prompts file). '
        "Images: IMAGES/<prompt id>/<index>.png; masks: MASKS/<prompt id>/<index>.<object>.png, non-zero = "
        "the object (docs/gencolor.md, Image folder)."
    ),
)
def score_command(
    ctx: typer.Context,
    out: Path = typer.Option(..., "--out", help="Run folder: records.jsonl, results.json, report.html."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N images."),
    device: str = typer.Option("cpu", "--device", help="torch device of the helper models."),
    seed: int = typer.Option(0, "--seed", help="Seed of the suite and of the bootstrap."),
    resume: bool = typer.Option(False, "--resume", help="Continue the run in --out."),
    executor: str = typer.Option("local", "--executor", help="local or ray."),
    ray_address: str | None = typer.Option(None, "--ray-address", help="Address of a running Ray cluster."),
    workers: int | None = typer.Option(None, "--workers", help="Ray actors."),
    progress: bool = typer.Option(
        True, "--progress/--no-progress", help="Show progress (a plain line per step when not on a terminal)."
    ),
) -> None:
    """Score an image folder: presence (VQA), masks (detector + SAM, user masks or offline), CIELAB metrics, task rules."""
    _check_scorer(benchmark_options(ctx)["scorer"])
    res = _run_gencolor(
        "gencolorbench",
        "reference:none",
        out,
        {**benchmark_options(ctx), "device": device},  # the helper models run on the run's device
        {
            "limit": limit,
            "device": device,
            "seed": seed,
            "resume": resume,
            "executor": executor,
            "ray_address": ray_address,
            "workers": workers,
            "progress": progress,
        },
    )
    m = res.metrics
    t4 = m["table4"]
    failed = res.results["n_failed"]
    console.print(
        f"{m['judged']} of {m['judged'] + m['unjudged'] + failed} images judged ({m['unjudged']} not judged, "
        f"{failed} failed, e.g. missing); % correct: "
        + (", ".join(f"{t} {v:.2f}" for t, v in t4.items() if v is not None) or "n/a"),
        highlight=False,
    )
    from huebench.cli.runs import end_run  # late: huebench.cli imports this module

    end_run(res)


@app.command("compare")
def compare_command(
    runs: list[Path] = typer.Argument(..., help="gencolorbench run folders, one per model."),
    as_json: bool = typer.Option(False, "--json", help="Print the table as JSON."),
) -> None:
    """Table 4 across models: accuracy per task (mean over L2, L3, CSS) and the average, one row per
    run (labelled by its folder: two runs of one model are two rows). The run folders are only read."""
    from rich.table import Table

    from huebench.benchmarks.gencolor.analysis import TASK_ORDER
    from huebench.report.html import run_labels
    from huebench.runs.runner import load_run

    rows = []
    loaded = [load_run(d) for d in runs]
    for label, run in zip(run_labels(runs), loaded, strict=True):
        res = run.results
        if res.get("benchmark") != "gencolorbench":
            raise typer.BadParameter(f"{run.run_dir} is a {res.get('benchmark')!r} run, not gencolorbench")
        rows.append(
            {
                "run": label,
                "model": res["model"],
                "path": str(run.run_dir),
                "state": run.state.describe(),
                **res["metrics"]["table4"],
            }
        )
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title="GenColorBench (Table 4 shape)")
    for col in ("run", "model", *TASK_ORDER, "avg"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["run"], r["model"], *[("" if r.get(t) is None else f"{r[t]:.2f}") for t in (*TASK_ORDER, "avg")]
        )
    console.print(table)
    partial = [r for r in rows if not r["state"].startswith("complete")]
    for r in partial:
        console.print(f"[yellow]{r['run']}: {r['state']}[/]", highlight=False)
