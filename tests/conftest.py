"""Shared test helpers: where the reference data lives, and skipping when it is absent."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHARED_DATA = Path(os.environ.get("HUEBENCH_SHARED_DATA", ROOT.parent / "shared" / "data"))


def load_perf_script(name: str) -> Any:
    """A script of perf/ (``name`` without .py) loaded as a module, not registered in sys.modules."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "perf" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data``; the test is skipped with a clear message when it is not there."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"reference data not found at {SHARED_DATA} (set HUEBENCH_SHARED_DATA to run this check)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """``tiny("bert")`` → folder of a tiny random model of that family, built once per session."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from huebench.testing.tiny import build

    built: dict[str, Path] = {}

    def get(family: str) -> Path:
        if family not in built:
            built[family] = build(family, tmp_path_factory.mktemp(f"tiny-{family}"))
        return built[family]

    return get


@pytest.fixture(scope="session")
def load_tiny(tiny):
    """``load_tiny("clip", batch_size=2)`` → the adapter loaded through the real ``hf:``/``diffusers:`` path."""
    from huebench.models.registry import load_model

    def get(family: str, **options):
        prefix = "diffusers" if family == "stable-diffusion" else "hf"
        return load_model(f"{prefix}:{tiny(family)}", **options)

    return get


@pytest.fixture
def cli(monkeypatch, capsys):
    """Run ``huebench ARGS`` in this process through the console entry point; (status, stdout, stderr)."""
    import huebench.cli._errors as errors
    from huebench.cli import main

    def invoke(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(errors, "DEBUG", False)
        monkeypatch.setattr(sys, "argv", ["huebench", *map(str, args)])
        capsys.readouterr()  # what fixtures printed while they were built (a tiny model's save) is not the command's
        with pytest.raises(SystemExit) as stop:
            main()
        captured = capsys.readouterr()
        code = stop.value.code
        return (code if isinstance(code, int) else 0 if code is None else 1), captured.out, captured.err

    return invoke
