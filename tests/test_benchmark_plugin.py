"""Benchmarks register themselves: built-ins by ``@register_benchmark`` (found without importing
them), third-party ones through the ``huebench.benchmarks`` entry-point group, and a plugin's own
command group through ``huebench.cli``.

The plugin in ``tests/fixtures/plugin_benchmark/`` is installed offline (``pip --no-index
--no-build-isolation``) into a temporary folder and run through the ``huebench`` command in a
subprocess that has that folder on its path: nothing in huebench names it.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import huebench
from huebench.benchmarks import base
from huebench.benchmarks.base import Benchmark, get_benchmark, list_benchmarks, register, register_benchmark
from huebench.errors import HuebenchError, UnknownNameError

PLUGIN = Path(__file__).resolve().parent / "fixtures" / "plugin_benchmark"
HUEBENCH_ROOT = Path(huebench.__file__).resolve().parents[1]  # the huebench these tests import


# ---------------------------------------------------------------- the installed plugin
@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory) -> Path:
    """The plugin, built and installed without network into a fresh folder (not on this process's path)."""
    work = tmp_path_factory.mktemp("plugin")
    source = work / "src"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = work / "site"
    # the setuptools already installed builds it (no build isolation, no index: no network)
    pip = ["pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "--quiet", "--target", str(target)]
    proc = subprocess.run(
        [sys.executable, "-m", *pip, str(source)],
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert any(target.glob("huebench_primaries-*.dist-info/entry_points.txt"))
    return target


def huebench_cmd(site: Path | None, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    path = [str(site)] if site else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(HUEBENCH_ROOT)]), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-c", "from huebench.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def test_plugin_benchmark_runs_without_any_change_to_huebench(plugin_path, tmp_path):
    out = tmp_path / "run"
    proc = huebench_cmd(
        plugin_path, "run", "primaries", "-m", "reference:random", "--out", str(out), "--no-cache", "--no-progress",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["n"] == 4 and results["n_failed"] == 0 and results["benchmark"] == "primaries"
    assert set(results["metrics"]) == {"accuracy", "chance"}
    assert results["metrics"]["chance"] == 0.25
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in records) == ["blue", "green", "red", "yellow"]
    assert all(len(r["scores"]) == 4 and r["reason"] for r in records)

    # its typed options: a value of the wrong type and a misspelt name are one-line errors (exit 2)
    bad = huebench_cmd(plugin_path, "run", "primaries", "-m", "reference:random", "--size", "big", cwd=tmp_path)
    assert bad.returncode == 2 and "option 'size' expects an integer" in bad.stderr
    typo = huebench_cmd(plugin_path, "run", "primaries", "-m", "reference:random", "--colours", "red", cwd=tmp_path)
    assert typo.returncode == 2 and "Did you mean 'colors'" in typo.stderr
    # its options reach it: two colours, two samples
    two = tmp_path / "two"
    proc = huebench_cmd(
        plugin_path, "run", "primaries", "-m", "reference:random", "--colors", "red,blue", "--out", str(two),
        "--no-cache", "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads((two / "results.json").read_text())["n"] == 2
    # rescore needs the benchmark class too: found the same way
    proc = huebench_cmd(plugin_path, "rescore", str(out), "--check", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_plugin_is_listed_with_its_options(plugin_path, tmp_path):
    proc = huebench_cmd(plugin_path, "list", "benchmarks", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert rows["primaries"]["source"] == "huebench-primaries"
    assert rows["primaries"]["capabilities"] == ["image-text-score"]
    assert rows["colornames"]["source"] == "huebench"
    table = huebench_cmd(plugin_path, "list", "benchmarks", cwd=tmp_path)
    assert table.returncode == 0 and "primaries" in table.stdout and "huebench-primaries" in table.stdout

    proc = huebench_cmd(plugin_path, "list", "options", "primaries", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    options = {r["name"]: r for r in json.loads(proc.stdout)}
    assert options["colors"] == {"name": "colors", "type": "str", "default": "red,green,blue,yellow"}
    assert options["size"] == {"name": "size", "type": "int", "default": 32}
    table = huebench_cmd(plugin_path, "list", "options", "primaries", cwd=tmp_path)
    assert table.returncode == 0 and "colors" in table.stdout and "size" in table.stdout


def test_plugin_command_group(plugin_path, tmp_path):
    proc = huebench_cmd(plugin_path, "primaries", "colors", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["red"] == [220, 30, 30]
    helped = huebench_cmd(plugin_path, "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "primaries" in helped.stdout and "rainbow" in helped.stdout
    # without the plugin on the path, neither the benchmark nor the group exists
    missing = huebench_cmd(None, "primaries", "colors", cwd=tmp_path)
    assert missing.returncode == 2 and "No such command 'primaries'" in missing.stderr
    missing = huebench_cmd(None, "list", "options", "primaries", cwd=tmp_path)
    assert missing.returncode == 2 and "unknown benchmark 'primaries'" in missing.stderr


# ---------------------------------------------------------------- the registry, in process
def _huebench_benchmark_classes() -> dict[str, type[Benchmark]]:
    """Every concrete Benchmark subclass defined in huebench's own benchmark modules (all imported)."""
    import huebench.benchmarks as pkg

    for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}."):
        importlib.import_module(info.name)
    out: dict[str, type[Benchmark]] = {}
    stack = list(Benchmark.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("huebench.benchmarks.") and not inspect.isabstract(cls):
            out[f"{cls.__module__}:{cls.__qualname__}"] = cls
    return out


def test_every_builtin_benchmark_is_decorated_and_found_without_import():
    classes = _huebench_benchmark_classes()
    index = base.builtin_benchmarks()
    assert sorted(index.values()) == sorted(classes)  # the source scan sees exactly the concrete classes
    for name, target in index.items():
        assert classes[target].name == name
        assert get_benchmark(name) is classes[target]
    assert set(index) <= set(list_benchmarks())
    assert {"colornames", "rainbow", "coda", "colorswap", "gencolorbench"} <= set(index)


def test_option_help_describes_only_options():
    """An ``option_help`` entry whose name is no option (renamed or removed) is stale."""
    for target, cls in _huebench_benchmark_classes().items():
        described = {name for klass in cls.__mro__ for name in vars(klass).get("option_help", {})}
        assert described <= set(cls.option_specs()), (target, sorted(described - set(cls.option_specs())))


@pytest.fixture
def clean_registry(monkeypatch):
    monkeypatch.setattr(base, "_CLASSES", dict(base._CLASSES))
    monkeypatch.setattr(base, "_TARGETS", dict(base._TARGETS))


class _Tiny(Benchmark):
    description = "test"

    def samples(self):
        return []

    def evaluate(self, samples, model, ctx):
        return []

    def metrics(self, records):
        return {}


def test_register_benchmark_decorator(clean_registry):
    @register_benchmark("tiny-test")
    class Tiny(_Tiny):
        pass

    assert Tiny.name == "tiny-test"
    assert get_benchmark("tiny-test") is Tiny and get_benchmark(" Tiny-Test ") is Tiny
    assert "tiny-test" in list_benchmarks() and base.benchmark_source("tiny-test") == "registered"

    with pytest.raises(ValueError, match="whose name is 'other'"):

        @register_benchmark("tiny-2")
        class Named(_Tiny):
            name = "other"

    with pytest.raises(TypeError, match="Benchmark subclass"):
        register_benchmark("tiny-3")(dict)
    with pytest.raises(ValueError, match="lower-case letters"):
        register_benchmark("has space")
    with pytest.raises(ValueError, match="huebench's own"):

        @register_benchmark("rainbow")
        class Impostor(_Tiny):
            pass

    assert get_benchmark("rainbow").__module__ == "huebench.benchmarks.rainbow.benchmark"


def test_register_by_import_path_still_works(clean_registry, monkeypatch):
    module = SimpleNamespace(Later=type("Later", (_Tiny,), {}))
    monkeypatch.setitem(sys.modules, "hb_test_later", module)
    register("later", "hb_test_later:Later")
    assert get_benchmark("later") is module.Later and module.Later.name == "later"
    register("broken", "hb_test_later:Missing")
    with pytest.raises(HuebenchError, match=r"benchmark 'broken' \(registered 'hb_test_later:Missing'\) could not"):
        get_benchmark("broken")
    register("direct", type("Direct", (_Tiny,), {}))
    assert get_benchmark("direct").name == "direct"


def test_entry_point_failures_are_one_line_errors(clean_registry, monkeypatch):
    def boom():
        raise ModuleNotFoundError("No module named 'missing_dep'")

    eps = {
        "broken": SimpleNamespace(name="broken", value="pkg.mod:Broken", load=boom, dist=None),
        "notabench": SimpleNamespace(name="notabench", value="pkg.mod:thing", load=lambda: 42, dist=None),
        "misnamed": SimpleNamespace(
            name="misnamed", value="pkg.mod:X", load=lambda: type("X", (_Tiny,), {"name": "x"}), dist=None
        ),
        "rainbow": SimpleNamespace(name="rainbow", value="pkg.mod:Rainbow", load=boom, dist=None),
    }
    monkeypatch.setattr(base, "_entry_points", lambda: eps)
    with pytest.raises(HuebenchError, match=r"entry point 'pkg.mod:Broken'.*ModuleNotFoundError: No module named"):
        get_benchmark("broken")
    with pytest.raises(HuebenchError, match="not a huebench Benchmark subclass"):
        get_benchmark("notabench")
    with pytest.raises(HuebenchError, match="whose name is 'x'"):
        get_benchmark("misnamed")
    assert get_benchmark("rainbow").__module__ == "huebench.benchmarks.rainbow.benchmark"  # built-in wins
    assert base.benchmark_source("rainbow") == "huebench" and base.benchmark_source("broken") == "pkg"
    with pytest.raises(UnknownNameError, match="Did you mean 'broken'"):
        get_benchmark("brokn")


# ---------------------------------------------------------------- the command stays light
def test_cli_import_is_light():
    code = (
        "import sys, huebench.cli; "
        "print([m for m in ('torch', 'transformers', 'diffusers', 'numba') if m in sys.modules])"
    )
    env = {**os.environ, "PYTHONPATH": str(HUEBENCH_ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_benchmark_command_groups_live_in_their_folders():
    from huebench.benchmarks.gencolor import cli as gencolor_cli
    from huebench.benchmarks.gencolor import scoring
    from huebench.cli import app, benchmark_cli_modules

    assert benchmark_cli_modules() == [
        f"huebench.benchmarks.{n}.cli" for n in ("coda", "colorbench", "colorswap", "gencolor", "rainbow")
    ]
    groups = {g.name for g in app.registered_groups}
    assert {"coda", "colorbench", "colorswap", "gencolor", "rainbow", "color", "list"} <= groups
    # score-image's help shows the scorer's default k without loading the colour core: they must agree
    assert gencolor_cli.DEFAULT_K == scoring.DEFAULT_K
