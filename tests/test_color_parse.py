import numpy as np
import pytest

from huebench import color
from huebench.errors import ColorSpecError, HuebenchError, UnknownNameError


@pytest.mark.parametrize(
    ("spec", "hex_"),
    [
        ("red", "#FF0000"),
        ("Light Sea-Green", "#20B2AA"),
        ("light_sea_green", "#20B2AA"),
        ("grey", "#808080"),
        ("GRAY", "#808080"),
        ("dark slate grey", "#2F4F4F"),
        ("#f80", "#FF8800"),
        ("#FF8800", "#FF8800"),
        ("  #ff8800 ", "#FF8800"),
        ("rgb(255, 136, 0)", "#FF8800"),
        ("RGB(255 136 0)", "#FF8800"),
        ("rgb(100%, 0%, 50%)", "#FF0080"),
        ("iscc-nbs-l2:red", "#B92842"),
        ("L3: vivid pink", "#FD7992"),
        ("basic:gray", "#938E93"),
        ("Vivid purplish red", "#DD2388"),  # only in ISCC-NBS L3
        ((255, 136, 0), "#FF8800"),
        ([1.0, 0.5, 0.0], "#FF8000"),
        (np.array([255, 136, 0], dtype=np.uint8), "#FF8800"),
        (np.array([1.0, 0.0, 0.0]), "#FF0000"),
    ],
)
def test_parse_valid(spec, hex_):
    assert color.parse(spec).hex == hex_


def test_parse_records_name_and_system():
    c = color.parse("iscc-nbs-l2:Reddish orange")
    assert (c.name, c.system, c.rgb) == ("Reddish orange", "iscc-nbs-l2", (215, 71, 42))
    assert color.parse("red", system="basic").rgb == (185, 40, 66)
    assert color.parse(color.load_system("css3")["Tomato"]).name == "Tomato"
    c2 = color.parse(c)
    assert c2 is c


def test_parse_values_and_lab():
    c = color.parse("rgb(10%, 20, 30)")
    assert c.srgb == pytest.approx((0.1, 20 / 255, 30 / 255))
    assert np.allclose(c.lab, color.srgb_to_lab(np.array(c.srgb)))
    assert c.lch[1] == pytest.approx(np.hypot(c.lab[1], c.lab[2]))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("redd", r"unknown colour name 'redd'.*Did you mean 'Red'"),
        ("lightseagren", r"Did you mean 'LightSeaGreen'"),
        ("Vivid pnk", r"Did you mean 'Vivid pink'"),
        ("blurple-ish zzz", r"unknown colour name .* Use '#rrggbb'"),
        ("css3:vivid pink", r"not in the css3 system"),
        ("pantone:red", r"unknown colour system 'pantone'"),
        ("#ff00", r"expected '#rgb' or '#rrggbb'"),
        ("#gggggg", r"expected '#rgb' or '#rrggbb'"),
        ("rgb(300, 0, 0)", r"r = 300 .* out of range: rgb\(\) numbers must be 0-255"),
        ("rgb(0, 120%, 0)", r"g = 120% .* percentages must be 0%-100%"),
        ("rgb(1, 2)", r"expected 'rgb\(r, g, b\)' with three numbers"),
        ("rgb(a, b, c)", r"expected 'rgb\(r, g, b\)'"),
        ("", r"empty colour specification"),
        ((256, 0, 0), r"r = 256 is out of range: integer components are 8-bit values 0-255"),
        ((0, -1, 0), r"g = -1 is out of range"),
        ((0.0, 0.0, 1.5), r"b = 1.5 is out of range: float components are in 0.0-1.0"),
        ((1, 2), r"exactly 3 components"),
        (np.zeros((2, 3)), r"exactly 3 components"),
        ((float("nan"), 0.0, 0.0), r"finite"),
        (("a", "b", "c"), r"must be numbers"),
        (3.5, r"cannot read a colour from a float"),
    ],
)
def test_parse_errors_are_specific(spec, message):
    with pytest.raises(HuebenchError, match=message) as info:
        color.parse(spec)
    assert isinstance(info.value, ValueError)


def test_error_types():
    with pytest.raises(UnknownNameError):
        color.parse("notacolour")
    with pytest.raises(ColorSpecError):
        color.parse("#12")
