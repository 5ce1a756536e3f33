"""GPU throughput, measured side by side on any CUDA machine with no network.

1. CLIP ViT-B/32 *architecture* with random weights (the same compute as the real model): image-text
   pairs per second through huebench's batched ``score`` at the best of several batch sizes, vs the
   same model scoring one pair at a time.
2. A text-to-image pipeline (a Stable-Diffusion-shaped pipeline with random weights, 512×512, 20
   steps): images per second batched vs one image per call, with one generator per image.

    python perf/gpu_throughput.py [--json OUT.json]

Refuses to run without CUDA (CPU figures would say nothing about GPU batching).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", default=None)
    ap.add_argument("--pairs", type=int, default=2048)
    args = ap.parse_args()
    import numpy as np
    import torch
    from PIL import Image

    if not torch.cuda.is_available():
        raise SystemExit("gpu_throughput.py needs a CUDA device")
    from huebench.models.registry import load_model
    from huebench.testing.tiny import build_clip_vit_b32

    report: dict[str, object] = {"device": torch.cuda.get_device_name(0)}
    with tempfile.TemporaryDirectory() as d:
        folder = build_clip_vit_b32(Path(d) / "clip-b32")
        rng = np.random.default_rng(0)
        images = [Image.fromarray(rng.integers(0, 256, (224, 224, 3), dtype=np.uint8)) for _ in range(args.pairs)]
        texts = [f"a photo of a {c} object" for c in ["red", "blue", "green", "white"]]
        best = (0.0, 0)
        for bs in (32, 64, 128, 256, 512):
            m = load_model(f"hf:{folder}", device="cuda", dtype="float16", batch_size=bs)
            m.score(images[:bs], texts)  # warm-up
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            m.score(images, texts)
            torch.cuda.synchronize()
            rate = len(images) * len(texts) / (time.perf_counter() - t0)
            report[f"clip_pairs_per_s_bs{bs}"] = rate
            best = max(best, (rate, bs))
        m = load_model(f"hf:{folder}", device="cuda", dtype="float16", batch_size=1)
        t0 = time.perf_counter()
        for img in images[:256]:
            for t in texts:
                m.score([img], [t])
        torch.cuda.synchronize()
        naive = 256 * len(texts) / (time.perf_counter() - t0)
        report["clip_best"] = {
            "pairs_per_s": best[0],
            "batch_size": best[1],
            "naive_pairs_per_s": naive,
            "speedup": best[0] / naive,
        }

        import diffusers

        from huebench.testing.tiny import _stable_diffusion

        sd = Path(d) / "sd"
        _stable_diffusion(sd, 0)
        pipe = load_model(f"diffusers:{sd}", device="cuda", dtype="float16", batch_size=8, steps=20)
        prompts = [f"a {c} car" for c in ["red", "blue", "green", "white"] * 8]
        pipe.generate_images(prompts[:8], list(range(8)), height=512, width=512)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        pipe.generate_images(prompts, list(range(len(prompts))), height=512, width=512)
        torch.cuda.synchronize()
        batched = len(prompts) / (time.perf_counter() - t0)
        pipe.batch_size = 1
        t0 = time.perf_counter()
        pipe.generate_images(prompts[:8], list(range(8)), height=512, width=512)
        torch.cuda.synchronize()
        naive_img = 8 / (time.perf_counter() - t0)
        report["t2i"] = {
            "images_per_s": batched,
            "naive_images_per_s": naive_img,
            "speedup": batched / naive_img,
            "diffusers": diffusers.__version__,
        }
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
