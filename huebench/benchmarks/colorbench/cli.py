"""``huebench colorbench``: score saved ColorBench answers without a model."""

from __future__ import annotations

import json
from pathlib import Path

import typer

app = typer.Typer(no_args_is_help=True, help="ColorBench: rescore answers saved in upstream's result format.")


@app.command(
    "rescore",
    epilog=(
        'Example: {"0": {"type": "Perception", "task": "Color Recognition", "filename": "ColorRecognition/1.jpg", '
        '"choices": ["Red", "Green", "Blue"], "answer": "(A)", "model_ans": "A"}, …} — one entry per answered '
        "question, keyed by its index (or a JSON list); every field: docs/colorbench.md, Upstream's result files."
    ),
)
def rescore(
    results: Path = typer.Argument(
        ..., help="Upstream's result file (RESULT_DIR/<model>.json): type, task, choices, answer, model_ans, filename."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the metrics as JSON (fractions, as results.json)."),
    records: Path | None = typer.Option(
        None, "--records", help="Also write one record per question (the option read, why, right or wrong) as JSONL."
    ),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed for the intervals."),
) -> None:
    """Score saved answers with huebench's one answer parser: accuracy per task, per group and overall,
    and Color Robustness, with 95 % bootstrap intervals."""
    from rich.console import Console
    from rich.table import Table

    from huebench.benchmarks.colorbench.scoring import rescore_file, summary_rows
    from huebench.io import atomic_write_text
    from huebench.report.html import fmt_estimate, fmt_percent

    recs, metrics = rescore_file(results, seed=seed)
    if records is not None:
        atomic_write_text(records, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs))
    if as_json:
        typer.echo(json.dumps(metrics, ensure_ascii=False))
        return
    table = Table("group", "task", "n", "accuracy [95% CI]", "chance", title=str(results))
    for group, name, est, chance in summary_rows(metrics):
        table.add_row(
            group, name, str(est["n"]), fmt_estimate(est["value"], est["low"], est["high"], 1), fmt_percent(chance, 1)
        )
    console = Console()
    console.print(table)
    ri = metrics["robust_instances"]
    console.print(
        f"{ri['robust']} of {ri['instances']} robustness instances robust"
        + (f" ({ri['incomplete']} without their seed and nine variants)" if ri["incomplete"] else "")
        + f"; no option read from {fmt_percent(metrics['unparsed']['value'], 1)} of {len(recs)} answers (counted wrong)"
    )
