"""The fused numba kernels must give the reference NumPy numbers (they are only a fast path)."""

import os
import subprocess
import sys

import numpy as np
import pytest

from huebench import color
from huebench.color import _kernels
from huebench.color import conversions as cv
from huebench.color.difference import ciede2000_numpy

pytestmark = pytest.mark.skipif(not _kernels.AVAILABLE, reason="numba not installed")

N = _kernels.MIN_ELEMENTS + 123


def test_srgb8_kernel_equals_numpy_path():
    rgb = np.random.default_rng(0).integers(0, 256, size=(N, 3), dtype=np.uint8)
    fast = color.srgb_to_lab(rgb)
    ref = cv.xyz_to_lab(cv.linear_rgb_to_xyz(cv.srgb_to_linear(rgb)))
    assert np.abs(fast - ref).max() < 1e-12
    # every 8-bit level of each channel, including the linear segment of the transfer curve
    ramp = np.repeat(np.arange(256, dtype=np.uint8), 3).reshape(-1, 3)
    big = np.tile(ramp, (N // 256 + 1, 1))
    assert (
        np.abs(color.srgb_to_lab(big)[:256] - cv.xyz_to_lab(cv.linear_rgb_to_xyz(cv.srgb_to_linear(ramp)))).max()
        < 1e-12
    )


def test_float64_kernel_equals_numpy_path_with_image_shape():
    rgb = np.random.default_rng(1).random((300, 300, 3))
    fast = color.srgb_to_lab(rgb)
    assert fast.shape == (300, 300, 3)
    ref = cv.xyz_to_lab(cv.linear_rgb_to_xyz(cv.srgb_to_linear(rgb)))
    assert np.abs(fast - ref).max() < 1e-12


def test_ciede2000_kernel_equals_numpy_including_broadcast_and_edge_cases():
    rng = np.random.default_rng(2)
    lab1 = np.column_stack([rng.uniform(0, 100, N), rng.uniform(-110, 110, N), rng.uniform(-110, 110, N)])
    lab2 = lab1 + rng.normal(0, 20, lab1.shape)
    lab1[:50, 1:] = 0.0  # achromatic samples: the hue-difference special case
    lab2[25:75, 1:] = 0.0
    # nearly opposite hues exercise the mean-hue wrap-around; exactly opposite ones sit on
    # CIEDE2000's discontinuity, where one ulp of atan2 (NumPy's SIMD vs libm) flips the branch
    rot = np.radians(179.0)
    a, b = lab1[100:200, 1], lab1[100:200, 2]
    lab2[100:200, 1] = a * np.cos(rot) - b * np.sin(rot)
    lab2[100:200, 2] = a * np.sin(rot) + b * np.cos(rot)
    for kl, kc, kh in [(1, 1, 1), (2, 1, 1), (1.3, 0.8, 1.7)]:
        fast = color.delta_e(lab1, lab2, kL=kl, kC=kc, kH=kh)
        assert np.abs(fast - ciede2000_numpy(lab1, lab2, kl, kc, kh)).max() < 1e-10
    ref_color = np.array([50.0, 20.0, -30.0])
    fast = color.delta_e(lab1.reshape(-1, 1, 3)[:N], ref_color)
    assert fast.shape == (N, 1)
    assert np.abs(fast[:, 0] - ciede2000_numpy(lab1, np.broadcast_to(ref_color, lab1.shape), 1, 1, 1)).max() < 1e-10


def test_core_works_without_numba():
    code = (
        "import numpy as np; from huebench import color; from huebench.color import _kernels;"
        "assert not _kernels.AVAILABLE;"
        "rgb=np.random.default_rng(0).integers(0,256,(70000,3),dtype=np.uint8);"
        "lab=color.srgb_to_lab(rgb); print(float(color.delta_e(lab, lab[::-1]).sum()))"
    )
    env = dict(os.environ, HUEBENCH_NO_NUMBA="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    rgb = np.random.default_rng(0).integers(0, 256, (70000, 3), dtype=np.uint8)
    lab = color.srgb_to_lab(rgb)
    assert float(out) == pytest.approx(float(color.delta_e(lab, lab[::-1]).sum()), rel=1e-12)
