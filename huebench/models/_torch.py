"""The ``--device`` and ``--dtype`` options: checked once, for every adapter, before any weights are read.

Two levels, so that backends without torch stay without it:

- :func:`check_device` / :func:`check_dtype` look at the spelling only and import nothing; every
  :class:`~huebench.models.base.Model` runs them (``reference:`` and ``api:`` included).
- :func:`resolve_device` / :func:`resolve_dtype` also ask torch whether the device is there; the
  adapters that run torch models (``Model.torch_backed``: ``hf:``, ``openclip:``, ``diffusers:``)
  run them.

Devices: ``cpu``, ``cuda`` / ``cuda:N``, ``mps``, ``xpu`` / ``xpu:N``.

Dtypes: ``float32`` (full precision, the default), ``float16`` and ``bfloat16``, on every device.
Half precision on the CPU is allowed on purpose (torch ≥ 2.1 has CPU kernels for it; it is usually
slower than float32 there and its numbers can differ slightly from a GPU's). ``float64`` is refused:
float32 is already the full precision of every checkpoint huebench loads, processors hand the
models float32 pixels, and no adapter is tested in double precision.
"""

from __future__ import annotations

import re
from typing import Any

from huebench._suggest import suggestion_text
from huebench.errors import HuebenchError

__all__ = ["DEVICE_TYPES", "DTYPES", "DeviceError", "check_device", "check_dtype", "resolve_device", "resolve_dtype"]

DEVICE_TYPES = ("cpu", "cuda", "mps", "xpu")
DTYPES = ("float32", "float16", "bfloat16")

_DEVICE = re.compile(r"(cpu|cuda|mps|xpu)(?::(\d+))?")
_DEVICE_USAGE = "use cpu, cuda, cuda:N (N = GPU index), mps (Apple GPU) or xpu"
_DEVICE_HINTS = {"gpu": "cuda", "nvidia": "cuda", "rocm": "cuda", "hip": "cuda", "metal": "mps", "apple": "mps"}
_DTYPE_HINTS = {
    "fp32": "float32",
    "float": "float32",
    "single": "float32",
    "fp16": "float16",
    "half": "float16",
    "bf16": "bfloat16",
    "torch.float32": "float32",
    "torch.float16": "float16",
    "torch.bfloat16": "bfloat16",
}


class DeviceError(HuebenchError, ValueError):
    """A ``--device`` or ``--dtype`` value that cannot be used here; the message says what to use."""


def check_device(device: Any) -> str:
    """The device's canonical spelling (``"cuda:1"``, ``"cpu"``); the spelling only, no torch."""
    text = str(device).strip().lower() if device is not None else ""
    m = _DEVICE.fullmatch(text)
    if m is None:
        head = text.split(":", 1)[0]
        hint = _DEVICE_HINTS.get(head)
        if hint:
            tail = text[len(head) :]
            suggestion = f" Did you mean {hint + tail!r}?"
        else:
            suggestion = suggestion_text(head, DEVICE_TYPES)
        raise DeviceError(f"--device {device!r} is not a device huebench knows: {_DEVICE_USAGE}.{suggestion}")
    kind, index = m.group(1), m.group(2)
    if index is None:
        return kind
    if kind in ("cpu", "mps") and int(index) != 0:
        raise DeviceError(f"--device {device!r}: there is only one {kind} device; use --device {kind}")
    return f"{kind}:{int(index)}"


def check_dtype(dtype: Any) -> str:
    """The dtype's name, one of :data:`DTYPES`; the spelling only, no torch."""
    text = str(dtype).strip().lower() if dtype is not None else ""
    if text in DTYPES:
        return text
    accepted = ", ".join(DTYPES)
    if text in ("float64", "double", "fp64", "torch.float64"):
        raise DeviceError(
            f"--dtype {dtype!r} is not supported: accepted are {accepted}; "
            "float32 is already full precision for every model huebench loads, so use --dtype float32"
        )
    hint = _DTYPE_HINTS.get(text)
    suggestion = f" Did you mean {hint!r}?" if hint else suggestion_text(text, DTYPES)
    raise DeviceError(f"--dtype {dtype!r} is not supported: accepted are {accepted}.{suggestion}")


def resolve_device(device: Any) -> Any:
    """``torch.device`` for ``device``, after checking that this machine has it."""
    name = check_device(device)
    torch = _import_torch()
    dev = torch.device(name)
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            if torch.version.cuda is None and getattr(torch.version, "hip", None) is None:
                why = f"this torch ({torch.__version__}) is built without CUDA"
            else:
                why = "torch sees no CUDA GPU here (check the driver with nvidia-smi, and CUDA_VISIBLE_DEVICES)"
            raise DeviceError(f"--device {name}: {why}; use --device cpu{_other_accelerators(torch)}")
        _check_index(name, dev, torch.cuda.device_count(), "CUDA GPU")
    elif dev.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            built = mps is not None and mps.is_built()
            why = (
                "MPS is not available on this machine (it needs Apple silicon and macOS 12.3 or newer)"
                if built
                else f"this torch ({torch.__version__}) is built without MPS support"
            )
            raise DeviceError(f"--device {name}: {why}; use --device cpu{_other_accelerators(torch)}")
    elif dev.type == "xpu":
        xpu = getattr(torch, "xpu", None)
        if xpu is None or not xpu.is_available():
            raise DeviceError(
                f"--device {name}: torch sees no Intel XPU here; use --device cpu{_other_accelerators(torch)}"
            )
        _check_index(name, dev, xpu.device_count(), "XPU")
    return dev


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise HuebenchError(
            "this model needs the 'torch' package: install it with `bash scripts/install.sh lm` "
            f"(or pip install 'huebench[lm]'); import failed with: {exc}"
        ) from exc
    return torch


def _check_index(name: str, dev: Any, count: int, what: str) -> None:
    if dev.index is not None and dev.index >= count:
        have = f"{dev.type}:0" if count == 1 else f"{dev.type}:0 … {dev.type}:{count - 1}"
        raise DeviceError(
            f"--device {name}: this machine has {count} {what}{'s' if count != 1 else ''} ({have}); "
            f"choose one of them, or --device {dev.type} for the first"
        )


def _other_accelerators(torch: Any) -> str:
    """ ", or --device mps" when another accelerator is there to suggest."""
    if torch.cuda.is_available():
        return " or --device cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return " or --device mps"
    return ""


def resolve_dtype(name: Any, device: Any = "cpu") -> Any:
    """``torch.dtype`` for ``name`` (see the module doc for what is accepted where).

    On an accelerator, a one-element tensor of that dtype is made there first, so a combination
    the device cannot do (bfloat16 on an older macOS's MPS) is refused in one line before any
    weights are read.
    """
    dtype_name = check_dtype(name)
    torch = _import_torch()
    dtype = getattr(torch, dtype_name)
    dev = device if isinstance(device, torch.device) else resolve_device(device)
    if dev.type != "cpu":
        try:
            torch.zeros(1, dtype=dtype, device=dev)
        except (RuntimeError, TypeError) as exc:
            detail = " ".join(str(exc).split())[:200]
            raise DeviceError(
                f"--dtype {dtype_name} cannot be used on --device {dev} ({detail}); "
                f"use --dtype float32, or float16 where the device supports it"
            ) from None
    return dtype
