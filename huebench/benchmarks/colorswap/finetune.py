"""``huebench colorswap finetune``: fine-tune CLIP (contrastive) or BLIP (ITM) on ColorSwap's train split.

Appendix D defaults: CLIP — 100 epochs, AdamW lr 2e-5 with linear decay, weight decay 0.1, batch
64; BLIP ITM — 100 epochs, lr 1e-5, weight decay 0.05, batch 32.

The swapped caption and image of every example sit in the same batch, so they are the hardest
negatives each positive is contrasted with:

- CLIP: symmetric InfoNCE over the 2B images × 2B captions of a batch of B examples;
- BLIP: binary cross-entropy of the ITM head on the four pairs of each example (two matches, two
  swaps), plus BLIP's image-text contrastive loss over the batch, so both of its heads learn.

The fine-tuned model is saved with ``save_pretrained`` (safetensors) next to its processor in
``OUT/model``, the per-epoch losses in ``OUT/train_log.jsonl``, and then evaluated on the test
split (``OUT/eval-test``) and on any extra Winoground-schema sets given.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from huebench.benchmarks.colorswap.data import WinoExample, load_examples
from huebench.errors import HuebenchError
from huebench.io import atomic_write_json

__all__ = ["FinetuneConfig", "finetune"]

DEFAULTS = {
    "clip": {"epochs": 100, "lr": 2e-5, "weight_decay": 0.1, "batch_size": 64},
    "blip": {"epochs": 100, "lr": 1e-5, "weight_decay": 0.05, "batch_size": 32},
}


@dataclass
class FinetuneConfig:
    model: str
    data: str
    out: str
    epochs: int | None = None
    lr: float | None = None
    weight_decay: float | None = None
    batch_size: int | None = None
    seed: int = 0
    device: str = "cpu"
    train_split: str = "train"
    eval_split: str | None = "test"


def _family(model_path: str) -> str:
    import transformers

    mtype = transformers.AutoConfig.from_pretrained(model_path).model_type
    if mtype == "clip":
        return "clip"
    if mtype == "blip":
        return "blip"
    raise HuebenchError(f"fine-tuning supports CLIP and BLIP-ITM checkpoints (Appendix D); {model_path} is {mtype!r}")


def _batches(examples: list[WinoExample], size: int, epoch: int, seed: int) -> list[list[WinoExample]]:
    import numpy as np

    order = np.random.default_rng(seed * 100_003 + epoch).permutation(len(examples))
    return [[examples[i] for i in order[k : k + size]] for k in range(0, len(order), size)]


def finetune(cfg: FinetuneConfig, *, extra_eval: list[str] | None = None, progress: bool = True) -> dict[str, Any]:
    import torch
    import transformers

    from huebench.images import to_rgb
    from huebench.models.registry import resolve

    spec, _ = resolve(cfg.model)
    if not spec.startswith("hf:"):
        raise HuebenchError(f"fine-tuning needs a transformers checkpoint (hf:…), got {spec}")
    path = spec[3:]
    family = _family(path)
    # the config's value, else the family's default (epochs and batch_size are ints, lr and weight_decay floats)
    hp: dict[str, Any] = {
        k: (getattr(cfg, k) if getattr(cfg, k) is not None else v) for k, v in DEFAULTS[family].items()
    }
    train = load_examples(cfg.data, split=cfg.train_split)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(cfg.seed)
    processor = transformers.AutoProcessor.from_pretrained(path)
    model_cls: type[transformers.PreTrainedModel] = (
        transformers.CLIPModel if family == "clip" else transformers.BlipForImageTextRetrieval
    )
    model = model_cls.from_pretrained(path, trust_remote_code=False)
    model = model.to(cfg.device)  # type: ignore[arg-type]  # transformers' @wraps'd .to: typeshed's _Wrapped binds no self
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=hp["lr"], weight_decay=hp["weight_decay"])
    steps_per_epoch = math.ceil(len(train) / hp["batch_size"])
    total = max(hp["epochs"] * steps_per_epoch, 1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: max(0.0, 1.0 - step / total))
    images = {e.id: tuple(to_rgb(im) for im in e.images()) for e in train}
    log_path = out / "train_log.jsonl"
    log_path.write_text("", encoding="utf-8")
    losses: list[float] = []
    from huebench import progress as progress_display

    with progress_display.task(
        f"colorswap fine-tuning {family}: {hp['epochs']} epochs × {steps_per_epoch} steps",
        total=total,
        unit="steps",
        show=progress,
    ) as bar:
        for epoch in range(hp["epochs"]):
            bar.update(
                detail=f"epoch {epoch + 1}/{hp['epochs']}"
                + (f"; epoch {epoch} loss {losses[-1]:.4f}" if losses else "")
            )
            epoch_losses = []
            for batch in _batches(train, hp["batch_size"], epoch, cfg.seed):
                imgs = [images[e.id][0] for e in batch] + [images[e.id][1] for e in batch]
                caps = [e.caption_1 for e in batch] + [e.caption_2 for e in batch]
                enc = processor(images=imgs, text=caps, return_tensors="pt", padding=True, truncation=True)
                enc = {k: v.to(cfg.device) for k, v in enc.items()}
                target = torch.arange(len(imgs), device=cfg.device)
                if family == "clip":
                    logits = model(**enc).logits_per_image
                    loss = (
                        torch.nn.functional.cross_entropy(logits, target)
                        + torch.nn.functional.cross_entropy(logits.T, target)
                    ) / 2
                else:
                    b = len(batch)
                    # ITM on (c_k, i_k) matches and (c_k, i_swapped) / (c_swapped, i_k) swaps
                    pair_img = torch.cat([torch.arange(2 * b), torch.arange(2 * b)])
                    pair_txt = torch.cat([torch.arange(2 * b), (torch.arange(2 * b) + b) % (2 * b)])
                    labels = torch.cat([torch.ones(2 * b), torch.zeros(2 * b)]).long().to(cfg.device)
                    itm = model(
                        input_ids=enc["input_ids"][pair_txt],
                        attention_mask=enc["attention_mask"][pair_txt],
                        pixel_values=enc["pixel_values"][pair_img],
                        use_itm_head=True,
                    ).itm_score
                    sim = model(**enc, use_itm_head=False)[0] / 0.07  # BLIP's ITC temperature
                    itc = (
                        torch.nn.functional.cross_entropy(sim, target)
                        + torch.nn.functional.cross_entropy(sim.T, target)
                    ) / 2
                    loss = torch.nn.functional.cross_entropy(itm, labels) + itc
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                epoch_losses.append(float(loss.detach()))
                bar.advance()
            mean = sum(epoch_losses) / len(epoch_losses)
            losses.append(mean)
            with open(log_path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"epoch": epoch + 1, "loss": mean, "lr": sched.get_last_lr()[0]}) + "\n")
        if losses:
            bar.update(detail=f"{len(losses)} epochs; last epoch's loss {losses[-1]:.4f}")
    model.eval()
    model.save_pretrained(out / "model", safe_serialization=True)
    processor.save_pretrained(out / "model")
    summary: dict[str, Any] = {
        "family": family,
        "hyperparameters": hp,
        "config": asdict(cfg),
        "train_examples": len(train),
        "losses": losses,
        "evaluations": {},
    }
    if cfg.eval_split or extra_eval:
        from huebench.runs.runner import evaluate

        sets = ([("test", cfg.data, cfg.eval_split)] if cfg.eval_split else []) + [
            (Path(x).stem, x, None) for x in extra_eval or []
        ]
        heads = ["contrastive"] if family == "clip" else ["itm", "contrastive"]
        for name, data, split in sets:
            for head in heads:
                res = evaluate(
                    "colorswap",
                    f"hf:{out / 'model'}",
                    out=out / f"eval-{name}-{head}",
                    data=str(data),
                    split=split,
                    head=head,
                    no_cache=True,
                    progress=progress,
                    device=cfg.device,
                )
                summary["evaluations"][f"{name}/{head}"] = {
                    k: res.metrics[k]["value"] for k in ("text", "image", "group")
                }
    atomic_write_json(out / "finetune.json", summary)
    return summary
