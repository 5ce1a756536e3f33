"""Kill campaign: SIGKILL a real run at random moments, resume, and check nothing is lost or doubled.

Each cycle starts ``huebench run colornames`` (a tiny random CLIP, the real CLI) with ``--resume``
and kills it after a random delay drawn from [0, 1.2 × an uninterrupted run's time], so kills land
in start-up, model loading, config writing, inference, compaction and report writing alike. Some
cycles also freeze the live run (SIGSTOP) at a random moment and read it with ``huebench report``
and ``huebench rescore``: they must not change a byte of the run folder, and end with 0, 1 (some
samples failed) or 2 (a one-line error, e.g. the config not written yet). After
the last cycle one more resume finishes the run; its records and results must equal the
uninterrupted run's byte for byte, with no temporary file and no lock left.

    python perf/kill_campaign.py --cycles 60 [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

CLI = [sys.executable, "-c", "from huebench.cli import main; main()"]


def run_args(model: str, out: Path, cache: Path) -> list[str]:
    return [*CLI, "run", "colornames", "-m", model, "--out", str(out), "--cache", str(cache), "--no-progress",
            "--batch-size", "2", "--chunk-size", "8", "-o", "variants=12", "--resume"]  # fmt: skip


def lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def phase(out: Path, started: float) -> str:
    """Where a kill landed, judged from the folder."""
    if not (out / "config.json").exists():
        return "before config.json"
    if lines(out / "records.jsonl") == 0:
        return "before the first record"
    try:
        if (out / "results.json").stat().st_mtime > started:
            return "finalisation"
    except FileNotFoundError:
        pass
    return "inference"


def snapshot(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cycles", type=int, default=60)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    from huebench.testing.tiny import build

    rng = random.Random(args.seed)
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        model = f"hf:{build('clip', tmp / 'tiny-clip')}"
        ref, out = tmp / "reference", tmp / "killed"
        t0 = time.time()
        subprocess.run(run_args(model, ref, tmp / "ref.sqlite"), env=env, check=True, capture_output=True)
        ref_seconds = time.time() - t0
        landed: Counter[str] = Counter()
        reads = {"report": 0, "rescore": 0, "partial": 0, "changed_folder": 0, "bad_exit": 0}
        finished_early = 0
        for cycle in range(args.cycles):
            started, delay = time.time(), rng.uniform(0.0, 1.2 * ref_seconds)
            proc = subprocess.Popen(run_args(model, out, tmp / "c.sqlite"), env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE)  # fmt: skip
            read_at = rng.uniform(0.0, delay) if cycle % 3 == 0 else None
            while proc.poll() is None and time.time() - started < delay:
                if read_at is not None and time.time() - started > read_at and (out / "config.json").exists():
                    read_at = None
                    os.kill(proc.pid, signal.SIGSTOP)  # frozen mid-write: any change now is the reader's
                    try:
                        for cmd in (["report", str(out), "--out", str(tmp / "r.html")], ["rescore", str(out)]):
                            before = snapshot(out)
                            r = subprocess.run([*CLI, *cmd], env=env, capture_output=True, text=True)
                            reads[cmd[0]] += 1
                            reads["changed_folder"] += snapshot(out) != before
                            reads["bad_exit"] += r.returncode not in (0, 1, 2)
                            reads["partial"] += "partial" in r.stdout
                    finally:
                        os.kill(proc.pid, signal.SIGCONT)
                time.sleep(0.005)
            if proc.poll() is None:
                where = phase(out, started)
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                landed[where] += 1
            else:
                finished_early += 1
                if proc.returncode != 0:
                    print(proc.stderr.read().decode()[-2000:], file=sys.stderr)
                    return 1
            proc.stderr.close()
        final = subprocess.run(run_args(model, out, tmp / "c.sqlite"), env=env, capture_output=True)
        got = (out / "records.jsonl").read_text()
        ids = [json.loads(x)["id"] for x in got.splitlines()]
        same_records = got == (ref / "records.jsonl").read_text()
        same_results = (out / "results.json").read_text() == (ref / "results.json").read_text()
        leftovers = sorted(set(p.name for p in out.iterdir()) - set(p.name for p in ref.iterdir()))
        summary = {
            "cycles": args.cycles,
            "kills": sum(landed.values()),
            "kills_by_phase": dict(landed),
            "finished_before_the_kill": finished_early,
            "final_exit": final.returncode,
            "records": len(ids),
            "duplicated": len(ids) - len(set(ids)),
            "lost": lines(ref / "records.jsonl") - len(set(ids)),
            "records_byte_identical": same_records,
            "results_byte_identical": same_results,
            "left_in_folder": leftovers,
            "concurrent_reads": reads,
            "uninterrupted_run_s": round(ref_seconds, 2),
        }
        print(json.dumps(summary, indent=2))
        ok = same_records and same_results and not leftovers and final.returncode == 0
        ok = ok and reads["changed_folder"] == 0 and reads["bad_exit"] == 0
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
