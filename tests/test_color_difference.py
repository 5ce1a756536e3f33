import csv
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from huebench import color
from tests.conftest import FIXTURES

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import colour


def _sharma_fixture():
    lines = [ln for ln in (FIXTURES / "sharma2005_ciede2000.csv").read_text().splitlines() if not ln.startswith("#")]
    rows = list(csv.DictReader(lines))
    lab1 = np.array([[float(r[k]) for k in ("L1", "a1", "b1")] for r in rows])
    lab2 = np.array([[float(r[k]) for k in ("L2", "a2", "b2")] for r in rows])
    return lab1, lab2, np.array([float(r["dE00"]) for r in rows])


def test_sharma_2005_pairs_embedded_fixture():
    lab1, lab2, expected = _sharma_fixture()
    assert len(expected) == 34
    assert np.abs(color.delta_e(lab1, lab2) - expected).max() < 1e-4
    assert np.abs(color.delta_e(lab2, lab1) - expected).max() < 1e-4


def test_sharma_2005_pairs_from_shared_data(shared_data):
    rows = [
        ln.split()
        for ln in (shared_data / "ciede2000" / "sharma2005_ciede2000.txt").read_text().splitlines()
        if ln.strip() and not ln.startswith(("#", "%"))
    ]
    assert len(rows) == 34
    lab1 = np.array([[float(r[i]) for i in (2, 3, 4)] for r in rows])
    lab2 = np.array([[float(r[i]) for i in (17, 18, 19)] for r in rows])
    expected = np.array([float(r[15]) for r in rows])  # column 15: dE
    assert np.abs(color.delta_e(lab1, lab2) - expected).max() < 1e-4
    # the embedded fixture carries the same numbers
    f1, f2, fe = _sharma_fixture()
    assert np.array_equal(f1, lab1) and np.array_equal(f2, lab2) and np.array_equal(fe, expected)


def test_ciede2000_and_cie76_match_colour_science_with_parametric_factors():
    rng = np.random.default_rng(7)
    lab1 = np.column_stack([rng.uniform(0, 100, 3000), rng.uniform(-100, 100, 3000), rng.uniform(-100, 100, 3000)])
    lab2 = lab1 + rng.normal(0, 15, lab1.shape)
    assert np.abs(color.delta_e(lab1, lab2) - colour.delta_E(lab1, lab2, method="CIE 2000")).max() < 1e-9
    ours = color.delta_e(lab1, lab2, kL=2.0, kC=1.5, kH=0.7)
    ref = colour.difference.delta_E_CIE2000(lab1, lab2, textiles=False)
    assert not np.allclose(ours, ref)  # the factors do something
    # colour-science's textiles flag is kL=2, kC=kH=1
    assert (
        np.abs(color.delta_e(lab1, lab2, kL=2.0) - colour.difference.delta_E_CIE2000(lab1, lab2, textiles=True)).max()
        < 1e-9
    )
    assert (
        np.abs(color.delta_e(lab1, lab2, method="cie76") - colour.delta_E(lab1, lab2, method="CIE 1976")).max() < 1e-9
    )


def test_ciede2000_broadcasts_and_handles_achromatic_pairs():
    grays = np.array([[50.0, 0.0, 0.0], [60.0, 0.0, 0.0]])
    d = color.delta_e(grays[:, None, :], grays[None, :, :])
    assert d.shape == (2, 2) and d[0, 0] == 0.0 and d[0, 1] > 0
    assert np.isfinite(color.delta_e([50, 0, 0], [50, 10, -10]))


def test_unknown_method_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown delta_e method 'cie94'"):
        color.delta_e([50, 0, 0], [50, 1, 1], method="cie94")  # type: ignore[arg-type]


def test_delta_chroma_ignores_lightness():
    assert color.delta_chroma([10, 3, 4], [90, 0, 0]) == pytest.approx(5.0)


def test_delta_hue_wraps_and_gates_by_chroma():
    red = color.lch_to_lab([50, 40, 350])
    orange = color.lch_to_lab([50, 40, 10])
    assert color.delta_hue(red, orange) == pytest.approx(20.0)
    gray = [50.0, 1.0, 1.0]
    assert color.delta_hue(red, gray) == 0.0  # documented neutral value
    assert np.isnan(color.delta_hue(red, gray, neutral=np.nan))
    assert color.delta_hue(red, gray, chroma_threshold=1.0) > 0  # gate lowered: hue counts again
    opp = color.lch_to_lab([50, 40, 170])
    assert color.delta_hue(red, opp) == pytest.approx(180.0)


lab_elems = st.floats(-100, 100, allow_nan=False)
lab_pairs = arrays(np.float64, (8, 3), elements=lab_elems)


@settings(max_examples=200, deadline=None)
@given(lab_pairs, lab_pairs)
def test_metrics_are_symmetric_non_negative_and_zero_on_identity(a, b):
    a = a.copy()
    b = b.copy()
    a[:, 0] = np.abs(a[:, 0])
    b[:, 0] = np.abs(b[:, 0])
    for fn in (
        lambda x, y: color.delta_e(x, y),
        lambda x, y: color.delta_e(x, y, method="cie76"),
        color.delta_chroma,
        color.delta_hue,
    ):
        d_ab, d_ba = fn(a, b), fn(b, a)
        assert np.allclose(d_ab, d_ba, atol=1e-9)
        assert np.all(d_ab >= 0)
        assert np.allclose(fn(a, a), 0.0, atol=1e-9)


def test_ciede2000_is_the_same_at_any_batch_size_for_opposite_hues():
    # exact 180° hue differences: a tie in Sharma et al.'s rules that the NumPy path and the fused
    # kernel (then batches ≥ 65,536) once broke differently (32.94 alone, 39.68 in a large batch);
    # both paths, one pair at a time and in a batch of 100,000
    from huebench.color import delta_e
    from huebench.color.difference import ciede2000_numpy

    pairs = np.array(
        [
            [[0, -5, 5], [0, 50, -50]],
            [[50, 20, 0], [60, -40, 0]],
            [[40, 0, 30], [70, 0, -12]],
            [[20, 3, 4], [80, -30, -40]],
        ],
        dtype=np.float64,
    )
    alone = np.array([float(delta_e(a, b)) for a, b in pairs])
    reference = np.array([float(ciede2000_numpy(a, b, 1.0, 1.0, 1.0)) for a, b in pairs])
    assert alone[0] == pytest.approx(32.9419, abs=1e-4)
    assert np.abs(alone - reference).max() < 1e-9
    big = np.tile(pairs, (25_000, 1, 1))  # 100,000 pairs
    for batched in (
        delta_e(big[:, 0], big[:, 1]),
        delta_e(big[:, 1], big[:, 0]),
        ciede2000_numpy(big[:, 0], big[:, 1], 1.0, 1.0, 1.0),
        ciede2000_numpy(big[:, 1], big[:, 0], 1.0, 1.0, 1.0),
    ):
        assert np.abs(batched.reshape(-1, 4) - reference).max() < 1e-9


def test_sharma_2005_pairs_through_the_compiled_kernel():
    # the 34 published pairs (hue wrap-around, achromatic and near-opposite cases) in a batch large
    # enough for the compiled kernel, in both orders
    lab1, lab2, expected = _sharma_fixture()
    reps = 2000  # 68,000 pairs
    alone = np.array([float(color.delta_e(a, b)) for a, b in zip(lab1, lab2, strict=True)])
    batched = color.delta_e(np.tile(lab1, (reps, 1)), np.tile(lab2, (reps, 1))).reshape(reps, -1)
    assert np.abs(batched - alone).max() < 1e-9
    assert np.abs(batched - expected).max() < 1e-4
    swapped = color.delta_e(np.tile(lab2, (reps, 1)), np.tile(lab1, (reps, 1))).reshape(reps, -1)
    assert np.abs(swapped - expected).max() < 1e-4


def test_srgb_delta_e_is_the_same_at_any_batch_size_for_opposite_hues():
    # an 8-bit colour against the exact opposite of its own hue: the fused kernel (large 8-bit images)
    # and the two NumPy calls (one pixel) take the same branch of the 180° tie
    from huebench.color import srgb_delta_e, srgb_to_lab

    for rgb in ([200, 30, 40], [20, 160, 60], [90, 90, 200], [128, 128, 129]):
        pixel = np.array(rgb, dtype=np.uint8)
        lab = srgb_to_lab(pixel)
        opposite = np.array([100.0 - lab[0], -lab[1], -lab[2]])
        alone = float(srgb_delta_e(pixel, opposite))
        image = np.tile(pixel, (300, 300, 1))  # 90,000 pixels: the fused kernel
        assert np.abs(srgb_delta_e(image, opposite) - alone).max() < 1e-9
        assert np.abs(color.delta_e(srgb_to_lab(image), opposite) - alone).max() < 1e-9
