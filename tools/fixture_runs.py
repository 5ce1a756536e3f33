"""Run every benchmark on the test fixtures with reference and tiny models, into one folder.

Refactors of the harness must leave records and results byte-identical: run this before and after
(e.g. from a git worktree of the old commit with ``PYTHONPATH`` pointing at it) and compare the
folders with ``--compare OLD NEW``. Run both into the same OUT path (moving the first away), as
results name the model by its path.

    python tools/fixture_runs.py OUT [--models reference,clip,blip,llava,bert,gpt2,stable-diffusion]
    python tools/fixture_runs.py --compare OLD NEW
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _rainbow_probes(root: Path) -> Path:
    from huebench.cli import main
    from huebench.testing.data import make_rainbow_captions

    captions = make_rainbow_captions(root)
    argv = sys.argv
    sys.argv = ["huebench", "rainbow", "build", "--captions", str(captions), "--out", str(root / "probes")]
    try:
        main()
    except SystemExit as stop:
        if stop.code not in (0, None):
            raise
    finally:
        sys.argv = argv
    return root


def run_all(out: Path, families: list[str]) -> None:
    from huebench.runs.runner import evaluate
    from huebench.testing.data import make_coda_dataset, make_colorswap_dataset, make_gencolor_images
    from huebench.testing.tiny import build

    data = out / "_data"
    swap = make_colorswap_dataset(data / "swap", n_train=0, n_test=4)
    coda = make_coda_dataset(data / "coda")
    rainbow = _rainbow_probes(data / "rainbow")
    models = {"reference": "reference:random"}
    for fam in families:
        if fam != "reference":
            backend = "diffusers" if fam == "stable-diffusion" else "hf"
            models[fam] = f"{backend}:{build(fam, data / 'tiny' / fam)}"
    common = {"no_cache": True, "progress": False}
    jobs = []
    for fam, spec in models.items():
        if fam in ("reference", "clip", "blip", "llava"):
            jobs += [
                (f"colornames-{fam}", "colornames", spec, {"variants": 1}),
                (f"colorswap-{fam}", "colorswap", spec, {"data": str(swap)}),
                (f"rainbow-{fam}", "rainbow", spec, {"probes": str(rainbow / "probes"), "images": str(rainbow)}),
            ]
        if fam in ("bert", "gpt2", "reference"):
            jobs.append((f"coda-{fam}", "coda", spec, {"dataset": str(coda)}))
        if fam == "bert":
            jobs.append((f"rainbow-baseline-{fam}", "rainbow-baseline", spec, {"probes": str(rainbow / "probes")}))
    jobs.append(
        ("diagnostic", "gencolor-diagnostic", "reference:none", {"quick": True, "family": "analytic", "limit": 24})
    )
    # GenColorBench's judge and score stages: user masks; offline segmentation with the paper's
    # scorer; and, with the tiny VLM, presence (VQA) and detector + SAM masks
    gencolor = make_gencolor_images(data / "gencolor")
    scoring = {"prompts": gencolor["prompts"], "images": gencolor["images"], "n": 2}
    jobs += [
        ("gencolorbench-masks", "gencolorbench", "reference:none", {**scoring, "masks": gencolor["masks"]}),
        ("gencolorbench-offline", "gencolorbench", "reference:none", {**scoring, "scorer": "paper"}),
    ]
    if "llava" in models:
        judges = {
            "vqa": models["llava"],
            "detector": f"hf:{build('grounding-dino', data / 'tiny' / 'grounding-dino')}",
            "segmenter": f"hf:{build('sam', data / 'tiny' / 'sam')}",
            "box_threshold": 0.0,
        }
        jobs.append(("gencolorbench-judged", "gencolorbench", "reference:none", {**scoring, **judges}))
    if "stable-diffusion" in models:  # the generate stage: on its own, and before scoring in one run
        sd = models["stable-diffusion"]
        tiny_images = {"prompts": gencolor["prompts"], "n": 2, "steps": 2, "height": 32, "width": 32}
        jobs += [
            ("gencolor-generate", "gencolor-generate", sd, {**tiny_images, "images": str(data / "generated")}),
            ("gencolorbench-generated", "gencolorbench", sd, {**tiny_images, "images": str(data / "generated-scored")}),
        ]
    for name, bench, spec, opts in jobs:
        limit = opts.pop("limit", None)
        res = evaluate(bench, spec, out=out / name, limit=limit, **common, **opts)
        print(f"{name}: n={res.results['n']} failed={res.results['n_failed']}", flush=True)


def compare(old: Path, new: Path) -> int:
    bad = 0
    for run in sorted(p for p in old.iterdir() if p.is_dir() and not p.name.startswith("_")):
        for name in ("records.jsonl", "results.json"):
            a, b = run / name, new / run.name / name
            same = b.exists() and filecmp.cmp(a, b, shallow=False)
            if not same and name == "records.jsonl" and b.exists():
                # input_sha256 hashes the sample's inputs, which may hold absolute fixture paths
                strip = lambda p: [  # noqa: E731
                    {k: v for k, v in json.loads(x).items() if k != "input_sha256"} for x in p.read_text().splitlines()
                ]
                same = strip(a) == strip(b)
            print(f"{'same' if same else 'DIFFERENT':9} {run.name}/{name}")
            bad += not same
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", type=Path)
    ap.add_argument("--models", default="reference,clip,blip,llava,bert,gpt2,stable-diffusion")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    run_all(args.out, args.models.split(","))
    return 0


if __name__ == "__main__":
    sys.exit(main())
