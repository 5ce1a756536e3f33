"""Model loading and the output cache under careless use: a wrong --device or --dtype, a damaged or
pickle checkpoint, a damaged or unwritable cache each end in one HuebenchError line that says what,
where and how to fix it — in Python and through the CLI (exit status 2, no traceback)."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from huebench.errors import HuebenchError
from huebench.runs.cache import CacheError, OutputCache

os.environ.setdefault("HF_HUB_OFFLINE", "1")

pytestmark = pytest.mark.robustness


def _line(excinfo: pytest.ExceptionInfo) -> str:
    """The error's message, checked to be a HuebenchError on one line."""
    assert isinstance(excinfo.value, HuebenchError), type(excinfo.value)
    text = str(excinfo.value)
    assert "\n" not in text and text.strip() == text and text, text
    return text


def _load(spec: str, **options):
    from huebench.models.registry import load_model

    return load_model(spec, **options)


@pytest.fixture
def bert(tiny, tmp_path) -> Path:
    """A private copy of the tiny BERT folder, free to damage."""
    folder = tmp_path / "bert"
    shutil.copytree(tiny("bert"), folder)
    return folder


@pytest.fixture
def no_cuda(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    return torch


# ------------------------------------------------------------------ --device
def test_cuda_without_cuda_is_refused_before_the_weights_are_read(bert, no_cuda):
    # the weights are damaged too: the device is checked first, so that is what the user hears
    (bert / "model.safetensors").write_bytes(b"\x00" * 5)
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}", device="cuda")
    line = _line(err)
    assert line.startswith("--device cuda: ") and "use --device cpu" in line


def test_a_gpu_index_beyond_the_gpus_here_is_refused(bert, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}", device="cuda:3")
    line = _line(err)
    assert "--device cuda:3" in line and "2 CUDA GPUs (cuda:0 … cuda:1)" in line and "choose one" in line


def test_mps_without_mps_is_refused(bert, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}", device="mps")
    line = _line(err)
    assert line.startswith("--device mps: ") and "MPS" in line and "--device cpu" in line


@pytest.mark.parametrize(
    ("device", "hint"),
    [("gpu", "'cuda'"), ("gpu:1", "'cuda:1'"), ("cdua", "'cuda'"), ("", "cpu, cuda"), ("cpu:1", "--device cpu")],
)
def test_a_nonsense_device_is_refused_with_what_to_use(bert, device, hint):
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}", device=device)
    line = _line(err)
    assert f"--device {device!r}" in line and hint in line


def test_device_spellings_are_normalised(bert):
    model = _load(f"hf:{bert}", device=" CPU ")
    assert model.device == "cpu" and model.describe()["device"] == "cpu"


def test_reference_and_api_backends_check_the_spelling_without_importing_torch():
    code = (
        "import sys\n"
        "from huebench.errors import HuebenchError\n"
        "from huebench.models.registry import load_model\n"
        "m = load_model('reference:random', device='cuda:1', dtype='bfloat16')\n"
        "assert m.device == 'cuda:1' and m.dtype == 'bfloat16'\n"
        "try:\n"
        "    load_model('reference:random', device='gpu')\n"
        "except HuebenchError as exc:\n"
        "    print(exc)\n"
        "try:\n"
        "    load_model('api:some-model', dtype='float64')\n"
        "except HuebenchError as exc:\n"
        "    print(exc)\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("--device 'gpu' is not a device") and "Did you mean 'cuda'?" in lines[0]
    assert lines[1].startswith("--dtype 'float64' is not supported")
    assert lines[2] == "False"


# ------------------------------------------------------------------ --dtype
def test_float64_is_refused_listing_what_is_accepted(bert):
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}", dtype="float64")
    line = _line(err)
    assert "--dtype 'float64' is not supported" in line
    assert "float32, float16, bfloat16" in line and "use --dtype float32" in line


@pytest.mark.parametrize(("dtype", "hint"), [("fp16", "'float16'"), ("bf16", "'bfloat16'"), ("int8", "float32")])
def test_an_unknown_dtype_is_refused_with_a_suggestion(bert, dtype, hint):
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}", dtype=dtype)
    assert hint in _line(err)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_on_the_cpu_is_allowed(bert, dtype):
    torch = pytest.importorskip("torch")
    model = _load(f"hf:{bert}", dtype=dtype)
    assert model.dtype == dtype and next(model.model.parameters()).dtype == getattr(torch, dtype)
    (score,) = model.mask_logprobs(["a [MASK] car"], ["red"])
    assert score[0] < 0


def test_a_dtype_the_accelerator_cannot_hold_is_refused_in_one_line(monkeypatch):
    torch = pytest.importorskip("torch")
    from huebench.models._torch import resolve_dtype

    def refuse(*args, **kwargs):
        raise RuntimeError("MPS BFloat16 is only supported on MacOS 14 or newer")

    monkeypatch.setattr(torch, "zeros", refuse)
    with pytest.raises(HuebenchError) as err:
        resolve_dtype("bfloat16", torch.device("mps"))
    line = _line(err)
    assert "--dtype bfloat16 cannot be used on --device mps" in line and "MacOS 14" in line


def test_openclip_refuses_a_dtype_it_would_not_apply():
    pytest.importorskip("torch")
    with pytest.raises(HuebenchError) as err:
        _load("openclip:ViT-B-32:openai", dtype="float16")
    line = _line(err)
    assert "float32 only" in line and "--dtype float32" in line


# ------------------------------------------------------------------ damaged checkpoints
def test_truncated_safetensors_names_the_file(bert):
    weights = bert / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}")
    line = _line(err)
    assert str(weights) in line and "truncated" in line and "download the checkpoint again" in line


@pytest.mark.parametrize(
    "content",
    [b"", b"\x01\x02\x03", (10**9).to_bytes(8, "little") + b"{}", (7).to_bytes(8, "little") + b"garbage"],
    ids=["empty", "shorter-than-header-length", "header-length-too-big", "header-not-json"],
)
def test_damaged_safetensors_headers_name_the_file(bert, content):
    (bert / "model.safetensors").write_bytes(content)
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}")
    line = _line(err)
    assert "model.safetensors is damaged or truncated" in line


def test_pickle_weights_are_refused_without_being_unpickled(bert, tmp_path):
    marker = tmp_path / "pickle-ran"

    class Payload:
        def __reduce__(self):
            return (Path(marker).touch, ())

    (bert / "model.safetensors").unlink()
    (bert / "pytorch_model.bin").write_bytes(pickle.dumps(Payload()))
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}")
    line = _line(err)
    assert not marker.exists()
    assert "pytorch_model.bin" in line and "pickle" in line and "arbitrary code" in line
    assert "BertForMaskedLM.from_pretrained(FOLDER).save_pretrained(FOLDER)" in line and "safetensors" in line


def test_a_real_torch_pickle_is_refused_too(bert):
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file

    weights = bert / "model.safetensors"
    torch.save(load_file(weights), bert / "pytorch_model.bin")
    weights.unlink()
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}")
    assert "pickle files only (pytorch_model.bin)" in _line(err)


def test_missing_weights_and_missing_shards_are_named(bert):
    weights = bert / "model.safetensors"
    shard = weights.rename(bert / "model-00001-of-00002.safetensors")
    index = {"metadata": {}, "weight_map": {"a": shard.name, "b": "model-00002-of-00002.safetensors"}}
    (bert / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}")
    line = _line(err)
    assert "model-00002-of-00002.safetensors" in line and "model.safetensors.index.json" in line
    shard.unlink()
    (bert / "model.safetensors.index.json").unlink()
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}")
    assert "no weights in" in _line(err)


@pytest.mark.parametrize("name", ["config.json", "tokenizer.json"])
def test_broken_json_in_the_folder_is_named(bert, name):
    (bert / name).write_text('{"model_type": "bert",', encoding="utf-8")
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}")
    line = _line(err)
    assert f"{bert / name} is not valid JSON" in line and "download the checkpoint again" in line


def test_missing_config_missing_folder_and_a_file_are_told_apart(bert):
    (bert / "config.json").unlink()
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}")
    assert "no config.json in" in _line(err)
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert}-nowhere")
    assert "no such folder" in _line(err)
    with pytest.raises(HuebenchError) as err:
        _load(f"hf:{bert / 'model.safetensors'}")
    assert "is a file; give the checkpoint's folder" in _line(err)


def test_what_the_library_raises_while_loading_becomes_one_line():
    """Hub checkpoints are not pre-checked: the libraries' own errors are translated."""
    from huebench.models._weights import loading

    safetensors = pytest.importorskip("safetensors")
    cases = [
        (safetensors.SafetensorError("Error while deserializing header:\nincomplete metadata"), "damaged or truncated"),
        (pickle.UnpicklingError("invalid load key, 'x'."), "pickle"),
        (OSError("Error no file named model.safetensors found in directory x."), "no safetensors weights"),
        (RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"), "out of memory while loading its weights"),
        (KeyError("vision_config"), "cannot load its weights: KeyError"),
    ]
    for exc, expected in cases:
        with pytest.raises(HuebenchError) as err, loading("hf:org/name", "org/name", "its weights"):
            raise exc
        line = _line(err)
        assert line.startswith("hf:org/name: ") and expected in line, line


def test_diffusers_pipeline_damaged_or_pickle_component_is_named(tiny, tmp_path):
    pytest.importorskip("diffusers")
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file

    folder = tmp_path / "sd"
    shutil.copytree(tiny("stable-diffusion"), folder)
    unet = folder / "unet" / "diffusion_pytorch_model.safetensors"
    data = unet.read_bytes()
    unet.write_bytes(data[:1000])
    with pytest.raises(HuebenchError) as err:
        _load(f"diffusers:{folder}")
    assert f"{unet} is damaged or truncated" in _line(err)
    unet.write_bytes(data)
    torch.save(load_file(unet), unet.with_suffix(".bin"))
    unet.unlink()
    with pytest.raises(HuebenchError) as err:
        _load(f"diffusers:{folder}")
    line = _line(err)
    assert "diffusion_pytorch_model.bin" in line and "pickle" in line and str(folder / "unet") in line


def test_openclip_refuses_a_pickle_checkpoint_path(tmp_path):
    pytest.importorskip("torch")
    ckpt = tmp_path / "clip.pt"
    ckpt.write_bytes(b"not loaded")
    with pytest.raises(HuebenchError) as err:
        _load(f"openclip:ViT-B-32:{ckpt}")
    line = _line(err)
    assert str(ckpt) in line and "pickle" in line and ".safetensors" in line


# ------------------------------------------------------------------ the output cache
def _filled_cache(path: Path, n: int = 2000) -> bytes:
    with OutputCache(path) as cache:
        cache.put_many([(f"k{i}", "fp", "cap", {"v": "x" * 100, "i": i}) for i in range(n)])
    return path.read_bytes()


@pytest.mark.parametrize("keep", [50, 100, 4096, 0.5, -4096])
def test_a_truncated_cache_is_named_with_the_fix(tmp_path, keep):
    path = tmp_path / "c.sqlite"
    data = _filled_cache(path)
    cut = int(len(data) * keep) if isinstance(keep, float) else keep if keep > 0 else len(data) + keep
    path.write_bytes(data[:cut])
    with pytest.raises(CacheError) as err:
        OutputCache(path)
    line = _line(err)
    assert line.startswith(f"cache {path}: the file is damaged")
    assert "delete it" in line and "--no-cache" in line and "--cache FILE" in line


def test_garbage_and_damage_inside_the_file_are_found_when_it_is_opened(tmp_path):
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"these are not the bytes of a database " * 100)
    with pytest.raises(CacheError) as err:
        OutputCache(path)
    assert "not a database" in _line(err)
    path = tmp_path / "d.sqlite"
    data = bytearray(_filled_cache(path))
    data[4096 * 20 : 4096 * 40] = b"\xab" * (4096 * 20)
    path.write_bytes(bytes(data))
    with pytest.raises(CacheError) as err:
        OutputCache(path)
    assert f"cache {path}: the file is damaged" in _line(err)


def test_damage_met_while_reading_is_one_line_too(tmp_path, monkeypatch):
    import huebench.runs.cache as cache_module

    path = tmp_path / "c.sqlite"
    data = bytearray(_filled_cache(path))
    data[4096 * 20 : 4096 * 40] = b"\xab" * (4096 * 20)
    path.write_bytes(bytes(data))
    monkeypatch.setattr(cache_module, "_CHECK_LIMIT", 0)  # as for a file too big to check whole at open
    cache = OutputCache(path)
    with pytest.raises(CacheError) as err:
        cache.get_many([f"k{i}" for i in range(2000)])
    assert f"cache {path}: the file is damaged" in _line(err)
    with pytest.raises(CacheError) as err:
        cache.put_many([(f"k{i}", "fp", "cap", 1) for i in range(2000)])
    assert "delete it" in _line(err)
    cache.close()


def test_an_entry_that_no_longer_decodes_is_a_miss_and_is_replaced(tmp_path):
    path = tmp_path / "c.sqlite"
    _filled_cache(path, 3)
    con = sqlite3.connect(path)
    con.execute("UPDATE outputs SET value = '{broken' WHERE key = 'k1'")
    con.commit()
    con.close()
    with OutputCache(path) as cache:
        assert set(cache.get_many(["k0", "k1", "k2"])) == {"k0", "k2"}
        cache.put_many([("k1", "fp", "cap", {"v": 1})])
        assert cache.get("k1") == {"v": 1}


def test_a_database_of_something_else_is_left_untouched(tmp_path):
    path = tmp_path / "mine.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE people (name TEXT)")
    con.execute("INSERT INTO people VALUES ('Ada')")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(CacheError) as err:
        OutputCache(path)
    line = _line(err)
    assert "database of something else (tables: people)" in line and "left untouched" in line
    assert path.read_bytes() == before and not Path(f"{path}-wal").exists()
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE outputs (a, b)")
    con.commit()
    con.close()
    with pytest.raises(CacheError) as err:
        OutputCache(other)
    assert "'outputs' table has columns a, b" in _line(err)


def test_an_unusable_cache_place_is_named(tmp_path, monkeypatch):
    with pytest.raises(CacheError) as err:
        OutputCache(tmp_path)
    assert f"cache {tmp_path}: is a folder" in _line(err)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for path in (blocker / "c.sqlite", blocker / "sub" / "c.sqlite"):
        with pytest.raises(CacheError) as err:
            OutputCache(path)
        line = _line(err)
        assert f"cache {path}: cannot create its folder {path.parent} ({blocker} is a file)" in line
        assert "--cache FILE" in line and "--no-cache" in line

    def no_permission(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", no_permission)
    path = tmp_path / "locked" / "c.sqlite"
    with pytest.raises(CacheError) as err:
        OutputCache(path)
    assert f"cache {path}: cannot create its folder {path.parent} (Permission denied)" in _line(err)


@pytest.mark.parametrize(
    "message", ["unable to open database file", "attempt to write a readonly database", "disk I/O error"]
)
def test_sqlite_refusing_to_open_or_write_is_named(tmp_path, monkeypatch, message):
    def refuse(*args, **kwargs):
        raise sqlite3.OperationalError(message)

    monkeypatch.setattr(sqlite3, "connect", refuse)
    path = tmp_path / "c.sqlite"
    with pytest.raises(CacheError) as err:
        OutputCache(path)
    line = _line(err)
    assert line.startswith(f"cache {path}: cannot open it ({message})") and "--no-cache" in line


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write anywhere")
def test_a_read_only_folder_is_named(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(CacheError) as err:
            OutputCache(folder / "c.sqlite")
        assert f"cache {folder / 'c.sqlite'}: cannot open it" in _line(err)
    finally:
        folder.chmod(0o700)


# ------------------------------------------------------------------ through the CLI
@pytest.fixture
def cli(cli):
    """conftest's ``cli``, keeping (status, stderr): these tests read the error line only."""

    def invoke(*args: object) -> tuple[int, str]:
        code, _, err = cli(*args)
        return code, err

    return invoke


def _one_line_error(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err and lines[0].startswith("error: ")
    return lines[0]


def _run_args(model: str, out: Path, *extra: object) -> list[object]:
    return ["run", "colornames", "-m", model, "--out", out, "--no-progress", *extra]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (("--device", "cuda"), "--device cuda: "),
        (("--device", "gpu"), "Did you mean 'cuda'?"),
        (("--dtype", "float64"), "accepted are float32, float16, bfloat16"),
    ],
)
def test_cli_device_and_dtype_errors_exit_2_in_one_line(cli, bert, no_cuda, tmp_path, extra, expected):
    out = tmp_path / "run"
    code, err = cli(*_run_args(f"hf:{bert}", out, "--no-cache", *extra))
    assert code == 2 and expected in _one_line_error(err)
    assert not out.exists()


def test_cli_damaged_weights_exit_2_in_one_line(cli, bert, tmp_path):
    (bert / "model.safetensors").write_bytes(b"\x00" * 20)
    code, err = cli(*_run_args(f"hf:{bert}", tmp_path / "run", "--no-cache"))
    assert code == 2 and "model.safetensors is damaged or truncated" in _one_line_error(err)


def test_cli_damaged_cache_exit_2_in_one_line_and_no_cache_gets_past_it(cli, tmp_path):
    cache = tmp_path / "c.sqlite"
    cache.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    code, err = cli(*_run_args("reference:random", tmp_path / "a", "--cache", cache, "--limit", 3))
    line = _one_line_error(err)
    assert code == 2 and str(cache) in line and "delete it" in line and "--no-cache" in line
    assert not (tmp_path / "a").exists()
    code, err = cli(*_run_args("reference:random", tmp_path / "b", "--no-cache", "--limit", 3))
    assert code == 0, err


def test_cli_in_a_real_process_prints_no_traceback(bert, tmp_path):
    """The console entry point in its own process: ``--device cuda:99`` exists on no machine."""
    for extra in (("--device", "cuda:99"), ("--dtype", "float64")):
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                "from huebench.cli import main; main()",
                *map(str, _run_args(f"hf:{bert}", tmp_path / "run", "--no-cache", *extra)),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
        assert proc.returncode == 2, proc.stderr
        line = _one_line_error(proc.stderr)
        assert extra[0] in line and extra[1] in line
