"""Model-output cache: SQLite in WAL mode, keyed by model fingerprint + capability + canonical input.

A re-run or ``--resume`` asks the model nothing it already answered. Only successful outputs
are stored: a failure is recorded in the run's per-sample records and retried next time.

Keys are SHA-256 digests of a canonical JSON encoding of the request, in which images are
replaced by the hash of their pixels (so the same picture from two paths is one entry) and
NumPy arrays by the hash of their bytes, dtype and shape. Several processes may share one
cache file: WAL allows concurrent readers with one writer, and writers wait (``busy_timeout``)
rather than fail.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CacheStats", "OutputCache", "canonical_json", "content_hash", "request_key"]


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


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    writes: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses, "writes": self.writes}


class OutputCache:
    """Persistent request → output store. ``OutputCache(None)`` is an in-memory cache."""

    def __init__(self, path: str | Path | None, *, timeout_s: float = 60.0):
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            str(self.path) if self.path else ":memory:",
            timeout=timeout_s,
            isolation_level=None,
            check_same_thread=False,
        )
        self._conn.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
        if self.path is not None:
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS outputs ("
            " key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, capability TEXT NOT NULL,"
            " value TEXT NOT NULL, created REAL NOT NULL)"
        )
        self.stats = CacheStats()

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The cached outputs among ``keys`` (absent keys are misses)."""
        keys = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for key, value in self._conn.execute(f"SELECT key, value FROM outputs WHERE key IN ({marks})", chunk):
                    found[key] = json.loads(value)
        self.stats.hits += len(found)
        self.stats.misses += len(keys) - len(found)
        return found

    def get(self, key: str) -> Any | None:
        return self.get_many([key]).get(key)

    def put_many(self, items: Iterable[tuple[str, str, str, Any]]) -> None:
        """Store ``(key, fingerprint, capability, output)`` tuples in one transaction."""
        rows = [(k, fp, cap, json.dumps(v, allow_nan=True), time.time()) for k, fp, cap, v in items]
        if not rows:
            return
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany("INSERT OR REPLACE INTO outputs VALUES (?, ?, ?, ?, ?)", rows)
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        self.stats.writes += len(rows)

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM outputs").fetchone()[0])

    def count(self, fingerprint: str | None = None, capability: str | None = None) -> int:
        sql, args = "SELECT COUNT(*) FROM outputs WHERE 1=1", []
        if fingerprint is not None:
            sql, args = sql + " AND fingerprint = ?", [*args, fingerprint]
        if capability is not None:
            sql, args = sql + " AND capability = ?", [*args, capability]
        with self._lock:
            return int(self._conn.execute(sql, args).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> OutputCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
