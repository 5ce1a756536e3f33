import json
import subprocess
import sys

from typer.testing import CliRunner

from huebench import __version__
from huebench.cli import app

runner = CliRunner()


def test_version_and_help():
    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output.strip() == f"huebench {__version__}"
    r = runner.invoke(app, ["--help"])
    assert r.exit_code == 0
    for group in ("run", "list", "report", "color", "rainbow", "coda", "colorswap", "gencolor"):
        assert group in r.output


def test_color_show_json():
    r = runner.invoke(app, ["color", "show", "light sea-green", "--json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.output)
    assert info["hex"] == "#20B2AA" and info["rgb"] == [32, 178, 170] and info["name"] == "LightSeaGreen"
    assert info["lab"] == [65.7877, -37.5071, -6.3258]
    assert set(info["nearest"]) == {"css3", "basic", "iscc-nbs-l1", "iscc-nbs-l2", "iscc-nbs-l3"}
    assert info["nearest"]["css3"]["name"] == "LightSeaGreen" and info["nearest"]["css3"]["delta_e00"] == 0.0
    assert info["nearest"]["iscc-nbs-l2"]["name"] == "Bluish green"


def test_color_show_table():
    r = runner.invoke(app, ["color", "show", "#ff8800"])
    assert r.exit_code == 0 and "#FF8800" in r.output and "nearest iscc-nbs-l3" in r.output


def test_color_diff_json_and_gated_hue():
    r = runner.invoke(app, ["color", "diff", "red", "#ff8800", "--json"])
    info = json.loads(r.output)
    assert info["delta_e00"] == 23.7372 and info["delta_e76"] == 44.7274
    assert info["delta_hue"] > 0
    r = runner.invoke(app, ["color", "diff", "gray", "red", "--json"])
    assert json.loads(r.output)["delta_hue"] is None
    r = runner.invoke(app, ["color", "diff", "gray", "red"])
    assert "near-achromatic" in r.output


def test_console_script_reports_user_errors_without_traceback():
    proc = subprocess.run(
        [sys.executable, "-c", "from huebench.cli import main; main()", "color", "show", "redd"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "Did you mean 'Red'" in proc.stderr and "Traceback" not in proc.stderr


def test_list_systems_json():
    r = runner.invoke(app, ["list", "systems", "--json"])
    sizes = {row["name"]: row["size"] for row in json.loads(r.output)}
    assert sizes == {"css3": 147, "basic": 11, "iscc-nbs-l1": 13, "iscc-nbs-l2": 29, "iscc-nbs-l3": 260}
