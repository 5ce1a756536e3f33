"""``huebench colorswap``: rescore saved VLM answers, convert the authors' logs, fine-tune."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(no_args_is_help=True, help="ColorSwap: rescore VLM answers, convert logs, fine-tune.")


@app.command(
    "rescore",
    epilog=(
        'Example line: {"example_id": "42", "query": "text", "subject": 0, "options": ["a red car", "a blue car"], '
        '"correct": 0, "response": "(A)"}. subject and correct are indices (0 or 1); every field: '
        "docs/colorswap.md, The responses file."
    ),
)
def rescore(
    responses: Path = typer.Argument(
        ..., help="JSONL, one record per VLM query: example_id, query, subject, options, correct, response."
    ),
    as_json: bool = typer.Option(
        False, "--json", help='Print {"text", "image", "group", "n", "unparseable"} (percentages).'
    ),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed for the intervals."),
) -> None:
    """Score saved VLM responses without any model (text / image / group, unparseable share)."""
    from huebench.benchmarks.colorswap.scoring import load_vlm_records, score_vlm_records
    from huebench.io import InputFileError

    recs = load_vlm_records(responses)
    try:
        s = score_vlm_records(recs, seed=seed)
    except ValueError as exc:  # duplicate or missing queries of an example
        raise InputFileError(f"{responses}: {exc}") from None
    if as_json:
        typer.echo(json.dumps({k: s[k] for k in ("text", "image", "group", "n", "unparseable")}))
        return
    table = Table("score", "value", "95% CI")
    for k in ("text", "image", "group"):
        table.add_row(k, f"{s[k]:.2f}", f"[{s['ci'][k][0]:.2f}, {s['ci'][k][1]:.2f}]")
    table.add_row("unparseable", f"{s['unparseable']:.2f} % of queries", "")
    Console().print(table)
    Console().print(f"n = {s['n']} examples")


@app.command(
    "convert-logs",
    epilog=(
        "TEXT_LOG entries: id, response_image_1/2, log_1/log_2 with caption_1, caption_2, image_url (…img_<id>_<1|2>.png) "
        "and correct_answer A or B. IMAGE_LOG entries: id, response_caption_1/2, log_1/log_2 with image_url_1, "
        "image_url_2 and correct_answer first or second. An example of each: docs/colorswap.md, The authors' logs."
    ),
)
def convert_logs_cmd(
    text_log: Path = typer.Argument(..., help="text-<model>-colorswap.json"),
    image_log: Path = typer.Argument(..., help="image-<model>-colorswap.json"),
    out: Path = typer.Option(..., "--out", help="Output JSONL in the rescore format."),
) -> None:
    """Convert the ColorSwap authors' saved VLM logs into rescore records."""
    from huebench.benchmarks.colorswap.logs import convert_logs
    from huebench.io import atomic_write_text

    recs = convert_logs(text_log, image_log)
    atomic_write_text(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs))
    Console().print(f"{len(recs)} query records → {out}")


@app.command(
    "finetune",
    epilog=(
        '--data line: {"id": "42", "caption_1": "a red car on a blue road", "caption_2": "a blue car on a red road", '
        '"image_1": "images/42_1.png", "image_2": "images/42_2.png", "split": "train"} (image paths relative to the '
        "file's folder); every field: docs/colorswap.md, The examples file."
    ),
)
def finetune_cmd(
    model: str = typer.Option(..., "--model", "-m", help="A CLIP or BLIP-ITM checkpoint: alias or hf:<id or folder>."),
    data: str = typer.Option(
        ..., "--data", help="ColorSwap data: JSONL/folder with train and test splits, or hf:stanfordnlp/colorswap."
    ),
    out: Path = typer.Option(..., "--out", help="Output folder (model/, train_log.jsonl, eval-*/, finetune.json)."),
    epochs: int | None = typer.Option(None, help="Default: 100 (Appendix D)."),
    lr: float | None = typer.Option(None, help="Default: 2e-5 CLIP, 1e-5 BLIP."),
    weight_decay: float | None = typer.Option(None, help="Default: 0.1 CLIP, 0.05 BLIP."),
    batch_size: int | None = typer.Option(
        None, help="Examples per batch (each brings 2 images and 2 captions). Default: 64 CLIP, 32 BLIP."
    ),
    device: str = typer.Option("cpu", help="torch device."),
    seed: int = typer.Option(0, help="Seed for initial shuffles."),
    also_eval: list[str] = typer.Option(
        [], "--also-eval", help="Extra Winoground-schema sets to evaluate on (Table 4)."
    ),
) -> None:
    """Fine-tune CLIP or BLIP on the train split with swapped hard negatives, then evaluate (Table 3)."""
    from huebench.benchmarks.colorswap.finetune import FinetuneConfig, finetune

    summary = finetune(
        FinetuneConfig(
            model=model,
            data=data,
            out=str(out),
            epochs=epochs,
            lr=lr,
            weight_decay=weight_decay,
            batch_size=batch_size,
            device=device,
            seed=seed,
        ),
        extra_eval=also_eval,
    )
    Console().print(f"loss {summary['losses'][0]:.4f} → {summary['losses'][-1]:.4f}; model saved to {out / 'model'}")
    for k, v in summary["evaluations"].items():
        Console().print(f"  {k}: text {v['text']:.2f}  image {v['image']:.2f}  group {v['group']:.2f}")
