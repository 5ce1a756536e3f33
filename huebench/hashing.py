"""Content hashes and canonical JSON: the identity of images, arrays and requests.

Used by the output cache (request keys), by model adapters that derive outputs from content (the
reference models) and by the run folder (sample hashes). It depends on nothing else in huebench,
so any layer may use it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["canonical_json", "content_hash", "request_key"]


def content_hash(obj: Any) -> str:
    """Stable hash of an image (PIL), array, bytes or string content."""
    h = hashlib.sha256()
    if hasattr(obj, "tobytes") and hasattr(obj, "mode") and hasattr(obj, "size"):  # PIL image
        h.update(f"pil:{obj.mode}:{obj.size}".encode())
        h.update(obj.tobytes())
    elif isinstance(obj, np.ndarray):
        arr = np.ascontiguousarray(obj)
        h.update(f"np:{arr.dtype.str}:{arr.shape}".encode())
        h.update(arr.tobytes())
    elif isinstance(obj, (bytes, bytearray, memoryview)):
        h.update(b"bytes:")
        h.update(bytes(obj))
    elif isinstance(obj, str):
        h.update(b"str:")
        h.update(obj.encode("utf-8"))
    else:
        raise TypeError(f"cannot hash {type(obj).__name__} content")
    return h.hexdigest()


def _canonical(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    if isinstance(obj, float):
        return repr(obj)  # exact, and NaN-safe
    if isinstance(obj, np.generic):
        return _canonical(obj.item())
    if isinstance(obj, np.ndarray) or (hasattr(obj, "tobytes") and hasattr(obj, "mode")):
        return {"__content__": content_hash(obj)}
    raise TypeError(f"cannot build a cache key from {type(obj).__name__}")


def canonical_json(obj: Any) -> str:
    """Canonical JSON of a request: sorted keys, exact floats, images and arrays by content hash."""
    return json.dumps(_canonical(obj), separators=(",", ":"), ensure_ascii=False)


def request_key(fingerprint: str, capability: str, request: Any) -> str:
    h = hashlib.sha256()
    for part in (fingerprint, capability, canonical_json(request)):
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()
