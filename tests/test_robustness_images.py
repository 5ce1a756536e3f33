"""Images and data roots: the pixel budget (checked from the header, before decoding), bit depths
converted by what the file declares, one rule for paths inside a data root, and the GenColorBench
image store's meta.json and prompt ids."""

import json
import struct
import subprocess
import sys
import time
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFile

from huebench.benchmarks.coda.dataset import load_dataset
from huebench.benchmarks.colorswap.data import load_examples
from huebench.benchmarks.gencolor.pipeline import ObjectMasker
from huebench.benchmarks.gencolor.prompts import load_prompts
from huebench.benchmarks.gencolor.store import ImageStore, check_prompt_id
from huebench.benchmarks.rainbow.benchmark import load_probes
from huebench.errors import HuebenchError
from huebench.images import DEFAULT_MAX_PIXELS, ImageLoadError, load_image, max_pixels, to_rgb
from huebench.io import InputFileError
from huebench.paths import DataRootError, resolve_under
from huebench.runs.runner import evaluate
from huebench.testing.data import make_coda_dataset, make_colorswap_dataset

pytestmark = pytest.mark.robustness


# ---------------------------------------------------------------- PNG writing (any depth, any size)
def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png(path: Path, arr: np.ndarray, colour_type: int, bit_depth: int = 16) -> Path:
    """A PNG of ``arr`` (H×W or H×W×C) with the given colour type and depth; Pillow cannot write
    16-bit colour PNGs, so they are written here."""
    h, w = arr.shape[:2]
    dtype = ">u2" if bit_depth == 16 else "u1"
    raw = b"".join(b"\x00" + np.ascontiguousarray(arr[y]).astype(dtype).tobytes() for y in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, colour_type, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")
    )
    return path


def _huge_grey_png(path: Path, side: int) -> Path:
    """A valid side×side 8-bit grey PNG, streamed: a few hundred KB on disk, side² bytes decoded."""
    comp = zlib.compressobj(9)
    row = b"\x00" * (side + 1)
    parts = [comp.compress(row) for _ in range(side)]
    data = b"".join(parts) + comp.flush()
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", data) + _chunk(b"IEND", b""))
    return path


# ---------------------------------------------------------------- pixel budget
def test_a_12000_square_png_is_refused_from_its_header(tmp_path, monkeypatch):
    monkeypatch.delenv("HUEBENCH_MAX_PIXELS", raising=False)
    p = _huge_grey_png(tmp_path / "huge.png", 12_000)
    assert p.stat().st_size < 1_000_000  # small on disk, 144 MB once decoded

    def never(self, *a, **k):
        raise AssertionError("the image was decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", never)
    tracemalloc.start()
    started = time.perf_counter()
    with pytest.raises(ImageLoadError) as info:
        load_image(p)
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    message = str(info.value)
    assert "huge.png: 12000×12000 image (144000000 pixels) exceeds the 40000000-pixel limit" in message
    assert "HUEBENCH_MAX_PIXELS" in message and "\n" not in message
    assert seconds < 2.0 and peak < 20_000_000


def test_default_budget_is_40_megapixels_and_read_when_checked(tmp_path, monkeypatch):
    monkeypatch.delenv("HUEBENCH_MAX_PIXELS", raising=False)
    assert max_pixels() == DEFAULT_MAX_PIXELS == 40_000_000
    p = tmp_path / "a.png"
    Image.new("RGB", (40, 30), (1, 2, 3)).save(p)
    monkeypatch.setenv("HUEBENCH_MAX_PIXELS", "1199")  # set after import: still applies
    with pytest.raises(ImageLoadError, match=r"40×30 image \(1200 pixels\) exceeds the 1199-pixel limit"):
        load_image(p)
    monkeypatch.setenv("HUEBENCH_MAX_PIXELS", "1200")
    assert load_image(p).size == (40, 30)
    monkeypatch.setenv("HUEBENCH_MAX_PIXELS", "")  # empty = unset
    assert max_pixels() == DEFAULT_MAX_PIXELS


@pytest.mark.parametrize("bad", ["abc", "0", "-5", "1.5", "4e7", "40 MP"])
def test_bad_pixel_budget_is_a_one_line_error(tmp_path, monkeypatch, bad):
    p = tmp_path / "a.png"
    Image.new("RGB", (4, 4)).save(p)
    monkeypatch.setenv("HUEBENCH_MAX_PIXELS", bad)
    with pytest.raises(HuebenchError) as info:
        load_image(p)
    message = str(info.value)
    assert message.startswith(f"HUEBENCH_MAX_PIXELS={bad!r} is not a pixel budget")
    assert "positive whole number of pixels" in message and "\n" not in message


def test_bad_pixel_budget_does_not_break_import():
    env = {"HUEBENCH_MAX_PIXELS": "abc", "PATH": "/usr/bin:/bin"}
    r = subprocess.run(
        [sys.executable, "-c", "import huebench.images, huebench.benchmarks.gencolor.store"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr


def test_pil_bomb_limit_never_speaks_first(tmp_path, monkeypatch):
    p = tmp_path / "a.png"
    Image.new("L", (100, 100), 7).save(p)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)  # PIL alone would refuse 10 000 pixels
    monkeypatch.delenv("HUEBENCH_MAX_PIXELS", raising=False)
    assert load_image(p).getpixel((0, 0)) == (7, 7, 7)  # within huebench's budget: accepted
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    monkeypatch.setenv("HUEBENCH_MAX_PIXELS", "4000")  # PIL refuses at twice its limit, while opening
    with pytest.raises(ImageLoadError, match=r"a.png: image \(10000 pixels\) exceeds the 4000-pixel limit"):
        load_image(p)


def test_masks_are_held_to_the_budget(tmp_path, monkeypatch):
    (tmp_path / "M" / "p1").mkdir(parents=True)
    Image.new("L", (20, 20), 255).save(tmp_path / "M" / "p1" / "0.car.png")
    masker = ObjectMasker(lambda *a: [], masks_dir=tmp_path / "M")
    assert masker.user_mask("p1", 0, "car", (20, 20)).all()
    monkeypatch.setenv("HUEBENCH_MAX_PIXELS", "100")
    with pytest.raises(ImageLoadError, match="0.car.png: 20×20 image"):
        masker.user_mask("p1", 0, "car", (20, 20))


# ---------------------------------------------------------------- bit depths
def _rgb(p) -> np.ndarray:
    return np.asarray(load_image(p), dtype=int)


def test_16bit_grey_by_bit_depth_not_by_the_images_maximum(tmp_path):
    only = np.full((2, 2), 200, np.uint16)
    mixed = only.copy()
    mixed[0, 0] = 65535
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    Image.fromarray(only).save(a)
    Image.fromarray(mixed).save(b)
    assert _rgb(a)[1, 1].tolist() == _rgb(b)[1, 1].tolist() == [0, 0, 0]  # 200/65535 is black
    assert _rgb(b)[0, 0].tolist() == [255, 255, 255]
    levels = np.array([[0, 257 * 100, 51400, 65535]], np.uint16)  # 8-bit v stored as v·257
    c = _png(tmp_path / "c.png", levels, colour_type=0)
    assert _rgb(c)[0, :, 0].tolist() == [0, 100, 200, 255]


def test_16bit_colour_pngs_agree_with_16bit_grey(tmp_path):
    with Image.open(_png(tmp_path / "probe.png", np.zeros((1, 1, 3), np.uint16), colour_type=2)) as im:
        assert im.mode == "RGB"  # Pillow decodes 16-bit colour to 8 bits itself (the top byte)
    rgb = np.zeros((2, 3, 3), np.uint16)
    rgb[0] = [[51400, 12850, 65535], [200, 200, 200], [32768, 0, 255]]
    rgb[1] = [[51400, 51400, 51400], [0, 0, 0], [65535, 65535, 65535]]
    got = _rgb(_png(tmp_path / "rgb.png", rgb, colour_type=2))
    assert got[0].tolist() == [[200, 50, 255], [0, 0, 0], [128, 0, 0]]
    grey = _rgb(_png(tmp_path / "grey.png", rgb[1, :, 0].reshape(1, 3), colour_type=0))
    assert grey[0].tolist() == got[1].tolist()  # same samples, same 8-bit values, grey or colour
    rgba = np.zeros((1, 2, 4), np.uint16)
    rgba[0] = [[51400, 12850, 65535, 65535], [0, 0, 0, 0]]  # opaque, then transparent → white paper
    assert _rgb(_png(tmp_path / "rgba.png", rgba, colour_type=6))[0].tolist() == [[200, 50, 255], [255, 255, 255]]
    la = np.zeros((1, 2, 2), np.uint16)
    la[0] = [[51400, 65535], [51400, 0]]
    assert _rgb(_png(tmp_path / "la.png", la, colour_type=4))[0].tolist() == [[200] * 3, [255] * 3]


def test_16bit_pgm_and_tiff(tmp_path):
    pgm = tmp_path / "a.pgm"
    pgm.write_bytes(b"P5\n3 1\n65535\n" + np.array([65535, 51400, 200], ">u2").tobytes())
    assert _rgb(pgm)[0, :, 0].tolist() == [255, 200, 0]
    ten_bit = tmp_path / "b.pgm"  # maxval 1023: Pillow scales to 16 bits, then the top byte
    ten_bit.write_bytes(b"P5\n2 1\n1023\n" + np.array([1023, 512], ">u2").tobytes())
    assert _rgb(ten_bit)[0, :, 0].tolist() == [255, 128]
    tif = tmp_path / "c.tif"
    Image.fromarray(np.array([[51400, 200]], np.uint16)).save(tif)
    assert _rgb(tif)[0, :, 0].tolist() == [200, 0]


def test_float_images_are_nominal_0_to_1_clipped(tmp_path):
    values = np.array([[-0.5, 0.0, 0.5, 1.0, 7.0]], np.float32)
    p = tmp_path / "f.tif"
    Image.fromarray(values).save(p)
    with Image.open(p) as im:
        assert im.mode == "F"
    assert _rgb(p)[0, :, 0].tolist() == [0, 0, 128, 255, 255]
    other = tmp_path / "g.tif"  # a different range elsewhere in the image changes nothing
    Image.fromarray(np.array([[0.5, 1000.0]], np.float32)).save(other)
    assert _rgb(other)[0, 0, 0] == 128
    nan = tmp_path / "n.tif"
    Image.fromarray(np.array([[0.5, np.nan]], np.float32)).save(nan)
    with pytest.raises(ImageLoadError, match="n.tif: cannot convert a float .* NaN"):
        load_image(nan)


def test_32bit_integers_without_a_nominal_white_are_refused(tmp_path):
    p = tmp_path / "i.tif"
    Image.fromarray(np.array([[70000, 5]], np.int32)).save(p)  # signed 32-bit samples
    with pytest.raises(ImageLoadError, match="i.tif: cannot convert this I-mode image to 8-bit: signed 32-bit"):
        load_image(p)
    with pytest.raises(ImageLoadError, match="without a declared bit depth"):
        to_rgb(Image.fromarray(np.array([[70000, 5]], np.int32)))
    assert to_rgb(Image.fromarray(np.array([[70000, 5]], np.int32)), white=2**32 - 1).getpixel((0, 0)) == (0, 0, 0)


def test_transparency_colour_of_grey_and_rgb_images_becomes_white(tmp_path):
    rgb = tmp_path / "t.png"
    Image.new("RGB", (2, 1), (10, 20, 30)).save(rgb, transparency=(10, 20, 30))
    assert _rgb(rgb)[0, 0].tolist() == [255, 255, 255]
    grey16 = tmp_path / "g.png"
    Image.fromarray(np.array([[0, 51400]], np.uint16)).save(grey16, transparency=0)
    assert _rgb(grey16)[0].tolist() == [[255, 255, 255], [200, 200, 200]]


# ---------------------------------------------------------------- one rule for data roots
def _outside_png(tmp_path: Path) -> Path:
    out = tmp_path / "elsewhere"
    out.mkdir(exist_ok=True)
    Image.new("RGB", (4, 4), (1, 2, 3)).save(out / "x.png")
    return out / "x.png"


SHAPE = r"escapes the data root .*: .* is a symlink to .*elsewhere.*, outside it; keep the file inside"


def test_resolve_under_walks_each_component(tmp_path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.png").write_bytes(b"x")
    (root / "in").symlink_to(root / "sub")  # a link that stays inside
    (tmp_path / "elsewhere").mkdir()
    (root / "out").symlink_to(tmp_path / "elsewhere")
    assert resolve_under(root, "in/a.png") == (root / "sub" / "a.png").resolve()
    assert resolve_under(root, "sub/../sub/a.png") == (root / "sub" / "a.png").resolve()
    assert resolve_under(root, "not/yet/there.png") == root.resolve() / "not" / "yet" / "there.png"
    with pytest.raises(DataRootError, match=SHAPE):
        resolve_under(root, "out/b.png", what="image")
    with pytest.raises(DataRootError, match=SHAPE):
        resolve_under(root, "out/../sub/a.png", what="image")  # passes outside on the way
    with pytest.raises(DataRootError, match=r"image '\.\./x' escapes the data root"):
        resolve_under(root, "../x", what="image")
    with pytest.raises(DataRootError, match="is absolute"):
        resolve_under(root, "/etc/passwd", what="image")
    (root / "loop").symlink_to(root / "loop")
    with pytest.raises(DataRootError, match="cannot be resolved"):
        resolve_under(root, "loop/a.png")
    # the root itself may be a link
    (tmp_path / "alias").symlink_to(root)
    assert resolve_under(tmp_path / "alias", "sub/a.png") == (root / "sub" / "a.png").resolve()


def test_gencolor_store_refuses_symlinks_out_and_accepts_links_inside(tmp_path):
    root = tmp_path / "images"
    store = ImageStore(root)
    gen = {"spec": "x", "fingerprint": "f"}
    store.write("p-1", 0, Image.new("RGB", (4, 4), (9, 9, 9)), seed=1, prompt={}, generator=gen)
    (root / "p-2").mkdir()
    (root / "p-2" / "0.png").symlink_to(root / "p-1" / "0.png")  # inside the root: fine
    assert store.status("p-2", 0) == "unverified" and store.status("p-1", 0) == "verified"
    (root / "p-2" / "1.png").symlink_to(_outside_png(tmp_path))
    with pytest.raises(DataRootError, match=r"image 'p-2/1\.png' " + SHAPE):
        store.status("p-2", 1)
    (root / "p-3").symlink_to(tmp_path / "elsewhere")  # a whole prompt folder
    with pytest.raises(DataRootError, match=r"'p-3/0\.png' " + SHAPE):
        store.image_path("p-3", 0)
    with pytest.raises(DataRootError, match=SHAPE):
        store.write("p-3", 0, Image.new("RGB", (4, 4)), seed=1, prompt={}, generator=gen)
    assert not (tmp_path / "elsewhere" / "meta.json").exists()  # nothing written outside
    (root / "p-4").mkdir()
    (root / "p-4" / "meta.json").symlink_to(tmp_path / "elsewhere" / "meta.json")
    with pytest.raises(DataRootError, match=r"image metadata 'p-4/meta\.json' escapes the data root"):
        store.meta("p-4")


def test_colorswap_loader_refuses_symlinks_out(tmp_path):
    data = make_colorswap_dataset(tmp_path / "cs", n_train=0, n_test=2)
    target = data / "images" / "1_1.png"
    target.unlink()
    target.symlink_to(_outside_png(tmp_path))
    with pytest.raises(InputFileError, match=r"examples.jsonl:2: image_1 'images/1_1\.png' " + SHAPE):
        load_examples(data)
    target.unlink()
    target.symlink_to(data / "images" / "0_1.png")  # a link inside the root is fine
    assert len(load_examples(data)) == 2
    other = tmp_path / "elsewhere" / "examples.jsonl"
    other.write_text((data / "examples.jsonl").read_text())
    (data / "examples.jsonl").unlink()
    (data / "examples.jsonl").symlink_to(other)
    with pytest.raises(DataRootError, match=r"examples file 'examples\.jsonl' " + SHAPE):
        load_examples(data)


def _rainbow_probes(folder: Path) -> None:
    folder.mkdir(parents=True)
    probe = {
        "id": "c1-r0",
        "caption_id": "c1",
        "image": "img/1.png",
        "kind": "replacement",
        "text": "a red car",
        "foil": "a blue car",
        "original_color": "red",
        "foil_color": "blue",
        "relation": "other",
    }
    (folder / "replacements.jsonl").write_text(json.dumps(probe) + "\n")
    (folder / "swaps.jsonl").write_text("")


def test_rainbow_refuses_symlinks_out(tmp_path):
    root = tmp_path / "root"
    (root / "img").mkdir(parents=True)
    _rainbow_probes(root / "probes")
    (root / "img" / "1.png").symlink_to(_outside_png(tmp_path))
    res = evaluate(
        "rainbow",
        "reference:random",
        out=tmp_path / "r",
        no_cache=True,
        progress=False,
        probes=str(root / "probes"),
        images=str(root),
    )
    (rec,) = res.records
    assert rec["status"] == "error"
    assert rec["reason"].startswith("DataRootError: image 'img/1.png' escapes the data root")
    assert "is a symlink to" in rec["reason"] and "outside it; keep the file inside" in rec["reason"]
    (root / "probes" / "swaps.jsonl").unlink()
    (tmp_path / "elsewhere" / "swaps.jsonl").write_text("")
    (root / "probes" / "swaps.jsonl").symlink_to(tmp_path / "elsewhere" / "swaps.jsonl")
    with pytest.raises(DataRootError, match=r"probe file 'swaps\.jsonl' " + SHAPE):
        load_probes(root / "probes")


def test_coda_folder_and_masks_follow_the_same_rule(tmp_path):
    coda = make_coda_dataset(tmp_path / "coda")
    assert len(load_dataset(coda)) > 0
    built = coda / "objects.jsonl"
    moved = tmp_path / "elsewhere" / "objects.jsonl"
    moved.parent.mkdir(exist_ok=True)
    built.rename(moved)
    built.symlink_to(moved)
    with pytest.raises(DataRootError, match=r"objects file 'objects\.jsonl' " + SHAPE):
        load_dataset(coda)
    assert len(load_dataset(moved)) > 0  # the file named directly is the user's own choice
    masks = tmp_path / "M"
    (masks / "p1").mkdir(parents=True)
    (masks / "p1" / "0.car.png").symlink_to(_outside_png(tmp_path))
    masker = ObjectMasker(lambda *a: [], masks_dir=masks)
    with pytest.raises(DataRootError, match=r"mask 'p1/0\.car\.png' " + SHAPE):
        masker.user_mask("p1", 0, "car", (4, 4))


# ---------------------------------------------------------------- the image store's meta.json
def _store_with_one_image(tmp_path: Path) -> tuple[ImageStore, Path]:
    store = ImageStore(tmp_path / "images")
    store.write("p-1", 0, Image.new("RGB", (4, 4)), seed=1, prompt={}, generator={"spec": "x", "fingerprint": "f"})
    return store, tmp_path / "images" / "p-1" / "meta.json"


def test_meta_entry_without_sha256_names_file_entry_and_fix(tmp_path):
    store, meta = _store_with_one_image(tmp_path)
    data = json.loads(meta.read_text())
    del data["images"]["0"]["sha256"]
    meta.write_text(json.dumps(data))
    with pytest.raises(InputFileError) as info:
        store.status("p-1", 0)
    message = str(info.value)
    assert "meta.json: images['0'] has no 'sha256'" in message and "\n" not in message
    assert "delete" in message and "unverified" in message


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "image metadata must be a JSON object, found a list"),
        ('{"images": []}', "'images' must be a JSON object, found a list"),
        ('{"images": {"0": "abc"}}', r"images\['0'\] must be a JSON object, found a str"),
        ('{"images": {"0": {"sha256": 5}}}', r"images\['0'\]: 'sha256' is not a SHA-256 hex digest"),
        ('{"images": {"x": {"sha256": "0"}}}', r"images\['x'\]: keys of 'images' must be image indices"),
        ('{"generator": "sd", "images": {}}', "'generator' must be a JSON object, found a str"),
    ],
)
def test_malformed_meta_json_is_an_error_naming_the_file(tmp_path, content, message):
    store, meta = _store_with_one_image(tmp_path)
    meta.write_text(content)
    with pytest.raises(InputFileError, match=f"meta.json: {message}.*delete"):
        store.status("p-1", 0)
    with pytest.raises(InputFileError, match=message):
        store.write("p-1", 1, Image.new("RGB", (4, 4)), seed=1, prompt={}, generator={"spec": "x", "fingerprint": "f"})


def test_meta_json_as_a_list_is_a_recorded_failure_in_a_scoring_run(tmp_path):
    from huebench.benchmarks.gencolor.prompts import build_suite

    recs = [r for r in build_suite("mini") if r["task"] == "cna"][:2]
    for r in recs:
        (tmp_path / "images" / r["id"]).mkdir(parents=True)
        Image.new("RGB", (32, 32), (200, 30, 30)).save(tmp_path / "images" / r["id"] / "0.png")
    (tmp_path / "images" / recs[1]["id"] / "meta.json").write_text("[]")
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps(r) + "\n" for r in recs))
    res = evaluate(
        "gencolorbench",
        "reference:none",
        out=tmp_path / "run",
        no_cache=True,
        progress=False,
        prompts=str(prompts),
        images=str(tmp_path / "images"),
        n=1,
    )
    ok = [r for r in res.records if r["status"] == "ok"]
    (bad,) = [r for r in res.records if r["status"] == "error"]
    assert [r["prompt_id"] for r in ok] == [recs[0]["id"]] and bad["id"].startswith(recs[1]["id"])
    assert f"{recs[1]['id']}/meta.json: image metadata must be a JSON object, found a list" in bad["reason"]
    assert "\n" not in bad["reason"]


# ---------------------------------------------------------------- prompt ids
@pytest.mark.parametrize("pid", ["cna-l2-00017\n", "cna-l2-00017\r", "cna-l2-00017 ", "\ncna-l2-00017"])
def test_prompt_ids_with_trailing_newline_or_space_are_refused(tmp_path, pid):
    with pytest.raises(InputFileError, match="cannot name a folder"):
        check_prompt_id(pid)
    with pytest.raises(InputFileError, match="cannot name a folder"):
        ImageStore(tmp_path).image_path(pid, 0)
    assert check_prompt_id("cna-l2-00017") == "cna-l2-00017"


def test_prompt_file_with_a_newline_in_an_id_names_the_line(tmp_path):
    from huebench.benchmarks.gencolor.prompts import build_suite

    recs = build_suite("mini")[:2]
    recs[1] = {**recs[1], "id": recs[1]["id"] + "\n"}
    p = tmp_path / "p.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(InputFileError, match=r"p\.jsonl:2: prompt id .*\\n' cannot name a folder"):
        load_prompts(p)
