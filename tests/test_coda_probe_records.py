"""CoDa probes are trained once per run and their predictions stored in the records: rescore and
report compute the curves from them and never train; records without them are refused in one line
saying how long training takes, and --resume trains and stores them."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from huebench.benchmarks.coda import probe
from huebench.errors import HuebenchError
from huebench.runs.runner import evaluate, rescore
from huebench.testing.data import make_coda_dataset

OPTIONS = {"steps": 20, "seeds": 2, "points": 4}  # sizes 1, 2, 5, 12: 8 probes


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return make_coda_dataset(tmp_path_factory.mktemp("coda"))


@pytest.fixture(scope="module")
def model(tiny):
    return f"hf:{tiny('bert')}"


def _run(model, dataset, out, **extra):
    options = {"no_cache": True, "progress": False, "dataset": str(dataset), **OPTIONS, **extra}
    return evaluate("coda-probe", model, out=out, **options)


def _records(run_dir):
    return [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]


def _write_records(run_dir, records):
    (run_dir / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def _forbid_training(monkeypatch):
    monkeypatch.setattr(probe, "train_probe", lambda *a, **k: pytest.fail("a probe was trained"))


def test_held_out_records_store_each_probes_prediction(model, dataset, tmp_path):
    res = _run(model, dataset, tmp_path / "run")
    records = _records(tmp_path / "run")
    held = [r for r in records if r["split"] in ("val", "test")]
    assert len(held) == 12 and all("probe" not in r for r in records if r["split"] == "train")
    keys = {r["probe"]["trained_on"] for r in held}
    assert len(keys) == 1 and all(r["probe"]["sizes"] == [1, 2, 5, 12] for r in held)
    for r in held:  # per seed, per size: a distribution over the 11 colours
        pred = np.array(r["probe"]["predictions"])
        assert pred.shape == (2, 4, 11) and np.allclose(pred.sum(-1), 1, atol=1e-5)
    # what is stored is the probe's output: seed 2's largest probe trained again gives the same numbers
    train = [r for r in records if r["split"] == "train"]
    x = np.array([r["features"] for r in train])
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-6
    idx = np.random.default_rng(1).permutation(12)
    net = probe.train_probe(((x - mu) / sd)[idx], np.array([r["truth"] for r in train])[idx], steps=20, seed=1)
    val = [r for r in held if r["split"] == "val"]
    again = probe._predict(net, (np.array([r["features"] for r in val]) - mu) / sd)
    assert np.array_equal(again, np.array([r["probe"]["predictions"][1][3] for r in val]))
    assert res.results == json.loads((tmp_path / "run" / "results.json").read_text())
    # docs/coda.md's table of the stored fields names these and no others
    docs = (Path(__file__).resolve().parents[1] / "docs" / "coda.md").read_text()
    assert set(re.findall(r"^\| `probe\.(\w+)` \|", docs, re.M)) == set(held[0]["probe"])


def test_rescore_and_report_do_not_train(model, dataset, tmp_path, cli, monkeypatch):
    _run(model, dataset, tmp_path / "run")
    stored = json.loads((tmp_path / "run" / "results.json").read_text())
    _forbid_training(monkeypatch)
    assert rescore(tmp_path / "run") == stored
    code, out, _ = cli("rescore", tmp_path / "run", "--check")
    assert code == 0 and "results.json reproduced exactly" in out
    code, out, err = cli("report", tmp_path / "run", "--out", tmp_path / "report.html")
    assert code == 0, err
    html = (tmp_path / "report.html").read_text()
    assert "Loss-data curve" in html and f"{stored['metrics']['summary']['mdl']:.2f}" in html


def test_a_finished_run_resumed_keeps_its_predictions(model, dataset, tmp_path, monkeypatch):
    _run(model, dataset, tmp_path / "run")
    before = (tmp_path / "run" / "records.jsonl").read_bytes()
    _forbid_training(monkeypatch)
    _run(model, dataset, tmp_path / "run", resume=True)
    assert (tmp_path / "run" / "records.jsonl").read_bytes() == before


def test_records_without_predictions_are_refused_and_resume_trains_them(model, dataset, tmp_path, cli):
    run_dir = tmp_path / "run"
    _run(model, dataset, run_dir)
    results = (run_dir / "results.json").read_bytes()
    records = (run_dir / "records.jsonl").read_bytes()
    # a run made before the predictions were stored: its records hold the features only
    _write_records(run_dir, [{k: v for k, v in r.items() if k != "probe"} for r in _records(run_dir)])
    with pytest.raises(HuebenchError) as exc:
        rescore(run_dir)
    message = str(exc.value)
    assert "no trained probes" in message and "rescore and report do not train" in message
    assert "(8 probes × 20 full-batch epochs)" in message and "again with --resume" in message
    assert "\n" not in message
    code, out, err = cli("report", run_dir, "--out", tmp_path / "report.html")

    # one line, exit status 2; the training-time estimate is measured each time, so it may differ
    def without_time(text: str) -> str:
        return re.sub(r"\d+:\d\d:\d\d", "H:MM:SS", text)

    assert code == 2 and without_time(err.splitlines()[-1]) == without_time(f"error: {message}")
    assert not (tmp_path / "report.html").exists()
    # --resume trains them, as the message says, to the same records and results
    _run(model, dataset, run_dir, resume=True)
    assert (run_dir / "records.jsonl").read_bytes() == records
    assert (run_dir / "results.json").read_bytes() == results


def test_predictions_trained_on_other_features_are_refused(model, dataset, tmp_path):
    run_dir = tmp_path / "run"
    _run(model, dataset, run_dir)
    records = _records(run_dir)
    train = next(r for r in records if r["split"] == "train")
    train["features"][0] += 1.0  # the stored predictions no longer follow from the records
    _write_records(run_dir, records)
    with pytest.raises(HuebenchError, match="no trained probes for these features"):
        rescore(run_dir)


def test_probes_trained_side_by_side_give_the_numbers_each_gets_alone(model, dataset, tmp_path, monkeypatch):
    import torch

    threads = torch.get_num_threads()
    runs = {}
    for cores in (1, 3):  # one probe at a time, or three side by side (each on one thread)
        monkeypatch.setattr(probe, "_cores", lambda cores=cores: cores)
        _run(model, dataset, tmp_path / str(cores))
        runs[cores] = (tmp_path / str(cores) / "records.jsonl").read_bytes()
    assert runs[1] == runs[3]
    assert torch.get_num_threads() == threads  # the run's own setting is back


def test_a_probe_that_fails_stops_the_others_and_the_error_is_the_runs(model, dataset, tmp_path, monkeypatch):
    import threading

    begun, completed = [], []
    real = probe.train_probe

    def failing(x, y, **kwargs):
        begun.append(len(x))
        if len(begun) == 1:  # the first probe to begin
            raise MemoryError("no memory for this probe")
        net = real(x, y, **kwargs)
        completed.append(len(x))
        return net

    monkeypatch.setattr(probe, "train_probe", failing)
    monkeypatch.setattr(probe, "_cores", lambda: 2)
    before = threading.active_count()
    with pytest.raises(MemoryError, match="no memory for this probe"):
        _run(model, dataset, tmp_path / "run", steps=5000)  # seconds per probe: the second one is stopped in it
    assert completed == [] and threading.active_count() == before
    assert begun[0] == 12 and len(begun) < 8  # the largest probes begin first; those not begun are dropped


def test_the_progress_says_which_probes_are_training(model, dataset, tmp_path, monkeypatch):
    import contextlib

    from huebench import progress

    details, real = [], progress.task

    @contextlib.contextmanager
    def recording(*args, **kwargs):
        with real(*args, **kwargs) as task:
            update = task.update

            def recorded(**changes):
                details.append(changes.get("detail"))
                update(**changes)

            task.update = recorded
            yield task

    monkeypatch.setattr(progress, "task", recording)
    monkeypatch.setattr(probe, "_cores", lambda: 2)
    _run(model, dataset, tmp_path / "run")
    shown = [d for d in details if d and "probe" in d]
    for k, (seed, n) in enumerate((s, n) for s in (1, 2) for n in (1, 2, 5, 12)):
        objects = f"{n} training object{'s' if n != 1 else ''}"
        assert any(f"probe {k + 1}/8: seed {seed}/2, {objects}" in d for d in shown)
    assert any(d.count("; probe ") == 1 for d in shown)  # two at a time
    assert shown[0].startswith("probe 4/8: seed 1/2, 12 training objects")  # the largest first
    assert shown[-1] == "8 probes trained, 2 at a time"
