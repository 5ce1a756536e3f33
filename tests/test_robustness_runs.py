"""The run layer under careless use: read commands never write, resume refuses changed inputs,
options are checked, exit codes mean something, and every mistake is one line (no traceback)."""

import errno
import json
import os
import sys
from pathlib import Path

import pytest

from huebench.cli import main
from huebench.runs.folder import RunLock
from huebench.runs.runner import evaluate
from huebench.testing.data import make_colorswap_dataset

pytestmark = pytest.mark.robustness


def _few_names():
    from huebench.benchmarks.colornames import ColorNames

    class FewNames(ColorNames):
        """A plugin's subclass of a built-in benchmark (registered by name in a test below)."""

    return FewNames


FewNames = _few_names()


def _one_line_error(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("error: ")
    return lines[0]


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir()) if p.is_file()}


def _run(out: Path, **options):
    return evaluate("colornames", "reference:random", out=out, no_cache=True, progress=False, **options)


# ------------------------------------------------------------ read commands never write
def test_report_and_rescore_leave_the_run_folder_untouched(cli, tmp_path):
    out = tmp_path / "run"
    _run(out)
    # a records file in another order than the samples' (as a Ray run's appends can be)
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(reversed(lines)))
    before = _snapshot(out)
    code, stdout, _ = cli("report", out, "--out", tmp_path / "r.html")
    assert code == 0 and "report: " in stdout and "33 samples scored" in stdout
    assert (tmp_path / "r.html").stat().st_size > 1000
    code, stdout, _ = cli("rescore", out)
    assert code == 0 and "results.json matches" in stdout
    assert _snapshot(out) == before


def test_report_of_a_run_in_progress_is_partial_and_changes_nothing(cli, tmp_path):
    out = tmp_path / "run"
    _run(out)
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(lines[:12]))
    (out / "results.json").unlink()
    lock = RunLock(out).acquire()  # as a live run holds it
    try:
        before = _snapshot(out)
        code, stdout, _ = cli("report", out, "--out", tmp_path / "r.html")
        assert code == 0 and "partial: the run is still going (12 of 33 samples recorded so far)" in stdout
        assert "partial" in (tmp_path / "r.html").read_text()
        code, stdout, _ = cli("rescore", out, "--check")
        assert code == 1 and "not checked" in stdout
        code, _, err = cli("rescore", out, "--write")
        assert code == 2 and "not rescored: partial" in _one_line_error(err)
        assert _snapshot(out) == before
        code, _, err = cli("run", "colornames", "-m", "reference:random", "--out", out, "--resume", "--no-progress")
        assert code == 2 and "another huebench process is running in this folder" in _one_line_error(err)
    finally:
        lock.release(remove=False)
    code, stdout, _ = cli("report", out, "--out", tmp_path / "r2.html")
    assert "partial: the run stopped early (12 of 33 samples recorded; finish it with --resume)" in stdout


def test_damaged_run_files_are_one_line_errors(cli, tmp_path):
    out = tmp_path / "run"
    _run(out)
    (out / "results.json").write_text('{"n": 3')  # truncated: the report recomputes from the records
    code, stdout, _ = cli("report", out, "--out", tmp_path / "r.html")
    assert code == 0 and "33 samples scored" in stdout
    code, stdout, _ = cli("rescore", out, "--check")
    assert code == 1 and "differs" in stdout
    records = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(records[:3]) + '{"status": "ok"}\n' + "".join(records[3:]))
    code, _, err = cli("rescore", out)
    assert code == 2 and "records.jsonl:4: record without a text 'id'" in _one_line_error(err)
    (out / "config.json").write_text('{"benchmark": "colo')
    for args in (
        ("rescore", out),
        ("report", out),
        ("run", "colornames", "-m", "reference:random", "--out", out, "--resume"),
    ):
        code, _, err = cli(*args)
        assert code == 2 and "config.json: damaged" in _one_line_error(err), args
    code, _, err = cli("report", tmp_path / "nowhere")
    assert code == 2 and "no such run folder" in _one_line_error(err)


# ------------------------------------------------------------ resume checks inputs
def test_resume_refuses_changed_inputs(tmp_path):
    from huebench.errors import HuebenchError

    data = make_colorswap_dataset(tmp_path / "swap", n_train=0, n_test=4)
    out = tmp_path / "run"
    kw = {"data": str(data), "no_cache": True, "progress": False}
    evaluate("colorswap", "reference:random", out=out, **kw)
    # drop two records as a crash would, then edit one caption of the dataset
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(lines[:2]))
    examples = (data / "examples.jsonl").read_text().splitlines()
    first = json.loads(examples[0])
    first["caption_1"] = first["caption_1"].replace("square", "circle")
    (data / "examples.jsonl").write_text("\n".join([json.dumps(first), *examples[1:]]) + "\n")
    with pytest.raises(HuebenchError) as err:
        evaluate("colorswap", "reference:random", out=out, resume=True, **kw)
    message = str(err.value)
    assert "cannot resume" in message and "input files (data: changed since the run began)" in message
    assert f"1 recorded samples have other inputs now, e.g. {first['id']!r}" in message
    assert "\n" not in message


def test_resume_without_config_is_refused_and_image_edits_are_seen(tmp_path):
    from huebench.errors import HuebenchError

    data = make_colorswap_dataset(tmp_path / "swap", n_train=0, n_test=3)
    out = tmp_path / "run"
    kw = {"data": str(data), "no_cache": True, "progress": False}
    evaluate("colorswap", "reference:random", out=out, **kw)
    from PIL import Image

    Image.new("RGB", (48, 48), (1, 2, 3)).save(data / "images" / "0_1.png")  # same path, other pixels
    with pytest.raises(HuebenchError, match=r"input files \(data: changed since the run began\)"):
        evaluate("colorswap", "reference:random", out=out, resume=True, **kw)
    (out / "config.json").unlink()
    with pytest.raises(HuebenchError, match="config.json: missing, but records.jsonl holds records"):
        evaluate("colorswap", "reference:random:3", out=out, resume=True, seed=4, **kw)
    assert not (out / "config.json").exists()


# ------------------------------------------------------------ options are checked
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("colornames", "--batchsize", "4"),
            "unknown option 'batchsize' for benchmark colornames; .* Did you mean '--batch-size'",
        ),
        (("colornames", "--capability", "vlm"), "unknown option 'capability' for benchmark colornames"),
        (("colornames", "-o", "variants=abc"), "option 'variants' expects an integer, got 'abc'"),
        (
            ("rainbow", "-o", "rbg=hues.csv", "-o", "probes=p", "-o", "images=i"),
            "unknown option 'rbg' .* Did you mean 'rgb'",
        ),
        (("colornames", "--executor", "slurm"), "--executor 'slurm' is not valid: expected local or ray"),
    ],
)
def test_unknown_or_bad_options_are_usage_errors(cli, tmp_path, args, message):
    import re

    out = tmp_path / "run"
    code, _, err = cli("run", *args, "-m", "reference:random", "--out", out, "--no-progress")
    assert code == 2 and re.search(message, _one_line_error(err))
    assert not out.exists()  # nothing was started


def test_negative_limit_is_refused(cli, tmp_path):
    code, _, err = cli("run", "colornames", "-m", "reference:random", "--limit", "-5", "--out", tmp_path / "r")
    assert (
        code == 2
        and "Invalid value for '--limit': Input should be greater than or equal to 1 (see `huebench run --help`)"
        in _one_line_error(err)
    )
    assert not (tmp_path / "r").exists()


def test_list_options_names_types_and_defaults(cli):
    code, stdout, _ = cli("list", "options", "rainbow", "--json")
    rows = {r["name"]: r for r in json.loads(stdout)}
    assert code == 0 and rows["rgb"]["type"] == "str or null" and rows["kinds"]["default"] == "replacement,swap"
    code, stdout, _ = cli("list", "options", "colornames", "--json")
    assert json.loads(stdout) == [{"name": "variants", "type": "int", "default": 3}]


# ------------------------------------------------------------ exit codes and failed starts
def test_every_sample_failing_is_status_1_with_a_summary(cli, tmp_path):
    data = make_colorswap_dataset(tmp_path / "swap", n_train=0, n_test=3)
    for png in (data / "images").iterdir():
        png.write_bytes(b"not a png")
    out = tmp_path / "run"
    code, stdout, err = cli("run", "colorswap", "-m", "reference:random", "--data", data, "--out", out, "--no-progress")
    assert code == 1, err
    assert "done: 0 samples scored, 3 failed" in stdout and "Traceback" not in err
    assert "reasons in" in stdout and "records.jsonl" in stdout and "cannot decode image" in stdout


def test_a_run_that_fails_before_its_first_record_leaves_nothing(cli, tmp_path):
    out = tmp_path / "run"
    code, _, err = cli("run", "colornames", "-m", "hf:/nonexistent/model", "--out", out, "--no-progress")
    assert code == 2 and "Traceback" not in err
    assert not out.exists()
    code, stdout, _ = cli("run", "colornames", "-m", "reference:random", "--out", out, "--no-progress", "--no-cache")
    assert code == 0 and "done: 33 samples scored, 0 failed" in stdout


def test_out_that_is_a_file_and_a_full_disk_are_one_line(cli, tmp_path, monkeypatch):
    f = tmp_path / "file"
    f.write_text("x")
    code, _, err = cli("run", "colornames", "-m", "reference:random", "--out", f, "--no-progress")
    assert code == 2 and "is a file, not a folder" in _one_line_error(err)

    from huebench.io import JsonlAppender

    def full(self, records):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))

    monkeypatch.setattr(JsonlAppender, "write_many", full)
    out = tmp_path / "run"
    code, _, err = cli("run", "colornames", "-m", "reference:random", "--out", out, "--no-progress", "--no-cache")
    line = _one_line_error(err)
    assert code == 2 and "records.jsonl: No space left on device" in line and "--resume" in line


def test_internal_errors_say_so_and_debug_shows_the_traceback(tmp_path, monkeypatch, capsys):
    import huebench.cli._errors as errors
    from huebench.benchmarks.colornames import ColorNames

    def broken(self):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(ColorNames, "samples", broken)
    monkeypatch.setattr(
        sys, "argv", ["huebench", "run", "colornames", "-m", "reference:random", "--out", str(tmp_path / "a")]
    )
    monkeypatch.setattr(errors, "DEBUG", False)
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 3
    assert "internal error: ZeroDivisionError: oops" in _one_line_error(capsys.readouterr().err)
    monkeypatch.setattr(
        sys,
        "argv",
        ["huebench", "--debug", "run", "colornames", "-m", "reference:random", "--out", str(tmp_path / "b")],
    )
    with pytest.raises(SystemExit) as stop:
        main()
    err = capsys.readouterr().err
    assert stop.value.code == 3 and "Traceback" in err and "ZeroDivisionError: oops" in err


def test_resume_removes_temporaries_left_by_a_kill(tmp_path):
    out = tmp_path / "run"
    _run(out, limit=10)
    stale = out / ".records.jsonl.k1ll3d.tmp"
    stale.write_text("half a compaction\n" * 1000)
    res = _run(out, limit=10, resume=True)
    assert not stale.exists() and res.stats["stale_temporaries_removed"] == [stale.name]
    assert not list(out.glob(".*.tmp")) and not (out / "run.lock").exists()


# ------------------------------------------------------------ saved answers and inputs
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "no records \\(the file is empty\\)"),
        (
            json.dumps(
                {
                    "example_id": 1,
                    "query": "text",
                    "subject": "image_1",
                    "options": ["a", "b"],
                    "correct": 0,
                    "response": "A",
                }
            ),
            r"answers.jsonl:1: subject must be 0 or 1",
        ),
        (
            json.dumps(
                {"example_id": 1, "query": "text", "subject": 0, "options": ["a", "b"], "correct": 0, "response": "A"}
            ),
            r"answers.jsonl: 1 example\(s\) lack some of the 4 queries",
        ),
    ],
)
def test_colorswap_rescore_of_bad_answer_files(cli, tmp_path, content, message):
    import re

    p = tmp_path / "answers.jsonl"
    p.write_text(content + ("\n" if content else ""))
    code, _, err = cli("colorswap", "rescore", p)
    assert code == 2 and re.search(message, _one_line_error(err))


def test_a_lone_surrogate_in_a_caption_names_the_file_and_line(cli, tmp_path):
    data = make_colorswap_dataset(tmp_path / "swap", n_train=0, n_test=2)
    lines = (data / "examples.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace("square", "squ\\udc80re", 1)
    (data / "examples.jsonl").write_text("\n".join(lines) + "\n")
    code, _, err = cli(
        "run", "colorswap", "-m", "reference:random", "--data", data, "--out", tmp_path / "r", "--no-progress"
    )
    assert code == 2 and "examples.jsonl:2: a \\uD800–\\uDFFF escape" in _one_line_error(err)


def test_a_cache_damaged_mid_run_stops_the_run_instead_of_failing_every_sample(cli, tmp_path, monkeypatch):
    from huebench.runs.cache import CacheError, OutputCache

    def damaged(self, items):
        raise CacheError(f"cache {self.path}: the file is damaged; delete it, or run with --no-cache")

    monkeypatch.setattr(OutputCache, "put_many", damaged)
    out = tmp_path / "run"
    code, _, err = cli(
        "run", "colornames", "-m", "reference:random", "--out", out, "--cache", tmp_path / "c.sqlite", "--no-progress"
    )
    assert code == 2 and "the file is damaged" in _one_line_error(err)
    assert not out.exists()  # no record was written: nothing blocks the retry


def test_only_declared_path_options_are_fingerprinted(tmp_path, monkeypatch):
    """An option whose value happens to name a folder in the working directory (the diagnostic's
    scorer "huebench" beside a huebench/ source folder) is not read as an input."""
    from huebench.benchmarks.base import get_benchmark

    monkeypatch.chdir(tmp_path)
    (tmp_path / "huebench").mkdir()
    (tmp_path / "data.jsonl").write_text("{}\n")
    assert get_benchmark("gencolor-diagnostic")(scorer="huebench").input_paths() == {}
    swap = get_benchmark("colorswap")(data="data.jsonl")
    assert swap.input_paths() == {"data": Path("data.jsonl")}


# ------------------------------------------------------------ found by a careless user's second pass
def test_a_refused_rerun_leaves_a_finished_run_complete(cli, tmp_path):
    out = tmp_path / "run"
    _run(out)
    for extra in ((), ("--resume", "--seed", "4")):
        code, _, err = cli("run", "colornames", "-m", "reference:random", "--out", out, "--no-progress", *extra)
        assert code == 2 and _one_line_error(err)
        assert not (out / "run.lock").exists()
    code, stdout, _ = cli("rescore", out, "--check")
    assert code == 0 and "reproduced exactly" in stdout


def test_a_run_folder_inside_its_data_folder_can_be_resumed(tmp_path):
    data = make_colorswap_dataset(tmp_path / "swap", n_train=0, n_test=3)
    kw = {"data": str(data), "no_cache": True, "progress": False}
    evaluate("colorswap", "reference:random", out=data / "run", **kw)
    lines = (data / "run" / "records.jsonl").read_text().splitlines(keepends=True)
    (data / "run" / "records.jsonl").write_text(lines[0])
    res = evaluate("colorswap", "reference:random", out=data / "run", resume=True, **kw)
    assert res.results["n"] == 3


def test_out_must_be_a_run_or_a_new_or_empty_folder(cli, tmp_path):
    data = make_colorswap_dataset(tmp_path / "swap", n_train=0, n_test=2)
    code, _, err = cli("run", "colornames", "-m", "reference:random", "--out", data, "--no-progress")
    assert code == 2 and "holds other files, not a huebench run" in _one_line_error(err)
    assert sorted(p.name for p in data.iterdir()) == ["examples.jsonl", "images"]


def test_json_output_is_only_json_on_stdout(cli, tmp_path):
    code, stdout, _ = cli(
        "run", "colornames", "-m", "reference:random", "--out", tmp_path / "r", "--json", "--limit", "2"
    )
    assert code == 0 and json.loads(stdout)["n"] == 2


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (("-m", "reference:random:abc"), {}, "the seed after 'reference:random:' must be a whole number"),
        (("-m", "reference:random", "--seed", "-1"), {}, "--seed -1 is not valid"),
        (("-m", "reference:random"), {"HUEBENCH_MAX_PIXELS": "abc"}, "HUEBENCH_MAX_PIXELS='abc' is not a pixel budget"),
        (("-m", "reference:random", "-o", "variants=99999999999"), {}, "variants must be 1 to 1000"),
    ],
)
def test_input_mistakes_are_usage_errors_before_anything_starts(cli, tmp_path, monkeypatch, args, env, message):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    out = tmp_path / "r"
    code, _, err = cli("run", "colornames", *args, "--out", out, "--no-progress", "--no-cache")
    assert code == 2 and message in _one_line_error(err)
    assert not out.exists()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda c: c["benchmark_options"].update(variants="abc"),
            "config.json: benchmark colornames option 'variants'",
        ),
        (lambda c: c["benchmark_options"].update(seed="x"), "config.json: benchmark_options.seed is 'x'"),
        (lambda c: c["inputs"].update(samples="x"), "config.json: inputs.samples is 'x', not a count"),
    ],
)
def test_edited_config_values_name_the_file(cli, tmp_path, edit, message):
    out = tmp_path / "run"
    _run(out)
    config = json.loads((out / "config.json").read_text())
    edit(config)
    (out / "config.json").write_text(json.dumps(config))
    for command in ("rescore", "report"):
        code, _, err = cli(command, out, *(("--out", tmp_path / "r.html") if command == "report" else ()))
        assert code == 2 and message in _one_line_error(err), command


def test_an_edited_record_is_named_and_the_report_follows_the_records(cli, tmp_path):
    out = tmp_path / "run"
    _run(out)
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    records[0]["correct"] = not records[0]["correct"]
    (out / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    code, stdout, _ = cli("report", out, "--out", tmp_path / "r.html")
    assert code == 0 and "results.json differs from what the records give" in stdout
    del records[1]["correct"]
    (out / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    code, _, err = cli("rescore", out)
    assert code == 2 and "records.jsonl: the records lack what colornames's metrics need" in _one_line_error(err)


def test_ctrl_c_says_how_to_continue(cli, tmp_path, monkeypatch):
    from huebench.benchmarks.colornames import ColorNames

    def interrupted(self, samples, model, ctx):
        raise KeyboardInterrupt

    monkeypatch.setattr(ColorNames, "evaluate", interrupted)
    code, _, err = cli("run", "colornames", "-m", "reference:random", "--out", tmp_path / "r", "--no-progress")
    # nothing was recorded, so nothing is kept (the folder is gone) and there is nothing to resume
    assert code == 130 and not (tmp_path / "r").exists()
    assert f"interrupted before {tmp_path / 'r'} recorded a sample: nothing was kept; run the command again" in (
        " ".join(err.split())
    )


def test_an_alias_with_an_argument_points_to_the_spec(cli, tmp_path):
    code, _, err = cli("run", "colornames", "-m", "random:2", "--out", tmp_path / "r")
    assert code == 2 and "the seeded baseline with seed '2' is 'reference:random:2'" in err


def test_ctrl_c_after_some_records_names_the_run_folder(cli, tmp_path, monkeypatch):
    from huebench.benchmarks.colornames import ColorNames

    evaluate = ColorNames.evaluate
    calls = []

    def interrupted_later(self, samples, model, ctx):
        calls.append(len(samples))
        if len(calls) > 1:
            raise KeyboardInterrupt
        yield from evaluate(self, samples, model, ctx)

    monkeypatch.setattr(ColorNames, "evaluate", interrupted_later)
    out = tmp_path / "r"
    code, _, err = cli(
        "run", "colornames", "-m", "reference:random", "--out", out, "--no-progress", "--chunk-size", "5"
    )
    assert code == 130 and len((out / "records.jsonl").read_text().splitlines()) == calls[0]
    assert f"interrupted: {out} keeps what was recorded; continue the run with the same command and --resume" in (
        " ".join(err.split())
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-o", "variants=2", "-o", "variants=3"), "benchmark option 'variants' is given twice"),
        (("--variants", "2", "-o", "variants=3"), "benchmark option 'variants' is given twice"),
        (("--cache", "c.sqlite", "--no-cache"), "--cache and --no-cache exclude each other"),
        (("--workers", "4"), "--workers and --ray-address go with --executor ray"),
    ],
)
def test_options_given_twice_or_in_conflict_are_refused(cli, tmp_path, args, message):
    out = tmp_path / "r"
    code, _, err = cli("run", "colornames", "-m", "reference:random", *args, "--out", out, "--no-progress")
    assert code == 2 and message in _one_line_error(err)
    assert not out.exists()


def test_a_yes_no_option_stands_alone_as_a_flag_and_no_other_does(cli, tmp_path):
    from huebench.benchmarks.base import FLAG_WITHOUT_VALUE, get_benchmark
    from huebench.cli.runs import options_from_command_line
    from huebench.errors import HuebenchError

    given = options_from_command_line([], ["--quick", "--system", "css3", "--no-quick"])
    assert given == {"quick": FLAG_WITHOUT_VALUE, "system": "css3", "no_quick": FLAG_WITHOUT_VALUE}
    diagnostic = get_benchmark("gencolor-diagnostic")
    assert diagnostic.check_options({"quick": FLAG_WITHOUT_VALUE})["quick"] is True
    assert diagnostic.check_options({"no_quick": FLAG_WITHOUT_VALUE})["quick"] is False
    with pytest.raises(HuebenchError, match="'quick' is given twice"):
        diagnostic.check_options({"quick": "true", "no_quick": FLAG_WITHOUT_VALUE})
    with pytest.raises(HuebenchError, match=r"--system needs a value: --system VALUE \(only yes/no options"):
        diagnostic.check_options({"system": FLAG_WITHOUT_VALUE})
    out = tmp_path / "r"
    code, _, err = cli("run", "colornames", "-m", "reference:random", "--variants", "--out", out, "--no-progress")
    assert code == 2 and "--variants needs a value" in _one_line_error(err)
    assert not out.exists()


# ------------------------------------------------------------ found by a review of the change
def test_option_values_from_the_command_line_keep_their_text_and_types():
    from huebench.benchmarks.base import get_benchmark
    from huebench.errors import HuebenchError

    coda = get_benchmark("coda")
    assert coda.check_options({"dataset": "1.10"}) == {"dataset": "1.10"}  # text stays text
    bench = get_benchmark("gencolorbench")
    assert bench.check_options({"tasks": "cna, coa", "steps": "null"}) == {"tasks": ["cna", "coa"], "steps": None}
    assert bench.check_options({"systems": '["css3"]'}) == {"systems": ["css3"]}
    for bad in ("NaN", "inf", float("nan")):
        with pytest.raises(HuebenchError, match="'epsilon' expects a number"):
            get_benchmark("coda-probe").check_options({"epsilon": bad})


def test_a_plugin_subclass_of_a_built_in_registers_under_its_own_name():
    from huebench.benchmarks import base
    from huebench.benchmarks.colornames import ColorNames

    try:
        base.register("fewnames-test", "tests.test_robustness_runs:FewNames")
        assert base.get_benchmark("fewnames-test") is FewNames and FewNames.name == "fewnames-test"
        assert ColorNames.name == "colornames"
    finally:
        base._TARGETS.pop("fewnames-test", None)
        base._CLASSES.pop("fewnames-test", None)


def test_the_lock_is_held_by_one_process_even_when_its_file_is_replaced(tmp_path):
    import fcntl

    from huebench.errors import HuebenchError

    first = RunLock(tmp_path).acquire()
    stale = os.open(tmp_path / "run.lock", os.O_RDWR)  # a second process opened the file...
    first.release()  # ...which its owner then removed
    fcntl.flock(stale, fcntl.LOCK_EX | fcntl.LOCK_NB)  # that process locks the removed file
    third = RunLock(tmp_path).acquire()  # a new lock file: the lock is the third's alone
    with pytest.raises(HuebenchError, match="another huebench process is running"):
        RunLock(tmp_path).acquire()
    third.release()
    os.close(stale)


def test_a_failed_start_removes_the_folders_it_made(cli, tmp_path):
    out = tmp_path / "nest" / "a" / "b"
    code, _, _ = cli("run", "colornames", "-m", "hf:/nonexistent/model", "--out", out, "--no-progress")
    assert code == 2 and not (tmp_path / "nest").exists()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c.update(model="x"), "config.json: model is 'x'"),
        (lambda c: c.update(inputs=[1]), "config.json: inputs is [1]"),
        (lambda c: c["model"].pop("fingerprint"), "config.json: model lacks its spec or fingerprint"),
    ],
)
def test_config_values_of_the_wrong_shape_are_one_line(cli, tmp_path, edit, message):
    out = tmp_path / "run"
    _run(out)
    config = json.loads((out / "config.json").read_text())
    edit(config)
    (out / "config.json").write_text(json.dumps(config))
    for args in (("rescore", out), ("run", "colornames", "-m", "reference:random", "--out", out, "--resume")):
        code, _, err = cli(*args)
        assert code == 2 and message in _one_line_error(err), args
