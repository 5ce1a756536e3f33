"""The scorer's speed-ups change no score: the fast quantile and median are NumPy's values bit for
bit, small objects are judged at every pixel as before, and large ones at a bounded working
resolution that stays within a fraction of a ΔE00 of full resolution."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from huebench.benchmarks.gencolor.families import ANALYTIC_SETUPS, make_image
from huebench.benchmarks.gencolor.scoring import MAX_OBJECT_PIXELS, ColorScorer
from huebench.color import delta_e
from huebench.errors import HuebenchError
from huebench.stats import mean, median, quantile, variance

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_subnormal=True)


@settings(max_examples=300, deadline=None)
@given(
    arrays(np.float64, st.integers(1, 1500), elements=finite),  # both sides of PARTITION_FROM
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=5),
)
def test_quantile_is_numpys_bit_for_bit(x, qs):
    assert np.array_equal(quantile(x, qs), np.quantile(x, qs))
    assert np.array_equal(quantile(x, tuple(qs)), np.quantile(x, qs))  # a lightness window is a tuple
    assert np.array_equal(quantile(x[::2], qs), np.quantile(x[::2], qs))  # a strided view: its own copy
    for q in qs:
        ours, numpys = quantile(x, q), np.quantile(x, q)
        assert isinstance(ours, float) and ours == numpys
    assert median(x) == np.median(x)


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.integers(1, 1500), elements=finite), st.integers(1, 3))
def test_mean_and_variance_are_numpys_bit_for_bit(x, step):
    for a in (x, x[::step]):  # contiguous and strided: NumPy's pairwise sums either way
        assert mean(a) == np.mean(a) and isinstance(mean(a), float)
        assert variance(a) == np.var(a) and isinstance(variance(a), float)


def test_quantile_ties_ends_and_fallbacks():
    x = np.array([3.0, 1.0, 1.0, 2.0, 2.0, 2.0, 9.0])
    for q in (0.0, 0.1, 0.5, 0.85, 0.99, 1.0):
        assert quantile(x, q) == np.quantile(x, q)
    for q in (0.0, 0.5, 1.0):  # NaN: NumPy's answer, whichever order statistics a quantile needs
        assert np.isnan(quantile(np.array([1.0, np.nan, 0.5]), q))
    x_inf = np.array([1.0, -np.inf, 2.0, np.inf])
    for q in (0.0, 0.2, 0.5, 1.0):
        assert np.array_equal(quantile(x_inf, q), np.quantile(x_inf, q), equal_nan=True)
    for qs in ([0.1, 0.9], [0.0, 1.0], [0.5, 0.5, 0.99]):  # several at once: one partition, same NaN and inf answers
        assert np.isnan(quantile(np.array([1.0, np.nan, 0.5]), qs)).all()
        assert np.array_equal(quantile(x_inf, qs), np.quantile(x_inf, qs), equal_nan=True)
    # large arrays of few distinct values (8-bit pixel statistics): ties around every order statistic
    levels = np.random.default_rng(0).integers(0, 40, 70_001).astype(np.float64) / 7.0
    qs = [0.0, 0.02, 0.1, 0.5, 0.85, 0.9, 0.98, 0.99, 1.0]
    assert np.array_equal(quantile(levels, qs), np.quantile(levels, qs))
    assert np.array_equal(quantile(levels[:-1], qs[::-1]), np.quantile(levels[:-1], qs[::-1]))
    assert quantile(np.array([1, 2, 3, 4]), 0.5) == 2.5  # integers: NumPy's path
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        quantile(x, 1.5)
    assert np.isnan(median(np.array([])))


def _big_object(size: int) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int]]:
    setup = next(s for s, (material, _) in ANALYTIC_SETUPS.items() if material == "glossy")
    inputs = {"family": "analytic", "color": "test", "rgb": [190, 70, 40], "object": "sphere", "setup": setup}
    known = make_image(inputs, size=size, seed=3)
    return known.image, known.mask, known.truth


def test_small_objects_are_judged_at_every_pixel():
    img, mask, truth = _big_object(64)
    target = "#{:02X}{:02X}{:02X}".format(*truth)
    bounded = ColorScorer("iscc-nbs-l2").score_image(img, target, mask=mask)[0]
    unbounded = ColorScorer("iscc-nbs-l2", max_object_pixels=None).score_image(img, target, mask=mask)[0]
    assert bounded.stride == 1 and bounded.as_dict() == unbounded.as_dict()


def test_large_objects_are_judged_at_a_bounded_working_resolution():
    img, mask, truth = _big_object(400)
    target = "#{:02X}{:02X}{:02X}".format(*truth)
    n = int(mask.sum())
    bound = 20_000
    assert n > bound
    score, returned = ColorScorer("iscc-nbs-l2", max_object_pixels=bound).score_image(img, target, mask=mask)
    full = ColorScorer("iscc-nbs-l2", max_object_pixels=None).score_image(img, target, mask=mask)[0]
    stride = score.stride
    assert stride >= 2 and np.count_nonzero(mask[stride // 2 :: stride, stride // 2 :: stride]) <= bound
    assert np.count_nonzero(mask[(stride - 1) // 2 :: stride - 1, (stride - 1) // 2 :: stride - 1]) > bound
    assert returned.shape == mask.shape and np.array_equal(returned, mask)  # the caller's mask, whole
    assert full.stride == 1 and score.passed == full.passed
    assert float(delta_e(np.array(score.dominant_lab), np.array(full.dominant_lab))) < 0.6
    assert score.as_dict()["stride"] == stride


def test_the_bound_is_configuration_and_checked():
    assert ColorScorer("css3").config()["max_object_pixels"] == MAX_OBJECT_PIXELS
    assert ColorScorer("css3", max_object_pixels=None).config()["max_object_pixels"] is None
    with pytest.raises(HuebenchError, match="max_object_pixels must be at least 1000 or None"):
        ColorScorer("css3", max_object_pixels=10)


def test_candidate_sets_are_cached_per_target_and_unknown_names_still_fail():
    scorer = ColorScorer("iscc-nbs-l2")
    first = scorer.candidates("Red")
    first.append("mutated by a caller")
    assert scorer.candidates("Red") == first[:-1]
    assert [c.hex for c in scorer.candidates("#AA2233")] == [c.hex for c in scorer.candidates("#AA2233")]
    for _ in range(2):
        with pytest.raises(HuebenchError):
            scorer.candidates("dodgerblue")  # CSS, not ISCC-NBS L2
