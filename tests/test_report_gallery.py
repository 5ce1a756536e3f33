"""Pictures in reports: thumbnails, gallery cards (escaped, failures first, filterable in the page),
heatmaps with colour swatches on the axes — and the known-colour diagnostic's report in Chromium."""

import base64
import io
import re

import numpy as np
import pytest
from PIL import Image

from huebench.report.gallery import GalleryItem, Metric, lab_hex, order_failures_first, thumbnail_uri
from huebench.report.html import Section, render_report
from huebench.report.svg import _contrast, _lerp_color, heatmap_svg, safe_hex

INJECTION = "<script>document.title='pwned'</script>"


def _decode(uri: str) -> np.ndarray:
    assert uri.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB"))


def test_thumbnail_keeps_small_images_and_outlines_the_mask():
    img = np.full((20, 30, 3), (200, 40, 40), dtype=np.uint8)  # a red object filling a grey frame
    img[:2], img[-2:], img[:, :2], img[:, -2:] = 128, 128, 128, 128
    mask = np.zeros((20, 30), dtype=bool)
    mask[5:15, 8:22] = True
    out = _decode(thumbnail_uri(img, mask))
    assert out.shape == (20, 30, 3)  # small renders stay as they are; the page enlarges them
    edge = mask & ~np.pad(mask[1:-1, 1:-1] & mask[:-2, 1:-1] & mask[2:, 1:-1] & mask[1:-1, :-2] & mask[1:-1, 2:], 1)
    inks = {tuple(v) for v in out[edge]}
    assert len(inks) == 1 and inks != {(200, 40, 40)}  # one outline colour, not the object's
    assert inks == {(0, 255, 255)}  # the outline farthest from red
    assert (out[mask & ~edge] == (200, 40, 40)).all() and (out[~mask] == img[~mask]).all()


def test_thumbnail_shrinks_large_images_and_refuses_bad_shapes():
    big = np.zeros((600, 300, 3), dtype=np.uint8)
    out = _decode(thumbnail_uri(big, np.ones((600, 300), dtype=bool), side=100))
    assert out.shape == (100, 50, 3)
    with pytest.raises(ValueError, match="H×W×3"):
        thumbnail_uri(np.zeros((4, 4), dtype=np.uint8))
    with pytest.raises(ValueError, match="mask shape"):
        thumbnail_uri(big, np.ones((10, 10), dtype=bool))


def test_gallery_items_take_only_hex_colours_and_png_data_uris():
    item = GalleryItem("x", False, swatches=[("ok", "#A0b1C2"), ("css", "url(http://example.com/x)"), ("name", "red")])
    assert item.swatches == [("ok", "#A0b1C2"), ("css", "#dddddd"), ("name", "#dddddd")]
    with pytest.raises(ValueError, match="data: URIs"):
        GalleryItem("x", True, images=["http://example.com/a.png"])
    assert safe_hex("#123456") == "#123456" and safe_hex("#12345") is None and safe_hex(None) is None
    assert lab_hex([100.0, 0.0, 0.0]) == "#FFFFFF" and lab_hex([0.0, 0.0, 0.0]) == "#000000" and lab_hex([]) is None


def test_failures_come_first_worst_first_then_the_rest_in_order():
    items = [
        GalleryItem("p1", True),
        GalleryItem("f-mild", False, sort_key=1.2),
        GalleryItem("na", None),
        GalleryItem("f-bad", False, sort_key=5.0),
        GalleryItem("p2", True),
    ]
    assert [i.title for i in order_failures_first(items)] == ["f-bad", "f-mild", "p1", "na", "p2"]
    assert Metric("ΔE00", 6.0, 5.0, False).text() == "ΔE00 6.00 > 5" and Metric("Δhue", None, 5.0, True).text() == (
        "Δhue n/a ≤ 5"
    )


def test_gallery_section_is_escaped_and_ordered_in_the_page():
    items = [
        GalleryItem("pass-" + INJECTION, True, reason="fine", tags={"family": "analytic"}),
        GalleryItem(
            "fail-card",
            False,
            reason=INJECTION,
            images=[thumbnail_uri(np.zeros((4, 4, 3), dtype=np.uint8))],
            swatches=[("target", "#ff0000"), ("dominant", "#00ff00")],
            metrics=[Metric("ΔE00", 7.5, 5.0, False)],
            tags={"family": INJECTION},
        ),
    ]
    html = render_report("t", [], [Section("Images", gallery=items)])
    assert "<script>document.title" not in html
    assert "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;" in html
    cards = re.findall(r'<div class="card (\w+)" data-status="(\w+)"', html)
    assert cards == [("fail", "fail"), ("pass", "pass")]  # failures first
    assert 'style="background: #ff0000"' in html and "ΔE00 7.50 &gt; 5" in html
    assert html.count('class="g-filter"') == 1 and "<script>" in html  # the page's own filter script


def test_heatmap_ramp_is_brewer_blues_and_its_numbers_stay_readable():
    assert (_lerp_color(0.0), _lerp_color(0.5), _lerp_color(1.0)) == ("#f7fbff", "#6baed6", "#08306b")
    assert _lerp_color(-1.0) == "#f7fbff" and _lerp_color(2.0) == "#08306b" and _lerp_color(float("nan")) == "#dddddd"
    assert _contrast("#000000", "#ffffff") == pytest.approx(21.0)
    # every cell's number, black or white, reaches WCAG AA (4.5:1) on its fill
    svg = heatmap_svg([[i / 40 for i in range(41)]], ["r"], [str(i) for i in range(41)])
    cells = re.findall(r'<rect x="[^"]+" y="[^"]+" width="[^"]+" height="[^"]+" fill="(#[0-9a-f]{6})"', svg)
    inks = re.findall(r'text-anchor="middle" fill="(#[0-9a-f]{3,6})">', svg)
    assert len(cells) == len(inks) == 41 and {"#000", "#fff"} == set(inks)
    assert min(_contrast(c, "#" + ink[1] * 6) for c, ink in zip(cells, inks, strict=True)) >= 4.5


def test_heatmap_draws_swatches_on_its_axes_and_skips_unsafe_colours():
    svg = heatmap_svg(
        [[1.0, 0.5], [0.0, None]], ["Red", "Blue"], ["a", "b"], row_colors=["#ff0000", "url(x)"], col_colors=None
    )
    assert svg.count('class="swatch"') == 1 and 'fill="#ff0000"' in svg and "url(x)" not in svg
