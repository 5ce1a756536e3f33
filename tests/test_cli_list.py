"""`huebench list`: in a log or a pipe whole lines, nothing cut to a width; in a terminal every
column whole or wrapped between words."""

import json
import re

import pytest
from typer.testing import CliRunner

from huebench.cli import app
from huebench.models.registry import entries


def test_list_models_piped_prints_whole_aliases_and_notes():
    r = CliRunner().invoke(app, ["list", "models"])  # stdout is not a terminal here
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("alias ") and " source " in lines[0] and lines[0].endswith(" notes")
    rows = {line.split()[0]: line for line in lines[1:]}
    for e in entries():
        assert e.alias in rows, e.alias  # every alias whole, first on its line
        line = rows[e.alias]
        assert e.source in line and (not e.notes or e.notes in line)  # notes whole, never cut at 60
    assert "…" not in r.output and max(map(len, lines)) > 80


def _terminal_listing(cli, monkeypatch, width: int, *args: str) -> list[str]:
    """``huebench list ARGS`` as a terminal of ``width`` columns shows it, without colour codes."""
    import re
    import sys

    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = cli("list", *args)
    assert code == 0, err
    return re.sub(r"\x1b\[[0-9;]*m", "", out).splitlines()


@pytest.mark.parametrize("width", [80, 100, 150, 200, 260])
def test_list_models_in_a_terminal_shows_every_column_whole_or_wrapped(cli, monkeypatch, width):
    lines = _terminal_listing(cli, monkeypatch, width, "models")
    text = "\n".join(lines)
    assert max(map(len, lines)) <= width and "…" not in text
    cells = [re.split(r"[│┃]|\s{2,}", line) for line in lines]
    words = {w.strip(" ,;") for row in cells for cell in row for w in cell.split()}
    for e in entries():
        assert any(e.alias in [c.strip() for c in row] for row in cells), e.alias  # an alias is never broken
        assert e.source in text, e.source  # a hub id is never broken across lines
        for word in [*(c.value for c in e.capabilities), *e.notes.split()]:
            assert word.strip(" ,;") in words, (e.alias, word)  # wrapped between words, never cut


def test_list_options_leaves_out_internal_options(cli, monkeypatch):
    from huebench.benchmarks import base
    from huebench.benchmarks.base import Benchmark, register_benchmark
    from huebench.errors import UnknownNameError

    monkeypatch.setattr(base, "_CLASSES", dict(base._CLASSES))

    @register_benchmark("with-a-record")
    class WithRecord(Benchmark):
        internal_options = ("scorer_config",)

        def __init__(self, seed: int = 0, threshold: float = 1.0, scorer_config: dict | None = None, **options):
            super().__init__(seed=seed, threshold=threshold, scorer_config=scorer_config, **options)

        def samples(self):
            return []

        def evaluate(self, samples, model, ctx):
            return []

        def metrics(self, records):
            return {}

    for args in (("options", "with-a-record"), ("options", "with-a-record", "--json")):
        code, out, _ = cli("list", *args)
        assert code == 0 and "threshold" in out and "scorer_config" not in out
    assert [r["name"] for r in json.loads(cli("list", "options", "with-a-record", "--json")[1])] == ["threshold"]
    # config.json's record is still read back (--resume, rescore), and never offered as a setting
    assert WithRecord.check_options({"scorer_config": {"k": 3}}) == {"scorer_config": {"k": 3}}
    with pytest.raises(UnknownNameError) as exc:
        WithRecord.check_options({"scorer_confg": 1})
    assert "it takes threshold (as -o" in str(exc.value) and "scorer_config" not in str(exc.value)


@pytest.mark.parametrize("bench", ["gencolorbench", "gencolor-diagnostic"])
def test_gencolorbench_does_not_offer_its_scorer_record_as_an_option(cli, bench):
    code, out, _ = cli("list", "options", bench, "--json")
    names = [r["name"] for r in json.loads(out)]
    assert code == 0 and "scorer" in names and "scorer_config" not in names
