"""Convert the ColorSwap authors' saved VLM logs to huebench's per-query record format.

The logs (``text-<model>-colorswap.json``, ``image-<model>-colorswap.json``) hold, per test
example, two text queries (one per image, ``log_1``/``log_2``: the two captions as (A)/(B) and
the correct letter) and two image queries (one per caption: the two image URLs in the order
shown and "first"/"second").
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from huebench.io import InputFileError

__all__ = ["convert_logs"]

#: what each log's entries look like, for the errors (the text log is the first argument)
_SHAPE = {
    "text": 'a text-log entry has "id", "response_image_1", "response_image_2" and "log_1"/"log_2" with "image_url", '
    '"caption_1", "caption_2" and "correct_answer" ("A" or "B"); the text log goes first, the image log second',
    "image": 'an image-log entry has "id", "response_caption_1", "response_caption_2" and "log_1"/"log_2" with '
    '"image_url_1", "image_url_2" and "correct_answer" ("first" or "second"); the text log goes first, the image '
    "log second",
}
_IMG = re.compile(r"img_(\d+)_([12])\.\w+$")


def _image_index(url: str, where: str) -> tuple[int, int]:
    m = _IMG.search(url)
    if not m:
        raise InputFileError(
            f"{where}: cannot read the example and image number from {url!r} (expected …img_<id>_<1|2>.png)"
        )
    return int(m.group(1)), int(m.group(2)) - 1


def _answer(value: Any, allowed: tuple[str, str], where: str) -> int:
    """0 or 1: which of ``allowed`` the log's ``correct_answer`` names (any case, spaces around)."""
    text = str(value).strip().lower()
    for k, a in enumerate(allowed):
        if text == a.lower():
            return k
    raise InputFileError(f"{where}: correct_answer must be {allowed[0]!r} or {allowed[1]!r}, got {value!r}")


def convert_logs(text_log: str | Path, image_log: str | Path) -> list[dict[str, Any]]:
    """Records (4 per example) from a pair of the authors' log files."""
    records: list[dict[str, Any]] = []
    for path, query in ((Path(text_log), "text"), (Path(image_log), "image")):
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputFileError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
        if not isinstance(entries, list):
            raise InputFileError(f"{path}: expected the authors' {query} log, a JSON list of entries; {_SHAPE[query]}")
        for k, e in enumerate(entries):
            where = f"{path} entry {k}" + (f" (id {e.get('id')})" if isinstance(e, dict) else "")
            if not isinstance(e, dict):
                raise InputFileError(f"{where}: expected a JSON object, got {type(e).__name__}; {_SHAPE[query]}")
            try:
                records.extend(_entry_records(e, query, where))
            except InputFileError:
                raise
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                problem = f"no field {exc}" if isinstance(exc, KeyError) else str(exc)
                raise InputFileError(
                    f"{where}: not an entry of the authors' {query} log ({problem}); {_SHAPE[query]}"
                ) from None
    return records


def _entry_records(e: dict[str, Any], query: str, where: str) -> list[dict[str, Any]]:
    records = []
    for j in (1, 2):
        log = e.get(f"log_{j}")
        if log is None:
            raise InputFileError(f"{where}: missing log_{j}")
        if query == "text":
            _, subject = _image_index(log["image_url"], where)
            options = [log["caption_1"], log["caption_2"]]
            correct = _answer(log["correct_answer"], ("A", "B"), f"{where} log_{j}")
            response = e[f"response_image_{j}"]
        else:
            first, second = _image_index(log["image_url_1"], where), _image_index(log["image_url_2"], where)
            options = [f"image_{first[1] + 1}", f"image_{second[1] + 1}"]
            correct = _answer(log["correct_answer"], ("first", "second"), f"{where} log_{j}")
            # the caption belongs to the image that is the correct answer
            subject = (first if correct == 0 else second)[1]
            response = e[f"response_caption_{j}"]
        records.append(
            {
                "example_id": e["id"],
                "query": query,
                "subject": subject,
                "options": options,
                "correct": correct,
                "response": response or "",
            }
        )
    return records
