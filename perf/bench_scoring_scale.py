"""GenColorBench's colour scoring at scale: 10,000 images with 1 and 2 worker processes.

1. An image folder in GenColorBench's layout, written by the image store (``meta.json`` with each
   image's sha256, so the run verifies every image as it does a generated folder): 2,500
   single-object CNA/NCU prompts of the full suite × 4 images of 64 px — a shaded disc in the
   prompt's colour (images 0 and 1) or in its opposite (2 and 3), with noise, on a grey backdrop —
   and a user mask per image (exact masks: no model). Made once; ``--data DIR`` keeps it.
2. ``huebench gencolor score`` on it, once per worker count, each in its own process; while it
   runs, the memory of the run and of every process under it (the fork server, the workers) is
   read from /proc every 0.2 s: the peak of the summed RSS (which counts pages the workers share
   with the fork server once per process: an upper bound) and of the summed PSS (shared pages
   split between the processes that share them), over the whole run and while images are scored
   (first and second half: flat when memory does not grow with the number of images); and the CPU
   time of every process of the run.
3. One 1-megapixel image (a disc of 385K pixels, the size of the scorer benchmark's) scored in
   this process: the scorer alone, the whole job a worker runs (read the PNG and the mask, score),
   and the run process's own share per image (verify the image's sha256, read meta.json, send the
   job): the inputs of the projection for the full suite.

    python perf/bench_scoring_scale.py [--images 10000] [--workers 1,2] [--data DIR] [--json OUT]

The projection for the full suite (44,815 prompts × 4 images) on a 16-core machine is printed with
its assumptions: per-image time of the whole job at 1 MP on one core, divided by 16 × the scaling
efficiency measured here from 1 to 2 workers on the 64 px images, and checked against the run
process's serial share (it feeds the workers one image at a time).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

FULL_SUITE_IMAGES = 44_815 * 4
TARGET_CORES = 16
SIZE = 64
PER_PROMPT = 4
CLI = [sys.executable, "-c", "from huebench.cli import main; main()"]


def _disc(size: int, radius: float, rgb: Any, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A disc lit from the top left on a grey backdrop, with sensor-like noise; its exact mask."""
    yy, xx = np.mgrid[:size, :size].astype(np.float64)
    c = (size - 1) / 2
    d2 = ((yy - c) ** 2 + (xx - c) ** 2) / radius**2
    mask = d2 < 1.0
    nz = np.sqrt(np.clip(1.0 - d2, 0.0, 1.0))
    shade = np.clip(0.25 + 0.75 * (0.5 * nz + 0.35 * (c - yy) / radius + 0.15 * (c - xx) / radius), 0.1, 1.0)
    img = np.full((size, size, 3), 190.0)
    img[mask] = np.asarray(rgb, np.float64) * shade[mask][:, None]
    img += rng.normal(0.0, 2.0, img.shape)
    return np.clip(img, 0, 255).round().astype(np.uint8), mask


def make_folder(root: Path, n_images: int) -> dict[str, str]:
    """The image folder, its prompts file and user masks (see the module doc); kept when present."""
    from huebench.benchmarks.gencolor.pipeline import user_mask_path
    from huebench.benchmarks.gencolor.prompts import build_suite
    from huebench.benchmarks.gencolor.store import ImageStore

    opts = {"prompts": str(root / "prompts.jsonl"), "images": str(root / "images"), "masks": str(root / "masks")}
    done = root / "complete"
    if done.exists() and done.read_text() == str(n_images):
        return opts
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    n_prompts = -(-n_images // PER_PROMPT)
    prompts = [r for r in build_suite("full") if r["task"] in ("cna", "ncu") and len(r["objects"]) == 1][:n_prompts]
    store = ImageStore(root / "images")
    generator = {"spec": "synthetic:disc", "fingerprint": "disc-64", "options": {"size": SIZE}}
    rng = np.random.default_rng(0)
    for r in prompts:
        rgb = np.asarray(r["colors"][0]["srgb"])
        for i in range(PER_PROMPT):
            img, mask = _disc(SIZE, SIZE * 0.36, rgb if i < 2 else 255 - rgb, rng)
            store.write(r["id"], i, Image.fromarray(img), seed=i, prompt=r, generator=generator)
            path = user_mask_path(root / "masks", r["id"], i, r["objects"][0]["name"])
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(mask.astype(np.uint8) * 255).save(path)
    (root / "prompts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in prompts), encoding="utf-8")
    done.write_text(str(n_images))
    return opts


def _tree(pid: int) -> list[int]:
    """``pid`` and every process under it."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def _usage(pid: int, cpu: dict[int, float]) -> tuple[int, int, int]:
    """(summed RSS, summed PSS, processes) of ``pid``'s tree, in bytes; ``cpu`` gets each
    process's CPU seconds so far (user + system)."""
    rss = pss = n = 0
    tick = os.sysconf("SC_CLK_TCK")
    for p in _tree(pid):
        try:
            rollup = Path(f"/proc/{p}/smaps_rollup").read_text().splitlines()
            stat = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        fields = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in rollup[1:] if line.endswith("kB")}
        rss += fields.get("Rss", 0)
        pss += fields.get("Pss", 0)
        cpu[p] = max(cpu.get(p, 0.0), (int(stat[11]) + int(stat[12])) / tick)
        n += 1
    return rss, pss, n


def _load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def score_run(opts: dict[str, str], out: Path, workers: int, n_images: int) -> dict[str, Any]:
    """``huebench gencolor score`` with ``workers`` scorer workers, its memory sampled from /proc."""
    shutil.rmtree(out, ignore_errors=True)
    args = [*CLI, "gencolor", "score", "--images", opts["images"], "--prompts", opts["prompts"], "--masks",
            opts["masks"], "--n", str(PER_PROMPT), "--out", str(out), "--scorer-workers", str(workers),
            "--no-progress"]  # fmt: skip
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples: list[tuple[float, int, int, int, int]] = []  # (s, records, rss, pss, processes)
    cpu: dict[int, float] = {}  # CPU seconds of every process of the run, as last seen
    load = _load()

    def watch() -> None:
        records = out / "records.jsonl"
        while proc.poll() is None:
            rss, pss, n = _usage(proc.pid, cpu)
            try:
                lines = records.read_bytes().count(b"\n")
            except OSError:
                lines = 0
            samples.append((time.perf_counter() - started, lines, rss, pss, n))
            time.sleep(0.2)

    watcher = threading.Thread(target=watch)
    watcher.start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - started
    watcher.join()
    if proc.returncode != 0:
        raise SystemExit(f"gencolor score with {workers} workers failed ({proc.returncode}): {stderr[-2000:]}")
    run = json.loads((out / "run.json").read_text())
    # while images are scored (before the run compacts its records, computes results, writes its report)
    first = [s for s in samples if s[1] <= n_images // 2] or samples[:1]
    second = [s for s in samples if n_images // 2 < s[1] < n_images] or samples[-1:]
    return {
        "workers": workers,
        "images": run["samples"],
        "seconds_scoring": run["seconds"],  # the run's own: from its first chunk to its report
        "seconds_wall": wall,  # with start-up (imports, the workers' start) and the report
        "images_per_s": run["samples"] / run["seconds"],
        "peak_rss_mb": max(s[2] for s in samples) / 2**20,
        "peak_pss_mb": max(s[3] for s in samples) / 2**20,
        "peak_pss_scoring_first_half_mb": max(s[3] for s in first) / 2**20,
        "peak_pss_scoring_second_half_mb": max(s[3] for s in second) / 2**20,
        "processes": max(s[4] for s in samples),
        "cpu_ms_per_image": 1000 * sum(cpu.values()) / run["samples"],  # every process, start-up included
        "load_average": [load, _load()],  # at the start and the end: other work on the machine
        "samples": samples,  # (seconds, records written, RSS, PSS, processes) every 0.2 s
        "summary": stdout.strip().splitlines()[0] if stdout.strip() else "",
    }


def one_megapixel(tmp: Path) -> dict[str, float]:
    """Per-image costs at 1 MP (see the module doc), each the median of 7 after a warm-up."""
    from huebench.benchmarks.gencolor.pipeline import ScoreJob, ScorerSpec, user_mask_path
    from huebench.benchmarks.gencolor.store import ImageStore
    from huebench.color import load_system

    color = load_system("css3").get("tomato")
    prompt = {
        "id": "mp-1",
        "task": "cna",
        "system": "css3",
        "prompt": "A tomato-coloured ball",
        "colors": [{"name": color.name}],
        "objects": [{"name": "ball", "role": "target", "color": 0}],
    }
    img, mask = _disc(1024, 350.0, color.rgb, np.random.default_rng(1))
    store = ImageStore(tmp / "images")
    store.write("mp-1", 0, Image.fromarray(img), seed=0, prompt=prompt, generator={"spec": "synthetic:disc"})
    mask_path = user_mask_path(tmp / "masks", "mp-1", 0, "ball")
    mask_path.parent.mkdir(parents=True)
    Image.fromarray(mask.astype(np.uint8) * 255).save(mask_path)
    spec = ScorerSpec.of("huebench", "css3")
    scorer = spec.build()
    job = ScoreJob(str(store.image_path("mp-1", 0)), prompt, 0, spec, str(tmp / "masks"))

    def median_ms(fn: Any) -> float:
        fn()
        times = []
        for _ in range(7):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return 1000 * statistics.median(times)

    import pickle

    # a worker's memory on such images: a fresh process, its imports, then the job
    probe = (
        "import pickle, sys; from pathlib import Path; import huebench.benchmarks.gencolor.pipeline\n"
        "def kb(key): return int(next(l for l in Path('/proc/self/status').read_text().splitlines()"
        " if l.startswith(key)).split()[1])\n"
        "job = pickle.loads(sys.stdin.buffer.read()); before = kb('VmRSS:'); job(); print(before, kb('VmHWM:'))"
    )
    out = subprocess.run([sys.executable, "-c", probe], input=pickle.dumps(job), capture_output=True, check=True)
    before_kb, peak_kb = map(int, out.stdout.split())
    return {
        "worker_rss_after_imports_mb": before_kb / 1024,
        "worker_peak_rss_mb": peak_kb / 1024,
        "pixels": img.shape[0] * img.shape[1],
        "mask_pixels": int(mask.sum()),
        "scorer_ms": median_ms(lambda: scorer.score_image(img, color.name, mask=mask)),
        "job_ms": median_ms(job),
        "parent_ms": median_ms(lambda: (store.status("mp-1", 0), pickle.dumps(job))),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", type=int, default=10_000)
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts (the first is the baseline)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per worker count, interleaved; the fastest counts")
    ap.add_argument("--data", type=Path, default=None, help="keep the image folder here (made once)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        data = args.data or tmp / "data"
        t0 = time.perf_counter()
        opts = make_folder(data, args.images)
        made_s = time.perf_counter() - t0
        every = [score_run(opts, tmp / f"run-{w}", w, args.images) for _ in range(args.repeat) for w in counts]
        mp = one_megapixel(tmp / "mp")
    runs = [max((r for r in every if r["workers"] == w), key=lambda r: r["images_per_s"]) for w in counts]
    base, top = runs[0], runs[-1]
    print(f"{args.images:,} images of {SIZE} px (user masks, sha256-verified folder; made in {made_s:.0f} s), "
          f"`huebench gencolor score`, {os.cpu_count()} cores, fastest of {args.repeat} interleaved run(s):")  # fmt: skip
    for r in runs:
        peak = max(x["peak_pss_mb"] for x in every if x["workers"] == r["workers"])
        peak_rss = max(x["peak_rss_mb"] for x in every if x["workers"] == r["workers"])
        print(
            f"  {r['workers']} worker(s): {r['images_per_s']:.0f} images/s ({r['seconds_scoring']:.1f} s scoring, "
            f"{r['seconds_wall']:.1f} s with start-up and report; {r['images_per_s'] / base['images_per_s']:.2f}× "
            f"the {base['workers']}-worker rate), {r['cpu_ms_per_image']:.1f} CPU-ms per image over all processes; "
            f"peak memory {peak:.0f} MB PSS / {peak_rss:.0f} MB summed RSS over {r['processes']} processes, at the "
            f"end (records, results, report); while scoring {r['peak_pss_scoring_first_half_mb']:.0f} MB PSS in the "
            f"first half, {r['peak_pss_scoring_second_half_mb']:.0f} MB in the second; load average "
            f"{r['load_average'][0]:.1f} → {r['load_average'][1]:.1f}"
        )
    wall_eff = (top["images_per_s"] / base["images_per_s"]) * base["workers"] / top["workers"]
    cpu_eff = base["cpu_ms_per_image"] / top["cpu_ms_per_image"]
    print(
        f"Scaling {base['workers']}→{top['workers']} workers: {wall_eff:.2f} efficiency in images/s (the cores are "
        f"shared with whatever else runs: see the load average), {cpu_eff:.2f} in CPU time per image (the work the "
        "workers add: start-up, sending jobs and results)"
    )
    print(
        f"1 MP image, {mp['mask_pixels']:,}-pixel mask, one core: scorer {mp['scorer_ms']:.0f} ms; the whole job "
        f"(read PNG and mask, score) {mp['job_ms']:.0f} ms; the run process's share (sha256 check, meta.json, "
        f"sending the job) {mp['parent_ms']:.1f} ms; a worker holds {mp['worker_rss_after_imports_mb']:.0f} MB RSS "
        f"after its imports (mostly shared with the fork server) and peaks at {mp['worker_peak_rss_mb']:.0f} MB on it"
    )
    cap = mp["job_ms"] / mp["parent_ms"]
    for name, eff in (("CPU-time", cpu_eff), ("images/s", wall_eff)):
        hours = FULL_SUITE_IMAGES * mp["job_ms"] / 1000 / (TARGET_CORES * eff) / 3600
        print(
            f"Projection, full suite ({FULL_SUITE_IMAGES:,} images of 1 MP) on {TARGET_CORES} idle cores, "
            f"{name} efficiency: {hours:.2f} h = {FULL_SUITE_IMAGES:,} × {mp['job_ms']:.0f} ms / ({TARGET_CORES} × "
            f"{eff:.2f})"
        )
    print(
        f"  the run process's share caps the speed-up at {cap:.0f} workers ({'not ' if cap > TARGET_CORES else ''}"
        f"binding at {TARGET_CORES}); detection, segmentation and VQA not included"
    )
    if args.json:
        report = {"runs": every, "one_megapixel": mp, "efficiency": {"images_per_s": wall_eff, "cpu": cpu_eff}}
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
