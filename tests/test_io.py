import json
import os
import subprocess
import sys

import pytest

from huebench.io import InputFileError, JsonlAppender, atomic_write_json, read_jsonl, read_records, read_table


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path):
    p = tmp_path / "sub" / "results.json"
    atomic_write_json(p, {"a": 1})
    atomic_write_json(p, {"a": 2})
    assert json.loads(p.read_text()) == {"a": 2}
    assert [f.name for f in p.parent.iterdir()] == ["results.json"]


def test_atomic_write_rejects_nan_without_touching_old_file(tmp_path):
    p = tmp_path / "r.json"
    atomic_write_json(p, {"ok": True})
    with pytest.raises(ValueError):
        atomic_write_json(p, {"x": float("nan")})
    assert json.loads(p.read_text()) == {"ok": True}
    assert len(list(tmp_path.iterdir())) == 1


def test_jsonl_errors_name_file_and_line(tmp_path):
    p = tmp_path / "caps.jsonl"
    p.write_text('{"id": 1, "caption": "a"}\n\n{"id": 2}\n')
    with pytest.raises(InputFileError, match=r"caps.jsonl:3: missing field\(s\) caption"):
        list(read_jsonl(p, required=["id", "caption"]))
    p.write_text('{"id": 1}\n{"id": 2,\n')
    with pytest.raises(InputFileError, match=r"caps.jsonl:2: invalid JSON"):
        list(read_jsonl(p))
    p.write_text('{"id": 1}\n[1, 2]\n')
    with pytest.raises(InputFileError, match=r"caps.jsonl:2: expected a JSON object per line, got list"):
        list(read_jsonl(p))
    with pytest.raises(InputFileError, match=r"nope.jsonl: file not found"):
        list(read_jsonl(tmp_path / "nope.jsonl"))


def test_non_utf8_is_reported_with_line(tmp_path):
    p = tmp_path / "latin1.jsonl"
    p.write_bytes(b'{"caption": "ok"}\n{"caption": "caf\xe9"}\n')
    with pytest.raises(InputFileError, match=r"latin1.jsonl:2: not valid UTF-8 \(byte 0xe9"):
        list(read_jsonl(p))


def test_csv_reader(tmp_path):
    p = tmp_path / "caps.csv"
    p.write_text("id,image,caption\n1,a.jpg,a red car\n2,b.jpg,\n")
    with pytest.raises(InputFileError, match=r"caps.csv:3: empty value for caption"):
        list(read_table(p, required=["id", "caption"]))
    p.write_text("id,caption\n1,x,extra\n")
    with pytest.raises(InputFileError, match=r"caps.csv:2: more fields than the header's 2 columns"):
        list(read_table(p))
    with pytest.raises(InputFileError, match=r"caps.csv:1: header lacks column\(s\) image"):
        list(read_table(p, required=["image"]))
    p.write_text('id,caption\n1,"a ""quoted"" caption"\n')
    assert list(read_records(p)) == [(2, {"id": "1", "caption": 'a "quoted" caption'})]


def test_appender_survives_a_killed_writer(tmp_path):
    p = tmp_path / "records.jsonl"
    with JsonlAppender(p) as out:
        out.write({"i": 0})
    # simulate a crash in the middle of a line
    with open(p, "a") as fh:
        fh.write('{"i": 1, "trunc')
    assert [r for _, r in read_jsonl(p, allow_torn_tail=True)] == [{"i": 0}]
    with pytest.raises(InputFileError):
        list(read_jsonl(p))
    with JsonlAppender(p) as out:  # reopening cuts the torn tail before appending
        out.write({"i": 1})
    assert [r for _, r in read_jsonl(p)] == [{"i": 0}, {"i": 1}]


def test_appender_records_are_durable_across_sigkill(tmp_path):
    p = tmp_path / "records.jsonl"
    code = (
        "import os, signal, sys; from huebench.io import JsonlAppender;"
        f"a = JsonlAppender({str(p)!r});"
        "[a.write({'i': i}) for i in range(50)];"
        "os.kill(os.getpid(), signal.SIGKILL)"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True)
    assert proc.returncode == -9
    assert [r["i"] for _, r in read_jsonl(p)] == list(range(50))
