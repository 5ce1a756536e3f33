"""Model-output cache: SQLite in WAL mode, keyed by model fingerprint + capability + canonical input.

A re-run or ``--resume`` asks the model nothing it already answered. Only successful outputs
are stored: a failure is recorded in the run's per-sample records and retried next time.

Keys are SHA-256 digests of a canonical JSON encoding of the request, in which images are
replaced by the hash of their pixels (so the same picture from two paths is one entry) and
NumPy arrays by the hash of their bytes, dtype and shape. Several processes may share one
cache file: WAL allows concurrent readers with one writer, and writers wait (``busy_timeout``)
rather than fail.

A cache file that cannot be used (damaged or truncated, not a SQLite database, a database of
something else, a folder or file that cannot be created or written) is refused with one
:class:`CacheError` line naming the file and the way out: delete it, ``--no-cache``, or another
file with ``--cache``. An entry whose stored value no longer decodes is treated as a miss (and
replaced when it is computed again).
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from huebench.errors import HuebenchError
from huebench.hashing import canonical_json, content_hash, request_key

__all__ = ["CacheError", "CacheStats", "OutputCache", "canonical_json", "content_hash", "request_key"]

log = logging.getLogger(__name__)

_COLUMNS = ["key", "fingerprint", "capability", "value", "created"]
_DELETE = (
    "delete it (it holds only model outputs, which are computed again), run with --no-cache, "
    "or use another file with --cache FILE"
)
_OTHER_FILE = "give the cache another file with --cache FILE, or run with --no-cache"
_CHECK_LIMIT = 1 << 30
_ELSEWHERE = "choose a writable place with --cache FILE (or HUEBENCH_CACHE), or run with --no-cache"


class CacheError(HuebenchError):
    """The model-output cache file cannot be used; the message names it and says what to do."""


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
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self.stats = CacheStats()
        if self.path is not None:
            self._prepare_place(self.path)
        try:
            self._conn = sqlite3.connect(
                str(self.path) if self.path else ":memory:",
                timeout=timeout_s,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise self._error(exc, "open") from None
        try:
            self._setup()
        except BaseException as exc:
            self._conn.close()
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc, "open") from None
            raise

    # -- opening ---------------------------------------------------------------------------
    def _prepare_place(self, path: Path) -> None:
        if path.is_dir():
            raise CacheError(
                f"cache {path}: is a folder, not a file; give a file path with --cache FILE, or run with --no-cache"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            blocker = next((p for p in path.parents if p.exists()), None)
            why = f"{blocker} is a file" if blocker is not None and not blocker.is_dir() else exc.strerror or exc
            raise CacheError(f"cache {path}: cannot create its folder {path.parent} ({why}); {_ELSEWHERE}") from None

    def _setup(self) -> None:
        conn = self._conn
        conn.execute(f"PRAGMA busy_timeout = {int(self.timeout_s * 1000)}")
        # reading the schema reads the file's header and first page: a file that is not SQLite,
        # or is cut short, fails here rather than in the middle of a run
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        if tables and "outputs" not in tables:
            shown = ", ".join(sorted(tables)[:5]) + (" …" if len(tables) > 5 else "")
            raise CacheError(
                f"cache {self.path}: is a SQLite database of something else (tables: {shown}), not a huebench "
                f"cache; it is left untouched: {_OTHER_FILE}"
            )
        if "outputs" in tables:
            columns = [r[1] for r in conn.execute("PRAGMA table_info(outputs)")]
            if columns != _COLUMNS:
                raise CacheError(
                    f"cache {self.path}: its 'outputs' table has columns {', '.join(columns)}, not a huebench "
                    f"cache's; it is left untouched: {_OTHER_FILE}"
                )
            self._check_pages()
        if self.path is not None:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS outputs ("
            " key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, capability TEXT NOT NULL,"
            " value TEXT NOT NULL, created REAL NOT NULL)"
        )

    def _check_pages(self) -> None:
        """Damage inside the file (not only at its start) is found now rather than mid-run: SQLite's
        ``quick_check`` reads every page (about 0.2 s for 300 MB); files over 1 GiB are not read whole,
        their damage is reported when a read or write meets it."""
        if self.path is None or not self.path.is_file() or self.path.stat().st_size > _CHECK_LIMIT:
            return
        verdict = self._conn.execute("PRAGMA quick_check(1)").fetchone()[0]
        if verdict != "ok":
            raise self._error(sqlite3.DatabaseError(f"integrity check: {verdict}"), "open")

    def _error(self, exc: BaseException, doing: str) -> CacheError:
        """One line for a SQLite failure while ``doing`` (open, read, write) the cache."""
        where = f"cache {self.path}" if self.path is not None else "in-memory cache"
        detail = " ".join(str(exc).split()) or type(exc).__name__
        low = detail.lower()
        if "locked" in low or "busy" in low:
            return CacheError(
                f"{where}: still locked by another process after {self.timeout_s:g} s ({detail}); "
                "wait for it to finish, use another file with --cache FILE, or run with --no-cache"
            )
        if "full" in low:
            return CacheError(f"{where}: the disk is full ({detail}); free some space, or run with --no-cache")
        if any(w in low for w in ("unable to open", "readonly", "read-only", "permission", "access", "i/o error")):
            return CacheError(f"{where}: cannot {doing} it ({detail}); {_ELSEWHERE}")
        return CacheError(f"{where}: the file is damaged or not a huebench cache ({detail}); {_DELETE}")

    @contextlib.contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise self._error(exc, doing) from None

    # -- reading and writing ---------------------------------------------------------------

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The cached outputs among ``keys`` (absent keys are misses)."""
        keys = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        undecodable = 0
        with self._lock, self._guard("read"):
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for key, value in self._conn.execute(f"SELECT key, value FROM outputs WHERE key IN ({marks})", chunk):
                    try:
                        found[key] = json.loads(value)
                    except (ValueError, TypeError):  # a damaged entry: a miss, replaced when recomputed
                        undecodable += 1
        if undecodable:
            log.warning("cache %s: %d entries could not be decoded; they are computed again", self.path, undecodable)
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
        with self._lock, self._guard("write"):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany("INSERT OR REPLACE INTO outputs VALUES (?, ?, ?, ?, ?)", rows)
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
        self.stats.writes += len(rows)

    def __len__(self) -> int:
        with self._lock, self._guard("read"):
            return int(self._conn.execute("SELECT COUNT(*) FROM outputs").fetchone()[0])

    def count(self, fingerprint: str | None = None, capability: str | None = None) -> int:
        sql = "SELECT COUNT(*) FROM outputs WHERE 1=1"
        args: list[str] = []
        if fingerprint is not None:
            sql, args = sql + " AND fingerprint = ?", [*args, fingerprint]
        if capability is not None:
            sql, args = sql + " AND capability = ?", [*args, capability]
        with self._lock, self._guard("read"):
            return int(self._conn.execute(sql, args).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> OutputCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
