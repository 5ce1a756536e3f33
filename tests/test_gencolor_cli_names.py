"""`huebench gencolor` refuses a misspelt family, system or scorer in one line with a did-you-mean, before any work."""

import pytest


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ("diagnose", "--family", "mitsuab"),
            "--family mitsuab: 'mitsuab' is not an image family. Did you mean 'mitsuba'?",
        ),
        (("diagnose", "--family", "analytic,textred"), "'textred' is not an image family. Did you mean 'textured'?"),
        (
            ("diagnose", "--scorer", "huebnch"),
            "--scorer huebnch: 'huebnch' is not a scorer. Did you mean 'huebench' or 'huebench-rules'?",
        ),
        (
            ("diagnose", "--system", "css"),
            "--system css: 'css' is not a system the diagnostic covers. Did you mean 'css3'? Use iscc-nbs-l2 or css3",
        ),
        (
            ("score", "--images", ".", "--scorer", "papr"),
            "'papr' is not a scorer. Did you mean 'paper'? Use huebench or huebench-rules or paper",
        ),
        (("score-image", "x.png", "--target", "red", "--scorer", "papr"), "Did you mean 'paper'?"),
    ],
)
def test_misspelt_family_or_scorer_gets_a_did_you_mean(cli, tmp_path, args, expected):
    out = tmp_path / "run"
    extra = () if args[0] == "score-image" else ("--out", out)
    code, stdout, err = cli("gencolor", *args, *extra)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and expected in lines[0], err
    assert not out.exists()  # refused before anything ran


def test_the_family_error_lists_what_there_is(cli, tmp_path):
    code, _, err = cli("gencolor", "diagnose", "--family", "zzz", "--out", tmp_path / "run")
    line = " ".join(err.split())
    assert code == 2 and "Did you mean" not in line  # nothing is close
    assert "Use all, or any of mitsuba, analytic, processed, textured, illuminant, " in line
    assert (
        "(comma-separated; held out of all: recolored, microfacet, illustrated, stylized, tonemapped, camera, rendered, graded, looks, finishes, encodings, filters, optics, bounce, translucent, product, reflections, composited, backdrops, gels)"
        in line
    )


def test_all_may_be_listed_with_held_out_families_and_a_family_counts_once(cli, tmp_path):
    from huebench.benchmarks.gencolor.families import FAMILIES, family_list

    assert family_list("all,stylized") == (*FAMILIES, "stylized")
    assert family_list("illustrated, illustrated,stylized") == ("illustrated", "stylized")
    assert family_list("analytic,all") == ("analytic", "mitsuba", "processed", "textured", "illuminant")
    out = tmp_path / "run"
    code, text, err = cli(
        "gencolor", "diagnose", "--quick", "--family", "stylized,stylized", "--limit", "3", "--out", out
    )
    assert code == 0, err
    assert "stylized" in text and "worst family" not in text  # one family has no worst
    assert len((out / "records.jsonl").read_text().splitlines()) == 3


def test_a_diagnosis_whose_every_sample_failed_ends_with_one_summary(cli, tmp_path, monkeypatch):
    # without Mitsuba every render fails: each failure is recorded with its reason, the summary
    # says n/a where nothing was scored (it crashed on formatting None), and the exit code is 1
    from huebench.benchmarks.gencolor import render
    from huebench.errors import HuebenchError

    def no_mitsuba() -> None:
        raise HuebenchError("renders need Mitsuba 3: bash scripts/install.sh render (pip install mitsuba)")

    monkeypatch.setattr(render, "_mitsuba", no_mitsuba)
    out = tmp_path / "run"
    code, stdout, err = cli("gencolor", "diagnose", "--quick", "--family", "rendered", "--limit", "2", "--out", out)
    text = " ".join((stdout + err).split())
    assert code == 1 and "internal error" not in text and "Traceback" not in text, text
    assert "accuracy n/a with exact masks, n/a with offline segmentation" in text
    assert "far-colour false accepts n/a — n = 0" in text and "2 failed" in text and "renders need Mitsuba 3" in text
    assert (out / "report.html").exists()
