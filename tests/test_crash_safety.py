"""Kill a real run with SIGKILL at ≥ 10 points and resume each time: nothing lost, nothing doubled.

The run evaluates a tiny CLIP on the colornames benchmark in a subprocess (the real CLI). Phase
one kills it once the records file has grown by a random number of chunks (mid-inference), at
least 12 times; phase two kills it during finalisation (records compaction, results, report) as
soon as a new results.json appears; phase three, in a second folder, kills it five times at random
moments (wherever they land: start-up, model loading, before the first record, inference). The
final records and results must equal an uninterrupted run's byte for byte, with no duplicates, no
half-written files and no lock left.
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

CLI = [sys.executable, "-c", "from huebench.cli import main; main()"]
CHUNK = 8


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def _args(model: str, out: Path, cache: Path, resume: bool) -> list[str]:
    args = [
        *CLI,
        "run",
        "colornames",
        "-m",
        model,
        "--out",
        str(out),
        "--cache",
        str(cache),
        "--no-progress",
        "--batch-size",
        "2",
        "--chunk-size",
        str(CHUNK),
        "-o",
        "variants=24",
    ]
    return args + (["--resume"] if resume else [])


def _run_until(args: list[str], env: dict[str, str], should_kill) -> str:  # type: ignore[no-untyped-def]
    """Start the run; SIGKILL it when ``should_kill()`` says so. Returns "killed" or "finished"."""
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 180
    try:
        while proc.poll() is None:
            if should_kill():
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return "killed"
            if time.time() > deadline:
                proc.kill()
                raise AssertionError("run did not finish in time")
            time.sleep(0.005)
        err = proc.stderr.read().decode()
        assert proc.returncode == 0, err[-2000:]
        return "finished"
    finally:
        proc.stderr.close()


def test_sigkill_at_random_points_then_resume(tiny, tmp_path):
    model = f"hf:{tiny('clip')}"
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    ref = tmp_path / "reference"
    subprocess.run(
        _args(model, ref, tmp_path / "ref-cache.sqlite", False), env=env, check=True, capture_output=True, timeout=300
    )
    total = _lines(ref / "records.jsonl")
    assert total == 11 * 24

    out, cache = tmp_path / "killed", tmp_path / "cache.sqlite"
    records = out / "records.jsonl"
    rng = random.Random(1234)
    kills: list[str] = []
    attempt = 0
    while len(kills) < 12 and _lines(records) < total - 2 * CHUNK:
        before = _lines(records)
        target = before + CHUNK * rng.randint(1, 2)
        outcome = _run_until(_args(model, out, cache, attempt > 0), env, lambda t=target: _lines(records) >= t)
        attempt += 1
        if outcome == "killed":
            kills.append(f"inference after {_lines(records)} records")
    finalize_kills = 0
    for _ in range(3):  # during finalisation: as soon as a new results.json lands
        started = time.time()
        outcome = _run_until(_args(model, out, cache, True), env, lambda s=started: _mtime(out / "results.json") > s)
        finalize_kills += outcome == "killed"
    final = subprocess.run(_args(model, out, cache, True), env=env, capture_output=True, timeout=300)
    assert final.returncode == 0, final.stderr.decode()[-2000:]

    assert len(kills) >= 10, kills
    got = records.read_text()
    assert got == (ref / "records.jsonl").read_text()
    ids = [json.loads(line)["id"] for line in got.splitlines()]
    assert len(ids) == len(set(ids)) == total
    assert json.loads((out / "results.json").read_text()) == json.loads((ref / "results.json").read_text())
    assert (out / "report.html").read_text().count("<table") >= 2
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    assert not (out / "run.lock").exists()  # a finished run leaves no mark of an interrupted one

    # kills at random moments (start-up, model loading, before the first record, inference, finalisation)
    # within the time a whole run takes with the cache this one has (the cold reference run took longer)
    t0 = time.time()
    subprocess.run(_args(model, tmp_path / "warm", cache, False), env=env, check=True, capture_output=True, timeout=300)
    warm_seconds = time.time() - t0
    timed, timed_kills = tmp_path / "timed", 0
    for _ in range(5):
        started, delay = time.time(), rng.uniform(0.1, 0.8 * warm_seconds)
        # --resume on a folder without records starts afresh: a kill before the first record blocks nothing
        outcome = _run_until(_args(model, timed, cache, True), env, lambda s=started, d=delay: time.time() - s > d)
        timed_kills += outcome == "killed"
    final = subprocess.run(_args(model, timed, cache, True), env=env, capture_output=True, timeout=300)
    assert final.returncode == 0, final.stderr.decode()[-2000:]
    assert timed_kills >= 3
    assert (timed / "records.jsonl").read_text() == (ref / "records.jsonl").read_text()
    assert sorted(p.name for p in timed.iterdir()) == sorted(p.name for p in ref.iterdir())  # no .tmp, no lock


def test_gencolor_generation_and_scoring_survive_sigkill(tiny, tmp_path):
    """``gencolor generate`` killed at random points while images are written (≥ 8 times), then
    ``gencolor score`` killed mid-run (≥ 3 times): the image folder equals an uninterrupted one
    byte for byte (meta.json included) and the scoring records equal an uninterrupted run's."""
    from huebench.benchmarks.gencolor.prompts import build_suite

    env = dict(os.environ, HF_HUB_OFFLINE="1")
    recs = [r for r in build_suite("mini") if r["task"] in ("cna", "ncu")][:24]
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")

    # batch size 1: a resumed run regroups the images it makes, and a different batch shape can move
    # a rare pixel by one level (BLAS rounding); one image per call keeps the comparison byte-exact
    def generate(images: Path) -> list[str]:
        return [*CLI, "gencolor", "generate", "--model", f"diffusers:{tiny('stable-diffusion')}", "--prompts",
                str(prompts), "--images", str(images), "--n", "2", "--steps", "2", "--height", "32", "--width", "32",
                "--batch-size", "1"]  # fmt: skip

    def score(images: Path, out: Path, resume: bool) -> list[str]:
        return [*CLI, "run", "gencolorbench", "-m", "reference:none", "--out", str(out), "--no-cache",
                "--no-progress", "--chunk-size", "4", "--images", str(images), "--prompts", str(prompts),
                "--n", "2"] + (["--resume"] if resume else [])  # fmt: skip

    ref = tmp_path / "ref-images"
    subprocess.run(generate(ref), env=env, check=True, capture_output=True, timeout=300)
    subprocess.run(score(ref, tmp_path / "ref-score", False), env=env, check=True, capture_output=True, timeout=300)

    images = tmp_path / "images"

    def pngs() -> int:
        return len(list(images.glob("*/*.png"))) if images.exists() else 0

    rng = random.Random(99)
    kills = 0
    while kills < 8 and pngs() < 2 * len(recs) - 6:
        target = pngs() + rng.randint(1, 4)
        kills += _run_until(generate(images), env, lambda t=target: pngs() >= t) == "killed"
    assert kills >= 8
    subprocess.run(generate(images), env=env, check=True, capture_output=True, timeout=300)
    for r in recs:
        for name in ("0.png", "1.png", "meta.json"):
            assert (images / r["id"] / name).read_bytes() == (ref / r["id"] / name).read_bytes(), (r["id"], name)
    assert not list(images.glob("*/*.tmp*"))

    out = tmp_path / "score"
    records = out / "records.jsonl"
    score_kills, attempt = 0, 0
    while score_kills < 3 and _lines(records) < 2 * len(recs) - 8:
        target = _lines(records) + 4
        score_kills += (
            _run_until(score(images, out, attempt > 0), env, lambda t=target: _lines(records) >= t) == "killed"
        )
        attempt += 1
    subprocess.run(score(images, out, True), env=env, check=True, capture_output=True, timeout=300)
    assert score_kills >= 3

    def strip(path: Path) -> list[dict]:
        return [{k: v for k, v in json.loads(x).items() if k != "image"} for x in path.read_text().splitlines()]

    assert strip(records) == strip(tmp_path / "ref-score" / "records.jsonl")
    assert json.loads((out / "results.json").read_text()) == json.loads(
        (tmp_path / "ref-score" / "results.json").read_text()
    )
