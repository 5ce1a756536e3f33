"""Open VLM answers mapped to a colour system's names (huebench/benchmarks/known_colors/answers.py)."""

import pytest

from huebench.benchmarks.known_colors.answers import parse_answer, spoken
from huebench.color import load_system

#: (answer, basic, iscc-nbs-l2, css3): the name each system's run records; None: no colour named
CORPUS = [
    ("It's a light blue mug", "blue", "Blue", "LightBlue"),
    ("dark-red", "red", "Red", "DarkRed"),
    ("grey/gray", "gray", "Gray", "Gray"),
    ("I can't tell", None, None, None),
    ("The cup is blue, the background is white", "blue", "Blue", "Blue"),
    ("The background is white and the cup is blue", "blue", "Blue", "Blue"),
    ("White background with a blue cup", "blue", "Blue", "Blue"),
    ("The light is warm orange, the cup is white", "white", "White", "White"),
    ("not red, it's orange", "orange", "Orange", "Orange"),
    ("Reddish.", "red", "Red", "Red"),
    ("bluish green", "green", "Bluish green", "Green"),
    ("a red-orange cup", "orange", "Reddish orange", "Orange"),
    ("The cup is a deep navy blue", "blue", "Blue", "Blue"),
    ("It looks Light Sea-Green to me", "green", "Green", "LightSeaGreen"),
    ("The object appears to be a vivid yellowish pink.", "pink", "Yellowish pink", "Pink"),
    ("BLUE", "blue", "Blue", "Blue"),
    ("I can't tell exactly, maybe red", "red", "Red", "Red"),
    ("The background is white.", None, None, None),
    ("yes", None, None, None),
    ("", None, None, None),
]


@pytest.mark.parametrize(("answer", "basic", "l2", "css3"), CORPUS)
def test_tricky_answers(answer, basic, l2, css3):
    got = {s: parse_answer(answer, s, noun="cup").name for s in ("basic", "iscc-nbs-l2", "css3")}
    # css3 names one colour twice (Gray/Grey): compare by colour there
    css = load_system("css3")
    css_rgb = None if got["css3"] is None else css.get(got["css3"]).rgb
    assert (got["basic"], got["iscc-nbs-l2"]) == (basic, l2)
    assert css_rgb == (None if css3 is None else css.get(css3).rgb)


def test_phrases_and_reasons_are_recorded():
    a = parse_answer("It's a light blue mug", "basic", noun="mug")
    assert (a.phrase, a.name) == ("light blue", "blue") and "modifies" in a.why
    refusal = parse_answer("I cannot determine the colour.", "basic")
    assert refusal.name is None and "declines" in refusal.why
    background = parse_answer("The background is white.", "basic", noun="vase")
    assert background.name is None and "surroundings" in background.why


def test_names_outside_the_system_go_to_the_nearest_by_ciede2000():
    # navy (#000080) is nearer basic black than basic blue by CIEDE2000; a hex code is read too
    assert parse_answer("navy", "basic").name == "black"
    assert "nearest basic colour to css3 'Navy'" in parse_answer("navy", "basic").why
    assert parse_answer("It is #1e90ff", "css3").name == "DodgerBlue"
    assert parse_answer("#B92842", "basic").name == "red"  # basic red's own code
    # pure #ff0000 lies nearer basic orange than basic red (a crimson, #B92842) by CIEDE2000
    assert parse_answer("#ff0000", "basic").name == "orange" == load_system("basic").nearest("#ff0000")[0].color.name


def test_spoken_names():
    assert spoken("LightSeaGreen") == "light sea green"
    assert spoken("Yellowish pink") == "yellowish pink"
    assert spoken("gray") == "gray"
