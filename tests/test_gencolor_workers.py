"""The colour scoring on worker processes (``--scorer-workers``, huebench/pool.py): the same records
as in one process, in the same order; not part of a run's identity (resume with another count);
bounded work in flight; a worker's death is a recorded failure or a one-line error, never a hang;
Ctrl-C and SIGKILL leave no process behind."""

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from huebench.benchmarks.base import get_benchmark
from huebench.benchmarks.gencolor.pipeline import JudgeStage, ScoreJob
from huebench.errors import HuebenchError
from huebench.pool import WorkerDiedError, WorkerPool, resolve_workers
from huebench.runs.runner import evaluate
from huebench.testing.data import make_gencolor_images

CLI = [sys.executable, "-c", "from huebench.cli import main; main()"]


def _files(run_dir: Path) -> tuple[str, str]:
    return (run_dir / "records.jsonl").read_text(), (run_dir / "results.json").read_text()


def _score(out: Path, workers: int | None, **options):
    return evaluate("gencolorbench", "none", out=out, no_cache=True, progress=False, scorer_workers=workers, **options)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Ten prompts (every task) × 3 images with a user mask per object; one image missing, one
    that is not a PNG. Without the masks: the offline segmentation, and several objects not judged."""
    root = tmp_path_factory.mktemp("workers")
    opts = make_gencolor_images(root, n=3)
    images = Path(opts["images"])
    folders = sorted(p for p in images.iterdir() if p.is_dir())
    (folders[0] / "1.png").unlink()
    (folders[1] / "2.png").write_bytes(b"not a png")
    return opts


@pytest.mark.parametrize("masks", [True, False], ids=["user-masks", "offline"])
def test_records_and_results_are_the_same_with_one_and_two_workers(tmp_path, folder, masks):
    opts = {**folder, "n": 3} if masks else {"prompts": folder["prompts"], "images": folder["images"], "n": 3}
    one = _score(tmp_path / "one", 1, chunk_size=7, **opts)
    two = _score(tmp_path / "two", 2, chunk_size=7, **opts)
    assert _files(tmp_path / "one") == _files(tmp_path / "two")
    assert [r["id"] for r in two.records] == [s.id for s in get_benchmark("gencolorbench")(**opts).samples()]
    failed = {r["id"]: r["reason"] for r in two.records if r["status"] == "error"}
    assert len(failed) == 2 and any("missing" in why for why in failed.values())
    assert any(why.startswith("ImageLoadError: ") for why in failed.values())  # raised in a worker, recorded here
    judged = [r for r in two.records if r["status"] == "ok"]
    assert {o["mask_source"] for r in judged for o in r["objects"] if "mask_source" in o} == (
        {"user"} if masks else {"offline", "none"}
    )
    assert one.results["metrics"] == two.results["metrics"]


def test_the_known_colour_diagnostic_gives_the_same_records_with_two_workers(tmp_path):
    opts = {"quick": True, "family": "analytic,textured", "limit": 40, "no_cache": True, "progress": False}
    evaluate("gencolor-diagnostic", "none", out=tmp_path / "one", scorer_workers=1, **opts)
    evaluate("gencolor-diagnostic", "none", out=tmp_path / "two", scorer_workers=2, **opts)
    assert _files(tmp_path / "one") == _files(tmp_path / "two")


def test_with_models_the_model_calls_stay_here_and_the_records_are_the_same(tmp_path, folder, tiny):
    """Presence answers (VQA) and detector + SAM masks are asked in the run's process, through its
    cache; the worker gets them with the job and gives the records one process gives."""
    models = {"vqa": f"hf:{tiny('llava')}"}
    detector = {"detector": f"hf:{tiny('grounding-dino')}", "segmenter": f"hf:{tiny('sam')}", "box_threshold": 0.0}
    common = {"prompts": folder["prompts"], "images": folder["images"], "n": 1, "progress": False}
    for name, extra in (("vqa", models), ("detector", {**models, **detector})):
        cache = tmp_path / f"{name}.sqlite"
        one = evaluate(
            "gencolorbench", "none", out=tmp_path / f"{name}-1", cache=cache, scorer_workers=1, **common, **extra
        )
        two = evaluate(
            "gencolorbench", "none", out=tmp_path / f"{name}-2", cache=cache, scorer_workers=2, **common, **extra
        )
        assert _files(tmp_path / f"{name}-1") == _files(tmp_path / f"{name}-2")
        assert one.stats["cache"]["model_calls"] > 0 and two.stats["cache"]["model_calls"] == 0
        assert all(r["presence_checked"] for r in two.records if r["status"] == "ok")
        method = "detector+sam" if "detector" in extra else "offline"
        assert {r["mask_method"] for r in two.records if r["status"] == "ok"} == {method}


def test_the_worker_count_is_not_part_of_the_run_and_a_resume_may_change_it(tmp_path, folder):
    opts = {**folder, "n": 3, "chunk_size": 5}
    _score(tmp_path / "whole", 1, **opts)
    run_dir = tmp_path / "resumed"
    _score(run_dir, 2, **opts)
    config = json.loads((run_dir / "config.json").read_text())
    assert "scorer_workers" not in config["benchmark_options"]
    assert (
        config["benchmark_options"] == json.loads((tmp_path / "whole" / "config.json").read_text())["benchmark_options"]
    )
    lines = (run_dir / "records.jsonl").read_text().splitlines(keepends=True)
    (run_dir / "records.jsonl").write_text("".join(lines[:10]))  # as a run killed after two chunks leaves it
    for workers in (1, 2):
        resumed = _score(run_dir, workers, resume=True, **opts)
        assert resumed.stats["resumed_from_records"] > 0
        assert _files(run_dir) == _files(tmp_path / "whole")


def test_the_option_is_a_flag_of_every_scoring_command_and_refuses_a_bad_count(cli, tmp_path, folder):
    for bench in ("gencolorbench", "gencolor-diagnostic"):
        specs = get_benchmark(bench).option_specs()
        assert specs["scorer_workers"].default is None and "every core" in specs["scorer_workers"].help
    code, out, err = cli("gencolor", "score", "--images", folder["images"], "--prompts", folder["prompts"],
                         "--masks", folder["masks"], "--n", "1", "--out", tmp_path / "r", "--scorer-workers", "2",
                         "--no-progress")  # fmt: skip
    assert code == 0, err
    assert "scorer_workers" not in (tmp_path / "r" / "config.json").read_text()
    code, _, err = cli("run", "gencolorbench", "-m", "none", "--images", folder["images"], "--prompts",
                       folder["prompts"], "--out", tmp_path / "bad", "--scorer-workers", "0")  # fmt: skip
    assert code == 2 and "--scorer-workers 0 is not valid" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "bad").exists()
    with pytest.raises(HuebenchError, match="at least 1"):
        resolve_workers(-2, "--scorer-workers")
    assert resolve_workers(None, "--scorer-workers") == len(os.sched_getaffinity(0))


def test_a_script_that_workers_cannot_import_scores_in_its_own_process(tmp_path, folder):
    """Workers import the main script, as multiprocessing's do: one without the __main__ guard
    would run again in each of them. By default it scores in its own process; asked for workers,
    it is told what to change, in one line."""
    call = (
        "from huebench.runs.runner import evaluate\n"
        f"res = evaluate('gencolorbench', 'none', out={str(tmp_path / 'run')!r}, no_cache=True, progress=False,"
        f" report=False, n=1, prompts={folder['prompts']!r}, images={folder['images']!r}, masks={folder['masks']!r}"
        "{extra})\n"
        "print('scored', res.results['n'])\n"
    )
    script = tmp_path / "score.py"
    script.write_text(call.format(extra=""))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.split() == ["scored", "10"], done.stderr[-2000:]
    script.write_text(call.format(extra=", scorer_workers=2, resume=True"))
    refused = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    message = refused.stderr.strip().splitlines()[-1]
    assert "--scorer-workers 2: worker processes import the main script" in message
    assert 'if __name__ == "__main__":' in message and "--scorer-workers 1" in message


# -- the pool --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Square:
    x: int

    def __call__(self) -> int:
        return self.x * self.x


@dataclass(frozen=True)
class _Where:
    def __call__(self) -> tuple[str, str | None]:
        return os.getcwd(), os.environ.get("HUEBENCH_POOL_TEST")


@dataclass(frozen=True)
class _Fails:
    def __call__(self) -> None:
        raise ValueError("no such colour 'Redd'")


@dataclass(frozen=True)
class _Dies:
    def __call__(self) -> None:
        os.kill(os.getpid(), signal.SIGKILL)


def test_results_come_in_item_order_with_bounded_work_in_flight():
    pool = WorkerPool(2)
    pulled = []

    def items():
        for x in range(50):
            pulled.append(x)
            yield x, _Square(x) if x % 7 else None  # None: no work, passed through in its place

    results = pool.run(items())
    assert next(results) == (0, None)
    assert len(pulled) <= pool.window + 1  # not all fifty read ahead
    assert list(results) == [(x, x * x if x % 7 else None) for x in range(1, 50)]
    pool.close()


def test_a_worker_takes_the_working_directory_and_huebench_settings_of_the_moment(tmp_path, monkeypatch):
    pool = WorkerPool(2)
    list(pool.run([(0, _Square(1))]))  # the workers start here
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HUEBENCH_POOL_TEST", "on")
    assert {r for _, r in pool.run([(k, _Where()) for k in range(4)])} == {(str(tmp_path), "on")}
    monkeypatch.delenv("HUEBENCH_POOL_TEST")
    assert {r for _, r in pool.run([(k, _Where()) for k in range(4)])} == {(str(tmp_path), None)}
    pool.close()


def test_a_job_error_is_raised_in_its_place_and_a_dead_worker_is_an_error_not_a_hang():
    pool = WorkerPool(2)
    with pytest.raises(ValueError, match="no such colour 'Redd'"):
        list(pool.run([(0, _Square(2)), (1, _Fails()), (2, _Square(3))]))
    started = time.monotonic()
    with pytest.raises(WorkerDiedError, match="worker process died") as info:
        list(pool.run([(0, _Square(2)), (1, _Dies()), (2, _Square(3))]))
    assert time.monotonic() - started < 30 and "\n" not in str(info.value)
    assert list(pool.run([(0, _Square(4))])) == [(0, 16)]  # a new pool
    pool.close()


@dataclass(frozen=True)
class _DiesOn:
    """A score job that kills its worker on one image (a crash in native code, say)."""

    job: ScoreJob
    fatal: str

    def __call__(self):
        if self.job.image.endswith(self.fatal):
            os.kill(os.getpid(), signal.SIGKILL)
        return self.job()


def test_a_worker_that_dies_on_an_image_fails_that_sample_only(tmp_path, folder, monkeypatch):
    opts = {**folder, "n": 3, "chunk_size": 6}
    reference = _score(tmp_path / "ref", 2, **opts)
    k = next(k for k, r in enumerate(reference.records) if k >= 3 and r["status"] == "ok")  # mid-chunk
    fatal = f"{reference.records[k]['prompt_id']}/{reference.records[k]['index']}.png"
    make = JudgeStage.score_job
    monkeypatch.setattr(JudgeStage, "score_job", lambda self, *a: _DiesOn(make(self, *a), fatal))
    res = _score(tmp_path / "run", 2, **opts)
    assert res.records[k]["status"] == "error"
    assert res.records[k]["reason"].startswith("WorkerDiedError: a worker process died")
    others = [json.dumps(r, sort_keys=True) for j, r in enumerate(res.records) if j != k]
    assert others == [json.dumps(r, sort_keys=True) for j, r in enumerate(reference.records) if j != k]


# -- Ctrl-C and SIGKILL --------------------------------------------------------------------------


def _marked(mark: str) -> list[int]:
    """The live processes whose environment holds ``mark``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if mark.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _sigint_as_in_a_terminal() -> None:
    """A shell's background job (CI's, a test runner's) inherits SIGINT ignored; from a terminal it is not."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_scoring(tmp_path: Path, folder: dict[str, str], mark: str) -> tuple[subprocess.Popen, Path]:
    out = tmp_path / "run"
    args = [*CLI, "gencolor", "score", "--images", folder["images"], "--prompts", folder["prompts"], "--n", "40",
            "--out", str(out), "--scorer-workers", "2", "--no-progress"]  # fmt: skip
    env = dict(os.environ, HF_HUB_OFFLINE="1", HUEBENCH_TEST_MARK=mark)
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_sigint_as_in_a_terminal)  # fmt: skip
    records = out / "records.jsonl"
    deadline = time.monotonic() + 120
    while not (records.exists() and records.stat().st_size) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    assert len(_marked(mark)) >= 3  # the run, the fork server and its workers
    return proc, out


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    return make_gencolor_images(tmp_path_factory.mktemp("many"), n=40)


def test_ctrl_c_stops_the_workers_and_the_run_resumes_to_the_same_records(tmp_path, many, cli):
    mark = uuid.uuid4().hex
    proc, out = _start_scoring(tmp_path, many, mark)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()[-2000:]
    assert "Traceback" not in err.decode() and "--resume" in err.decode()
    assert _marked(mark) == []
    kept = (out / "records.jsonl").read_text().count("\n")
    assert 0 < kept < 20 * 40
    score = [
        "gencolor",
        "score",
        "--images",
        many["images"],
        "--prompts",
        many["prompts"],
        "--n",
        "40",
        "--no-progress",
    ]
    assert cli(*score, "--out", out, "--resume", "--scorer-workers", "1")[0] == 0
    assert cli(*score, "--out", tmp_path / "whole", "--scorer-workers", "2")[0] == 0
    assert _files(out) == _files(tmp_path / "whole")


def test_a_killed_run_leaves_no_worker_behind(tmp_path, many):
    mark = uuid.uuid4().hex
    proc, _ = _start_scoring(tmp_path, many, mark)
    os.kill(proc.pid, signal.SIGKILL)  # the run only: its workers must notice
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 30
    while _marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked(mark) == []
