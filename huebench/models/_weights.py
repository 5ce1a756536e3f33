"""Checkpoint checks: a damaged or unsafe checkpoint is refused in one line that names the file.

Weights are loaded from safetensors only. A pickle file (``pytorch_model.bin``, ``*.pt``, …) can
run arbitrary code while it is read, so it is never loaded: the loaders are called with
``use_safetensors=True``, and a local folder whose weights are pickles only is refused before
the library is asked, with how to convert it.

For a local folder the files are checked before loading (cheap: headers and sizes only):
``config.json`` present and valid JSON, every ``*.safetensors`` file as long as its header says,
every shard a ``*.safetensors.index.json`` names present. What the libraries still raise while
loading (a hub checkpoint, a damage the checks cannot see) goes through :func:`loading`, which
turns the known failure kinds into one line too.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from huebench.errors import HuebenchError

__all__ = [
    "OFFLINE_SET_HINT",
    "CheckpointError",
    "check_diffusers_folder",
    "check_safetensors_file",
    "check_transformers_folder",
    "is_path_like",
    "loading",
    "one_line",
]

PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
# pickles a training run leaves next to the weights; not weights themselves
_NOT_WEIGHTS = ("training_args", "optimizer", "scheduler", "rng_state", "trainer_state")
_MAX_HEADER = 100 << 20  # safetensors' own limit on the JSON header

#: said when a Hub model fails to load with HF_HUB_OFFLINE=1 set
OFFLINE_SET_HINT = (
    " (HF_HUB_OFFLINE=1 is set: only local folders and cached downloads work; "
    "`huebench prefetch -m MODEL` downloads a model ahead of time on a connected machine)"
)

_PICKLE_WHY = "huebench does not load pickle weights, because unpickling a file can run arbitrary code"


class CheckpointError(HuebenchError, ValueError):
    """A checkpoint that cannot (or may not) be loaded; the message names the file and the fix."""


def one_line(exc: BaseException | str, limit: int = 300) -> str:
    """An exception's text on one line, shortened to ``limit`` characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_path_like(ident: str) -> bool:
    """Whether ``ident`` can only be a path (a hub id is ``name`` or ``org/name``)."""
    return ident.startswith(("/", "./", "../", "~", ".\\", "..\\")) or ident.count("/") > 1 or "\\" in ident


def _pickle_weights(folder: Path) -> list[Path]:
    return sorted(
        f
        for f in folder.iterdir()
        if f.is_file() and f.suffix.lower() in PICKLE_SUFFIXES and not f.name.startswith(_NOT_WEIGHTS)
    )


def check_safetensors_file(path: Path, spec: str) -> None:
    """Refuse a ``.safetensors`` file whose header is unreadable or whose data is cut short."""
    fix = "copy or download the checkpoint again (or save it again with save_pretrained)"

    def damaged(why: str) -> CheckpointError:
        return CheckpointError(f"{spec}: weights file {path} is damaged or truncated ({why}); {fix}")

    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(8)
            if len(head) < 8:
                raise damaged(f"{size} bytes, shorter than the 8-byte header length")
            n = int.from_bytes(head, "little")
            if n > min(size - 8, _MAX_HEADER):
                raise damaged(f"its header length says {n} bytes but the file holds {size - 8} after it")
            raw = fh.read(n)
    except OSError as exc:
        raise CheckpointError(f"{spec}: cannot read weights file {path} ({exc.strerror or exc})") from None
    try:
        header = json.loads(raw.decode("utf-8"))
        if not isinstance(header, dict):
            raise ValueError("not a JSON object")
        end = max(
            (int(v["data_offsets"][1]) for k, v in header.items() if k != "__metadata__"),
            default=0,
        )
    except (ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError) as exc:
        raise damaged(f"unreadable header: {one_line(exc, 120)}") from None
    if 8 + n + end > size:
        raise damaged(f"{size} bytes, but its header describes {8 + n + end}")


def _check_weights_dir(folder: Path, spec: str, *, convert: str) -> bool:
    """Check the weights directly in ``folder``; whether it holds any safetensors."""
    tensors = sorted(folder.glob("*.safetensors"))
    if not tensors:
        pickles = _pickle_weights(folder)
        if pickles:
            raise CheckpointError(
                f"{spec}: the weights in {folder} are pickle files only ({', '.join(p.name for p in pickles)}); "
                f"{_PICKLE_WHY}. Convert them to safetensors once, where you trust the file ({convert}), "
                "or use a copy of the checkpoint that ships .safetensors files"
            )
        return False
    for index in sorted(folder.glob("*.safetensors.index.json")):
        try:
            shards = set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values())
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CheckpointError(
                f"{spec}: shard index {index} is damaged ({one_line(exc, 120)}); copy or download the checkpoint again"
            ) from None
        missing = sorted(s for s in shards if not (folder / s).is_file())
        if missing:
            raise CheckpointError(
                f"{spec}: {index.name} names weight shards that are not in {folder}: {', '.join(missing[:3])}"
                f"{' …' if len(missing) > 3 else ''}; copy or download the whole checkpoint again"
            )
    for f in tensors:
        check_safetensors_file(f, spec)
    return True


def _check_json(path: Path, spec: str, *, obj: bool = False) -> Any:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CheckpointError(f"{spec}: cannot read {path} ({exc.strerror or exc})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise CheckpointError(
            f"{spec}: {path} is not valid JSON ({one_line(exc, 120)}); copy or download the checkpoint again"
        ) from None
    if obj and not isinstance(data, dict):
        raise CheckpointError(f"{spec}: {path} is not a JSON object; copy or download the checkpoint again")
    return data


def check_local(ident: str, spec: str, marker: str) -> Path | None:
    """The folder ``ident`` names (checked to hold ``marker`` and JSON files that parse), or ``None`` for a hub id."""
    p = Path(ident)
    if p.is_dir():
        if not (p / marker).is_file():
            raise CheckpointError(
                f"{spec}: cannot read its config: no {marker} in {p}; a checkpoint folder holds {marker} "
                "next to its weights (as save_pretrained writes it): check the path"
            )
        # every JSON file (config, tokenizer, processor, index; one level of components down):
        # a damaged one is named here, where the libraries would say only "Expecting value"
        _check_json(p / marker, spec, obj=True)
        for f in sorted([*p.glob("*.json"), *p.glob("*/*.json")]):
            if not f.name.startswith("."):
                _check_json(f, spec)
        return p
    if p.exists():
        raise CheckpointError(
            f"{spec}: cannot read its config: {p} is a file; give the checkpoint's folder (the one holding {marker})"
        )
    if is_path_like(ident):
        raise CheckpointError(
            f"{spec}: cannot read its config: no such folder {p}; "
            "give an existing checkpoint folder or a hub id (org/name)"
        )
    return None


def check_transformers_folder(folder: Path, spec: str, architecture: str | None = None) -> None:
    """Refuse a transformers checkpoint folder whose weights are missing, damaged or pickles only."""
    cls = f"transformers.{architecture}" if architecture else "the model's transformers class"
    convert = f"{cls}.from_pretrained(FOLDER).save_pretrained(FOLDER) writes model.safetensors"
    if not _check_weights_dir(folder, spec, convert=convert):
        raise CheckpointError(
            f"{spec}: no weights in {folder} (no model.safetensors); copy or download the whole checkpoint again"
        )


def check_diffusers_folder(folder: Path, spec: str) -> None:
    """Refuse a diffusers pipeline folder with a damaged component or pickle-only weights."""
    convert = "diffusers.DiffusionPipeline.from_pretrained(FOLDER).save_pretrained(FOLDER) writes safetensors"
    for d in [folder, *sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))]:
        _check_weights_dir(d, spec, convert=convert)


def _hub_copy(ident: str) -> str:
    try:
        from huggingface_hub import constants

        return str(Path(constants.HF_HUB_CACHE) / f"models--{ident.replace('/', '--')}")
    except Exception:  # pragma: no cover - huggingface_hub comes with transformers
        return "its folder in the Hugging Face cache"


def translate(exc: Exception, spec: str, ident: str, what: str, device: str = "cpu") -> HuebenchError:
    """One line for a library's failure to load ``what`` of ``spec``."""
    name = type(exc).__name__
    detail = one_line(exc)
    local = Path(ident).is_dir()
    again = "copy or download the checkpoint again" if local else f"delete {_hub_copy(ident)} and download it again"
    if "safetensor" in name.lower():
        return CheckpointError(f"{spec}: a weights file is damaged or truncated ({detail}); {again}")
    if name == "UnpicklingError" or "weights_only" in detail:
        return CheckpointError(
            f"{spec}: the weights are a pickle file ({detail}); {_PICKLE_WHY}; use a checkpoint with .safetensors files"
        )
    from huebench.models.base import is_out_of_memory  # base imports this module's siblings at load

    if is_out_of_memory(exc):
        return HuebenchError(
            f"{spec}: out of memory while loading {what} on {device} ({detail}); "
            "try --dtype float16 or bfloat16, a smaller model, or another --device"
        )
    if isinstance(exc, OSError) and ".safetensors" in detail and ("no file named" in detail or "not appear" in detail):
        return CheckpointError(
            f"{spec}: no safetensors weights found ({detail}); {_PICKLE_WHY} (pytorch_model.bin and the like): "
            "use a checkpoint that ships .safetensors files, or convert it where you trust the file"
        )
    if isinstance(exc, OSError):
        offline = os.environ.get("HF_HUB_OFFLINE") == "1" and not local
        hint = OFFLINE_SET_HINT if offline else ""
        return CheckpointError(f"{spec}: cannot load {what}{hint}: {detail}")
    return CheckpointError(
        f"{spec}: cannot load {what}: {name}: {detail}; the checkpoint may be damaged, incomplete or made for "
        f"another version of the library ({again})"
    )


@contextlib.contextmanager
def loading(spec: str, ident: str, what: str, device: str = "cpu") -> Iterator[None]:
    """Turn what a library raises while loading ``what`` of ``spec`` into a one-line :class:`HuebenchError`."""
    try:
        yield
    except HuebenchError:
        raise
    except Exception as exc:
        raise translate(exc, spec, ident, what, device) from exc
