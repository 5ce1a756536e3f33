"""GenColorBench's commands take the benchmark's options as flags made from its declared options
(huebench/benchmarks/option_flags.py): every option is a flag with the option's type, default and help,
or the command says why not — so an option added to the benchmark is a flag with no edit to the CLI."""

import json
import os
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from huebench.benchmarks.base import OptionSpec, get_benchmark
from huebench.benchmarks.gencolor import cli
from huebench.benchmarks.option_flags import BenchmarkOptionsCommand
from huebench.cli import app

COMMANDS = {"score": "gencolorbench", "generate": "gencolor-generate", "diagnose": "gencolor-diagnostic"}


def _command(name: str) -> BenchmarkOptionsCommand:
    """A fresh click command (typer builds new ones each time), its flags not made yet."""
    command = typer.main.get_command(cli.app).commands[name]
    assert isinstance(command, BenchmarkOptionsCommand)
    return command


def _params(command: BenchmarkOptionsCommand) -> dict[str, object]:
    return {p.name: p for p in command.get_params(command.context_class(command))}


@pytest.mark.parametrize(("name", "bench_name"), COMMANDS.items())  # ("benchmark" is pytest-benchmark's)
def test_every_option_is_a_flag_with_its_default_and_help_or_left_out_with_a_reason(name, bench_name):
    command = _command(name)
    assert command.benchmark == bench_name
    params = _params(command)
    specs = get_benchmark(bench_name).option_specs()
    for option, spec in specs.items():
        if option in command.not_flags:
            assert command.not_flags[option], f"{name}: --{option} left out without a reason"
            continue
        param = params.get(option)
        assert param is not None, f"{name}: option {option!r} of {bench_name} has no flag"
        assert param.opts == [command.flags.get(option, "--" + option.replace("_", "-"))]
        if option in command.required:
            assert param.required
        else:
            assert param.default == spec.default, f"--{option}: default {param.default!r}, option {spec.default!r}"
        assert param.help == command.help_overrides.get(option, spec.help) and param.help, f"--{option} has no help"


def test_the_benchmark_describes_its_options_for_every_command():
    result = CliRunner().invoke(app, ["list", "options", "gencolorbench", "--json"])
    rows = {r["name"]: r for r in json.loads(result.output)}
    assert rows["k"] == {
        "name": "k",
        "type": "int",
        "default": 3,
        "help": "Nearest neighbours of the target in its candidate set.",
    }
    assert all(r.get("help") for r in rows.values())


def test_an_option_added_to_the_benchmark_becomes_a_flag(monkeypatch, tmp_path):
    bench = get_benchmark("gencolorbench")
    declared = bench.option_specs()
    added = OptionSpec("min_area", "int", False, 7, "int", "Smallest mask, in pixels.")
    monkeypatch.setattr(bench, "option_specs", classmethod(lambda cls: {**declared, "min_area": added}))
    param = _params(_command("score"))["min_area"]
    assert param.opts == ["--min-area"] and param.default == 7 and param.help == "Smallest mask, in pixels."

    given = _given_options(monkeypatch, ["score", "--images", str(tmp_path), "--out", str(tmp_path / "r")])
    assert given["min_area"] == 7
    given = _given_options(
        monkeypatch, ["score", "--images", str(tmp_path), "--out", str(tmp_path / "r"), "--min-area", "12"]
    )
    assert given["min_area"] == 12


class _StopBeforeRunError(Exception):
    """Raised instead of running the benchmark: the test has what it wanted."""


def _given_options(monkeypatch, args: list[str]) -> dict:
    """The benchmark options the gencolor command would run with."""
    seen: dict = {}

    def run(benchmark, model, out, options, common):
        seen.update(options)
        raise _StopBeforeRunError

    monkeypatch.setattr(cli, "_run_gencolor", run)
    result = CliRunner().invoke(app, ["gencolor", *args])
    assert isinstance(result.exception, _StopBeforeRunError), result.output
    return seen


def test_flags_reach_the_benchmark_as_before(monkeypatch, tmp_path):
    images, masks = tmp_path / "images", tmp_path / "masks"
    args = ["score", "--images", f"{images}/", "--out", str(tmp_path / "r"), "--masks", str(masks)]
    args += ["--candidates", "same", "--k", "2", "--hue-threshold", "4.5", "--tasks", "cna,coa", "--device", "cuda"]
    specs = get_benchmark("gencolorbench").option_specs()
    defaults = {name: spec.default for name, spec in specs.items() if name not in _command("score").not_flags}
    assert _given_options(monkeypatch, args) == {
        **defaults,
        "images": str(images),  # a path option arrives as text, as before (without the trailing '/')
        "masks": str(masks),
        "candidate_rule": "same",
        "k": 2,
        "hue_threshold": 4.5,
        "tasks": "cna,coa",  # the benchmark's list type reads the text
        "device": "cuda",  # --device is the run's device and the helper models'
    }


def test_diagnose_switches_and_choices(monkeypatch, tmp_path):
    from huebench.runs import runner

    seen = []

    def run(opts):
        seen.append(opts)
        raise _StopBeforeRunError

    monkeypatch.setattr(runner, "run", run)
    args = ["gencolor", "diagnose", "--quick", "--system", "css3", "--family", "analytic", "--candidates", "same"]
    result = CliRunner().invoke(app, args)
    assert isinstance(result.exception, _StopBeforeRunError), result.output
    (opts,) = seen
    assert opts.out.as_posix() == "runs/gencolor-diagnostic/css3" and opts.model == "reference:none"
    assert opts.benchmark_options == {
        "system": "css3",
        "quick": True,
        "size": None,  # the benchmark's default: from --quick
        "spp": None,
        "family": "analytic",
        "scorer": "huebench",
        "candidate_rule": "same",
        "scorer_options": None,  # the scorer's own settings: none changed
        "scorer_workers": None,  # every core; not part of the run's identity
    }


def test_unknown_and_missing_flags_are_usage_errors(tmp_path):
    result = CliRunner().invoke(app, ["gencolor", "score", "--out", str(tmp_path), "--imags", str(tmp_path)])
    assert result.exit_code == 2 and "No such option: --imags" in result.output
    result = CliRunner().invoke(app, ["gencolor", "generate", "-m", "reference:random"])
    assert result.exit_code == 2 and "Missing option '--images'" in result.output
    result = CliRunner().invoke(app, ["gencolor", "score", "--out", str(tmp_path), "--images", "x", "--n", "four"])
    assert result.exit_code == 2 and "'--n'" in result.output


def test_the_flags_are_made_when_the_command_is_used_not_at_start():
    """Building every command (as each `huebench` invocation does) imports no benchmark module:
    the flags come from the benchmark when its command parses or shows help."""
    code = (
        "import sys, typer; from huebench.cli import app; typer.main.get_command(app); "
        "print(json.dumps([m for m in ('huebench.benchmarks.gencolor.benchmark', 'numba') if m in sys.modules]))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-c", "import json; " + code], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_score_with_missing_images_says_so_and_exits_1(tmp_path):
    from huebench.testing.data import make_gencolor_images

    opts = make_gencolor_images(tmp_path / "g")  # 10 prompts × 2 images; --n 4 asks for 40
    out = tmp_path / "run"
    args = ["gencolor", "score", "--prompts", opts["prompts"], "--images", opts["images"], "--masks", opts["masks"]]
    result = CliRunner().invoke(app, [*args, "--n", "4", "--out", str(out)])
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert "20 of 40 images judged (0 not judged, 20 failed" in text
    # twenty reasons that differ only in their path are one kind of failure, shown once with a count
    assert "most common (20×): image " in text and "missing" in text and "(and 19 like it)" in text
    assert f"report: {out / 'report.html'}" in text


@pytest.mark.parametrize("command", ["score", "diagnose"])
def test_progress_can_be_turned_off_on_gencolor_commands(command, tmp_path, capfd):
    from huebench.testing.data import make_gencolor_images

    if command == "score":
        opts = make_gencolor_images(tmp_path / "g")
        args = ["gencolor", "score", "--prompts", opts["prompts"], "--images", opts["images"], "--n", "2"]
    else:
        args = ["gencolor", "diagnose", "--quick", "--family", "analytic", "--limit", "3"]
    for flag, shown in (("--no-progress", False), ("--progress", True)):
        out = tmp_path / f"{command}{flag}"
        result = CliRunner().invoke(app, [*args, "--out", str(out), flag])
        assert result.exit_code == 0, result.output
        err = capfd.readouterr().err + result.output
        assert ("samples (" in err) is shown, err  # the plain progress lines ("N/M samples (…%)")


def test_gencolorbench_refuses_unknown_tasks_systems_bad_thresholds_and_no_images(tmp_path):
    from huebench.benchmarks.base import get_benchmark
    from huebench.errors import HuebenchError
    from huebench.models.registry import load_model
    from huebench.testing.data import make_gencolor_images

    opts = make_gencolor_images(tmp_path / "g")
    bench = get_benchmark("gencolorbench")
    with pytest.raises(HuebenchError, match=r"unknown task 'xyz': use cna, coa, moc, ica, ncu"):
        bench(images=opts["images"], tasks=["cna", "xyz"])
    with pytest.raises(HuebenchError, match=r"unknown colour system 'css4'.*Did you mean 'css3'"):
        bench(images=opts["images"], systems=["css4"])
    with pytest.raises(HuebenchError, match="scorer thresholds must be positive"):
        bench(images=opts["images"], prompts=opts["prompts"], hue_threshold=-1).scorer("css3")
    empty = tmp_path / "empty"
    empty.mkdir()
    for folder, why in ((empty, "empty"), (tmp_path / "nowhere", "no such folder")):
        with pytest.raises(HuebenchError, match=f"--images {folder}: {why}: there are no images to score"):
            bench(images=str(folder)).check_model(load_model("none"))
    assert bench(images=opts["images"]).check_model(load_model("none")) is None
