"""`huebench list models` in a log or a pipe: whole lines, nothing cut to a width."""

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
