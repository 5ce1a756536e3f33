"""The ``api:`` backend against careless configuration and a hostile or broken server: no key, no
password in a URL, no query-string secret ever reaches a message, a record, config.json or the
report; the key goes to the configured origin only; every refusal is one HuebenchError line.

Also the shared redaction helper :mod:`huebench.redact` on its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from huebench.errors import HuebenchError
from huebench.models import api as api_module
from huebench.models.api import ApiError
from huebench.models.base import VLMQuery
from huebench.models.registry import load_model
from huebench.redact import MASK, redact, register_secret, strip_url_credentials

os.environ.setdefault("HF_HUB_OFFLINE", "1")

pytestmark = pytest.mark.robustness

KEY = "sk-robustness-key-ABCDEF0123456789"
PASSWORD = "url-password-4f9a2c"
IMG = Image.new("RGB", (8, 8), (0, 0, 255))


def _q(text: str = "is it blue?") -> VLMQuery:
    return VLMQuery((IMG, text), max_new_tokens=4)


def _line(excinfo: pytest.ExceptionInfo) -> str:
    """The error's message, checked to be a HuebenchError on one line."""
    assert isinstance(excinfo.value, HuebenchError), type(excinfo.value)
    text = str(excinfo.value)
    assert "\n" not in text and text.strip() == text and text, text
    return text


# ------------------------------------------------------------------ redact()
def test_registered_secrets_are_masked_in_every_common_spelling():
    secret = "sk-unit/secret+value=42"
    register_secret(secret)
    assert redact(f"key {secret} end") == f"key {MASK} end"
    assert redact(repr(secret.encode())) == f"b'{MASK}'"
    assert redact("https://h/v1?x=" + "sk-unit%2Fsecret%2Bvalue%3D42") == f"https://h/v1?x={MASK}"
    assert redact(json.dumps({"e": 'said "' + secret + '"'})) == json.dumps({"e": f'said "{MASK}"'})
    assert redact(f"{secret}{secret}") == MASK + MASK


def test_short_empty_and_non_string_values_are_not_registered():
    for value in ("", None, "qZ9", 12345678):
        register_secret(value)  # type: ignore[arg-type]  # non-strings on purpose: they must be ignored
    assert redact("qZ9 12345678 None") == "qZ9 12345678 None"
    register_secret("qZ9k-77")  # a short key is still a key: masked (a leak is the worse mistake)
    assert redact("key=qZ9k-77;") == f"key={MASK};"


def test_a_secret_cut_in_half_at_either_end_is_masked():
    register_secret("kX7-half-cut-secret-0123456789")
    assert redact("error body: ... kX7-half-cut-sec") == f"error body: ... {MASK}"
    assert redact("ret-0123456789 tail") == f"{MASK} tail"
    assert redact("kX7 is fine") == "kX7 is fine"  # under MIN_PARTIAL characters: ordinary text


def test_json_escaped_solidus_and_url_query_secrets():
    from huebench.redact import register_url_secrets

    register_secret("sk-ab/cd/ef/0123456789")
    assert redact('{"error": "bad key sk-ab\\/cd\\/ef\\/0123456789"}') == f'{{"error": "bad key {MASK}"}}'
    register_url_secrets("http://127.0.0.1:9/v1?api_key=qtok-ABCDEFGH12345&model=x")
    assert redact("echo: qtok-ABCDEFGH12345") == f"echo: {MASK}"


def test_a_secret_containing_another_is_masked_whole():
    register_secret("inner-secret-aa")
    register_secret("prefix-inner-secret-aa-suffix")
    assert redact("x prefix-inner-secret-aa-suffix y") == f"x {MASK} y"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abc.def-ghi_123", "Authorization: ***"),
        ("sent Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "sent Bearer ***"),
        ('{"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}', '{"Authorization": "***"}'),
        ("http://user:pa@ss@host:8080/v1/x", "http://***@host:8080/v1/x"),
        ("see https://token123456@api.example/v1 now", "see https://***@api.example/v1 now"),
        ("https://h/v1?api_key=abc&model=m&sig=zz", "https://h/v1?api_key=***&model=m&sig=***"),
        ("https://h/v1?key=abc#frag", "https://h/v1?key=***#frag"),
        ("https://h/v1?x-api-key=abc&access_token=t", "https://h/v1?x-api-key=***&access_token=***"),
    ],
)
def test_credentials_in_text_are_masked(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Basic colour terms: red, green, blue",
        "the bearer of bad news",
        "token limit reached; key colour is red",
        "https://api.openai.com/v1/chat/completions?model=gpt&monkey=1",
        "user@example.com wrote",
        "",
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert redact(text) == text


def test_redact_accepts_anything_and_is_idempotent():
    assert redact(ValueError("Bearer abcdefghijk")) == "Bearer ***"
    once = redact("http://u:p@h/?token=x Bearer abcdefghijk")
    assert redact(once) == once


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://user:secret@host:8000/v1", "http://host:8000/v1"),
        ("https://only-a-token@host/v1/", "https://host/v1/"),
        ("http://u:p%40ss@[::1]:9/v1?api_key=k&model=m", "http://[::1]:9/v1?api_key=***&model=m"),
        ("https://host/v1?key=abc&key2=keep", "https://host/v1?key=***&key2=keep"),
        ("https://host/v1", "https://host/v1"),
        ("http://[broken/v1?token=abc", "http://[broken/v1?token=***"),
    ],
)
def test_strip_url_credentials(url, expected):
    assert strip_url_credentials(url) == expected


def test_register_and_redact_from_many_threads():
    secrets = [f"thread-secret-{i:04d}-xyz" for i in range(200)]
    errors: list[BaseException] = []

    def work(chunk: list[str]) -> None:
        try:
            for s in chunk:
                register_secret(s)
                assert s not in redact(f"<{s}>")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(secrets[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert redact(" ".join(secrets)) == " ".join([MASK] * len(secrets))


# ------------------------------------------------------------------ a hostile server
class Hostile(BaseHTTPRequestHandler):
    """Per model name: echo (400 with the Authorization and URL it got), echo-500, echo-200 (no
    choices, but the key), loop (302 to itself), creds-location (302 to a URL with credentials),
    bad-logprobs (logprobs of the wrong types), big (a body over the limit)."""

    seen: list[dict] = []

    def log_message(self, *args):
        pass

    def _send(self, code: int, payload: object, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        auth = self.headers.get("Authorization", "")
        Hostile.seen.append({"path": self.path, "auth": auth})
        model = body["model"]
        echo = {"error": {"message": f"invalid key {auth.removeprefix('Bearer ')} for {self.path}", "auth": auth}}
        if model == "echo":
            return self._send(400, echo)
        if model == "echo-500":
            return self._send(500, echo)
        if model == "echo-many":  # the key many times: a body longer than the part that is read
            return self._send(400, {"error": " ".join([auth.removeprefix("Bearer ")] * 200)})
        if model == "echo-200":
            return self._send(200, echo)
        if model == "loop":
            return self._send(302, {}, {"Location": self.path})
        if model == "creds-location":
            return self._send(302, {}, {"Location": f"https://thief:{PASSWORD}@evil.example:444/x?key={KEY}"})
        if model == "bad-logprobs":
            choice = {"message": {"content": 7}, "logprobs": {"content": [{"top_logprobs": [{"token": "Yes"}]}]}}
            return self._send(200, {"choices": [choice]})
        if model == "big":
            return self._send(200, {"choices": [{"message": {"content": "y" * 5000}}]})
        return self._send(200, {"choices": [{"message": {"content": "blue"}}]})


@pytest.fixture
def hostile(monkeypatch):
    Hostile.seen = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    port = srv.server_address[1]
    monkeypatch.setenv("HUEBENCH_API_BASE", f"http://someone:{PASSWORD}@127.0.0.1:{port}/v1?api_key={KEY}")
    monkeypatch.setenv("HUEBENCH_API_KEY", KEY)
    monkeypatch.delenv("HUEBENCH_API_ALLOW_HTTP", raising=False)
    yield port
    srv.shutdown()
    srv.server_close()


def _clean(text: str) -> None:
    assert KEY not in text and KEY[:10] not in text and PASSWORD not in text, text


@pytest.mark.parametrize("model", ["echo", "echo-500", "echo-200", "echo-many"])
def test_a_server_echoing_the_key_never_gets_it_into_the_message(hostile, model):
    with pytest.raises(ApiError) as excinfo:
        load_model(f"api:{model}", max_retries=1, backoff_s=0.0).generate([_q()])
    line = _line(excinfo)
    _clean(line)
    assert MASK in line
    assert Hostile.seen[0]["auth"] == f"Bearer {KEY}" and f"api_key={KEY}" in Hostile.seen[0]["path"]


def test_redirect_loop_and_credentials_in_location_are_refused_quietly(hostile):
    for model in ("loop", "creds-location"):
        with pytest.raises(ApiError) as excinfo:
            load_model(f"api:{model}", max_retries=2, backoff_s=0.0).generate([_q()])
        line = _line(excinfo)
        _clean(line)
        assert "not followed" in line and "thief" not in line and "/x" not in line
    assert "to https://evil.example:444 not followed" in line
    assert len(Hostile.seen) == 2  # one request each: a 3xx is not retried


def test_answers_of_the_wrong_types_are_api_errors(hostile):
    m = load_model("api:bad-logprobs", max_retries=0)
    with pytest.raises(ApiError, match="response not understood"):
        m.yes_probability([_q()])
    assert m.generate([_q()]) == ["7"]


def test_an_oversized_body_is_not_read(hostile, monkeypatch):
    monkeypatch.setattr(api_module, "_MAX_BODY_BYTES", 1024)
    with pytest.raises(ApiError, match="is over 0 MiB .not retried."):
        load_model("api:big", max_retries=3, backoff_s=0.0).generate([_q()])
    assert len(Hostile.seen) == 1


def test_the_key_and_the_url_password_never_reach_the_run_folder(hostile, tmp_path):
    from huebench.runs.runner import evaluate

    out = tmp_path / "run"
    res = evaluate("colornames", "api:echo", out=out, no_cache=True, progress=False, limit=3)
    assert res.results["n_failed"] == 3 and Hostile.seen
    assert all(r["status"] == "error" and MASK in r["reason"] for r in res.records)
    files = {p.name: p.read_text(encoding="utf-8", errors="replace") for p in out.iterdir() if p.is_file()}
    assert {"config.json", "records.jsonl", "results.json", "report.html"} <= set(files)
    for name, text in files.items():
        assert KEY not in text and KEY[:10] not in text, f"key in {name}"
        assert PASSWORD not in text, f"URL password in {name}"
    config = json.loads(files["config.json"])
    assert config["model"]["fingerprint_parts"]["base_url"] == f"http://127.0.0.1:{hostile}/v1?api_key=***"


def test_cli_refuses_plain_http_in_one_line_without_the_password(tmp_path):
    env = {
        **os.environ,
        "HUEBENCH_API_BASE": f"http://someone:{PASSWORD}@api.example.com/v1",
        "HUEBENCH_API_KEY": KEY,
        "HF_HUB_OFFLINE": "1",
    }
    env.pop("HUEBENCH_API_ALLOW_HTTP", None)
    proc = subprocess.run(
        [
            *(sys.executable, "-c", "from huebench.cli import main; main()", "run", "colornames", "-m", "api:x"),
            *("--out", str(tmp_path / "run"), "--no-cache", "--no-progress", "--limit", "1"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 2, proc.stderr
    err = " ".join(proc.stderr.split())
    assert "Traceback" not in proc.stderr and "http://api.example.com/v1" in err
    assert "HUEBENCH_API_ALLOW_HTTP=1" in err
    _clean(proc.stderr)
    assert not (tmp_path / "run").exists()
