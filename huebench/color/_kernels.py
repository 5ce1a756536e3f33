"""Compiled, multi-threaded numba kernels for the hot loops of image scoring.

The NumPy code in ``conversions`` and ``difference`` is the reference; these kernels are only a
fast path for float64 work on more than a handful of pixels (:data:`KERNEL_FROM`) and are held to
it by ``tests/test_color_kernels.py`` (within 1e-12 in Lab, 1e-10 in ΔE00; in practice a few
units in the last place). What makes them fast (measured in docs/performance.md):

- **Vector code.** Every kernel runs over blocks of :data:`BLOCK` pixels: a scalar loop gathers
  the block's channels (8-bit values through the linearisation table, or interleaved Lab) into
  planar scratch arrays, then one branch-free loop computes the block, which LLVM turns into SIMD
  code, and a last loop writes the interleaved result. The blocks are shared out over numba's
  threads.
- **No libm calls in the vector loops.** libm's ``cbrt``, ``atan2``, ``sin``, ``cos`` and ``exp``
  are scalar calls that stop vectorisation and cost most of the time. Here they are polynomials
  after an exact argument reduction, accurate to about one unit in the last place on the ranges
  the formulas use (``tests/test_color_kernels.py`` checks each one against NumPy on a dense grid).
  CIEDE2000's four cosines of the mean hue come from one sine and cosine by the multiple-angle
  formulas. The cube root is division-free (a polynomial guess refined by two third-order steps).
- **Only exact-enough floating point.** The one fast-math flag is ``contract`` (a*b+c may become
  one fused multiply-add, which is at least as accurate); no reassociation, no approximate
  reciprocals, NaN and infinity semantics kept. Hue decisions use the same 180° tie tolerance as
  the NumPy code (:data:`huebench.color.difference.HUE_TIE`), so exactly opposite hues take the
  same branch on both paths at any batch size.
- **Fused when only ΔE is wanted.** :func:`srgb8_ciede2000` goes from 8-bit sRGB to ΔE00 against
  one reference colour without writing the Lab image out.
- **Threads.** From :data:`PARALLEL_FROM` pixels, blocks are handed out :data:`CHUNK` at a time to
  numba's threads (as many as ``numba.get_num_threads()``: the cores, or one in huebench's worker
  processes); smaller inputs run the same block code on the calling thread (:func:`enabled`).

:func:`linear_to_srgb8` is the 8-bit encoder of ``conversions.linear_to_srgb8``: a table look-up
and one comparison per value instead of the transfer function; :func:`lookup` is the 8-bit decoder's
table look-up (the same values as NumPy's indexing).

The kernels compile on first use (cached on disk by numba: ~5–10 s once per installation, then
~0.25–1 s per process to load, depending on the machine's load). Inputs from :data:`KERNEL_FROM`
pixels take them: on the few hundred pixels of a small object a call costs a small fraction of the
NumPy code's dozens of array operations (the figures are in docs/performance.md). The NumPy code stays the
reference the kernels are tested against, the path of a handful of colours, and that of machines
without numba (``HUEBENCH_NO_NUMBA=1``).

The taxicab distance transform and the symmetric Gaussian blur (:func:`taxicab_depth`,
:func:`gaussian_blur`) give SciPy's results bit for bit: they are compiled without any fast-math
flag and add in SciPy's order. On a 48-px object SciPy's calls cost more in dispatch than in work.

**The colour scorer's steps, one call each.** On a small object every NumPy call of the scorer
costs more than its arithmetic, so its steps run as whole kernels: the in-mask blur, the gloss and
shading tests, the dichromatic fit (floor, diffuse line), the main colour, the dominant colour's
outlier step, the background peel's colour test, the light's pixels, the neutral-highlight gate,
the rim test, the chroma bound and the candidates' three differences. They are compiled without
fast-math and repeat the NumPy reference's operations in its order, so their values are its values
bit for bit: sums as NumPy adds (:func:`_pairwise_sum`: pairwise, eight accumulators, halves
rounded to multiples of 8; sums along the pixel axis of an N×3 array row by row), quantiles and
medians as ``stats.quantile`` interpolates the same order statistics (any selection finds the
same values). Three things are not NumPy's last bit, and the tests compare the decisions they
feed instead: a dot product with a 3-vector is a loop where NumPy calls BLAS (whose rounding
depends on the CPU), the hue angle (ΔE00's, the curve test's hue turn) is the C library's
arctangent where NumPy may use its own SIMD one, and ΔE00 is this module's (as ``delta_e(...,
compiled=True)``). Each kernel's NumPy
reference stays in ``reflectance``, ``dominant`` and ``difference``: the path of machines without
numba, of inputs under :data:`KERNEL_FROM` pixels, and of sampled inputs (more than
``reflectance.FIT_PIXELS``).
"""

from __future__ import annotations

import math
import os
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: pixels per block: the scratch arrays of a block (six float64 planes, 24 KiB) stay in L1
BLOCK = 512
#: inputs of at least this many pixels run on numba's threads; smaller ones on the calling thread
#: (enabled(): the threads' start-up costs more than such an input's work)
PARALLEL_FROM = 65_536
#: inputs of fewer pixels stay with the NumPy code: a process that converts a handful of colours
#: (a CLI call, a notebook cell) would otherwise pay for loading the compiled kernels, ~0.25–1 s
#: even from numba's disk cache, where NumPy's first call costs nothing
KERNEL_FROM = 64
#: blocks a thread takes at a time: threads take chunks as they finish (dynamic scheduling), so a
#: thread that the OS delays on a busy machine does not hold the others up at the end
CHUNK = 16

try:  # numba is a dependency, but the colour core must still work where it cannot be installed
    if os.environ.get("HUEBENCH_NO_NUMBA"):
        raise ImportError("disabled by HUEBENCH_NO_NUMBA")
    from numba import njit, parallel_chunksize, prange

    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised via HUEBENCH_NO_NUMBA in tests
    AVAILABLE = False


#: two orthonormal directions perpendicular to grey in linear RGB: the plane in which
#: reflectance.hue_turn measures hue angles (tuples: compile-time constants in the kernels)
HUE_U = (1.0 / math.sqrt(2.0), -1.0 / math.sqrt(2.0), 0.0)
HUE_V = (1.0 / math.sqrt(6.0), 1.0 / math.sqrt(6.0), -2.0 / math.sqrt(6.0))


def enabled(n_elements: int) -> bool:
    """Do inputs of this many pixels take the kernels? Those of at least :data:`KERNEL_FROM` pixels
    where numba is; below :data:`PARALLEL_FROM` pixels on the calling thread only, so that scoring a
    small object never starts numba's threads: under the GNU OpenMP threading layer a process whose
    threads have started cannot ``fork()`` safely (its children are terminated), and
    ``multiprocessing``'s default start method on Linux forks. (huebench depends on TBB on x86-64,
    a thread- and fork-safe layer numba prefers; OpenMP is numba's fallback without it, and the
    only choice on platforms without TBB wheels, such as aarch64 Linux.)"""
    return AVAILABLE and n_elements >= KERNEL_FROM


# Polynomial coefficients, lowest order first: interpolants at Chebyshev nodes computed in 60-digit
# arithmetic (mpmath), near-minimax on the stated ranges.
#: atan(u) = u + u·z·P(z), z = u², |u| ≤ tan(π/8)
ATAN_COEFFS = (
    -0.3333333333333325,
    0.19999999999898324,
    -0.1428571426608229,
    0.11111109635603796,
    -0.09090852527088297,
    0.07691054614825647,
    -0.06649607953399717,
    0.057362969593526145,
    -0.04483218628995374,
    0.022748939747779046,
)
#: sin(x) = x + x·z·P(z), z = x², |x| ≤ π/2
SIN_COEFFS = (
    -0.16666666666666666,
    0.008333333333333316,
    -0.00019841269841254966,
    2.7557319219160833e-06,
    -2.505210761669045e-08,
    1.6058977292642743e-10,
    -7.643969663988074e-13,
    2.7314368769379893e-15,
)
#: cos(x) = 1 - z/2 + z²·P(z), z = x², |x| ≤ π/4
COS_COEFFS = (
    0.041666666666666664,
    -0.0013888888888887398,
    2.480158729876456e-05,
    -2.7557317271145144e-07,
    2.087614614655861e-09,
    -1.1382623647474604e-11,
)
#: exp(r) = 1 + r + r²·P(r), |r| ≤ ln(2)/2
EXP_COEFFS = (
    0.5000000000000001,
    0.16666666666666669,
    0.041666666666623824,
    0.008333333333330039,
    0.0013888888917367081,
    0.00019841269863171557,
    2.4801521057868204e-05,
    2.7557268276905696e-06,
    2.7620201591031547e-07,
    2.5100472505694996e-08,
)
#: t^(-1/3) ≈ P(t) on [1/8, 1] (relative error 4.7e-3: only the start of the cube-root iteration)
RCBRT_COEFFS = (
    2.7988854592825345,
    -8.86205596576997,
    22.93893305413307,
    -33.11192983954031,
    24.306264633800154,
    -7.071565558866809,
)
#: the fast cube root covers (0, CBRT_MAX) after the exact reductions by 8 (more than the
#: 8-bit sRGB gamut, whose X/Xn reaches 1.00005); above it the Lab kernel falls back to np.cbrt
CBRT_MAX = 8.0
#: the 10-to-90 % range of a normal distribution in standard deviations (2 × its 90 % quantile)
NORMAL_RANGE_10_90 = 2.0 * NormalDist().inv_cdf(0.9)

if AVAILABLE:
    _A0, _A1, _A2, _A3, _A4, _A5, _A6, _A7, _A8, _A9 = ATAN_COEFFS
    _S0, _S1, _S2, _S3, _S4, _S5, _S6, _S7 = SIN_COEFFS
    _K0, _K1, _K2, _K3, _K4, _K5 = COS_COEFFS
    _E0, _E1, _E2, _E3, _E4, _E5, _E6, _E7, _E8, _E9 = EXP_COEFFS
    _Q0, _Q1, _Q2, _Q3, _Q4, _Q5 = RCBRT_COEFFS

    _FASTMATH = {"contract"}  # fused multiply-add only: see the module docstring
    _P7 = 25.0**7
    _PI = math.pi
    _TWO_PI = 2.0 * math.pi
    _PI_2 = 0.5 * math.pi
    _PI_4 = 0.25 * math.pi
    _TAN_PI_8 = math.tan(math.pi / 8.0)
    _2_OVER_PI = 2.0 / math.pi
    # π/2 in two parts (fdlibm's pio2_1, pio2_1t): k·_PIO2_HI is exact for the small k used here
    _PIO2_HI = 1.57079632673412561417e00
    _PIO2_LO = 6.07710050650619224932e-11
    # ln 2 in two parts (fdlibm's ln2_hi, ln2_lo)
    _LN2_HI = 6.93147180369123816490e-01
    _LN2_LO = 1.90821492927058770002e-10
    _LOG2_E = 1.0 / math.log(2.0)
    _R30 = math.radians(30.0)
    _DEG_25 = 180.0 / math.pi / 25.0
    _COS30, _SIN30 = math.cos(math.radians(30.0)), math.sin(math.radians(30.0))
    _COS6, _SIN6 = math.cos(math.radians(6.0)), math.sin(math.radians(6.0))
    _COS63, _SIN63 = math.cos(math.radians(63.0)), math.sin(math.radians(63.0))
    _HUE_TIE = 1e-9  # difference.HUE_TIE: a tie at 180° takes the same branch on both paths
    _EPS = 216.0 / 24389.0  # conversions._EPSILON
    _KAPPA_116 = 24389.0 / 27.0 / 116.0  # conversions._KAPPA / 116
    _16_116 = 16.0 / 116.0

    def _jit(**kwargs):
        # error_model="numpy": x/0 gives inf or nan as in NumPy instead of raising, which would
        # also keep the loops from vectorising
        return njit(error_model="numpy", fastmath=_FASTMATH, cache=True, **kwargs)

    @_jit(inline="always")
    def _hue(y, x):  # pragma: no cover - compiled
        # atan2(y, x) moved to [0, 2π) as NumPy's arctan2 plus "+2π where negative" gives it,
        # signed zeros included (atan2(±0, -0) = π).
        ax = abs(x)
        ay = abs(y)
        mx = max(ax, ay)
        mn = min(ax, ay)
        big = mn > _TAN_PI_8 * mx  # atan(t) = π/4 + atan((t-1)/(t+1)) for t > tan(π/8)
        num = mn - mx if big else mn
        den = mn + mx if big else mx
        u = num / (den if den > 0.0 else 1.0)
        z = u * u
        p = (
            (((((((_A9 * z + _A8) * z + _A7) * z + _A6) * z + _A5) * z + _A4) * z + _A3) * z + _A2) * z + _A1
        ) * z + _A0
        r = u + (u * z) * p
        r = r + _PI_4 if big else r
        r = _PI_2 - r if ay > ax else r
        r = _PI - r if math.copysign(1.0, x) < 0.0 else r
        return _TWO_PI - r if y < 0.0 else r

    @_jit(inline="always")
    def _sin(x):  # pragma: no cover - compiled
        # |x| ≤ π/2
        z = x * x
        p = ((((((_S7 * z + _S6) * z + _S5) * z + _S4) * z + _S3) * z + _S2) * z + _S1) * z + _S0
        return x + (x * z) * p

    @_jit(inline="always")
    def _cos(x):  # pragma: no cover - compiled
        # |x| ≤ π/4
        z = x * x
        p = ((((_K5 * z + _K4) * z + _K3) * z + _K2) * z + _K1) * z + _K0
        return 1.0 - 0.5 * z + (z * z) * p

    @_jit(inline="always")
    def _exp_neg(z):  # pragma: no cover - compiled
        # exp(z) for z ≤ 0; below -45 it returns exp(-45) = 2.9e-20, which is 0 to CIEDE2000
        z = z if z > -45.0 else -45.0  # also maps nan to a finite value (the result is nan anyway)
        k = np.floor(z * _LOG2_E + 0.5)  # 0 ≥ k ≥ -65
        r = (z - k * _LN2_HI) - k * _LN2_LO
        p = (
            (((((((_E9 * r + _E8) * r + _E7) * r + _E6) * r + _E5) * r + _E4) * r + _E3) * r + _E2) * r + _E1
        ) * r + _E0
        e = 1.0 + r + (r * r) * p
        m = -k  # multiply by 2^-m, m < 128, one bit at a time (exact)
        e = e * 5.421010862427522e-20 if m >= 64.0 else e
        m = m - 64.0 if m >= 64.0 else m
        e = e * 2.3283064365386963e-10 if m >= 32.0 else e
        m = m - 32.0 if m >= 32.0 else m
        e = e * 1.52587890625e-05 if m >= 16.0 else e
        m = m - 16.0 if m >= 16.0 else m
        e = e * 0.00390625 if m >= 8.0 else e
        m = m - 8.0 if m >= 8.0 else m
        e = e * 0.0625 if m >= 4.0 else e
        m = m - 4.0 if m >= 4.0 else m
        e = e * 0.25 if m >= 2.0 else e
        m = m - 2.0 if m >= 2.0 else m
        return e * 0.5 if m >= 1.0 else e

    @_jit(inline="always")
    def _cbrt(t):  # pragma: no cover - compiled
        # t^(1/3) for 0.0014 < t < CBRT_MAX: exact reductions by 8 into [1/8, 1), a polynomial
        # guess of t^(-1/3), two third-order steps y += y·(r/3 + 2r²/9), r = 1 - t·y³ (error
        # 4.7e-3 → 5e-7 → 1e-18), then t^(1/3) = t·y².
        hi = t >= 1.0
        t = t * 0.125 if hi else t
        lo1 = t < 0.125
        t = t * 8.0 if lo1 else t
        lo2 = t < 0.125
        t = t * 8.0 if lo2 else t
        y = ((((_Q5 * t + _Q4) * t + _Q3) * t + _Q2) * t + _Q1) * t + _Q0
        r = 1.0 - t * (y * y * y)
        y = y + y * (r * (1.0 / 3.0 + r * (2.0 / 9.0)))
        r = 1.0 - t * (y * y * y)
        y = y + y * (r * (1.0 / 3.0 + r * (2.0 / 9.0)))
        c = t * (y * y)
        c = c * 2.0 if hi else c
        c = c * 0.5 if lo1 else c
        return c * 0.5 if lo2 else c

    @_jit(inline="always")
    def _f_lab(t):  # pragma: no cover - compiled
        # CIE's f(t); valid for t < CBRT_MAX (callers check). Both sides are computed (branch-free).
        c = _cbrt(t if t > _EPS else _EPS)
        return c if t > _EPS else t * _KAPPA_116 + _16_116

    @_jit(inline="always")
    def _de00(L1, a1, b1, L2, a2, b2, kL, kC, kH):  # pragma: no cover - compiled
        # the steps of difference.ciede2000_numpy for one pair
        c_bar = 0.5 * (math.sqrt(a1 * a1 + b1 * b1) + math.sqrt(a2 * a2 + b2 * b2))
        c_bar2 = c_bar * c_bar
        c_bar7 = c_bar2 * c_bar2 * c_bar2 * c_bar
        gp = 1.5 - 0.5 * math.sqrt(c_bar7 / (c_bar7 + _P7))
        a1p = a1 * gp
        a2p = a2 * gp
        c1p = math.sqrt(a1p * a1p + b1 * b1)
        c2p = math.sqrt(a2p * a2p + b2 * b2)
        h1 = _hue(b1, a1p)
        h2 = _hue(b2, a2p)
        cp = c1p * c2p
        dh = h2 - h1
        dh = dh - _TWO_PI if dh > _PI + _HUE_TIE else (dh + _TWO_PI if dh < -_PI - _HUE_TIE else dh)
        s = h1 + h2
        wrap = abs(h1 - h2) > _PI + _HUE_TIE
        hb = ((s + _TWO_PI) if s < _TWO_PI else (s - _TWO_PI)) * 0.5 if wrap else s * 0.5
        dh = 0.0 if cp == 0.0 else dh
        hb = s if cp == 0.0 else hb
        dHp = 2.0 * math.sqrt(cp) * _sin(dh * 0.5)
        l50 = 0.5 * (L1 + L2) - 50.0
        l50 = l50 * l50
        cpb = 0.5 * (c1p + c2p)
        cpb2 = cpb * cpb
        cpb7 = cpb2 * cpb2 * cpb2 * cpb
        # sin and cos of the mean hue: hb = k·π/2 + x, |x| ≤ π/4
        k = np.floor(hb * _2_OVER_PI + 0.5)
        x = (hb - k * _PIO2_HI) - k * _PIO2_LO
        sx = _sin(x)
        cx = _cos(x)
        q = k - 4.0 * np.floor(k * 0.25)  # quadrant 0..3
        odd = (q == 1.0) | (q == 3.0)
        sh = cx if odd else sx
        ch = -sx if odd else cx
        sh = -sh if q >= 2.0 else sh
        ch = -ch if q >= 2.0 else ch
        c2h = ch * ch - sh * sh
        s2h = 2.0 * sh * ch
        c3h = ch * c2h - sh * s2h
        s3h = sh * c2h + ch * s2h
        c4h = c2h * c2h - s2h * s2h
        s4h = 2.0 * s2h * c2h
        t = (
            1.0
            - 0.17 * (ch * _COS30 + sh * _SIN30)
            + 0.24 * c2h
            + 0.32 * (c3h * _COS6 - s3h * _SIN6)
            - 0.20 * (c4h * _COS63 + s4h * _SIN63)
        )
        w = hb * _DEG_25 - 11.0  # (h̄' in degrees - 275) / 25
        d_theta = _R30 * _exp_neg(-(w * w))
        r_t = -_sin(2.0 * d_theta) * 2.0 * math.sqrt(cpb7 / (cpb7 + _P7))
        # ΔL'/(kL·S_L), ΔC'/(kC·S_C), ΔH'/(kH·S_H) share one division (the divider, shared with
        # sqrt, is the busiest unit), with S_L = 1 + 0.015·l50/q = (q + 0.015·l50)/q, q = √(20+l50)
        q = math.sqrt(20.0 + l50)
        d_l = kL * (q + 0.015 * l50)
        d_c = kC * (1.0 + 0.045 * cpb)
        d_h = kH * (1.0 + 0.015 * cpb * t)
        inv = 1.0 / (d_l * d_c * d_h)
        tl = (L2 - L1) * q * (d_c * d_h) * inv
        tc = (c2p - c1p) * (d_l * d_h) * inv
        th = dHp * (d_l * d_c) * inv
        return math.sqrt(tl * tl + tc * tc + th * th + r_t * tc * th)

    # --- vector loops over one block (planar arrays); not inlined, so each stays one loop LLVM
    # can vectorise with run-time overlap checks

    @_jit(inline="never")
    def _lab_block(r, g, b, L, A, B, k, m):  # pragma: no cover - compiled
        # linear RGB planes -> Lab planes; returns how many pixels need np.cbrt (t ≥ CBRT_MAX)
        m00, m01, m02 = m[0, 0], m[0, 1], m[0, 2]
        m10, m11, m12 = m[1, 0], m[1, 1], m[1, 2]
        m20, m21, m22 = m[2, 0], m[2, 1], m[2, 2]
        out_of_range = 0
        for j in range(k):
            tx = m00 * r[j] + m01 * g[j] + m02 * b[j]
            ty = m10 * r[j] + m11 * g[j] + m12 * b[j]
            tz = m20 * r[j] + m21 * g[j] + m22 * b[j]
            out_of_range += (tx >= CBRT_MAX) | (ty >= CBRT_MAX) | (tz >= CBRT_MAX)
            fx = _f_lab(tx)
            fy = _f_lab(ty)
            fz = _f_lab(tz)
            L[j] = 116.0 * fy - 16.0
            A[j] = 500.0 * (fx - fy)
            B[j] = 200.0 * (fy - fz)
        return out_of_range

    @_jit(inline="always")
    def _f_lab_any(t):  # pragma: no cover - compiled
        return np.cbrt(t) if t > _EPS else t * _KAPPA_116 + _16_116

    @_jit(inline="never")
    def _lab_fix(r, g, b, L, A, B, k, m):  # pragma: no cover - compiled
        # the pixels of a block with t ≥ CBRT_MAX (out-of-range float input), through np.cbrt
        for j in range(k):
            tx = m[0, 0] * r[j] + m[0, 1] * g[j] + m[0, 2] * b[j]
            ty = m[1, 0] * r[j] + m[1, 1] * g[j] + m[1, 2] * b[j]
            tz = m[2, 0] * r[j] + m[2, 1] * g[j] + m[2, 2] * b[j]
            if tx >= CBRT_MAX or ty >= CBRT_MAX or tz >= CBRT_MAX:
                fx = _f_lab_any(tx)
                fy = _f_lab_any(ty)
                fz = _f_lab_any(tz)
                L[j] = 116.0 * fy - 16.0
                A[j] = 500.0 * (fx - fy)
                B[j] = 200.0 * (fy - fz)

    @_jit(inline="never")
    def _de_block_ref(L1, A1, B1, L2, a2, b2, out, k, kL, kC, kH, ref_first):  # pragma: no cover
        # ΔE00 of a block against one colour (L2, a2, b2), which is lab1 when ref_first
        if ref_first:
            for j in range(k):
                out[j] = _de00(L2, a2, b2, L1[j], A1[j], B1[j], kL, kC, kH)
        else:
            for j in range(k):
                out[j] = _de00(L1[j], A1[j], B1[j], L2, a2, b2, kL, kC, kH)

    @_jit(inline="never")
    def _de_block_pair(L1, A1, B1, L2, A2, B2, out, k, kL, kC, kH):  # pragma: no cover - compiled
        for j in range(k):
            out[j] = _de00(L1[j], A1[j], B1[j], L2[j], A2[j], B2[j], kL, kC, kH)

    # --- parallel drivers: flat C-contiguous arrays, blocks shared out over the threads

    @_jit(inline="always")
    def _decode_block(rgb, lut, buf, s, k):  # pragma: no cover - compiled
        # pixels s .. s+k of flat 8-bit sRGB, decoded to linear r, g, b in buf's first three thirds
        for j in range(k):
            i = 3 * (s + j)
            buf[j] = lut[rgb[i]]
            buf[BLOCK + j] = lut[rgb[i + 1]]
            buf[2 * BLOCK + j] = lut[rgb[i + 2]]

    @_jit(inline="always")
    def _split_block(src, buf, off, s, k):  # pragma: no cover - compiled
        # pixels s .. s+k of flat interleaved triples, as three planes of buf from offset off
        for j in range(k):
            i = 3 * (s + j)
            buf[off + j] = src[i]
            buf[off + BLOCK + j] = src[i + 1]
            buf[off + 2 * BLOCK + j] = src[i + 2]

    @_jit(inline="always")
    def _planes(buf):  # pragma: no cover - compiled
        # a 6-block scratch buffer as its six planes: r, g, b (or a first Lab) and L, A, B
        return (
            buf[:BLOCK],
            buf[BLOCK : 2 * BLOCK],
            buf[2 * BLOCK : 3 * BLOCK],
            buf[3 * BLOCK : 4 * BLOCK],
            buf[4 * BLOCK : 5 * BLOCK],
            buf[5 * BLOCK :],
        )

    @_jit(inline="always")
    def _join_block(L, A, B, out, s, k):  # pragma: no cover - compiled
        # three planes back to pixels s .. s+k of flat interleaved triples
        for j in range(k):
            i = 3 * (s + j)
            out[i] = L[j]
            out[i + 1] = A[j]
            out[i + 2] = B[j]

    @_jit(inline="always")
    def _blocks(n):  # pragma: no cover - compiled
        return (n + BLOCK - 1) // BLOCK

    @_jit(inline="always")
    def _span(blk, n):  # pragma: no cover - compiled
        # the first pixel of block blk and its number of pixels
        s = blk * BLOCK
        return s, min(s + BLOCK, n) - s

    # Each kernel is one block's work (inlined) and two loops over the blocks: the parallel one for
    # large inputs, and a serial one for small inputs, which never starts numba's threads (their
    # start-up costs more than a small input's work, and a process whose GNU OpenMP threads have
    # started cannot fork safely: see enabled())

    @_jit(inline="always")
    def _srgb8_to_lab_block(rgb, lut, m, out, blk):  # pragma: no cover - compiled
        # rgb: (3n,) uint8; lut: the sRGB decoding of 0..255; out: (3n,) float64
        s, k = _span(blk, out.shape[0] // 3)
        buf = np.empty(6 * BLOCK)
        _decode_block(rgb, lut, buf, s, k)
        r, g, b, L, A, B = _planes(buf)
        _lab_block(r, g, b, L, A, B, k, m)  # 8-bit input: t ≤ 1.00005, never out of range
        _join_block(L, A, B, out, s, k)

    @_jit(parallel=True)
    def _srgb8_to_lab(rgb, lut, m, out):  # pragma: no cover - compiled
        for blk in prange(_blocks(out.shape[0] // 3)):
            _srgb8_to_lab_block(rgb, lut, m, out, blk)

    @_jit()
    def _srgb8_to_lab_serial(rgb, lut, m, out):  # pragma: no cover - compiled
        for blk in range(_blocks(out.shape[0] // 3)):
            _srgb8_to_lab_block(rgb, lut, m, out, blk)

    @_jit(inline="always")
    def _linear_to_lab_block(lin, m, out, blk):  # pragma: no cover - compiled
        # lin: (3n,) float64 linear RGB; out: (3n,) float64
        s, k = _span(blk, out.shape[0] // 3)
        buf = np.empty(6 * BLOCK)
        _split_block(lin, buf, 0, s, k)
        r, g, b, L, A, B = _planes(buf)
        if _lab_block(r, g, b, L, A, B, k, m):
            _lab_fix(r, g, b, L, A, B, k, m)
        _join_block(L, A, B, out, s, k)

    @_jit(parallel=True)
    def _linear_to_lab(lin, m, out):  # pragma: no cover - compiled
        for blk in prange(_blocks(out.shape[0] // 3)):
            _linear_to_lab_block(lin, m, out, blk)

    @_jit()
    def _linear_to_lab_serial(lin, m, out):  # pragma: no cover - compiled
        for blk in range(_blocks(out.shape[0] // 3)):
            _linear_to_lab_block(lin, m, out, blk)

    @_jit(inline="always")
    def _ciede2000_ref_block(lab, L2, a2, b2, out, kL, kC, kH, ref_first, blk):  # pragma: no cover - compiled
        # lab: (3n,) float64; one reference colour (second argument of ΔE, or first if ref_first)
        s, k = _span(blk, out.shape[0])
        buf = np.empty(3 * BLOCK)
        _split_block(lab, buf, 0, s, k)
        _de_block_ref(
            buf[:BLOCK], buf[BLOCK : 2 * BLOCK], buf[2 * BLOCK :], L2, a2, b2, out[s : s + k], k, kL, kC, kH, ref_first
        )

    @_jit(parallel=True)
    def _ciede2000_ref(lab, L2, a2, b2, out, kL, kC, kH, ref_first):  # pragma: no cover - compiled
        for blk in prange(_blocks(out.shape[0])):
            _ciede2000_ref_block(lab, L2, a2, b2, out, kL, kC, kH, ref_first, blk)

    @_jit()
    def _ciede2000_ref_serial(lab, L2, a2, b2, out, kL, kC, kH, ref_first):  # pragma: no cover - compiled
        for blk in range(_blocks(out.shape[0])):
            _ciede2000_ref_block(lab, L2, a2, b2, out, kL, kC, kH, ref_first, blk)

    @_jit()
    def _within_and_nearer(edge, outside, inside, max_de, drop):  # pragma: no cover - compiled
        # difference.within_and_nearer (the background peel's tests) through delta_e's own serial
        # kernel (the same values as delta_e(..., compiled=True)): ΔE00 of outside and inside,
        # returned; drop[i] where colour i is within max_de of outside and nearer to it than to inside
        n = edge.shape[0]
        flat = edge.reshape(-1)
        to_out, to_in, between = np.empty(n), np.empty(n), np.empty(1)
        _ciede2000_ref_serial(flat, outside[0], outside[1], outside[2], to_out, 1.0, 1.0, 1.0, False)
        _ciede2000_ref_serial(flat, inside[0], inside[1], inside[2], to_in, 1.0, 1.0, 1.0, False)
        _ciede2000_ref_serial(outside, inside[0], inside[1], inside[2], between, 1.0, 1.0, 1.0, False)
        for i in range(n):
            drop[i] = to_out[i] < max_de and to_out[i] < to_in[i]
        return between[0]

    @_jit(inline="always")
    def _ciede2000_pair_block(lab1, lab2, out, kL, kC, kH, blk):  # pragma: no cover - compiled
        s, k = _span(blk, out.shape[0])
        buf = np.empty(6 * BLOCK)
        _split_block(lab1, buf, 0, s, k)
        _split_block(lab2, buf, 3 * BLOCK, s, k)
        L1, A1, B1, L2, A2, B2 = _planes(buf)
        _de_block_pair(L1, A1, B1, L2, A2, B2, out[s : s + k], k, kL, kC, kH)

    @_jit(parallel=True)
    def _ciede2000_pair(lab1, lab2, out, kL, kC, kH):  # pragma: no cover - compiled
        for blk in prange(_blocks(out.shape[0])):
            _ciede2000_pair_block(lab1, lab2, out, kL, kC, kH, blk)

    @_jit()
    def _ciede2000_pair_serial(lab1, lab2, out, kL, kC, kH):  # pragma: no cover - compiled
        for blk in range(_blocks(out.shape[0])):
            _ciede2000_pair_block(lab1, lab2, out, kL, kC, kH, blk)

    @_jit(inline="always")
    def _srgb8_ciede2000_block(rgb, lut, m, L2, a2, b2, out, kL, kC, kH, blk):  # pragma: no cover - compiled
        # 8-bit sRGB -> Lab -> ΔE00 against (L2, a2, b2), the Lab kept in the block's scratch only
        s, k = _span(blk, out.shape[0])
        buf = np.empty(6 * BLOCK)
        _decode_block(rgb, lut, buf, s, k)
        r, g, b, L, A, B = _planes(buf)
        _lab_block(r, g, b, L, A, B, k, m)
        _de_block_ref(L, A, B, L2, a2, b2, out[s : s + k], k, kL, kC, kH, False)

    @_jit(parallel=True)
    def _srgb8_ciede2000(rgb, lut, m, L2, a2, b2, out, kL, kC, kH):  # pragma: no cover - compiled
        for blk in prange(_blocks(out.shape[0])):
            _srgb8_ciede2000_block(rgb, lut, m, L2, a2, b2, out, kL, kC, kH, blk)

    @_jit()
    def _srgb8_ciede2000_serial(rgb, lut, m, L2, a2, b2, out, kL, kC, kH):  # pragma: no cover - compiled
        for blk in range(_blocks(out.shape[0])):
            _srgb8_ciede2000_block(rgb, lut, m, L2, a2, b2, out, kL, kC, kH, blk)

    @_jit(inline="always")
    def _srgb8_level(x, thresholds, bins, n_bins, out, i):  # pragma: no cover - compiled
        # conversions.linear_to_srgb8: level = bins[bin of x] + (x >= next threshold)
        v = x[i]
        v = v if v > 0.0 else 0.0  # negative, -0.0 and NaN -> 0
        v = v if v < 1.0 else 1.0
        level = np.int64(bins[np.int64(v * n_bins)])
        out[i] = level + (v >= thresholds[level + 1])

    @_jit(parallel=True)
    def _linear_to_srgb8(x, thresholds, bins, n_bins, out):  # pragma: no cover - compiled
        for i in prange(x.shape[0]):
            _srgb8_level(x, thresholds, bins, n_bins, out, i)

    @_jit()
    def _linear_to_srgb8_serial(x, thresholds, bins, n_bins, out):  # pragma: no cover - compiled
        for i in range(x.shape[0]):
            _srgb8_level(x, thresholds, bins, n_bins, out, i)

    @_jit(parallel=True)
    def _lookup(x, table, out):  # pragma: no cover - compiled
        for i in prange(x.shape[0]):
            out[i] = table[x[i]]

    @_jit()
    def _lookup_serial(x, table, out):  # pragma: no cover - compiled
        for i in range(x.shape[0]):
            out[i] = table[x[i]]

    # -- small images: SciPy's results, bit for bit, without its per-call overhead ------------

    def _exact_jit(**kwargs):
        # no fast-math flag at all, not even contract: these kernels repeat SciPy's arithmetic
        # operation for operation, so that their results are SciPy's to the last bit
        return njit(error_model="numpy", cache=True, **kwargs)

    @_exact_jit()
    def _taxicab_depth(mask, outside_is_background, out):  # pragma: no cover - compiled
        # city-block distance of every pixel to the nearest False (0 on False): two raster passes,
        # exact for this metric. Beyond the array lies background (outside_is_background) or
        # nothing; with no background at all every pixel keeps the sentinel h + w + 2
        h, w = mask.shape
        far = h + w + 2
        for i in range(h):
            for j in range(w):
                if not mask[i, j]:
                    out[i, j] = 0
                    continue
                v = far
                if outside_is_background:
                    v = min(v, i + 1, j + 1, h - i, w - j)
                if i > 0:
                    v = min(v, out[i - 1, j] + 1)
                if j > 0:
                    v = min(v, out[i, j - 1] + 1)
                out[i, j] = v
        for i in range(h - 1, -1, -1):
            for j in range(w - 1, -1, -1):
                v = out[i, j]
                if v == 0:
                    continue
                if i < h - 1:
                    v = min(v, out[i + 1, j] + 1)
                if j < w - 1:
                    v = min(v, out[i, j + 1] + 1)
                out[i, j] = v

    @_exact_jit()
    def _reflect(k, n):  # pragma: no cover - compiled
        # the index SciPy's "reflect" mode (d c b a | a b c d | d c b a) reads for position k
        k = k % (2 * n)
        return k if k < n else 2 * n - 1 - k

    @_exact_jit()
    def _correlate_symmetric(src, weights, axis, out):  # pragma: no cover - compiled
        # scipy.ndimage.correlate1d(src, weights, axis, mode="reflect") for a symmetric kernel of
        # 2r+1 weights on an (H, W, C) array, each output value summed as SciPy sums it: the centre
        # term first, then the pairs from the outermost in (the loops run over whole rows, which
        # changes no value's order of operations)
        h, w, c = src.shape
        r = weights.shape[0] // 2
        flat_src = src.reshape(h, w * c)
        flat_out = out.reshape(h, w * c)
        if axis == 0:
            for t in range(h):
                row = flat_out[t]
                centre = flat_src[t]
                for j in range(w * c):
                    row[j] = centre[j] * weights[r]
                for jj in range(r):
                    lo = flat_src[_reflect(t - r + jj, h)]
                    hi = flat_src[_reflect(t + r - jj, h)]
                    for j in range(w * c):
                        row[j] += (lo[j] + hi[j]) * weights[jj]
            return
        # axis 1: each row with its reflected ends in one buffer, the channels interleaved as in
        # the array, so that every pair term is one pass over a contiguous run
        buf = np.empty((w + 2 * r) * c)
        for i in range(h):
            line = flat_src[i]
            for k in range(r):
                left, right = _reflect(k - r, w), _reflect(w + k, w)
                for ch in range(c):
                    buf[k * c + ch] = line[left * c + ch]
                    buf[(w + r + k) * c + ch] = line[right * c + ch]
            for j in range(w * c):
                buf[r * c + j] = line[j]
            row = flat_out[i]
            for j in range(w * c):
                row[j] = buf[r * c + j] * weights[r]
            for jj in range(r):
                lo = jj * c
                hi = (2 * r - jj) * c
                for j in range(w * c):
                    row[j] += (buf[lo + j] + buf[hi + j]) * weights[jj]

    @_exact_jit()
    def _masked_blur(image, mask, table, weights, where, out):  # pragma: no cover - compiled
        # reflectance.smooth_within's steps on a cropped image, each value with SciPy's operations in
        # its order (_correlate_symmetric): the linear pixels times the 0/1 mask weight, and that
        # weight as a fourth channel, blurred along axis 0 everywhere, then along axis 1 at the
        # pixels ``where`` (flat indices) only, which are all that is read: there the blurred colour
        # over the blurred weight (at least 1e-9)
        h, w = mask.shape
        src = np.empty((h, w, 4))
        for i in range(h):
            for j in range(w):
                m = 1.0 if mask[i, j] else 0.0
                for c in range(3):
                    src[i, j, c] = table[image[i, j, c]] * m
                src[i, j, 3] = m
        mid = np.empty_like(src)
        _correlate_symmetric(src, weights, 0, mid)
        r = weights.shape[0] // 2
        acc = np.empty(4)
        for k in range(where.shape[0]):
            i = where[k] // w
            j = where[k] - i * w
            for c in range(4):
                acc[c] = mid[i, j, c] * weights[r]
            for jj in range(r):
                lo, hi = _reflect(j - r + jj, w), _reflect(j + r - jj, w)
                for c in range(4):
                    acc[c] += (mid[i, lo, c] + mid[i, hi, c]) * weights[jj]
            d = acc[3] if acc[3] > 1e-9 else 1e-9
            for c in range(3):
                out[k, c] = acc[c] / d

    # -- the gloss and shading tests (reflectance.looks_glossy, has_shading) ------------------
    # no fast-math flag; quantiles and medians are stats.quantile's order statistics and its
    # interpolation, operation for operation. The dot products with 3-vectors are plain loops:
    # NumPy's go to BLAS, whose rounding depends on the CPU, so values may differ from NumPy's in
    # the last place (the decisions they feed are compared in tests/test_color_kernels.py)

    @_exact_jit()
    def _select(a, k):  # pragma: no cover - compiled
        # the k-th smallest value of a, rearranging a in place so that a[:k] <= a[k] <= a[k+1:]:
        # quickselect (median-of-three pivot, Hoare partition, the last 16 values sorted), faster
        # than numba's np.partition on the scorer's sizes (docs/performance.md). After 64 rounds
        # the rest is merge-sorted, so no input makes it quadratic
        lo, hi = 0, a.shape[0] - 1
        rounds = 0
        while hi > lo:
            if hi - lo < 16 or rounds >= 64:
                rest = a[lo : hi + 1].copy()
                a[lo : hi + 1] = rest[np.argsort(rest, kind="mergesort")]
                return a[k]
            rounds += 1
            mid = (lo + hi) >> 1
            if a[mid] < a[lo]:
                a[mid], a[lo] = a[lo], a[mid]
            if a[hi] < a[lo]:
                a[hi], a[lo] = a[lo], a[hi]
            if a[hi] < a[mid]:
                a[hi], a[mid] = a[mid], a[hi]
            pivot = a[mid]
            i, j = lo, hi
            while i <= j:
                while a[i] < pivot:
                    i += 1
                while a[j] > pivot:
                    j -= 1
                if i <= j:
                    a[i], a[j] = a[j], a[i]
                    i += 1
                    j -= 1
            if k <= j:
                hi = j
            elif k >= i:
                lo = i
            else:
                return a[k]
        return a[k]

    @_exact_jit()
    def _quantile(x, q):  # pragma: no cover - compiled
        # stats.quantile(x, q) of a 1-D array without NaN: its two order statistics from one
        # selection (any selection finds the same values), then NumPy's interpolation
        n = x.shape[0]
        if n == 0:
            return np.nan
        virtual = (n - 1) * q
        if virtual >= n - 1:
            return np.max(x)
        previous = math.floor(virtual)
        part = x.copy()
        lo = _select(part, previous)
        hi = np.min(part[previous + 1 :])
        gamma = virtual - previous
        diff = hi - lo
        return hi - diff * (1 - gamma) if gamma >= 0.5 else lo + diff * gamma

    @_exact_jit()
    def _median(x):  # pragma: no cover - compiled
        n = x.shape[0]
        if n == 0:
            return np.nan  # stats.median's answer
        k = n // 2
        part = x.copy()
        upper = _select(part, k)
        return upper if n % 2 else (np.max(part[:k]) + upper) / 2

    @_exact_jit()
    def _pairwise_leaf(a, lo, n):  # pragma: no cover - compiled
        # NumPy's pairwise sum of at most 128 values: one loop below 8, else eight accumulators
        if n < 8:
            res = 0.0
            for i in range(lo, lo + n):
                res += a[i]
            return res
        r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
        r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
        i = 8
        while i < n - (n % 8):
            r0 += a[lo + i]
            r1 += a[lo + i + 1]
            r2 += a[lo + i + 2]
            r3 += a[lo + i + 3]
            r4 += a[lo + i + 4]
            r5 += a[lo + i + 5]
            r6 += a[lo + i + 6]
            r7 += a[lo + i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[lo + i]
            i += 1
        return res

    @_exact_jit()
    def _pairwise_sum(a, lo, n):  # pragma: no cover - compiled
        # NumPy's float64 sum of a[lo:lo + n] (np.add.reduce of a contiguous array), bit for bit:
        # above 128 values the sum of two halves (the first a multiple of 8), below a leaf. The
        # recursion runs on an explicit stack: numba's disk cache cannot hold recursive functions
        if n <= 128:
            return _pairwise_leaf(a, lo, n)
        los = np.empty(64, dtype=np.int64)
        ns = np.empty(64, dtype=np.int64)
        stage = np.zeros(64, dtype=np.int64)  # 0: not split, 1: left half pending, 2: right half pending
        left = np.empty(64)
        los[0], ns[0], stage[0] = lo, n, 0
        top = 0
        total = 0.0
        while top >= 0:
            m = ns[top]
            if m <= 128 or stage[top] == 2:
                # a leaf, or a split node whose right half was just summed (into total)
                value = _pairwise_leaf(a, los[top], m) if m <= 128 else left[top] + total
                top -= 1
                if top < 0:
                    return value
                if stage[top] == 1:
                    left[top] = value
                    half = ns[top] // 2
                    half -= half % 8
                    stage[top] = 2
                    los[top + 1], ns[top + 1], stage[top + 1] = los[top] + half, ns[top] - half, 0
                    top += 1
                else:
                    total = value
                continue
            half = m // 2
            half -= half % 8
            stage[top] = 1
            los[top + 1], ns[top + 1], stage[top + 1] = los[top], half, 0
            top += 1
        return total

    @_exact_jit()
    def _mean(a):  # pragma: no cover - compiled
        return (0.0 + _pairwise_sum(a, 0, a.shape[0])) / a.shape[0]

    @_exact_jit()
    def _floor_line(perp, grey, use):  # pragma: no cover - compiled
        # reflectance.remove_fitted_floor's robust line fit, its operations in its order: the
        # intercept of the grey component on the distance from grey, or NaN where it leaves the
        # pixels as they are (a flat patch, no spread in chroma)
        n = perp.shape[0]
        root3 = np.sqrt(3.0)
        par = np.empty(n)
        sat = np.empty(n)
        for i in range(n):
            par[i] = root3 * grey[i]
            p = par[i] if par[i] > 1e-6 else 1e-6
            sat[i] = perp[i] / p
        half = 0.5 * _median(sat[use])
        sel = use & (sat >= half)
        x, y = perp[sel], par[sel]
        if _quantile(y, 0.9) < 1.25 * _quantile(y, 0.1):
            return np.nan
        keep = np.ones(x.shape[0], dtype=np.bool_)
        intercept = np.nan
        r = np.empty(x.shape[0])
        for _ in range(3):
            xk, yk = x[keep], y[keep]
            m = xk.shape[0]
            d = xk - (0.0 + _pairwise_sum(xk, 0, m)) / m
            var = (0.0 + _pairwise_sum(d * d, 0, m)) / m
            if var < 1e-12:
                return np.nan
            mean_x, mean_y = _mean(xk), _mean(yk)
            slope = _mean((xk - mean_x) * (yk - mean_y)) / var
            intercept = mean_y - slope * mean_x
            for i in range(x.shape[0]):
                r[i] = y[i] - (slope * x[i] + intercept)
            rk = r[keep]
            mid = _median(rk)
            mad = 1.4826 * _median(np.abs(rk - mid)) + 1e-9
            count = 0
            for i in range(x.shape[0]):
                keep[i] = abs(r[i]) <= 2.5 * mad
                count += keep[i]
            if count < 10:
                break
        return intercept

    @_exact_jit()
    def _column_medians(x, out):  # pragma: no cover - compiled
        col = np.empty(x.shape[0])
        for c in range(x.shape[1]):
            for i in range(x.shape[0]):
                col[i] = x[i, c]
            out[c] = _median(col)

    @_exact_jit()
    def _dichromatic_sample(lin, rgb, clipped, grey, perp, use):  # pragma: no cover - compiled
        # reflectance.DichromaticFit's per-pixel values of its sample (row_mean's and row_norm's
        # order): the grey component, the distance from grey, and the usable pixels (no channel
        # at the ceiling, above the darkest 10 %)
        n = lin.shape[0]
        for i in range(n):
            g = ((lin[i, 0] + lin[i, 1]) + lin[i, 2]) / 3
            grey[i] = g
            d0, d1, d2 = lin[i, 0] - g, lin[i, 1] - g, lin[i, 2] - g
            perp[i] = np.sqrt((d0 * d0 + d1 * d1) + d2 * d2)
        dark = _quantile(grey, 0.1)
        for i in range(n):
            use[i] = not (rgb[i, 0] >= clipped or rgb[i, 1] >= clipped or rgb[i, 2] >= clipped) and grey[i] > dark

    @_exact_jit()
    def _hue_turn(lin, grey):  # pragma: no cover - compiled
        # reflectance.hue_turn: the brighter half's median hue angle less the darker half's, the
        # angles (degrees, in the plane perpendicular to grey) taken from the mean chromatic
        # direction (np.mean's sums: _mean)
        n = grey.shape[0]
        if n == 0:
            return 0.0
        xs, ys = np.empty(n), np.empty(n)
        for i in range(n):
            c0, c1, c2 = lin[i, 0] - grey[i], lin[i, 1] - grey[i], lin[i, 2] - grey[i]
            xs[i] = (c0 * HUE_U[0] + c1 * HUE_U[1]) + c2 * HUE_U[2]
            ys[i] = (c0 * HUE_V[0] + c1 * HUE_V[1]) + c2 * HUE_V[2]
        mid = np.degrees(np.arctan2(_mean(ys), _mean(xs)))
        angle = np.empty(n)
        for i in range(n):
            angle[i] = (np.degrees(np.arctan2(ys[i], xs[i])) - mid + 180.0) % 360.0 - 180.0
        g = _median(grey)
        bright = grey >= g
        k = np.count_nonzero(bright)
        if k == 0 or k == n:
            return 0.0
        return _median(angle[bright]) - _median(angle[~bright])

    @_exact_jit()
    def _ranks(x):  # pragma: no cover - compiled
        # scipy.stats.rankdata: ranks from 1, ties sharing their mean rank
        n = x.shape[0]
        order = np.argsort(x, kind="mergesort")
        r = np.empty(n)
        i = 0
        while i < n:
            j = i
            while j + 1 < n and x[order[j + 1]] == x[order[i]]:
                j += 1
            mean_rank = 0.5 * (i + j) + 1.0
            for k in range(i, j + 1):
                r[order[k]] = mean_rank
            i = j + 1
        return r

    @_exact_jit()
    def _rank_correlation(x, y):  # pragma: no cover - compiled
        # reflectance.rank_correlation: Spearman's, 0 where either array is constant
        n = x.shape[0]
        rx, ry = _ranks(x), _ranks(y)
        mx, my = _mean(rx), _mean(ry)
        sxy = sxx = syy = 0.0
        for i in range(n):
            dx, dy = rx[i] - mx, ry[i] - my
            sxy += dx * dy
            sxx += dx * dx
            syy += dy * dy
        den = np.sqrt(sxx * syy)
        return sxy / den if den > 0 else 0.0

    @_exact_jit()
    def _fit_saturation(
        grey, perp, use, q, lin, turn, fall, lit_from, dark_fall, dark_pixels, band_low, band_high, flat
    ):  # pragma: no cover - compiled
        # reflectance._saturation_from_fit: the q-quantile of the usable pixels' saturations, those
        # less than half as saturated as the median left out; NaN for a flat patch unless flat. Where turn is
        # not NaN and the pixels show a curve on each channel (reflectance.shows_channel_curve), or
        # dark_fall is not NaN and their darker half's saturation falls with brightness
        # (reflectance.darker_half_falls, on at most dark_pixels of them), the quantile of those
        # from the lit_from quantile of brightness up; where band_low is not NaN, at most the
        # quantile of those between the band's quantiles of brightness
        # (reflectance.line_band_saturation)
        n = grey.shape[0]
        sat = np.empty(n)
        for i in range(n):
            sat[i] = perp[i] / (grey[i] if grey[i] > 1e-6 else 1e-6)
        lit = grey[use]
        if not flat and _quantile(lit, 0.9) < 1.25 * _quantile(lit, 0.1):
            return np.nan
        half = 0.5 * _median(sat[use])
        keep = use & (sat >= half)
        s, g = sat[keep], grey[keep]
        curve = (
            not np.isnan(turn)
            and s.shape[0] >= 20
            and abs(_hue_turn(lin[keep], g)) > turn
            and _rank_correlation(s, g) < fall
        )
        if not curve and not np.isnan(dark_fall) and s.shape[0] >= 20:
            dark = np.nonzero(g < _median(g))[0]
            if dark.shape[0] >= 10:  # ties at the bottom can leave the darker half (nearly) empty
                dark = dark[:: (dark.shape[0] + dark_pixels - 1) // dark_pixels]  # every k-th: at most dark_pixels
                curve = _rank_correlation(s[dark], g[dark]) < dark_fall
        read = s[g >= _quantile(g, lit_from)] if curve else s
        estimate = _quantile(read, q)
        if np.isnan(band_low):
            return estimate
        lo, hi = _quantile(g, band_low), _quantile(g, band_high)
        middle = s[(g >= lo) & (g <= hi)]
        if middle.shape[0] < 10:
            return estimate
        return min(estimate, _quantile(middle, q))

    @_exact_jit()
    def _diffuse_line(lin, rgb, saturation, keep_clipped, clipped, out):  # pragma: no cover - compiled
        # reflectance.diffuse_line_reconstruction's new pixels: each keeps its distance from grey
        # and gets the grey component the saturation implies, clipped to [0, 1]; with keep_clipped
        # a pixel with one or two channels at the ceiling keeps its colour
        for i in range(lin.shape[0]):
            g = ((lin[i, 0] + lin[i, 1]) + lin[i, 2]) / 3
            d0, d1, d2 = lin[i, 0] - g, lin[i, 1] - g, lin[i, 2] - g
            lift = np.sqrt((d0 * d0 + d1 * d1) + d2 * d2) / saturation
            if keep_clipped:
                k = (rgb[i, 0] >= clipped) + (rgb[i, 1] >= clipped) + (rgb[i, 2] >= clipped)
                if 0 < k < 3:
                    for c in range(3):
                        out[i, c] = lin[i, c]
                    continue
            for c, d in enumerate((d0, d1, d2)):
                v = d + lift
                out[i, c] = 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)

    @_exact_jit()
    def _spread_along(lin, e0, e1, e2, bands=False):  # pragma: no cover - compiled
        # reflectance._spread of the pixels' projections on (e0, e1, e2): 1.4826 × their median
        # absolute deviation; with bands the larger of it and their 10-to-90 % range over a normal
        # distribution's
        n = lin.shape[0]
        x = np.empty(n)
        for i in range(n):
            x[i] = lin[i, 0] * e0 + lin[i, 1] * e1 + lin[i, 2] * e2
        ranged = (_quantile(x, 0.9) - _quantile(x, 0.1)) / NORMAL_RANGE_10_90 if bands else 0.0
        mid = _median(x)
        for i in range(n):
            x[i] = abs(x[i] - mid)
        spread = 1.4826 * _median(x)
        return max(spread, ranged) if bands else spread

    @_exact_jit()
    def _has_shading(lin, factor, bands=False):  # pragma: no cover - compiled
        n = lin.shape[0]
        w = 1 / np.sqrt(3.0)
        m0 = m1 = m2 = 0.0
        for i in range(n):
            m0 += lin[i, 0]
            m1 += lin[i, 1]
            m2 += lin[i, 2]
        m0, m1, m2 = m0 / n, m1 / n, m2 / n
        along_grey = (m0 * w + m1 * w) + m2 * w
        c0, c1, c2 = m0 - along_grey * w, m1 - along_grey * w, m2 - along_grey * w
        norm = np.sqrt((c0 * c0 + c1 * c1) + c2 * c2)
        grey = ((m0 + m1) + m2) / 3
        if norm > 1e-3 * max(grey, 1e-6) and norm > 1e-6:
            # orthogonal to grey and to the mean chroma
            u0, u1, u2 = c0 / norm, c1 / norm, c2 / norm
            noise = _spread_along(lin, u1 * w - u2 * w, u2 * w - u0 * w, u0 * w - u1 * w, bands)
        else:  # a near-grey surface: the whole plane orthogonal to grey
            r = 1 / np.sqrt(2.0)
            a = _spread_along(lin, r, -r, 0.0, bands)
            b = _spread_along(lin, w * 0.0 - w * -r, w * r - w * 0.0, w * -r - w * r, bands)
            noise = max(a, b)
        return _spread_along(lin, w, w, w, bands) > factor * max(noise, 1e-9)

    @_exact_jit()
    def _looks_glossy(rgb, table, clipped, uniformity, min_saturation, radial, shading_factor):  # pragma: no cover
        # reflectance.looks_glossy on N×3 8-bit pixels (radial < 0: no radial condition)
        n_all = rgb.shape[0]
        lin = np.empty((n_all, 3))
        n = 0
        for i in range(n_all):
            if rgb[i, 0] < clipped and rgb[i, 1] < clipped and rgb[i, 2] < clipped:
                for c in range(3):
                    lin[n, c] = table[rgb[i, c]]
                n += 1
        lin = lin[:n]
        grey = np.empty(n)
        for i in range(n):
            grey[i] = ((lin[i, 0] + lin[i, 1]) + lin[i, 2]) / 3
        if n == 0:
            return False
        half = _quantile(grey, 0.5)
        k = 0
        for i in range(n):
            k += grey[i] >= half
        if k < 20:
            return False
        chroma = np.empty((k, 3))
        sat = np.empty(k)
        k = 0
        for i in range(n):
            if grey[i] >= half:
                g = grey[i]
                scale = g if g > 1e-6 else 1e-6
                d0, d1, d2 = lin[i, 0] - g, lin[i, 1] - g, lin[i, 2] - g
                sat[k] = np.sqrt((d0 * d0 + d1 * d1) + d2 * d2) / scale
                chroma[k, 0], chroma[k, 1], chroma[k, 2] = d0 / scale, d1 / scale, d2 / scale
                k += 1
        floor = 0.5 * _quantile(sat, 0.9)
        body = sat >= floor
        sat, chroma = sat[body], chroma[body]
        if sat.shape[0] < 20:
            return False
        q10, q90 = _quantile(sat, 0.1), _quantile(sat, 0.9)
        if not (q90 >= min_saturation and q10 < uniformity * q90 and _has_shading(lin, shading_factor)):
            return False
        if radial < 0:
            return True
        # the body colour's direction: the mean chroma of the more saturated half
        mid = _median(sat)
        a0 = a1 = a2 = 0.0
        m = 0
        for i in range(sat.shape[0]):
            if sat[i] >= mid:
                a0 += chroma[i, 0]
                a1 += chroma[i, 1]
                a2 += chroma[i, 2]
                m += 1
        a0, a1, a2 = a0 / m, a1 / m, a2 / m
        length = max(np.sqrt((a0 * a0 + a1 * a1) + a2 * a2), 1e-12)
        a0, a1, a2 = a0 / length, a1 / length, a2 / length
        w = 1 / np.sqrt(3.0)
        b0, b1, b2 = w * a2 - w * a1, w * a0 - w * a2, w * a1 - w * a0
        along = np.empty(sat.shape[0])
        across = np.empty(sat.shape[0])
        for i in range(sat.shape[0]):
            along[i] = chroma[i, 0] * a0 + chroma[i, 1] * a1 + chroma[i, 2] * a2
            across[i] = chroma[i, 0] * b0 + chroma[i, 1] * b1 + chroma[i, 2] * b2
        r10, r90 = _quantile(along, 0.1), _quantile(along, 0.9)
        t10, t90 = _quantile(across, 0.1), _quantile(across, 0.9)
        if not t90 > t10:
            return True  # nothing spreads across: an infinite ratio
        return (r90 - r10) / (t90 - t10) >= radial

    # -- the main colour (reflectance.main_color_pixels): NumPy's element-wise steps, fused ------
    # no fast-math flag: each value is computed with the NumPy code's operations in its order

    @_exact_jit()
    def _chromaticity(rgb, table, total, chrom):  # pragma: no cover - compiled
        # total = r + g + b of the linear pixel (row_sum's order); chrom = each channel over
        # max(total, 1e-6)
        for i in range(total.shape[0]):
            r, g, b = table[rgb[3 * i]], table[rgb[3 * i + 1]], table[rgb[3 * i + 2]]
            t = r + g + b
            total[i] = t
            d = t if t > 1e-6 else 1e-6
            chrom[3 * i] = r / d
            chrom[3 * i + 1] = g / d
            chrom[3 * i + 2] = b / d

    @_exact_jit()
    def _select_xy(chrom, total, bright, x, y, t):  # pragma: no cover - compiled
        # the first two chromaticity coordinates and the total of the pixels where bright holds
        k = 0
        for i in range(bright.shape[0]):
            if bright[i]:
                x[k] = chrom[3 * i]
                y[k] = chrom[3 * i + 1]
                t[k] = total[i]
                k += 1

    @_exact_jit()
    def _histogram(x, y, lo_x, lo_y, width_x, width_y, n, counts):  # pragma: no cover - compiled
        # counts of the n × n cells floor((x - lo) / width), points outside the grid left out
        for i in range(x.shape[0]):
            cx = np.floor((x[i] - lo_x) / width_x)
            cy = np.floor((y[i] - lo_y) / width_y)
            if cx >= 0 and cx < n and cy >= 0 and cy < n:
                counts[np.int64(cx) * n + np.int64(cy)] += 1

    @_exact_jit()
    def _near(x, y, c_x, c_y, reach_x, reach_y, out_x, out_y):  # pragma: no cover - compiled
        # the points within reach of (c_x, c_y) in both coordinates, packed; returns their count
        k = 0
        for i in range(x.shape[0]):
            if abs(x[i] - c_x) <= reach_x and abs(y[i] - c_y) <= reach_y:
                out_x[k] = x[i]
                out_y[k] = y[i]
                k += 1
        return k

    @_exact_jit()
    def _offsets(chrom, m0, m1, m2, off):  # pragma: no cover - compiled
        for i in range(chrom.shape[0] // 3):
            off[3 * i] = chrom[3 * i] - m0
            off[3 * i + 1] = chrom[3 * i + 1] - m1
            off[3 * i + 2] = chrom[3 * i + 2] - m2

    @_exact_jit()
    def _hue_distance(off, along, a0, a1, a2, reach, dist):  # pragma: no cover - compiled
        # the offset across the axis (along it removed), and the part of it past the white point
        for i in range(along.shape[0]):
            t = along[i]
            past = -t - reach
            past = past if past > 0.0 else 0.0
            o0 = off[3 * i] - t * a0
            o1 = off[3 * i + 1] - t * a1
            o2 = off[3 * i + 2] - t * a2
            dist[i] = np.hypot(np.sqrt(o0 * o0 + o1 * o1 + o2 * o2), past)

    @_exact_jit()
    def _norm3(off, dist):  # pragma: no cover - compiled
        for i in range(dist.shape[0]):
            o0, o1, o2 = off[3 * i], off[3 * i + 1], off[3 * i + 2]
            dist[i] = np.sqrt(o0 * o0 + o1 * o1 + o2 * o2)

    @_exact_jit()
    def _within_radius(dist, total, typical, radius, kept):  # pragma: no cover - compiled
        # dist <= radius × max(typical / max(total, 1e-6), 1); returns how many are
        k = 0
        for i in range(dist.shape[0]):
            t = total[i]
            t = t if t > 1e-6 else 1e-6
            widen = typical / t
            widen = widen if widen > 1.0 else 1.0
            kept[i] = dist[i] <= radius * widen
            k += kept[i]
        return k

    @_exact_jit()
    def _main_color(rgb, table, keep, from_q, weights, kept):  # pragma: no cover - compiled
        # reflectance.main_color_pixels, every step: the kernels above, stats.quantile's values,
        # and the two 3-vector products as loops (NumPy's go to BLAS: the last place may differ).
        # Returns how many pixels are kept, or -1 where every pixel is (fewer than 20 to go on)
        n = rgb.shape[0] // 3
        total = np.empty(n)
        chrom = np.empty(3 * n)
        _chromaticity(rgb, table, total, chrom)
        bright = total >= _quantile(total, from_q)
        n_bright = 0
        for i in range(n):
            n_bright += bright[i]
        if n_bright < 20:
            return -1
        x, y, total_bright = np.empty(n_bright), np.empty(n_bright), np.empty(n_bright)
        _select_xy(chrom, total, bright, x, y, total_bright)
        lo_x, hi_x = _quantile(x, 0.01), _quantile(x, 0.99)
        lo_y, hi_y = _quantile(y, 0.01), _quantile(y, 0.99)
        width_x, width_y = (hi_x - lo_x + 1e-9) / 24, (hi_y - lo_y + 1e-9) / 24
        counts = np.zeros(24 * 24, dtype=np.int64)
        _histogram(x, y, lo_x, lo_y, width_x, width_y, 24, counts)
        grid = np.empty((24, 24, 1))
        for k in range(24 * 24):
            grid[k // 24, k % 24, 0] = counts[k]
        mid = np.empty_like(grid)
        hist = np.empty_like(grid)
        _correlate_symmetric(grid, weights, 0, mid)
        _correlate_symmetric(mid, weights, 1, hist)
        best = 0
        for k in range(1, 24 * 24):
            if hist[k // 24, k % 24, 0] > hist[best // 24, best % 24, 0]:
                best = k
        c_x, c_y = lo_x + (best // 24 + 0.5) * width_x, lo_y + (best % 24 + 0.5) * width_y
        near_x, near_y = np.empty(n_bright), np.empty(n_bright)
        m = _near(x, y, c_x, c_y, 1.5 * width_x, 1.5 * width_y, near_x, near_y)
        if m == 0:
            near_x, near_y = x, y
        else:
            near_x, near_y = near_x[:m], near_y[:m]
        m0, m1 = _median(near_x), _median(near_y)
        m2 = 1.0 - (m0 + m1)
        off = np.empty(3 * n)
        _offsets(chrom, m0, m1, m2, off)
        a0, a1, a2 = m0 - 1.0 / 3.0, m1 - 1.0 / 3.0, m2 - 1.0 / 3.0
        dist = np.empty(n)
        reach = np.sqrt((a0 * a0 + a1 * a1) + a2 * a2)
        if reach > 0.02:
            a0, a1, a2 = a0 / reach, a1 / reach, a2 / reach
            along = np.empty(n)
            for i in range(n):
                along[i] = off[3 * i] * a0 + off[3 * i + 1] * a1 + off[3 * i + 2] * a2
            _hue_distance(off, along, a0, a1, a2, reach, dist)
        else:
            _norm3(off, dist)
        judged = dist[bright]
        radius = max(_quantile(judged, keep), 3.5 * _quantile(judged, 0.5), 0.01)
        return _within_radius(dist, total, _median(total_bright), radius, kept)

    @_exact_jit()
    def _decode8(px, table):  # pragma: no cover - compiled
        lin = np.empty((px.shape[0], 3))
        for i in range(px.shape[0]):
            for c in range(3):
                lin[i, c] = table[px[i, c]]
        return lin

    @_exact_jit()
    def _mean_saturation(lin, use):  # pragma: no cover - compiled
        # reflectance._mean_saturation of the rows where use holds (its norm as a loop: NumPy's is BLAS)
        m0 = m1 = m2 = 0.0
        k = 0
        for i in range(lin.shape[0]):
            if use[i]:
                m0 += lin[i, 0]
                m1 += lin[i, 1]
                m2 += lin[i, 2]
                k += 1
        m0, m1, m2 = m0 / k, m1 / k, m2 / k
        g = ((m0 + m1) + m2) / 3
        d0, d1, d2 = m0 - g, m1 - g, m2 - g
        return np.sqrt((d0 * d0 + d1 * d1) + d2 * d2) / max(g, 1e-6)

    @_exact_jit()
    def _dichromatic_steps(
        px,
        table,
        thresholds,
        bins,
        n_bins,
        clipped,
        floor,
        floor_min_sat,
        max_floor,
        min_sat,
        q,
        keep_clipped,
        factor,
        turn,
        fall,
        lit_from,
        dark_fall,
        dark_pixels,
        band_low,
        band_high,
        line_on_flat,
    ):  # pragma: no cover - compiled
        # reflectance.dichromatic_steps on N×3 8-bit pixels (all of them the fits' sample): the
        # fitted floor (with floor) and the diffuse line, sharing the fit while the pixels stay
        n = px.shape[0]
        cur = px
        lin = _decode8(cur, table)
        grey, perp, use = np.empty(n), np.empty(n), np.empty(n, dtype=np.bool_)
        _dichromatic_sample(lin, cur, clipped, grey, perp, use)
        shading = -1  # the fit's shading test: not run yet
        if floor:
            ok = np.count_nonzero(use) >= 20 and _mean_saturation(lin, use) >= floor_min_sat
            if ok:
                shading = 1 if _has_shading(lin[use], factor) else 0
                ok = shading == 1
            if ok:
                level = _floor_line(perp, grey, use) / np.sqrt(3.0)
                if level > 0 and not level > max_floor:  # NaN: no fit
                    moved = np.empty(3 * n)
                    for i in range(n):
                        for c in range(3):
                            v = lin[i, c] - level
                            moved[3 * i + c] = 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)
                    flat = np.empty(3 * n, dtype=np.uint8)
                    for i in range(3 * n):
                        _srgb8_level(moved, thresholds, bins, n_bins, flat, i)
                    cur = flat.reshape(n, 3)
                    lin = _decode8(cur, table)
                    _dichromatic_sample(lin, cur, clipped, grey, perp, use)
                    shading = -1
        if not (np.count_nonzero(use) >= 20 and _mean_saturation(lin, use) >= min_sat):
            return cur.copy()
        if shading == -1:
            shading = 1 if _has_shading(lin[use], factor) else 0
        if shading == 0:
            return cur.copy()
        saturation = _fit_saturation(
            grey, perp, use, q, lin, turn, fall, lit_from, dark_fall, dark_pixels, band_low, band_high, line_on_flat
        )
        if np.isnan(saturation):
            return cur.copy()
        line = np.empty((n, 3))
        _diffuse_line(lin, cur, saturation, keep_clipped, clipped, line)
        flat_line = line.reshape(-1)
        out = np.empty(3 * n, dtype=np.uint8)
        for i in range(3 * n):
            _srgb8_level(flat_line, thresholds, bins, n_bins, out, i)
        return out.reshape(n, 3)

    @_exact_jit()
    def _edge_near_surroundings(img, ring, deep, edge, lut, m, max_de, drop):  # pragma: no cover - compiled
        # reflectance.edge_near_surroundings with every pixel of ring and deep (none sampled): the
        # three sets' pixels (raster order) in one buffer, to Lab with srgb_to_lab's kernel, the
        # medians of ring and deep, and within_and_nearer's test of the edge pixels
        n = ring.shape[0]
        a = b = total = 0
        for i in range(n):
            a += ring[i]
            b += deep[i]
            total += ring[i] + deep[i] + edge[i]
        buf = np.empty(3 * total, dtype=np.uint8)
        k = 0
        for which in range(3):
            sel = ring if which == 0 else (deep if which == 1 else edge)
            for i in range(n):
                if sel[i]:
                    buf[3 * k] = img[3 * i]
                    buf[3 * k + 1] = img[3 * i + 1]
                    buf[3 * k + 2] = img[3 * i + 2]
                    k += 1
        lab = np.empty(3 * total)
        _srgb8_to_lab_serial(buf, lut, m, lab)
        lab3 = lab.reshape(total, 3)
        outside, inside = np.empty(3), np.empty(3)
        _column_medians(lab3[:a], outside)
        _column_medians(lab3[a : a + b], inside)
        return _within_and_nearer(lab3[a + b :], outside, inside, max_de, drop)

    @_exact_jit()
    def _dominant_pixels(pixels, lo_q, hi_q, outlier_mad, min_radius, max_fraction, means):  # pragma: no cover
        # dominant.dominant_color up to its PCA: finite rows, the lightness window (lo_q < 0: none),
        # the chromatic outliers out; means = (mean L*, mean a*, mean b*) of the rows kept, returned
        n_all = pixels.shape[0]
        finite = np.empty(n_all, dtype=np.bool_)
        for i in range(n_all):
            finite[i] = np.isfinite(pixels[i, 0]) and np.isfinite(pixels[i, 1]) and np.isfinite(pixels[i, 2])
        px = pixels[finite]
        n = px.shape[0]
        means[3] = n
        if n == 0:
            return px
        if lo_q >= 0 and n >= 10:
            light = px[:, 0].copy()
            lo, hi = _quantile(light, lo_q), _quantile(light, hi_q)
            inside = np.empty(n, dtype=np.bool_)
            for i in range(n):
                inside[i] = light[i] >= lo and light[i] <= hi
            px = px[inside]
            n = px.shape[0]
            if n == 0:  # a window that holds no pixel: the caller takes the NumPy steps
                return px
        if n >= 3:
            centre = np.empty(2)
            _column_medians(px[:, 1:], centre)
            dist = np.empty(n)
            for i in range(n):
                dist[i] = np.hypot(px[i, 1] - centre[0], px[i, 2] - centre[1])
            med = _median(dist)
            spread = np.empty(n)
            for i in range(n):
                spread[i] = abs(dist[i] - med)
            radius = max(med + outlier_mad * 1.4826 * _median(spread), min_radius)
            keep = np.empty(n, dtype=np.bool_)
            dropped = 0
            for i in range(n):
                keep[i] = dist[i] <= radius
                dropped += not keep[i]
            max_drop = np.int64(max_fraction * n)
            if dropped > max_drop:
                keep[:] = False
                order = np.argsort(dist, kind="mergesort")
                for i in range(min(n - max_drop, n)):  # a negative cap keeps every row, as the slice does
                    keep[order[i]] = True
            px = px[keep]
            n = px.shape[0]
        light = px[:, 0].copy()
        means[0] = (0.0 + _pairwise_sum(light, 0, n)) / n
        a = b = 0.0
        for i in range(n):
            a += px[i, 1]
            b += px[i, 2]
        means[1], means[2] = a / n, b / n
        return px

    @_exact_jit()
    def _lit_plane(img, where, table, clipped, evals, evecs):  # pragma: no cover - compiled
        # reflectance.light_colour's plane: the pixels of _lit_unclipped, their 3×3 Gram matrix
        # (sums in raster order) and its eigen-decomposition (LAPACK's, as np.linalg.eigh);
        # returns how many pixels there were (under 30: evals and evecs not written)
        lin = _lit_unclipped(img, where, table, clipped)
        n = lin.shape[0]
        if n < 30:
            return n
        gram = np.zeros((3, 3))
        for i in range(n):
            for j in range(3):
                for k in range(3):
                    gram[j, k] += lin[i, j] * lin[i, k]
        w, v = np.linalg.eigh(gram)
        evals[:] = w
        evecs[:, :] = v
        return n

    @_exact_jit()
    def _lit_unclipped(img, where, table, clipped):  # pragma: no cover - compiled
        # the pixels of img (flat 8-bit RGB) where ``where`` holds with every channel above 0 and
        # below ``clipped``, linear (reflectance.light_colour's pixels)
        n = 0
        for i in range(where.shape[0]):
            if where[i]:
                r, g, b = img[3 * i], img[3 * i + 1], img[3 * i + 2]
                n += 0 < r < clipped and 0 < g < clipped and 0 < b < clipped
        lin = np.empty((n, 3))
        k = 0
        for i in range(where.shape[0]):
            if where[i]:
                r, g, b = img[3 * i], img[3 * i + 1], img[3 * i + 2]
                if 0 < r < clipped and 0 < g < clipped and 0 < b < clipped:
                    lin[k, 0], lin[k, 1], lin[k, 2] = table[r], table[g], table[b]
                    k += 1
        return lin

    @_exact_jit()
    def _lit_mean_saturation(lin):  # pragma: no cover - compiled
        # reflectance._mean_saturation of the brighter half of N×3 linear pixels (grey component
        # at least its median)
        n = lin.shape[0]
        grey = np.empty(n)
        for i in range(n):
            grey[i] = ((lin[i, 0] + lin[i, 1]) + lin[i, 2]) / 3
        half = _quantile(grey, 0.5)
        return _mean_saturation(lin, grey >= half)

    @_exact_jit()
    def _three_differences(labs, L, a, b, chroma_threshold, de, dc, dh):  # pragma: no cover - compiled
        # difference.three_differences: ΔE00 through delta_e's serial kernel, Δchroma, and the hue
        # difference in degrees (NaN where either chroma is below the threshold)
        _ciede2000_ref_serial(labs.reshape(-1), L, a, b, de, 1.0, 1.0, 1.0, False)
        h2 = np.degrees(np.arctan2(b, a))
        c2 = np.hypot(a, b)
        for i in range(labs.shape[0]):
            a1, b1 = labs[i, 1], labs[i, 2]
            dc[i] = np.hypot(a1 - a, b1 - b)
            d = np.abs(np.degrees(np.arctan2(b1, a1)) - h2) % 360.0
            d = min(d, 360.0 - d)
            dh[i] = np.nan if np.hypot(a1, b1) < chroma_threshold or c2 < chroma_threshold else d

    @_exact_jit()
    def _unclipped_shading(px, table, clipped, factor):  # pragma: no cover - compiled
        # reflectance.unclipped_shading: has_shading of the pixels without a channel at the
        # ceiling, 1 or 0; -1 with fewer than 10 of them
        n = px.shape[0]
        keep = np.empty(n, dtype=np.bool_)
        k = 0
        for i in range(n):
            keep[i] = px[i, 0] < clipped and px[i, 1] < clipped and px[i, 2] < clipped
            k += keep[i]
        if k < 10:
            return -1
        return 1 if _has_shading(_decode8(px[keep], table), factor) else 0

    @_exact_jit()
    def _chroma_quantile(rgb, lut, m, q):  # pragma: no cover - compiled
        # the q-quantile of the C*ab of 8-bit pixels (flat), their Lab from srgb_to_lab's kernel
        n = rgb.shape[0] // 3
        lab = np.empty(3 * n)
        _srgb8_to_lab_serial(rgb, lut, m, lab)
        chroma = np.empty(n)
        for i in range(n):
            chroma[i] = np.hypot(lab[3 * i + 1], lab[3 * i + 2])
        return _quantile(chroma, q)

    @_exact_jit()
    def _quantiles_into(x, qs, out, j):  # pragma: no cover - compiled
        # stats.quantile(x, q) for each of the ascending qs into out[j:], from one copy of x: each
        # selection leaves the larger values after its rank, where the next one looks (the same
        # order statistics as one selection each, so the same values)
        n = x.shape[0]
        part = x.copy()
        start = 0
        for q in qs:
            virtual = (n - 1) * q
            if virtual >= n - 1:
                out[j] = np.max(part[start:])
            else:
                previous = math.floor(virtual)
                lo = _select(part[start:], previous - start)
                hi = np.min(part[previous + 1 :])
                gamma = virtual - previous
                diff = hi - lo
                out[j] = hi - diff * (1 - gamma) if gamma >= 0.5 else lo + diff * gamma
                start = previous
            j += 1

    @_exact_jit()
    def _tree_ensemble(x, baseline, feature, threshold, left, right, value, leaf):  # pragma: no cover - compiled
        # gencolor.calibration.TreeEnsemble.predict: every tree walked from its root (x <= threshold
        # goes left), the leaves added to the baseline one tree after another, as scikit-learn adds
        total = baseline
        for t in range(value.shape[0]):
            node = 0
            while not leaf[t, node]:
                node = left[t, node] if x[feature[t, node]] <= threshold[t, node] else right[t, node]
            total += value[t, node]
        return total

    @_exact_jit()
    def _lit_statistics(rgb, lut, m, table, clipped, lq, cq, sq, out):  # pragma: no cover - compiled
        # gencolor.calibration.pixel_statistics of 8-bit pixels (flat): the share with a clipped
        # channel, the brighter half's saturation quantiles (sq), the L* quantiles (lq) and the
        # C*ab quantiles (cq), in that order (each ascending); Lab from srgb_to_lab's kernel,
        # NumPy's operations
        n = rgb.shape[0] // 3
        lab = np.empty(3 * n)
        _srgb8_to_lab_serial(rgb, lut, m, lab)
        lightness, chroma = np.empty(n), np.empty(n)
        grey, sat = np.empty(n), np.empty(n)
        n_clipped = 0
        for i in range(n):
            lightness[i] = lab[3 * i]
            chroma[i] = np.hypot(lab[3 * i + 1], lab[3 * i + 2])
            r, g, b = rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]
            if r >= clipped or g >= clipped or b >= clipped:
                n_clipped += 1
            lr, lg, lb = table[r], table[g], table[b]
            mean = ((lr + lg) + lb) / 3.0
            dr, dg, db = lr - mean, lg - mean, lb - mean
            grey[i] = mean
            sat[i] = np.sqrt((dr * dr + dg * dg) + db * db) / max(mean, 1e-4)
        half = _median(grey)
        k = 0
        for i in range(n):
            if grey[i] >= half:
                sat[k] = sat[i]
                k += 1
        out[0] = n_clipped / n
        _quantiles_into(sat[:k], sq, out, 1)
        _quantiles_into(lightness, lq, out, 1 + sq.shape[0])
        _quantiles_into(chroma, cq, out, 1 + sq.shape[0] + lq.shape[0])

    @_exact_jit()
    def _darker_floor(img, depth, interior, table, clipped, share, max_pixels, out):  # pragma: no cover - compiled
        # reflectance.darker_floor on flat arrays (raster order): out = (intercept, standard error);
        # returns 1 with a floor, 0 with none. An interior of more than max_pixels is read on
        # reflectance.fit_sample's even sample (np.linspace's values: i × step, the last n − 1,
        # truncated). NumPy's sums: _pairwise_sum
        n_all = 0
        for i in range(depth.shape[0]):
            if depth[i] > interior:
                n_all += 1
        n_sample = min(n_all, max_pixels)
        take = np.empty(n_sample, dtype=np.int64)
        if n_all > max_pixels:
            step = (n_all - 1) / (max_pixels - 1)
            for j in range(max_pixels - 1):
                take[j] = int(j * step + 0.0)
            take[max_pixels - 1] = n_all - 1
        else:
            for j in range(n_all):
                take[j] = j
        lin = np.empty((n_sample, 3))
        grey = np.empty(n_sample)
        k = 0
        ordinal = 0  # of the interior pixel
        at = 0  # the next sampled ordinal's place in take
        for i in range(depth.shape[0]):
            if depth[i] > interior:
                ordinal += 1
                if at >= n_sample or take[at] != ordinal - 1:
                    continue
                at += 1
                r, g, b = img[3 * i], img[3 * i + 1], img[3 * i + 2]
                if r >= clipped or g >= clipped or b >= clipped:
                    continue
                lin[k, 0], lin[k, 1], lin[k, 2] = table[r], table[g], table[b]
                grey[k] = ((lin[k, 0] + lin[k, 1]) + lin[k, 2]) / 3
                k += 1
        if k < 20:
            return 0
        grey = grey[:k]
        lo, hi = _quantile(grey, 0.1), _quantile(grey, share)
        n = 0
        for i in range(k):
            if grey[i] >= lo and grey[i] <= hi:
                n += 1
        if n < 20 or hi < 1.25 * lo:
            return 0
        x, y = np.empty(n), np.empty(n)
        j = 0
        for i in range(k):
            if grey[i] >= lo and grey[i] <= hi:
                g = grey[i]
                d0, d1, d2 = lin[i, 0] - g, lin[i, 1] - g, lin[i, 2] - g
                x[j] = np.sqrt((d0 * d0 + d1 * d1) + d2 * d2)
                y[j] = g
                j += 1
        mean_x, mean_y = _mean(x), _mean(y)
        dx, dy = x - mean_x, y - mean_y
        sxx = 0.0 + _pairwise_sum(dx * dx, 0, n)
        if sxx <= 1e-18:  # no chroma spread: nothing to fit a line to
            return 0
        slope = (0.0 + _pairwise_sum(dx * dy, 0, n)) / sxx
        intercept = mean_y - slope * mean_x
        r = (y - intercept) - slope * x
        residual = (0.0 + _pairwise_sum(r * r, 0, n)) / (n - 2)
        out[0] = intercept
        out[1] = np.sqrt(residual * (1.0 / n + mean_x * mean_x / sxx))
        return 1

    @_exact_jit()
    def _rim_saturation(img, mask, depth, band0, band1, table, clipped):  # pragma: no cover - compiled
        # reflectance.rim_saturation on flat arrays (raster order); NaN where it answers None
        n = 0
        deep_any = False
        for i in range(mask.shape[0]):
            if mask[i]:
                n += 1
                deep_any = deep_any or depth[i] > band1
        if not deep_any:
            return np.nan
        lin = np.empty((n, 3))
        d = np.empty(n, dtype=depth.dtype)
        ceiling = np.empty(n, dtype=np.bool_)
        grey = np.empty(n)
        k = 0
        for i in range(mask.shape[0]):
            if mask[i]:
                r, g, b = img[3 * i], img[3 * i + 1], img[3 * i + 2]
                lin[k, 0], lin[k, 1], lin[k, 2] = table[r], table[g], table[b]
                ceiling[k] = r >= clipped or g >= clipped or b >= clipped
                d[k] = depth[i]
                grey[k] = ((lin[k, 0] + lin[k, 1]) + lin[k, 2]) / 3
                k += 1
        dark = _quantile(grey, 0.25)
        inner = np.empty(n)
        rim = np.empty(n)
        n_inner = n_rim = 0
        for i in range(n):
            if ceiling[i] or not grey[i] > dark:
                continue
            g = grey[i]
            d0, d1, d2 = lin[i, 0] - g, lin[i, 1] - g, lin[i, 2] - g
            sat = np.sqrt((d0 * d0 + d1 * d1) + d2 * d2) / (g if g > 1e-6 else 1e-6)
            if d[i] > band1:
                inner[n_inner] = sat
                n_inner += 1
            elif d[i] > band0:
                rim[n_rim] = sat
                n_rim += 1
        if n_inner < 20 or n_rim < 10:
            return np.nan
        top = _quantile(inner[:n_inner], 0.9)
        return _median(rim[:n_rim]) / top if top > 0 else np.nan

    @_exact_jit()
    def _principal_axis(ab, out):  # pragma: no cover - compiled
        # the eigen-decomposition of the second moments about the origin of N×2 points (N ≥ 2):
        # out = (larger eigenvalue, smaller eigenvalue, its unit eigenvector's two components), in
        # closed form (a 2×2 symmetric matrix); the moments are summed in a loop (BLAS's a.T @ a
        # may differ in the last place), so the values are LAPACK's up to rounding
        n = ab.shape[0]
        p = q = r = 0.0
        for i in range(n):
            a, b = ab[i, 0], ab[i, 1]
            p += a * a
            q += a * b
            r += b * b
        p, q, r = p / n, q / n, r / n
        half = 0.5 * (p - r)
        disc = np.hypot(half, q)
        mean = 0.5 * (p + r)
        big = mean + disc
        small = mean - disc
        if q == 0.0:
            v0, v1 = (1.0, 0.0) if p >= r else (0.0, 1.0)
        elif half >= 0:  # the better-conditioned of the two equivalent forms
            v0, v1 = half + disc, q
        else:
            v0, v1 = q, disc - half
        length = np.hypot(v0, v1)
        out[0], out[1], out[2], out[3] = big, small, v0 / length, v1 / length


def _flat(arr: NDArray[np.generic]) -> NDArray[np.generic]:
    return np.ascontiguousarray(arr).reshape(-1)


def _run(parallel: Any, serial: Any, pixels: int, chunk: int, *args: Any) -> None:
    """One kernel over ``pixels`` pixels: on numba's threads from :data:`PARALLEL_FROM` pixels (blocks
    handed out ``chunk`` at a time), else on the calling thread alone."""
    if pixels < PARALLEL_FROM:
        serial(*args)
        return
    with parallel_chunksize(chunk):
        parallel(*args)


def ciede2000(
    lab1: NDArray[np.float64], lab2: NDArray[np.float64], kL: float, kC: float, kH: float
) -> NDArray[np.float64]:
    """CIEDE2000 of two float64 Lab arrays of one broadcast shape (…, 3)."""
    shape = lab1.shape if lab1.shape == lab2.shape else np.broadcast_shapes(lab1.shape, lab2.shape)
    out = np.empty(shape[:-1], dtype=np.float64)
    flat_out = out.reshape(-1)
    k = (float(kL), float(kC), float(kH))
    if lab2.size == 3 or lab1.size == 3:  # one colour against many (or one against one)
        ref_first = lab2.size != 3
        ref = (lab1 if ref_first else lab2).reshape(3)
        many = lab2 if ref_first else lab1
        if many.shape != shape:
            many = np.broadcast_to(many, shape)
        refs = (float(ref[0]), float(ref[1]), float(ref[2]))
        _run(_ciede2000_ref, _ciede2000_ref_serial, out.size, CHUNK, _flat(many), *refs, flat_out, *k, ref_first)
    else:
        pair = (_flat(np.broadcast_to(lab1, shape)), _flat(np.broadcast_to(lab2, shape)), flat_out, *k)
        _run(_ciede2000_pair, _ciede2000_pair_serial, out.size, CHUNK, *pair)
    return out


def linear_to_lab(lin: NDArray[np.float64], m: NDArray[np.float64]) -> NDArray[np.float64]:
    """Linear RGB (…, 3) float64 to CIELAB; ``m`` is RGB→XYZ with the white point divided out."""
    out = np.empty(lin.shape, dtype=np.float64)
    _run(_linear_to_lab, _linear_to_lab_serial, out.size // 3, CHUNK, _flat(lin), m, out.reshape(-1))
    return out


def srgb8_to_lab(rgb8: NDArray[np.uint8], lut: NDArray[np.float64], m: NDArray[np.float64]) -> NDArray[np.float64]:
    """8-bit sRGB (…, 3) to CIELAB through the linearisation table ``lut``."""
    out = np.empty(rgb8.shape, dtype=np.float64)
    _run(_srgb8_to_lab, _srgb8_to_lab_serial, out.size // 3, CHUNK, _flat(rgb8), lut, m, out.reshape(-1))
    return out


def srgb8_ciede2000(
    rgb8: NDArray[np.uint8],
    lut: NDArray[np.float64],
    m: NDArray[np.float64],
    ref: NDArray[np.float64],
    kL: float,
    kC: float,
    kH: float,
) -> NDArray[np.float64]:
    """ΔE00 between 8-bit sRGB pixels (…, 3) and one CIELAB colour, without the Lab image."""
    out = np.empty(rgb8.shape[:-1], dtype=np.float64)
    r = ref.reshape(3)
    args = (
        _flat(rgb8),
        lut,
        m,
        float(r[0]),
        float(r[1]),
        float(r[2]),
        out.reshape(-1),
        float(kL),
        float(kC),
        float(kH),
    )
    _run(_srgb8_ciede2000, _srgb8_ciede2000_serial, out.size, CHUNK, *args)
    return out


def linear_to_srgb8(
    linear: NDArray[np.float64], thresholds: NDArray[np.float64], bins: NDArray[np.uint8], n_bins: int
) -> NDArray[np.uint8]:
    """8-bit sRGB levels of linear values by threshold counting (see conversions.linear_to_srgb8)."""
    out = np.empty(linear.shape, dtype=np.uint8)
    args = (_flat(linear), thresholds, bins, float(n_bins), out.reshape(-1))
    _run(_linear_to_srgb8, _linear_to_srgb8_serial, out.size // 3, CHUNK * BLOCK, *args)
    return out


def lookup(x: NDArray[np.uint8], table: NDArray[np.float64]) -> NDArray[np.float64]:
    """``table[x]`` for 8-bit pixels (…, 3) and a 256-entry table: the same values, without NumPy's
    fancy-indexing machinery (its speed: docs/performance.md)."""
    out = np.empty(x.shape, dtype=np.float64)
    _run(_lookup, _lookup_serial, out.size // 3, CHUNK * BLOCK, _flat(x), table, out.reshape(-1))
    return out


def taxicab_depth(mask: NDArray[np.bool_], *, outside_is_background: bool) -> NDArray[np.int32]:
    """City-block distance of each pixel of a 2-D boolean array to its nearest False (0 there).
    Beyond the array lies background (``outside_is_background``) or nothing; an array with no
    background anywhere gives ``h + w + 2`` everywhere."""
    m = np.ascontiguousarray(mask, dtype=np.bool_)
    out = np.empty(m.shape, dtype=np.int32)
    _taxicab_depth(m, bool(outside_is_background), out)
    return out


def gaussian_blur(x: NDArray[np.float64], weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """``scipy.ndimage.gaussian_filter`` over the first two axes of an (H, W) or (H, W, C) float64
    array (mode "reflect"), ``weights`` being its symmetric 1-D kernel: axis 0, then axis 1."""
    src = np.ascontiguousarray(x, dtype=np.float64)
    cube = src.reshape(src.shape[0], src.shape[1], -1)
    mid = np.empty_like(cube)
    out = np.empty_like(cube)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    _correlate_symmetric(cube, w, 0, mid)
    _correlate_symmetric(mid, w, 1, out)
    return out.reshape(src.shape)


def masked_blur(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    table: NDArray[np.float64],
    weights: NDArray[np.float64],
    where: NDArray[np.intp],
) -> NDArray[np.float64]:
    """Normalised convolution of an (H, W, 3) 8-bit image within a 2-D mask (linear light through
    ``table``, SciPy's reflect-mode blur with the symmetric 1-D kernel ``weights``), read at the
    flat pixel indices ``where``: N×3 linear RGB (see reflectance.smooth_within)."""
    out = np.empty((len(where), 3), dtype=np.float64)
    _masked_blur(
        np.ascontiguousarray(image, dtype=np.uint8),
        np.ascontiguousarray(mask, dtype=np.bool_),
        table,
        np.ascontiguousarray(weights, dtype=np.float64),
        np.ascontiguousarray(where, dtype=np.intp),
        out,
    )
    return out


def has_shading(lin: NDArray[np.float64], factor: float, bands: bool = False) -> bool:
    """reflectance.has_shading on N×3 linear RGB (at least one pixel)."""
    return bool(_has_shading(np.ascontiguousarray(lin, dtype=np.float64), float(factor), bool(bands)))


def looks_glossy(
    rgb8: NDArray[np.uint8],
    table: NDArray[np.float64],
    *,
    clipped: int,
    uniformity: float,
    min_saturation: float,
    radial: float | None,
    shading_factor: float,
) -> bool:
    """reflectance.looks_glossy on N×3 8-bit pixels (already sampled), ``table`` linearising them."""
    px = np.ascontiguousarray(rgb8, dtype=np.uint8).reshape(-1, 3)
    r = -1.0 if radial is None else float(radial)
    return bool(
        _looks_glossy(px, table, int(clipped), float(uniformity), float(min_saturation), r, float(shading_factor))
    )


def floor_line(perp: NDArray[np.float64], grey: NDArray[np.float64], use: NDArray[np.bool_]) -> float | None:
    """reflectance.remove_fitted_floor's robust line fit: its intercept, or None where the pixels
    are left as they are."""
    out = float(
        _floor_line(
            np.ascontiguousarray(perp, dtype=np.float64),
            np.ascontiguousarray(grey, dtype=np.float64),
            np.ascontiguousarray(use, dtype=np.bool_),
        )
    )
    return None if math.isnan(out) else out


def column_medians(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``stats.median`` of each column of an N×k float64 array (N ≥ 1), the same values."""
    out = np.empty(x.shape[1], dtype=np.float64)
    _column_medians(np.ascontiguousarray(x, dtype=np.float64), out)
    return out


def dichromatic_sample(
    lin: NDArray[np.float64], rgb8: NDArray[np.uint8], clipped: int
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """reflectance.DichromaticFit's grey components, distances from grey and usable pixels of N×3
    linear pixels ``lin`` (N ≥ 1) and their 8-bit values."""
    n = len(lin)
    grey, perp, use = np.empty(n), np.empty(n), np.empty(n, dtype=np.bool_)
    _dichromatic_sample(np.ascontiguousarray(lin), np.ascontiguousarray(rgb8), int(clipped), grey, perp, use)
    return grey, perp, use


def fit_saturation(
    grey: NDArray[np.float64],
    perp: NDArray[np.float64],
    use: NDArray[np.bool_],
    quantile: float,
    lin: NDArray[np.float64],
    curve_turn: float | None,
    curve_fall: float,
    curve_lit_from: float,
    dark_fall: float | None,
    dark_pixels: int,
    line_band: tuple[float, float] | None = None,
    flat_line: bool = False,
) -> float | None:
    """reflectance._saturation_from_fit on a fit's arrays (at least 20 usable pixels; ``lin``: the
    sample's linear RGB; ``curve_turn`` None: no curve test; ``dark_fall`` None: no darker-half
    test, which reads at most ``dark_pixels`` of the half; ``line_band`` None: no cap;
    ``flat_line``: a line on a flat patch too)."""
    turn = math.nan if curve_turn is None else float(curve_turn)
    low, high = (math.nan, math.nan) if line_band is None else (float(line_band[0]), float(line_band[1]))
    out = float(
        _fit_saturation(
            grey,
            perp,
            use,
            float(quantile),
            np.ascontiguousarray(lin),
            turn,
            float(curve_fall),
            float(curve_lit_from),
            math.nan if dark_fall is None else float(dark_fall),
            int(dark_pixels),
            low,
            high,
            bool(flat_line),
        )
    )
    return None if math.isnan(out) else out


def diffuse_line(
    lin: NDArray[np.float64], rgb8: NDArray[np.uint8], saturation: float, *, keep_clipped: bool, clipped: int
) -> NDArray[np.float64]:
    """reflectance.diffuse_line_reconstruction's pixels (linear, before encoding)."""
    out = np.empty(lin.shape, dtype=np.float64)
    _diffuse_line(
        np.ascontiguousarray(lin),
        np.ascontiguousarray(rgb8).reshape(-1, 3),
        float(saturation),
        bool(keep_clipped),
        int(clipped),
        out,
    )
    return out


def within_and_nearer(
    edge: NDArray[np.float64], outside: NDArray[np.float64], inside: NDArray[np.float64], max_delta_e: float
) -> tuple[float, NDArray[np.bool_]]:
    """difference.within_and_nearer: ΔE00 between ``outside`` and ``inside`` (Lab), and which of the
    N×3 Lab colours ``edge`` are within ``max_delta_e`` of the outside and nearer to it."""
    drop = np.empty(len(edge), dtype=np.bool_)
    mid = _within_and_nearer(np.ascontiguousarray(edge, dtype=np.float64), outside, inside, float(max_delta_e), drop)
    return float(mid), drop


def main_color(
    rgb8: NDArray[np.uint8], table: NDArray[np.float64], keep: float, from_quantile: float, weights: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """reflectance.main_color_pixels of N×3 8-bit pixels in one call (``weights``: the histogram's
    Gaussian kernel)."""
    kept = np.empty(len(rgb8), dtype=np.bool_)
    n = _main_color(_flat(rgb8), table, float(keep), float(from_quantile), weights, kept)
    return kept if n >= 20 else np.ones(len(rgb8), dtype=bool)


def dichromatic_steps(
    rgb8: NDArray[np.uint8],
    table: NDArray[np.float64],
    encoder: tuple[NDArray[np.float64], NDArray[np.uint8], int],
    *,
    clipped: int,
    floor: bool,
    floor_min_saturation: float,
    max_floor: float | None,
    min_saturation: float,
    quantile: float,
    keep_clipped: bool,
    shading_factor: float,
    curve_turn: float | None,
    curve_fall: float,
    curve_lit_from: float,
    dark_fall: float | None,
    dark_pixels: int,
    line_band: tuple[float, float] | None = None,
    flat_line: bool = False,
) -> NDArray[np.uint8]:
    """reflectance.dichromatic_steps on N×3 8-bit pixels, every one of them in the fits' sample;
    ``table`` decodes 8-bit values, ``encoder`` is (thresholds, bins, bin count) of the encoding;
    ``curve_turn`` None: no curve test; ``dark_fall`` None: no darker-half test; ``line_band``
    None: no cap; ``flat_line``: a line on a flat patch too."""
    thresholds, bins, n_bins = encoder
    low, high = (math.nan, math.nan) if line_band is None else (float(line_band[0]), float(line_band[1]))
    return np.asarray(
        _dichromatic_steps(
            np.ascontiguousarray(rgb8, dtype=np.uint8),
            table,
            thresholds,
            bins,
            float(n_bins),
            int(clipped),
            bool(floor),
            float(floor_min_saturation),
            math.inf if max_floor is None else float(max_floor),
            float(min_saturation),
            float(quantile),
            bool(keep_clipped),
            float(shading_factor),
            math.nan if curve_turn is None else float(curve_turn),
            float(curve_fall),
            float(curve_lit_from),
            math.nan if dark_fall is None else float(dark_fall),
            int(dark_pixels),
            low,
            high,
            bool(flat_line),
        )
    )


def edge_near_surroundings(
    image: NDArray[np.uint8],
    ring: NDArray[np.bool_],
    deep: NDArray[np.bool_],
    edge: NDArray[np.bool_],
    n_edge: int,
    lut: NDArray[np.float64],
    m: NDArray[np.float64],
    max_delta_e: float,
) -> tuple[float, NDArray[np.bool_]]:
    """reflectance.edge_near_surroundings in one call, every ring and deep pixel read (``lut``,
    ``m``: srgb_to_lab's decoding table and RGB→XYZ over the white)."""
    drop = np.empty(n_edge, dtype=np.bool_)
    between = _edge_near_surroundings(
        _flat(image), _flat(ring), _flat(deep), _flat(edge), lut, m, float(max_delta_e), drop
    )
    return float(between), drop


def dominant_pixels(
    pixels: NDArray[np.float64],
    window: tuple[float, float] | None,
    *,
    outlier_mad: float,
    min_outlier_radius: float,
    max_outlier_fraction: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """dominant.dominant_color's pixels before its PCA (N×3 Lab in, the rows it keeps out), their
    mean (L*, a*, b*) and how many rows were finite (a fourth value)."""
    means = np.empty(4)
    lo, hi = (-1.0, -1.0) if window is None else (float(window[0]), float(window[1]))
    kept = _dominant_pixels(
        np.ascontiguousarray(pixels, dtype=np.float64),
        lo,
        hi,
        float(outlier_mad),
        float(min_outlier_radius),
        float(max_outlier_fraction),
        means,
    )
    return kept, means


def lit_mean_saturation(lin: NDArray[np.float64]) -> float:
    """reflectance._mean_saturation of the brighter half (grey ≥ its median) of N×3 linear pixels."""
    return float(_lit_mean_saturation(np.ascontiguousarray(lin, dtype=np.float64)))


def three_differences(
    labs: NDArray[np.float64], lab: NDArray[np.float64], chroma_threshold: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """difference.three_differences of N×3 Lab colours against one."""
    n = len(labs)
    de, dc, dh = np.empty(n), np.empty(n), np.empty(n)
    ref = lab.reshape(3)
    _three_differences(
        np.ascontiguousarray(labs, dtype=np.float64),
        float(ref[0]),
        float(ref[1]),
        float(ref[2]),
        float(chroma_threshold),
        de,
        dc,
        dh,
    )
    return de, dc, dh


def unclipped_shading(rgb8: NDArray[np.uint8], table: NDArray[np.float64], clipped: int, factor: float) -> bool | None:
    """reflectance.unclipped_shading of N×3 8-bit pixels."""
    found = _unclipped_shading(np.ascontiguousarray(rgb8, dtype=np.uint8), table, int(clipped), float(factor))
    return None if found < 0 else bool(found)


def chroma_quantile(rgb8: NDArray[np.uint8], lut: NDArray[np.float64], m: NDArray[np.float64], q: float) -> float:
    """The ``q``-quantile of the chroma C*ab of N×3 8-bit pixels (srgb_to_lab's tables ``lut``, ``m``)."""
    return float(_chroma_quantile(_flat(rgb8), lut, m, float(q)))


def tree_ensemble(
    x: NDArray[np.float64],
    baseline: float,
    feature: NDArray[np.intp],
    threshold: NDArray[np.float64],
    left: NDArray[np.intp],
    right: NDArray[np.intp],
    value: NDArray[np.float64],
    leaf: NDArray[np.bool_],
) -> float:
    """gencolor.calibration.TreeEnsemble.predict at one input ``x``: the same value."""
    return float(_tree_ensemble(x, float(baseline), feature, threshold, left, right, value, leaf))


def lit_statistics(
    rgb8: NDArray[np.uint8],
    lut: NDArray[np.float64],
    m: NDArray[np.float64],
    table: NDArray[np.float64],
    clipped: int,
    lightness_q: NDArray[np.float64],
    chroma_q: NDArray[np.float64],
    saturation_q: NDArray[np.float64],
) -> NDArray[np.float64]:
    """gencolor.calibration.pixel_statistics of N×3 8-bit pixels (N ≥ 2; srgb_to_lab's tables
    ``lut``, ``m``; ``table`` the linearisation; the quantiles as float64 arrays): the same values."""
    out = np.empty(1 + len(saturation_q) + len(lightness_q) + len(chroma_q))
    _lit_statistics(_flat(rgb8), lut, m, table, int(clipped), lightness_q, chroma_q, saturation_q, out)
    return out


def darker_floor(
    image: NDArray[np.uint8],
    depth: NDArray[np.int32],
    interior: int,
    table: NDArray[np.float64],
    clipped: int,
    share: float,
    max_pixels: int,
) -> tuple[float, float] | None:
    """reflectance.darker_floor of an (H, W, 3) 8-bit image and its mask's depth: ``(floor, se)``, or
    None where there is none (an interior of more than ``max_pixels`` read on fit_sample's sample)."""
    out = np.empty(2)
    found = int(
        _darker_floor(
            _flat(image), _flat(depth), int(interior), table, int(clipped), float(share), int(max_pixels), out
        )
    )
    return (float(out[0]), float(out[1])) if found else None


def rim_saturation(
    image: NDArray[np.uint8],
    mask: NDArray[np.bool_],
    depth: NDArray[np.int32],
    band: tuple[int, int],
    table: NDArray[np.float64],
    clipped: int,
) -> float | None:
    """reflectance.rim_saturation of an (H, W, 3) 8-bit image, its mask and the mask's depth."""
    out = float(
        _rim_saturation(_flat(image), _flat(mask), _flat(depth), int(band[0]), int(band[1]), table, int(clipped))
    )
    return None if math.isnan(out) else out


def principal_axis(ab: NDArray[np.float64]) -> tuple[float, float, NDArray[np.float64]]:
    """The larger and smaller eigenvalues of the second moments (about the origin) of N×2 points,
    and the larger one's unit eigenvector (sign arbitrary)."""
    out = np.empty(4)
    _principal_axis(np.ascontiguousarray(ab, dtype=np.float64), out)
    return float(out[0]), float(out[1]), out[2:].copy()


def lit_plane(
    image: NDArray[np.uint8], where: NDArray[np.bool_], table: NDArray[np.float64], clipped: int
) -> tuple[int, NDArray[np.float64], NDArray[np.float64]]:
    """reflectance.light_colour's plane in one call: how many unclipped pixels lie under the mask,
    and (from 30) the eigenvalues (ascending) and eigenvectors (columns) of their Gram matrix."""
    evals, evecs = np.empty(3), np.empty((3, 3))
    n = int(_lit_plane(_flat(image), _flat(where), table, int(clipped), evals, evecs))
    return n, evals, evecs
