"""Crash-safe file I/O and input readers with precise error locations.

- :func:`atomic_write_text` / :func:`atomic_write_json`: write to a temporary file in the same
  folder, fsync, then ``os.replace`` — a reader sees the old file or the new one, never half.
- :class:`JsonlAppender`: append-only per-sample records; each line is flushed and fsynced, and
  :func:`read_jsonl` ignores (and reports) a torn last line left by a killed process.
- :func:`read_jsonl` / :func:`read_table`: inputs (JSONL or CSV) whose errors name the file and
  line and say how to fix them.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from huebench.errors import HuebenchError

__all__ = [
    "InputFileError",
    "JsonlAppender",
    "atomic_write_json",
    "atomic_write_text",
    "read_jsonl",
    "read_records",
    "read_table",
]


class InputFileError(HuebenchError, ValueError):
    """An input file is missing or malformed; the message names the file and line."""


def atomic_write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` atomically (temp file + fsync + rename)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with contextlib.suppress(AttributeError, OSError):
            os.fchmod(fd, 0o644)  # mkstemp's 0600 would make results unreadable to others sharing the run
        with os.fdopen(fd, "w", encoding=encoding, newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


def atomic_write_json(path: str | os.PathLike[str], obj: Any, *, indent: int | None = 2) -> None:
    atomic_write_text(path, json.dumps(obj, indent=indent, ensure_ascii=False, sort_keys=False, allow_nan=False) + "\n")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


class JsonlAppender:
    """Append JSON records to a file, one per line, durable once :meth:`write` returns."""

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fsync = fsync
        self._repair_torn_tail()
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def _repair_torn_tail(self) -> None:
        # A killed writer can leave a last line without its newline: cut it off so the next
        # record does not glue onto it (the torn record was never acknowledged as written).
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with open(self.path, "rb+") as fh:
            data = fh.read()
            if data.endswith(b"\n"):
                return
            cut = data.rfind(b"\n") + 1
            fh.truncate(cut)

    def write(self, record: Mapping[str, Any]) -> None:
        self._fh.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
        self._fh.flush()
        if self._fsync:
            os.fsync(self._fh.fileno())

    def write_many(self, records: Iterable[Mapping[str, Any]]) -> None:
        for r in records:
            self._fh.write(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n")
        self._fh.flush()
        if self._fsync:
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_text(path: Path) -> str:
    if not path.exists():
        raise InputFileError(f"{path}: file not found")
    if path.is_dir():
        raise InputFileError(f"{path}: is a folder, expected a file")
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputFileError(
            f"{path}:{line}: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "re-save the file as UTF-8"
        ) from None


def read_jsonl(
    path: str | os.PathLike[str],
    *,
    required: Iterable[str] = (),
    allow_torn_tail: bool = False,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` for each non-blank line of a JSONL file.

    Raises :class:`InputFileError` naming ``file:line`` for invalid JSON, a non-object line or a
    missing required field. With ``allow_torn_tail`` (reading our own append-only records) an
    unterminated, unparsable last line is skipped: it is a write that a crash cut short.
    """
    p = Path(path)
    text = _open_text(p)
    need = list(required)
    lines = text.split("\n")
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            if allow_torn_tail and i == len(lines) and not text.endswith("\n"):
                return
            raise InputFileError(
                f"{p}:{i}: invalid JSON ({exc.msg} at column {exc.colno}); each line must be one JSON object"
            ) from None
        if not isinstance(obj, dict):
            raise InputFileError(f"{p}:{i}: expected a JSON object per line, got {type(obj).__name__}")
        if "\\u" in line and _has_lone_surrogate(obj):
            raise InputFileError(
                f"{p}:{i}: a \\uD800–\\uDFFF escape that is not half of a surrogate pair (not a character); "
                "fix or remove it"
            )
        missing = [k for k in need if k not in obj]
        if missing:
            raise InputFileError(f"{p}:{i}: missing field(s) {', '.join(missing)}; every line needs {', '.join(need)}")
        yield i, obj


def _has_lone_surrogate(obj: Any) -> bool:
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def read_table(path: str | os.PathLike[str], *, required: Iterable[str] = ()) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(line_number, row)`` from a CSV with a header line; errors name ``file:line``."""
    p = Path(path)
    text = _open_text(p)
    reader = csv.DictReader(text.splitlines())
    header = reader.fieldnames or []
    missing = [k for k in required if k not in header]
    if missing:
        raise InputFileError(
            f"{p}:1: header lacks column(s) {', '.join(missing)}; found {', '.join(header) or 'no header'}"
        )
    for row in reader:
        line = reader.line_num
        if None in row:
            raise InputFileError(f"{p}:{line}: more fields than the header's {len(header)} columns")
        empty = [k for k in required if row.get(k) in (None, "")]
        if empty:
            raise InputFileError(f"{p}:{line}: empty value for {', '.join(empty)}")
        yield line, row


def read_records(path: str | os.PathLike[str], *, required: Iterable[str] = ()) -> Iterator[tuple[int, dict[str, Any]]]:
    """JSONL or CSV by extension (``.jsonl``/``.json`` lines, ``.csv``)."""
    p = Path(path)
    if p.suffix.lower() == ".csv":
        yield from read_table(p, required=required)
    else:
        yield from read_jsonl(p, required=required)
