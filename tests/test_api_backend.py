"""The ``api:`` backend against a small OpenAI-compatible server of our own on loopback."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from huebench.errors import HuebenchError
from huebench.models.api import ApiConfigError, ApiError, ApiVLM
from huebench.models.base import VLMQuery
from huebench.models.registry import load_model
from huebench.runs.runner import RunOptions, run

IMG = Image.new("RGB", (8, 8), (255, 0, 0))


class FakeChat(BaseHTTPRequestHandler):
    """Behaviour per model name: ok, flaky (500 twice), slow (times out), garbage, logprobs, bad-request,
    echo-key (400 echoing the Authorization it got, after ``pad`` characters), redirect-<code>
    (to ``redirect_to``)."""

    hits: dict[str, int] = {}
    bodies: list[dict] = []
    redirect_to = ""
    pad = 0

    def log_message(self, *args):  # keep test output quiet
        pass

    def _send(self, code: int, payload: object, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeChat.bodies.append({"auth": self.headers.get("Authorization"), "path": self.path, **body})
        model = body["model"]
        FakeChat.hits[model] = FakeChat.hits.get(model, 0) + 1
        text = next(p["text"] for p in body["messages"][0]["content"] if p["type"] == "text")
        answer = {"choices": [{"message": {"content": "Yes, it is." if "red" in text else "No."}}]}
        if model == "flaky" and FakeChat.hits[model] <= 2:
            return self._send(500, {"error": "overloaded"})
        if model == "slow":
            time.sleep(1.0)
        if model == "garbage":
            return self._send(200, None, raw=b"<html>not json")
        if model == "bad-request":
            return self._send(400, {"error": "bad image"})
        if model == "echo-key":
            got = self.headers.get("Authorization", "").removeprefix("Bearer ")
            return self._send(400, {"error": {"message": "x" * FakeChat.pad + f"Incorrect API key provided: {got}"}})
        if model.startswith("redirect-"):
            self.send_response(int(model.removeprefix("redirect-")))
            self.send_header("Location", FakeChat.redirect_to)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if model == "logprobs":
            answer["choices"][0]["logprobs"] = {
                "content": [
                    {
                        "token": "Yes",
                        "logprob": -0.1,
                        "top_logprobs": [
                            {"token": "Yes", "logprob": -0.2231},
                            {"token": "No", "logprob": -1.6094},
                            {"token": "Maybe", "logprob": -3.0},
                        ],
                    }
                ]
            }
        return self._send(200, answer)


@pytest.fixture
def server(monkeypatch):
    FakeChat.hits = {}
    FakeChat.bodies = []
    FakeChat.redirect_to = ""
    FakeChat.pad = 0
    srv = ThreadingHTTPServer(("127.0.0.1", 0), FakeChat)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("HUEBENCH_API_BASE", f"http://127.0.0.1:{srv.server_address[1]}/v1")
    monkeypatch.setenv("HUEBENCH_API_KEY", "test-key")
    yield srv
    srv.shutdown()
    srv.server_close()


def _q(text):
    return VLMQuery((IMG, text), max_new_tokens=5)


def test_generation_sends_images_and_key(server):
    m = load_model("api:ok", batch_size=2)
    assert m.generate([_q("is the car red?"), _q("is the car blue?")]) == ["Yes, it is.", "No."]
    body = FakeChat.bodies[0]
    assert body["auth"] == "Bearer test-key" and body["temperature"] == 0 and body["max_tokens"] == 5
    img_part = next(p for p in body["messages"][0]["content"] if p["type"] == "image_url")
    assert img_part["image_url"]["url"].startswith("data:image/png;base64,")


def test_yes_probability_from_logprobs_and_from_text(server):
    assert load_model("api:logprobs").yes_probability([_q("red?")])[0] == pytest.approx(0.8 / (0.8 + 0.2), abs=1e-3)
    assert load_model("api:ok").yes_probability([_q("red?"), _q("blue?")]) == [1.0, 0.0]


def test_retries_with_backoff_then_succeeds(server):
    m = load_model("api:flaky", backoff_s=0.01)
    assert m.generate([_q("red?")]) == ["Yes, it is."]
    assert FakeChat.hits["flaky"] == 3


@pytest.mark.parametrize(
    ("model", "options", "message", "attempts"),
    [
        (
            "slow",
            {"timeout_s": 0.2, "max_retries": 1, "backoff_s": 0.01},
            "after 2 attempts; last error: (TimeoutError|URLError)",
            2,
        ),
        ("garbage", {"max_retries": 2, "backoff_s": 0.01}, "after 3 attempts; last error: unparsable response body", 3),
        ("bad-request", {"max_retries": 3, "backoff_s": 0.01}, "HTTP 400.*not retried", 1),
    ],
)
def test_failures_raise_a_clear_error(server, model, options, message, attempts):
    m = load_model(f"api:{model}", **options)
    with pytest.raises(ApiError, match=message):
        m.generate([_q("red?")])
    assert FakeChat.hits[model] == attempts


def test_failing_api_becomes_per_sample_failures_in_a_run(server, tmp_path):
    m = load_model("api:garbage", max_retries=0, backoff_s=0.0)
    res = run(
        RunOptions(
            benchmark="colornames", model="api:garbage", out=tmp_path / "r", no_cache=True, progress=False, limit=2
        ),
        model=m,
    )
    assert res.results["n"] == 0 and res.results["n_failed"] == 2
    assert all("unparsable response body" in r["reason"] for r in res.records)


def test_api_fingerprint_includes_endpoint(server, monkeypatch):
    a = load_model("api:ok").fingerprint
    monkeypatch.setenv("HUEBENCH_API_BASE", "http://127.0.0.1:1/v1")
    assert load_model("api:ok").fingerprint != a


# -- security: redirects, credentials in URLs and error bodies, plain http ----------------------


class Elsewhere(BaseHTTPRequestHandler):
    """Another origin: records every request it gets (method, path, Authorization) and answers 200."""

    seen: list[dict] = []

    def log_message(self, *args):
        pass

    def _record(self):
        Elsewhere.seen.append({"method": self.command, "path": self.path, "auth": self.headers.get("Authorization")})
        data = json.dumps({"choices": [{"message": {"content": "answer from elsewhere"}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._record()

    def do_POST(self):
        self._record()

    def do_HEAD(self):
        self._record()


@pytest.fixture
def elsewhere():
    Elsewhere.seen = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def _port(srv) -> int:
    return srv.server_address[1]


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_redirect_to_another_origin_is_not_followed(server, elsewhere, code):
    FakeChat.redirect_to = f"{elsewhere}/steal?token=stolen-query-value"
    m = load_model(f"api:redirect-{code}", max_retries=3, backoff_s=0.01)
    with pytest.raises(ApiError) as excinfo:
        m.generate([_q("red?")])
    message = str(excinfo.value)
    assert f"HTTP {code} redirect" in message and "not followed" in message and "not retried" in message
    assert elsewhere in message  # the Location's origin is named …
    assert "/steal" not in message and "stolen-query-value" not in message  # … and nothing more of it
    assert "\n" not in message
    assert Elsewhere.seen == []  # the other server got nothing: not the request, not the key
    assert FakeChat.hits[f"redirect-{code}"] == 1  # not retried
    assert FakeChat.bodies[0]["auth"] == "Bearer test-key"  # the configured origin did get the key


def test_same_origin_redirect_is_refused_too(server):
    """No redirect is followed, not even to the configured origin: a 3xx is an ApiError."""
    FakeChat.redirect_to = "/v2/chat/completions"  # relative: same scheme, host and port
    m = load_model("api:redirect-307", backoff_s=0.01)
    with pytest.raises(
        ApiError,
        match=rf"HTTP 307 redirect from http://127.0.0.1:{_port(server)} to "
        rf"http://127.0.0.1:{_port(server)} not followed",
    ):
        m.generate([_q("red?")])
    assert [b["path"] for b in FakeChat.bodies] == ["/v1/chat/completions"]  # one request, the configured path


def test_redirect_without_location_is_an_error(server):
    FakeChat.redirect_to = ""
    with pytest.raises(ApiError, match="HTTP 302 redirect .* to nowhere"):
        load_model("api:redirect-302", backoff_s=0.01).generate([_q("red?")])


def test_redirect_becomes_a_recorded_failure_of_the_run(server, elsewhere, tmp_path):
    FakeChat.redirect_to = f"{elsewhere}/v1/chat/completions"
    res = run(
        RunOptions(
            benchmark="colornames", model="api:redirect-302", out=tmp_path / "r", no_cache=True, progress=False, limit=2
        ),
    )
    assert res.results["n"] == 0 and res.results["n_failed"] == 2
    assert all("redirect" in r["reason"] and "not followed" in r["reason"] for r in res.records)
    assert Elsewhere.seen == []


def test_userinfo_in_base_url_is_dropped_and_never_shown(server, monkeypatch):
    password = "pw-in-the-url-0123"
    base = f"http://someone:{password}@127.0.0.1:{_port(server)}/v1"
    monkeypatch.setenv("HUEBENCH_API_BASE", base)
    m = load_model("api:ok")
    assert m.fingerprint_parts()["base_url"] == f"http://127.0.0.1:{_port(server)}/v1"
    assert m.base_url == f"http://127.0.0.1:{_port(server)}/v1"
    assert password not in json.dumps(m.describe()) and "someone" not in json.dumps(m.fingerprint_parts())
    assert m.generate([_q("red?")]) == ["Yes, it is."]  # requests go to the host, with the key from the env
    assert FakeChat.bodies[0]["auth"] == "Bearer test-key"
    assert load_model("api:ok").fingerprint == load_model("api:ok", base_url=m.base_url).fingerprint
    with pytest.raises(ApiError) as excinfo:  # messages name the URL without its credentials
        load_model("api:bad-request", backoff_s=0.01).generate([_q("red?")])
    assert f"http://127.0.0.1:{_port(server)}/v1/chat/completions" in str(excinfo.value)
    assert password not in str(excinfo.value) and "someone" not in str(excinfo.value)


def test_userinfo_without_a_key_is_refused_with_the_fix(server, monkeypatch):
    monkeypatch.delenv("HUEBENCH_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("HUEBENCH_API_BASE", f"http://someone:pw-without-key-456@127.0.0.1:{_port(server)}/v1")
    with pytest.raises(ApiConfigError) as excinfo:
        load_model("api:ok")
    message = str(excinfo.value)
    assert "HUEBENCH_API_KEY" in message and "credentials" in message and "\n" not in message
    assert "pw-without-key-456" not in message and f"http://127.0.0.1:{_port(server)}/v1" in message
    assert FakeChat.bodies == []


def test_query_string_secrets_are_sent_but_never_recorded(server, monkeypatch):
    monkeypatch.setenv("HUEBENCH_API_BASE", f"http://127.0.0.1:{_port(server)}/v1/?api_key=qs-secret-789&v=2")
    m = load_model("api:ok")
    assert m.fingerprint_parts()["base_url"] == f"http://127.0.0.1:{_port(server)}/v1?api_key=***&v=2"
    assert m.generate([_q("red?")]) == ["Yes, it is."]
    assert FakeChat.bodies[0]["path"] == "/v1/chat/completions?api_key=qs-secret-789&v=2"


@pytest.mark.parametrize("pad", [0, 190])  # 190: the key straddles the 200-character excerpt
def test_key_echoed_in_an_error_body_is_redacted(server, monkeypatch, pad):
    key = "sk-echoed-secret-key-0123456789"
    monkeypatch.setenv("HUEBENCH_API_KEY", key)
    FakeChat.pad = pad
    with pytest.raises(ApiError, match="HTTP 400") as excinfo:
        load_model("api:echo-key", backoff_s=0.01).generate([_q("red?")])
    message = str(excinfo.value)
    assert key[:12] not in message  # neither the key nor a piece of it
    if pad == 0:
        assert "Incorrect API key provided: ***" in message
    assert FakeChat.bodies[0]["auth"] == f"Bearer {key}"  # the server did get it


@pytest.mark.parametrize(
    "url", ["http://example.com/v1", "http://10.1.2.3:8000/v1", "http://[2001:db8::1]/v1", "http://localhost.evil.com/"]
)
def test_plain_http_to_a_non_loopback_host_is_refused_before_connecting(monkeypatch, url):
    monkeypatch.delenv("HUEBENCH_API_ALLOW_HTTP", raising=False)
    monkeypatch.setenv("HUEBENCH_API_KEY", "some-key-value")
    with pytest.raises(HuebenchError) as excinfo:
        load_model("api:ok", base_url=url)
    message = str(excinfo.value)
    assert "\n" not in message and "plain http" in message and "HUEBENCH_API_ALLOW_HTTP=1" in message
    assert "https://" in message and url.rstrip("/") in message


def test_plain_http_refusal_strips_credentials(monkeypatch):
    monkeypatch.delenv("HUEBENCH_API_ALLOW_HTTP", raising=False)
    monkeypatch.setenv("HUEBENCH_API_KEY", "some-key-value")
    with pytest.raises(HuebenchError) as excinfo:
        load_model("api:ok", base_url="http://me:hunter2-secret@example.com/v1?key=abcdef123456")
    message = str(excinfo.value)
    assert "http://example.com/v1?key=***" in message
    assert "hunter2" not in message and "abcdef123456" not in message and "me:" not in message


@pytest.mark.parametrize("how", ["env", "argument"])
def test_plain_http_allowed_when_asked(monkeypatch, how):
    monkeypatch.delenv("HUEBENCH_API_ALLOW_HTTP", raising=False)
    if how == "env":
        monkeypatch.setenv("HUEBENCH_API_ALLOW_HTTP", "1")
        m = load_model("api:ok", base_url="http://example.com/v1")
    else:
        m = load_model("api:ok", base_url="http://example.com/v1", allow_http=True)
    assert m.base_url == "http://example.com/v1" and m.requests_sent == 0  # nothing sent on construction


def test_allow_http_argument_overrides_the_environment(monkeypatch):
    monkeypatch.setenv("HUEBENCH_API_ALLOW_HTTP", "1")
    with pytest.raises(HuebenchError, match="plain http"):
        ApiVLM("api:ok", model_name="ok", base_url="http://example.com/v1", allow_http=False)


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:8000/v1",
        "http://LOCALHOST/v1",
        "http://127.0.0.1/v1",
        "http://127.4.5.6:9/v1",
        "http://[::1]:8000/v1",
        "https://example.com/v1",
        "https://api.openai.com/v1/",
    ],
)
def test_https_and_loopback_http_are_accepted(monkeypatch, url):
    monkeypatch.delenv("HUEBENCH_API_ALLOW_HTTP", raising=False)
    assert load_model("api:ok", base_url=url).requests_sent == 0


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/v1", "not an http\\(s\\) URL"),
        ("example.com/v1", "not an http\\(s\\) URL"),
        ("http://127.0.0.1:notaport/v1", "not a valid URL"),
    ],
)
def test_unusable_base_urls_are_refused(url, message):
    with pytest.raises(ApiConfigError, match=message):
        load_model("api:ok", base_url=url)


def test_bad_allow_http_value_is_refused(monkeypatch):
    monkeypatch.setenv("HUEBENCH_API_ALLOW_HTTP", "maybe")
    with pytest.raises(ApiConfigError, match="HUEBENCH_API_ALLOW_HTTP='maybe' is not understood"):
        load_model("api:ok", base_url="http://example.com/v1")
